"""Gradients of the indexing ops (slicing, gather/scatter, top-k, segment reductions, roll and
einsum), after TF's array_grad.py and math_grad.py; an axis-0 gather's gradient is an
IndexedSlices, as in TF."""

import numpy as np

from ... import dtypes as D
from ...convert import constant, convert_to_tensor
from ...ops.array.broadcasting import broadcast_to
from ...ops.array.creation import ones, ones_like, zeros_like
from ...ops.array.joining import concat, stack
from ...ops.array.padding import pad
from ...ops.array.ranges import range as tf_range
from ...ops.array.reshaping import expand_dims, reshape, transpose
from ...ops.array.shapes import shape as tf_shape
from ...ops.array.shapes import size
from ...ops.indexing.contraction import einsum
from ...ops.indexing.gathering import gather, gather_nd
from ...ops.indexing.scatter import scatter_nd, tensor_scatter_nd_update
from ...ops.indexing.segment import (segment_prod, segment_sum, unsorted_segment_prod,
                                     unsorted_segment_sum)
from ...ops.indexing.slicing import roll, strided_slice, strided_slice_grad
from ...ops.math.arithmetic import divide, maximum
from ...ops.math.casting import cast
from ...ops.math.compare import equal, greater, greater_equal, logical_and
from ...ops.math.complex_numbers import conj
from ...ops.math.select import where
from ...ops.reduce import reduce_prod, reduce_sum
from ...ops.sparse.indexed_slices import IndexedSlices
from ...tensor import static_value
from ..grad_util import (no_gradient, not_differentiable, register_gradients, shape_of, static_dims,
                         unbroadcast)

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _known_rank(t, what):
    if t.shape.rank is None:
        raise NotImplementedError(f"the gradient of {what} needs inputs of known rank")
    return t.shape.rank


def _permuted(x, perm):
    return x if perm == sorted(perm) else transpose(x, perm)


def _dims_of(t, axes):
    """The sizes of ``t`` along ``axes``: a list of ints when static, else an int32 tensor."""
    dims = static_dims(t)
    if dims is not None:
        return [dims[a] for a in axes]
    return gather(tf_shape(t), list(axes)) if axes else constant(np.zeros(0, np.int32))


def _as_index(shape, like):
    """A shape (a list, or an int32 tensor) as a tensor of the index dtype of ``like``."""
    if isinstance(shape, list):
        return convert_to_tensor(shape, like.dtype)
    return cast(shape, like.dtype)


# --- slicing -------------------------------------------------------------------------------------
def _slice_grad(op, dy):
    """dy padded back to the input's shape."""
    x, begin, _ = op.inputs
    xd, yd, b = static_dims(x), static_dims(op.outputs[0]), static_value(begin)
    if xd is not None and yd is not None and b is not None:
        paddings = [[bi, n - bi - k] for bi, n, k in zip(b.tolist(), xd, yd)]
    else:
        after = tf_shape(x, begin.dtype) - tf_shape(op.outputs[0], begin.dtype) - begin
        paddings = stack([begin, after], axis=1)
    return pad(dy, paddings), None, None


def _strided_slice_grad(op, dy):
    """dy written back where the slice read, into zeros of the input's shape."""
    x, begin, end, strides = op.inputs
    dims = static_dims(x)
    shape = constant(np.array(dims, begin.dtype._np)) if dims is not None else \
        tf_shape(x, begin.dtype)
    return strided_slice_grad(shape, begin, end, strides, dy, **op.attrs), None, None, None


def _strided_slice_grad_grad(op, dy):
    """StridedSliceGrad is linear in its last input: its gradient slices dy again."""
    _, begin, end, strides, _ = op.inputs
    masks = {k: op.attrs[k] for k in _MASKS}
    return None, None, None, None, strided_slice(dy, begin, end, strides, **masks)


# --- gather and scatter --------------------------------------------------------------------------
def _gather_grad(op, dy):
    """Axis 0: TF's IndexedSlices of dy's rows at the indices. Otherwise a dense scatter-add of
    dy into params' shape: move the gathered dims first, sum the rows per index (per batch
    entry with ``batch_dims``), move the axis back."""
    params, indices = op.inputs
    if op.attrs["axis"] == 0:
        return _gather_slices(params, indices, dy), None
    pr, ir = _known_rank(params, "gather"), _known_rank(indices, "gather")
    a, b = op.attrs["axis"] % pr, op.attrs["batch_dims"]
    b += ir if b < 0 else 0
    m, j = a - b, ir - b
    rank = dy.shape.rank if dy.shape.rank is not None else pr - 1 + ir - b
    perm = [*range(b), *range(b + m, b + m + j), *range(b, b + m), *range(b + m + j, rank)]
    moved = _permuted(dy, perm)
    d = _dims_of(params, [a])[0]
    if not b:
        summed = unsorted_segment_sum(moved, indices, d)
    else:
        batch = _dims_of(params, range(b))
        nb = int(np.prod(batch)) if isinstance(batch, list) else reduce_prod(batch)
        lead = batch if isinstance(batch, list) else tf_shape(indices)[:b]
        offsets = reshape(tf_range(nb) * d, concat([lead, [1] * j], 0))
        ids = indices + cast(offsets, indices.dtype)
        summed = unsorted_segment_sum(moved, ids, nb * d)
        order = [*range(b), a, *range(b, a), *range(a + 1, pr)]
        summed = reshape(summed, _dims_of(params, order))
    back = [*range(b), *range(b + 1, b + 1 + m), b, *range(b + 1 + m, pr)]
    return _permuted(summed, back), None


def _gather_slices(params, indices, dy):
    """dy as [size(indices), params.shape[1:]] rows at the flattened indices; the dense shape
    is params' shape as int32 (TF casts it)."""
    dims = static_dims(params)
    dense_shape = constant(np.array(dims, np.int32)) if dims is not None else \
        tf_shape(params, D.int32)
    n = indices.shape.num_elements()
    count = [n] if n is not None else expand_dims(size(indices), 0)
    tail = dims[1:] if dims is not None else dense_shape[1:]
    if isinstance(count, list) and isinstance(tail, list):
        values_shape = count + tail
    else:
        values_shape = concat([count, tail], 0)
    return IndexedSlices(reshape(dy, values_shape), reshape(indices, count), dense_shape)


def _full_nd_indices(indices, b):
    """``indices`` with the coordinates of their batch entry prepended (GatherNd batch_dims)."""
    rank = _known_rank(indices, "gather_nd")
    outer = tf_shape(indices)[:-1]
    coords = []
    for k in range(b):
        n = tf_shape(indices)[k]
        grid = reshape(tf_range(n), [1] * k + [-1] + [1] * (rank - 2 - k))
        coords.append(broadcast_to(cast(grid, indices.dtype), outer))
    return concat([stack(coords, axis=-1), indices], -1)


def _gather_nd_grad(op, dy):
    params, indices = op.inputs
    b = op.attrs["batch_dims"]
    if b:
        indices = _full_nd_indices(indices, b)
    return scatter_nd(indices, dy, _as_index(shape_of(params), indices)), None


def _tensor_scatter_update_grad(op, dy):
    _, indices, updates = op.inputs
    return (tensor_scatter_nd_update(dy, indices, zeros_like(updates)), None,
            gather_nd(dy, indices))


def _tensor_scatter_extreme_grad(op, dy):
    """Ties between the tensor and its updates share the gradient, as in TF."""
    x, indices, y = op.inputs
    out = op.outputs[0]
    x_hits = cast(equal(x, out), dy.dtype)
    y_hits = cast(equal(y, gather_nd(out, indices)), dy.dtype)
    hits = x_hits + scatter_nd(indices, y_hits, tf_shape(x, indices.dtype))
    return dy * x_hits / hits, None, gather_nd(dy / hits, indices) * y_hits


# --- top-k ---------------------------------------------------------------------------------------
def _top_k_grad(op, *dys):
    """dy (of the values; the indices have none) scattered to the positions the indices name in
    each row."""
    dy = dys[0]
    x, indices = op.inputs[0], op.outputs[1]
    n = tf_shape(x)[-1] if x.shape.rank is None or x.shape[-1] is None else x.shape[-1]
    k = tf_shape(indices)[-1] if indices.shape.rank is None or indices.shape[-1] is None \
        else indices.shape[-1]
    rows = reshape(indices, stack([-1, k]) if not isinstance(k, int) else [-1, k])
    starts = tf_range(0, tf_shape(rows)[0] * n, n)
    flat = reshape(rows + cast(expand_dims(starts, -1), rows.dtype), [-1])
    dims = static_dims(x)
    total = [int(np.prod(dims))] if dims is not None else expand_dims(size(x), 0)
    dense = scatter_nd(expand_dims(flat, -1), reshape(dy, [-1]), _as_index(total, flat))
    return reshape(dense, shape_of(x)), None


# --- segment reductions --------------------------------------------------------------------------
def _segment_mean_grad(op, dy):
    data, ids = op.inputs
    rank = _known_rank(data, "segment_mean")
    counts = segment_sum(ones(concat([tf_shape(ids), [1] * (rank - 1)], 0), dy.dtype), ids)
    return gather(divide(dy, counts), ids), None


def _segment_extreme_grad(op, dy):
    """Ties share the gradient of their segment."""
    data, ids = op.inputs
    selected = equal(data, gather(op.outputs[0], ids))
    count = segment_sum(cast(selected, dy.dtype), ids)
    return where(selected, gather(divide(dy, count), ids), zeros_like(data)), None


def _zero_aware_product(data, zeros_per, dy):
    """TF's product rule: segments with no zero divide their product by each element; with one
    zero only the zero gets the product of the others; with two or more every gradient is 0.
    Returns (dy masked for the last case, data with its zeros replaced by ones, is_zero)."""
    is_zero = equal(data, 0)
    dy = where(greater(zeros_per(cast(is_zero, D.int32)), 1), zeros_like(dy), dy)
    return dy, where(is_zero, ones_like(data), data), is_zero


def _segment_prod_grad(op, dy):
    data, ids = op.inputs
    dy, safe, is_zero = _zero_aware_product(data, lambda z: segment_sum(z, ids), dy)
    nonzero_prod = segment_prod(safe, ids)
    partial = where(is_zero, gather(nonzero_prod, ids), gather(op.outputs[0], ids) / safe)
    return gather(dy, ids) * partial, None


def _gather_drop_negatives(params, ids, clipped=None, positive=None):
    """gather(params, ids) with zeros where ids are negative (the unsorted segment rules)."""
    if clipped is None:
        clipped = maximum(ids, zeros_like(ids))
    gathered = gather(params, clipped)
    if positive is None:
        positive = greater_equal(ids, 0)
        extra = gathered.shape.rank - ids.shape.rank if gathered.shape.rank is not None and \
            ids.shape.rank is not None else None
        if extra is None:
            raise NotImplementedError("unsorted segment gradients need inputs of known rank")
        positive = reshape(positive, concat([tf_shape(positive), [1] * extra], 0))
        positive = logical_and(positive, ones_like(gathered, dtype=D.bool))
    return where(positive, gathered, zeros_like(gathered)), clipped, positive


def _unsorted_segment_extreme_grad(op, dy):
    """Ties share the gradient of their segment; negative ids get none."""
    data, ids, n = op.inputs
    gathered, clipped, positive = _gather_drop_negatives(op.outputs[0], ids)
    selected = logical_and(equal(data, gathered), positive)
    count = unsorted_segment_sum(cast(selected, dy.dtype), ids, n)
    spread, _, _ = _gather_drop_negatives(divide(dy, count), None, clipped, positive)
    return where(selected, spread, zeros_like(spread)), None, None


def _unsorted_segment_prod_grad(op, dy):
    data, ids, n = op.inputs
    dy, safe, is_zero = _zero_aware_product(data, lambda z: unsorted_segment_sum(z, ids, n), dy)
    nonzero_prod = unsorted_segment_prod(safe, ids, n)
    clipped = maximum(ids, zeros_like(ids))
    partial = where(is_zero, gather(nonzero_prod, clipped), gather(op.outputs[0], clipped) / data)
    return _gather_drop_negatives(dy, ids, clipped)[0] * partial, None, None


# --- einsum --------------------------------------------------------------------------------------
def _einsum_grad(op, dy):
    """Each operand's gradient is an einsum of dy with the other operands; labels summed away
    within one operand only are broadcast back, and broadcast ellipsis dims summed."""
    equation = op.attrs["equation"]
    lhs, rhs = equation.split("->")
    specs = lhs.split(",")
    grads = []
    skip = getattr(op, "skip_input_indices", ())
    for i, (spec, x) in enumerate(zip(specs, op.inputs)):
        if i in skip:
            grads.append(None)
            continue
        plain = spec.replace("...", "")
        if len(set(plain)) != len(plain):
            raise NotImplementedError(f"the gradient of einsum {equation!r}: repeated labels "
                                      "within one operand")
        others = [s for k, s in enumerate(specs) if k != i]
        other_labels = set(rhs.replace("...", "")).union(*[s.replace("...", "") for s in others])
        kept = "".join(c for c in plain if c in other_labels)
        ell = "..." in spec and ("..." in rhs or any("..." in s for s in others))
        if "..." in spec and not ell:
            raise NotImplementedError(f"the gradient of einsum {equation!r}: an ellipsis summed "
                                      "away")
        pre, _, post = spec.partition("...") if "..." in spec else (spec, "", "")
        out_spec = ("".join(c for c in pre if c in kept) + ("..." if "..." in spec else "")
                    + "".join(c for c in post if c in kept))
        terms = [rhs] + others
        summed_ell = "..." not in spec and any("..." in t for t in terms)
        g = einsum(f"{','.join(terms)}->{'...' if summed_ell else ''}{out_spec}", dy,
                   *[conj(o) for k, o in enumerate(op.inputs) if k != i])
        if summed_ell:  # x had no ellipsis: the broadcast dims it met are summed away
            n_ell = _known_rank(g, "einsum") - len(out_spec)
            g = reduce_sum(g, list(range(n_ell))) if n_ell else g
        if len(kept) != len(plain):  # labels only x had: their sum's gradient is a broadcast
            g = _broadcast_missing(g, x, spec, out_spec)
        if "..." in spec:
            g = unbroadcast(g, x)
        grads.append(g)
    return grads


def _broadcast_missing(g, x, spec, out_spec):
    """g (laid out as ``out_spec``) with x's missing labels restored as size-1 dims, then
    broadcast to x's shape."""
    rank = _known_rank(x, "einsum")
    pre, _, post = spec.partition("...")
    n_ell = rank - len(spec.replace("...", "")) if "..." in spec else 0
    labels = list(pre) + ["."] * n_ell + list(post)
    present = set(out_spec.replace("...", ""))
    shape = shape_of(x)
    target = [1 if (c != "." and c not in present) else (shape[k] if isinstance(shape, list)
                                                        else -1)
              for k, c in enumerate(labels)]
    if not isinstance(shape, list) and target.count(-1) > 1:
        ones_at = constant(np.array([c != "." and c not in present for c in labels]))
        target = where(ones_at, np.int32(1), shape)
    return broadcast_to(reshape(g, target), shape)


# --- the table -----------------------------------------------------------------------------------
register_gradients({
    "StridedSlice":        _strided_slice_grad,
    "StridedSliceGrad":    _strided_slice_grad_grad,
    "Slice":               _slice_grad,
    "Roll":                lambda op, dy: (roll(dy, -op.inputs[1], op.attrs["axis"]), None),
    "GatherV2":            _gather_grad,
    "GatherNd":            _gather_nd_grad,
    "ScatterNd":           lambda op, dy: (None, gather_nd(dy, op.inputs[0]), None),
    "TensorScatterUpdate": _tensor_scatter_update_grad,
    "TensorScatterAdd":    lambda op, dy: (dy, None, gather_nd(dy, op.inputs[1])),
    "TensorScatterSub":    lambda op, dy: (dy, None, -gather_nd(dy, op.inputs[1])),
    "TensorScatterMax":    _tensor_scatter_extreme_grad,
    "TensorScatterMin":    _tensor_scatter_extreme_grad,
    "TopKV2":              _top_k_grad,
    "SegmentSum":          lambda op, dy: (gather(dy, op.inputs[1]), None),
    "SegmentMean":         _segment_mean_grad,
    "SegmentMax":          _segment_extreme_grad,
    "SegmentMin":          _segment_extreme_grad,
    "SegmentProd":         _segment_prod_grad,
    "UnsortedSegmentSum":  lambda op, dy: (_gather_drop_negatives(dy, op.inputs[1])[0], None,
                                           None),
    "UnsortedSegmentMax":  _unsorted_segment_extreme_grad,
    "UnsortedSegmentMin":  _unsorted_segment_extreme_grad,
    "UnsortedSegmentProd": _unsorted_segment_prod_grad,
    "Einsum":              _einsum_grad,
    "Unique":              no_gradient,
    "UniqueWithCounts":    no_gradient,
    "UniqueV2":            no_gradient,
    "UniqueWithCountsV2":  no_gradient,
    "Bucketize":           no_gradient,
})
not_differentiable("LowerBound", "UpperBound")
