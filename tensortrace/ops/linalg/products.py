"""Matrix products: MatMul and BatchMatMulV2 behind ``tf.matmul`` and ``@``, and tensordot."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...graph.naming import default_name
from ...context import bind
from ...convert import convert_to_tensor, operand
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...tensor import EagerTensor, Tensor, TensorSpec
from .._base import UNSIGNED_INT, check_dtypes, dtypes_named
from .._args import static_attr
from ..math.casting import cast
from ...numerics import via_float32
from ...messages import shape_fn_error
from ._util import matrix_t, rank_error, same_dim
from .diagonals import MatrixTranspose

MATMUL_T = dtypes_named("bfloat16 float16 float32 float64 int32 int64 uint8 uint16 uint32 uint64 "
                        "complex64 complex128")
BMM_T = dtypes_named("bfloat16 float16 float32 float64 int16 int32 int64 uint8 uint16 uint32 "
                     "uint64 complex64 complex128")
# TF's OpDefs allow unsigned ints, but its CPU kernels do not handle them (NotFoundError)
_MATMUL_CHECK = DtypeCheck("MatMul", MATMUL_T,
                           kernels=[d for d in MATMUL_T if d not in UNSIGNED_INT])
_ONEDNN_MATMUL = frozenset(d._np for d in (D.float32, D.bfloat16) if d is not None)


def _size_error(a, b):
    return invalid_argument(f"Matrix size-incompatible: In[0]: {shape_text(a.shape)}, "
                            f"In[1]: {shape_text(b.shape)}")


def _broadcast_batch(a, b, op_name, dtype, attrs, inputs, names=("a", "b")):
    """Broadcast two batch shapes (dim lists) the way BatchMatMulV2 does."""
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x == 1 or y == 1:
            out.append(y if x == 1 else x)
        elif not same_dim(x, y):
            raise shape_fn_error(op_name, f"Dimensions must be equal, but are {x} and {y}", dtype,
                                 attrs, inputs, names)
        else:
            out.append(y if x is None else x)
    return out


def _product_dims(a, b, adj_a, adj_b, dtype, attrs, need):
    """(m, n) of the product of a's and b's innermost matrices, with TF's shape errors (``need``
    is the rank each input must have: ``"rank 2"`` or ``"at least rank 2"``)."""
    for t in (a, b):
        rank = t.shape.rank
        if rank is not None and (rank != 2 if need == "rank 2" else rank < 2):
            raise rank_error("MatMul", need, rank, dtype, attrs, (a, b))
    sa, sb = a.shape.dims or [None, None], b.shape.dims or [None, None]
    m, ka = (sa[-1], sa[-2]) if adj_a else (sa[-2], sa[-1])
    kb, n = (sb[-1], sb[-2]) if adj_b else (sb[-2], sb[-1])
    if not same_dim(ka, kb):
        raise shape_fn_error("MatMul", f"Dimensions must be equal, but are {ka} and {kb}", dtype,
                             attrs, (a, b))
    return m, n


@define_op("MatMul", expr="({0} @ {1})")
class MatMul:
    """a @ b for matrices, with optional transposes."""

    check = _MATMUL_CHECK

    def infer(a, b, transpose_a=False, transpose_b=False):
        dtype = check_dtypes("MatMul", (a, b), MATMUL_T, ("a", "b"))
        attrs = {"transpose_a": transpose_a, "transpose_b": transpose_b}
        m, n = _product_dims(a, b, transpose_a, transpose_b, dtype, attrs, "rank 2")
        return TensorSpec([m, n], dtype)

    def kernel(a, b, transpose_a=False, transpose_b=False):
        if (a.ndim == 2 == b.ndim and not transpose_a and not transpose_b
                and a.shape[1] == b.shape[0] and a.dtype.itemsize != 2):
            return a @ b  # the common case, checked in one line (graphs call this per op)
        # TF's oneDNN kernel (float32, bfloat16) checks the ranks; the Eigen one checks first
        # that they are equal
        if a.ndim != b.ndim and a.dtype not in _ONEDNN_MATMUL:
            raise invalid_argument(f"In[0] and In[1] has different ndims: {shape_text(a.shape)} "
                                   f"vs. {shape_text(b.shape)}")
        for i, x in enumerate((a, b)):
            if x.ndim < 2:
                raise invalid_argument(f"In[{i}] ndims must be >= 2")
        x = a.T if transpose_a else a
        y = b.T if transpose_b else b
        if x.shape[1] != y.shape[0]:
            raise _size_error(a, b)
        return via_float32(np.matmul, x, y)


@define_op("BatchMatMulV2")
class BatchMatMulV2:
    """Batched x @ y with broadcasting batch dims and optional adjoints."""

    check = DtypeCheck("BatchMatMulV2", BMM_T, kernels=[d for d in BMM_T if d not in UNSIGNED_INT])

    def infer(x, y, adj_x=False, adj_y=False):
        dtype = check_dtypes("BatchMatMulV2", (x, y), BMM_T, ("x", "y"))
        attrs = {"adj_x": adj_x, "adj_y": adj_y}
        m, n = _product_dims(x, y, adj_x, adj_y, dtype, attrs, "at least rank 2")
        if x.shape.rank is None or y.shape.rank is None:
            return TensorSpec(None, dtype)
        batch = _broadcast_batch(x.shape.dims[:-2], y.shape.dims[:-2], "MatMul", dtype, attrs,
                                (x, y))
        return TensorSpec(batch + [m, n], dtype)

    def kernel(x, y, adj_x=False, adj_y=False):
        for i, v in enumerate((x, y)):
            if v.ndim < 2:
                raise invalid_argument(f"In[{i}] ndims must be >= 2: {v.ndim}")
        try:
            np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
        except ValueError:
            raise invalid_argument(f"In[0] and In[1] must have compatible batch dimensions: "
                                   f"{shape_text(x.shape)} vs. {shape_text(y.shape)}") from None
        a = matrix_t(x, True) if adj_x else x
        b = matrix_t(y, True) if adj_y else y
        if a.shape[-1] != b.shape[-2]:
            raise _size_error(x, y)
        return via_float32(np.matmul, a, b)


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
        out = D.as_dtype(output_type)
        if out == D.int32 and a.dtype in (D.int8, D.uint8) and b.dtype == a.dtype:
            # TF's BatchMatMulV3 (its only CPU kernels: 8-bit inputs, int32 out) accumulates in
            # int32: the same values as the int32 product of the widened inputs
            return matmul(cast(a, D.int32), cast(b, D.int32), transpose_a, transpose_b,
                          adjoint_a, adjoint_b, name=name)
        raise NotImplementedError(f"matmul with output_type={out.name} "
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


_matmul_operator = default_name("matmul", lambda self, other: matmul(self, operand(other, self)))
_rmatmul_operator = default_name("matmul", lambda self, other: matmul(operand(other, self), self))
default_name("MatMul", matmul)  # TF's node name whichever op it makes
Tensor._override_operator("__matmul__", _matmul_operator)
Tensor._override_operator("__rmatmul__", _rmatmul_operator)


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
    """tf.tensordot fused into one op (TF builds Transpose/Reshape/MatMul, so its errors name
    MatMul)."""

    check = _MATMUL_CHECK

    def infer(a, b, axes_a, axes_b):
        dtype = check_dtypes("MatMul", (a, b), MATMUL_T, ("a", "b"))
        sa, sb = a.shape.dims, b.shape.dims
        if sa is None or sb is None:
            return TensorSpec(None, dtype)
        for axes, dims, name in ((axes_a, sa, "a"), (axes_b, sb, "b")):
            if any(not -len(dims) <= i < len(dims) for i in axes):
                raise ValueError(f"tensordot axes {list(axes)} are out of range for `{name}` of "
                                 f"rank {len(dims)}")
        for i, j in zip(axes_a, axes_b):
            if not same_dim(sa[i], sb[j]):
                raise shape_fn_error("MatMul", f"Dimensions must be equal, but are {sa[i]} and "
                                     f"{sb[j]}", dtype, {"transpose_a": False,
                                                         "transpose_b": False}, (a, b))
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
