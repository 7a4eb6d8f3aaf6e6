"""Matrix decompositions and solvers on LAPACK: inverse, determinants, eigendecomposition, QR,
solve, Cholesky and the singular value decomposition."""

import collections

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec
from .._base import check_dtypes, dtypes_named
from ...numerics import via_float32
from ...messages import shape_fn_error
from ._util import matrix_t, rank_error, same_dim

_LINALG_T = dtypes_named("float64 float32 float16 complex64 complex128")
_DET_T = dtypes_named("float16 float32 float64 complex64 complex128")


def _square_infer(op_name, x, attrs, names=("input",)):
    """(dims of x's square matrices, or None when x's rank is unknown; x's dtype)."""
    dtype = check_dtypes(op_name, (x,), _LINALG_T if op_name != "MatrixDeterminant" else _DET_T)
    dims = x.shape.dims
    if dims is None:
        return None, dtype
    if len(dims) < 2:
        raise rank_error(op_name, "at least rank 2", len(dims), dtype, attrs, (x,), names)
    if not same_dim(dims[-1], dims[-2]):
        raise shape_fn_error(op_name, f"Dimensions must be equal, but are {dims[-2]} and "
                             f"{dims[-1]}", dtype, attrs, (x,), names)
    n = dims[-1] if dims[-1] is not None else dims[-2]
    return dims[:-2] + [n, n], dtype


def _lapack_input(x):
    """``x`` as LAPACK takes it: float16 widened to float32 (the caller casts the results
    back); other dtypes as they are, without a copy."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _check_rank(x):
    if x.ndim < 2:
        raise invalid_argument(f"Input tensor 0 must have rank >= 2, got {x.ndim}")


def _check_square(x):
    _check_rank(x)
    if x.shape[-1] != x.shape[-2]:
        raise invalid_argument("Input matrix must be square.")


@define_op("MatrixInverse")
class MatrixInverse:
    """The inverse of each innermost square matrix (of its adjoint when ``adjoint``)."""

    check = DtypeCheck("MatrixInverse", _LINALG_T, same=1)

    def infer(x, adjoint=False):
        shape, dtype = _square_infer("MatrixInverse", x, {"adjoint": adjoint})
        return TensorSpec(shape, dtype)

    def kernel(x, adjoint=False):
        _check_square(x)
        m = matrix_t(x, True) if adjoint else x
        try:
            return via_float32(np.linalg.inv, m)
        except np.linalg.LinAlgError:
            raise invalid_argument("Input is not invertible.") from None


@tf_export("linalg.inv")
def inv(input, adjoint=False, name=None):
    """The inverse of each innermost square matrix.

    Raises:
        InvalidArgumentError: "Input is not invertible." for singular matrices.
    """
    return bind(MatrixInverse, convert_to_tensor(input), adjoint=bool(adjoint))


@define_op("MatrixDeterminant")
class MatrixDeterminant:
    """The determinant of each innermost square matrix."""

    # TF's OpDef allows float16, but no CPU kernel handles it (NotFoundError)
    check = DtypeCheck("MatrixDeterminant", _DET_T, same=1,
                       kernels=[d for d in _DET_T if d != D.float16])

    def infer(x):
        shape, dtype = _square_infer("MatrixDeterminant", x, {})
        return TensorSpec(None if shape is None else shape[:-2], dtype)

    def kernel(x):
        _check_square(x)
        return np.asarray(np.linalg.det(x)).astype(x.dtype)


@tf_export("linalg.det")
def det(input, name=None):
    """The determinant of each innermost square matrix."""
    return bind(MatrixDeterminant, convert_to_tensor(input))


_LogDet = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


@define_op("LogMatrixDeterminant")
class LogMatrixDeterminant:
    """(sign, log|det|) of each innermost square matrix: no overflow for large matrices."""

    check = DtypeCheck("LogMatrixDeterminant", _LINALG_T, same=1)

    def infer(input):
        shape, dtype = _square_infer("LogMatrixDeterminant", input, {})
        out = None if shape is None else shape[:-2]
        return TensorSpec(out, dtype), TensorSpec(out, dtype)

    def kernel(input):
        _check_square(input)
        sign, logdet = np.linalg.slogdet(_lapack_input(input))
        return (np.asarray(sign).astype(input.dtype), np.asarray(logdet).astype(input.dtype))


@tf_export("linalg.slogdet")
def slogdet(input, name=None):
    """(sign, log|det|) of each innermost square matrix."""
    return _LogDet(*bind(LogMatrixDeterminant, convert_to_tensor(input)))


_Eigh = collections.namedtuple("SelfAdjointEigV2", ["e", "v"])


@define_op("SelfAdjointEigV2")
class SelfAdjointEigV2:
    """Eigenvalues (ascending) and, when ``compute_v``, eigenvectors of each innermost
    self-adjoint matrix, read from its lower triangle."""

    check = DtypeCheck("SelfAdjointEigV2", _LINALG_T, same=1)

    def infer(input, compute_v=True):
        shape, dtype = _square_infer("SelfAdjointEigV2", input, {"compute_v": compute_v})
        real = dtype.real_dtype
        if shape is None:
            return TensorSpec(None, real), TensorSpec(None, dtype)
        return TensorSpec(shape[:-1], real), TensorSpec(shape if compute_v else [0], dtype)

    def kernel(input, compute_v=True):
        _check_square(input)
        real = np.finfo(input.dtype).dtype if input.dtype.kind == "c" else input.dtype
        if compute_v:
            e, v = np.linalg.eigh(_lapack_input(input), UPLO="L")
            return e.astype(real), v.astype(input.dtype)
        e = np.linalg.eigvalsh(_lapack_input(input), UPLO="L")
        return e.astype(real), np.zeros([0], input.dtype)


@tf_export("linalg.eigh")
def eigh(tensor, name=None):
    """(eigenvalues, eigenvectors) of each innermost self-adjoint matrix."""
    return _Eigh(*bind(SelfAdjointEigV2, convert_to_tensor(tensor), compute_v=True))


@tf_export("linalg.eigvalsh")
def eigvalsh(tensor, name=None):
    """The eigenvalues (ascending) of each innermost self-adjoint matrix."""
    return bind(SelfAdjointEigV2, convert_to_tensor(tensor), compute_v=False)[0]


_Qr = collections.namedtuple("Qr", ["q", "r"])


@define_op("Qr")
class Qr:
    """The QR factorisation (Householder, as TF's) of each innermost matrix: ``full_matrices``
    gives a square q."""

    check = DtypeCheck("Qr", _LINALG_T, same=1)

    def infer(input, full_matrices=False):
        dtype = check_dtypes("Qr", (input,), _LINALG_T)
        dims = input.shape.dims
        if dims is None:
            return TensorSpec(None, dtype), TensorSpec(None, dtype)
        if len(dims) < 2:
            raise rank_error("Qr", "at least rank 2", len(dims), dtype,
                             {"full_matrices": full_matrices}, (input,))
        *batch, m, n = dims
        k = None if m is None or n is None else min(m, n)
        if full_matrices:
            return TensorSpec(batch + [m, m], dtype), TensorSpec(batch + [m, n], dtype)
        return TensorSpec(batch + [m, k], dtype), TensorSpec(batch + [k, n], dtype)

    def kernel(input, full_matrices=False):
        _check_rank(input)
        q, r = np.linalg.qr(_lapack_input(input), mode="complete" if full_matrices else "reduced")
        return q.astype(input.dtype), r.astype(input.dtype)


@tf_export("linalg.qr", "qr")
def qr(input, full_matrices=False, name=None):
    """(q, r) with input = q @ r, q orthonormal and r upper-triangular, per innermost matrix."""
    return _Qr(*bind(Qr, convert_to_tensor(input), full_matrices=bool(full_matrices)))


@define_op("MatrixSolve")
class MatrixSolve:
    """X with matrix @ X = rhs (adjoint(matrix) @ X = rhs when ``adjoint``), batched."""

    check = DtypeCheck("MatrixSolve", _LINALG_T, same=2)

    def infer(matrix, rhs, adjoint=False):
        dtype = check_dtypes("MatrixSolve", (matrix, rhs), _LINALG_T, ("matrix", "rhs"))
        attrs, names = {"adjoint": adjoint}, ("matrix", "rhs")
        shape, _ = _square_infer("MatrixSolve", matrix, attrs, names)
        rdims = rhs.shape.dims
        if shape is None or rdims is None:
            return TensorSpec(None if rdims is None else rdims, dtype)
        if len(rdims) != len(shape):
            raise rank_error("MatrixSolve", f"rank {len(shape)}", len(rdims), dtype, attrs,
                             (matrix, rhs), names)
        out = []
        for x, y in zip(shape[:-1], rdims[:-1]):
            if not same_dim(x, y):
                raise shape_fn_error("MatrixSolve", f"Dimensions must be equal, but are {x} and "
                                     f"{y}", dtype, attrs, (matrix, rhs), names)
            out.append(x if x is not None else y)
        return TensorSpec(out + [rdims[-1]], dtype)

    def kernel(matrix, rhs, adjoint=False):
        _check_square(matrix)
        if rhs.ndim != matrix.ndim:
            raise invalid_argument("All input tensors must have the same rank.")
        if rhs.shape[:-2] != matrix.shape[:-2]:
            raise invalid_argument("All input tensors must have the same outer dimensions.")
        if rhs.shape[-2] != matrix.shape[-2]:
            raise invalid_argument("Input matrix and rhs are incompatible.")
        m = matrix_t(matrix, True) if adjoint else matrix
        try:
            return via_float32(np.linalg.solve, m, rhs)
        except np.linalg.LinAlgError:
            raise invalid_argument("Input matrix is not invertible.") from None


@tf_export("linalg.solve")
def solve(matrix, rhs, adjoint=False, name=None):
    """Solve ``matrix @ X = rhs`` for X (batch dims must match exactly, as in TF)."""
    matrix = convert_to_tensor(matrix)
    return bind(MatrixSolve, matrix, convert_to_tensor(rhs, dtype_hint=matrix.dtype),
                adjoint=bool(adjoint))


@define_op("Cholesky")
class Cholesky:
    """The lower Cholesky factor of each innermost matrix (only its lower triangle is read)."""

    check = DtypeCheck("Cholesky", _LINALG_T, same=1)

    def infer(x):
        shape, dtype = _square_infer("Cholesky", x, {})
        return TensorSpec(shape, dtype)

    def kernel(x):
        _check_square(x)
        try:
            return via_float32(np.linalg.cholesky, x)
        except np.linalg.LinAlgError:
            raise invalid_argument("Cholesky decomposition was not successful. The input might "
                                   "not be valid.") from None


@tf_export("linalg.cholesky")
def cholesky(input, name=None):
    """The lower-triangular Cholesky factor of each innermost Hermitian matrix."""
    return bind(Cholesky, convert_to_tensor(input))


@define_op("Svd")
class Svd:
    """Singular values (descending) and, when ``compute_uv``, the left and right singular
    vectors of each innermost matrix: input = u @ diag(s) @ adjoint(v) (v not transposed)."""

    check = DtypeCheck("Svd", _LINALG_T, same=1)

    def infer(input, compute_uv=True, full_matrices=False):
        dtype = check_dtypes("Svd", (input,), _LINALG_T)
        real = dtype.real_dtype
        dims = input.shape.dims
        if dims is None:
            return TensorSpec(None, real), TensorSpec(None, dtype), TensorSpec(None, dtype)
        if len(dims) < 2:
            raise rank_error("Svd", "at least rank 2", len(dims), dtype,
                             {"compute_uv": compute_uv, "full_matrices": full_matrices},
                             (input,))
        *batch, m, n = dims
        k = None if m is None or n is None else min(m, n)
        if not compute_uv:
            return TensorSpec(batch + [k], real), TensorSpec([0], dtype), TensorSpec([0], dtype)
        cols_u, cols_v = (m, n) if full_matrices else (k, k)
        return (TensorSpec(batch + [k], real), TensorSpec(batch + [m, cols_u], dtype),
                TensorSpec(batch + [n, cols_v], dtype))

    def kernel(input, compute_uv=True, full_matrices=False):
        _check_rank(input)
        real = np.finfo(input.dtype).dtype if input.dtype.kind == "c" else input.dtype
        *batch, m, n = input.shape
        k = min(m, n)
        if not compute_uv:
            if input.size == 0:
                return np.zeros(batch + [k], real), np.zeros([0], input.dtype), \
                    np.zeros([0], input.dtype)
            s = np.linalg.svd(_lapack_input(input), compute_uv=False)
            return s.astype(real), np.zeros([0], input.dtype), np.zeros([0], input.dtype)
        if input.size == 0:  # LAPACK takes no empty matrices: the identity's columns
            cu, cv = (m, n) if full_matrices else (k, k)
            u = np.broadcast_to(np.eye(m, cu, dtype=input.dtype), batch + [m, cu]).copy()
            v = np.broadcast_to(np.eye(n, cv, dtype=input.dtype), batch + [n, cv]).copy()
            return np.zeros(batch + [k], real), u, v
        u, s, vh = np.linalg.svd(_lapack_input(input), full_matrices=full_matrices)
        v = np.conj(np.swapaxes(vh, -1, -2))
        return s.astype(real), u.astype(input.dtype), v.astype(input.dtype)


@tf_export("linalg.svd")
def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """(s, u, v) of each innermost matrix, tensor = u @ diag(s) @ adjoint(v); only s when not
    ``compute_uv``. Singular vectors are unique up to sign (phase), which may differ from TF's."""
    out = bind(Svd, convert_to_tensor(tensor), compute_uv=bool(compute_uv),
               full_matrices=bool(full_matrices))
    return tuple(out) if compute_uv else out[0]


_LU_T = dtypes_named("float64 float32 float16 complex64 complex128")
_Lu = collections.namedtuple("Lu", ["lu", "p"])


def _lu_one(a):
    """Partial-pivoting LU of one square matrix (the largest |pivot| first, as TF's Eigen):
    (L below the diagonal, U on and above it, the row permutation)."""
    a = a.copy()
    n = a.shape[0]
    perm = np.arange(n)
    for k in range(n):
        pivot = k + int(np.argmax(np.abs(a[k:, k])))
        if a[pivot, k] == 0:
            raise invalid_argument("Input is not invertible.")
        if pivot != k:
            a[[k, pivot]] = a[[pivot, k]]
            perm[[k, pivot]] = perm[[pivot, k]]
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a, perm


@define_op("Lu")
class Lu:
    """The LU factors (packed) and row permutation ``p`` of each innermost square matrix:
    ``gather(input, p) = L @ U``."""

    check = DtypeCheck("Lu", _LU_T, same=1)

    def infer(input, output_idx_type=D.int32):
        shape, dtype = _square_infer("Lu", input, {"output_idx_type": output_idx_type})
        if shape is None:
            return TensorSpec(None, dtype), TensorSpec(None, output_idx_type)
        return TensorSpec(shape, dtype), TensorSpec(shape[:-1], output_idx_type)

    def kernel(input, output_idx_type=D.int32):
        _check_square(input)
        x = _lapack_input(input)
        flat = x.reshape((-1,) + x.shape[-2:])
        lus, perms = zip(*(_lu_one(m) for m in flat)) if len(flat) else ((), ())
        lu = np.array(lus, x.dtype).reshape(x.shape).astype(input.dtype)
        perm = np.array(perms, output_idx_type._np).reshape(x.shape[:-1])
        return lu, perm


@tf_export("linalg.lu")
def lu(input, output_idx_type=D.int32, name=None):
    """(lu, p): the packed LU factors and the row permutation of each innermost matrix."""
    out = bind(Lu, convert_to_tensor(input), output_idx_type=D.as_dtype(output_idx_type))
    return _Lu(*out)


_EIG_T = dtypes_named("float32 float64 complex64 complex128")


@define_op("Eig")
class Eig:
    """Eigenvalues and (when ``compute_v``) unit eigenvectors of general square matrices, as
    complex ``Tout``."""

    check = DtypeCheck("Eig", _EIG_T, same=1)

    def infer(input, Tout, compute_v=True):
        shape, _ = _square_infer("Eig", input, {"Tout": Tout, "compute_v": compute_v})
        if shape is None:
            return TensorSpec(None, Tout), TensorSpec(None, Tout)
        return TensorSpec(shape[:-1], Tout), TensorSpec(shape if compute_v else [0], Tout)

    def kernel(input, Tout, compute_v=True):
        _check_square(input)
        if compute_v:
            e, v = np.linalg.eig(input)
            return e.astype(Tout._np), v.astype(Tout._np)
        return np.linalg.eigvals(input).astype(Tout._np), np.zeros([0], Tout._np)


def _eig_out(x):
    return D.complex128 if x.dtype in (D.float64, D.complex128) else D.complex64


@tf_export("linalg.eig", "eig")
def eig(tensor, name=None):
    """(eigenvalues, eigenvectors) of each innermost square matrix, complex."""
    x = convert_to_tensor(tensor)
    return tuple(bind(Eig, x, Tout=_eig_out(x), compute_v=True))


@tf_export("linalg.eigvals", "eigvals")
def eigvals(tensor, name=None):
    """The eigenvalues of each innermost square matrix, complex."""
    x = convert_to_tensor(tensor)
    return bind(Eig, x, Tout=_eig_out(x), compute_v=False)[0]
