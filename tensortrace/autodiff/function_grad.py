"""Gradients of a whole ConcreteFunction call: the call is one tape record, and its backward
pass is a graph derived from the forward graph once per concrete function, then cached.

The backward graph replays the forward graph under a tape and asks that tape for the gradients,
so it uses the same grad rules as everything else (and can itself be differentiated).
"""

from ..registry import OpDef
from ..tensor import TensorSpec
from .replay import replay


def call_opdef(concrete):
    """The OpDef a tape records for a call of ``concrete``; built once per concrete function."""
    opdef = getattr(concrete, "_call_opdef", None)
    if opdef is None:
        opdef = OpDef(concrete.name, infer=None, kernel=None,
                      grad=lambda record, *dys: _grad(concrete, record, dys),
                      reads_variables=True)
        concrete._call_opdef = opdef
    return opdef


def _grad(concrete, record, dys):
    backward, connected = _backward(concrete)
    grads = backward._call_flat(list(record.inputs) + list(dys))
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    it = iter(grads)
    return [next(it) if c else None for c in connected]


def _backward(concrete):
    cached = getattr(concrete, "_backward", None)
    if cached is None:
        cached = concrete._backward = _trace_backward(concrete)
    return cached


def _trace_backward(concrete):
    from ..tracing.concrete import ConcreteFunction
    from ..tracing.signature import Binder
    from ..tracing.trace import FuncGraph
    from .tape import GradientTape

    forward = concrete.graph
    graph = _backward_graph(FuncGraph)(concrete.name + "_backward")
    feeds = list(forward.inputs) + [ph for _, ph in forward.captures]
    with graph.as_default():
        inputs = [graph.placeholder(TensorSpec(t.shape, t.dtype), "x") for t in feeds]
        dys = [graph.placeholder(TensorSpec(t.shape, t.dtype), "dy") for t in forward.outputs]
        with GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(inputs)
            n = len(forward.inputs)
            outs = _replay(forward, inputs[:n], inputs[n:], graph)
        grads = tape.gradient(outs, inputs, output_gradients=dys)
    connected = [g is not None for g in grads]
    graph.inputs = inputs + dys
    graph.outputs = [g for g in grads if g is not None]
    graph.structured_outputs = list(graph.outputs)
    specs = [TensorSpec(t.shape, t.dtype) for t in graph.inputs]

    def signature_of(*flat):  # the backward function's flat positional signature
        return flat

    backward = ConcreteFunction(graph, Binder(signature_of), (tuple(specs),),
                                concrete.name + "_grad")
    backward._flat_feeds = True
    return backward, connected


def _backward_graph(base):
    class BackwardGraph(base):
        """A backward graph: forward-graph tensors that custom gradient functions close over
        stand for their replayed copies."""

        replayed = None  # forward tensor id -> its replayed copy (set by _replay)

        def capture(self, value, name=None):
            hit = self.replayed.get(id(value)) if self.replayed else None
            return hit if hit is not None else super().capture(value, name)

    return BackwardGraph


def _replay(forward, inputs, captures, graph):
    """Replay ``forward`` into ``graph`` under the active tape, noting each forward tensor's
    replayed copy in ``graph.replayed``."""
    graph.replayed = {}
    outputs, _ = replay(forward, list(inputs) + list(captures), env=graph.replayed)
    return outputs
