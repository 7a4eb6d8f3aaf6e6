"""TF-NumPy's dtype rules and array conversion, shared by every ``tnp`` function: NumPy's
``result_type`` over the arguments (tensors by their dtype, Python numbers by value, so
``tnp.add(int32_tensor, 1.5)`` is float64), the default float type (float64 unless
``prefer_float32``) and ``asarray``, which converts then casts as TF's ``np_array_ops`` does."""

import numbers

import numpy as np

from .. import dtypes as D
from .. import nest
from ..convert import convert_to_tensor
from ..ops.array.passthrough import identity
from ..ops.array.reshaping import reshape
from ..ops.math.casting import cast
from ..shapes import TensorShape
from ..tensor import Tensor
from . import _lattice
from ._weak import WeakTensor


class _Config:
    """The switches ``experimental_enable_numpy_behavior`` sets."""

    prefer_float32 = False
    mode = "off"  # the dtype conversion mode: "off", "legacy", "safe" or "all"


config = _Config()

MAX_NDMIN = 32


def np_dtype(dtype):
    """A TF DType, NumPy type or name as a NumPy dtype."""
    if isinstance(dtype, D.DType):
        return np.dtype(dtype.as_numpy_dtype)
    return np.dtype(dtype)


def dtype_source(x):
    """What NumPy's result_type is told about ``x`` (TF's ``_maybe_get_dtype``): numbers by
    value, tensors and DTypes by NumPy type, anything else (a NumPy array) as it is."""
    if isinstance(x, numbers.Real):
        return x
    if isinstance(x, (Tensor, WeakTensor)) or hasattr(x, "_as_graph_or_eager_tensor"):
        return x.dtype.as_numpy_dtype
    if isinstance(x, D.DType):
        return x.as_numpy_dtype
    if isinstance(x, (list, tuple)):
        raise ValueError("Cannot find dtype for type inference from argument `x` of a sequence "
                         f"type {type(x)}. For sequences, please call this function on each "
                         "element individually.")
    return x


def _prefer(x):
    if config.prefer_float32:
        if isinstance(x, float):
            return np.float32(x)
        if isinstance(x, complex):
            return np.complex64(x)
    return x


def dtype_of(*values):
    """NumPy's result type of already-resolved values (TF's ``np_dtypes._result_type``)."""
    return D.as_dtype(np.result_type(*[_prefer(x) for x in values]))


def result_type(*arrays_and_dtypes):
    """``tnp.result_type``: the DType NumPy promotes the flattened arguments to (in the "safe"
    and "all" modes, TF's lattice's)."""
    if config.mode in ("safe", "all"):
        return _lattice.result_type(arrays_and_dtypes, config.mode)[0]
    flat = [dtype_source(x) for x in nest.flatten(list(arrays_and_dtypes))]
    if not flat:
        flat = [np.asarray([])]
    return dtype_of(*flat)


def result_type_binary(t1, t2):
    try:
        return dtype_of(dtype_source(t1), dtype_source(t2))
    except ValueError:
        return result_type(t1, t2)


def result_type_unary(a, dtype):
    if dtype:
        return result_type(dtype)
    if isinstance(a, str):
        return D.string
    if isinstance(a, bytes):
        return D.string
    return result_type(a)


def default_float_type():
    return D.float32 if config.prefer_float32 else D.float64


def float_type():
    """``result_type(float)``: the dtype a Python float becomes."""
    return result_type(float)


def _convert_then_cast(val, dtype):
    try:
        t = convert_to_tensor(val, dtype_hint=dtype)
    except (TypeError, ValueError):
        if dtype is D.string:
            raise
        t = convert_to_tensor(np.asarray(val, dtype=np_dtype(dtype)))
    return t if t.dtype == dtype else cast(t, dtype)


def array_internal(val, dtype=None, copy=True, ndmin=0):
    """``tnp.array``'s work: a tensor of ``val`` cast to ``dtype`` (or the NumPy type of val)."""
    if isinstance(val, WeakTensor):
        val = val.tensor
    if not isinstance(val, Tensor):
        if hasattr(val, "_as_graph_or_eager_tensor"):  # a variable: its value
            val = convert_to_tensor(val)
            if dtype is not None and val.dtype != dtype:
                val = cast(val, dtype)
        else:
            val = _convert_then_cast(val, result_type_unary(val, dtype))
    elif dtype and val.dtype != dtype:
        val = cast(val, dtype)
    if copy:
        val = identity(val)
    if ndmin > MAX_NDMIN:
        raise ValueError(f"ndmin bigger than allowable number of dimensions: {MAX_NDMIN}.")
    rank = val.shape.rank
    if ndmin and rank is not None and ndmin > rank:
        from_shape = [d if d is not None else -1 for d in val.shape.as_list()]
        val = reshape(val, [1] * (ndmin - rank) + from_shape)
    return val


def array(val, dtype=None, copy=True, ndmin=0):
    """``tnp.array``: a tensor copy of ``val`` (a tensor, NumPy array or Python value)."""
    if dtype:
        dtype = result_type(dtype)
    return array_internal(val, dtype, copy, ndmin)


def asarray(a, dtype=None):
    """``tnp.asarray``: ``a`` as a tensor (itself when it already has the dtype)."""
    if dtype:
        dtype = result_type(dtype)
    if isinstance(a, Tensor) and (not dtype or dtype == a.dtype):
        return a
    return array_internal(a, dtype, copy=False)


def promote(*arrays):
    """The arrays as tensors of their NumPy result type."""
    dtype = result_type(*arrays)
    return [a if isinstance(a, Tensor) and a.dtype == dtype else
            array_internal(a, dtype, copy=False) for a in arrays]


def promote_binary(t1, t2):
    dtype = result_type_binary(t1, t2)
    if not (isinstance(t1, Tensor) and t1.dtype == dtype):
        t1 = array_internal(t1, dtype, copy=False)
    if not (isinstance(t2, Tensor) and t2.dtype == dtype):
        t2 = array_internal(t2, dtype, copy=False)
    return t1, t2


def is_inexact(dtype):
    return np.issubdtype(np_dtype(dtype), np.inexact)


def canonical_axis(axis, rank):
    return axis + rank if axis < 0 else axis


def isscalar(val):
    if isinstance(val, Tensor):
        return val.shape.rank == 0
    return np.isscalar(val)


def as_shape_arg(shape):
    if isinstance(shape, TensorShape):
        return shape.as_list()
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return shape
