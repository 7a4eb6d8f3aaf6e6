"""The dense ops ragged tensors are computed with, and small helpers they share (row-partition
arithmetic written with the public ops, so it runs eagerly, in traced graphs and under tapes)."""

import numpy as np

from .. import dtypes as D
from .. import errors
from ..convert import convert_to_tensor
from ..ops.array.creation import fill, zeros  # noqa: F401 - shared with the other modules
from ..ops.array.joining import concat, stack  # noqa: F401
from ..ops.array.ranges import range as tf_range
from ..ops.array.reshaping import reshape  # noqa: F401
from ..ops.array.shapes import shape as tf_shape
from ..ops.indexing.gathering import gather, boolean_mask  # noqa: F401
from ..ops.indexing.sorting import searchsorted
from ..ops.math.arithmetic import maximum, subtract  # noqa: F401
from ..ops.math.casting import cast
from ..ops.reduce import cumsum, reduce_max  # noqa: F401
from ..tensor import EagerTensor, Tensor, static_value


def tensor(value, dtype=None, name="value"):
    """``value`` as a tensor (a tensor is kept as it is)."""
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def static(t):
    """The NumPy value of a tensor when it is known now (eager, or constant at trace time)."""
    if isinstance(t, EagerTensor):
        return t._value
    return static_value(t)


def index_tensor(value, dtype, name):
    """A row-partition tensor (splits, lengths, ids) as an int32/int64 vector of ``dtype``."""
    if isinstance(value, Tensor):
        if value.dtype not in (D.int32, D.int64):
            raise TypeError(f"{name} must be an integer tensor; dtype={value.dtype}")
        return value if dtype is None or value.dtype == dtype else cast(value, dtype)
    return convert_to_tensor(value, dtype=dtype or D.int64, name=name)


def splits_dtype(*tensors):
    """The row-splits dtype ragged tensors built from ``tensors`` take (int64 unless all are
    int32 tensors)."""
    found = [t.dtype for t in tensors if isinstance(t, Tensor)]
    return D.int32 if found and all(d == D.int32 for d in found) else D.int64


def nvals(values, dtype):
    """The number of rows of ``values`` (a tensor or ragged tensor) as a scalar of ``dtype``."""
    if hasattr(values, "nrows"):
        return values.nrows(out_type=dtype)
    n = values.shape[0] if values.shape.rank else None
    if n is not None:
        return convert_to_tensor(n, dtype=dtype)
    return cast(tf_shape(values)[0], dtype)


def rowids_of(splits):
    """The row of each value: ``searchsorted(splits[1:], range(nvals), 'right')``."""
    n = splits[-1]
    positions = tf_range(convert_to_tensor(0, splits.dtype), n, dtype=splits.dtype)
    return searchsorted(splits[1:], positions, side="right", out_type=splits.dtype)


def invalid(what, detail):
    return errors.InvalidArgumentError(None, None, f"Arguments to {what} do not form a valid "
                                                   f"RaggedTensor{detail}")


def check_splits(splits, nvalues, what):
    """TF's checks of row splits (eager or constant ones): start at zero, never decrease, end
    at the number of values."""
    s = static(splits)
    if s is None:
        return
    if s.ndim != 1:
        raise ValueError(f"Shape {tuple(s.shape)} must have rank 1")
    if s.size == 0:
        raise ValueError("row_splits tensor may not be empty.")
    if s[0] != 0:
        raise invalid(what, f":zero\nCondition x == y did not hold.\nFirst 1 elements of x:\n"
                            f"[{s[0]}]\nFirst 1 elements of y:\n[0]")
    diffs = np.diff(s)
    if (diffs < 0).any():
        raise invalid(what, ":monotonic.  \nCondition x >= 0 did not hold element-wise:\n"
                            f"x (shape={diffs.shape} dtype={s.dtype}) = \n"
                            f"{[str(v) for v in diffs]}")
    if nvalues is not None and s[-1] != nvalues:
        raise invalid("_from_row_partition", f"\nCondition x == y did not hold.\nFirst 1 "
                      f"elements of x:\n[{s[-1]}]\nFirst 1 elements of y:\n[{nvalues}]")


def check_nonnegative(t, what):
    s = static(t)
    if s is not None and (s < 0).any():
        raise errors.InvalidArgumentError(
            None, None, f"Arguments to {what} do not form a valid RowPartition.  \n"
            f"Condition x >= 0 did not hold element-wise:\nx (shape={s.shape} dtype={s.dtype})"
            f" = \n{[str(v) for v in s]}")
