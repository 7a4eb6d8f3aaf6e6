"""Signatures: functions exported for serving, called with keyword arguments (one positional
argument when there is one input) and returning a dict of tensors.

    tf.saved_model.save(m, path, signatures=m.f)         # m.f has an input_signature
    tf.saved_model.load(path).signatures["serving_default"](x=x)   # {"output_0": ...}
"""

import collections.abc
import inspect
import re

from .. import nest
from ..tensor import Tensor, TensorSpec
from ..tracing.concrete import ConcreteFunction
from ..tracing.function import PolymorphicFunction
from ..tracing.signature import Binder
from ..tracing.trace import trace
from ..variables import VariableSpec

DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
DEFAULT_SIGNATURE_ATTR = "_default_save_signature"


def concrete_of(function):
    """The concrete function a signature exports, or None: a ConcreteFunction, or a tf.function
    with an input_signature (traced now if it has not been)."""
    if isinstance(function, PolymorphicFunction) and function.input_signature is not None:
        function = function.get_concrete_function()
    return function if isinstance(function, ConcreteFunction) else None


def _validate_inputs(concrete):
    if any(isinstance(s, VariableSpec) for s in nest.flatten(concrete._specs)):
        raise ValueError(f"Unable to serialize concrete_function '{concrete.name}'with tf.Variable "
                         "input. Functions that expect tf.Variable inputs cannot be exported as "
                         "signatures.")


def normalize_outputs(outputs, function_name, signature_key):
    """Outputs as TF's signatures return them: a dict from string keys to tensors."""
    if not isinstance(outputs, collections.abc.Mapping):
        if hasattr(outputs, "_asdict"):
            outputs = outputs._asdict()
        else:
            if not isinstance(outputs, collections.abc.Sequence):
                outputs = [outputs]
            outputs = {f"output_{i}": output for i, output in enumerate(outputs)}
    for key, value in outputs.items():
        if not isinstance(key, (str, bytes)):
            raise ValueError(  # noqa: TRY004 - TF's error type
                f"Got a dictionary with a non-string key {key!r} in the output of the "
                f"function {function_name} used to generate the SavedModel signature "
                f"{signature_key!r}.")
        if not isinstance(value, Tensor):
            raise ValueError(  # noqa: TRY004 - TF's error type
                f"Got a non-Tensor value {value!r} for key {key!r} in the output of "
                f"the function {function_name} used to generate the SavedModel "
                f"signature {signature_key!r}. Outputs for functions used as "
                "signatures must be a single Tensor, a sequence of Tensors, or a "
                "dictionary from string to Tensor.")
    return dict(outputs)


def valid_signature(concrete):
    """Whether ``concrete`` can become the implicit ``serving_default`` signature."""
    if not concrete.outputs:
        return False
    try:
        _validate_inputs(concrete)
        normalize_outputs(concrete.graph.structured_outputs, "unused", "unused")
    except ValueError:
        return False
    return True


def default_signature(children):
    """``{"serving_default": f}`` when the root has exactly one function usable as a signature
    (TF's rule for ``signatures=None``), else ``{}``."""
    possible = []
    for name, child in children:
        if not isinstance(child, (PolymorphicFunction, ConcreteFunction)):
            continue
        if name == DEFAULT_SIGNATURE_ATTR:
            return {DEFAULT_SERVING_SIGNATURE_DEF_KEY: child}
        concrete = concrete_of(child)
        if concrete is not None and valid_signature(concrete):
            possible.append(concrete)
    return {DEFAULT_SERVING_SIGNATURE_DEF_KEY: possible[0]} if len(possible) == 1 else {}


def canonicalize(signatures):
    """``signatures`` (a function or a mapping of them) as {key: SignatureFunction}.

    Raises:
        ValueError: for a value that is neither a concrete function nor a tf.function with an
            input_signature, for tf.Variable inputs, and for outputs that are not tensors.
    """
    if signatures is None:
        return {}
    if not isinstance(signatures, collections.abc.Mapping):
        signatures = {DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    built = {}
    for key, function in signatures.items():
        if not isinstance(key, str):
            raise ValueError(f"Signature keys must be strings, got {key!r}.")  # noqa: TRY004
        concrete = concrete_of(function)
        if concrete is None:
            raise ValueError(
                "Expected a TensorFlow function for which to generate a signature, but got "
                f"{function}. Only `tf.functions` with an input signature or concrete functions "
                "can be used as a signature.")
        _validate_inputs(concrete)
        built[key] = _wrap(key, concrete, getattr(function, "__name__", None))
    return built


def _keywords(concrete):
    """Keyword names of the signature's inputs: the placeholder names, made identifiers (ASCII
    where a name is not one already: ``a\u00b2`` becomes ``a_``)."""
    names, seen = [], set()
    for t in concrete.graph.inputs:
        name = t.op.name if t.op.name.isidentifier() else re.sub(r"\W", "_", t.op.name,
                                                                 flags=re.ASCII)
        if not name or name[0].isdigit():
            name = "_" + name
        base, i = name, 1
        while name in seen:
            name, i = f"{base}_{i}", i + 1
        seen.add(name)
        names.append(name)
    return names


def _wrap(key, concrete, function_name):
    """Trace a keyword-only wrapper calling ``concrete`` and returning a dict of tensors."""
    names = _keywords(concrete)
    # TF traces the wrapper on keyword arguments: its inputs in the keys' sorted order
    order = sorted(range(len(names)), key=lambda i: names[i])
    inputs = concrete.graph.inputs
    specs = tuple(TensorSpec(inputs[i].shape, inputs[i].dtype, names[i]) for i in order)

    def signature_wrapper(**kwargs):
        outputs = concrete._call_flat([kwargs[n] for n in names])
        return normalize_outputs(outputs, concrete.name, key)

    signature_wrapper.__signature__ = keyword_signature([names[i] for i in order])
    name = "signature_wrapper" + (f"_{function_name}" if function_name else "")
    binder = Binder(signature_wrapper)
    graph = trace(signature_wrapper, binder, specs, name, allow_variable_creation=False,
                  autograph=False)
    return SignatureFunction(graph, binder, specs, name)


def keyword_signature(names):
    return inspect.Signature([inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY)
                              for n in names])


class SignatureFunction(ConcreteFunction):
    """A signature: keyword arguments in, a dict of tensors out (``signatures[key](x=...)``)."""

    def __init__(self, graph, binder, specs, function_name):
        super().__init__(graph, binder, specs, function_name)
        # SignatureDefs are unordered: a positional argument is unambiguous only when alone
        self._num_positional_args = 1 if len(specs) == 1 else 0

    def __call__(self, *args, **kwargs):
        names = [p.name for p in self._binder.params]
        flat = f"{self._function_name}({', '.join(names)})"
        if len(args) > self._num_positional_args:
            raise TypeError(self._failure(
                "too many positional arguments", args, kwargs,
                f"{flat} takes {self._num_positional_args} positional arguments, got "
                f"{len(args)}."))
        given = dict(kwargs)
        for name, arg in zip(names, args):
            if name in given:
                raise TypeError(self._failure(f"multiple values for argument '{name}'", args,
                                              kwargs, f"{flat} got two values for {name}."))
            given[name] = arg
        unexpected = [k for k in given if k not in names]
        if unexpected:
            raise TypeError(self._failure(
                f"got an unexpected keyword argument '{unexpected[0]}'", args, kwargs,
                f"{flat} got unexpected keyword arguments: {', '.join(unexpected)}."))
        missing = [n for n in names if n not in given]
        if missing:
            raise TypeError(self._failure(
                f"missing a required argument: '{missing[0]}'", args, kwargs,
                f"{flat} missing required arguments: {', '.join(missing)}."))
        return super().__call__(**given)

    def _failure(self, reason, args, kwargs, fallback):
        return (f"Binding inputs to tf.function failed due to `{reason}`. Received args: {args} "
                f"and kwargs: {kwargs} for signature: {self._function_type_text()}.\n"
                f"Fallback to flat signature also failed due to: {fallback}")


class SignatureMap(collections.abc.Mapping):
    """``loaded.signatures``: an immutable mapping from signature key to SignatureFunction."""

    def __init__(self, signatures=None):
        self._signatures = dict(signatures or {})

    def __getitem__(self, key):
        return self._signatures[key]

    def __iter__(self):
        return iter(self._signatures)

    def __len__(self):
        return len(self._signatures)

    def __repr__(self):
        return f"_SignatureMap({self._signatures})"
