"""Ordering: TopKV2 (``tf.math.top_k``, and ``tf.sort`` / ``tf.argsort`` built on it), Unique
and UniqueWithCounts, and LowerBound / UpperBound (``tf.searchsorted``)."""

import collections

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import constant, convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, OpDef, define_op, register
from ...tensor import Tensor, TensorSpec, static_value
from .._args import int_attr, static_int
from .._base import ALL, BOOL, INDEX, REAL, check_dtypes, graph_error, kernel_out_type
from ..array.reshaping import transpose
from ..math.operands import same_dtype_operands
from ._util import INDEX16, shape_tensor

_TOPK_TYPES = tuple(d for d in (D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.int64,
                                D.bfloat16, D.uint16, D.float16, D.uint32, D.uint64) if d)


# --- TopKV2, sort and argsort ------------------------------------------------------------------
TopKV2Result = collections.namedtuple("TopKV2", ["values", "indices"])


def _descending_order(x):
    """Indices sorting the last axis in descending order, ties by lower index, NaN first."""
    n = x.shape[-1]
    order = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return (n - 1) - order


@define_op("TopKV2")
class TopKV2:
    """The ``k`` largest entries of the last axis and their indices (ties: lower index first)."""

    check = DtypeCheck("TopKV2", _TOPK_TYPES, 1,
                       then=DtypeCheck("TopKV2", INDEX16, 1, first=1, attr="Tk"))

    def infer(x, k, sorted, index_type):
        check_dtypes("TopKV2", (x,), _TOPK_TYPES, ("input",))
        check_dtypes("TopKV2", (k,), INDEX16, ("k",))
        rank = x.shape.rank
        if rank == 0:
            raise graph_error("TopKV2", "Shape must be at least rank 1 but is rank 0", x.shape,
                              k.shape)
        k_v = static_int(k)
        if rank is None:
            return TensorSpec(None, x.dtype), TensorSpec(None, index_type)
        last = x.shape.dims[-1]
        if k_v is not None and last is not None and last < k_v:
            raise graph_error("TopKV2", f"input must have last dimension >= k = {k_v} but is "
                              f"{last}", x.shape, k.shape)
        shape = x.shape.dims[:-1] + [k_v]
        return TensorSpec(shape, x.dtype), TensorSpec(shape, index_type)

    def kernel(x, k, sorted, index_type):
        if np.ndim(x) == 0:
            raise invalid_argument("input must be >= 1-D, got shape []")
        if np.ndim(k):
            raise invalid_argument(f"k must be scalar, got shape {shape_text(np.shape(k))}")
        k = int(k)
        if k < 0:
            raise invalid_argument(f"Need k >= 0, got {k}")
        if x.shape[-1] < k:
            raise invalid_argument(f"input must have at least k columns. Had {x.shape[-1]}, "
                                   f"needed {k}")
        order = _descending_order(x)[..., :k]
        return np.take_along_axis(x, order, -1), order.astype(index_type._np)


@tf_export("math.top_k", "nn.top_k")
def top_k(input, k=1, sorted=True, index_type=D.int32, name=None):
    """``tf.math.top_k``: ``TopKV2(values, indices)`` of the ``k`` largest entries of the last
    axis. The order of ``sorted=False`` results is unspecified in TF; here they are sorted."""
    x = convert_to_tensor(input)
    k = k if isinstance(k, Tensor) else convert_to_tensor(k, D.int32)
    values, indices = bind(TopKV2, x, k, sorted=bool(sorted), index_type=D.as_dtype(index_type))
    return TopKV2Result(values, indices)


def _last_dim_size(values, axis):
    """``tf.shape(values)[axis]`` (a constant when that dim is known), with TF's errors."""
    dims = values.shape.dims
    if dims is not None and -len(dims) <= axis < len(dims) and dims[axis] is not None:
        return constant(np.int32(dims[axis]))
    return shape_tensor(values)[axis]


def _descending_sort(values, axis, return_argsort):
    k = _last_dim_size(values, axis)
    rank = values.shape.rank
    perm = None
    if axis != -1 and (rank is None or axis + 1 != rank):
        if rank is None:
            raise ValueError("Sorting along an axis other than the last needs a known rank.")
        axis += rank if axis < 0 else 0
        perm = list(range(axis)) + [rank - 1] + list(range(axis + 1, rank - 1)) + [axis]
        values = transpose(values, perm)
    sorted_values, indices = bind(TopKV2, values, k, sorted=True, index_type=D.int32)
    out = indices if return_argsort else sorted_values
    return out if perm is None else transpose(out, perm)


def _sort_or_argsort(values, axis, direction, return_argsort):
    """TF's sort: a descending top-k over the whole axis; ascending sorts negated values."""
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Argument `direction` should be one of ASCENDING, DESCENDING. "
                         f"Received: direction={direction}")
    axis_v = static_value(axis) if isinstance(axis, Tensor) else np.asarray(axis)
    if axis_v is None or np.ndim(axis_v) != 0:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
    axis = int_attr(axis_v, "axis")
    values = convert_to_tensor(values)
    if direction == "DESCENDING":
        return _descending_sort(values, axis, return_argsort)
    dtype = values.dtype
    if dtype.is_unsigned:
        out = _descending_sort(dtype.max - values, axis, return_argsort)
        return out if return_argsort else dtype.max - out
    if dtype.is_integer:
        out = _descending_sort(-values - 1, axis, return_argsort)
        return out if return_argsort else -out - 1
    out = _descending_sort(-values, axis, return_argsort)
    return out if return_argsort else -out


@tf_export("sort")
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``tf.sort`` along ``axis`` (a constant). NaN sorts first, as in TF."""
    return _sort_or_argsort(values, axis, direction, False)


@tf_export("argsort")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """``tf.argsort``: int32 indices that sort ``values`` along ``axis``; always stable."""
    return _sort_or_argsort(values, axis, direction, True)


# --- Unique ------------------------------------------------------------------------------------
UniqueResult = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCountsResult = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])
_UNIQUE_TYPES = REAL + BOOL + (D.string,)


def _unique(x):
    """Unique values in order of first occurrence, the index of each entry, and counts."""
    kw = {} if x.dtype == object else {"equal_nan": False}
    _, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True, **kw)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return x[first[order]], rank[inverse.reshape(-1)], counts[order]


def _unique_of_vector(x):
    if np.ndim(x) != 1:
        raise invalid_argument("unique expects a 1D vector.")
    return _unique(x)


@define_op("Unique")
class Unique:
    """The distinct entries of a vector in order of first occurrence, and where each entry went."""

    check = DtypeCheck("Unique", ALL, 1, kernels=_UNIQUE_TYPES)

    def infer(x, out_idx):
        if x.shape.rank not in (None, 1):
            raise graph_error("Unique", f"Shape must be rank 1 but is rank {x.shape.rank}",
                              x.shape)
        return TensorSpec([None], x.dtype), TensorSpec(x.shape if x.shape.rank else [None],
                                                       out_idx)

    def kernel(x, out_idx):
        y, idx, _ = _unique_of_vector(x)
        return y, idx.astype(out_idx._np)


@define_op("UniqueWithCounts")
class UniqueWithCounts:
    """Unique's outputs and how often each distinct entry occurs."""

    check = DtypeCheck("UniqueWithCounts", ALL, 1, kernels=_UNIQUE_TYPES)

    def infer(x, out_idx):
        return Unique.infer(x, out_idx) + (TensorSpec([None], out_idx),)

    def kernel(x, out_idx):
        y, idx, counts = _unique_of_vector(x)
        return y, idx.astype(out_idx._np), counts.astype(out_idx._np)


def _out_idx(out_idx, op):
    out_idx = D.as_dtype(out_idx)
    kernel_out_type(out_idx, INDEX, "out_idx", op)
    return out_idx


@tf_export("unique")
def unique(x, out_idx=D.int32, name=None):
    """``tf.unique``: ``Unique(y, idx)``, ``y`` in order of first occurrence, ``x == y[idx]``."""
    y, idx = bind(Unique, convert_to_tensor(x), out_idx=_out_idx(out_idx, "Unique"))
    return UniqueResult(y, idx)


@tf_export("unique_with_counts")
def unique_with_counts(x, out_idx=D.int32, name=None):
    """``tf.unique_with_counts``: ``UniqueWithCounts(y, idx, count)``."""
    y, idx, count = bind(UniqueWithCounts, convert_to_tensor(x),
                         out_idx=_out_idx(out_idx, "UniqueWithCounts"))
    return UniqueWithCountsResult(y, idx, count)


# --- LowerBound / UpperBound (searchsorted) -----------------------------------------------------
_SEARCH_BLOCK = 1 << 20  # compare all pairs at once below this many comparisons


def _bound_kernel(side):
    def kernel(sorted_inputs, values, out_type):
        seq, vals = np.asarray(sorted_inputs), np.asarray(values)
        rows = int(np.prod(seq.shape[:-1], dtype=np.int64))  # TF flattens the leading dims
        if rows != int(np.prod(vals.shape[:-1], dtype=np.int64)):
            raise invalid_argument("Leading dim_size of both tensors must match.")
        seq, flat = seq.reshape(rows, seq.shape[-1]), vals.reshape(rows, vals.shape[-1])
        if rows == 1:
            out = np.searchsorted(seq[0], flat[0], side)
        elif seq.size * flat.shape[-1] <= _SEARCH_BLOCK:
            less = np.less if side == "left" else np.less_equal
            out = less(seq[:, None, :], flat[:, :, None]).sum(-1)
        else:  # one vectorised search per row: rows are few when they are long
            out = np.stack([np.searchsorted(s, v, side) for s, v in zip(seq, flat)])
        return out.reshape(vals.shape).astype(out_type._np)

    return kernel


def _bound_op(name, side):
    def infer(sorted_inputs, values, out_type):
        check_dtypes(name, (sorted_inputs, values), None, ("sorted_inputs", "values"))
        return TensorSpec(values.shape, out_type)

    return register(OpDef(name, infer, _bound_kernel(side),
                          check=DtypeCheck(name, ALL, kernels=REAL)))


LOWER_BOUND = _bound_op("LowerBound", "left")
UPPER_BOUND = _bound_op("UpperBound", "right")


@tf_export("searchsorted")
def searchsorted(sorted_sequence, values, side="left", out_type=D.int32, name=None):
    """``tf.searchsorted``: insertion points of ``values`` in each innermost sorted row."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = "
                         f"'{side}'.")
    seq, values = same_dtype_operands(sorted_sequence, values)
    for t in (seq, values):
        if t.shape.rank == 0:
            shape_tensor(t)[-1]  # TF reads shape(x)[-1]: the same error for a scalar
    return bind(LOWER_BOUND if side == "left" else UPPER_BOUND, seq, values,
                out_type=D.as_dtype(out_type))

