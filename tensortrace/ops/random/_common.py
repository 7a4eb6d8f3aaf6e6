"""What the stateful and stateless random ops share: bounded ints and the multinomial sampler,
TF's shape rules and runtime checks of shape and seed inputs, and the conversion of the public
functions' arguments."""

import numpy as np

from ... import dtypes as D
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...shapes import TensorShape
from ...tensor import Tensor
from ...messages import check_size
from .._args import shape_values, static_int
from .._base import FLOAT, INDEX, check_dtypes, dtypes_named
from ..array.joining import stack
from ..math.arithmetic import add
from . import philox

#: TF's ``realnumbertypes``, the logits dtypes of the Multinomial ops (only floats have kernels)
LOGITS_DTYPES = dtypes_named("float32 float64 int32 uint8 int16 int8 int64 bfloat16 uint16 float16 "
                             "uint32 uint64")


# --- kernels -------------------------------------------------------------------------------------
def out(a):
    """0-d results as NumPy scalars, like the other kernels."""
    return a[()] if a.ndim == 0 else a


def dims(shape):
    """The output shape from a shape tensor's value, with TF's runtime checks."""
    s = np.asarray(shape)
    if s.ndim != 1:
        raise invalid_argument("shape must be a vector of {int32,int64}, got shape "
                               + shape_text(s.shape))
    found = tuple(s.tolist())
    for d in found:
        if d < 0:
            raise invalid_argument(f"Dimension {d} must be >= 0")
    check_size(found, np.float32)
    return found


def uniform_int(gen, dims, minval, maxval):
    """Integers in [minval, maxval) of minval's dtype from ``gen`` (a Philox position), with
    TF's runtime checks of the bounds."""
    lo, hi = np.asarray(minval), np.asarray(maxval)
    if lo.ndim:
        raise invalid_argument(f"minval must be 0-D, got shape {shape_text(lo.shape)}")
    if hi.ndim:
        raise invalid_argument(f"maxval must be 0-D, got shape {shape_text(hi.shape)}")
    if 0 in dims:
        return np.zeros(dims, lo.dtype)
    if lo >= hi:
        raise invalid_argument(f"Need minval < maxval, got {lo} >= {hi}")
    return philox.uniform_int(gen, dims, lo, hi, lo.dtype)


def count(dims):
    """How many values an op of output shape ``dims`` draws (its stream skips 256 each)."""
    return int(np.prod(dims, dtype=np.int64))


def multinomial(gen, logits, num_samples, np_out):
    """TF's CPU sampler: non-finite logits get no mass; a row with no mass gives num_classes."""
    lg = np.asarray(logits)
    n = np.asarray(num_samples)
    if lg.ndim != 2:
        raise invalid_argument(f"logits should be a matrix, got shape {shape_text(lg.shape)}")
    if n.ndim:
        raise invalid_argument("num_samples should be a scalar.")
    n = int(n)
    if n < 0:
        raise invalid_argument(f"num_samples should be non-negative, got {n}")
    batch, classes = lg.shape
    if classes == 0:
        raise invalid_argument(f"num_classes should be positive, got {classes}")
    if batch == 0 or n == 0:
        return np.zeros((batch, n), np_out)
    lg = lg.astype(np.float64)
    finite = np.isfinite(lg)
    with np.errstate(all="ignore"):
        top = np.max(np.where(finite, lg, -np.inf), axis=1, keepdims=True)
        cdf = np.cumsum(np.where(finite, np.exp(lg - top), 0.0), axis=1)
        total = cdf[:, -1:]
        p = np.where(total > 0, cdf / total, 0.0)
    p[:, -1] = np.where(total[:, 0] > 0, 1.0, 0.0)
    # One searchsorted for every row: row r lives in [2r, 2r + 1], so rows cannot interleave.
    rows = np.arange(batch)[:, None]
    u = gen.random((batch, n))
    idx = np.searchsorted((p + 2.0 * rows).ravel(), (u + 2.0 * rows).ravel(), side="right")
    return (idx.reshape(batch, n) - rows * classes).astype(np_out)


# --- shape rules ---------------------------------------------------------------------------------
def infer_shape(shape, op_name):
    """The static output shape from a shape tensor (unknown dims where its value is unknown)."""
    check_dtypes(op_name, (shape,), INDEX, names=("shape",))
    rank = shape.shape.rank
    if rank is not None and rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {rank} for '{{{{node {op_name}}}}} = "
                         f"{op_name}(shape)' with input shapes: {shape_text(shape.shape)}.")
    # the known entries of a partly known shape (tf.shape(x), [tf.shape(x)[0], 3]) are kept
    values = shape_values(shape) if rank in (None, 1) else None
    if values is None:
        return TensorShape(None)
    return TensorShape([None if v is None or v < 0 else int(v) for v in values])


def infer_bounds(minval, maxval, op_name):
    """The scalar int bounds of a uniform-int op, as its shape function checks them."""
    check_dtypes(op_name, (minval, maxval), INDEX, names=("minval", "maxval"))
    for t, name in ((minval, "minval"), (maxval, "maxval")):
        if t.shape.rank not in (None, 0):
            raise ValueError(f"{name} must be a scalar; got a tensor of shape "
                             f"{shape_text(t.shape)} for '{{{{node {op_name}}}}}'")


def infer_seed(seed, op_name):
    check_dtypes(op_name, (seed,), INDEX, names=("seed",))
    found = seed.shape.dims
    if found is not None and len(found) != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {len(found)} for '{{{{node "
                         f"{op_name}}}}}' with input shapes: {shape_text(found)}.")
    if found is not None and found[0] not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {found[0]} for '{{{{node {op_name}}}}}' "
                         f"with input shapes: {shape_text(found)}.")


def infer_multinomial(logits, num_samples, op_name):
    check_dtypes(op_name, (logits,), FLOAT, names=("logits",))
    check_dtypes(op_name, (num_samples,), (D.int32,), names=("num_samples",))
    found = logits.shape.dims
    if found is not None and len(found) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(found)} for '{{{{node "
                         f"{op_name}}}}}' with input shapes: {shape_text(found)}.")
    n = static_int(num_samples)
    n = None if n is None or n < 0 else n  # a negative count (or a vector) fails when run
    return TensorShape([None if found is None else found[0], n])


# --- the public functions' arguments -------------------------------------------------------------
def shape_tensor(shape):
    """TF's ``shape_util.shape_tensor``: a shape argument (list, TensorShape, tensor) as a
    tensor; an empty list is int32."""
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)):
        if not shape:
            return convert_to_tensor(np.zeros(0, np.int32))
        if any(isinstance(d, Tensor) for d in shape):  # [tf.shape(x)[0], 3] inside a function
            return stack([d if isinstance(d, Tensor) else convert_to_tensor(d, D.int32)
                          for d in shape])
    return convert_to_tensor(shape)


def seed_tensor(seed):
    return seed if isinstance(seed, Tensor) else convert_to_tensor(seed)


def check_dtype_arg(dtype, accepted):
    """The ValueError of TF's Python wrappers for a ``dtype`` argument they do not take."""
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"{accepted}.")


def categorical_args(logits, num_samples, dtype):
    logits = convert_to_tensor(logits)
    dtype = D.as_dtype(dtype) if dtype else D.int64
    check_dtype_arg(dtype, (D.int32, D.int64))
    if not isinstance(num_samples, Tensor):
        num_samples = convert_to_tensor(num_samples, D.int32)
    return logits, num_samples, dtype


def scale(rnd, scale, shift):
    """``rnd * scale + shift`` as TF builds it (Mul then AddV2)."""
    return add(rnd * scale, shift)
