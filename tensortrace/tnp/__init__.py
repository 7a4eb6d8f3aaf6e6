"""``tf.experimental.numpy`` (``import tensorflow.experimental.numpy as tnp``): NumPy's API on
tensors, with TF-NumPy's dtype rules. Every function takes tensors, NumPy arrays and Python
values and returns ``tf.Tensor`` (``tnp.ndarray``); they are built from the public ops, so
they trace in ``tf.function`` and differentiate under ``GradientTape``."""

# ruff: noqa: F401  (this module re-exports TF-NumPy's names)

import math as _pymath

import numpy as _np

from ..ops.array.ranges import range as _range
from ..ops.array.shapes import size as _shape_size
from ..tensor import Tensor as ndarray
from . import random
from ._core import array, asarray, np_dtype as _np_dtype, result_type
from ._behavior import experimental_enable_numpy_behavior
from ._creation import (arange, diag, diagflat, diagonal, empty, empty_like, eye, full, full_like,
                        geomspace, identity, ix_, linspace, logspace, meshgrid, ones, ones_like,
                        tri, tril, triu, vander, zeros, zeros_like)
from ._math import (abs, absolute, add, allclose, angle, arccos, arccosh, arcsin, arcsinh, arctan,
                    arctan2, arctanh, around, array_equal, bitwise_and, bitwise_not, bitwise_or,
                    bitwise_xor, cbrt, ceil, clip, conj, conjugate, cos, cosh, deg2rad, divide,
                    divmod, equal, exp, exp2, expm1, fabs, fix, float_power, floor, floor_divide,
                    gcd, greater, greater_equal, heaviside, hypot, imag, iscomplex, iscomplexobj,
                    isclose, isfinite, isinf, isnan, isneginf, isposinf, isreal, isrealobj, lcm,
                    less, less_equal, log, log10, log1p, log2, logaddexp, logaddexp2, logical_and,
                    logical_not, logical_or, logical_xor, maximum, minimum, mod, multiply,
                    negative, nextafter, not_equal, positive, power, rad2deg, real, reciprocal,
                    remainder, round, sign, signbit, sin, sinc, sinh, sqrt, square, subtract, tan,
                    tanh, true_divide)
from ._reductions import (all, amax, amin, any, argmax, argmin, average, count_nonzero, cumprod,
                          cumsum, diff, max, mean, min, nanmean, nanprod, nansum, prod, ptp, std,
                          sum, trace, var)
from ._selection import (argsort, compress, cross, dot, einsum, inner, kron, matmul, nonzero,
                         outer, polyval, select, sort, take, take_along_axis, tensordot, vdot,
                         where)
from ._shaping import (append, atleast_1d, atleast_2d, atleast_3d, broadcast_arrays,
                       broadcast_to, concatenate, dsplit, dstack, expand_dims, flatten, flip,
                       fliplr, flipud, hsplit, hstack, moveaxis, pad, ravel, repeat, reshape, roll,
                       rot90, split, squeeze, stack, swapaxes, tile, transpose, vsplit, vstack)

# NumPy's scalar types, as TF-NumPy exports them.
bool_, int_, object_, inexact = _np.bool_, _np.int_, _np.object_, _np.inexact
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64, float_ = _np.float16, _np.float32, _np.float64, _np.float64
complex64, complex128, complex_ = _np.complex64, _np.complex128, _np.complex128
string_, unicode_ = _np.bytes_, _np.str_

e, pi, inf = _pymath.e, _pymath.pi, float("inf")
newaxis = None

iinfo = _np.iinfo
issubdtype = _np.issubdtype


def finfo(dtype):
    """NumPy's finfo of ``dtype`` (a TF DType, NumPy type or name)."""
    return _np.finfo(_np_dtype(dtype))


def promote_types(type1, type2):
    """NumPy's promotion of two dtypes (TF DTypes accepted)."""
    return _np.promote_types(_np_dtype(type1), _np_dtype(type2))


def asanyarray(a, dtype=None):
    return asarray(a, dtype)


def ascontiguousarray(a, dtype=None):
    return array(a, dtype, ndmin=1)


def copy(a):
    return array(a, copy=True)


def shape(a):
    return asarray(a).shape


def ndim(a):
    return asarray(a).shape.ndims


def isscalar(num):
    return ndim(num) == 0


def size(x, axis=None):
    if axis is not None:
        raise NotImplementedError("axis argument is not supported in the current `_np.size` "
                                  "implementation")
    if isinstance(x, (int, float, _np.int32, _np.int64, _np.float32, _np.float64)):
        return 1
    x = asarray(x)
    if x.shape.is_fully_defined():
        return _np.prod(x.shape.as_list(), dtype=int)
    return _shape_size(x)


def diag_indices(n, ndim=2):  # noqa: F811 - NumPy's argument name
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (_range(n),) * ndim

