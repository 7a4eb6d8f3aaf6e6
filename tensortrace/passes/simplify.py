"""Peephole rewrites to cheaper ops with the same values (on optimized graphs only):

- Identity(x) is x (TF passes every output through one).
- ``x[i]`` traced as StridedSlice(x, Pack(i), Pack(i + ...), [1], shrink_axis_mask=1) becomes
  IndexAxis0(x, i): one NumPy index instead of packing and decoding a slice spec.
"""

from ..registry import get as get_op
from .rewrite import rebuild


def _scalar_index(op):
    """The scalar index tensor of a StridedSlice that is exactly ``x[i]``, else None."""
    a = op.attrs
    if (a.get("shrink_axis_mask") != 1 or a.get("begin_mask") or a.get("end_mask")
            or a.get("ellipsis_mask") or a.get("new_axis_mask")):
        return None
    begin, strides = op.inputs[1], op.inputs[3]
    if begin.op.type != "Pack" or len(begin.op.inputs) != 1 or begin.op.inputs[0].shape.rank != 0:
        return None
    if strides.static is None or strides.static.tolist() != [1]:
        return None
    if op.inputs[0].shape.rank in (None, 0):
        return None
    return begin.op.inputs[0]


def rewrite(op, inputs, new):
    """The outputs of the cheaper op replacing ``op`` (its ``inputs`` already in graph ``new``,
    where the new op is added), or None to keep ``op``."""
    if op.type == "Identity":
        return [inputs[0]]
    if op.type != "StridedSlice" or _scalar_index(op) is None:
        return None
    index = inputs[1].op.inputs[0]  # the Pack's scalar, as rebuilt in the new graph
    made = new.add_op(get_op("IndexAxis0").name, (inputs[0], index), {}, (op.outputs[0].spec,),
                      name=op.name)
    return made.outputs


def run(graph):
    changed = []

    def replace(op, inputs, new):
        outs = rewrite(op, inputs, new)
        if outs is not None:
            changed.append(op)
        return outs

    new = rebuild(graph, replace=replace)
    return (new, True) if changed else (graph, False)
