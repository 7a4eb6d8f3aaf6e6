"""Gradients of a whole ConcreteFunction call: the call is one tape record, and its backward
pass is a graph derived from the forward graph once per concrete function, then cached.

The backward graph replays the forward graph under a tape and asks that tape for the gradients,
so it uses the same grad rules as everything else (and can itself be differentiated).

A ``jit_compile=True`` function called while another graph is traced is not inlined: it becomes
one call op (TF's ``PartitionedCall``, ``StatefulPartitionedCall`` when it touches state, marked
``_XlaMustCompile``) whose kernel runs the compiled function, as TF runs it as its own XLA
cluster; its gradient is the backward function, compiled too.
"""

from ..autodiff.replay import replay
from ..autodiff.tape import GradientTape
from ..composite import CompositeTensor, flat_components
from ..context import bind
from ..graph.ir import subgraphs
from ..registry import OpDef, register
from ..registry import get as get_op
from ..tensor import TensorSpec
from . import concrete  # the backward function is a ConcreteFunction (concrete.py calls here)
from .signature import Binder
from .trace import FuncGraph


def call_opdef(function):
    """The OpDef a tape records for a call of ``function``; built once per concrete function."""
    opdef = function._call_opdef
    if opdef is None:
        opdef = OpDef(function.name, infer=None, kernel=None,
                      grad=lambda record, *dys: _grad(function, record, dys),
                      reads_variables=True)
        function._call_opdef = opdef
    return opdef


def _grad(function, record, dys):
    """The call's input gradients; ``connected`` holds, per input, False (no gradient), True
    (a tensor) or the spec of a composite gradient (an IndexedSlices: TF keeps it sparse)."""
    backward, connected = _backward(function)
    grads = backward._call_flat(list(record.inputs) + list(dys))
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    out, i = [], 0
    for c in connected:
        if c is False:
            out.append(None)
        elif c is True:
            out.append(grads[i])
            i += 1
        else:
            n = len(c._flat_tensor_specs)
            out.append(c._from_components(grads[i:i + n]))
            i += n
    return out


def _backward(function):
    cached = function._backward
    if cached is None:
        cached = function._backward = _trace_backward(function)
    return cached


class BackwardGraph(FuncGraph):
    """A backward graph: forward-graph tensors that custom gradient functions close over stand
    for their replayed copies."""

    replayed = None  # forward tensor id -> its replayed copy (set by _replay)

    def capture(self, value, name=None):
        hit = self.replayed.get(id(value)) if self.replayed else None
        return hit if hit is not None else super().capture(value, name)

    def apply(self, opdef, inputs, attrs):
        # the forward ran a jit_compile call's writes already: recomputing its values for the
        # gradient calls the function without them (compiled too)
        if opdef is _CALL_OPS[True] and _writes_state(attrs["f"]):
            attrs = dict(attrs, f=_without_effects(attrs["f"]).graph)
        return super().apply(opdef, inputs, attrs)


def _flat_signature(*flat):
    """The backward function's parameters: the forward inputs and output gradients, flat."""
    return flat


_FLAT = Binder(_flat_signature)


def _trace_backward(function):
    forward = function.graph
    graph = BackwardGraph(function.name + "_backward")
    feeds = list(forward.inputs) + [ph for _, ph in forward.captures]
    with graph.as_default():
        inputs = [graph.placeholder(TensorSpec(t.shape, t.dtype), "x") for t in feeds]
        dys = [graph.placeholder(TensorSpec(t.shape, t.dtype), "dy") for t in forward.outputs]
        with GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(inputs)
            n = len(forward.inputs)
            outs = _replay(forward, inputs[:n], inputs[n:], graph)
        grads = tape.gradient(outs, inputs, output_gradients=dys)
    connected = [g is not None and (g._type_spec if isinstance(g, CompositeTensor) else True)
                 for g in grads]
    graph.inputs = inputs + dys
    graph.outputs = [c for g in grads if g is not None
                     for c in (flat_components(g) if isinstance(g, CompositeTensor) else [g])]
    graph.structured_outputs = list(graph.outputs)
    specs = [TensorSpec(t.shape, t.dtype) for t in graph.inputs]
    backward = concrete.ConcreteFunction(graph, _FLAT, (tuple(specs),), function.name + "_grad",
                                         jit_compile=function._jit_compile)
    return backward, connected


def _replay(forward, inputs, captures, graph):
    """Replay ``forward`` into ``graph`` under the active tape, noting each forward tensor's
    replayed copy in ``graph.replayed``."""
    graph.replayed = {}
    # the forward pass made its writes: recomputing it for the gradient makes none again
    outputs, _ = replay(forward, list(inputs) + list(captures), env=graph.replayed,
                        skip_effects=True)
    return outputs


def call_in_graph(function, inputs):
    """Record a call of the jit_compile ``function`` on ``inputs`` (its flat inputs, then its
    captures) in the graph being traced; returns the output tensors, flat."""
    graph = function.graph
    graph._tt_function = function  # the kernel's and the gradient's way back to the function
    stateful = _touches_state(graph)
    opdef = _CALL_OPS[stateful]
    out = bind(opdef, *inputs, f=graph, _XlaMustCompile=True)
    if not graph.outputs:
        return []
    return list(out) if len(graph.outputs) > 1 else [out]


def _touches_state(graph):
    """TF's choice of StatefulPartitionedCall: the function reads or writes state."""
    feeds = list(graph.inputs) + [ph for _, ph in graph.captures]
    if any(ph.dtype.name == "resource" for ph in feeds):
        return True
    for op in graph.get_operations():
        if op.type not in ("Const", "Placeholder") and get_op(op.type).stateful:
            return True
        if any(_touches_state(sub) for _, sub in subgraphs(op.attrs)):
            return True
    return False


def _writes_state(graph):
    """Whether ``graph`` (or a branch or body in it) runs an op for its effect alone."""
    for op in graph.get_operations():
        if not op.outputs and op.type != "NoOp" and get_op(op.type).stateful:
            return True
        if any(_writes_state(sub) for _, sub in subgraphs(op.attrs)):
            return True
    return False


def _without_effects(graph):
    """The jit_compile function of ``graph`` without its writes (made once): its feeds, all
    as arguments, give its outputs."""
    pure = getattr(graph, "_tt_without_effects", None)
    if pure is None:
        function = graph._tt_function
        feeds = list(graph.inputs) + [ph for _, ph in graph.captures]
        copy = FuncGraph(graph.name + "_without_effects")
        with copy.as_default():
            args = [copy.placeholder(TensorSpec(t.shape, t.dtype), "x") for t in feeds]
            outs, _ = replay(graph, args, skip_effects=True)
        copy.inputs, copy.outputs, copy.structured_outputs = args, outs, list(outs)
        specs = tuple(TensorSpec(t.shape, t.dtype) for t in args)
        pure = concrete.ConcreteFunction(copy, _FLAT, (specs,), function.name + "_pure",
                                         jit_compile=True)
        copy._tt_function = graph._tt_without_effects = pure
    return pure


def _call_infer(*inputs, f, **attrs):
    specs = tuple(TensorSpec(t.shape, t.dtype) for t in f.outputs)
    return specs[0] if len(specs) == 1 else specs


def _call_kernel(*arrays, f, **attrs):
    outs = f._tt_function._executable()(*arrays)
    return outs[0] if len(outs) == 1 else tuple(outs)


def _call_grad(record, *dys):
    return _grad(record.attrs["f"]._tt_function, record, dys)


_CALL_OPS = {stateful: register(OpDef(
    name, infer=_call_infer, kernel=_call_kernel, grad=_call_grad, stateful=stateful,
    reads_variables=True, doc="A call of a jit_compile function: one XLA cluster."))
    for stateful, name in ((False, "PartitionedCall"), (True, "StatefulPartitionedCall"))}
