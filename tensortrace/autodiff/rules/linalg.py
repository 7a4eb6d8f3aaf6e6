"""Gradients of the linear-algebra ops, after TF's linalg_grad.py and math_grad.py (MatMul);
tf.norm is differentiated through its composition from reductions, as TF builds it."""

import numpy as np

from ...ops.array.creation import eye, zeros_like
from ...ops.array.joining import concat
from ...ops.array.reshaping import expand_dims, squeeze, transpose
from ...ops.array.shapes import shape
from ...ops.array.ranges import one_hot
from ...ops.linalg.composites import set_diag, triangular_solve
from ...ops.linalg.decompositions import eig, eigh, inv, solve, svd
from ...ops.linalg.diagonals import (adjoint, band_part, diag, diag_part, matrix_transpose,
                                     tensor_diag, tensor_diag_part)
from ...ops.linalg.products import matmul, tensordot
from ...ops.math.arithmetic import abs, maximum, pow, reciprocal, square
from ...ops.math.casting import cast
from ...ops.math.compare import less
from ...ops.math.complex_numbers import conj, real
from ...ops.math.select import where
from ...ops.math.transcendental import sqrt
from ...ops.reduce import reduce_max, reduce_sum
from ..grad_util import register_gradients, skip, unbroadcast, via_composite


# --- products ------------------------------------------------------------------------------------
def _product_grads(dy, x, y, tx, ty, product):
    """TF's gradients of x and y in a product of x and y transposed as ``tx``/``ty``, each a
    product of dy with the other operand: ``product(p, q, tp, tq)`` multiplies p and q
    transposed (or adjoined) as ``tp``/``tq``."""
    if not tx and not ty:
        return product(dy, y, False, True), product(x, dy, True, False)
    if not tx:
        return product(dy, y, False, False), product(dy, x, True, False)
    if not ty:
        return product(y, dy, False, True), product(x, dy, False, False)
    return product(y, dy, True, True), product(dy, x, True, True)


def _matmul(op, dy):
    """TF's _MatMulGrad: real transposes of the conjugated operands (an input the tape does not
    need gets no product)."""
    a, b = op.inputs
    ca = None if skip(op, 1) else conj(a)
    cb = None if skip(op, 0) else conj(b)

    def product(p, q, tp, tq):
        return None if p is None or q is None else matmul(p, q, transpose_a=tp, transpose_b=tq)

    return _product_grads(dy, ca, cb, op.attrs.get("transpose_a", False),
                          op.attrs.get("transpose_b", False), product)


def _batch_matmul(op, dy):
    """Adjoints of the operands, summed over the batch dims each was broadcast along."""
    x, y = op.inputs
    d_x, d_y = _product_grads(dy, x, y, op.attrs.get("adj_x", False),
                              op.attrs.get("adj_y", False),
                              lambda p, q, tp, tq: matmul(p, q, adjoint_a=tp, adjoint_b=tq))
    return unbroadcast(d_x, x), unbroadcast(d_y, y)


def _contracted(dy, other, dy_axes, other_axes, mine, theirs, rank, first):
    """One operand's Tensordot gradient: dy contracted with the other operand over the other's
    free axes, then the result's axes put back in the operand's order. ``mine``/``theirs`` pair
    the contracted axes of this operand and the other; ``first``: this operand is ``a``."""
    free = [i for i in range(rank) if i not in mine]
    pairs = {t: m for m, t in zip(mine, theirs)}
    kept = [pairs[i] for i in sorted(theirs)]  # the other's contracted axes, in its order
    if first:
        out, current = tensordot(dy, conj(other), [dy_axes, other_axes]), free + kept
    else:
        out, current = tensordot(conj(other), dy, [other_axes, dy_axes]), kept + free
    return transpose(out, [current.index(i) for i in range(rank)])


def _tensordot(op, dy):
    """Contract dy with the other operand over its free axes (dy has a's free dims, then b's)."""
    a, b = op.inputs
    ra, rb = a.shape.rank, b.shape.rank
    axes_a = [i % ra for i in op.attrs["axes_a"]]
    axes_b = [i % rb for i in op.attrs["axes_b"]]
    free_a = [i for i in range(ra) if i not in axes_a]
    free_b = [i for i in range(rb) if i not in axes_b]
    na, nb = len(free_a), len(free_b)
    da = _contracted(dy, b, list(range(na, na + nb)), free_b, axes_a, axes_b, ra, True)
    db = _contracted(dy, a, list(range(na)), free_a, axes_b, axes_a, rb, False)
    return da, db


# --- structure -----------------------------------------------------------------------------------
def _matrix_dims(x):
    """(rows, cols) of x's innermost matrices: ints when static, else scalar tensors."""
    dims = x.shape.dims if x.shape.rank is not None else None
    rows = dims[-2] if dims and dims[-2] is not None else shape(x)[-2]
    cols = dims[-1] if dims and dims[-1] is not None else shape(x)[-1]
    return rows, cols


def _trace(op, dy):
    x = op.inputs[0]
    rows, cols = _matrix_dims(x)
    return expand_dims(expand_dims(dy, -1), -1) * eye(rows, cols, dtype=x.dtype)


def _matrix_transpose(op, dy):
    return matrix_transpose(dy, conjugate=op.attrs.get("conjugate", False))


def _matrix_diag(op, dy):
    """TF's _MatrixDiagV3Grad: the diagonals k of dy."""
    align = op.attrs.get("align", "RIGHT_LEFT")
    return diag_part(dy, k=op.inputs[1], align=align), None, None, None, None


def _matrix_diag_part(op, dy):
    """TF's _MatrixDiagPartV3Grad: a matrix of x's size with dy on its diagonals k."""
    rows, cols = _matrix_dims(op.inputs[0])
    align = op.attrs.get("align", "RIGHT_LEFT")
    return diag(dy, k=op.inputs[1], num_rows=rows, num_cols=cols, align=align), None, None


# --- square-matrix ops ---------------------------------------------------------------------------
def _matrix_inverse(op, dy):
    ainv = op.outputs[0]
    if op.attrs.get("adjoint", False):
        return -matmul(ainv, matmul(dy, ainv, adjoint_a=True), adjoint_a=False)
    return -matmul(ainv, matmul(dy, ainv, adjoint_b=True), adjoint_a=True)


def _times_inverse_adjoint(scale, a):
    """``scale`` (one value per matrix) times adjoint(inv(a)), matrix by matrix."""
    return expand_dims(expand_dims(scale, -1), -1) * matrix_transpose(inv(a), conjugate=True)


def _determinant(op, dy):
    return _times_inverse_adjoint(dy * op.outputs[0], op.inputs[0])


def _log_determinant(op, *dys):
    """TF's rule: d log|det A| / dA = adjoint(inv(A)); the sign has no gradient."""
    return _times_inverse_adjoint(dys[1], op.inputs[0])


def _solve(op, dy):
    a, rhs = op.inputs
    c = op.outputs[0]
    adj = op.attrs.get("adjoint", False)
    d_rhs = solve(a, dy, adjoint=not adj)
    if adj:
        d_a = -matmul(c, d_rhs, adjoint_b=True)
    else:
        d_a = -matmul(d_rhs, c, adjoint_b=True)
    return unbroadcast(d_a, a), unbroadcast(d_rhs, rhs)


def _cholesky(op, dy):
    """TF's _CholeskyGrad (Murray's formula)."""
    factor = op.outputs[0]
    linv = inv(factor)
    middle = matmul(factor, dy, adjoint_a=True)
    middle = band_part(middle, -1, 0) - 0.5 * diag(diag_part(middle))
    d_a = matmul(matmul(linv, middle, adjoint_a=True), linv)
    return 0.5 * (d_a + matrix_transpose(d_a, conjugate=True))


def _safe_reciprocal(x, epsilon=1e-20):
    return x * reciprocal(x * x + epsilon)


def _eigh(op, *dys):
    """TF's _SelfAdjointEigV2Grad."""
    dy_e, dy_v = dys
    e, a = op.outputs[0], op.inputs[0]
    if dy_e is None:
        dy_e = zeros_like(e)
    dy_e = cast(dy_e, a.dtype)
    ec = cast(e, a.dtype)
    if op.attrs.get("compute_v", True):
        v = op.outputs[1]
        f = set_diag(_safe_reciprocal(expand_dims(ec, -2) - expand_dims(ec, -1)), zeros_like(ec))
        inner = diag(dy_e)
        if dy_v is not None:
            inner = inner + f * matmul(v, dy_v, adjoint_a=True)
        d_a = matmul(v, matmul(inner, v, adjoint_b=True))
    else:
        _, v = eigh(a)
        d_a = matmul(v, matmul(diag(dy_e), v, adjoint_b=True))
    # the op reads only the lower triangle: symmetrise, keep that triangle, halve the diagonal
    d_a = band_part(d_a + adjoint(d_a), -1, 0)
    return set_diag(d_a, 0.5 * diag_part(d_a))


def _svd(op, dy_s, dy_u, dy_v):
    """TF's _SvdGrad (distinct singular values; the f terms blow up when two are equal)."""
    a = op.inputs[0]
    s = cast(op.outputs[0], a.dtype)
    dy_s = zeros_like(s) if dy_s is None else cast(dy_s, a.dtype)
    if not op.attrs.get("compute_uv", True):
        _, u, v = svd(a, compute_uv=True)
        return matmul(u, matmul(diag(dy_s), v, adjoint_b=True))
    u, v = op.outputs[1], op.outputs[2]
    m, n = a.shape.dims[-2:]
    if m is None or n is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with unknown "
                                  "inner matrix shape.")
    dy_u = zeros_like(u) if dy_u is None else dy_u
    dy_v = zeros_like(v) if dy_v is None else dy_v
    transposed = m > n  # work on the adjoint, which has more columns than rows
    if transposed:
        m, n, u, v, dy_u, dy_v = n, m, v, u, dy_v, dy_u
    full = op.attrs.get("full_matrices", False)
    if full and max(m, n) - min(m, n) > 1:  # (abs here is the tensor op)
        raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when "
                                  f"full_matrices is True. Received: m={m} and n={n} from op "
                                  f"input={a} with shape={a.shape}.")
    s_mat = diag(s)
    s2 = square(s)
    f = set_diag(_safe_reciprocal(expand_dims(s2, -2) - expand_dims(s2, -1)), zeros_like(s))
    s_inv = diag(_safe_reciprocal(s))
    v1, dy_v1 = v[..., :, :m], dy_v[..., :, :m]
    f_u = f * matmul(u, dy_u, adjoint_a=True)
    v_gv = matmul(v1, dy_v1, adjoint_a=True)
    f_v = f * v_gv
    inner = diag(dy_s) + matmul(f_u + adjoint(f_u), s_mat) + matmul(s_mat, f_v + adjoint(f_v))
    d_a = matmul(u, matmul(inner, v1, adjoint_b=True))
    if m != n:
        gv1t = matrix_transpose(dy_v1, conjugate=True)
        term = gv1t - matmul(matmul(gv1t, v1), v1, adjoint_b=True)
        if full:
            v2, dy_v2 = v[..., :, m:n], dy_v[..., :, m:n]
            term = term - matmul(matmul(v1, dy_v2, adjoint_a=True), v2, adjoint_b=True)
        d_a = d_a + matmul(matmul(u, s_inv), term)
    if a.dtype.is_complex:
        l = set_diag(zeros_like(v_gv), diag_part(v_gv))
        d_a = d_a + 0.5 * matmul(u, matmul(matmul(s_inv, adjoint(l) - l), v1, adjoint_b=True))
    return matrix_transpose(d_a, conjugate=True) if transposed else d_a


def _times_inverse_r(x, r):
    """x @ adjoint(inv(r)) for upper-triangular r."""
    return adjoint(triangular_solve(r, adjoint(x), lower=False))


def _qr_square_and_deep(q, r, dq, dr):
    """TF's QR gradient when the input has at least as many rows as columns."""
    qdq = matmul(q, dq, adjoint_a=True)
    qdq_ = qdq - adjoint(qdq)
    rdr = matmul(r, dr, adjoint_b=True)
    rdr_ = rdr - adjoint(rdr)
    tril = band_part(qdq_ + rdr_, -1, 0)
    out = matmul(q, dr + _times_inverse_r(tril, r)) + _times_inverse_r(dq - matmul(q, qdq), r)
    if q.dtype.is_complex:
        m = rdr - adjoint(qdq)
        eyem = set_diag(zeros_like(m), diag_part(m))
        correction = eyem - cast(real(eyem), q.dtype)
        out = out + _times_inverse_r(matmul(q, adjoint(correction)), r)
    return out


def _qr(op, *dys):
    """TF's _QrGrad."""
    q, r = op.outputs
    if r.shape.rank is None or None in r.shape.as_list()[-2:]:
        raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received "
                                  f"r.shape: {r.shape}")
    rows_r, cols_r = r.shape.as_list()[-2:]
    if rows_r > cols_r and q.shape[-2] == q.shape[-1]:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and "
                                  f"full_matrices is true. Received r.shape={r.shape} with "
                                  f"nrows={rows_r}and ncols={cols_r}.")
    dy_q, dy_r = dys
    dy_q = zeros_like(q) if dy_q is None else dy_q
    dy_r = zeros_like(r) if dy_r is None else dy_r
    num_rows, num_cols = q.shape[-2], r.shape[-1]
    if num_rows >= num_cols:
        return _qr_square_and_deep(q, r, dy_q, dy_r)
    # a wide input [x | y]: x = q @ u is square, y = q @ v follows from q
    y = op.inputs[0][..., :, num_rows:]
    u = r[..., :, :num_rows]
    dv = dy_r[..., :, num_rows:]
    du = dy_r[..., :, :num_rows]
    d_y = matmul(q, dv)
    d_x = _qr_square_and_deep(q, u, dy_q + matmul(y, dv, adjoint_b=True), du)
    return concat([d_x, d_y], axis=-1)


# --- norms ---------------------------------------------------------------------------------------
def _l2_normalize(op, dy):
    """y = x / max(||x||, sqrt(eps)): where the norm is above the floor, the gradient is
    (dy - y * sum(dy * y)) / norm; below it, dy / sqrt(eps)."""
    x, y = op.inputs[0], op.outputs[0]
    axis, eps = op.attrs["axis"], op.attrs["epsilon"]
    square_sum = reduce_sum(square(x), axis, keepdims=True)
    norm = sqrt(maximum(square_sum, cast(eps, square_sum.dtype)))
    projected = dy - y * reduce_sum(dy * y, axis, keepdims=True)
    floored = less(square_sum, cast(eps, square_sum.dtype))
    return where(floored, dy / norm, projected / norm)


def _norm_composite(x, ord, axis, keepdims, is_matrix):
    """tf.norm as TF's Python builds it."""
    rank = x.shape.rank
    axes = list(range(rank)) if axis is None else [a % rank for a in axis]
    if ord in ("euclidean", "fro") or (ord == 2 and not is_matrix):
        out = sqrt(reduce_sum(x * conj(x), axes, keepdims=True))
    elif is_matrix and ord in (1, np.inf):
        r, c = axes if ord == 1 else axes[::-1]
        out = reduce_max(reduce_sum(abs(x), r, keepdims=True), c, keepdims=True)
    elif is_matrix:
        raise NotImplementedError(f"the gradient of the matrix norm ord={ord!r}")
    elif ord == 1:
        out = reduce_sum(abs(x), axes, keepdims=True)
    elif ord == np.inf:
        out = reduce_max(abs(x), axes, keepdims=True)
    else:
        out = pow(reduce_sum(pow(abs(x), ord), axes, keepdims=True), 1.0 / ord)
    return out if keepdims else squeeze(out, axes)


register_gradients({
    "MatMul":               _matmul,
    "BatchMatMulV2":        _batch_matmul,
    "Tensordot":            _tensordot,
    "MatrixTranspose":      _matrix_transpose,
    "Trace":                _trace,
    "Diag":                 lambda op, dy: tensor_diag_part(dy),
    "DiagPart":             lambda op, dy: tensor_diag(dy),
    "MatrixDiagV3":         _matrix_diag,
    "MatrixDiagPartV3":     _matrix_diag_part,
    "MatrixBandPart":       lambda op, dy: (band_part(dy, op.inputs[1], op.inputs[2]), None, None),
    "MatrixInverse":        _matrix_inverse,
    "MatrixDeterminant":    _determinant,
    "LogMatrixDeterminant": _log_determinant,
    "SelfAdjointEigV2":     _eigh,
    "Qr":                   _qr,
    "Svd":                  _svd,
    "MatrixSolve":          _solve,
    "Cholesky":             _cholesky,
    "L2Normalize":          _l2_normalize,
    "Norm":                 via_composite(_norm_composite),
})



def _lu(op, d_lu, d_p):
    """A[p] = L U: A's gradient is P^T L^-H (tril(L^H dL, -1) + triu(dU U^H)) U^-H, dL and dU
    the strict lower and the upper parts of ``d_lu`` (TF's rule for square matrices)."""
    lu, perm = op.outputs
    n = shape(lu)[-1]
    strict = lambda m: band_part(m, -1, 0) - set_diag(zeros_like(m), diag_part(m))  # noqa: E731
    lower = strict(lu) + eye(n, dtype=lu.dtype)
    upper = band_part(lu, 0, -1)
    middle = (strict(matmul(lower, strict(d_lu), adjoint_a=True))
              + band_part(matmul(band_part(d_lu, 0, -1), upper, adjoint_b=True), 0, -1))
    left = triangular_solve(lower, middle, lower=True, adjoint=True)
    permuted = adjoint(triangular_solve(upper, adjoint(left), lower=False))
    return matmul(one_hot(perm, n, dtype=lu.dtype), permuted, adjoint_a=True)


def _eig(op, d_e, d_v):
    """TF's rule: A's gradient V^-H (diag(de) + F * (V^H dV - V^H V diag(Re diag(V^H dV))))
    V^H, F the conjugated 1 / (e_j - e_i) off the diagonal; real inputs keep the real part."""
    e, v = op.outputs
    if d_e is None:
        d_e = zeros_like(e)
    if not op.attrs.get("compute_v", True):  # eigvals: the vectors are needed all the same
        v, d_v = eig(op.inputs[0])[1], None
    vt = adjoint(v)
    if d_v is None:
        mid = diag(d_e)
    else:
        gaps = expand_dims(e, -2) - expand_dims(e, -1)
        f = conj(set_diag(reciprocal(gaps), zeros_like(e)))
        vgv = matmul(vt, d_v)
        diag_real = diag(cast(real(diag_part(vgv)), vgv.dtype))
        mid = diag(d_e) + f * (vgv - matmul(matmul(vt, v), diag_real))
    grad = solve(vt, matmul(mid, vt))
    return grad if op.inputs[0].dtype.is_complex else real(grad)


register_gradients({"Lu": _lu, "Eig": _eig})
