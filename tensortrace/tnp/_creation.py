"""TF-NumPy's array creation: zeros/ones/full/empty (and their ``_like`` forms), ranges
(arange, linspace, logspace, geomspace), eye/identity/tri, diagonals, vander, meshgrid, ix_.
Dtypes follow TF's tnp: a float default of ``result_type(float)`` (float64), ranges in the
NumPy result type of their bounds."""

import numpy as np

from .. import dtypes as D
from ..convert import convert_to_tensor
from ..ops.array import creation as _creation
from ..ops.array.broadcasting import broadcast_to
from ..ops.array.ranges import linspace as _linspace, range as _range
from ..ops.array.reshaping import expand_dims, reshape, transpose
from ..ops.array.shapes import shape as _shape
from ..ops.indexing.gathering import gather
from ..ops.linalg.diagonals import diag as _matrix_diag
from ..ops.math.arithmetic import floor, pow as _pow, sign
from ..ops.math.casting import cast
from ..ops.math.complex_numbers import real
from ..ops.math.select import where
from ._math import log10
from ._core import (array, as_shape_arg, asarray, default_float_type,
                    np_dtype, result_type, result_type_unary)


def _dtype_or_float(dtype):
    return result_type(dtype) if dtype else default_float_type()


def empty(shape, dtype=float):
    """``tnp.empty``: zeros (a tensor's memory is always initialized)."""
    return zeros(shape, dtype)


def empty_like(a, dtype=None):
    return zeros_like(a, dtype)


def zeros(shape, dtype=float):
    return _creation.zeros(as_shape_arg(shape), dtype=_dtype_or_float(dtype))


def ones(shape, dtype=float):
    return _creation.ones(as_shape_arg(shape), dtype=_dtype_or_float(dtype))


def zeros_like(a, dtype=None):
    dtype = D.as_dtype(result_type_unary(a, dtype))
    return _creation.zeros_like(asarray(a), dtype)


def ones_like(a, dtype=None):
    dtype = D.as_dtype(result_type_unary(a, dtype))
    return _creation.ones_like(asarray(a), dtype)


def full(shape, fill_value, dtype=None):
    shape = asarray(convert_to_tensor(as_shape_arg(shape), dtype_hint=D.int32))
    if shape.shape.rank == 0:
        shape = reshape(shape, [1])
    return broadcast_to(asarray(fill_value, dtype=dtype), shape)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    if order != "K":
        raise ValueError("Non-standard orders are not supported.")
    if not subok:
        raise ValueError("subok being False is not supported.")
    if shape:
        raise ValueError("Overriding the shape is not supported.")
    a = asarray(a)
    dtype = dtype or result_type(a)
    return broadcast_to(asarray(fill_value, dtype=dtype), _shape(a))


def arange(start, stop=None, step=1, dtype=None):
    """``tnp.arange``: dtype from ``dtype`` or NumPy's result type of the bounds (int64 for
    Python ints)."""
    if not step:
        raise ValueError("step must be non-zero.")
    if dtype:
        dtype = result_type(dtype)
    else:
        dtype = result_type(start, step) if stop is None else result_type(start, step, stop)
    if step > 0 and ((stop is not None and start > stop) or (stop is None and start < 0)):
        return array([], dtype=dtype)
    if step < 0 and ((stop is not None and start < stop) or (stop is None and start > 0)):
        return array([], dtype=dtype)
    return cast(_range(start, limit=stop, delta=step), dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    """``tnp.linspace``: ``num`` evenly spaced values; with NumPy 2 the computation dtype is the
    result type of ``start * 1.0`` and ``stop * 1.0`` (TF's rule)."""
    if dtype:
        dtype = result_type([start * 1.0, stop * 1.0])
    start = array(start, dtype=dtype)
    stop = array(stop, dtype=dtype)
    if num < 0:
        raise ValueError("Argument `num` (number of samples) must be a non-negative integer. "
                         f"Received: num={num}")
    step = convert_to_tensor(np.nan)
    if endpoint:
        result = _linspace(start, stop, num, axis=axis)
        if num > 1:
            step = (stop - start) / (num - 1)
    else:
        if num > 0:
            step = (stop - start) / num
        if num > 1:
            new_stop = cast(stop, step.dtype) - step
            result = _linspace(cast(start, new_stop.dtype), new_stop, num, axis=axis)
        else:
            result = _linspace(start, stop, num, axis=axis)
    if dtype:
        if dtype.is_integer:
            result = floor(result)
        result = cast(result, dtype)
    return (result, step) if retstep else result


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    dtype = result_type([start * 1.0, stop * 1.0])
    result = linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    result = _pow(cast(base, result.dtype), result)
    return cast(result, dtype) if dtype else result


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``tnp.geomspace``: a geometric progression, computed in the dtype's float type."""
    dtype = D.as_dtype(dtype) if dtype else result_type(start, stop, float(num),
                                                          zeros((), dtype))
    work = np.promote_types(np_dtype(dtype), np.float32)
    start, stop = asarray(start, dtype=work), asarray(stop, dtype=work)
    # Negative bounds: the progression of their magnitudes, its sign flipped back.
    start_sign = 1 - sign(real(start))
    stop_sign = 1 - sign(real(stop))
    flip = 1 - start_sign * stop_sign // 2
    res = flip * logspace(log10(flip * start), log10(flip * stop), num, endpoint=endpoint,
                          base=10.0, dtype=work, axis=0)
    if axis != 0:
        res = moveaxis_first(res, axis)
    return cast(res, dtype)


def moveaxis_first(a, axis):
    """Axis 0 of ``a`` moved to ``axis``."""
    rank = a.shape.rank
    axis = axis + rank if axis < 0 else axis
    perm = list(range(1, rank))
    perm.insert(axis, 0)
    return transpose(a, perm)


def eye(N, M=None, k=0, dtype=float):  # noqa: N803 - NumPy's argument names
    dtype = _dtype_or_float(dtype)
    M = int(M) if M else int(N)  # noqa: N806
    return convert_to_tensor(np.eye(int(N), M, int(k), dtype=np_dtype(dtype)), dtype)


def identity(n, dtype=float):
    return eye(N=n, M=n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):  # noqa: N803
    dtype = result_type(dtype) if dtype is not None else result_type(float)
    M = M if M is not None else N  # noqa: N806
    return convert_to_tensor(np.tri(int(N), int(M), int(k), dtype=np_dtype(dtype)), dtype)


def _triangle(m, k, name, lower):
    m = asarray(m)
    if m.shape.rank is None:
        raise ValueError(f"Argument to {name} should have known rank")
    dims = m.shape.as_list()
    if len(dims) < 2:
        raise ValueError(f"Argument to {name} must have rank at least 2")
    if dims[-1] is None or dims[-2] is None:
        raise ValueError("Currently, the last two dimensions of the input array need to be "
                         "known.")
    mask = np.tri(dims[-2], dims[-1], k if lower else k - 1, dtype=bool)
    zero = convert_to_tensor(0, m.dtype) if m.dtype is not D.string else convert_to_tensor(b"")
    mask = broadcast_to(mask, _shape(m))
    return where(mask, m, zero) if lower else where(mask, zero, m)


def tril(m, k=0):
    return _triangle(m, k, "tril", lower=True)


def triu(m, k=0):
    return _triangle(m, k, "triu", lower=False)


def diag(v, k=0):
    """``tnp.diag``: the matrix with diagonal ``k`` set to 1-D ``v``, or the ``k``-th diagonal
    of 2-D ``v``."""
    v = asarray(v)
    rank = v.shape.rank
    if rank not in (1, 2):
        raise ValueError(f"Shape must be at most rank 2 but is rank {rank}")
    if rank == 1:
        if v.shape.as_list()[0] == 0:
            return zeros([abs(k), abs(k)], dtype=v.dtype)
        return _matrix_diag(v, k=k)
    return diagonal(v, k)


def diagflat(v, k=0):
    return diag(reshape(asarray(v), [-1]), k)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """``tnp.diagonal``: the ``offset`` diagonal of the (axis1, axis2) planes, as the last axis."""
    a = asarray(a)
    rank = a.shape.rank
    axis1, axis2 = axis1 % rank, axis2 % rank
    rest = [i for i in range(rank) if i not in (axis1, axis2)]
    a = transpose(a, rest + [axis1, axis2])
    dims = a.shape.as_list()
    n, m = dims[-2], dims[-1]
    rows = np.arange(max(0, -offset), min(n, m - offset)) if n and m else np.arange(0)
    flat = reshape(a, [d if d is not None else -1 for d in dims[:-2]] + [n * m])
    return gather(flat, (rows * m + rows + offset).astype(np.int64), axis=-1)


def vander(x, N=None, increasing=False):  # noqa: N803
    x = asarray(x)
    if x.shape.rank != 1:
        raise ValueError("x must be a one-dimensional array")
    N = x.shape.as_list()[0] if N is None else int(N)  # noqa: N806
    if N < 0:
        raise ValueError("N must be nonnegative")
    powers = np.arange(N) if increasing else np.arange(N - 1, -1, -1)
    return _pow(expand_dims(x, -1), cast(powers, x.dtype))


def meshgrid(*xi, **kwargs):
    sparse = kwargs.get("sparse", False)
    if sparse:
        raise ValueError("Function `meshgrid` does not support returning sparse arrays yet. "
                         f"Received: sparse={sparse}")
    copy = kwargs.get("copy", True)
    if not copy:
        raise ValueError(f"Function `meshgrid` only supports copy=True. Received: copy={copy}")
    return _creation.meshgrid(*[asarray(x) for x in xi], indexing=kwargs.get("indexing", "xy"))


def ix_(*args):
    """``tnp.ix_``: open meshes of 1-D integer (or bool) index arrays."""
    out = []
    for i, a in enumerate(args):
        a = asarray(a)
        if a.shape.rank != 1:
            raise ValueError(f"Arguments must be 1-d, got arg {i} of rank {a.shape.rank}")
        shape = [1] * len(args)
        shape[i] = -1
        if a.dtype is D.bool:
            out.append(reshape(convert_to_tensor(np.nonzero(np.asarray(a))[0]), shape))
        elif a.dtype.is_integer:
            out.append(reshape(a, shape))
        else:
            raise ValueError(f"Only integer and bool dtypes are supported, got {a.dtype}")
    return out


__all__ = ["empty", "empty_like", "zeros", "zeros_like", "ones", "ones_like", "full",
           "full_like", "arange", "linspace", "logspace", "geomspace", "eye", "identity", "tri",
           "tril", "triu", "diag", "diagflat", "diagonal", "vander", "meshgrid", "ix_"]
