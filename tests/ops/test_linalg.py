"""Linear-algebra ops: kernels against NumPy, infer against kernels, TF's errors and quirks
(values pinned below were checked against TensorFlow 2.21)."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import registry
from tensortrace.graph.ir import Graph

from .optable import Case, op_types, rand, run_case

F23, F34, F234, F43 = rand(2, 3), rand(3, 4), rand(2, 3, 4), rand(4, 3)
SPD = np.array([[4.0, 2.0, 0.6], [2.0, 5.0, 1.0], [0.6, 1.0, 3.0]], np.float32)
SQ = np.array([[4.0, 7.0, 1.0], [2.0, 6.0, 0.5], [1.0, 1.0, 3.0]])
C22 = rand(2, 2, dtype=np.complex64)


def _t(x):
    return np.swapaxes(x, -1, -2)


def _h(x):
    return np.conj(_t(x))


def ref_norm(x, ord="euclidean", axis=None, keepdims=False):
    """tf.norm's definition, written independently with NumPy."""
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        m = np.moveaxis(x, axis, (-2, -1))
        if ord in ("euclidean", "fro"):
            out = np.sqrt(np.sum(m * np.conj(m), axis=(-2, -1)))
        elif ord == 2:
            out = np.linalg.svd(m, compute_uv=False).max(-1)
        else:
            out = np.linalg.norm(m, ord=ord, axis=(-2, -1))
        out = out.astype(x.dtype if ord in ("euclidean", "fro") else x.real.dtype)
        if keepdims:
            out = np.expand_dims(out, tuple(sorted(a % x.ndim for a in axis)))
        return out
    axes = None if axis is None else (axis,)
    a = np.abs(x)
    if ord in ("euclidean", 2):
        out = np.sqrt(np.sum(x * np.conj(x), axis=axes, keepdims=keepdims))
    elif ord == 1:
        out = np.sum(a, axis=axes, keepdims=keepdims)
    elif ord == np.inf:
        out = np.max(a, axis=axes, keepdims=keepdims)
    else:
        out = np.sum(a ** ord, axis=axes, keepdims=keepdims) ** (1 / ord)
    dtype = x.dtype if ord in ("euclidean", 2) else x.real.dtype
    return np.asarray(out).astype(dtype)


def _svd_check(out, x):
    """s descending as NumPy's; u and v orthonormal columns rebuilding x (signs are free)."""
    s, u, v = (np.asarray(t) for t in out)
    np.testing.assert_allclose(s, np.linalg.svd(x, compute_uv=False), rtol=1e-5)
    np.testing.assert_allclose((u * s[..., None, :]) @ _h(v), x, atol=1e-5)
    np.testing.assert_allclose(_h(u) @ u, np.broadcast_to(np.eye(2), (2, 2, 2)), atol=1e-5)


def ref_diag_part(x, k=0, padding_value=0, align="RIGHT_LEFT"):
    k0, k1 = (k, k) if np.ndim(k) == 0 else k
    rows, cols = x.shape[-2:]
    max_len = min(rows + min(k1, 0), cols - max(k0, 0))
    out = []
    for d in range(k1, k0 - 1, -1):
        diag = np.diagonal(x, d, -2, -1)
        pad = max_len - diag.shape[-1]
        left = align.split("_")[0 if d >= 0 else 1] == "LEFT"
        widths = [(0, 0)] * (diag.ndim - 1) + [(0, pad) if left else (pad, 0)]
        out.append(np.pad(diag, widths, constant_values=padding_value))
    return out[0] if k0 == k1 else np.stack(out, -2)


def ref_band(x, lower, upper):
    i, j = np.indices(x.shape[-2:])
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return np.where(keep, x, 0).astype(x.dtype)


def ref_l2n(x, axis=None, epsilon=1e-12):
    axis = tuple(axis) if isinstance(axis, list) else axis
    sq = np.sum(np.abs(x) ** 2, axis=axis, keepdims=True)
    return (x / np.sqrt(np.maximum(sq, epsilon))).astype(x.dtype)


def _check_lu(out, a):
    """P A = L U, with L unit lower and U upper triangular, from TF's packed ``lu``."""
    lu, p = out.lu.numpy(), out.p.numpy()
    lower, upper = np.tril(lu, -1) + np.eye(len(lu)), np.triu(lu)
    np.testing.assert_allclose(lower @ upper, a[p], rtol=1e-12, atol=1e-12)


def _check_eig(out, a):
    """A v = v diag(w)."""
    w, v = out[0].numpy(), out[1].numpy()
    np.testing.assert_allclose(a @ v, v * w, rtol=1e-10, atol=1e-10)


CASES = [
    # matmul: MatMul for rank 2, BatchMatMulV2 otherwise
    Case(tf.linalg.matmul, (F23, F34), ref=lambda a, b: a @ b, rtol=1e-5, id="matmul"),
    Case(tf.matmul, (F23, F23), {"transpose_b": True}, ref=lambda a, b, **k: a @ b.T,
         rtol=1e-5, id="matmul-tb"),
    Case(tf.matmul, (F23, F23), {"transpose_a": True}, ref=lambda a, b, **k: a.T @ b,
         rtol=1e-5, id="matmul-ta"),
    Case(tf.matmul, (F43, F34), {"adjoint_a": True, "adjoint_b": True},
         ref=lambda a, b, **k: a.T @ b.T, rtol=1e-5, id="matmul-adjoint-real"),
    Case(tf.matmul, (rand(3, 2, dtype=np.int32), rand(2, 4, dtype=np.int32)),
         ref=lambda a, b: a @ b, id="matmul-int32"),
    Case(tf.matmul, (rand(3, 2, dtype=np.float64), rand(2, 0, dtype=np.float64)),
         ref=lambda a, b: a @ b, id="matmul-empty"),
    Case(tf.matmul, (rand(2, 3, dtype=np.float16), rand(3, 2, dtype=np.float16)),
         ref=lambda a, b: (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16),
         rtol=1e-3, atol=1e-3, id="matmul-f16"),
    Case(tf.matmul, (rand(2, 1, 2, 3), rand(4, 3, 5)), ref=np.matmul, rtol=1e-5,
         id="bmm-broadcast"),
    Case(tf.matmul, (F234, F34), {"transpose_b": True},
         ref=lambda a, b, **k: a @ b.T, rtol=1e-5, id="bmm-rank3-by-rank2"),
    Case(tf.matmul, (rand(2, 3, 2, dtype=np.int16), rand(2, 2, 3, dtype=np.int16)),
         ref=np.matmul, id="bmm-int16"),
    Case(tf.matmul, (C22, C22), {"adjoint_a": True}, ref=lambda a, b, **k: _h(a) @ b,
         rtol=1e-5, id="matmul-adjoint-complex"),
    Case(tf.matmul, (rand(3, 2, 2, dtype=np.complex128), rand(2, 2, dtype=np.complex128)),
         {"adjoint_b": True}, ref=lambda a, b, **k: a @ _h(b), id="bmm-adjoint-complex"),
    # tensordot
    Case(tf.tensordot, (F23, F34, 1), ref=lambda a, b, n: np.tensordot(a, b, n), rtol=1e-5,
         id="tensordot-1"),
    Case(tf.tensordot, (F234, rand(4, 3, 5), [[1, 2], [1, 0]]),
         ref=lambda a, b, ax: np.tensordot(a, b, ax), rtol=1e-5, id="tensordot-lists"),
    Case(tf.tensordot, (rand(2), rand(3), 0), ref=lambda a, b, n: np.tensordot(a, b, 0),
         id="tensordot-outer"),
    Case(tf.tensordot, (F23, F23, 2), ref=lambda a, b, n: np.tensordot(a, b, 2), rtol=1e-5,
         id="tensordot-full"),
    Case(tf.linalg.tensordot, (F234, rand(4, 3, 5), [-1, 0]),
         ref=lambda a, b, ax: np.tensordot(a, b, ([2], [0])), rtol=1e-5, id="tensordot-neg"),
    # norm
    Case(tf.norm, (F234,), ref=ref_norm, rtol=1e-5, id="norm-all"),
    Case(tf.norm, (F234,), {"axis": -1, "keepdims": True}, ref=ref_norm, rtol=1e-5,
         id="norm-axis-keepdims"),
    Case(tf.norm, (F234,), {"ord": 1, "axis": 1}, ref=ref_norm, rtol=1e-5, id="norm-l1"),
    Case(tf.norm, (F234,), {"ord": np.inf, "axis": 0}, ref=ref_norm, id="norm-inf"),
    Case(tf.norm, (F234,), {"ord": 3, "axis": 2}, ref=ref_norm, rtol=1e-5, id="norm-p3"),
    Case(tf.linalg.norm, (F234,), {"ord": "fro", "axis": [0, 2]}, ref=ref_norm, rtol=1e-5,
         id="norm-fro"),
    Case(tf.norm, (F234,), {"ord": 1, "axis": (2, 1), "keepdims": True}, ref=ref_norm,
         rtol=1e-5, id="norm-matrix-1"),
    Case(tf.norm, (F234,), {"ord": np.inf, "axis": (-1, -2)}, ref=ref_norm, rtol=1e-5,
         id="norm-matrix-inf"),
    Case(tf.norm, (F234,), {"ord": 2, "axis": (1, 2)}, ref=ref_norm, rtol=1e-5,
         id="norm-matrix-2"),
    Case(tf.norm, (rand(3, dtype=np.complex64),), ref=ref_norm, rtol=1e-5,
         id="norm-complex-stays-complex"),
    Case(tf.norm, (rand(3, dtype=np.complex64),), {"ord": np.inf}, ref=ref_norm,
         id="norm-complex-inf-real"),
    Case(tf.norm, (rand(4, dtype=np.int32),), {"ord": 1}, ref=ref_norm, id="norm-int-l1"),
    Case(tf.norm, (np.zeros(0, np.float64),), ref=ref_norm, id="norm-empty"),
    # square-matrix ops
    Case(tf.linalg.inv, (SQ,), ref=np.linalg.inv, id="inv"),
    Case(tf.linalg.inv, (SQ.astype(np.float32),), {"adjoint": True},
         ref=lambda x, **k: np.linalg.inv(x.T), rtol=1e-5, id="inv-adjoint"),
    Case(tf.linalg.inv, (np.stack([SQ, SQ.T]).astype(np.complex64),),
         ref=np.linalg.inv, rtol=1e-5, id="inv-batch-complex"),
    Case(tf.linalg.inv, (np.zeros((0, 0), np.float32),), ref=lambda x: x, id="inv-empty"),
    Case(tf.linalg.det, (np.stack([SQ, 2 * SQ]),), ref=np.linalg.det, id="det"),
    Case(tf.linalg.det, (np.zeros((0, 0), np.float32),), ref=lambda x: np.float32(1),
         id="det-empty"),
    Case(tf.linalg.solve, (SQ, rand(3, 2, dtype=np.float64)), ref=np.linalg.solve,
         id="solve"),
    Case(tf.linalg.solve, (np.stack([SQ, SQ.T]).astype(np.float32), rand(2, 3, 1)),
         {"adjoint": True}, ref=lambda a, b, **k: np.linalg.solve(_t(a), b), rtol=1e-5,
         id="solve-adjoint-batch"),
    Case(tf.linalg.cholesky, (SPD,), ref=np.linalg.cholesky, rtol=1e-5, id="cholesky"),
    Case(tf.linalg.cholesky, (np.stack([SPD, 2 * SPD]).astype(np.float64),),
         ref=np.linalg.cholesky, id="cholesky-batch"),
    Case(tf.linalg.svd, (F43,), {"compute_uv": False},
         ref=lambda x, **k: np.linalg.svd(x, compute_uv=False), rtol=1e-5, id="svd-values"),
    Case(tf.linalg.svd, (np.stack([F23, 2 * F23]),), check=_svd_check, id="svd"),
    # transposes, trace, diagonals, band part
    Case(tf.linalg.matrix_transpose, (F234,), ref=_t, id="matrix_transpose"),
    Case(tf.linalg.matrix_transpose, (C22,), {"conjugate": True},
         ref=lambda x, **k: _h(x), id="matrix_transpose-conj"),
    Case(tf.linalg.adjoint, (rand(2, 2, 3, dtype=np.complex128),), ref=_h, id="adjoint"),
    Case(tf.linalg.trace, (F234,), ref=lambda x: np.trace(x, axis1=-2, axis2=-1),
         rtol=1e-5, id="trace"),
    Case(tf.linalg.trace, (rand(3, 3, dtype=np.int32),),
         ref=lambda x: np.trace(x).astype(np.int32), id="trace-int"),
    Case(tf.linalg.diag, (rand(2, 3),), ref=lambda d: np.stack([np.diag(r) for r in d]),
         id="diag"),
    Case(tf.linalg.diag, (rand(2, dtype=np.int64),), {"k": 1},
         ref=lambda d, **k: np.diag(d, 1), id="diag-k1"),
    Case(tf.linalg.diag, (np.array([True, False]),), ref=np.diag, id="diag-bool"),
    Case(tf.linalg.diag_part, (F234,), ref=ref_diag_part, id="diag_part"),
    Case(tf.linalg.diag_part, (F34,), {"k": -2}, ref=ref_diag_part, id="diag_part-k"),
    Case(tf.linalg.diag_part, (F234,), {"k": (-1, 2), "padding_value": 9},
         ref=ref_diag_part, id="diag_part-band"),
    Case(tf.linalg.diag_part, (F34,), {"k": (-2, 1), "align": "LEFT_RIGHT"},
         ref=ref_diag_part, id="diag_part-band-left-right"),
    Case(tf.linalg.band_part, (rand(2, 4, 4), 1, -1), ref=ref_band, id="band_part"),
    Case(tf.linalg.band_part, (rand(3, 5, dtype=np.int32), 0, 0), ref=ref_band,
         id="band_part-diagonal"),
    Case(tf.linalg.tensor_diag, (rand(2, 3),),
         ref=lambda d: np.diag(d.ravel()).reshape(2, 3, 2, 3), id="tensor_diag"),
    Case(tf.linalg.tensor_diag_part, (rand(2, 3, 2, 3),),
         ref=lambda x: np.diag(x.reshape(6, 6)).reshape(2, 3), id="tensor_diag_part"),
    # l2_normalize
    Case(tf.math.l2_normalize, (F234,), ref=ref_l2n, rtol=1e-5, id="l2_normalize-all"),
    Case(tf.nn.l2_normalize, (F234,), {"axis": -1}, ref=ref_l2n, rtol=1e-5,
         id="l2_normalize-axis"),
    Case(tf.linalg.l2_normalize, (F234,), {"axis": [0, 2]}, ref=ref_l2n, rtol=1e-5,
         id="l2_normalize-axes"),
    Case(tf.math.l2_normalize, (rand(3, dtype=np.complex64),), ref=ref_l2n, rtol=1e-5,
         id="l2_normalize-complex"),
    Case(tf.linalg.lu, (rand(4, 4, dtype=np.float64),), check=_check_lu),
    Case(tf.linalg.eig, (rand(3, 3, dtype=np.float64),), check=_check_eig),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


def test_every_linalg_op_is_in_the_table():
    mine = {name for name, op in registry.all_ops().items()
            if op.infer.__module__.startswith("tensortrace.ops.linalg.")}
    from .test_tf_sweep import CASES as SWEEP_CASES  # slogdet and eigh are tabled there

    covered = set().union(*(op_types(c) for c in CASES + SWEEP_CASES))
    assert mine - covered == set()


def _graph(fn, *specs):
    g = Graph()
    with g.as_default():
        out = fn(*[g.placeholder(tf.TensorSpec(*s), "x") for s in specs])
    return g, out


# --- matmul ------------------------------------------------------------------------------------
def test_matmul_picks_matmul_for_rank2_and_batch_matmul_otherwise():
    g, out = _graph(tf.matmul, ([2, 3],), ([3, 5],))
    assert [op.type for op in g.get_operations()][-1] == "MatMul"
    g, out = _graph(tf.matmul, ([None, 2, 3],), ([4, 1, 3, 5],))
    assert g.get_operations()[-1].type == "BatchMatMulV2"
    assert out.shape.as_list() == [4, None, 2, 5]
    _, out = _graph(tf.matmul, (None,), ([3, 5],))
    assert out.shape.rank is None


def test_matmul_shape_errors_are_tfs():
    a = tf.constant(np.ones((2, 3), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,3\] "
                             r"\[Op:MatMul\]"):
        tf.matmul(a, a)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"In\[0\] ndims must be >= 2"):
        tf.matmul(tf.constant([1.0, 2.0]), a)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"must have compatible batch dimensions: \[2,2,3\] vs. \[3,3,2\]"):
        tf.matmul(tf.constant(np.ones((2, 2, 3))), tf.constant(np.ones((3, 3, 2))))
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 3 and 2 for "
                                         r"'\{\{node MatMul\}\} = MatMul\[T=DT_FLOAT"):
        _graph(tf.matmul, ([2, 3],), ([2, 3],))
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        _graph(tf.matmul, ([3],), ([3, 2],))
    with pytest.raises(ValueError, match="Only one of `transpose_a` and `adjoint_a`"):
        tf.matmul(a, a, transpose_a=True, adjoint_a=True)


def test_matmul_dtype_rules():
    a = tf.constant(np.ones((2, 2), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="expected to be a float tensor but is a double tensor"):
        tf.matmul(a, tf.constant(np.ones((2, 2))))
    # a NumPy array second operand takes the first operand's dtype (TF's dtype_hint)
    assert tf.matmul(a, np.ones((2, 2))).dtype == tf.float32
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of int8 is not in"):
        tf.matmul(tf.constant(np.ones((2, 2), np.int8)), tf.constant(np.ones((2, 2), np.int8)))
    # uint8 passes the OpDef but has no CPU kernel in TF
    with pytest.raises(tf.errors.NotFoundError, match="Could not find device for node"):
        tf.matmul(tf.constant(np.ones((2, 2), np.uint8)),
                  tf.constant(np.ones((2, 2), np.uint8)))
    with pytest.raises(TypeError, match="Value passed to parameter 'a' has DataType bool"):
        _graph(tf.matmul, ([2, 2], tf.bool), ([2, 2], tf.bool))
    with pytest.raises(TypeError, match="Input 'b' of 'MatMul' Op has type float64"):
        _graph(tf.matmul, ([2, 2],), ([2, 2], tf.float64))


def test_matmul_operator():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert (a @ a).numpy().tolist() == [[7.0, 10.0], [15.0, 22.0]]
    # Python lists and NumPy arrays on either side take the tensor's dtype
    out = a @ [[1, 2], [3, 4]]
    assert out.dtype == tf.float32 and out.numpy().tolist() == [[7.0, 10.0], [15.0, 22.0]]
    out = [[1.0, 0.0], [0.0, 2.0]] @ a
    assert out.numpy().tolist() == [[1.0, 2.0], [6.0, 8.0]]
    out = np.ones((3, 2), np.float32) @ a
    assert out.shape == (3, 2) and out.numpy().tolist()[0] == [4.0, 6.0]


def test_matmul_complex_adjoint_value():
    x = tf.constant(np.array([[0, 1], [2, 3]]) + 1j * np.array([[0, 1], [2, 3]]), tf.complex64)
    y = tf.constant(np.array([[0, 1], [2, 3]]) - 1j * np.array([[0, 1], [2, 3]]), tf.complex64)
    assert tf.matmul(x, y, adjoint_b=True).numpy().tolist() == [[2j, 6j], [6j, 26j]]


# --- tensordot, norm ---------------------------------------------------------------------------
def test_tensordot_errors():
    a = tf.constant(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="`axes` must be at least 0. Received: -1."):
        tf.tensordot(a, a, -1)
    with pytest.raises(ValueError, match="must not be larger than the number of dimensions"):
        tf.tensordot(a, a, 3)
    with pytest.raises(ValueError, match=r"Different number of contraction axes `a` and `b`, "
                                         r"1 != 2."):
        tf.tensordot(a, a, [[0], [0, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,3\]"):
        tf.tensordot(a, a, 1)


def test_norm_values_match_tf():
    x = tf.constant([[3.0, -4.0], [1.0, 2.0]])
    assert tf.norm(x, ord=1, axis=[0, 1]).numpy() == 6.0
    assert tf.norm(x, ord=np.inf, axis=[0, 1]).numpy() == 7.0
    np.testing.assert_allclose(tf.norm(x, ord=2, axis=[0, 1]).numpy(), 5.116673469543457,
                               rtol=1e-6)
    assert tf.norm(x, ord=1).numpy() == 10.0  # axis=None: the flattened vector norm
    assert tf.norm(x, keepdims=True).shape == (1, 1)
    # no rescaling: squares overflow to inf in float32, as in TF
    assert np.isinf(tf.norm(tf.constant([1e20, 1e20])).numpy())
    assert tf.norm(tf.constant(3.0)).numpy() == 3.0


def test_norm_argument_errors():
    x = tf.constant(np.ones((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got fro"):
        tf.norm(x, ord="fro")
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got -1"):
        tf.norm(x, ord=-1, axis=0)
    with pytest.raises(ValueError, match=r"'ord' must be a supported matrix norm in "
                                         r"\['euclidean', 'fro', 1, 2, inf\], got 3"):
        tf.norm(x, ord=3, axis=[0, 1])
    with pytest.raises(ValueError, match=r"tuple of 2 unique integers, got \(0, 0\)"):
        tf.norm(x, axis=(0, 0))
    with pytest.raises(ValueError, match=r"tuple of 2 unique integers, got \[1\]"):
        tf.norm(x, axis=[1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of int32"):
        tf.norm(tf.constant([3, 4]))


# --- square-matrix ops -------------------------------------------------------------------------
def test_inverse_of_singular_matrix_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Input is not invertible. \[Op:MatrixInverse\]"):
        tf.linalg.inv(tf.constant([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square."):
        tf.linalg.inv(tf.constant(np.ones((2, 3), np.float32)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank >= 2, got 1"):
        tf.linalg.inv(tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of int32"):
        tf.linalg.inv(tf.constant([[1, 0], [0, 1]]))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        _graph(tf.linalg.inv, ([2, 3],))


def test_det_solve_cholesky_errors_and_values():
    m = tf.constant([[4.0, 7.0], [2.0, 6.0]])
    assert tf.linalg.det(m).numpy() == pytest.approx(10.0)
    assert tf.linalg.det(tf.constant(np.zeros((2, 2), np.float32))).numpy() == 0.0
    with pytest.raises(tf.errors.NotFoundError):  # half determinant: no CPU kernel in TF
        tf.linalg.det(tf.constant(np.eye(2, dtype=np.float16)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix is not invertible."):
        tf.linalg.solve(tf.constant(np.zeros((2, 2), np.float32)), tf.constant([[1.0], [2.0]]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input matrix and rhs are incompatible."):
        tf.linalg.solve(m, tf.constant([[1.0], [2.0], [3.0]]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="All input tensors must have the same rank."):
        tf.linalg.solve(m, tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="All input tensors must have the same outer dimensions."):
        tf.linalg.solve(tf.constant(np.ones((2, 2, 2))), tf.constant(np.ones((3, 2, 1))))
    # Cholesky reads the lower triangle only
    chol = tf.linalg.cholesky(tf.constant([[4.0, 100.0], [2.0, 3.0]])).numpy()
    np.testing.assert_allclose(chol, [[2.0, 0.0], [1.0, np.sqrt(2.0)]], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cholesky decomposition was not"):
        tf.linalg.cholesky(tf.constant([[1.0, 2.0], [2.0, 1.0]]))
    _, out = _graph(tf.linalg.solve, ([None, 2, 2],), ([3, 2, 5],))
    assert out.shape.as_list() == [3, 2, 5]


# --- transposes, diagonals, band part, l2_normalize --------------------------------------------
def test_matrix_transpose_needs_rank_2():
    with pytest.raises(ValueError, match=r"should be a \(batch\) matrix with rank >= 2"):
        tf.linalg.matrix_transpose(tf.constant([1.0, 2.0]))
    _, out = _graph(tf.linalg.matrix_transpose, (None,))
    assert out.shape.rank is None
    strings = tf.linalg.matrix_transpose(tf.constant([["a", "b"]]))
    assert strings.numpy().tolist() == [[b"a"], [b"b"]]


def test_diag_band_and_alignment_match_tf():
    band = np.array([[1.0, 2.0, 0.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]], np.float32)
    assert tf.linalg.diag(band, k=(-1, 1)).numpy().tolist() == [
        [3.0, 2.0, 0.0], [6.0, 4.0, 0.0], [0.0, 7.0, 5.0]]
    assert tf.linalg.diag(band, k=(-1, 1), align="LEFT_LEFT").numpy().tolist() == [
        [3.0, 1.0, 0.0], [6.0, 4.0, 2.0], [0.0, 7.0, 5.0]]
    out = tf.linalg.diag(tf.constant([1.0, 2.0]), k=-1, num_rows=4, padding_value=9)
    assert out.numpy().tolist() == [[9, 9], [1, 9], [9, 2], [9, 9]]
    out = tf.linalg.diag(tf.constant([1.0, 2.0]), num_rows=3, num_cols=2)
    assert out.numpy().tolist() == [[1, 0], [0, 2], [0, 0]]
    _, out = _graph(lambda d: tf.linalg.diag(d, k=1), ([None, 3],))
    assert out.shape.as_list() == [None, 4, 4]
    _, out = _graph(lambda x: tf.linalg.diag_part(x, k=(-1, 2)), ([None, 3, 5],))
    assert out.shape.as_list() == [None, 4, 3]


def test_diag_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="lower_diag_index is out of bound: 5. It must be between -3 and 4"):
        tf.linalg.diag_part(tf.constant(np.ones((3, 4), np.float32)), k=5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="diagonal must be at least 1-dim"):
        tf.linalg.diag(tf.constant(1.0))
    with pytest.raises(TypeError, match="Cannot convert 0 to EagerTensor of dtype string"):
        tf.linalg.diag(tf.constant(["a", "b"]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"num_lower must be negative or less or equal to number of rows "
                             r"\(3\) got: 5"):
        tf.linalg.band_part(tf.constant(np.ones((3, 3), np.float32)), 5, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="input must be at least 2-dim"):
        tf.linalg.band_part(tf.constant([1.0]), 0, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="input must be at least 2-dim"):
        tf.linalg.trace(tf.constant([1.0, 2.0]))


def test_band_part_keeps_index_dtype_and_accepts_negative_bounds():
    x = tf.constant(np.arange(9, dtype=np.float32).reshape(3, 3))
    out = tf.linalg.band_part(x, tf.constant(1, tf.int64), 0)
    assert out.numpy().tolist() == [[0, 0, 0], [3, 4, 0], [0, 7, 8]]
    assert tf.linalg.band_part(x, -2, 0).numpy().tolist() == [[0, 0, 0], [3, 4, 0], [6, 7, 8]]


def test_l2_normalize_edges():
    assert tf.math.l2_normalize(tf.constant([0.0, 0.0])).numpy().tolist() == [0.0, 0.0]
    out = tf.math.l2_normalize(tf.constant([3e-7, 4e-7]), epsilon=1e-3).numpy()
    np.testing.assert_allclose(out, [9.486832823313307e-06, 1.2649109521589708e-05], rtol=1e-6)
    with pytest.raises(TypeError, match="Cannot convert 1e-12 to EagerTensor of dtype int32"):
        tf.math.l2_normalize(tf.constant([3, 4]))
    assert tf.nn.l2_normalize is tf.math.l2_normalize


def test_matmul_of_8_bit_integers_to_int32_output_type():
    # TF 2.21 (BatchMatMulV3, its CPU kernels: int8/uint8 inputs, int32 out): no wrap at 8 bits
    a = tf.constant([[100, -100], [3, 4]], tf.int8)
    out = tf.matmul(a, a, output_type=tf.int32)
    assert out.dtype == tf.int32 and out.numpy().tolist() == [[9700, -10400], [312, -284]]
    u = tf.cast(a, tf.uint8)
    assert tf.matmul(u, u, output_type=tf.int32).numpy().tolist() == [[10468, 16224], [312, 484]]
    assert tf.matmul(a[None], a[None], output_type=tf.int32).numpy().tolist() == \
        [[[9700, -10400], [312, -284]]]
    traced = tf.function(lambda x: tf.matmul(x, x, transpose_b=True, output_type=tf.int32))
    np.testing.assert_array_equal(traced(a).numpy(),
                                  a.numpy().astype(np.int32) @ a.numpy().astype(np.int32).T)


def test_lu_pinv_matrix_rank_eig_match_tf():
    # TF 2.21's values for these inputs
    a = np.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 10.]], np.float32)
    lu, p = tf.linalg.lu(a)
    np.testing.assert_allclose(lu.numpy(), [[7, 8, 10], [1 / 7, 6 / 7, 11 / 7],
                                            [4 / 7, 0.5, -0.5]], rtol=1e-5, atol=1e-6)
    assert p.dtype == tf.int32 and p.numpy().tolist() == [2, 0, 1]
    _, p64 = tf.linalg.lu(np.stack([a, a.T]).astype(np.float64), output_idx_type=tf.int64)
    assert p64.dtype == tf.int64 and p64.numpy().tolist() == [[2, 0, 1], [2, 0, 1]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible"):
        tf.linalg.lu(np.array([[0., 1.], [0., 2.]], np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square"):
        tf.linalg.lu(np.ones((2, 3), np.float32))
    sing = np.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]], np.float32)
    np.testing.assert_allclose(tf.linalg.pinv(sing).numpy(),
                               [[-0.638889, -0.166667, 0.305556], [-0.055556, 0., 0.055556],
                                [0.527778, 0.166667, -0.194444]], atol=2e-5)
    b = np.array([[1., 2.], [3., 4.], [5., 6.]])
    np.testing.assert_allclose(tf.linalg.pinv(b, rcond=0.5).numpy(),
                               [[0.014951, 0.034134, 0.053317], [0.018939, 0.043239, 0.067538]],
                               atol=1e-6)
    with pytest.raises(TypeError, match="must have `float`-like `dtype` \\(saw int32\\)"):
        tf.linalg.pinv(tf.constant([[1, 2]]))
    assert tf.linalg.matrix_rank(sing).numpy() == 2
    assert tf.linalg.matrix_rank(np.stack([sing, np.eye(3, dtype=np.float32)])).numpy().tolist() \
        == [2, 3]
    assert tf.linalg.matrix_rank(sing, tol=1.0).numpy() == 2
    e, v = tf.linalg.eig(a)
    assert e.dtype == v.dtype == tf.complex64
    np.testing.assert_allclose(e.numpy(), [16.7075, -0.90574, 0.19825], atol=1e-4)
    np.testing.assert_allclose(np.abs(v.numpy()), [[0.22351, 0.86585, 0.2783],
                                                   [0.50395, 0.08565, 0.83185],
                                                   [0.83431, 0.49293, 0.48019]], atol=1e-4)
    e2 = tf.linalg.eigvals(np.array([[0., -1.], [1., 0.]]))
    assert e2.dtype == tf.complex128 and e2.numpy().tolist() == [1j, -1j]
