"""Gradients of a whole ConcreteFunction call: the call is one tape record, and its backward
pass is a graph derived from the forward graph once per concrete function, then cached.

The backward graph replays the forward graph under a tape and asks that tape for the gradients,
so it uses the same grad rules as everything else (and can itself be differentiated).
"""

from ..autodiff.replay import replay
from ..autodiff.tape import GradientTape
from ..composite import CompositeTensor, flat_components
from ..registry import OpDef
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
    outputs, _ = replay(forward, list(inputs) + list(captures), env=graph.replayed)
    return outputs
