"""The ragged forms of TF's ops: elementwise math on the flat values (dense and scalar operands
broadcast against the rows), reductions over ragged axes, concat/stack/gather/where, shape,
size, rank, cast, ones_like/zeros_like; registered into ``composite`` (an op reaches them only
when converting an argument failed) and as RaggedTensor's operators."""

from .. import composite
from .. import dtypes as D
from .. import errors
from ..ops import reduce as R
from ..ops import functional
from ..ops.array import creation, joining, padding, ranges, reshaping, sequences, shapes
from ..ops.array.broadcasting import broadcast_to
from ..ops.debugging import assert_equal
from ..ops.indexing import gathering
from ..ops.indexing.segment import (unsorted_segment_max, unsorted_segment_min,
                                    unsorted_segment_prod, unsorted_segment_sum)
from ..ops.math import arithmetic, casting, compare, select
from ..ops.strings import join_split
from ..ops.utility import counting
from ..tensor import Tensor, TensorSpec
from . import _util as U
from ._util import cast, concat, gather, reshape, tensor, tf_shape
from .ragged_ops import concat_ragged, gather_rows, ragged_range, stack_ragged
from .ragged_tensor import RaggedTensor
from .shape import DynamicRaggedShape


# --- elementwise ------------------------------------------------------------------------------
def _outer_rows(rt):
    """For each flat value, the index of its row in dimension 0."""
    ids = None
    for splits in reversed(rt.nested_row_splits):
        level = U.rowids_of(splits)
        ids = level if ids is None else gather(level, ids)
    return ids


def _same_partition(template, other):
    """Raise TF's error unless ``other`` has ``template``'s row partition."""
    if other.ragged_rank != template.ragged_rank:
        raise ValueError("Ragged tensors must have the same ragged rank to be combined "
                         f"elementwise: {template.ragged_rank} vs {other.ragged_rank}")
    for a, b in zip(template.nested_row_splits, other.nested_row_splits):
        if a is b:
            continue
        if a.dtype != b.dtype:
            b = cast(b, a.dtype)
        sa, sb = U.static(a), U.static(b)
        if sa is not None and sb is not None and sa.shape == sb.shape and (sa == sb).all():
            continue
        if sa is not None and sb is not None:
            assert_equal(a, b)  # TF's "Condition x == y did not hold" with the differing splits


def _dense_operand(template, value):
    """A dense operand aligned with ``template``'s flat values."""
    t = value if isinstance(value, Tensor) else tensor(value)
    inner_rank = template.flat_values.shape.rank - 1
    rank = t.shape.rank
    if rank is None or rank <= inner_rank:
        return t  # broadcasts against the flat values' inner dimensions
    full = template.shape.rank
    if rank > full:
        raise ValueError(f"Operands could not be broadcast: a tensor of rank {rank} with a "
                         f"ragged tensor of rank {full}")
    t = reshape(t, concat([[1] * (full - rank), tf_shape(t)], 0)) if rank < full else t
    dims = t.shape.as_list() if t.shape.rank is not None else [None] * full
    ragged_dims = dims[1:template.ragged_rank + 1]
    if all(d == 1 for d in ragged_dims):  # one value per row: repeated along the ragged rows
        rows = reshape(t, concat([tf_shape(t)[:1], tf_shape(t)[template.ragged_rank + 1:]], 0))
        if dims[0] == 1:
            return rows[0]
        return gather(rows, _outer_rows(template))
    if dims[0] == 1:  # one row for all rows: broadcast before the partitions are compared
        t = broadcast_to(t, concat([reshape(template.nrows(out_type=D.int32), [1]),
                                    tf_shape(t)[1:]], 0))
    as_ragged = RaggedTensor.from_tensor(t, ragged_rank=template.ragged_rank,
                                         row_splits_dtype=template.row_splits.dtype)
    _same_partition(as_ragged, template)  # TF reports the dense operand's splits as x
    return as_ragged.flat_values


def elementwise(fn, args, kwargs):
    """``fn`` applied to the flat values: every ragged argument shares the first one's row
    partition; dense arguments broadcast against it (Python values stay as they are, so the op
    converts them to the values' dtype)."""
    values = list(args) + list(kwargs.values())
    template = next((v for v in values if isinstance(v, RaggedTensor)), None)
    if template is None:
        return NotImplemented

    def flat(v):
        if isinstance(v, RaggedTensor):
            if v is not template:
                _same_partition(template, v)
            return v.flat_values
        if isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and v):
            return _dense_operand(template, v)
        return v

    flat_args = [flat(a) for a in args]
    flat_kwargs = {k: flat(v) for k, v in kwargs.items()}
    return template.with_flat_values(fn(*flat_args, **flat_kwargs))


composite.ELEMENTWISE.append(elementwise)


def _binary(fn):
    def forward(self, other):
        return elementwise(fn, (self, other), {})

    def reflected(self, other):
        return elementwise(fn, (other, self), {})

    return forward, reflected


for _name, _fn in (("add", arithmetic.add), ("sub", arithmetic.subtract),
                   ("mul", arithmetic.multiply), ("truediv", arithmetic.truediv),
                   ("floordiv", arithmetic.floordiv), ("mod", arithmetic.floormod),
                   ("pow", arithmetic.pow), ("and", compare.logical_and),
                   ("or", compare.logical_or), ("xor", compare.logical_xor)):
    _f, _r = _binary(_fn)
    setattr(RaggedTensor, f"__{_name}__", _f)
    setattr(RaggedTensor, f"__r{_name}__", _r)
for _name, _fn in (("lt", compare.less), ("le", compare.less_equal), ("gt", compare.greater),
                   ("ge", compare.greater_equal)):
    setattr(RaggedTensor, f"__{_name}__", _binary(_fn)[0])
RaggedTensor.__neg__ = lambda self: self.with_flat_values(arithmetic.negative(self.flat_values))
RaggedTensor.__abs__ = lambda self: self.with_flat_values(arithmetic.abs(self.flat_values))
RaggedTensor.__invert__ = lambda self: self.with_flat_values(
    compare.logical_not(self.flat_values))


def _equals(self, other, fn=compare.equal, mismatch=False):
    """``==``: elementwise where the operands combine, else ``mismatch`` (as TF's operator)."""
    if other is None:
        return mismatch
    try:
        return elementwise(fn, (self, other), {})
    except (errors.InvalidArgumentError, ValueError, TypeError):
        return mismatch


RaggedTensor.__eq__ = _equals
RaggedTensor.__ne__ = lambda self, other: _equals(self, other, compare.not_equal, True)
RaggedTensor.__hash__ = object.__hash__


# --- reductions -------------------------------------------------------------------------------
def _segment(kind):
    """The unsorted-segment reduction a ragged reduction of ``kind`` uses."""
    if kind in ("sum", "mean"):
        return unsorted_segment_sum
    if kind == "prod":
        return unsorted_segment_prod
    if kind in ("max", "any"):
        return unsorted_segment_max
    return unsorted_segment_min


def _segment_reduce(kind, values, ids, n):
    if kind in ("any", "all"):
        out = _segment(kind)(cast(values, D.int32), ids, n)
        return compare.greater(out, 0)
    return _segment(kind)(values, ids, n)


def _merge_rows(kind, items, group, ngroups):
    """Rows of ``items`` (a RaggedTensor) combined elementwise within each group: the result
    has ``ngroups`` rows, row g as long as the longest item of group g."""
    dtype = items.row_splits.dtype
    lengths = items.row_lengths()
    longest = unsorted_segment_max(lengths, group, ngroups)
    longest = arithmetic.maximum(longest, 0)  # empty groups: no items, length 0
    splits = concat([U.convert_to_tensor([0], dtype), U.cumsum(longest)], 0)
    rowids = items.value_rowids()
    position = U.subtract(U.tf_range(U.convert_to_tensor(0, dtype), items.row_splits[-1],
                                     dtype=dtype), gather(items.row_splits, rowids))
    seg = gather(splits, gather(group, rowids)) + position
    total = splits[-1]
    if isinstance(items.values, RaggedTensor):
        inner = _merge_rows(kind, items.values, seg, total)
    else:
        inner = _segment_reduce(kind, items.values, seg, total)
    return RaggedTensor.from_row_splits(inner, splits, validate=False)


def _reduce_axis(kind, rt, axis):
    """``rt`` reduced along one axis (0 <= axis < rank)."""
    if not isinstance(rt, RaggedTensor):
        return _DENSE[kind](rt, axis=axis)
    if axis > rt.ragged_rank:
        return rt.with_flat_values(_DENSE[kind](rt.flat_values, axis=axis - rt.ragged_rank))
    if axis == 0:
        group = U.fill(reshape(rt.nrows(), [1]), U.convert_to_tensor(0, rt.row_splits.dtype))
        merged = _merge_rows(kind, rt, group, U.convert_to_tensor(1, rt.row_splits.dtype))
        return merged.values
    if axis == 1:
        if isinstance(rt.values, RaggedTensor):
            return _merge_rows(kind, rt.values, rt.value_rowids(), rt.nrows())
        return _segment_reduce(kind, rt.values, rt.value_rowids(), rt.nrows())
    return rt.with_values(_reduce_axis(kind, rt.values, axis - 1))


def _axes(axis, rank):
    if axis is None:
        return list(range(rank))
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    axes = [int(U.static(a)) if isinstance(a, Tensor) else int(a) for a in axes]
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"axis={a} out of bounds: expected {-rank}<=axis<{rank}")
        out.append(a + rank if a < 0 else a)
    return sorted(set(out))


def _reduce(kind, rt, axis, keepdims):
    rank = rt.shape.rank
    axes = _axes(axis, rank)
    if kind == "mean":
        total = _reduce("sum", rt, axis, keepdims)
        count = _reduce("sum", creation.ones_like(rt, dtype=rt.dtype), axis, keepdims)
        return arithmetic.truediv(total, count)
    result = rt
    if axis is None:
        result = _DENSE[kind](rt.flat_values)
    else:
        for a in reversed(axes):  # innermost first: the outer axes keep their numbering
            result = _reduce_axis(kind, result, a)
    if keepdims:
        for a in axes:
            result = _expand(result, a)
    return result


def _expand(x, axis):
    if isinstance(x, RaggedTensor):
        return x[(slice(None),) * axis + (None,)]
    return reshape(x, concat([tf_shape(x)[:axis], [1], tf_shape(x)[axis:]], 0))


_DENSE = {"sum": R.reduce_sum, "mean": R.reduce_mean, "prod": R.reduce_prod,
          "max": R.reduce_max, "min": R.reduce_min, "any": R.reduce_any, "all": R.reduce_all}


def _reduction(kind):
    def handler(input_tensor, axis=None, keepdims=False, name=None):
        return _reduce(kind, input_tensor, axis, keepdims)

    return handler


for _kind, _fn in _DENSE.items():
    composite.OVERRIDES[_fn] = _reduction(_kind)


# --- structure and shape ops ------------------------------------------------------------------
def _concat(values, axis, name=None):
    return concat_ragged(list(values), axis)


def _stack(values, axis=0, name=None):
    return stack_ragged(list(values), axis)


def _gather(params, indices, axis=0, batch_dims=0):
    if isinstance(indices, RaggedTensor):
        if not isinstance(params, RaggedTensor):
            params = tensor(params)
            rank = params.shape.rank
            if not batch_dims and rank is not None and axis not in (None, 0, -rank):
                return _axis_gather(params, indices, axis % rank if axis < 0 else axis)
        return indices.with_flat_values(_gather(params, indices.flat_values, axis, batch_dims))
    if not isinstance(params, RaggedTensor):
        return gathering.gather(params, indices, axis=axis, batch_dims=batch_dims)
    if axis not in (0, None) or batch_dims:
        raise ValueError("tf.gather of a RaggedTensor supports axis=0 and batch_dims=0 only")
    indices = tensor(indices)
    if indices.shape.rank == 0:
        return params[indices]
    if indices.shape.rank == 1:
        return gather_rows(params, indices)
    return _nest_rows(gather_rows(params, reshape(indices, [-1])), indices)


def _axis_gather(params, indices, axis):
    """Dense ``params`` gathered by ragged ``indices`` along ``axis`` > 0 (TF's
    ``_axis_gather``): each slice ``params[i0, ..., i_{axis-1}]`` takes the indices' ragged
    structure, so the result is ``params.shape[:axis] + indices.shape + params.shape[axis+1:]``
    with the indices' ragged dimensions."""
    flat = gathering.gather(params, indices.flat_values, axis=axis)
    dtype = indices.row_splits.dtype
    dims = tf_shape(params, out_type=dtype)
    outer = R.reduce_prod(dims[:axis])
    values = reshape(flat, concat([[-1], tf_shape(flat, out_type=dtype)[axis + 1:]], 0))
    copies = U.tf_range(outer, dtype=dtype)
    levels = []
    for splits in indices.nested_row_splits:
        count = splits[-1]
        starts = reshape(copies * count, [-1, 1]) + reshape(splits[:-1], [1, -1])
        levels.append(concat([reshape(starts, [-1]), reshape(outer * count, [1])], 0))
    result = RaggedTensor.from_nested_row_splits(values, levels, validate=False)
    result = RaggedTensor.from_uniform_row_length(result, indices.nrows(out_type=dtype),
                                                  validate=False)
    for j in reversed(range(1, axis)):
        result = RaggedTensor.from_uniform_row_length(result, dims[j], validate=False)
    return result


def _nest_rows(flat, indices):
    """Rows gathered for a multi-dimensional ``indices``: regrouped by its outer dimensions."""
    shape = indices.shape.as_list()
    result = flat
    for size in reversed(shape[1:]):
        result = RaggedTensor.from_uniform_row_length(result, size, validate=False)
    return result


def _where(condition, x=None, y=None):
    if x is None and y is None:
        if isinstance(condition, RaggedTensor):
            raise TypeError("tf.where of a RaggedTensor condition needs x and y")
        return select.where(condition)
    return elementwise(select.where, (condition, x, y), {})


def _shape(input, out_type=None):
    return DynamicRaggedShape.from_tensor(input, dtype=out_type)


def _size(input, out_type=None):
    return shapes.size(input.flat_values, out_type=out_type)


def _rank(input):
    return U.convert_to_tensor(input.shape.rank, D.int32)


def _cast(x, dtype):
    return x.with_flat_values(casting.cast(x.flat_values, dtype))


def _like(fn):
    def handler(input, dtype=None):
        return input.with_flat_values(fn(input.flat_values, dtype=dtype))

    return handler


def _reverse(tensor, axis):
    """Rows reversed (axis 0) or each row's items reversed (a ragged axis); inner axes on the
    flat values."""
    rank = tensor.shape.rank
    axes = _axes(axis, rank) if not isinstance(axis, Tensor) else _axes(
        [int(a) for a in U.static(axis)], rank)
    result = tensor
    for a in axes:
        result = _reverse_axis(result, a)
    return result


def _reverse_axis(rt, axis):
    if not isinstance(rt, RaggedTensor):
        return sequences.reverse(rt, [axis])
    if axis > rt.ragged_rank:
        return rt.with_flat_values(sequences.reverse(rt.flat_values, [axis - rt.ragged_rank]))
    if axis == 0:
        n = rt.nrows()
        order = U.subtract(n - 1, U.tf_range(U.convert_to_tensor(0, n.dtype), n, dtype=n.dtype))
        return gather_rows(rt, order)
    if axis == 1:
        splits = rt.row_splits
        rowids = rt.value_rowids()
        position = U.tf_range(U.convert_to_tensor(0, splits.dtype), splits[-1],
                              dtype=splits.dtype)
        mirrored = gather(splits[1:], rowids) - 1 - (position - gather(splits[:-1], rowids))
        return rt.with_values(gather_rows(rt.values, mirrored))
    return rt.with_values(_reverse_axis(rt.values, axis - 1))


def _tile(input, multiples):
    """Rows repeated (axis 0), each row's items repeated (the ragged axis of a ragged-rank-1
    tensor), inner axes tiled on the flat values."""
    m = U.static(tensor(multiples, D.int64))
    if m is None:
        raise ValueError("tf.tile of a RaggedTensor needs known multiples")
    m = [int(v) for v in m]
    rt = input
    if len(m) != rt.shape.rank:
        raise ValueError(f"multiples must have {rt.shape.rank} elements, got {len(m)}")
    if rt.ragged_rank != 1:
        raise ValueError("tf.tile of a RaggedTensor supports ragged_rank 1")
    values = rt.values
    if any(v != 1 for v in m[2:]):
        values = padding.tile(values, [1] + m[2:])
    splits = rt.row_splits
    if m[1] != 1:
        lengths = rt.row_lengths()
        ranges = ragged_range(lengths * 0, lengths * m[1], row_splits_dtype=splits.dtype)
        rowids = ranges.value_rowids()
        picks = gather(splits[:-1], rowids) + arithmetic.floormod(
            ranges.values, arithmetic.maximum(gather(lengths, rowids), 1))
        rt = RaggedTensor.from_row_splits(gather_rows(values, picks), ranges.row_splits,
                                          validate=False)
    else:
        rt = rt.with_values(values)
    if m[0] != 1:
        rt = concat_ragged([rt] * m[0], 0)
    return rt


def _map_fn(fn, elems, fn_output_signature=None):
    """``fn`` over the rows of a RaggedTensor (eager, or with a known number of rows); the
    results stacked as the rows of a RaggedTensor (or a tensor, for dense results of one
    shape and a TensorSpec signature)."""
    n = U.static(elems.nrows())
    if n is None:
        raise ValueError("tf.map_fn over a RaggedTensor needs a known number of rows")
    rows = [fn(elems[i]) for i in range(int(n))]
    if isinstance(fn_output_signature, TensorSpec) or (
            fn_output_signature is not None and not hasattr(fn_output_signature, "_batch")
            and not isinstance(fn_output_signature, D.DType)):
        return joining.stack(rows)
    if not rows:
        return RaggedTensor.from_row_lengths(U.zeros([0], elems.dtype),
                                             U.zeros([0], D.int64), validate=False)
    return stack_ragged(rows, 0)


def _like_shape(make):
    def handler(shape, dtype=D.float32):
        values = make(R.reduce_prod(shape.inner_shape), dtype=dtype)
        return shape._with_values(values)

    return handler


def _fill(dims, value):
    return dims._with_values(creation.fill(U.reshape(R.reduce_prod(dims.inner_shape), [1]),
                                           value))


def _reshape(tensor_, shape):
    return shape._with_values(U.reshape(tensor(tensor_), [-1]))


def _one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None):
    """tf.one_hot of a RaggedTensor: the flat values one-hot encoded (a new dense dimension);
    a non-negative ``axis`` counts the ragged dimensions and must lie past them."""
    if isinstance(axis, int) and axis >= 0:
        if axis <= indices.ragged_rank:
            raise ValueError(f"axis ({axis}) must be greater than indices.ragged_rank "
                             f"({indices.ragged_rank}).")
        axis -= indices.ragged_rank
    return indices.with_flat_values(ranges.one_hot(indices.flat_values, depth, on_value,
                                                   off_value, axis, dtype))


def _bincount(arr, weights=None, minlength=None, maxlength=None, dtype=D.int32, name=None,
              axis=None, binary_output=False):
    """tf.math.bincount of a RaggedTensor: over all its values (``axis`` 0), or per row
    (``axis`` -1: a dense [rows, size] result, size as the flat count's)."""
    flat_w = weights.flat_values if isinstance(weights, RaggedTensor) else weights
    whole = counting.bincount(arr.flat_values, flat_w, minlength, maxlength, dtype,
                              binary_output=binary_output)
    if axis in (None, 0):
        return whole
    if arr.ragged_rank != 1:
        raise ValueError(f"Unsupported value for argument axis={axis} with a RaggedTensor of "
                         f"ragged rank {arr.ragged_rank}: only 2-D ragged inputs count per row.")
    size = cast(tf_shape(whole)[0], D.int64)
    values = cast(arr.flat_values, D.int64)
    keep = compare.less(values, size)  # values past maxlength are not counted
    ids = arithmetic.add(arithmetic.multiply(cast(arr.value_rowids(), D.int64), size), values)
    ids = gathering.boolean_mask(ids, keep)
    if flat_w is not None:
        flat_w = gathering.boolean_mask(flat_w, keep)
    total = arithmetic.multiply(cast(arr.nrows(), D.int64), size)
    counts = counting.bincount(ids, flat_w, total, total, dtype, binary_output=binary_output)
    return reshape(counts, joining.stack([cast(arr.nrows(), D.int64), size]))


def _string_join(inputs, separator=""):
    """tf.strings.join of ragged (and dense or scalar) inputs: the values joined elementwise."""
    return elementwise(lambda *xs: join_split.join(list(xs), separator), tuple(inputs), {})


composite.OVERRIDES.update({
    joining.concat: _concat, joining.stack: _stack, gathering.gather: _gather,
    select.where: _where, shapes.shape: _shape, shapes.size: _size, shapes.rank: _rank,
    casting.cast: _cast, creation.ones_like: _like(creation.ones_like),
    creation.zeros_like: _like(creation.zeros_like), sequences.reverse: _reverse,
    padding.tile: _tile, functional.map_fn: _map_fn,
    creation.zeros: _like_shape(lambda n, dtype: creation.zeros(U.reshape(n, [1]), dtype)),
    creation.ones: _like_shape(lambda n, dtype: creation.ones(U.reshape(n, [1]), dtype)),
    creation.fill: _fill, reshaping.reshape: _reshape, join_split.join: _string_join,
    ranges.one_hot: _one_hot, counting.bincount: _bincount})
composite.CLASSES["ragged"] = RaggedTensor
