"""The ``tf.ragged`` functions: constant, range, stack, boolean_mask, map_flat_values and the
segment-id/row-split conversions; and ``gather_rows``, the row gather the other ragged ops use."""

import numpy as np

from .. import dtypes as D
from .. import errors
from .._export import tf_export
from ..convert import constant as tf_constant
from ..convert import convert_to_tensor
from ..ops.array.creation import ones_like
from ..ops.array.broadcasting import broadcast_to
from ..ops.indexing.segment import unsorted_segment_sum
from ..ops.math.arithmetic import floordiv, negative, multiply, add
from ..ops.math.casting import cast
from ..ops.math.select import where
from ..tensor import Tensor
from . import _util as U
from ._util import concat, gather, reshape, stack, subtract, tensor, tf_range, tf_shape
from . import ragged_tensor as ragged_tensor_module
from .ragged_tensor import RaggedTensor


def is_ragged(x):
    return isinstance(x, RaggedTensor)


# --- construction ---------------------------------------------------------------------------------
def _scalar_and_max_depth(pylist):
    """(depth of the scalars or None, depth of the deepest list); TF's rule for nesting."""
    if isinstance(pylist, (list, tuple)) or np.ndim(pylist) != 0:
        scalar_depth, max_depth = None, 1
        for child in pylist:
            child_scalar, child_max = _scalar_and_max_depth(child)
            if child_scalar is not None:
                if scalar_depth is not None and scalar_depth != child_scalar + 1:
                    raise ValueError("all scalar values must have the same nesting depth")
                scalar_depth = child_scalar + 1
            max_depth = max(max_depth, child_max + 1)
        return scalar_depth, max_depth
    return 0, 0


def _inner_shape_of(pylist, ragged_rank):
    flat = pylist
    for dim in range(ragged_rank):
        if not all(isinstance(v, (list, tuple)) or np.ndim(v) != 0 for v in flat):
            raise ValueError(f"pylist has scalar values depth {dim + 1}, but ragged_rank="
                             f"{ragged_rank} requires scalar value depth greater than "
                             f"{ragged_rank}")
        flat = [x for v in flat for x in v]

    def shape_of(item):
        if not isinstance(item, (list, tuple)) and np.ndim(item) == 0:
            return ()
        return (len(item),) + shape_of(item[0]) if len(item) else (0,)

    def check(item, shape):
        nested = isinstance(item, (list, tuple)) or np.ndim(item) != 0
        if nested != bool(shape) or (nested and shape[0] != len(item)):
            raise ValueError("inner values have inconsistent shape")
        if nested:
            for child in item:
                check(child, shape[1:])

    shape = shape_of(flat)
    check(flat, shape)
    return shape[1:]


@tf_export("ragged.constant")
def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=D.int64):
    """A RaggedTensor from a nested Python list (rows of varying lengths).

    Raises:
        ValueError: for inconsistent nesting, or a ragged_rank/inner_shape that does not fit.
    """
    splits_dtype = D.as_dtype(row_splits_dtype)
    if isinstance(pylist, RaggedTensor):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    if not isinstance(pylist, (list, tuple)) and np.ndim(pylist) == 0:
        if ragged_rank is not None and ragged_rank != 0:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with "
                             f"ragged_rank={ragged_rank}")
        if inner_shape:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with "
                             f"dim(inner_shape)={len(inner_shape)}")
        return tf_constant(pylist, dtype)
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError(f"Invalid ragged_rank={ragged_rank!r}: must be nonnegative")
    scalar_depth, max_depth = _scalar_and_max_depth(pylist)
    if scalar_depth is not None:
        if max_depth > scalar_depth:
            raise ValueError(f"Invalid pylist={pylist!r}: empty list nesting is greater than "
                             f"scalar value nesting")
        if ragged_rank is not None and max_depth < ragged_rank:
            raise ValueError(f"Invalid pylist={pylist}, max depth smaller than "
                             f"ragged_rank={ragged_rank}")
    if inner_shape is not None and ragged_rank is not None:
        expected = ragged_rank + len(inner_shape) + 1
        if (scalar_depth is not None and expected != scalar_depth) or (
                scalar_depth is None and expected < max_depth):
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank="
                             f"{ragged_rank} and dim(inner_shape)={len(inner_shape)}")
    if ragged_rank == 0 or (ragged_rank is None and (
            max_depth < 2 or (inner_shape is not None and max_depth - len(inner_shape) < 2))):
        return tf_constant(pylist, dtype, shape=inner_shape)
    if inner_shape is None:
        inner_shape = () if ragged_rank is None else _inner_shape_of(pylist, ragged_rank)
    inner_shape = tuple(inner_shape)
    if ragged_rank is None:
        ragged_rank = max(1, (max_depth if scalar_depth is None else scalar_depth)
                          - 1 - (0 if scalar_depth is None else len(inner_shape)))
    nested_splits, values = [], pylist
    for _ in range(ragged_rank):
        splits, flat = [0], []
        for row in values:
            splits.append(splits[-1] + len(row))
            flat.extend(row)
        nested_splits.append(splits)
        values = flat
    result = tf_constant(values, dtype, shape=(len(values),) + inner_shape)
    for splits in reversed(nested_splits):
        result = RaggedTensor.from_row_splits(result, convert_to_tensor(
            splits, splits_dtype), validate=False)
    return result


@tf_export("ragged.range")
def ragged_range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=D.int64):
    """Row ``i`` is ``range(starts[i], limits[i], deltas[i])`` (scalars broadcast)."""
    if limits is None:
        starts, limits = 0, starts
    splits_dtype = D.as_dtype(row_splits_dtype)
    parts = [tensor(v, dtype) if dtype is not None or isinstance(v, Tensor)
             else convert_to_tensor(v) for v in (starts, limits, deltas)]
    out_dtype = D.as_dtype(dtype) if dtype is not None else _common(parts)
    starts, limits, deltas = [cast(p, out_dtype) if p.dtype != out_dtype else p for p in parts]
    ranks = [p.shape.rank for p in (starts, limits, deltas)]
    if any(r is not None and r > 1 for r in ranks):
        raise ValueError("starts, limits and deltas must be scalars or vectors")
    n = None
    for p in (starts, limits, deltas):
        if p.shape.rank == 1:
            n = tf_shape(p)
    if n is None:
        n = convert_to_tensor([1])
    starts, limits, deltas = (broadcast_to(p, n) for p in (starts, limits, deltas))
    d = U.static(deltas)
    if d is not None and (d == 0).any():
        raise errors.InvalidArgumentError(None, None, "Requires delta != 0")
    span = subtract(limits, starts)
    if out_dtype.is_integer:
        lengths = negative(floordiv(negative(span), deltas))
    else:
        lengths = _ceil(span / deltas)
    lengths = U.maximum(cast(lengths, splits_dtype), 0)
    splits = concat([convert_to_tensor([0], splits_dtype), U.cumsum(lengths)], 0)
    return RaggedTensor.from_row_splits(_ranges(starts, deltas, splits), splits, validate=False)


def _common(parts):
    order = [D.int32, D.int64, D.float32, D.float64]
    rank = max(order.index(p.dtype) if p.dtype in order else 0 for p in parts)
    return order[rank]


def _ceil(x):
    return -floordiv(-x, convert_to_tensor(1, x.dtype))


def _ranges(starts, deltas, splits):
    """The concatenated values of rows ``starts[i] + k * deltas[i]``, k < row length."""
    rowids = U.rowids_of(splits)
    offsets = subtract(tf_range(convert_to_tensor(0, splits.dtype), splits[-1],
                                dtype=splits.dtype), gather(splits, rowids))
    return add(gather(starts, rowids), multiply(cast(offsets, starts.dtype),
                                                gather(deltas, rowids)))


def index_ranges(starts, limits):
    """(values, splits): the indices ``range(starts[i], limits[i])`` of each row."""
    lengths = U.maximum(subtract(limits, starts), 0)
    splits = concat([convert_to_tensor([0], starts.dtype), U.cumsum(lengths)], 0)
    return _ranges(starts, ones_like(starts), splits), splits


def gather_rows(params, indices):
    """Rows ``indices`` (a vector) of ``params``, a dense or ragged tensor."""
    if not isinstance(params, RaggedTensor):
        return gather(params, indices)
    splits = params.row_splits
    indices = tensor(indices, splits.dtype) if not isinstance(indices, Tensor) else (
        indices if indices.dtype == splits.dtype else cast(indices, splits.dtype))
    value_ids, new_splits = index_ranges(gather(splits[:-1], indices),
                                         gather(splits[1:], indices))
    return RaggedTensor.from_row_splits(gather_rows(params.values, value_ids), new_splits,
                                        validate=False)


@tf_export("ragged.row_splits_to_segment_ids")
def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The segment (row) id of each value."""
    splits = U.index_tensor(splits, None, "splits")
    if splits.shape.rank is not None and splits.shape.rank != 1:
        raise ValueError(f"Shape {splits.shape} must have rank 1")
    ids = U.rowids_of(splits)
    return ids if out_type is None else cast(ids, out_type)


@tf_export("ragged.segment_ids_to_row_splits")
def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """Row splits from the (sorted) segment id of each value."""
    ids = U.index_tensor(segment_ids, None, "segment_ids")
    out_type = D.as_dtype(out_type) if out_type is not None else ids.dtype
    if ids.shape.rank is not None and ids.shape.rank != 1:
        raise ValueError(f"Shape {ids.shape} must have rank 1")
    if num_segments is None:
        num_segments = concat([convert_to_tensor([-1], ids.dtype), ids], 0)[-1] + 1
    lengths = unsorted_segment_sum(ones_like(ids), ids, num_segments)
    splits = concat([convert_to_tensor([0], ids.dtype), U.cumsum(lengths)], 0)
    return splits if splits.dtype == out_type else cast(splits, out_type)


# --- structure ops ----------------------------------------------------------------------------
def as_ragged(x, ragged_rank=1, splits_dtype=D.int64):
    """``x`` as a RaggedTensor (a dense tensor split uniformly)."""
    if isinstance(x, RaggedTensor):
        return x
    return RaggedTensor.from_tensor(tensor(x), ragged_rank=ragged_rank,
                                    row_splits_dtype=splits_dtype)


def _axis(axis, rank, what="axis"):
    if rank is not None:
        if not -rank <= axis < rank:
            raise ValueError(f"{what}={axis} out of bounds: expected {-rank}<={what}<{rank}")
        return axis + rank if axis < 0 else axis
    if axis < 0:
        raise ValueError(f"{what} may only be negative if ndims is statically known.")
    return axis


@tf_export("ragged.stack")
def stack_ragged(values, axis=0, name=None):
    """Stacks dense or ragged tensors along a new dimension ``axis``."""
    values = list(values)
    if not values:
        raise ValueError("tf.ragged.stack: expected at least one input")
    rank = values[0].shape.rank
    return _concat_or_stack(values, _axis(axis, None if rank is None else rank + 1), True)


def concat_ragged(values, axis):
    rank = values[0].shape.rank
    return _concat_or_stack(values, _axis(axis, rank), False)


def _concat_or_stack(values, axis, stack_values):
    dtype_ragged = [v for v in values if isinstance(v, RaggedTensor)]
    splits_dtype = dtype_ragged[0].row_splits.dtype if dtype_ragged else D.int64
    if not stack_values and not dtype_ragged:
        return concat([tensor(v) for v in values], axis)
    if stack_values and not dtype_ragged and axis == 0:
        return RaggedTensor.from_tensor(stack([tensor(v) for v in values], 0),
                                        row_splits_dtype=splits_dtype) \
            if values[0].shape.rank == 0 else _stack_rows(
                [as_ragged(tensor(v), 1, splits_dtype) if tensor(v).shape.rank > 1
                 else tensor(v) for v in values], splits_dtype)
    rts = [as_ragged(v, 1, splits_dtype) for v in values]
    if axis == 0:
        return _stack_rows(rts, splits_dtype) if stack_values else _concat_rows(rts)
    if axis == 1:
        stacked = _interleave(rts, splits_dtype)
        return stacked if stack_values else stacked.merge_dims(1, 2)
    inner = _concat_or_stack([rt.values for rt in rts], axis - 1, stack_values)
    return rts[0].with_values(inner)


def _concat_rows(rts):
    values = concat_values([rt.values for rt in rts])
    splits, offset = [rts[0].row_splits[:1]], rts[0].row_splits[:1][0] * 0
    for rt in rts:
        splits.append(rt.row_splits[1:] + offset)
        offset = offset + rt.row_splits[-1]
    return RaggedTensor.from_row_splits(values, concat(splits, 0), validate=False)


def concat_values(values):
    if any(isinstance(v, RaggedTensor) for v in values):
        return _concat_rows([as_ragged(v) for v in values])
    return concat(values, 0)


def _stack_rows(values, splits_dtype):
    """Each input becomes one row."""
    lengths = stack([U.nvals(v, splits_dtype) for v in values])
    return RaggedTensor.from_row_lengths(concat_values(values), lengths, validate=False)


def _interleave(rts, splits_dtype):
    """result[i] = [rts[0][i], rts[1][i], ...]: rows interleaved."""
    n = len(rts)
    nrows = rts[0].nrows(out_type=splits_dtype)
    allrows = _concat_rows(rts)
    k = tf_range(convert_to_tensor(0, splits_dtype), nrows * n, dtype=splits_dtype)
    order = floordiv(k, n) + (k - floordiv(k, n) * n) * nrows
    return RaggedTensor.from_uniform_row_length(gather_rows(allrows, order), n, nrows,
                                                validate=False)


@tf_export("ragged.boolean_mask")
def boolean_mask(data, mask, name=None):
    """``data`` with the items where ``mask`` is False removed (along mask's last axis)."""
    mask = mask if isinstance(mask, RaggedTensor) else tensor(mask, D.bool, name="mask")
    if mask.dtype != D.bool:
        raise TypeError(f"mask must be a bool tensor; got {mask.dtype}")
    if mask.shape.rank == 0:
        raise ValueError("mask.shape.ndims must be greater than 0")
    if mask.shape.rank == 1:
        if isinstance(mask, RaggedTensor):
            mask = mask.values
        kept = reshape(where(mask), [-1])
        return gather_rows(data if isinstance(data, RaggedTensor) else tensor(data), kept)
    splits_dtype = data.row_splits.dtype if isinstance(data, RaggedTensor) else D.int64
    if not isinstance(mask, RaggedTensor):
        mask = RaggedTensor.from_tensor(mask, ragged_rank=mask.shape.rank - 1,
                                        row_splits_dtype=splits_dtype)
    if not isinstance(data, RaggedTensor):
        data = RaggedTensor.from_tensor(tensor(data), ragged_rank=mask.ragged_rank,
                                        row_splits_dtype=splits_dtype)
    return _mask_ragged(data, mask)


def _mask_ragged(data, mask):
    if isinstance(mask.values, RaggedTensor):
        return data.with_values(_mask_ragged(data.values, mask.values))
    kept = mask.values
    values = gather_rows(data.values, reshape(where(kept), [-1]))
    lengths = unsorted_segment_sum(cast(kept, data.row_splits.dtype), mask.value_rowids(),
                                   mask.nrows())
    return RaggedTensor.from_row_lengths(values, lengths, validate=False)


@tf_export("ragged.map_flat_values")
def map_flat_values(op, *args, **kwargs):
    """``op`` applied to the flat values of the ragged arguments (which must share their row
    partitions); the result keeps that partition."""
    partitions = []

    def flat(x):
        if isinstance(x, RaggedTensor):
            partitions.append(x)
            return x.flat_values
        if isinstance(x, (list, tuple)):
            return type(x)(flat(v) for v in x)
        if isinstance(x, dict):
            return {k: flat(v) for k, v in x.items()}
        return x

    args, kwargs = flat(args), flat(kwargs)
    if not partitions:
        return op(*args, **kwargs)
    first = partitions[0]
    for other in partitions[1:]:
        if len(other.nested_row_splits) != len(first.nested_row_splits):
            raise ValueError("All ragged inputs must have the same ragged_rank.")
        for a, b in zip(first.nested_row_splits, other.nested_row_splits):
            sa, sb = U.static(a), U.static(b)
            if sa is not None and sb is not None and (sa.shape != sb.shape or (sa != sb).any()):
                raise ValueError("Input RaggedTensors' flat_values must all have the same "
                                 "outer-dimension size.  Got sizes: "
                                 f"{{{int(U.static(first.nested_row_splits[-1])[-1])}, "
                                 f"{int(U.static(other.nested_row_splits[-1])[-1])}}}")
    result = op(*args, **kwargs)
    if not isinstance(result, Tensor):
        result = convert_to_tensor(result)
    return first.with_flat_values(result)


def _batch_values(values, splits_dtype):
    """tf.data's batch of ragged (or ragged-rank-0) elements: each value one row."""
    return _stack_rows(list(values), splits_dtype)


ragged_tensor_module.batch_values = _batch_values
