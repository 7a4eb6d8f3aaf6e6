"""A matrix's structure: its transpose, trace, diagonals (MatrixDiagV3 and its part, Diag and
DiagPart) and band part."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, OpDef, define_op, register
from ...tensor import Tensor, TensorSpec, static_value
from .._args import static_int
from .._base import ALL, INDEX, NUMERIC, check_dtypes
from ._util import matrix_t


def _rank_at_least(dims, rank):
    """The graph-time check that an input of ``dims`` (None: unknown rank) has ``rank`` dims."""
    if dims is not None and len(dims) < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {len(dims)}")


def _ndim_at_least(x, ndim, what="input"):
    """The kernel's check that the array ``x`` has ``ndim`` dims."""
    if x.ndim < ndim:
        raise invalid_argument(f"{what} must be at least {ndim}-dim, received shape: "
                               f"{shape_text(x.shape)}")


@define_op("MatrixTranspose")
class MatrixTranspose:
    """Swap the innermost two dims (conjugating when ``conjugate``): TF's Transpose with the
    perm [..., n-1, n-2], which needs no run-time perm here."""

    def infer(x, conjugate=False):
        dims = x.shape.dims
        return TensorSpec(None if dims is None else dims[:-2] + [dims[-1], dims[-2]], x.dtype)

    def kernel(x, conjugate=False):
        if x.ndim < 2:
            raise invalid_argument(f"transpose expects a matrix, got shape {shape_text(x.shape)}")
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


# --- Trace, Diag and DiagPart: one NUMERIC input, the output's dims follow from its dims ------
def _numeric_op(name, kernel, dims_rule, *, arg="input", errors_as=None):
    """Register a one-input op of a NUMERIC dtype whose output has ``dims_rule(input dims)`` (an
    unknown rank stays unknown); ``errors_as`` is the op TF's dtype errors name where TF builds
    this one from others. The kernel's docstring is the op's."""
    checked = errors_as or name

    def infer(x):
        check_dtypes(checked, (x,), NUMERIC, (arg,))
        dims = x.shape.dims
        return TensorSpec(None if dims is None else dims_rule(dims), x.dtype)

    return register(OpDef(name, infer, kernel, check=DtypeCheck(checked, NUMERIC, same=1),
                          doc=kernel.__doc__))


def _trace_dims(dims):
    _rank_at_least(dims, 2)
    return dims[:-2]


def _trace_kernel(x):
    """tf.linalg.trace fused into one op (TF builds MatrixDiagPartV3 then Sum, so its dtype
    errors name Sum)."""
    _ndim_at_least(x, 2)
    return np.asarray(np.trace(x, axis1=-2, axis2=-1)).astype(x.dtype, copy=False)


Trace = _numeric_op("Trace", _trace_kernel, _trace_dims, errors_as="Sum")


@tf_export("linalg.trace")
def trace(x, name=None):
    """The sum of the main diagonal of each innermost matrix."""
    return bind(Trace, convert_to_tensor(x))


def _diag_kernel(diagonal):
    """A tensor of shape ``s + s`` with ``diagonal`` (shape ``s``) on its diagonal."""
    flat = np.asarray(diagonal).reshape(-1)
    out = np.zeros((flat.size, flat.size), flat.dtype)
    out[np.arange(flat.size), np.arange(flat.size)] = flat
    return out.reshape(np.shape(diagonal) * 2)


Diag = _numeric_op("Diag", _diag_kernel, lambda dims: dims + dims, arg="diagonal")


@tf_export("linalg.tensor_diag")
def tensor_diag(diagonal, name=None):
    """A tensor with ``diagonal`` on its diagonal: shape ``s`` becomes ``s + s``."""
    return bind(Diag, convert_to_tensor(diagonal))


def _diag_part_dims(dims):
    if len(dims) % 2:
        raise ValueError(f"Input must have even rank <= 6, input rank is {len(dims)}")
    return dims[:len(dims) // 2]


def _diag_part_kernel(input):
    """The diagonal of a tensor of shape ``s + s`` (shape ``s``)."""
    half = input.ndim // 2
    if input.ndim % 2 or input.shape[:half] != input.shape[half:]:
        raise invalid_argument(f"Invalid shape {shape_text(input.shape)}: dimensions must come "
                               f"in equal pairs")
    n = int(np.prod(input.shape[:half], dtype=np.int64))
    flat = np.asarray(input).reshape(n, n)
    return flat[np.arange(n), np.arange(n)].reshape(input.shape[:half])


DiagPart = _numeric_op("DiagPart", _diag_part_kernel, _diag_part_dims)


@tf_export("linalg.tensor_diag_part")
def tensor_diag_part(input, name=None):
    """The diagonal of a tensor of shape ``s + s``."""
    return bind(DiagPart, convert_to_tensor(input))


# --- MatrixDiagV3 and MatrixDiagPartV3: diagonals k (a band when k is a pair) -------------------
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


def _check_k_order(k0, k1):
    if k0 > k1:
        raise invalid_argument(f"lower_diag_index must not be larger than upper_diag_index: "
                               f"{k0} > {k1}")


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


@define_op("MatrixDiagV3")
class MatrixDiagV3:
    """A batch of matrices with the given diagonals (band ``k``) and ``padding_value`` elsewhere."""

    def infer(diagonal, k, num_rows, num_cols, padding_value, align="RIGHT_LEFT"):
        dims = diagonal.shape.dims
        kv = static_value(k)
        if dims is None or kv is None:
            return TensorSpec(None, diagonal.dtype)
        _rank_at_least(dims, 1)
        shape = _diag_out_shape(dims, _k_pair(kv), static_int(num_rows), static_int(num_cols))
        return TensorSpec(shape, diagonal.dtype)

    def kernel(diagonal, k, num_rows, num_cols, padding_value, align="RIGHT_LEFT"):
        _ndim_at_least(diagonal, 1, "diagonal")
        k0, k1 = _k_pair(k)
        _check_k_order(k0, k1)
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
        kv = static_value(k)
        _rank_at_least(dims, 2)
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
        _ndim_at_least(x, 2)
        k0, k1 = _k_pair(k)
        rows, cols = x.shape[-2:]
        for name, d in (("lower_diag_index", k0), ("upper_diag_index", k1)):
            if not (-rows < d < cols or d == 0):
                raise invalid_argument(f"{name} is out of bound: {d}. It must be between "
                                       f"{-rows} and {cols}")
        _check_k_order(k0, k1)
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


# --- band part -----------------------------------------------------------------------------------
@define_op("MatrixBandPart")
class MatrixBandPart:
    """Zero everything outside a band of ``num_lower`` sub- and ``num_upper`` superdiagonals
    (negative: keep that whole triangle)."""

    # TF's OpDef allows strings, but no CPU kernel handles them (NotFoundError)
    check = DtypeCheck("MatrixBandPart", ALL, same=1, kernels=[d for d in ALL if d != D.string],
                       then=DtypeCheck("MatrixBandPart", INDEX, first=1, attr="Tindex"))

    def infer(x, num_lower, num_upper):
        check_dtypes("MatrixBandPart", (num_lower, num_upper), INDEX, ("num_lower", "num_upper"))
        _rank_at_least(x.shape.dims, 2)
        return TensorSpec(x.shape, x.dtype)

    def kernel(x, num_lower, num_upper):
        _ndim_at_least(x, 2)
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
    x = convert_to_tensor(input)  # the arguments stay as given: errors' texts read them
    lower = convert_to_tensor(num_lower, dtype_hint=D.int64 if isinstance(
        num_upper, Tensor) and num_upper.dtype == D.int64 else None)
    upper = convert_to_tensor(num_upper, dtype_hint=lower.dtype)
    return bind(MatrixBandPart, x, lower, upper)
