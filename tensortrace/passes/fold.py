"""Constant folding: an op whose inputs are all constants runs once, through its own kernel,
and becomes a constant."""

import numpy as np

from ..graph.ir import subgraphs
from ..registry import get as get_op
from .rewrite import rebuild

_MAX_ELEMENTS = 1 << 20  # do not bake huge tensors into the graph


def _as_value(arr):
    return arr[()] if arr.ndim == 0 else arr


def _may_fold(op):
    """Whether ``run`` may fold ``op`` (its cheap tests): a graph with no such op is left as it
    is without copying (an op's inputs become constants only after an earlier op folds)."""
    if op.type in ("Const", "Placeholder") or not op.inputs or get_op(op.type).stateful:
        return False
    return all(t.static is not None for t in op.outputs) or \
        all(t.op.type == "Const" for t in op.inputs)


def run(graph):
    if not any(map(_may_fold, graph.get_operations())):
        return graph, False
    changed = []

    def replace(op, inputs, new):
        if op.type in ("Const", "Placeholder") or not inputs:
            return None
        opdef = get_op(op.type)
        if opdef.stateful:
            return None
        if all(t.static is not None and t.static.dtype != object for t in op.outputs):
            changed.append(op)  # known while tracing (shape arithmetic on static shapes)
            return [new.constant(_as_value(t.static), name=op.name + "/folded")
                    for t in op.outputs]
        if any(t.op.type != "Const" for t in inputs):
            return None
        if subgraphs(op.attrs):  # never run a loop or branch at compile time
            return None
        try:
            with np.errstate(all="ignore"):
                out = opdef.kernel(*[t.op.attrs["value"] for t in inputs], **op.attrs)
        except Exception:  # noqa: BLE001 - leave it to fail at run time, with the runtime error
            return None
        outs = out if type(out) is tuple else (out,)
        if any(np.size(v) > _MAX_ELEMENTS or np.asarray(v).dtype == object for v in outs):
            return None
        changed.append(op)
        return [new.constant(v, name=op.name + "/folded") for v in outs]

    new = rebuild(graph, replace=replace)
    return (new, True) if changed else (graph, False)
