"""``RaggedTensor.__getitem__``: TF's ragged indexing (ints, slices, Ellipsis, tf.newaxis;
indexing into a ragged inner dimension is refused, slicing it is per row)."""

from .. import dtypes as D
from .. import errors
from ..convert import convert_to_tensor
from ..ops.math.arithmetic import maximum, minimum
from ..ops.math.casting import cast
from ..ops.math.select import where
from ..ops.array.creation import zeros
from ..ops.array.shapes import size
from ..tensor import Tensor
from . import _util as U
from ._util import concat, tf_shape
from .ragged_ops import index_ranges, gather_rows, ragged_range
from .ragged_tensor import RaggedTensor

_NEWAXIS = None


def getitem(rt, key):
    """The piece of ``rt`` that ``key`` selects (a Tensor when no ragged dimension is left)."""
    keys = list(key) if isinstance(key, (list, tuple)) else [key]
    return _getitem(rt, keys)


def _getitem(rt, keys):
    if not keys:
        return rt
    row_key, inner = keys[0], keys[1:]
    if row_key is Ellipsis:
        return _getitem(rt, _expand_ellipsis(keys, rt.shape.rank))
    if row_key is _NEWAXIS:
        inner_rt = _getitem(rt, inner)
        n = _nrows(inner_rt)
        return RaggedTensor.from_uniform_row_length(inner_rt, n, nrows=1, validate=False)
    if isinstance(row_key, slice):
        sliced = _slice_rows(rt, row_key)
        if rt.uniform_row_length is not None:
            sliced = RaggedTensor.from_uniform_row_length(sliced.values, rt.uniform_row_length,
                                                          nrows=sliced.nrows())
        return _inner(sliced, inner)
    _check_key(row_key)
    starts, limits = rt.row_splits[:-1], rt.row_splits[1:]
    n = U.static(rt.nrows())
    k = U.static(row_key) if isinstance(row_key, Tensor) else row_key
    if n is not None and k is not None and int(k) >= int(n):
        raise IndexError(f"Row key {row_key} out of bounds")
    row = rt.values[starts[row_key]:limits[row_key]]
    return row[tuple(inner)] if not isinstance(row, RaggedTensor) else _getitem(row, inner)


def _check_key(key):
    if isinstance(key, bool) or not isinstance(key, (int, Tensor)) and not hasattr(
            key, "__index__"):
        raise TypeError(f"Cannot convert {key!r} to an integer index: ragged indices must be "
                        f"integers, slices, Ellipsis or tf.newaxis")


def _nrows(rt):
    n = rt.row_splits.shape[0]
    if n is not None:
        return n - 1
    return tf_shape(rt.row_splits, out_type=rt.row_splits.dtype)[0] - 1


def _slice_rows(rt, key):
    """Rows ``key`` (a slice) of ``rt``."""
    if key.start is None and key.stop is None and key.step is None:
        return rt
    starts = rt.row_splits[:-1][key]
    limits = rt.row_splits[1:][key]
    if key.step is None or (not isinstance(key.step, Tensor) and key.step == 1):
        zero = zeros([1], rt.row_splits.dtype)
        splits = concat([zero[size(starts, out_type=D.int32):], starts[:1], limits], 0)
        first, last = splits[0], splits[-1]
        return RaggedTensor.from_row_splits(rt.values[first:last], splits - first,
                                            validate=False)
    return _from_value_ranges(starts, limits, 1, rt.values)


def _from_value_ranges(starts, limits, step, values):
    """Row ``i`` is ``values[starts[i]:limits[i]:step]``."""
    if step is None or (not isinstance(step, Tensor) and step == 1):
        ids, splits = index_ranges(starts, limits)
    else:
        ranges = ragged_range(starts, limits, step, row_splits_dtype=starts.dtype)
        ids, splits = ranges.values, ranges.row_splits
    return RaggedTensor.from_row_splits(gather_rows(values, ids), splits, validate=False)


def _ge_zero(value, yes, no):
    """``yes`` where ``value >= 0`` else ``no`` (decided now for Python ints)."""
    if isinstance(value, int):
        return yes() if value >= 0 else no()
    known = U.static(value)
    if known is not None:
        return yes() if known >= 0 else no()
    return where(value >= 0, yes(), no())


def _inner(rt, keys):
    """Index the inner dimensions, keeping the rows."""
    if not keys:
        return rt
    if not isinstance(rt, RaggedTensor):
        return rt[tuple([slice(None)] + list(keys))]
    key = keys[0]
    if key is Ellipsis:
        return _inner(rt, _expand_ellipsis(keys, rt.values.shape.rank))
    if key is _NEWAXIS:
        inner_rt = _inner(rt, keys[1:])
        return RaggedTensor.from_uniform_row_length(inner_rt, 1, nrows=_nrows(inner_rt),
                                                    validate=False)
    if isinstance(key, slice):
        if key.start is None and key.stop is None and key.step is None:
            return rt.with_values(_inner(rt.values, keys[1:]))
        for part in (key.start, key.stop):
            if not isinstance(part, (Tensor, int, type(None))):
                raise TypeError("slice offsets must be integers or None")
        return _slice_columns(rt, key, keys[1:])
    if rt.uniform_row_length is None:
        raise ValueError("Cannot index into an inner ragged dimension.")
    length = rt.uniform_row_length
    column = cast(convert_to_tensor(key), length.dtype) if not isinstance(key, int) else key
    c, n = U.static(convert_to_tensor(column)), U.static(length)
    if c is not None and n is not None and not -n <= c < n:
        raise errors.InvalidArgumentError(
            None, None, "Index out of bounds when indexing into a ragged tensor")
    offset = _ge_zero(column, lambda: column, lambda: length + column)
    return _inner(rt.values[offset::length], keys[1:])


def _slice_columns(rt, key, rest):
    starts, limits = rt.row_splits[:-1], rt.row_splits[1:]
    step = 1 if key.step is None else key.step
    lower = _ge_zero(step, lambda: starts, lambda: starts - 1)
    upper = _ge_zero(step, lambda: limits, lambda: limits - 1)
    dtype = starts.dtype
    if key.start is None:
        new_starts = _ge_zero(step, lambda: starts, lambda: limits - 1)
    else:
        offset = cast(convert_to_tensor(key.start), dtype)
        new_starts = _ge_zero(key.start, lambda: minimum(starts + offset, upper),
                              lambda: maximum(limits + offset, lower))
    if key.stop is None:
        new_limits = _ge_zero(step, lambda: limits, lambda: starts - 1)
    else:
        offset = cast(convert_to_tensor(key.stop), dtype)
        new_limits = _ge_zero(key.stop, lambda: minimum(starts + offset, upper),
                              lambda: maximum(limits + offset, lower))
    inner_rt = _from_value_ranges(new_starts, new_limits, key.step, rt.values)
    if rt.uniform_row_length is not None:
        n = U.static(rt.uniform_row_length)
        if n is not None:
            length = len(range(int(n))[key])
            inner_rt = RaggedTensor.from_uniform_row_length(inner_rt.values, length,
                                                            rt.nrows())
    return inner_rt.with_values(_inner(inner_rt.values, rest))


def _expand_ellipsis(keys, remaining):
    if remaining is None:
        raise ValueError("Ellipsis not supported for unknown shape RaggedTensors")
    count = sum(1 for k in keys if k is not _NEWAXIS)
    if count > remaining + 1:
        raise IndexError("Too many indices for RaggedTensor")
    if count == remaining + 1:
        return keys[1:]
    return [slice(None)] + keys


RaggedTensor.__getitem__ = getitem
