"""How op functions take their arguments: shape-like lists that may hold tensors, ints that must
be known while tracing, Python scalars converted once, and what is known at trace time of a
shape tensor (TF's partial shape evaluation).

    tf.reshape(x, [tf.shape(y)[0], -1])    # int_input packs the list; shape_values sees [?, -1]
"""

import reprlib

import numpy as np

from ..context import bind, executing_eagerly, state
from ..convert import convert_to_tensor, to_array
from ..errors import InvalidArgumentError, OpError, invalid_argument
from ..messages import kernel_error_text
from ..registry import get as get_op
from ..shapes import TensorShape
from ..tensor import EagerTensor, Tensor, static_value


def arg_error(op_name, message):
    """An error TF reports from the op's kernel: InvalidArgumentError eagerly, ValueError while
    tracing (where TF's shape functions catch it)."""
    if executing_eagerly():
        return InvalidArgumentError(None, None, kernel_error_text(message, op_name))
    return ValueError(message)


def holds_tensor(value):
    """True if a (nested) list/tuple holds tensors or variables (TF auto-packs those)."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected a list or tuple, got {shown(value)}")
    pending = [value]  # a stack, not recursion: a list may be nested thousands deep
    while pending:
        for v in pending.pop():
            if isinstance(v, Tensor) or hasattr(v, "_as_graph_or_eager_tensor"):
                return True
            if isinstance(v, (list, tuple)):
                pending.append(v)
    return False


def check_nesting(value, what, limit=200):
    """Refuse a structure nested more than ``limit`` levels deep (a ValueError naming ``what``)
    before recursive code (tf.nest, printing) meets it and exhausts Python's stack."""
    level, depth = [value], 0
    while level:
        depth += 1
        if depth > limit:
            raise ValueError(f"`{what}` is nested more than {limit} levels deep")
        level = [v for x in level if isinstance(x, (list, tuple, dict))
                 for v in (x.values() if isinstance(x, dict) else x)]
    return value


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple = 8, 100, 100
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 200


def shown(value):
    """``repr(value)`` for an error message, bounded (a list nested 10,000 deep, a huge int)."""
    return _REPR.repr(value)


def auto_pack(values, dtype=None, cast=False):
    """A list mixing Python numbers and scalar tensors as one tensor (a Pack op), as TF packs;
    ``cast``: tensors of another dtype are cast to ``dtype`` first (TF's packing for an op input
    whose type attr defaults to ``dtype``, e.g. ``tf.reshape(x, (n, m))`` of float scalars)."""
    elems = [auto_pack(v, dtype, cast) if isinstance(v, (list, tuple)) and holds_tensor(v)
             else convert_to_tensor(v) if hasattr(v, "_as_graph_or_eager_tensor") else v
             for v in values]
    if cast:
        elems = [bind(get_op("Cast"), e, SrcT=e.dtype, DstT=dtype, Truncate=False)
                 if isinstance(e, Tensor) and e.dtype != dtype else e for e in elems]
    if dtype is None:
        dtype = next((e.dtype for e in elems if isinstance(e, Tensor)), None)
    tensors = [e if isinstance(e, Tensor) else convert_to_tensor(e, dtype) for e in elems]
    return bind(get_op("Pack"), *tensors, axis=0)


def int_input(value, dtype=None, hint=None):
    """A shape-like argument as a tensor: tensors pass, ``TensorShape``s and lists (possibly
    holding scalar tensors) are converted; ``dtype`` None keeps TF's natural inference, and
    ``hint`` is the dtype of an empty list and the one scalar tensors in a list are cast to (the
    default of the op's type attr, which TF's conversion prefers)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, TensorShape):
        value = value.as_list()
    if isinstance(value, (list, tuple)):
        if dtype is None and value:
            arr = _int_list(value)  # the common case, kept fast
            if arr is not None:
                return const(arr)
        if holds_tensor(value):  # TF's packing casts the tensors to the dtype asked or preferred
            target = dtype or hint
            return auto_pack(value, target, cast=target is not None)
        if not value and dtype is None:  # [] is a float32 list to TF, but an int32 shape
            dtype = hint
    return convert_to_tensor(value, dtype)


def shape_values(t):
    """What is known at trace time of the 1-D int tensor ``t``: a list of int-or-None, or None
    when even its length is unknown. Sees through Shape, Pack, ConcatV2 and StridedSlice ops, as
    TF's shape inference does (``tf.reshape(x, tf.shape(y))`` keeps y's known dims)."""
    v = known_values(t)
    if v is not None and v.ndim == 1:
        return v.tolist()
    n = t.shape[0] if t.shape.rank == 1 else None
    return None if n is None else [None] * n


def known_values(t):
    """The trace-time value of the int tensor ``t`` as an object array whose unknown entries
    are None (a partial value, as TF evaluates shape tensors), or None if nothing is known."""
    v = static_value(t)
    if v is not None:
        return np.asarray(v, dtype=object) if v.dtype.kind in "iu" else None
    op = getattr(t, "op", None)
    if op is None:
        return None
    try:
        if op.type == "Shape":
            dims = op.inputs[0].shape.dims
            return None if dims is None else np.array(dims, dtype=object)
        if op.type == "Pack" and op.attrs.get("axis") == 0 and \
                all(i.shape.rank == 0 for i in op.inputs):
            return np.array([static_int(i) for i in op.inputs], dtype=object)
        if op.type == "ConcatV2" and op.attrs.get("axis") in (0, -1):
            parts = [known_values(i) for i in op.inputs]
            if all(p is not None and p.ndim == 1 for p in parts):
                return np.concatenate(parts)
        if op.type == "StridedSlice":
            return _sliced_values(op)
    except (TypeError, ValueError, IndexError, KeyError, OpError):
        pass
    return None


def _sliced_values(op):
    """``tf.shape(x)[1]`` and friends: the StridedSlice kernel on the partial value."""
    base = known_values(op.inputs[0])
    spec = [static_value(i) for i in op.inputs[1:4]]
    if base is None or any(s is None for s in spec):
        return None
    return np.asarray(get_op("StridedSlice").kernel(base, *spec, **op.attrs), dtype=object)


def static_int(t):
    """The value of a scalar int tensor if it is known when tracing, else None."""
    v = known_values(t)
    if v is None or v.ndim != 0:
        return None
    v = v[()]
    return None if v is None else int(v)


def const(value):
    """A tensor holding the NumPy ``value``: eager, or a Const op while tracing."""
    if state.graph is None:
        return EagerTensor._wrap(value)
    return state.graph.constant(value)


_SCALARS = {}


def scalar_array(value, dtype=None):
    """``to_array`` of a Python scalar, memoised for ints, bools and strings (the shape, depth
    and fill arguments converted on every eager call)."""
    kind = type(value)
    if kind not in (int, bool, str):
        return np.asarray(to_array(value, dtype))
    key = (kind, value, dtype)
    arr = _SCALARS.get(key)
    if arr is None:
        arr = np.asarray(to_array(value, dtype))  # raises as convert_to_tensor does
        if len(_SCALARS) > 1024:
            _SCALARS.clear()
        _SCALARS[key] = arr
    return arr


def scalar_tensor(value, dtype=None):
    """``convert_to_tensor`` for Python scalars, without re-deriving the dtype every call."""
    if isinstance(value, Tensor) or hasattr(value, "_as_graph_or_eager_tensor"):
        return convert_to_tensor(value, dtype)
    arr = scalar_array(value, dtype)
    return const(arr if arr.dtype == object else arr[()])


def _int_list(value):
    """A list of Python ints as an int32 (or, if needed, int64) array; None for anything else."""
    if all(type(v) is int for v in value):
        if all(-2**31 <= v < 2**31 for v in value):
            return np.array(value, np.int32)
        if all(-2**63 <= v < 2**63 for v in value):
            return np.array(value, np.int64)
    return None


def axis_attr(axis, rank=None, what="axis", reduction=None):
    """A reduction-style ``axis`` argument as an attr: None, or a tuple of ints (each checked
    against ``rank`` when it is given)."""
    if axis is None:
        return None
    if type(axis) is int and -2**31 <= axis < 2**31:
        axes = (axis,)
    elif isinstance(axis, (list, tuple)) and all(type(a) is int and -2**31 <= a < 2**31
                                                 for a in axis):
        axes = tuple(axis)
    else:
        axes = tuple(int(a) for a in np.reshape(static_ints(axis, what), -1))
    if rank is not None:
        for a in axes:
            check_axis(a, rank, what, reduction)
    return axes


def int_attr(value, what="axis", rank=None):
    """A scalar int argument (Python int, NumPy integer or a tensor known when tracing),
    checked against ``rank`` when it is given."""
    if type(value) is not int or not -2**31 <= value < 2**31:
        v = static_ints(value, what)
        if v.ndim != 0:
            raise TypeError(f"{what} must be int or Tensor with integer datatype")
        value = int(v)
    if rank is not None:
        check_axis(value, rank, what)
    return value


def check_axis(axis, rank, what="axis", reduction=None):
    """An axis in ``[-rank, rank)``, or TF's InvalidArgumentError (ValueError while tracing);
    ``reduction`` names the reduction op (Sum) whose error TF reports for composites."""
    if -rank <= axis < rank:
        return axis
    if reduction is None:
        message = f"Expected {what} in the range [{-rank}, {rank}), but got {axis}"
    elif executing_eagerly():
        message = f"Invalid reduction dimension ({axis} for input with {rank} dimension(s)"
    else:
        message = f"Invalid reduction dimension {axis} for input with {rank} dimensions."
    if executing_eagerly():  # a reduction's: its kernel's error, as TF words those
        raise (InvalidArgumentError(None, None, kernel_error_text(message, reduction))
               if reduction else invalid_argument(message))
    raise ValueError(message)


def int_arg(value, what):
    """A Python int argument (an op attr): TF's ``make_int`` (numbers truncate, strings and
    anything int() refuses are a TypeError naming the argument), kept within int64."""
    if type(value) is int and -2**63 <= value < 2**63:
        return value
    if isinstance(value, Tensor):
        value = static_attr(value, what)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (str, bytes)) or not isinstance(value, (int, float, np.number)) or \
            isinstance(value, (complex, np.complexfloating)) or \
            (not isinstance(value, int) and not np.isfinite(value)):
        raise TypeError(f"Expected int for argument '{what}' not {shown(value)}.")
    value = int(value)
    if not -2**63 <= value < 2**63:
        raise ValueError(f"Argument '{what}' ({value}) is out of the int64 range.")
    return value


def float_arg(value, what):
    """A Python float argument (an op attr): TF's ``make_float``."""
    if isinstance(value, Tensor):
        value = static_attr(value, what)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, str, bytes)) or not isinstance(value, (int, float, np.number)) \
            or isinstance(value, (complex, np.complexfloating)):
        raise TypeError(f"Expected float for argument '{what}' not {shown(value)}.")
    return float(value)


def static_ints(value, what):
    """The value of an int argument that must be known when tracing, as a NumPy array."""
    v = static_value(value) if isinstance(value, Tensor) else None
    if isinstance(value, Tensor):
        if v is None:
            raise TypeError(f"`{what}` must be known when the function is traced; got the "
                            f"symbolic tensor {value}. Pass a Python int or a constant.")
    else:
        try:
            v = np.asarray(value)
        except (TypeError, ValueError, NotImplementedError, OverflowError, RecursionError):
            raise TypeError(f"`{what}` must be an int or a list of ints, got {shown(value)}") \
                from None
    if v.size == 0:
        v = v.astype(np.int32)
    if v.dtype.kind not in "iu" or (v.dtype.kind == "u" and v.size and v.max() >= 2**63):
        raise TypeError(f"Cannot convert {shown(value)} to EagerTensor of dtype int32")
    return v


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
