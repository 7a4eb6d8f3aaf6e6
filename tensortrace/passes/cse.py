"""Common subexpression elimination: two stateless ops of one type with the same inputs and
attrs compute the same value, so the later one is replaced by the earlier."""

import numpy as np

from ..registry import get as get_op
from .rewrite import copy_op, rebuild


def _attr_key(v):
    if isinstance(v, (np.ndarray, np.generic)):
        arr = np.asarray(v)
        if arr.size > 64 or arr.dtype == object:
            return ("array", id(v))
        return ("array", arr.dtype.str, arr.shape, arr.tobytes())
    if isinstance(v, (list, tuple)):
        return tuple(_attr_key(x) for x in v)
    try:
        hash(v)
        return v
    except TypeError:
        return ("id", id(v))


def run(graph, rewrite=None):
    """Merge equal ops; ``rewrite(op, inputs, new)`` (a peephole pass's, run in the same copy
    of the graph) may give an op's replacement first, which later equal ops then share."""
    seen = {}
    changed = []

    def replace(op, inputs, new):
        if get_op(op.type).stateful or not op.outputs or op.control_inputs:
            # ordering ops (NoOp, control dependents) are not values to share
            outs = None if rewrite is None else rewrite(op, inputs, new)
            if outs is not None:
                changed.append(op)
            return outs
        key = (op.type, tuple(map(id, inputs)),
               tuple(sorted((k, _attr_key(v)) for k, v in op.attrs.items())) if op.attrs else ())
        hit = seen.get(key)
        if hit is not None:
            changed.append(op)
            return hit
        outs = None if rewrite is None else rewrite(op, inputs, new)
        if outs is None:
            outs = copy_op(new, op, inputs)
        else:
            changed.append(op)
        seen[key] = outs
        return outs

    new = rebuild(graph, replace=replace)
    return (new, True) if changed else (graph, False)
