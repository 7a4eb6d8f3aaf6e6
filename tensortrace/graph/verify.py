"""Graph invariants, checked on every loaded graph before anything runs (and after every trace
and pass when ``tensortrace.passes.pipeline.DEBUG`` is set): ops in topological order,
every input defined in the same graph, unique names, feeds that are placeholders, and every op's
``infer`` agreeing with the dtypes and shapes its outputs carry.

    verify(graph)   # raises GraphVerificationError (a ValueError) naming the graph and the op
"""

from ..registry import all_ops
from ..tensor import TensorSpec
from .ir import subgraphs


class GraphVerificationError(ValueError):
    """A graph breaks an invariant of the IR."""


def verify(graph, where=None):
    """Check ``graph`` and its sub-graphs; returns ``graph``.

    Raises:
        GraphVerificationError: for the first broken invariant found.
    """
    _Verifier(where or f"graph {graph.name!r}", all_ops()).graph(graph)
    return graph


class _Verifier:
    def __init__(self, where, ops):
        self.where = where
        self.ops = ops

    def fail(self, graph, message):
        inner = "" if graph.name in self.where else f" (graph {graph.name!r})"
        raise GraphVerificationError(f"{self.where}{inner}: {message}")

    def graph(self, graph):
        # Passes share unchanged ops between a graph and its rewrite (``op.graph`` then names the
        # original), so membership is checked by the op list, not by ``op.graph``.
        defined, names, members = set(), set(), {id(op) for op in graph.get_operations()}
        for op in graph.get_operations():
            if op.name in names:
                self.fail(graph, f"two ops are named {op.name!r}")
            names.add(op.name)
            for t in op.inputs:
                if id(t) not in defined:
                    self.fail(graph, f"op {op.name!r} ({op.type}) reads {t.name!r}, which is not "
                              "defined earlier in this graph")
            for c in op.control_inputs:
                if c.name not in names or c is op or id(c) not in members:
                    self.fail(graph, f"op {op.name!r} has control input {c.name!r}, which is not "
                              "an earlier op of this graph")
            for _, sub in subgraphs(op.attrs):
                self.subgraph(graph, op, sub)
            self.infer(graph, op)
            defined.update(id(t) for t in op.outputs)
        self.feeds(graph, defined)

    def subgraph(self, graph, op, sub):
        # a sub-graph may still name the graph it was traced in as ``outer`` (inlining a
        # function reuses its control-flow sub-graphs): only its own invariants are checked
        self.graph(sub)

    def feeds(self, graph, defined):
        feeds = list(graph.inputs) + [ph for _, ph in graph.captures]
        if len({id(t) for t in feeds}) != len(feeds):
            self.fail(graph, "a placeholder is fed twice (as an input and a capture, or twice)")
        for t in feeds:
            if id(t) not in defined or t.op.type != "Placeholder":
                self.fail(graph, f"feed {t.name!r} is not a Placeholder of this graph")
        for t in graph.outputs:
            if id(t) not in defined:
                self.fail(graph, f"output {t.name!r} is not a tensor of this graph")
        for value, ph in graph.captures:
            if value.dtype != ph.dtype:
                self.fail(graph, f"capture {ph.name!r} has dtype {ph.dtype.name} but stands for "
                          f"a {value.dtype.name} value")

    def infer(self, graph, op):
        opdef = self.ops.get(op.type)
        if opdef is None:
            self.fail(graph, f"op {op.name!r} has type {op.type!r}, which is not a registered op")
        try:
            specs = opdef.infer(*op.inputs, **op.attrs)
        except Exception as e:  # noqa: BLE001 - any failure means the op does not fit its inputs
            self.fail(graph, f"op {op.name!r} ({op.type}) does not accept its inputs and attrs: "
                      f"{type(e).__name__}: {e}")
        single = isinstance(specs, TensorSpec)
        specs = (specs,) if single else tuple(specs)
        if op.multi == single or len(specs) != len(op.outputs):
            self.fail(graph, f"op {op.name!r} ({op.type}) has {len(op.outputs)} outputs, its "
                      f"shape rule gives {len(specs)}")
        for t, spec in zip(op.outputs, specs):
            if t.dtype != spec.dtype:
                self.fail(graph, f"output {t.name!r} of {op.type} has dtype {t.dtype.name}, its "
                          f"shape rule gives {spec.dtype.name}")
            if not t.shape.is_compatible_with(spec.shape):
                self.fail(graph, f"output {t.name!r} of {op.type} has shape {t.shape}, its shape "
                          f"rule gives {spec.shape}")
