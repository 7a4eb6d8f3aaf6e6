"""Linear algebra composed from the family's ops and public ones (differentiable through them):
logdet, set_diag, cross, triangular_solve, lstsq, pinv and matrix_rank."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from .._args import int_arg
from ..array.creation import eye, fill, ones_like
from ..array.joining import stack
from ..array.reshaping import expand_dims
from ..array.shapes import shape
from ..math.arithmetic import maximum
from ..math.casting import cast
from ..math.complex_numbers import real
from ..math.select import where
from ..math.transcendental import log
from ..reduce import reduce_max, reduce_sum
from .decompositions import MatrixSolve, cholesky, svd
from .diagonals import band_part, diag, diag_part
from .products import matmul


@tf_export("linalg.logdet")
def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive definite matrices, via the Cholesky factor (as
    TF computes it)."""
    chol = cholesky(matrix)
    return 2.0 * reduce_sum(log(real(diag_part(chol))), axis=[-1])


@tf_export("linalg.set_diag", "linalg.matrix_set_diag")
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):
    """``input`` with its main diagonal replaced by ``diagonal``."""
    if int_arg(k, "k") != 0:
        raise NotImplementedError("tf.linalg.set_diag with k != 0")
    x = convert_to_tensor(input)
    d = convert_to_tensor(diagonal, x.dtype)
    rows, cols = shape(x)[-2], shape(x)[-1]
    mask = diag(ones_like(d, D.bool), num_rows=rows, num_cols=cols, padding_value=False)
    return where(mask, diag(d, num_rows=rows, num_cols=cols), x)


@tf_export("linalg.cross")
def cross(a, b, name=None):
    """The cross product of 3-vectors along the last axis (broadcasting the rest)."""
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, a.dtype)
    if a.shape.rank == 0 or b.shape.rank == 0:
        raise ValueError("tf.linalg.cross needs tensors of rank >= 1 (3-vectors), got shapes "
                         f"{a.shape} and {b.shape}")
    if a.shape.rank is not None and a.shape[-1] not in (None, 3):
        raise ValueError(f"Dimension must be 3 but is {a.shape[-1]} for '{{{{node Cross}}}}'")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


@tf_export("linalg.triangular_solve")
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with triangular(matrix) @ X = rhs, reading only the ``lower`` (or upper) triangle."""
    matrix = convert_to_tensor(matrix)
    rhs = convert_to_tensor(rhs, matrix.dtype)
    tri = band_part(matrix, -1, 0) if lower else band_part(matrix, 0, -1)
    return bind(MatrixSolve, tri, rhs, adjoint=bool(adjoint))


@tf_export("linalg.lstsq")
def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """Least-squares solutions of matrix @ X = rhs by the regularised normal equations (TF's
    ``fast`` path, used for both settings)."""
    a = convert_to_tensor(matrix)
    b = convert_to_tensor(rhs, a.dtype)
    for t, what in ((a, "matrix"), (b, "rhs")):
        if t.shape.rank is not None and t.shape.rank < 2:
            raise ValueError(f"`{what}` must have rank >= 2, got shape {t.shape}")
    rows, cols = a.shape[-2], a.shape[-1]
    if rows is None or cols is None:
        raise NotImplementedError("tf.linalg.lstsq needs static matrix dimensions")
    l2 = convert_to_tensor(l2_regularizer, a.dtype)
    if rows >= cols:
        gram = matmul(a, a, adjoint_a=True) + l2 * eye(cols, dtype=a.dtype)
        return bind(MatrixSolve, gram, matmul(a, b, adjoint_a=True), adjoint=False)
    gram = matmul(a, a, adjoint_b=True) + l2 * eye(rows, dtype=a.dtype)
    return matmul(a, bind(MatrixSolve, gram, b, adjoint=False), adjoint_a=True)


def _max_dim(a):
    """max(rows, cols) of ``a``'s matrices: a Python int when known, else a tensor."""
    rows, cols = a.shape.dims[-2:] if a.shape.rank is not None else (None, None)
    if rows is not None and cols is not None:
        return max(rows, cols)
    dims = shape(a)
    return maximum(dims[-2], dims[-1])


@tf_export("linalg.pinv")
def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse, from the SVD: singular values at most ``rcond`` times
    the largest are dropped (default ``rcond``: 10 * max(rows, cols) * eps, as TF)."""
    a = convert_to_tensor(a)
    if a.dtype not in (D.float32, D.float64):
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
    if a.shape.rank is not None and a.shape.rank < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {a.shape.rank}).")
    eps = float(np.finfo(a.dtype.as_numpy_dtype).eps)
    if rcond is None:
        rcond = 10.0 * cast(_max_dim(a), a.dtype) * eps
    rcond = convert_to_tensor(rcond, a.dtype)
    s, u, v = svd(a, full_matrices=False, compute_uv=True)
    cutoff = rcond * reduce_max(s, axis=-1)
    s = where(s > expand_dims(cutoff, -1), s, fill(shape(s), np.array(np.inf, a.dtype._np)))
    return matmul(v / expand_dims(s, -2), u, adjoint_b=True)


@tf_export("linalg.matrix_rank")
def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above ``tol`` (default: eps * max(rows, cols) times the
    largest singular value), as int32."""
    a = convert_to_tensor(a)
    s = svd(a, compute_uv=False)
    if tol is None:
        eps = float(np.finfo(a.dtype.as_numpy_dtype).eps)
        tol = eps * cast(_max_dim(a), a.dtype) * reduce_max(s, axis=-1, keepdims=True)
    else:
        tol = convert_to_tensor(tol, a.dtype)
    return reduce_sum(cast(s > tol, D.int32), axis=-1)
