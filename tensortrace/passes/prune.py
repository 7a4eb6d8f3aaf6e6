"""Pruning: drop ops that neither reach an output nor are stateful (TF's non-strict execution:
an unused ``tf.gather`` with a bad index never runs)."""

from ..registry import get as get_op
from .rewrite import rebuild


def run(graph):
    needed = set()
    ops = graph.get_operations()
    live = set()
    wanted = set()  # ops a live op depends on through control inputs
    for t in graph.outputs:
        needed.add(id(t))
    for op in reversed(ops):
        if op.type == "Placeholder":
            continue
        if (op in wanted or get_op(op.type).stateful
                or any(id(t) in needed for t in op.outputs)):
            live.add(op)
            needed.update(id(t) for t in op.inputs)
            wanted.update(op.control_inputs)
    if all(op in live or op.type == "Placeholder" for op in ops):
        return graph, False
    return rebuild(graph, keep=lambda op: op in live), True
