"""Norms: tf.norm (vector and matrix norms) and l2_normalize, each fused into one op."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...messages import attr_dtype_error
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec
from .._base import NUMERIC, check_dtypes, dtypes_named
from .._args import axis_attr, float_arg, static_attr
from ...numerics import via_float32

# the dtypes of TF's Sqrt and Rsqrt, which the norms built from them take
_SQRT_T = dtypes_named("bfloat16 float16 float32 float64 complex64 complex128")
_MATRIX_ORDS = ("euclidean", "fro", 1, 2, np.inf)


def _norm_args(rank, ord, axis):
    """Validate tf.norm's ``ord``/``axis`` as TF does; returns (axis tuple or None, is_matrix)."""
    if axis is not None:
        axis = static_attr(axis, "norm axis")
    is_matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if is_matrix:
        axis = axis_attr(axis, rank, reduction="Sum")
        if axis[0] == axis[1] or (rank is not None and axis[0] % rank == axis[1] % rank):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, "
                             f"got {axis}")
        if ord not in _MATRIX_ORDS or isinstance(ord, bool):
            raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, "
                             f"inf], got {ord}")
        return axis, True
    if axis is not None and (not isinstance(axis, (int, np.integer)) or isinstance(axis, bool)):
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got "
                         f"{axis}")
    supported = ord in ("euclidean", 1, 2, np.inf) or (
        not isinstance(ord, (str, bool)) and isinstance(ord, (int, float)) and ord > 0)
    if not supported:
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    return axis_attr(axis, rank, reduction="Sum"), False


def _norm_dtype(dtype, ord, is_matrix):
    """TF's euclidean norms of complex tensors stay complex; the others are real."""
    if ord in ("euclidean", "fro") or (ord == 2 and not is_matrix):
        return dtype
    return dtype.real_dtype


def _norm_axes(rank, axis):
    return tuple(range(rank)) if axis is None else tuple(a % rank for a in axis)


def _vector_norm(x, ord, axes):
    with np.errstate(all="ignore"):
        if ord in ("euclidean", 2):
            return np.sqrt(np.sum(x * np.conj(x), axis=axes, keepdims=True))
        a = np.abs(x)
        if ord == 1:
            return np.sum(a, axis=axes, keepdims=True)
        if ord == np.inf:
            return np.max(a, axis=axes, keepdims=True, initial=a.dtype.type(0))
        p = a.dtype.type(ord)
        return np.power(np.sum(np.power(a, p), axis=axes, keepdims=True), a.dtype.type(1) / p)


def _matrix_norm(x, ord, axes):
    r, c = axes
    with np.errstate(all="ignore"):
        if ord in ("euclidean", "fro"):
            return np.sqrt(np.sum(x * np.conj(x), axis=axes, keepdims=True))
        a = np.abs(x)
        if ord == 1:
            return np.max(np.sum(a, axis=r, keepdims=True), axis=c, keepdims=True)
        if ord == np.inf:
            return np.max(np.sum(a, axis=c, keepdims=True), axis=r, keepdims=True)
        m = np.moveaxis(x, (r, c), (-2, -1))
        s = via_float32(lambda v: np.linalg.svd(v, compute_uv=False), m)
        return np.expand_dims(np.max(s, axis=-1), tuple(sorted(axes)))


@define_op("Norm")
class Norm:
    """tf.norm fused into one op (TF builds it from Mul/Sum/Sqrt, Abs/Max or Svd)."""

    def infer(x, ord, axis, keepdims, is_matrix):
        check_dtypes("Norm", (x,), NUMERIC if ord in (1, np.inf) else _SQRT_T)
        dtype = _norm_dtype(x.dtype, ord, is_matrix)
        if x.shape.rank is None:
            return TensorSpec(None, dtype)
        dims = x.shape.dims
        axes = _norm_axes(len(dims), axis)
        if keepdims:
            return TensorSpec([1 if i in axes else d for i, d in enumerate(dims)], dtype)
        return TensorSpec([d for i, d in enumerate(dims) if i not in axes], dtype)

    def kernel(x, ord, axis, keepdims, is_matrix):
        dtype = D.from_numpy(x.dtype)
        if ord not in (1, np.inf) and dtype not in _SQRT_T:  # TF fails in its Sqrt op
            raise attr_dtype_error(None, "T", dtype, _SQRT_T)  # bind names the op
        axes = _norm_axes(x.ndim, axis)
        out = _matrix_norm(x, ord, axes) if is_matrix else _vector_norm(x, ord, axes)
        if not keepdims:
            out = np.squeeze(out, axis=axes)
        return np.asarray(out).astype(_norm_dtype(dtype, ord, is_matrix)._np, copy=False)


@tf_export("norm", "linalg.norm")
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):
    """The vector or matrix norm of ``tensor`` over ``axis`` (all of it when None).

    Raises:
        ValueError: for unsupported ``ord``/``axis`` combinations, as TF.
    """
    keepdims = bool(keepdims if keepdims is not None else keep_dims)
    x = convert_to_tensor(tensor)
    axis, is_matrix = _norm_args(x.shape.rank, ord, axis)
    ord = ord if isinstance(ord, str) else (float(ord) if ord == np.inf else ord)
    return bind(Norm, x, ord=ord, axis=axis, keepdims=keepdims, is_matrix=is_matrix)


@define_op("L2Normalize")
class L2Normalize:
    """x / sqrt(max(sum(|x|^2, axis), epsilon)): tf.math.l2_normalize fused into one op (TF
    builds it from Square/Sum/Maximum/Rsqrt, so its dtype errors name Rsqrt)."""

    check = DtypeCheck("Rsqrt", _SQRT_T, same=1)

    def infer(x, axis, epsilon):
        check_dtypes("Rsqrt", (x,), _SQRT_T)
        return TensorSpec(x.shape, x.dtype)

    def kernel(x, axis, epsilon):
        real = x.real if x.dtype.kind == "c" else x
        imag = x.imag if x.dtype.kind == "c" else None
        square_sum = np.sum(real * real if imag is None else real * real + imag * imag,
                            axis=axis, keepdims=True)
        with np.errstate(all="ignore"):
            inv = np.reciprocal(np.sqrt(np.maximum(square_sum, real.dtype.type(epsilon))))
        return (x * inv).astype(x.dtype, copy=False)


@tf_export("math.l2_normalize", "nn.l2_normalize", "linalg.l2_normalize")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """Scale ``x`` to unit L2 norm along ``axis`` (all axes when None).

    Raises:
        TypeError: for integer ``x`` (epsilon cannot be converted to it, as in TF).
    """
    x = convert_to_tensor(x)
    axis = dim if axis is None else axis
    if x.dtype.is_integer or x.dtype.is_bool:
        raise TypeError(f"Cannot convert {epsilon!r} to EagerTensor of dtype {x.dtype.name}")
    axis = axis_attr(axis, x.shape.rank, reduction="Sum")
    if axis is not None and x.shape.rank is not None:
        axis = tuple(a % max(x.shape.rank, 1) for a in axis)
    return bind(L2Normalize, x, axis=axis, epsilon=float_arg(epsilon, "epsilon"))
