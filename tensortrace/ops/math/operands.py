"""How math ops convert their arguments: TF's rule that a Python value takes the other operand's
dtype, and the cached scalar tensors that keep ``x + 2`` on the eager hot path cheap."""

import math as _pymath

import numpy as np

from ... import dtypes as D
from ...context import state as _state
from ...convert import convert_to_tensor
from ...numerics import quiet
from ...tensor import EagerTensor, Tensor

_wrap = EagerTensor._wrap


def _tensor_like(value):
    return isinstance(value, Tensor) or hasattr(value, "_as_graph_or_eager_tensor")


def _disguised(value):
    """A tensor wrapped in another object (tnp's weak tensors: ``is_tensor_like``, converting
    through ``__tf_tensor__``): an operand with its own dtype, as TF's eager ops take it."""
    return getattr(value, "is_tensor_like", False) is True and \
        hasattr(type(value), "__tf_tensor__")


def same_dtype_operands(*values):
    """Convert the inputs of an op that share one dtype, as TF's eager fast path does: the first
    tensor's dtype (else the first value's own) is the dtype the other values must take.

    Raises:
        TypeError: when a Python value cannot be represented in that dtype (``1.5`` as int32).
    """
    dtype = next((v.dtype for v in values if _tensor_like(v) or _disguised(v)), None)
    out = []
    for v in values:
        if _tensor_like(v) or dtype is None or _disguised(v):
            v = convert_to_tensor(v)
            dtype = dtype or v.dtype
        else:
            v = convert_to_tensor(v, dtype)
        out.append(v)
    return out


def binary_operands(x, y):
    """Convert the operands of a binary op: a Python value takes the other operand's dtype."""
    x, y = same_dtype_operands(x, y)
    return x, y


def _scalar_table():
    """(Python type, NumPy dtype) -> (NumPy scalar type, low, high): the Python numbers an
    operator can turn into a NumPy scalar directly, without TF's general conversion."""
    table = {}
    for t in (np.float16, np.float32, np.float64):
        hi = float(np.finfo(t).max)
        table[(float, np.dtype(t))] = table[(int, np.dtype(t))] = (t, -hi, hi)
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        info = np.iinfo(t)
        table[(int, np.dtype(t))] = (t, int(info.min), int(info.max))
    return table


_SCALARS = _scalar_table()


_CONSTANTS = {}  # (type, value, NumPy dtype) -> EagerTensor: operands like the 2 in ``x + 2``
_CONSTANTS_LIMIT = 4096


def operand(value, like):
    """The other operand of an operator on tensor ``like``, converted to ``like``'s dtype (a
    lossy Python value raises TypeError; NumPy values are cast, as TF does)."""
    cls = value.__class__
    if (cls is float or cls is int) and _state.graph is None:
        try:  # the hot path: a Python number next to an eager tensor, usually a repeated one
            key = (cls, value, like._value.dtype)
        except AttributeError:
            return _slow_operand(value, like)
        constant = _CONSTANTS.get(key)
        if constant is not None:
            return constant
        fast = _SCALARS.get((cls, key[2]))
        if fast is not None:
            if fast[1] <= value <= fast[2]:
                constant = _wrap(fast[0](value))
            elif fast[0] in _FLOAT_TYPES and (cls is int or not _pymath.isnan(value)):
                constant = _overflowing_float(value, fast[0])  # 1e5 as float16 is inf, as TF
                if constant is None:
                    return _slow_operand(value, like)
            else:
                return _slow_operand(value, like)
            if len(_CONSTANTS) < _CONSTANTS_LIMIT:  # eager tensors are immutable: share them
                _CONSTANTS[key] = constant
            return constant
    elif isinstance(value, Tensor):
        return value
    return _slow_operand(value, like)


_FLOAT_TYPES = (np.float16, np.float32)


@quiet
def _overflowing_float(value, np_type):
    try:
        return _wrap(np_type(value))
    except OverflowError:  # an int beyond float64: TF's general conversion decides
        return None


def _slow_operand(value, like):
    if hasattr(value, "_as_graph_or_eager_tensor"):
        return convert_to_tensor(value)
    return convert_to_tensor(value, like.dtype)


def hinted_operand(value, like):
    """As ``operand``, but a value that cannot take ``like``'s dtype keeps its own (TF's
    ``dtype_hint``: ``int_tensor + 1.5`` then fails in the op, not in the conversion)."""
    if isinstance(value, Tensor):
        return value
    try:
        return operand(value, like)
    except (TypeError, ValueError):
        return convert_to_tensor(value)


def as_tensor(x):
    """``x`` itself when it is a tensor, else converted with its own dtype."""
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


def constant_like(value, like):
    """``value`` as a tensor of ``like``'s dtype."""
    return convert_to_tensor(value, like.dtype)


def bools(*values):
    """The inputs of a logical op: Python values become bool tensors."""
    return [v if isinstance(v, Tensor) else convert_to_tensor(v, D.bool) for v in values]
