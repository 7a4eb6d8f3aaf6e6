"""TF-NumPy's reductions: sum/prod (small integers and bools widen to int64/uint64, NumPy's
rule), mean/std/var (integers computed in the default float type), max/min (bools stay bools),
arg-reductions, cumulative sums, nan-skipping forms, average, diff, trace, count_nonzero."""

import numpy as np

from .. import dtypes as D
from ..ops import reduce as R
from ..ops.array.reshaping import reshape, transpose
from ..ops.array.shapes import shape as _shape, size as _size
from ..ops.indexing.gathering import gather
from ..ops.math import arithmetic as A, compare as C
from ..ops.math.casting import cast
from ..ops.math.complex_numbers import conj, real
from ..ops.math.select import where
from ..tensor import Tensor
from ._core import array, asarray, config, float_type, is_inexact, np_dtype, result_type
from ._creation import diagonal
from ._math import isnan, logical_not

_TO_INT, _TO_FLOAT = 0, 1


def _reduce(fn, a, axis=None, dtype=None, keepdims=None, promote_int=_TO_INT, bool_fn=None,
            preserve_bool=False):
    """NumPy's reduction dtypes around TF's ``fn``."""
    if dtype:
        dtype = result_type(dtype)
    keepdims = bool(keepdims)
    a = asarray(a, dtype=dtype)
    if (dtype is D.bool or preserve_bool and a.dtype is D.bool) and bool_fn is not None:
        return bool_fn(a, axis=axis, keepdims=keepdims)
    if dtype is None:
        if a.dtype.is_integer or a.dtype is D.bool:
            if promote_int == _TO_INT:
                np_type = np_dtype(a.dtype)
                signed = a.dtype is D.bool or np.issubdtype(np_type, np.signedinteger)
                width = 8 if a.dtype is D.bool else np.iinfo(np_type).bits
                if config.mode in ("safe", "all"):  # TF's new promotion: 32 bits at least
                    if width < 32:
                        a = cast(a, D.int32 if signed else D.uint32)
                elif width < np.iinfo(np.int_).bits:
                    a = cast(a, D.int64 if signed else D.uint64)
            elif promote_int == _TO_FLOAT:
                a = cast(a, float_type())
    if isinstance(axis, Tensor) and axis.dtype not in (D.int32, D.int64):
        axis = cast(axis, D.int64)
    return fn(a, axis=axis, keepdims=keepdims)


def sum(a, axis=None, dtype=None, keepdims=None):  # noqa: A001
    return _reduce(R.reduce_sum, a, axis, dtype, keepdims, bool_fn=R.reduce_any)


def prod(a, axis=None, dtype=None, keepdims=None):
    return _reduce(R.reduce_prod, a, axis, dtype, keepdims, bool_fn=R.reduce_all)


def _no_out(out):
    if out is not None:
        raise ValueError("Setting out is not supported.")


def mean(a, axis=None, dtype=None, out=None, keepdims=None):
    _no_out(out)
    return _reduce(R.reduce_mean, a, axis, dtype, keepdims, promote_int=_TO_FLOAT)


def amax(a, axis=None, out=None, keepdims=None):
    _no_out(out)
    return _reduce(R.reduce_max, a, axis, None, keepdims, promote_int=None,
                   bool_fn=R.reduce_any, preserve_bool=True)


def amin(a, axis=None, out=None, keepdims=None):
    _no_out(out)
    return _reduce(R.reduce_min, a, axis, None, keepdims, promote_int=None,
                   bool_fn=R.reduce_all, preserve_bool=True)


max = amax  # noqa: A001
min = amin  # noqa: A001


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=None):
    working = result_type(a, dtype) if dtype else None
    _no_out(out)
    if ddof != 0:
        def fn(x, axis, keepdims):  # the sum of squared deviations over (n - ddof)
            centered = x - R.reduce_mean(x, axis=axis, keepdims=True)
            if x.dtype.is_complex:
                centered = cast(real(centered * conj(centered)), x.dtype)
            else:
                centered = A.square(centered)
            squares = R.reduce_sum(centered, axis=axis, keepdims=keepdims)
            if axis is None:
                n = _size(x)
            else:
                n = R.reduce_prod(gather(_shape(x), axis))
            return cast(A.divide(squares, cast(n - ddof, x.dtype)), dtype or x.dtype)
    else:
        fn = R.reduce_variance
    result = _reduce(fn, a, axis, working, keepdims, promote_int=_TO_FLOAT)
    return cast(result, dtype) if dtype else result


def std(a, axis=None, keepdims=None):
    return _reduce(R.reduce_std, a, axis, None, keepdims, promote_int=_TO_FLOAT)


def ptp(a, axis=None, keepdims=None):
    return amax(a, axis=axis, keepdims=keepdims) - amin(a, axis=axis, keepdims=keepdims)


def all(a, axis=None, keepdims=None):  # noqa: A001
    return R.reduce_all(asarray(a, dtype=bool), axis=axis, keepdims=bool(keepdims))


def any(a, axis=None, keepdims=None):  # noqa: A001
    return R.reduce_any(asarray(a, dtype=bool), axis=axis, keepdims=bool(keepdims))


def count_nonzero(a, axis=None):
    return R.count_nonzero(array(a), axis)


def _argminmax(fn, a, axis=None):
    a = array(a)
    if axis is None:
        a = reshape(a, [-1])
    elif a.shape.rank == 0:
        a = reshape(a, [1])
    return fn(a, axis=axis)


def argmax(a, axis=None):
    return _argminmax(R.argmax, a, axis)


def argmin(a, axis=None):
    return _argminmax(R.argmin, a, axis)


def _promote_to_int(a):
    if a.dtype.is_integer:
        wider = np_dtype(result_type(a.dtype, int)) if config.mode in ("safe", "all") else \
            np.promote_types(np_dtype(a.dtype), int)
        if wider != np_dtype(a.dtype):
            a = asarray(a, dtype=wider)
    return a


def _cumulative(fn, a, axis, dtype):
    a = asarray(a, dtype=dtype)
    if dtype is None:
        a = _promote_to_int(a)
    if axis is None:
        a, axis = reshape(a, [-1]), 0
    elif axis < 0:
        axis += a.shape.rank
    return fn(a, axis)


def cumsum(a, axis=None, dtype=None):
    return _cumulative(R.cumsum, a, axis, dtype)


def cumprod(a, axis=None, dtype=None):
    return _cumulative(R.cumprod, a, axis, dtype)


def _nan_reduction(reduction, init):
    def nan_reduction(a, axis=None, dtype=None, keepdims=False):
        a = array(a)
        v = array(init, dtype=a.dtype)
        return reduction(where(isnan(a), v, a), axis=axis, dtype=dtype, keepdims=keepdims)

    return nan_reduction


nansum = _nan_reduction(sum, 0)
nanprod = _nan_reduction(prod, 1)


def nanmean(a, axis=None, dtype=None, keepdims=None):
    a = array(a)
    if a.dtype is D.bool or a.dtype.is_integer:
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    mask = logical_not(isnan(a))
    dtype = dtype or np_dtype(a.dtype)
    normalizer = sum(mask, axis=axis, dtype=dtype, keepdims=keepdims)
    return nansum(a, axis=axis, dtype=dtype, keepdims=keepdims) / normalizer


def average(a, axis=None, weights=None, returned=False):
    """``tnp.average``: the (weighted) mean along ``axis``; with ``returned``, also the sum of
    the weights."""
    if axis is not None and not isinstance(axis, int):
        raise ValueError(f"Argument `axis` must be an integer. Received axis={axis} "
                         f"(of type {type(axis)})")
    a = array(a)
    default_float = result_type(float)
    if weights is None:
        if not is_inexact(a.dtype):
            a = cast(a, result_type(a.dtype, default_float))
        avg = R.reduce_mean(a, axis=axis)
        if returned:
            n = _size(a) if axis is None else a.shape.as_list()[axis]
            weights_sum = cast(n, a.dtype)
    else:
        if is_inexact(a.dtype):
            out_dtype = result_type(a.dtype, weights)
        else:
            out_dtype = result_type(a.dtype, weights, default_float)
        a, weights = array(a, out_dtype), array(weights, out_dtype)
        if a.shape.rank == weights.shape.rank:
            if a.shape.as_list() != weights.shape.as_list():
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            weights_sum = R.reduce_sum(weights, axis=axis)
            avg = R.reduce_sum(a * weights, axis=axis) / weights_sum
        else:
            if axis is None or weights.shape.rank != 1:
                raise ValueError("1D weights expected when shapes of a and weights differ.")
            weights_sum = R.reduce_sum(weights)
            axis = axis % a.shape.rank
            perm = [i for i in range(a.shape.rank) if i != axis] + [axis]
            avg = R.reduce_sum(transpose(a, perm) * weights, axis=-1) / weights_sum
    if returned:
        return avg, weights_sum
    return avg


def diff(a, n=1, axis=-1):
    """``tnp.diff``: the ``n``-th discrete difference along ``axis`` (``!=`` for bools)."""
    a = asarray(a)
    nd = a.shape.rank
    if nd is None:
        raise ValueError("Function `diff` currently requires a known rank for input `a`. "
                         f"Received: a={a} (unknown rank)")
    if (axis + nd if axis < 0 else axis) >= nd:
        raise ValueError(f"Argument `axis` (received axis={axis}) is out of bounds for input "
                         f"{a} of rank {nd}.")
    if n < 0:
        raise ValueError(f"Argument `order` must be a non-negative integer. Received: axis={n}")
    later, earlier = [slice(None)] * nd, [slice(None)] * nd
    later[axis], earlier[axis] = slice(1, None), slice(None, -1)
    op = C.not_equal if a.dtype is D.bool else A.subtract
    for _ in range(n):
        a = op(a[tuple(later)], a[tuple(earlier)])
    return a


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    if dtype:
        dtype = result_type(dtype)
    return R.reduce_sum(diagonal(asarray(a, dtype), offset, axis1, axis2), -1)
