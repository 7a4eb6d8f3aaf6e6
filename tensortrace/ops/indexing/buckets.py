"""Bucketize (the bucket of each value among sorted float boundaries) and UniqueV2 /
UniqueWithCountsV2 (Unique along one axis: distinct slices in order of first occurrence), as
``tf.raw_ops`` calls them."""

import collections

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec
from .._base import ALL, INDEX, kernel_out_type
from .sorting import _UNIQUE_TYPES, _unique_of_vector

_BUCKETIZE_TYPES = (D.int32, D.int64, D.float32, D.float64)
UniqueV2Result = collections.namedtuple("UniqueV2", ["y", "idx"])
UniqueWithCountsV2Result = collections.namedtuple("UniqueWithCountsV2", ["y", "idx", "count"])


def _sorted_boundaries(boundaries):
    if not all(a <= b for a, b in zip(boundaries, boundaries[1:])):
        raise invalid_argument("Expected sorted boundaries")
    return np.asarray(boundaries, np.float32)


@define_op("Bucketize")
class Bucketize:
    """For each value, how many ``boundaries`` are <= it (int32, the input's shape)."""

    check = DtypeCheck("Bucketize", _BUCKETIZE_TYPES, 1)

    def infer(input, *, boundaries):
        return TensorSpec(input.shape, D.int32)

    def kernel(input, *, boundaries):
        edges = _sorted_boundaries(boundaries)
        # TF compares each value with the float boundary (std::upper_bound)
        return np.searchsorted(edges, input, side="right").astype(np.int32)


@tf_export("raw_ops.Bucketize")
def _raw_bucketize(*, input, boundaries, name=None):
    if not isinstance(boundaries, (list, tuple)):
        raise TypeError(f"Expected list for 'boundaries' argument to 'bucketize' Op, not "
                        f"{boundaries!r}.")
    return bind(Bucketize, convert_to_tensor(input),
                boundaries=tuple(float(b) for b in boundaries))


def _unique_along(x, axis):
    """Unique along ``axis`` (a vector of at most one int): (y, idx, counts)."""
    axis = np.asarray(axis).reshape(-1)
    if axis.size == 0:
        return _unique_of_vector(x)
    if axis.size > 1:
        raise invalid_argument("axis does not support input tensors larger than 1 elements")
    a = int(axis[0])
    a = a + x.ndim if a < 0 else a
    if not 0 <= a < x.ndim:
        raise invalid_argument(f"axis has to be between [0, {x.ndim})")
    moved = np.moveaxis(x, a, 0)
    rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))  # -1 fails on size 0
    slot, first, idx = {}, [], np.empty(rows.shape[0], np.int64)
    for i, row in enumerate(rows):
        key = tuple(row.tolist())
        if key not in slot:
            slot[key] = len(first)
            first.append(i)
        idx[i] = slot[key]
    y = np.moveaxis(moved[np.asarray(first, np.int64)], 0, a)
    return y, idx, np.bincount(idx, minlength=len(first)).astype(np.int64)


def _unique_infer(x, axis, out_idx, counts):
    if x.shape.rank is None:
        y = TensorSpec(None, x.dtype)
    else:
        y = TensorSpec([None] * x.shape.rank, x.dtype)
    specs = (y, TensorSpec([None], out_idx))
    return specs + (TensorSpec([None], out_idx),) if counts else specs


@define_op("UniqueV2")
class UniqueV2:
    """The distinct slices of ``x`` along ``axis`` (one int, or none: a vector) in order of
    first occurrence, and the slice each position went to."""

    check = DtypeCheck("UniqueV2", ALL, 1, kernels=_UNIQUE_TYPES,
                       then=DtypeCheck("UniqueV2", INDEX, 1, first=1, attr="Taxis"))

    def infer(x, axis, *, out_idx):
        return _unique_infer(x, axis, out_idx, False)

    def kernel(x, axis, *, out_idx):
        kernel_out_type(out_idx, INDEX, "out_idx", "UniqueV2")
        y, idx, _ = _unique_along(x, axis)
        return y, idx.astype(out_idx._np)


@define_op("UniqueWithCountsV2")
class UniqueWithCountsV2:
    """UniqueV2's outputs and how often each distinct slice occurs."""

    check = DtypeCheck("UniqueWithCountsV2", ALL, 1, kernels=_UNIQUE_TYPES,
                       then=DtypeCheck("UniqueWithCountsV2", INDEX, 1, first=1, attr="Taxis"))

    def infer(x, axis, *, out_idx):
        return _unique_infer(x, axis, out_idx, True)

    def kernel(x, axis, *, out_idx):
        kernel_out_type(out_idx, INDEX, "out_idx", "UniqueWithCountsV2")
        y, idx, counts = _unique_along(x, axis)
        return y, idx.astype(out_idx._np), counts.astype(out_idx._np)


def _axis_tensor(axis):
    return convert_to_tensor(axis, D.int64 if not hasattr(axis, "dtype") else None)


@tf_export("raw_ops.UniqueV2")
def _raw_unique_v2(*, x, axis, out_idx=D.int32, name=None):
    y, idx = bind(UniqueV2, convert_to_tensor(x), _axis_tensor(axis),
                  out_idx=D.as_dtype(out_idx))
    return UniqueV2Result(y, idx)


@tf_export("raw_ops.UniqueWithCountsV2")
def _raw_unique_with_counts_v2(*, x, axis, out_idx=D.int32, name=None):
    y, idx, count = bind(UniqueWithCountsV2, convert_to_tensor(x), _axis_tensor(axis),
                         out_idx=D.as_dtype(out_idx))
    return UniqueWithCountsV2Result(y, idx, count)


for _f, _n in ((_raw_bucketize, "Bucketize"), (_raw_unique_v2, "UniqueV2"),
               (_raw_unique_with_counts_v2, "UniqueWithCountsV2")):
    _f.__name__ = _f.__qualname__ = _n
