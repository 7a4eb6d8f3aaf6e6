"""From call arguments to cache keys and trace specs.

A *key* is a cheap hashable summary of one call (the hot path computes it on every call):
tensors by dtype and shape, Python scalars and strings by value, containers structurally, other
objects by identity. A *spec* is the same structure with tensors replaced by ``TensorSpec``s (what a
trace is specialized to) and is what relaxed matching and ``reduce_retracing`` work on.
"""

import inspect
import weakref

import numpy as np

from ..convert import convert_to_tensor
from ..dtypes import from_numpy
from ..shapes import shape_attr
from ..tensor import EagerTensor, Tensor, TensorSpec
from ..variables import Variable, VariableSpec
from .protocols import InternalTracingContext, TraceType

_LITERALS = (int, float, bool, str, bytes, complex, type(None))
# TF keys Python numbers by value alone: 1, 1.0 and True share one trace (the first one made)
_NUMBERS = (int, float, bool)


def key_of(value):
    """The cache key of one argument value."""
    t = type(value)
    if t is EagerTensor:
        v = value._value
        return (v.dtype, v.shape)
    if t in _NUMBERS:
        return ("number", value)
    if t in _LITERALS:
        return (t, value)
    if isinstance(value, Tensor):
        return (value.dtype, shape_attr(value.shape))
    if t is list or t is tuple:
        return (t,) + tuple(map(key_of, value))
    if t is dict:
        return (dict,) + tuple((k, key_of(value[k])) for k in sorted(value, key=repr))
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (t,) + tuple(map(key_of, value))
    if isinstance(value, Variable):  # the id: calls aliasing variables differently differ
        return ("variable", value.dtype, shape_attr(value.shape),
                id(getattr(value, "_parent", value)))
    if isinstance(value, np.ndarray):
        return (value.dtype, value.shape)
    if isinstance(value, np.generic):  # NumPy scalars are passed as tensors, as in TF
        return (value.dtype, ())
    own = trace_type(value)
    if own is not None:
        return ("trace_type", own)
    plain = _plain_structure(value)
    if plain is not None:
        return key_of(plain)
    if not t.__weakrefoffset__ and t.__hash__ is None:  # neither by identity nor by value
        raise TypeError(f"Could not generate a generic TraceType for {value!r}.Please verify "
                        "that it is immutable/hashable. Otherwise, consider implementing the "
                        "Tracing Protocol for it.")
    return ("id", id(value))


def trace_type(value):
    """The trace type an argument gives itself through TF's ``__tf_tracing_type__`` protocol
    (datasets do), or None. A trace type is hashable and has ``is_subtype_of(other)``,
    ``most_specific_common_supertype(others)``, ``placeholder_value(context)`` (the value the
    traced function receives; ``context.graph``, ``context.name``) and ``to_tensors(value)``
    (what a call feeds to those placeholders)."""
    method = getattr(type(value), "__tf_tracing_type__", None)
    if method is None:
        return None
    own = method(value, _TRACING_CONTEXT)
    if not isinstance(own, TraceType) and not is_trace_type(own):
        raise TypeError(f"Expected an instance of TraceType for Tracing Protocol call to {value} "
                        f"but got {own}")
    return own


_TRACING_CONTEXT = InternalTracingContext()


def is_trace_type(spec):
    return hasattr(spec, "placeholder_value")


class IdentitySpec:
    """The spec of an argument matched by identity; holds it weakly so the cache does not keep
    it alive (objects that cannot be weakly referenced are held strongly, as TF does)."""

    __slots__ = ("_ref", "_id", "type_name", "__weakref__")

    def __init__(self, obj):
        try:
            self._ref = weakref.ref(obj)
        except TypeError:
            self._ref = lambda obj=obj: obj
        self._id = id(obj)
        self.type_name = type(obj).__name__

    def get(self):
        return self._ref()

    def __eq__(self, other):
        return (isinstance(other, IdentitySpec) and self._id == other._id
                and self._ref() is not None and self._ref() is other._ref())

    def __hash__(self):
        return self._id

    def __repr__(self):  # as TF prints a Weakref trace type
        if isinstance(self._ref, weakref.ref):
            return f"Weakref[{self._ref!r}])"  # sic: TF prints the stray parenthesis
        return f"<{self.type_name} object at {hex(self._id)}>"


def spec_of(value):
    """The trace spec of one argument: TensorSpecs for tensors, the value itself otherwise."""
    if isinstance(value, TensorSpec):  # get_concrete_function(tf.TensorSpec(...))
        return value
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, Variable):
        return VariableSpec(value.shape, value.dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        return TensorSpec(value.shape, from_numpy(value.dtype))
    if type(value) in (list, tuple):
        return type(value)(spec_of(v) for v in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(spec_of(v) for v in value))
    if type(value) is dict:
        return {k: spec_of(v) for k, v in value.items()}
    own = trace_type(value)
    if own is not None:
        return own
    plain = _plain_structure(value)
    if plain is not None:
        return spec_of(plain)
    if key_of(value)[0] == "id":
        return IdentitySpec(value)
    return value


def with_alias_ids(specs, values):
    """``specs`` with each VariableSpec numbered by its variable's first appearance in
    ``values`` (TF's alias ids)."""
    ids = {}

    def walk(spec, value):
        if isinstance(spec, VariableSpec):
            var = getattr(value, "_parent", value)
            return VariableSpec(spec.shape, spec.dtype, alias_id=ids.setdefault(id(var), len(ids)))
        if type(spec) in (list, tuple) and isinstance(value, (list, tuple)):
            return type(spec)(walk(s, v) for s, v in zip(spec, value))
        if isinstance(spec, tuple) and hasattr(spec, "_fields"):
            return type(spec)(*(walk(s, v) for s, v in zip(spec, value)))
        if type(spec) is dict and isinstance(value, dict):
            return {k: walk(spec[k], value[k]) for k in spec}
        return spec

    return tuple(walk(s, v) for s, v in zip(specs, values))


def as_tensor_for(spec, value):
    """``value`` as a tensor for a TensorSpec input (variables read, Python values converted to
    the spec's dtype when they can be, else to their own), or None when it is no tensor at all.
    The caller decides whether the result fits ``spec``."""
    if isinstance(value, Variable):
        value = value.value()
    if isinstance(value, Tensor):
        return value
    for dtype in (spec.dtype, None):
        try:
            return convert_to_tensor(value, dtype=dtype)
        except (TypeError, ValueError):
            pass
    return None


def fits(spec, tensor):
    return tensor.dtype == spec.dtype and spec.shape.is_compatible_with(tensor.shape)


def is_subtype(spec, general):
    """True if every call matching ``spec`` also matches ``general`` (a trace's spec)."""
    if isinstance(general, TensorSpec):
        return (isinstance(spec, TensorSpec) and type(spec) is type(general)
                and spec.dtype == general.dtype and spec.shape.is_subtype_of(general.shape)
                and getattr(general, "alias_id", None) in (None, getattr(spec, "alias_id", None)))
    if isinstance(general, tuple) or type(general) is list:  # lists, tuples, namedtuples
        return (type(spec) is type(general) and len(spec) == len(general)
                and all(is_subtype(a, b) for a, b in zip(spec, general)))
    if type(general) is dict:
        return (type(spec) is dict and spec.keys() == general.keys()
                and all(is_subtype(spec[k], general[k]) for k in general))
    if is_trace_type(general):
        return is_trace_type(spec) and spec.is_subtype_of(general)
    if isinstance(spec, TensorSpec):
        return False
    return _same_kind(spec, general) and (spec is general or _literal_eq(spec, general))


def _same_kind(a, b):
    return type(a) is type(b) or (type(a) in _NUMBERS and type(b) in _NUMBERS)


def _literal_eq(a, b):
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - objects with odd __eq__ compare by identity
        return False


def supertype(a, b):
    """The most specific spec both ``a`` and ``b`` are subtypes of, or None (reduce_retracing)."""
    if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
        if type(a) is not type(b) or a.dtype != b.dtype:
            return None
        shape = a.shape.most_specific_compatible_shape(b.shape)
        if isinstance(a, VariableSpec):
            return VariableSpec(shape, a.dtype, alias_id=a.alias_id) \
                if a.alias_id == b.alias_id else None
        return type(a)(shape, a.dtype)
    if type(a) in (list, tuple) and type(a) is type(b):
        if len(a) != len(b):
            return None
        parts = [supertype(x, y) for x, y in zip(a, b)]
        return None if any(p is None and not (x is None and y is None)
                           for p, x, y in zip(parts, a, b)) else type(a)(parts)
    if type(a) is dict and type(b) is dict and a.keys() == b.keys():
        parts = {k: supertype(a[k], b[k]) for k in a}
        return None if any(parts[k] is None and a[k] is not None for k in a) else parts
    if is_trace_type(a) and is_trace_type(b):
        return a.most_specific_common_supertype([b])
    if _same_kind(a, b) and _literal_eq(a, b):
        return a
    return None


def describe(spec):
    """How a spec prints in signatures: TensorSpecs as themselves, literals as Literal[...]."""
    if isinstance(spec, TensorSpec):
        return repr(spec)
    if type(spec) in (list, tuple):
        inner = ", ".join(describe(s) for s in spec)
        return f"{type(spec).__name__.capitalize()}[{inner}]"
    if type(spec) is dict:
        return "Dict[" + ", ".join(f"[{k!r}, {describe(v)}]" for k, v in spec.items()) + "]"
    if isinstance(spec, tuple) and hasattr(spec, "_fields"):  # namedtuples, as TF prints them
        inner = ", ".join(f"[{f!r}, {describe(v)}]" for f, v in zip(spec._fields, spec))
        return f"{type(spec).__name__}[{inner}]"
    if isinstance(spec, _LITERALS):
        return f"Literal[{spec!r}]"
    if isinstance(spec, IdentitySpec) or is_trace_type(spec):
        return repr(spec)
    return f"<{type(spec).__name__} object at {hex(id(spec))}>"


class Binder:
    """Binds call arguments to a Python function's parameters, fast for plain positional calls."""

    def __init__(self, python_function, skip_first=False):
        sig = inspect.signature(python_function)
        params = list(sig.parameters.values())
        if skip_first and params:
            params = params[1:]
        self.signature = sig.replace(parameters=params)
        self.params = params
        self.names = [p.name for p in params]
        self.simple = all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY) for p in params)
        self.n = len(params)

    def with_defaults(self, defaults):
        """A binder whose parameters default to ``defaults`` (name -> value) where Python allows
        it (a ConcreteFunction's Python-literal arguments may be left out, as in TF)."""
        params = [p.replace(default=defaults[p.name]) if p.name in defaults else p
                  for p in self.params]
        try:
            signature = self.signature.replace(parameters=params)
        except ValueError:  # a default before a parameter without one: keep them required
            return self
        binder = object.__new__(Binder)
        binder.__dict__.update(self.__dict__)
        binder.signature, binder.params = signature, params
        return binder

    def bind(self, args, kwargs):
        """The parameter values in order (defaults filled in), as a tuple.

        Raises:
            TypeError: as Python does for a call that does not fit the signature.
        """
        if self.simple and not kwargs and len(args) == self.n:
            return args
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments[name] for name in self.names)

    def split(self, values):
        """Parameter values back into (args, kwargs) for calling the Python function."""
        args, kwargs = [], {}
        for p, v in zip(self.params, values):
            if p.kind == p.VAR_POSITIONAL:
                args.extend(v)
            elif p.kind == p.VAR_KEYWORD:
                kwargs.update(v)
            elif p.kind == p.KEYWORD_ONLY:
                kwargs[p.name] = v
            else:
                args.append(v)
        return args, kwargs


def flat_inputs(value, out):
    """Append the tensor-like leaves of ``value`` (the graph's inputs) to ``out``, in order."""
    t = type(value)
    if t is EagerTensor:
        out.append(value)
    elif isinstance(value, Tensor):
        out.append(value)
    elif t is list or t is tuple or (isinstance(value, tuple) and hasattr(value, "_fields")):
        for v in value:
            flat_inputs(v, out)
    elif t is dict:
        for k in sorted(value, key=repr):
            flat_inputs(value[k], out)
    elif isinstance(value, Variable):
        out.append(value)
    elif isinstance(value, (np.ndarray, np.generic)):
        out.append(value)
    else:
        own = trace_type(value)
        if own is not None:
            out.extend(own.to_tensors(value))
        elif _plain_structure(value) is not None:
            flat_inputs(_plain_structure(value), out)
    return out


def _plain_structure(value):
    """A list, dict or tuple subclass (the trackable wrappers a tf.Module attribute holds) as
    the plain structure it traces as, in TF; None for anything else."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(value)
    return None


def leaves(structure):
    """The leaves of a nested structure of specs or values (lists, tuples, dicts)."""
    if isinstance(structure, (list, tuple)):
        for x in structure:
            yield from leaves(x)
    elif isinstance(structure, dict):
        for x in structure.values():
            yield from leaves(x)
    else:
        yield structure
