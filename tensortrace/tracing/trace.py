"""Tracing: run a Python function on placeholders under a graph context (the only place that
makes a graph the current context), and collect its outputs.

    graph = trace(f, binder, specs, "f")   # placeholders named after f's parameters
"""

import sys

import numpy as np

from .. import nest
from ..composite import CompositeTensor
from ..context import state
from ..convert import convert_to_tensor
from ..graph.ir import Graph, anchor_stack, release_stack
from ..ops.array.passthrough import identity
from ..tensor import Tensor, TensorSpec
from ..variables import ResourceVariable, Variable, VariableSpec
from .protocols import PlaceholderContext
from .signature import IdentitySpec, is_trace_type

#: Set by the AutoGraph package: converter(fn) -> converted fn. None means no conversion.
converter = None

_SINGLETON_MESSAGE = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the "
    "tf.Variable is only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")


def _variable_creation_guard(variable):
    graph = state.graph
    if graph is None:
        return
    while graph is not None and not getattr(graph, "is_function_graph", False):
        graph = graph.outer
    if graph is not None and not graph.allow_variable_creation:
        raise ValueError(_SINGLETON_MESSAGE)
    if graph is not None:
        graph.created_variables.append(variable)


Variable._creation_hooks.append(_variable_creation_guard)
#: Variables whose trace uses the object passed (a distributed or sliced one stays symbolic).
_PLAIN_VARIABLES = (Variable, ResourceVariable)


class FuncGraph(Graph):
    """The graph of one trace of a Python function."""

    is_function_graph = True

    def __init__(self, name, outer=None, allow_variable_creation=True):
        super().__init__(name, outer)
        self.allow_variable_creation = allow_variable_creation
        self.created_variables = []
        self.autograph = True  # whether the trace converts (TF's AutoGraph control status)

    def bind_capture(self, value, placeholder):
        """Let ``placeholder`` (an input fed at call time) stand for the outer ``value``: a
        variable argument's handle, read through the input of whichever variable is passed."""
        self._capture_index[id(value)] = placeholder

    def has_capture(self, value):
        return id(value) in self._capture_index


def _placeholders(graph, spec, name, value=None):
    """Rebuild an argument from its spec: tensors become placeholders named ``name`` (…_1).
    A variable argument is, as in TF, the variable passed to the traced call itself (``value``),
    its handle standing for the resource placeholder; without one, a symbolic variable."""
    if isinstance(spec, VariableSpec):
        handle = graph.placeholder(TensorSpec((), "resource"), name)
        if type(value) in _PLAIN_VARIABLES:
            if not graph.has_capture(value.handle):  # else aliased: the first input stands
                graph.bind_capture(value.handle, handle)
            return value
        return Variable._symbolic(handle, spec.dtype, spec.shape, name)
    if isinstance(spec, TensorSpec):
        return graph.placeholder(spec, spec.name or name)
    if type(spec) in (list, tuple) or (isinstance(spec, tuple) and hasattr(spec, "_fields")):
        parts = value if isinstance(value, (list, tuple)) and len(value) == len(spec) \
            else (None,) * len(spec)
        made = (_placeholders(graph, s, name, v) for s, v in zip(spec, parts))
        return type(spec)(*made) if hasattr(spec, "_fields") else type(spec)(made)
    if type(spec) is dict:
        made = {k: None for k in spec}
        parts = value if isinstance(value, dict) else {}
        for k in sorted(spec, key=repr):  # the order flat_inputs walks
            made[k] = _placeholders(graph, spec[k], name, parts.get(k))
        return made
    if isinstance(spec, IdentitySpec):
        return spec.get()
    if is_trace_type(spec):
        return spec.placeholder_value(PlaceholderContext(graph, name))
    return spec


def converts():
    """Whether the tf.function being traced converts with AutoGraph (TF's control status): a
    function a strategy runs inside it is converted only then."""
    graph = state.graph
    while graph is not None and not isinstance(graph, FuncGraph):
        graph = graph.outer
    return graph is not None and graph.autograph


def trace(python_function, binder, specs, name, allow_variable_creation=True, autograph=True,
          values=None):
    """Trace ``python_function`` for arguments described by ``specs`` (one per parameter);
    ``values``, the call's own arguments, give variable arguments their objects.

    Returns:
        A FuncGraph with ``inputs`` (flat placeholders), ``outputs`` (flat tensors) and
        ``structured_outputs`` (the returned structure, tensors in place).
    """
    graph = FuncGraph(name, outer=state.graph, allow_variable_creation=allow_variable_creation)
    graph.autograph = bool(autograph)
    fn = python_function
    if autograph and converter is not None:
        fn = converter(python_function)
    anchor = anchor_stack(sys._getframe())  # the frames above this call, walked once
    try:
        return _trace_into(graph, fn, binder, specs, values)
    finally:
        release_stack(anchor)


def _trace_into(graph, fn, binder, specs, given=None):
    given = given if given is not None and len(given) == len(specs) else (None,) * len(specs)
    with graph.as_default():
        values = []
        for spec, param, value in zip(specs, binder.params, given):
            if param.kind == param.VAR_POSITIONAL:
                value = value if type(value) is tuple else (None,) * len(spec)
                values.append(tuple(_placeholders(graph, s, f"{param.name}_{i}", v)
                                    for i, (s, v) in enumerate(zip(spec, value))))
            else:
                values.append(_placeholders(graph, spec, param.name, value))
        graph.inputs = [op.outputs[0] for op in graph.get_operations() if op.type == "Placeholder"]
        args, kwargs = binder.split(values)
        result = fn(*args, **kwargs)
        graph.structured_outputs = _collect_outputs(graph, result)
    graph.outputs = [t for t in nest.flatten(graph.structured_outputs, expand_composites=True)
                     if isinstance(t, Tensor)]
    return graph


def _collect_outputs(graph, result):
    """Outputs as graph tensors: variables are read, eager tensors captured, and each output
    passes through its own Identity op, as in TF (``Identity:0``, ``Identity_1:0`` ...); a
    composite's components do, and it is rebuilt from them."""
    def convert(x):
        if isinstance(x, CompositeTensor):
            return nest.map_structure(convert, x, expand_composites=True)
        if isinstance(x, Variable):
            x = x.value()
        elif isinstance(x, (bool, int, float, str, bytes, np.generic, np.ndarray)):
            x = convert_to_tensor(x)  # TF returns Python and NumPy values as tensors
        elif isinstance(x, Tensor) and getattr(x, "graph", None) is not graph:
            x = graph.capture(x)
        return identity(x) if isinstance(x, Tensor) else x

    return nest.map_structure(convert, result) if nest.is_nested(result) else convert(result)
