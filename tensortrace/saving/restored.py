"""What ``tf.saved_model.load`` returns: user objects holding the saved attributes, and restored
functions that dispatch over their saved concrete functions as the originals did.

    loaded = tf.saved_model.load(path)
    loaded.f(x)            # the most specific saved trace that accepts x, else a ValueError
    loaded.sub.v.assign(1.0)
"""

import inspect
import pprint

from .. import errors
from ..tensor import Tensor, TensorSpec
from ..tracing import signature
from ..tracing.concrete import ConcreteFunction
from ..tracing.function import PolymorphicFunction
from ..variables import Variable, VariableSpec
from .format import FormatError, is_namedtuple
from .signatures import SignatureFunction


class _UserObject:
    """An object restored from a SavedModel: the functions, variables and objects saved as its
    attributes (TF's ``_UserObject``; a plain trackable, not a tf.Module)."""


def stub(name, parameters):
    """A Python function standing for a loaded function's signature; calling it means a call
    matched no saved trace (the loaded model has no Python source to trace)."""

    def restored_function_body(*args, **kwargs):
        raise ValueError(f"The loaded function {name!r} has no Python source: it can only run "
                         "its saved concrete functions.")

    restored_function_body.__signature__ = inspect.Signature(parameters)
    restored_function_body.__name__ = restored_function_body.__qualname__ = name
    return restored_function_body


class _CheckedOutputs:
    """A loaded concrete function checks every eager run's outputs against the dtypes and shapes
    its graph declares: the load-time checks cannot prove a shape a file claims beyond what the
    ops infer (``set_shape`` refinements are saved as claims), so a claim the graph does not
    keep is TF's InvalidArgumentError at the call, never a silently mistyped tensor."""

    _output_specs = None  # loaded from TF's format: the output signature, as TF shows it

    @property
    def structured_outputs(self):
        specs = self._output_specs
        return self.graph.structured_outputs if specs is None else specs

    def _executable(self):
        if self._compiled is None:
            compiled = super()._executable()
            compiled.fn = _checked(compiled.fn, self.graph.outputs, compiled.single, self.name)
        return self._compiled


def _checked(fn, outputs, single, name):
    """``fn`` (a compiled graph's function) checking the values it returns: each output's
    dtype, and its shape against the declared one (a tuple when fully known, a list with None
    for unknown dimensions, None for an unknown rank)."""
    expected = []
    for i, t in enumerate(outputs):
        if t.dtype._np is not None:
            dims = None if t.shape.rank is None else list(t.shape.dims)
            expected.append((i, t.dtype._np, tuple(dims) if dims is not None and None not in dims
                             else dims))

    def check(values):
        for i, dtype, shape in expected:
            v = values[i]
            try:
                if v.dtype == dtype and (shape is None or v.shape == shape or type(shape) is list
                                         and _fits(shape, v.shape)):
                    continue
                got = f"{v.dtype} {list(v.shape)}"
            except AttributeError:
                got = type(v).__name__
            declared = outputs[i]
            raise errors.InvalidArgumentError(
                None, None, f"{name}: output #{i} is {got}, but the SavedModel declares "
                f"{declared.dtype.name} {declared.shape}: its graph does not compute what it "
                "declares")

    if single:
        def run(*feeds):
            out = fn(*feeds)
            check((out,))
            return out
    else:
        def run(*feeds):
            outs = fn(*feeds)
            check(outs)
            return outs
    return run


def _fits(dims, shape):
    return len(dims) == len(shape) and all(d is None or d == n for d, n in zip(dims, shape))


class RestoredConcreteFunction(_CheckedOutputs, ConcreteFunction):
    """A loaded concrete function (its outputs checked at each call)."""


class RestoredSignatureFunction(_CheckedOutputs, SignatureFunction):
    """A loaded signature (its outputs checked at each call)."""


class RestoredFunction(PolymorphicFunction):
    """A loaded tf.function: a call runs the saved concrete function matching the arguments (the
    most specific one, as tf.function dispatches; then, as TF does, one the arguments as given
    convert to); it never traces. The call path and the cache are tf.function's."""

    _eager_python = False  # no Python source: calls run the saved traces even then

    def __init__(self, name, parameters, input_signature, concrete_functions):
        super().__init__(stub(name, parameters), name=name, input_signature=input_signature,
                         autograph=False)
        self._cache.traces.update(dict.fromkeys(concrete_functions))  # as saved, none evicted

    @property
    def concrete_functions(self):
        return list(self._cache)

    def _binding_error(self, error, args, kwargs):
        return error  # Python's own message

    def _dispatch(self, key, values, args, kwargs):
        if not self._cache.traces:
            raise ValueError("Found zero restored functions for caller function.")
        concrete = self._cache.find(self._specs_of(values))
        if concrete is not None:
            self._cache.remember(key, concrete, values)
            return concrete, values
        given = self._binder.bind(args, kwargs)
        for cf in self._cache:  # TF's second pass: the arguments as given, converted to a trace
            converted = _convert(cf._specs, given)
            if converted is not _FAIL:
                return cf, converted
        raise ValueError(self._no_match(given))

    def _trace(self, specs):
        raise ValueError(f"Could not find a concrete function of the loaded function "
                         f"{self._name!r} for the arguments {specs}: a loaded function cannot "
                         f"trace new graphs.\n\n{self.pretty_printed_concrete_signatures()}")

    def _no_match(self, values):
        args, kwargs = self._binder.split(values)
        options = []
        for i, cf in enumerate(self._cache, 1):
            positional, keyword = cf.structured_input_signature
            options.append(f"Option {i}:\n  {_positional(positional)}\n  Keyword arguments: "
                           f"{keyword}")
        names = [p.name for p in self._binder.params if p.kind in (p.POSITIONAL_ONLY,
                                                                   p.POSITIONAL_OR_KEYWORD)]
        return ("Could not find matching concrete function to call loaded from the SavedModel. "
                f"Got:\n  {_positional(args, names)}\n  Keyword arguments: {kwargs}\n\n "
                f"Expected these arguments to match one of the following {len(options)} "
                "option(s):\n\n"
                + "\n\n".join(options))

    def __repr__(self):
        return ("<tensorflow.python.saved_model.function_deserialization.RestoredFunction "
                f"object at 0x{id(self):x}>")


def _positional(args, names=None):
    """TF's listing of arguments; a tensor argument shows as the placeholder TF made of it
    (``<tf.Tensor 'a:0' shape=(2,) dtype=int32>``, named after its parameter)."""
    shown = []
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and names and i < len(names):
            shape = "<unknown>" if a.shape.rank is None else tuple(a.shape.as_list())
            a = f"<tf.Tensor '{names[i]}:0' shape={shape} dtype={a.dtype.name}>"
        else:
            a = pprint.pformat(a)
        shown.append(a)
    return f"Positional arguments ({len(args)} total):\n    * " + "\n    * ".join(shown)


_FAIL = object()


def _convert(spec, value):
    """``value`` converted to fit ``spec`` (TF's second dispatch pass), or _FAIL."""
    if isinstance(spec, VariableSpec):
        fits = isinstance(value, Variable) and value.dtype == spec.dtype and \
            spec.shape.is_compatible_with(value.shape)
        return value if fits else _FAIL
    if isinstance(spec, TensorSpec):
        tensor = signature.as_tensor_for(spec, value)
        return tensor if tensor is not None and signature.fits(spec, tensor) else _FAIL
    if isinstance(spec, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(spec):
            return _FAIL
        items = [_convert(s, v) for s, v in zip(spec, value)]
        if any(i is _FAIL for i in items):
            return _FAIL
        return type(spec)(*items) if is_namedtuple(spec) else type(spec)(items)
    if isinstance(spec, dict):
        if not isinstance(value, dict) or value.keys() != spec.keys():
            return _FAIL
        items = {k: _convert(spec[k], value[k]) for k in spec}
        return _FAIL if any(i is _FAIL for i in items.values()) else items
    return value if signature.is_subtype(signature.spec_of(value), spec) else _FAIL


def set_attribute(obj, name, value):
    """``obj.name = value`` for a loaded attribute; dunder names other than a callable
    ``__call__`` are refused (a file must not redefine Python's protocols)."""
    if name.startswith("__") and name.endswith("__") and name != "__call__" or \
            name == "__call__" and not callable(value):
        raise FormatError(f"invalid attribute {name!r}")
    setattr(obj, name, value)
    if name == "__call__":  # Python looks __call__ up on the type: give this object its own
        obj.__class__ = type("_UserObject", (type(obj),), {"__call__": _call_attribute})


def _call_attribute(instance, *args, **kwargs):
    return instance.__dict__["__call__"](*args, **kwargs)
