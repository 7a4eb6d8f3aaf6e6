"""Gradients of the array ops, after TF's array_grad.py: reshapes and transposes undo themselves,
joins split and splits join, pads slice, tiles and broadcasts sum back, and shape queries, ranges
and one-hots pass none."""

import numpy as np

from ... import dtypes as D
from ...context import bind
from ...convert import convert_to_tensor
from ...ops.array.broadcasting import broadcast_to
from ...ops.array.joining import concat, split, stack, unstack
from ...ops.array.ranges import range as tf_range
from ...ops.array.reshaping import reshape, squeeze, transpose
from ...ops.array.sequences import reverse
from ...ops.array.shapes import shape
from ...ops.indexing.segment import unsorted_segment_sum
from ...ops.indexing.slicing import slice_
from ...ops.math.casting import cast
from ...ops.reduce import reduce_sum
from ...tensor import static_value
from ..grad_util import not_differentiable, register_gradients, shape_of, static_dims, unbroadcast


def _as_input(op, dy):
    """dy reshaped back to the shape of the op's first input."""
    return reshape(dy, shape_of(op.inputs[0]))


def _inverse_perm(perm, rank):
    perm = [p % rank for p in perm]
    return tuple(perm.index(i) for i in range(rank))


def _transpose(op, dy):
    perm = op.attrs["perm"]
    if perm is not None:
        perm = _inverse_perm(perm, len(perm))
    return bind(op.opdef, dy, perm=perm)


def _expand_dims(op, dy):
    x = op.inputs[0]
    if x.shape.rank is not None:
        return squeeze(dy, [op.attrs["axis"] % (x.shape.rank + 1)])
    return reshape(dy, shape(x))


def _axis_sizes(values, axis):
    """Each input's size along ``axis``: ints when all are static, else int32 tensors."""
    sizes = [v.shape[axis] if v.shape.rank is not None else None for v in values]
    if None not in sizes:
        return sizes
    return [shape(v)[axis] for v in values]


def _concat(op, dy):
    values, axis = op.inputs, op.attrs["axis"]
    sizes = _axis_sizes(values, axis)
    if all(type(s) is int for s in sizes):
        return split(dy, sizes, axis) if len(sizes) > 1 else [dy]
    rank = values[0].shape.rank
    if rank is None:
        raise NotImplementedError("the gradient of concat needs inputs of known rank")
    axis %= rank
    dxs, offset = [], 0
    for v, n in zip(values, sizes):
        begin = [0] * axis + [offset] + [0] * (rank - axis - 1)
        dxs.append(slice_(dy, begin, shape(v)))
        offset = offset + n
    return dxs


def _pad(op, dy):
    """The slice of dy where the input sits (PadV2's constant gets None, as in TF)."""
    x, paddings = op.inputs[0], op.inputs[1]
    p = static_value(paddings)
    if p is not None:
        begin, size = np.reshape(p, (-1, 2))[:, 0].tolist(), shape_of(x)
    else:
        begin = reshape(slice_(paddings, [0, 0], [-1, 1]), [-1])
        size = shape(x, out_type=paddings.dtype)
    return (slice_(dy, begin, size), None) + ((None,) if len(op.inputs) == 3 else ())


def _mirror_indices(d, before, after, mode):
    """For each position of a mirror-padded axis, the input index it copies."""
    skip = 1 if mode == "REFLECT" else 0
    left = reverse(tf_range(skip, before + skip), [0])
    right = (d - 1 - skip) - tf_range(after)
    return concat([left, tf_range(d), right], 0)


def _mirror_pad(op, dy):
    """Each padded position sends its gradient back to the input position it copied."""
    x, paddings = op.inputs[0], op.inputs[1]
    rank = x.shape.rank
    p = static_value(paddings)
    if rank is None or p is None:
        raise NotImplementedError("the gradient of MirrorPad needs a known rank and paddings")
    sizes = static_dims(x) or [None] * rank
    for axis, (before, after) in enumerate(np.reshape(p, (rank, 2)).tolist()):
        if not before and not after:
            continue
        d = sizes[axis] if sizes[axis] is not None else shape(x)[axis]
        perm = [axis] + [i for i in range(rank) if i != axis]
        moved = transpose(dy, perm) if axis else dy
        summed = unsorted_segment_sum(moved, _mirror_indices(d, before, after, op.attrs["mode"]),
                                      d)
        dy = transpose(summed, _inverse_perm(perm, rank)) if axis else summed
    return dy, None


def _tile(op, dy):
    """Sum the copies: view dy as [m0, d0, m1, d1, ...] and sum the m axes."""
    x, multiples = op.inputs
    dims, m = static_dims(x), static_value(multiples)
    if dims is not None and m is not None:
        m = np.reshape(m, -1).tolist()
        if m == [1] * len(m):
            return dy, None
        split_shape = [k for pair in zip(m, dims) for k in pair]
        return reduce_sum(reshape(dy, split_shape), list(range(0, 2 * len(m), 2))), None
    rank = x.shape.rank
    if rank is None:
        raise NotImplementedError("the gradient of tile needs an input of known rank")
    pairs = stack([cast(multiples, D.int32), shape(x)], axis=1)
    return reduce_sum(reshape(dy, reshape(pairs, [-1])), list(range(0, 2 * rank, 2))), None


def _fill(op, dy):
    total = reduce_sum(dy, None)
    return None, total if op.inputs[1].shape.rank == 0 else reshape(total, [1])


def _linspace(op, dy):
    """d/dstart is 1 - t and d/dstop is t, with t running from 0 to 1 along ``axis``."""
    start, stop, num = op.inputs
    t = bind(op.opdef, convert_to_tensor(0, dy.dtype), convert_to_tensor(1, dy.dtype), num,
             axis=0)
    rank = dy.shape.rank
    if rank is None:
        raise NotImplementedError("the gradient of linspace needs a result of known rank")
    axis = op.attrs["axis"] % rank
    t = reshape(t, [-1] + [1] * (rank - axis - 1))
    return (unbroadcast(reduce_sum(dy * (1 - t), axis), start, stop),
            unbroadcast(reduce_sum(dy * t, axis), stop, start), None)


def _split(op, *dys):
    return concat(list(dys), op.attrs["axis"])


def _split_v(op, *dys):
    return concat(list(dys), op.attrs["axis"]), None  # the sizes input: no gradient


register_gradients({
    "Reshape":            lambda op, dy: (_as_input(op, dy), None),
    "Squeeze":            _as_input,
    "ExpandDims":         _expand_dims,
    "Transpose":          _transpose,
    "ConjugateTranspose": _transpose,
    "ConcatV2":           _concat,
    "Pack":               lambda op, dy: unstack(dy, len(op.inputs), op.attrs["axis"]),
    "Unpack":             lambda op, *dys: stack(list(dys), op.attrs["axis"]),
    "Split":              _split,
    "SplitV":             _split_v,
    "Tile":               _tile,
    "Pad":                _pad,
    "PadV2":              _pad,
    "MirrorPad":          _mirror_pad,
    "Fill":               _fill,
    "Identity":           lambda op, dy: dy,
    "PlaceholderWithDefault": lambda op, dy: dy,
    "BroadcastTo":        lambda op, dy: (unbroadcast(dy, op.inputs[0]), None),
    "SumToShape":         lambda op, dy: (broadcast_to(dy, shape(op.inputs[0])), None),
    "ReverseV2":          lambda op, dy: reverse(dy, op.attrs["axis"]) if op.attrs["axis"] else dy,
    "LinSpace":           _linspace,
})

not_differentiable("InvertPermutation", "StopGradient", "ZerosLike", "OnesLike", "Shape", "ShapeN",
                   "Size", "Rank", "BroadcastArgs", "Range", "OneHot")
