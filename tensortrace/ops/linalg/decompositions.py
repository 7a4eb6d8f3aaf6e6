"""Linear algebra: matmul and ``@``, tensordot, norms, inverse, determinant, solve, Cholesky,
matrix transpose, trace, diagonals, band parts and l2_normalize."""

import collections

import numpy as np

from ... import dtypes as D
from ... import errors
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor, operand
from ...errors import invalid_argument
from ...registry import define_op
from ...shapes import TensorShape
from ...tensor import EagerTensor, Tensor, TensorSpec, static_value
from .._base import ALL, NUMERIC, check_dtypes
from ...messages import c_name
from ...registry import DtypeCheck


# --- shared helpers (nn.py uses these too) -----------------------------------------------------
def dtypes_named(*names):
    """DTypes in TF's listed order, skipping bfloat16 when ml_dtypes is missing."""
    return tuple(d for d in (getattr(D, n) for n in names) if d is not None)


def fmt_shape(shape):
    """A shape as TF prints it in graph errors: ``[?,3]`` (``?`` for unknown rank)."""
    if shape.rank is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.dims) + "]"


_ONEDNN_MATMUL = frozenset(d._np for d in (D.float32, D.bfloat16) if d is not None)


def dims_text(shape):
    """A concrete shape as TF's runtime prints it: ``[2,3]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def node_error(op_name, what, dtype, attrs, inputs, names=("a", "b")):
    """TF's graph-construction ValueError text naming the node and its input shapes."""
    attr_text = ", ".join([f"T=DT_{c_dtype(dtype)}"]
                          + [f"{k}={_attr_text(v)}" for k, v in attrs.items()])
    shapes = ", ".join(fmt_shape(t.shape) for t in inputs)
    return ValueError(f"{what} for '{{{{node {op_name}}}}} = {op_name}[{attr_text}]"
                      f"({', '.join(names[:len(inputs)])})' with input shapes: {shapes}.")


def c_dtype(dtype):
    return {"float16": "HALF", "float32": "FLOAT", "float64": "DOUBLE"}.get(
        dtype.name, dtype.name.upper())


def _attr_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, tuple):
        return "[" + ", ".join(map(str, v)) + "]"
    return str(v)


def not_found(op_name, dtype, attrs=""):
    """The NotFoundError TF raises for a dtype its OpDef allows but no CPU kernel handles."""
    return errors.NotFoundError(
        None, None, f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}"
        f"[T=DT_{c_dtype(dtype)}{attrs}] [Op:{op_name}]")


def kernel_check(op_name, allowed, no_kernel=(), same=2):
    """An eager dtype check: TF's allowed list, then NotFoundError for kernel-less dtypes."""
    base = DtypeCheck(op_name, allowed, same)
    missing = frozenset(d._np for d in no_kernel)

    def check(arrays):
        base(arrays)
        if arrays[0].dtype in missing:
            raise not_found(op_name, D.from_numpy(arrays[0].dtype))

    return check


def static_attr(value, what):
    """A Python value for an attr that must be known when the op is built."""
    if isinstance(value, Tensor):
        v = static_value(value)
        if v is None:
            raise TypeError(f"{what} must be a constant (a Python value), not a tensor whose "
                            f"value is only known when the function runs: {value!r}")
        value = v
    if isinstance(value, np.ndarray):
        return value.item() if value.ndim == 0 else value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def as_ints(value, what):
    """An int or a sequence of ints (static) as a tuple."""
    value = static_attr(value, what)
    if isinstance(value, (list, tuple)):
        return tuple(int(static_attr(v, what)) for v in value)
    return (int(value),)


def via_float32(fn, x, *rest):
    """Run ``fn`` in float32 for float16/bfloat16 inputs (BLAS/LAPACK have no half kernels)."""
    dt = x.dtype
    if dt.itemsize == 2 and dt.kind in "fV":
        out = fn(x.astype(np.float32), *[r.astype(np.float32) for r in rest])
        return out.astype(dt)
    return fn(x, *rest)


def matrix_t(x, conjugate=False):
    """The (conjugate) transpose of the innermost two dims: a view when possible."""
    y = np.swapaxes(x, -1, -2)
    return np.conj(y) if conjugate and x.dtype.kind == "c" else y


def broadcast_batch(a, b, op_name, dtype, attrs, inputs, names=("a", "b")):
    """Broadcast two batch shapes (TensorShapes) the way BatchMatMulV2 does."""
    if a.rank is None or b.rank is None:
        return None
    da, db = a.dims, b.dims
    n = max(len(da), len(db))
    da, db = [1] * (n - len(da)) + da, [1] * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1 or y == 1:
            out.append(y if x == 1 else x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        elif x == y:
            out.append(x)
        else:
            raise node_error(op_name, f"Dimensions must be equal, but are {x} and {y}", dtype,
                             attrs, inputs, names)
    return out


def _same_dim(x, y):
    return x is None or y is None or x == y


# --- matmul ------------------------------------------------------------------------------------
MATMUL_T = dtypes_named("bfloat16", "float16", "float32", "float64", "int32", "int64", "uint8",
                        "uint16", "uint32", "uint64", "complex64", "complex128")
BMM_T = dtypes_named("bfloat16", "float16", "float32", "float64", "int16", "int32", "int64",
                     "uint8", "uint16", "uint32", "uint64", "complex64", "complex128")
UINTS = (D.uint8, D.uint16, D.uint32, D.uint64)


def _size_error(a, b):
    return invalid_argument(f"Matrix size-incompatible: In[0]: {dims_text(a.shape)}, "
                            f"In[1]: {dims_text(b.shape)}")


def _blas_matmul(a, b):
    return via_float32(np.matmul, a, b)


@define_op("MatMul", expr="({0} @ {1})")
class MatMul:
    """a @ b for matrices, with optional transposes."""

    check = kernel_check("MatMul", MATMUL_T, UINTS)

    def infer(a, b, transpose_a=False, transpose_b=False):
        dtype = check_dtypes("MatMul", (a, b), MATMUL_T, ("a", "b"))
        attrs = {"transpose_a": transpose_a, "transpose_b": transpose_b}
        for t in (a, b):
            if t.shape.rank is not None and t.shape.rank != 2:
                raise node_error("MatMul", f"Shape must be rank 2 but is rank {t.shape.rank}",
                                 dtype, attrs, (a, b))
        sa, sb = a.shape.with_rank(2).dims, b.shape.with_rank(2).dims
        m, ka = (sa[1], sa[0]) if transpose_a else (sa[0], sa[1])
        kb, n = (sb[1], sb[0]) if transpose_b else (sb[0], sb[1])
        if not _same_dim(ka, kb):
            raise node_error("MatMul", f"Dimensions must be equal, but are {ka} and {kb}", dtype,
                             attrs, (a, b))
        return TensorSpec([m, n], dtype)

    def kernel(a, b, transpose_a=False, transpose_b=False):
        if (a.ndim == 2 == b.ndim and not transpose_a and not transpose_b
                and a.shape[1] == b.shape[0] and a.dtype.itemsize != 2):
            return a @ b  # the common case, checked in one line (graphs call this per op)
        # TF's oneDNN kernel (float32, bfloat16) checks the ranks; the Eigen one checks first
        # that they are equal
        if a.ndim != b.ndim and a.dtype not in _ONEDNN_MATMUL:
            raise invalid_argument(f"In[0] and In[1] has different ndims: {dims_text(a.shape)} vs. "
                                   f"{dims_text(b.shape)}")
        for i, x in enumerate((a, b)):
            if x.ndim < 2:
                raise invalid_argument(f"In[{i}] ndims must be >= 2")
        x = a.T if transpose_a else a
        y = b.T if transpose_b else b
        if x.shape[1] != y.shape[0]:
            raise _size_error(a, b)
        return _blas_matmul(x, y)


@define_op("BatchMatMulV2")
class BatchMatMulV2:
    """Batched x @ y with broadcasting batch dims and optional adjoints."""

    check = kernel_check("BatchMatMulV2", BMM_T, UINTS)

    def infer(x, y, adj_x=False, adj_y=False):
        dtype = check_dtypes("BatchMatMulV2", (x, y), BMM_T, ("x", "y"))
        attrs = {"adj_x": adj_x, "adj_y": adj_y}
        for t in (x, y):
            if t.shape.rank is not None and t.shape.rank < 2:
                raise node_error("MatMul", f"Shape must be at least rank 2 but is rank "
                                 f"{t.shape.rank}", dtype, attrs, (x, y))
        if x.shape.rank is None or y.shape.rank is None:
            return TensorSpec(None, dtype)
        sx, sy = x.shape.dims, y.shape.dims
        m, kx = (sx[-1], sx[-2]) if adj_x else (sx[-2], sx[-1])
        ky, n = (sy[-1], sy[-2]) if adj_y else (sy[-2], sy[-1])
        if not _same_dim(kx, ky):
            raise node_error("MatMul", f"Dimensions must be equal, but are {kx} and {ky}", dtype,
                             attrs, (x, y))
        batch = broadcast_batch(TensorShape(sx[:-2]), TensorShape(sy[:-2]), "MatMul", dtype,
                                attrs, (x, y))
        return TensorSpec(batch + [m, n], dtype)

    def kernel(x, y, adj_x=False, adj_y=False):
        for i, v in enumerate((x, y)):
            if v.ndim < 2:
                raise invalid_argument(f"In[{i}] ndims must be >= 2: {v.ndim}")
        try:
            np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
        except ValueError:
            raise invalid_argument(f"In[0] and In[1] must have compatible batch dimensions: "
                                   f"{dims_text(x.shape)} vs. {dims_text(y.shape)}") from None
        a = matrix_t(x, True) if adj_x else x
        b = matrix_t(y, True) if adj_y else y
        if a.shape[-1] != b.shape[-2]:
            raise _size_error(x, y)
        return _blas_matmul(a, b)


@tf_export("linalg.matmul", "matmul")
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False, grad_b=False,
           name=None):
    """The matrix product of ``a`` and ``b`` (batched, broadcasting batch dims).

    Raises:
        ValueError: if both ``transpose_x`` and ``adjoint_x`` are set, or shapes mismatch while
            tracing.
        InvalidArgumentError: for shapes or dtypes the op rejects at run time.
    """
    if (type(a) is EagerTensor and type(b) is EagerTensor and a._value.ndim == 2 == b._value.ndim
            and not (transpose_a or transpose_b or adjoint_a or adjoint_b or output_type)):
        return bind(MatMul, a, b)  # the eager hot path: two matrices, no flags
    for t, adj, which in ((transpose_a, adjoint_a, "a"), (transpose_b, adjoint_b, "b")):
        if t and adj:
            raise ValueError(f"Only one of `transpose_{which}` and `adjoint_{which}` can be "
                             f"True. Received `transpose_{which}`={t}, `adjoint_{which}`={adj}.")
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype_hint=a.dtype)
    if output_type is not None and D.as_dtype(output_type) != a.dtype:
        raise NotImplementedError(f"matmul with output_type={D.as_dtype(output_type).name} "
                                  f"for {a.dtype.name} inputs is not supported")
    ra, rb = a.shape.rank, b.shape.rank
    complex_adj = a.dtype.is_complex and (adjoint_a or adjoint_b)
    batched = ra is None or rb is None or ra > 2 or rb > 2  # TF's rule: rank<=2 is MatMul
    if not batched and not complex_adj:
        # default flags are left out, so graphs run the op as the ``expr`` ``a @ b``
        flags = {k: True for k, v in (("transpose_a", transpose_a or adjoint_a),
                                      ("transpose_b", transpose_b or adjoint_b)) if v}
        return bind(MatMul, a, b, **flags)
    # BatchMatMulV2 has adjoints only: TF conjugates then adjoints for a complex transpose;
    # transposing first is the same product.
    if transpose_a:
        a, adjoint_a = _plain_transpose(a)
    if transpose_b:
        b, adjoint_b = _plain_transpose(b)
    return bind(BatchMatMulV2, a, b, adj_x=bool(adjoint_a), adj_y=bool(adjoint_b))


def _plain_transpose(x):
    """(x, adjoint flag): real tensors use the op's adjoint; complex ones are transposed."""
    if x.dtype.is_complex:
        return bind(MatrixTranspose, x, conjugate=False), False
    return x, True


Tensor._override_operator("__matmul__", lambda self, other: matmul(self, operand(other, self)))
Tensor._override_operator("__rmatmul__", lambda self, other: matmul(operand(other, self), self))


# --- tensordot -----------------------------------------------------------------------------------
def _tensordot_axes(a, b, axes):
    """Normalise ``axes`` to two tuples of non-negative axes, with TF's errors."""
    axes = static_attr(axes, "tensordot axes")
    ra, rb = a.shape.rank, b.shape.rank
    if ra is None or rb is None:
        raise ValueError("tensordot needs inputs of known rank")
    if isinstance(axes, int):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        if axes > ra:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of "
                             f"tensor {a}.  Received {axes}, vs tensor dimensions {ra}.")
        return tuple(range(ra - axes, ra)), tuple(range(axes))
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
        raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
    xa, xb = axes
    xa = [xa] if isinstance(xa, int) else list(xa)
    xb = [xb] if isinstance(xb, int) else list(xb)
    if len(xa) != len(xb):
        raise ValueError(f"Different number of contraction axes `a` and `b`, {len(xa)} != "
                         f"{len(xb)}.")
    return tuple(int(i) % ra for i in xa), tuple(int(i) % rb for i in xb)


@define_op("Tensordot")
class Tensordot:
    """tf.tensordot fused into one op (TF builds Transpose/Reshape/MatMul)."""

    check = kernel_check("MatMul", MATMUL_T, UINTS)

    def infer(a, b, axes_a, axes_b):
        dtype = check_dtypes("MatMul", (a, b), MATMUL_T, ("a", "b"))
        sa, sb = a.shape.dims, b.shape.dims
        for i, j in zip(axes_a, axes_b):
            if not _same_dim(sa[i], sb[j]):
                raise node_error("MatMul", f"Dimensions must be equal, but are {sa[i]} and "
                                 f"{sb[j]}", dtype, {"transpose_a": False, "transpose_b": False},
                                 (a, b))
        free_a = [d for i, d in enumerate(sa) if i not in axes_a]
        free_b = [d for i, d in enumerate(sb) if i not in axes_b]
        return TensorSpec(free_a + free_b, dtype)

    def kernel(a, b, axes_a, axes_b):
        if [a.shape[i] for i in axes_a] != [b.shape[j] for j in axes_b]:
            k_a = int(np.prod([a.shape[i] for i in axes_a]))
            k_b = int(np.prod([b.shape[j] for j in axes_b]))
            raise invalid_argument(f"Matrix size-incompatible: In[0]: [{a.size // max(k_a, 1)},"
                                   f"{k_a}], In[1]: [{k_b},{b.size // max(k_b, 1)}]")
        out = via_float32(lambda x, y: np.tensordot(x, y, (axes_a, axes_b)), a, b)
        return np.asarray(out)


@tf_export("linalg.tensordot", "tensordot")
def tensordot(a, b, axes, name=None):
    """Sum of products over ``axes`` (an int N: last N of ``a`` with first N of ``b``; or a pair
    of axis lists).

    Raises:
        ValueError: for negative, too large or mismatched ``axes``.
    """
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype_hint=a.dtype)
    axes_a, axes_b = _tensordot_axes(a, b, axes)
    return bind(Tensordot, a, b, axes_a=axes_a, axes_b=axes_b)


# --- norm ----------------------------------------------------------------------------------------
_SQRT_T = dtypes_named("bfloat16", "float16", "float32", "float64", "complex64", "complex128")
_MATRIX_ORDS = ("euclidean", "fro", 1, 2, np.inf)


def _norm_args(rank, ord, axis):
    """Validate tf.norm's ``ord``/``axis`` as TF does; returns (axis tuple or None, is_matrix)."""
    if axis is not None:
        axis = static_attr(axis, "norm axis")
    is_matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if is_matrix:
        axis = tuple(int(a) for a in axis)
        if axis[0] == axis[1] or (rank is not None and axis[0] % rank == axis[1] % rank):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, "
                             f"got {axis}")
        if ord not in _MATRIX_ORDS or isinstance(ord, bool):
            raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, "
                             f"inf], got {ord}")
        return axis, True
    if axis is not None and not isinstance(axis, int):
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got "
                         f"{axis}")
    supported = ord in ("euclidean", 1, 2, np.inf) or (
        not isinstance(ord, (str, bool)) and isinstance(ord, (int, float)) and ord > 0)
    if not supported:
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    return (None if axis is None else (int(axis),)), False


def _norm_dtype(dtype, ord, is_matrix):
    """TF's euclidean norms of complex tensors stay complex; the others are real."""
    if ord in ("euclidean", "fro") or (ord == 2 and not is_matrix):
        return dtype
    return dtype.real_dtype


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
            allowed = ", ".join(c_name(d) for d in _SQRT_T)
            raise invalid_argument(f"Value for attr 'T' of {c_name(dtype)} is not in the list "
                                   f"of allowed values: {allowed}")
        axes = _norm_axes(x.ndim, axis)
        out = _matrix_norm(x, ord, axes) if is_matrix else _vector_norm(x, ord, axes)
        if not keepdims:
            out = np.squeeze(out, axis=axes)
        return np.asarray(out).astype(_norm_dtype(dtype, ord, is_matrix)._np, copy=False)


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


# --- square-matrix ops ---------------------------------------------------------------------------
_LINALG_T = dtypes_named("float64", "float32", "float16", "complex64", "complex128")
_DET_T = dtypes_named("float16", "float32", "float64", "complex64", "complex128")


def _square_infer(op_name, x, attrs, names=("input",)):
    dtype = check_dtypes(op_name, (x,), _LINALG_T if op_name != "MatrixDeterminant" else _DET_T)
    dims = x.shape.dims
    if dims is None:
        return None, dtype
    if len(dims) < 2:
        raise node_error(op_name, f"Shape must be at least rank 2 but is rank {len(dims)}", dtype,
                         attrs, (x,), names)
    if not _same_dim(dims[-1], dims[-2]):
        raise node_error(op_name, f"Dimensions must be equal, but are {dims[-2]} and {dims[-1]}",
                         dtype, attrs, (x,), names)
    n = dims[-1] if dims[-1] is not None else dims[-2]
    return dims[:-2] + [n, n], dtype


def _check_square(x):
    if x.ndim < 2:
        raise invalid_argument(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
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


@define_op("MatrixDeterminant")
class MatrixDeterminant:
    """The determinant of each innermost square matrix."""

    check = kernel_check("MatrixDeterminant", _DET_T, (D.float16,), same=1)

    def infer(x):
        shape, dtype = _square_infer("MatrixDeterminant", x, {})
        return TensorSpec(None if shape is None else shape[:-2], dtype)

    def kernel(x):
        _check_square(x)
        return np.asarray(np.linalg.det(x)).astype(x.dtype)


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
        wide = np.float32 if input.dtype == np.float16 else input.dtype
        sign, logdet = np.linalg.slogdet(input.astype(wide, copy=False))
        return (np.asarray(sign).astype(input.dtype), np.asarray(logdet).astype(input.dtype))


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
        wide = np.float32 if input.dtype == np.float16 else input.dtype
        real = np.finfo(input.dtype).dtype if input.dtype.kind == "c" else input.dtype
        if compute_v:
            e, v = np.linalg.eigh(input.astype(wide, copy=False), UPLO="L")
            return e.astype(real), v.astype(input.dtype)
        e = np.linalg.eigvalsh(input.astype(wide, copy=False), UPLO="L")
        return e.astype(real), np.zeros([0], input.dtype)


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
            raise node_error("Qr", f"Shape must be at least rank 2 but is rank {len(dims)}",
                             dtype, {"full_matrices": full_matrices}, (input,))
        *batch, m, n = dims
        k = None if m is None or n is None else min(m, n)
        if full_matrices:
            return TensorSpec(batch + [m, m], dtype), TensorSpec(batch + [m, n], dtype)
        return TensorSpec(batch + [m, k], dtype), TensorSpec(batch + [k, n], dtype)

    def kernel(input, full_matrices=False):
        if input.ndim < 2:
            raise invalid_argument(f"Input tensor 0 must have rank >= 2, got {input.ndim}")
        wide = np.float32 if input.dtype == np.float16 else input.dtype
        q, r = np.linalg.qr(input.astype(wide, copy=False),
                            mode="complete" if full_matrices else "reduced")
        return q.astype(input.dtype), r.astype(input.dtype)


@define_op("MatrixSolve")
class MatrixSolve:
    """X with matrix @ X = rhs (adjoint(matrix) @ X = rhs when ``adjoint``), batched."""

    check = DtypeCheck("MatrixSolve", _LINALG_T, same=2)

    def infer(matrix, rhs, adjoint=False):
        dtype = check_dtypes("MatrixSolve", (matrix, rhs), _LINALG_T, ("matrix", "rhs"))
        attrs = {"adjoint": adjoint}
        shape, _ = _square_infer("MatrixSolve", matrix, attrs, ("matrix", "rhs"))
        rdims = rhs.shape.dims
        if shape is None or rdims is None:
            return TensorSpec(None if rdims is None else rdims, dtype)
        if len(rdims) != len(shape):
            raise node_error("MatrixSolve", f"Shape must be rank {len(shape)} but is rank "
                             f"{len(rdims)}", dtype, attrs, (matrix, rhs), ("matrix", "rhs"))
        out = []
        for x, y in zip(shape[:-1], rdims[:-1]):
            if not _same_dim(x, y):
                raise node_error("MatrixSolve", f"Dimensions must be equal, but are {x} and {y}",
                                 dtype, attrs, (matrix, rhs), ("matrix", "rhs"))
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


@tf_export("linalg.inv")
def inv(input, adjoint=False, name=None):
    """The inverse of each innermost square matrix.

    Raises:
        InvalidArgumentError: "Input is not invertible." for singular matrices.
    """
    return bind(MatrixInverse, convert_to_tensor(input), adjoint=bool(adjoint))


@tf_export("linalg.det")
def det(input, name=None):
    """The determinant of each innermost square matrix."""
    return bind(MatrixDeterminant, convert_to_tensor(input))


@tf_export("linalg.solve")
def solve(matrix, rhs, adjoint=False, name=None):
    """Solve ``matrix @ X = rhs`` for X (batch dims must match exactly, as in TF)."""
    matrix = convert_to_tensor(matrix)
    return bind(MatrixSolve, matrix, convert_to_tensor(rhs, dtype_hint=matrix.dtype),
                adjoint=bool(adjoint))


@tf_export("linalg.cholesky")
def cholesky(input, name=None):
    """The lower-triangular Cholesky factor of each innermost Hermitian matrix."""
    return bind(Cholesky, convert_to_tensor(input))


# --- transpose, trace, diagonals, band part ------------------------------------------------------
@define_op("MatrixTranspose")
class MatrixTranspose:
    """Swap the innermost two dims (conjugating when ``conjugate``): TF's Transpose with the
    perm [..., n-1, n-2], which needs no run-time perm here."""

    def infer(x, conjugate=False):
        dims = x.shape.dims
        return TensorSpec(None if dims is None else dims[:-2] + [dims[-1], dims[-2]], x.dtype)

    def kernel(x, conjugate=False):
        if x.ndim < 2:
            raise invalid_argument(f"transpose expects a matrix, got shape {dims_text(x.shape)}")
        return matrix_t(x, conjugate)


@tf_export("linalg.matrix_transpose")
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Transpose the innermost two dimensions of ``a``.

    Raises:
        ValueError: if ``a`` has a known rank below 2.
    """
    a = convert_to_tensor(a)
    rank = a.shape.rank
    if rank is not None and rank < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` "
                         f"= {static_value(a)} with shape: {a.shape}")
    return bind(MatrixTranspose, a, conjugate=bool(conjugate))


@tf_export("linalg.adjoint")
def adjoint(matrix, name=None):
    """The conjugate transpose of the innermost two dimensions."""
    return matrix_transpose(matrix, conjugate=True)


@define_op("Trace")
class Trace:
    """tf.linalg.trace fused into one op (TF builds MatrixDiagPartV3 then Sum)."""

    check = DtypeCheck("Sum", NUMERIC, same=1)

    def infer(x):
        check_dtypes("Sum", (x,), NUMERIC, ("input",))
        dims = x.shape.dims
        if dims is not None and len(dims) < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)}")
        return TensorSpec(None if dims is None else dims[:-2], x.dtype)

    def kernel(x):
        if x.ndim < 2:
            raise invalid_argument(f"input must be at least 2-dim, received shape: "
                                   f"{dims_text(x.shape)}")
        return np.asarray(np.trace(x, axis1=-2, axis2=-1)).astype(x.dtype, copy=False)


@tf_export("linalg.trace")
def trace(x, name=None):
    """The sum of the main diagonal of each innermost matrix."""
    return bind(Trace, convert_to_tensor(x))


_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _diag_offset(d, length, max_len, align):
    """Where diagonal ``d`` starts in its padded row: superdiagonals (and the main one) follow
    the first half of ``align``, subdiagonals the second."""
    side = align.split("_")[0 if d >= 0 else 1]
    return 0 if side == "LEFT" else max_len - length


def _diag_len(d, rows, cols):
    return min(rows + min(d, 0), cols - max(d, 0))


def _diag_index(d, length):
    i = np.arange(length)
    return i + max(-d, 0), i + max(d, 0)


def _k_pair(k):
    k = np.asarray(k).reshape(-1)
    if k.size not in (1, 2):
        raise invalid_argument(f"diag_index must be a scalar or vector with at most 2 elements, "
                               f"received {k.size}")
    return int(k[0]), int(k[-1])


def _diag_out_shape(dshape, k, num_rows, num_cols):
    """Output dims of MatrixDiagV3 (None where unknown)."""
    k0, k1 = k
    band = k0 != k1
    max_len = dshape[-1]
    batch = dshape[:-2] if band else dshape[:-1]
    if max_len is None:
        return batch + [None if num_rows in (None, -1) else num_rows,
                        None if num_cols in (None, -1) else num_cols]
    min_rows, min_cols = max_len - min(k1, 0), max_len + max(k0, 0)
    if num_rows in (None, -1) and num_cols in (None, -1):
        num_rows = num_cols = max(min_rows, min_cols)
    elif num_rows in (None, -1):
        num_rows = min_rows
    elif num_cols in (None, -1):
        num_cols = min_cols
    return batch + [num_rows, num_cols]


def _static_int(t):
    v = static_value(t)
    return None if v is None else v


@define_op("MatrixDiagV3")
class MatrixDiagV3:
    """A batch of matrices with the given diagonals (band ``k``) and ``padding_value`` elsewhere."""

    def infer(diagonal, k, num_rows, num_cols, padding_value, align="RIGHT_LEFT"):
        dims = diagonal.shape.dims
        kv = _static_int(k)
        if dims is None or kv is None:
            return TensorSpec(None, diagonal.dtype)
        if len(dims) < 1:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        k0, k1 = _k_pair(kv)
        rows, cols = _static_int(num_rows), _static_int(num_cols)
        rows = None if rows is None else int(rows)
        cols = None if cols is None else int(cols)
        return TensorSpec(_diag_out_shape(dims, (k0, k1), rows, cols), diagonal.dtype)

    def kernel(diagonal, k, num_rows, num_cols, padding_value, align="RIGHT_LEFT"):
        if diagonal.ndim < 1:
            raise invalid_argument(f"diagonal must be at least 1-dim, received shape: "
                                   f"{dims_text(diagonal.shape)}")
        k0, k1 = _k_pair(k)
        if k0 > k1:
            raise invalid_argument(f"lower_diag_index must not be larger than upper_diag_index: "
                                   f"{k0} > {k1}")
        band = k0 != k1
        if band and (diagonal.ndim < 2 or diagonal.shape[-2] != k1 - k0 + 1):
            raise invalid_argument("The number of diagonals provided in the input does not "
                                   "match the lower_diag_index and upper_diag_index range.")
        max_len = diagonal.shape[-1]
        rows, cols = _diag_out_shape(list(diagonal.shape), (k0, k1), int(num_rows),
                                     int(num_cols))[-2:]
        if rows != max_len - min(k1, 0) and cols != max_len + max(k0, 0):
            raise invalid_argument("The number of rows or columns is not consistent with the "
                                   "specified d_lower, d_upper, and diagonal.")
        batch = diagonal.shape[:-2] if band else diagonal.shape[:-1]
        out = np.full(batch + (rows, cols), padding_value, dtype=diagonal.dtype)
        for row, d in enumerate(range(k1, k0 - 1, -1)):
            length = _diag_len(d, rows, cols)
            if length <= 0:
                continue
            off = _diag_offset(d, length, max_len, align)
            r, c = _diag_index(d, length)
            src = diagonal[..., row, :] if band else diagonal
            out[..., r, c] = src[..., off:off + length]
        return out


@define_op("MatrixDiagPartV3")
class MatrixDiagPartV3:
    """The diagonals ``k`` of each innermost matrix (a band: stacked, padded rows)."""

    def infer(x, k, padding_value, align="RIGHT_LEFT"):
        dims = x.shape.dims
        kv = _static_int(k)
        if dims is not None and len(dims) < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)}")
        if dims is None or kv is None:
            return TensorSpec(None, x.dtype)
        k0, k1 = _k_pair(kv)
        rows, cols = dims[-2], dims[-1]
        if rows is None or cols is None:
            length = None
        else:
            length = min(rows + min(k1, 0), cols - max(k0, 0))
        tail = [length] if k0 == k1 else [k1 - k0 + 1, length]
        return TensorSpec(dims[:-2] + tail, x.dtype)

    def kernel(x, k, padding_value, align="RIGHT_LEFT"):
        if x.ndim < 2:
            raise invalid_argument(f"input must be at least 2-dim, received shape: "
                                   f"{dims_text(x.shape)}")
        k0, k1 = _k_pair(k)
        rows, cols = x.shape[-2:]
        for name, d in (("lower_diag_index", k0), ("upper_diag_index", k1)):
            if not (-rows < d < cols or d == 0):
                raise invalid_argument(f"{name} is out of bound: {d}. It must be between "
                                       f"{-rows} and {cols}")
        if k0 > k1:
            raise invalid_argument(f"lower_diag_index must not be larger than upper_diag_index: "
                                   f"{k0} > {k1}")
        max_len = min(rows + min(k1, 0), cols - max(k0, 0))
        out = np.full(x.shape[:-2] + (k1 - k0 + 1, max_len), padding_value, dtype=x.dtype)
        for row, d in enumerate(range(k1, k0 - 1, -1)):
            length = _diag_len(d, rows, cols)
            off = _diag_offset(d, length, max_len, align)
            r, c = _diag_index(d, length)
            out[..., row, off:off + length] = x[..., r, c]
        return out[..., 0, :] if k0 == k1 else out


def _diag_args(dtype, k, padding_value, align):
    if align not in _ALIGNS:
        raise ValueError(f"Attr 'align' of \"{align}\" is not in the list of allowed values: "
                         + ", ".join(f'"{a}"' for a in _ALIGNS))
    k = convert_to_tensor(k, dtype=D.int32)
    if dtype is D.bool and not isinstance(padding_value, Tensor):  # TF casts it for bool
        padding_value = np.bool_(padding_value)
    return k, convert_to_tensor(padding_value, dtype=dtype)


@tf_export("linalg.diag")
def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
         align="RIGHT_LEFT"):
    """Matrices whose diagonal(s) ``k`` are ``diagonal`` (a band when ``k`` is a pair)."""
    diagonal = convert_to_tensor(diagonal)
    k, pad = _diag_args(diagonal.dtype, k, padding_value, align)
    return bind(MatrixDiagV3, diagonal, k, convert_to_tensor(num_rows, dtype=D.int32),
                convert_to_tensor(num_cols, dtype=D.int32), pad, align=align)


@tf_export("linalg.diag_part")
def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):
    """The diagonal(s) ``k`` of each innermost matrix."""
    input = convert_to_tensor(input)
    k, pad = _diag_args(input.dtype, k, padding_value, align)
    return bind(MatrixDiagPartV3, input, k, pad, align=align)


@define_op("MatrixBandPart")
class MatrixBandPart:
    """Zero everything outside a band of ``num_lower`` sub- and ``num_upper`` superdiagonals
    (negative: keep that whole triangle)."""

    check = kernel_check("MatrixBandPart", ALL, (D.string,), same=1)

    def infer(x, num_lower, num_upper):
        check_dtypes("MatrixBandPart", (num_lower, num_upper), (D.int32, D.int64),
                     ("num_lower", "num_upper"))
        dims = x.shape.dims
        if dims is not None and len(dims) < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)}")
        return TensorSpec(x.shape, x.dtype)

    def kernel(x, num_lower, num_upper):
        if x.ndim < 2:
            raise invalid_argument(f"input must be at least 2-dim, received shape: "
                                   f"{dims_text(x.shape)}")
        rows, cols = x.shape[-2:]
        lower, upper = int(num_lower), int(num_upper)
        if lower > rows:
            raise invalid_argument(f"num_lower must be negative or less or equal to number of "
                                   f"rows ({rows}) got: {lower}")
        if upper > cols:
            raise invalid_argument(f"num_upper must be negative or less or equal to number of "
                                   f"columns ({cols}) got: {upper}")
        i = np.arange(rows)[:, None]
        j = np.arange(cols)[None, :]
        keep = np.ones((rows, cols), bool)
        if lower >= 0:
            keep &= (i - j) <= lower
        if upper >= 0:
            keep &= (j - i) <= upper
        return np.where(keep, x, np.zeros((), x.dtype))


@tf_export("linalg.band_part")
def band_part(input, num_lower, num_upper, name=None):
    """Keep a central band of each innermost matrix, zero the rest."""
    input = convert_to_tensor(input)
    num_lower = convert_to_tensor(num_lower, dtype_hint=D.int64 if isinstance(
        num_upper, Tensor) and num_upper.dtype == D.int64 else None)
    num_upper = convert_to_tensor(num_upper, dtype_hint=num_lower.dtype)
    return bind(MatrixBandPart, input, num_lower, num_upper)


# --- l2_normalize --------------------------------------------------------------------------------
@define_op("L2Normalize")
class L2Normalize:
    """x / sqrt(max(sum(|x|^2, axis), epsilon)): tf.math.l2_normalize fused into one op."""

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
    if axis is not None:
        axis = as_ints(axis, "l2_normalize axis")
        if x.shape.rank is not None:
            axis = tuple(a % max(x.shape.rank, 1) for a in axis)
    return bind(L2Normalize, x, axis=axis, epsilon=float(epsilon))


@define_op("Diag")
class Diag:
    """A tensor of shape ``s + s`` with ``diagonal`` (shape ``s``) on its diagonal."""

    check = DtypeCheck("Diag", NUMERIC, same=1)

    def infer(diagonal):
        check_dtypes("Diag", (diagonal,), NUMERIC, ("diagonal",))
        dims = diagonal.shape.dims
        return TensorSpec(None if dims is None else dims + dims, diagonal.dtype)

    def kernel(diagonal):
        flat = np.asarray(diagonal).reshape(-1)
        out = np.zeros((flat.size, flat.size), flat.dtype)
        out[np.arange(flat.size), np.arange(flat.size)] = flat
        return out.reshape(np.shape(diagonal) * 2)


@define_op("DiagPart")
class DiagPart:
    """The diagonal of a tensor of shape ``s + s`` (shape ``s``)."""

    check = DtypeCheck("DiagPart", NUMERIC, same=1)

    def infer(input):
        check_dtypes("DiagPart", (input,), NUMERIC, ("input",))
        dims = input.shape.dims
        if dims is not None and len(dims) % 2:
            raise ValueError(f"Input must have even rank <= 6, input rank is {len(dims)}")
        return TensorSpec(None if dims is None else dims[:len(dims) // 2], input.dtype)

    def kernel(input):
        half = input.ndim // 2
        if input.ndim % 2 or input.shape[:half] != input.shape[half:]:
            raise invalid_argument(f"Invalid shape {dims_text(input.shape)}: dimensions must "
                                   f"come in equal pairs")
        n = int(np.prod(input.shape[:half], dtype=np.int64))
        flat = np.asarray(input).reshape(n, n)
        return flat[np.arange(n), np.arange(n)].reshape(input.shape[:half])


@tf_export("linalg.tensor_diag")
def tensor_diag(diagonal, name=None):
    """A tensor with ``diagonal`` on its diagonal: shape ``s`` becomes ``s + s``."""
    return bind(Diag, convert_to_tensor(diagonal))


@tf_export("linalg.tensor_diag_part")
def tensor_diag_part(input, name=None):
    """The diagonal of a tensor of shape ``s + s``."""
    return bind(DiagPart, convert_to_tensor(input))


# --- gradients --------------------------------------------------------------------------------
# Rules written with the public API (so they run eagerly, while tracing and under outer tapes),
# following TF's linalg_grad.py and math_grad.py (MatMul); tf.norm is differentiated through its
# composition from reductions, as TF builds it.
from ...registry import get as _get_op  # noqa: E402


from ...autodiff.grad_util import public as _tf  # noqa: E402
from ...autodiff.grad_util import skip as _skip  # noqa: E402
from ...autodiff.grad_util import unbroadcast as _unbroadcast  # noqa: E402
from ...autodiff.grad_util import via_composite as _via_composite  # noqa: E402


def _matmul_grad(op, g):
    """TF's _MatMulGrad: each operand's gradient is a product of g with the other operand."""
    tf = _tf()
    a, b = op.inputs
    ta, tb = op.attrs.get("transpose_a", False), op.attrs.get("transpose_b", False)
    mm, conj = tf.matmul, tf.math.conj
    ca, cb = (None if _skip(op, 1) else conj(a)), (None if _skip(op, 0) else conj(b))
    if not ta and not tb:
        ga = None if cb is None else mm(g, cb, transpose_b=True)
        gb = None if ca is None else mm(ca, g, transpose_a=True)
    elif not ta and tb:
        ga = None if cb is None else mm(g, cb)
        gb = None if ca is None else mm(g, ca, transpose_a=True)
    elif ta and not tb:
        ga = None if cb is None else mm(cb, g, transpose_b=True)
        gb = None if ca is None else mm(ca, g)
    else:
        ga = None if cb is None else mm(cb, g, transpose_a=True, transpose_b=True)
        gb = None if ca is None else mm(g, ca, transpose_a=True, transpose_b=True)
    return ga, gb

def _batch_matmul_grad(op, g):
    tf = _tf()
    x, y = op.inputs
    adj_x, adj_y = op.attrs.get("adj_x", False), op.attrs.get("adj_y", False)
    mm = tf.matmul
    if not adj_x and not adj_y:
        gx, gy = mm(g, y, adjoint_b=True), mm(x, g, adjoint_a=True)
    elif not adj_x and adj_y:
        gx, gy = mm(g, y), mm(g, x, adjoint_a=True)
    elif adj_x and not adj_y:
        gx, gy = mm(y, g, adjoint_b=True), mm(x, g)
    else:
        gx, gy = mm(y, g, adjoint_a=True, adjoint_b=True), mm(g, x, adjoint_a=True,
                                                              adjoint_b=True)
    return _batch_sum(gx, x), _batch_sum(gy, y)

def _batch_sum(g, x):
    """Sum g over the batch dims x was broadcast along (its last two dims are x's)."""
    return _unbroadcast(g, x)

def _tensordot_grad(op, g):
    """Contract g with the other operand over its free axes, then put x's axes back in order."""
    tf = _tf()
    a, b = op.inputs
    axes_a, axes_b = list(op.attrs["axes_a"]), list(op.attrs["axes_b"])
    ra, rb = a.shape.rank, b.shape.rank
    axes_a, axes_b = [x % ra for x in axes_a], [x % rb for x in axes_b]
    free_a = [i for i in range(ra) if i not in axes_a]
    free_b = [i for i in range(rb) if i not in axes_b]
    na, nb = len(free_a), len(free_b)
    # g has free_a dims then free_b dims
    ga = tf.tensordot(g, tf.math.conj(b), [list(range(na, na + nb)), free_b])
    # ga: free_a + axes_b(order of b's remaining = axes_b sorted by position in b) ...
    order_b = [i for i in range(rb) if i in axes_b]  # dims of b left in ga, in b's order
    a_of = {bb: aa for aa, bb in zip(axes_a, axes_b)}
    current = free_a + [a_of[i] for i in order_b]
    ga = tf.transpose(ga, [current.index(i) for i in range(ra)])
    gb = tf.tensordot(tf.math.conj(a), g, [free_a, list(range(na))])
    order_a = [i for i in range(ra) if i in axes_a]
    b_of = {aa: bb for aa, bb in zip(axes_a, axes_b)}
    current = [b_of[i] for i in order_a] + free_b
    gb = tf.transpose(gb, [current.index(i) for i in range(rb)])
    return ga, gb

def _matrix_transpose_grad(op, g):
    return _tf().linalg.matrix_transpose(g, conjugate=op.attrs.get("conjugate", False))

def _matrix_dims(x):
    """(rows, cols) of x's innermost matrices: ints when static, else scalar tensors."""
    tf = _tf()
    dims = x.shape.dims if x.shape.rank is not None else None
    rows = dims[-2] if dims and dims[-2] is not None else tf.shape(x)[-2]
    cols = dims[-1] if dims and dims[-1] is not None else tf.shape(x)[-1]
    return rows, cols

def _trace_grad(op, g):
    tf = _tf()
    x = op.inputs[0]
    rows, cols = _matrix_dims(x)
    return tf.expand_dims(tf.expand_dims(g, -1), -1) * tf.eye(rows, cols, dtype=x.dtype)

def _static_attr(t):
    from ...tensor import static_value

    value = static_value(t)
    if value is None:
        raise NotImplementedError("this gradient needs the diagonal index k known when traced")
    return value.tolist()

def _matrix_diag_grad(op, g):
    k = _static_attr(op.inputs[1])
    return (_tf().linalg.diag_part(g, k=k, align=op.attrs.get("align", "RIGHT_LEFT")),
            None, None, None, None)

def _matrix_diag_part_grad(op, g):
    x = op.inputs[0]
    rows, cols = _matrix_dims(x)
    k = _static_attr(op.inputs[1])
    return (_tf().linalg.diag(g, k=k, num_rows=rows, num_cols=cols,
                              align=op.attrs.get("align", "RIGHT_LEFT")), None, None)

def _matrix_inverse_grad(op, g):
    tf = _tf()
    ainv = op.outputs[0]
    adj = op.attrs.get("adjoint", False)
    if adj:
        return -tf.matmul(ainv, tf.matmul(g, ainv, adjoint_a=True), adjoint_a=False)
    return -tf.matmul(ainv, tf.matmul(g, ainv, adjoint_b=True), adjoint_a=True)

def _determinant_grad(op, g):
    tf = _tf()
    a, det = op.inputs[0], op.outputs[0]
    inv = tf.linalg.inv(a)
    return tf.expand_dims(tf.expand_dims(g * det, -1), -1) * tf.linalg.matrix_transpose(
        inv, conjugate=True)

def _solve_grad(op, g):
    tf = _tf()
    a, rhs = op.inputs
    c = op.outputs[0]
    adj = op.attrs.get("adjoint", False)
    grad_b = tf.linalg.solve(a, g, adjoint=not adj)
    if adj:
        grad_a = -tf.matmul(c, grad_b, adjoint_b=True)
    else:
        grad_a = -tf.matmul(grad_b, c, adjoint_b=True)
    return _unbroadcast(grad_a, a), _unbroadcast(grad_b, rhs)

def _cholesky_grad(op, g):
    """TF's _CholeskyGrad (Murray's formula)."""
    tf = _tf()
    factor = op.outputs[0]
    linv = tf.linalg.inv(factor)
    middle = tf.matmul(factor, g, adjoint_a=True)
    middle = tf.linalg.band_part(middle, -1, 0) - 0.5 * tf.linalg.diag(
        tf.linalg.diag_part(middle))
    grad_a = tf.matmul(tf.matmul(linv, middle, adjoint_a=True), linv)
    grad_a = 0.5 * (grad_a + tf.linalg.matrix_transpose(grad_a, conjugate=True))
    return grad_a

def _band_part_grad(op, g):
    tf = _tf()
    return tf.linalg.band_part(g, op.inputs[1], op.inputs[2]), None, None

def _diag_grad(op, g):
    return _tf().linalg.tensor_diag_part(g)

def _diag_part_grad(op, g):
    return _tf().linalg.tensor_diag(g)

def _l2_normalize_grad(op, g):
    """y = x / max(||x||, sqrt(eps)): where the norm is above the floor, the gradient is
    (g - y * sum(g * y)) / norm; below it, g / sqrt(eps)."""
    tf = _tf()
    x, y = op.inputs[0], op.outputs[0]
    axis, eps = op.attrs["axis"], op.attrs["epsilon"]
    square_sum = tf.reduce_sum(tf.square(x), axis, keepdims=True)
    norm = tf.sqrt(tf.maximum(square_sum, tf.cast(eps, square_sum.dtype)))
    projected = g - y * tf.reduce_sum(g * y, axis, keepdims=True)
    floored = tf.math.less(square_sum, tf.cast(eps, square_sum.dtype))
    return tf.where(floored, g / norm, projected / norm)

def _norm_composite(x, ord, axis, keepdims, is_matrix):
    """tf.norm as TF's Python builds it."""
    tf = _tf()
    rank = x.shape.rank
    axes = list(range(rank)) if axis is None else [a % rank for a in axis]
    if ord in ("euclidean", "fro") or (ord == 2 and not is_matrix):
        out = tf.sqrt(tf.reduce_sum(x * tf.math.conj(x), axes, keepdims=True))
    elif is_matrix and ord in (1, np.inf):
        r, c = axes if ord == 1 else axes[::-1]
        out = tf.reduce_max(tf.reduce_sum(tf.abs(x), r, keepdims=True), c, keepdims=True)
    elif is_matrix:
        raise NotImplementedError(f"the gradient of the matrix norm ord={ord!r}")
    elif ord == 1:
        out = tf.reduce_sum(tf.abs(x), axes, keepdims=True)
    elif ord == np.inf:
        out = tf.reduce_max(tf.abs(x), axes, keepdims=True)
    else:
        a = tf.abs(x)
        out = tf.pow(tf.reduce_sum(tf.pow(a, ord), axes, keepdims=True), 1.0 / ord)
    return out if keepdims else tf.squeeze(out, axes)


def _log_det_grad(op, g_sign, g_logdet):
    """TF's rule: d log|det A| / dA = adjoint(inv(A)); the sign has no gradient."""
    tf = _tf()
    a = op.inputs[0]
    return tf.expand_dims(tf.expand_dims(g_logdet, -1), -1) * tf.linalg.adjoint(
        tf.linalg.inv(a))

def _safe_reciprocal(x, epsilon=1e-20):
    tf = _tf()
    return x * tf.math.reciprocal(x * x + epsilon)

def _eigh_grad(op, grad_e, grad_v):
    """TF's _SelfAdjointEigV2Grad."""
    tf = _tf()
    e = op.outputs[0]
    a = op.inputs[0]
    if grad_e is None:
        grad_e = tf.zeros_like(e)
    grad_e = tf.cast(grad_e, a.dtype)
    ec = tf.cast(e, a.dtype)
    if op.attrs.get("compute_v", True):
        v = op.outputs[1]
        f = tf.linalg.set_diag(_safe_reciprocal(tf.expand_dims(ec, -2) - tf.expand_dims(ec, -1)),
                               tf.zeros_like(ec))
        inner = tf.linalg.diag(grad_e)
        if grad_v is not None:
            inner = inner + f * tf.matmul(v, grad_v, adjoint_a=True)
        grad_a = tf.matmul(v, tf.matmul(inner, v, adjoint_b=True))
    else:
        _, v = tf.linalg.eigh(a)
        grad_a = tf.matmul(v, tf.matmul(tf.linalg.diag(grad_e), v, adjoint_b=True))
    # the op reads only the lower triangle: symmetrise, keep that triangle, halve the diagonal
    grad_a = tf.linalg.band_part(grad_a + tf.linalg.adjoint(grad_a), -1, 0)
    return tf.linalg.set_diag(grad_a, 0.5 * tf.linalg.diag_part(grad_a))


def _qr_grad(op, dq, dr):
    """TF's _QrGrad."""
    tf = _tf()
    q, r = op.outputs
    if r.shape.rank is None or None in r.shape.as_list()[-2:]:
        raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received "
                                  f"r.shape: {r.shape}")
    rows_r, cols_r = r.shape.as_list()[-2:]
    if rows_r > cols_r and q.shape[-2] == q.shape[-1]:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and "
                                  f"full_matrices is true. Received r.shape={r.shape} with "
                                  f"nrows={rows_r}and ncols={cols_r}.")
    dq = tf.zeros_like(q) if dq is None else dq
    dr = tf.zeros_like(r) if dr is None else dr

    def solve(x, r):  # x @ adjoint(inv(r)) for upper-triangular r
        return tf.linalg.adjoint(tf.linalg.triangular_solve(r, tf.linalg.adjoint(x),
                                                            lower=False))

    def square_and_deep(q, r, dq, dr):
        qdq = tf.matmul(q, dq, adjoint_a=True)
        qdq_ = qdq - tf.linalg.adjoint(qdq)
        rdr = tf.matmul(r, dr, adjoint_b=True)
        rdr_ = rdr - tf.linalg.adjoint(rdr)
        tril = tf.linalg.band_part(qdq_ + rdr_, -1, 0)
        out = tf.matmul(q, dr + solve(tril, r)) + solve(dq - tf.matmul(q, qdq), r)
        if q.dtype.is_complex:
            m = rdr - tf.linalg.adjoint(qdq)
            eyem = tf.linalg.set_diag(tf.zeros_like(m), tf.linalg.diag_part(m))
            correction = eyem - tf.cast(tf.math.real(eyem), q.dtype)
            out = out + solve(tf.matmul(q, tf.linalg.adjoint(correction)), r)
        return out

    num_rows, num_cols = q.shape[-2], r.shape[-1]
    if num_rows >= num_cols:
        return square_and_deep(q, r, dq, dr)
    a = op.inputs[0]
    y = a[..., :, num_rows:]
    u = r[..., :, :num_rows]
    dv = dr[..., :, num_rows:]
    du = dr[..., :, :num_rows]
    dy = tf.matmul(q, dv)
    dx = square_and_deep(q, u, dq + tf.matmul(y, dv, adjoint_b=True), du)
    return tf.concat([dx, dy], axis=-1)


_GRADS = {
    "MatMul": _matmul_grad,
    "BatchMatMulV2": _batch_matmul_grad,
    "Tensordot": _tensordot_grad,
    "MatrixTranspose": _matrix_transpose_grad,
    "Trace": _trace_grad,
    "MatrixInverse": _matrix_inverse_grad,
    "MatrixDeterminant": _determinant_grad,
    "LogMatrixDeterminant": _log_det_grad,
    "SelfAdjointEigV2": _eigh_grad,
    "Qr": _qr_grad,
    "MatrixSolve": _solve_grad,
    "Cholesky": _cholesky_grad,
    "MatrixBandPart": _band_part_grad,
    "Diag": _diag_grad,
    "DiagPart": _diag_part_grad,
    "MatrixDiagV3": _matrix_diag_grad,
    "MatrixDiagPartV3": _matrix_diag_part_grad,
    "L2Normalize": _l2_normalize_grad,
    "Norm": _via_composite(_norm_composite),
}
for _name, _rule in _GRADS.items():
    _get_op(_name).grad = _rule


_LogDet = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])
_Eigh = collections.namedtuple("SelfAdjointEigV2", ["e", "v"])


@tf_export("linalg.slogdet")
def slogdet(input, name=None):
    """(sign, log|det|) of each innermost square matrix."""
    return _LogDet(*bind(LogMatrixDeterminant, convert_to_tensor(input)))


@tf_export("linalg.logdet")
def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive definite matrices, via the Cholesky factor (as
    TF computes it)."""
    from ..math import log, real
    from ..reduce import reduce_sum

    chol = bind(public_op("Cholesky"), convert_to_tensor(matrix))
    return 2.0 * reduce_sum(log(real(diag_part(chol))), axis=[-1])


@tf_export("linalg.eigh")
def eigh(tensor, name=None):
    """(eigenvalues, eigenvectors) of each innermost self-adjoint matrix."""
    return _Eigh(*bind(SelfAdjointEigV2, convert_to_tensor(tensor), compute_v=True))


@tf_export("linalg.eigvalsh")
def eigvalsh(tensor, name=None):
    """The eigenvalues (ascending) of each innermost self-adjoint matrix."""
    return bind(SelfAdjointEigV2, convert_to_tensor(tensor), compute_v=False)[0]


@tf_export("linalg.set_diag", "linalg.matrix_set_diag")
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):
    """``input`` with its main diagonal replaced by ``diagonal`` (composed from public ops)."""
    from ..array import shape as shape_of
    from ..math import where

    if k != 0:
        raise NotImplementedError("tf.linalg.set_diag with k != 0")
    x = convert_to_tensor(input)
    d = convert_to_tensor(diagonal, x.dtype)
    rows, cols = shape_of(x)[-2], shape_of(x)[-1]
    mask = diag(public_op_ones_like(d, D.bool), num_rows=rows, num_cols=cols,
                padding_value=False)
    return where(mask, diag(d, num_rows=rows, num_cols=cols), x)


def public_op(name):
    from ...registry import get

    return get(name)


def public_op_ones_like(t, dtype):
    from ..array import ones_like

    return ones_like(t, dtype)


# --- composites of the ops above (differentiable through them) ---------------------------------
@tf_export("linalg.cross")
def cross(a, b, name=None):
    """The cross product of 3-vectors along the last axis (broadcasting the rest)."""
    from ..array import stack

    a = convert_to_tensor(a)
    b = convert_to_tensor(b, a.dtype)
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
    from ..array import eye

    a = convert_to_tensor(matrix)
    b = convert_to_tensor(rhs, a.dtype)
    rows, cols = a.shape[-2], a.shape[-1]
    if rows is None or cols is None:
        raise NotImplementedError("tf.linalg.lstsq needs static matrix dimensions")
    l2 = convert_to_tensor(l2_regularizer, a.dtype)
    if rows >= cols:
        gram = matmul(a, a, adjoint_a=True) + l2 * eye(cols, dtype=a.dtype)
        return bind(MatrixSolve, gram, matmul(a, b, adjoint_a=True), adjoint=False)
    gram = matmul(a, a, adjoint_b=True) + l2 * eye(rows, dtype=a.dtype)
    return matmul(a, bind(MatrixSolve, gram, b, adjoint=False), adjoint_a=True)


_Qr = collections.namedtuple("Qr", ["q", "r"])


@tf_export("linalg.qr", "qr")
def qr(input, full_matrices=False, name=None):
    """(q, r) with input = q @ r, q orthonormal and r upper-triangular, per innermost matrix."""
    return _Qr(*bind(Qr, convert_to_tensor(input), full_matrices=bool(full_matrices)))
