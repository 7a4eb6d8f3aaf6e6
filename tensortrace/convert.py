"""TF's rules for turning Python and NumPy values into tensors (``tf.constant``,
``tf.convert_to_tensor``).

    >>> constant(1).dtype, constant(1.0).dtype, constant(np.float64(1)).dtype
    (tf.int32, tf.float32, tf.float64)
"""


import numpy as np

from . import dtypes as _dtypes
from . import tensor as _tensor
from .context import bind
from .context import state as _state
from .registry import get as get_op
from .tensor import EagerTensor, Tensor

_wrap = EagerTensor._wrap
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_SCALAR_TYPES = (bool, int, float, complex, str, bytes)


def _infer_dtype(leaf_types, leaves):
    """The dtype TF gives a Python scalar or sequence whose leaves have ``leaf_types``."""
    if leaf_types <= {str, bytes}:
        return _dtypes.string
    if leaf_types & {str, bytes}:
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    if leaf_types == {bool}:
        return _dtypes.bool
    if bool in leaf_types:
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    if complex in leaf_types:
        return _dtypes.complex128
    if float in leaf_types:
        return _dtypes.float32
    if all(_INT32_MIN <= v <= _INT32_MAX for v in leaves):
        return _dtypes.int32
    if all(_INT64_MIN <= v <= _INT64_MAX for v in leaves):
        return _dtypes.int64
    raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")


def _flatten(value, leaves, types):
    """Collect the leaves of a nested list/tuple; returns False if a leaf is a tensor/array."""
    for v in value:
        if isinstance(v, (list, tuple)):
            if not _flatten(v, leaves, types):
                return False
        elif isinstance(v, _SCALAR_TYPES):
            leaves.append(v)
            types.add(type(v) if type(v) in _SCALAR_TYPES else _base_type(v))
        else:
            return False
    return True


def _base_type(v):
    for t in _SCALAR_TYPES:
        if isinstance(v, t):
            return t
    return type(v)


def _unsupported(value):
    return ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                      f"({type(value)}) to a Tensor.")


def _cannot_convert(value, dtype):
    name = {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {name}")


def _check_python_value(value, leaves, types, dtype):
    """TF refuses lossy conversions of Python values: 1.5 -> int32, 1 -> bool, 'a' -> float."""
    if dtype is _dtypes.string:
        ok = types <= {str, bytes}
    elif dtype is _dtypes.bool:
        ok = types <= {bool}
    elif dtype.is_integer:
        ok = types <= {bool, int}
    elif dtype.is_floating:
        ok = types <= {bool, int, float}
    elif dtype.is_complex:
        ok = types <= {bool, int, float, complex}
    else:
        ok = False
    if not ok:
        raise _cannot_convert(value, dtype)


def _string_array(value):
    def enc(v):
        if isinstance(v, str):
            return v.encode("utf-8")
        if isinstance(v, (bytes, np.bytes_)):
            return bytes(v)
        if isinstance(v, np.str_):
            return str(v).encode("utf-8")
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")

    arr = np.asarray(value, dtype=object) if not isinstance(value, np.ndarray) else value
    out = np.empty(arr.shape, dtype=object)
    flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat_in):
        flat_out[i] = enc(v)
    return out


def to_array(value, dtype=None):
    """``value`` as a NumPy array (or NumPy scalar) of the dtype TF would give it.

    Args:
        value: a Python scalar, nested list/tuple, NumPy array or scalar.
        dtype: the DType to produce, or None to infer with TF's rules.

    Raises:
        TypeError: for lossy conversion of Python values to ``dtype``.
        ValueError: for unsupported values, ragged or mixed sequences.
    """
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        if value.dtype.kind in "USO":
            arr = _string_array(value)
            if dtype is not None and dtype is not _dtypes.string:
                raise _cannot_convert(value, dtype)
            return arr
        if dtype is None:
            return np.array(value) if isinstance(value, np.ndarray) else value
        return value.astype(dtype._np) if dtype is not _dtypes.string else _cannot(value, dtype)
    if isinstance(value, _SCALAR_TYPES):
        leaves, types = [value], {_base_type(value)}
    elif isinstance(value, (list, tuple)):
        leaves, types = [], set()
        if not _flatten(value, leaves, types):
            return _pack_array(value, dtype)
    else:
        raise _unsupported(value)
    if dtype is None:
        if not leaves and isinstance(value, (list, tuple)):
            dtype = _dtypes.float32
        else:
            dtype = _infer_dtype(types, leaves)
    else:
        _check_python_value(value, leaves, types, dtype)
    if dtype is _dtypes.string:
        _check_rectangular(value)
        return _string_array(value)
    try:
        arr = np.array(value)
    except ValueError:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
    if arr.dtype == object:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
    if arr.dtype.kind in "iu" and dtype.is_integer and arr.dtype != dtype._np:
        with np.errstate(over="ignore"):  # TF wraps out-of-range ints: uint8 300 -> 44
            return _as_value(arr.astype(np.int64).astype(dtype._np))
    if arr.dtype.kind == "f" and dtype._np.itemsize < arr.dtype.itemsize:
        with np.errstate(over="ignore"):  # 1e40 as float32 is inf, silently, as in TF
            return _as_value(arr.astype(dtype._np))
    return _as_value(arr.astype(dtype._np))


def _cannot(value, dtype):
    raise _cannot_convert(value, dtype)


def _check_rectangular(value):
    if isinstance(value, (list, tuple)):
        try:
            np.array(value, dtype=object).shape
        except ValueError:
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None


def _as_value(arr):
    """0-d arrays become NumPy scalars, like the results of NumPy's own ufuncs."""
    return arr[()] if arr.ndim == 0 else arr


def _pack_array(value, dtype):
    """A sequence holding tensors or arrays: convert each element, then stack (eagerly)."""
    parts = [to_array(v._value if isinstance(v, EagerTensor) else
                      (v.read_value()._value if hasattr(v, "read_value") else v), dtype)
             if not isinstance(v, (list, tuple)) else _pack_array(v, dtype) for v in value]
    if dtype is None and parts:
        dtypes = {np.asarray(p).dtype for p in parts}
        if len(dtypes) > 1:
            first = np.asarray(parts[0]).dtype
            parts = [to_array(v if not isinstance(v, EagerTensor) else v._value,
                              _dtypes.from_numpy(first)) for v in value]
    return np.stack([np.asarray(p) for p in parts])


def constant(value, dtype=None, shape=None, name=None):
    """``tf.constant``: a tensor holding ``value`` (cast to ``dtype``, shaped to ``shape``).

    Raises:
        TypeError: when ``value`` cannot be represented in ``dtype`` or ``shape`` does not fit.
    """
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if isinstance(value, EagerTensor):
            arr = value._value
            if dtype is not None and dtype != value.dtype:  # TF does not cast a tensor here
                raise TypeError(f"Expected tensor {np.asarray(arr)} with dtype {dtype!r}, but "
                                f"got dtype {value.dtype!r}.")
        else:
            if dtype is not None and dtype != value.dtype:
                return bind(get_op("Cast"), value, SrcT=value.dtype, DstT=dtype, Truncate=False)
            return value
    else:
        arr = to_array(_read_variables(value), dtype)
    if shape is not None:
        arr = _reshape_constant(arr, value, shape)
    return _make(arr)


def _read_variables(value):
    if hasattr(value, "_as_tensor_value"):
        return value._as_tensor_value()
    return value


def _reshape_constant(arr, value, shape):
    shape = tuple(int(d) for d in shape)
    arr = np.asarray(arr)
    size = int(np.prod(shape))
    if arr.size == 1:
        return np.full(shape, arr.reshape(()), dtype=arr.dtype)
    if arr.size != size:
        raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {arr} "
                        f"(converted from {value}) has {arr.size} elements, but got `shape` "
                        f"{shape} with {size} elements).")
    return arr.reshape(shape)


def _make(arr):
    """An eager tensor, or a constant op when a function is being traced."""
    graph = _state.graph
    if graph is not None:
        return graph.constant(arr)
    return _wrap(arr)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """``tf.convert_to_tensor``: tensors pass through; other values become constants.

    Raises:
        ValueError: if ``value`` is a tensor of a dtype other than ``dtype``.
        TypeError: if a Python value cannot be represented in ``dtype``.
    """
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtype:
            dtype = _dtypes.as_dtype(dtype)
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with "
                             f"dtype {value.dtype.name}: {value!r}")
        return value
    hook = getattr(value, "_as_graph_or_eager_tensor", None)
    if hook is not None:  # variables and other tensor-like objects
        return convert_to_tensor(hook(dtype), dtype)
    if isinstance(value, (list, tuple)) and _needs_packing(value):
        return _autopack(value, dtype if dtype is not None else _first_dtype(value))
    if dtype is not None:
        return _make(to_array(value, _dtypes.as_dtype(dtype)))
    if dtype_hint is not None:
        try:
            return _make(to_array(value, _dtypes.as_dtype(dtype_hint)))
        except (TypeError, ValueError):
            pass
    return _make(to_array(value))


def _needs_packing(value):
    """True for sequences holding symbolic tensors or variables: they pack with ``tf.stack``."""
    for v in value:
        if isinstance(v, (list, tuple)):
            if _needs_packing(v):
                return True
        elif (isinstance(v, Tensor) and not isinstance(v, EagerTensor)) or \
                hasattr(v, "_as_graph_or_eager_tensor"):
            return True
    return False


def _first_dtype(value):
    for v in value:
        if isinstance(v, (list, tuple)):
            d = _first_dtype(v)
            if d is not None:
                return d
        elif isinstance(v, Tensor) or hasattr(v, "_as_graph_or_eager_tensor"):
            return v.dtype
    return None


def _autopack(value, dtype):
    """``[tf.shape(x)[0], 3]`` in a graph: convert each element, then stack them (TF packs)."""
    parts = [_autopack(v, dtype) if isinstance(v, (list, tuple)) else convert_to_tensor(v, dtype)
             for v in value]
    return bind(get_op("Pack"), *parts, axis=0)


def operand(value, like):
    """The other operand of a binary operator on tensor ``like`` (``x + 1``): Python and NumPy
    scalars take ``like``'s dtype; sequences that cannot are converted on their own so the op
    reports the dtype mismatch."""
    if isinstance(value, Tensor):
        return value
    t = type(value)
    if t is float or t is int:  # the hot path: x * 2
        np_dtype = like._value.dtype if type(like) is EagerTensor else like.dtype._np
        rule = _FAST_SCALARS.get((np_dtype, t))
        if rule is None:
            rule = _FAST_SCALARS[(np_dtype, t)] = _fast_rule(np_dtype, t)
        if rule and rule[1] <= value <= rule[2]:
            graph = _state.graph
            if graph is None:
                out = _new(EagerTensor)
                out._value = rule[0](value)
                return out
            return graph.constant(rule[0](value))
    dtype = like.dtype
    if t is float or t is int:
        kind = dtype._np.kind if dtype._np is not None else "?"
        if kind == "f" or (t is int and kind in "iu"):
            return _make(_scalar(value, dtype))
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            return convert_to_tensor(value, dtype)
        except (TypeError, ValueError):
            return convert_to_tensor(value)
    if isinstance(value, np.generic) and value.dtype.kind in "biufc" and dtype._np is not None:
        return _make(value.astype(dtype._np))
    return convert_to_tensor(value, dtype)


_new = object.__new__
_FAST_SCALARS = {}


def _fast_rule(np_dtype, py_type):
    """(numpy type, low, high) when a Python ``py_type`` converts to ``np_dtype`` directly."""
    if np_dtype is None or np_dtype.kind not in "fiu" or \
            (py_type is float and np_dtype.kind != "f"):
        return False
    if np_dtype.kind == "f" and np_dtype.itemsize < 4:
        return False  # float16/bfloat16: leave overflow handling to _scalar
    info = np.finfo(np_dtype) if np_dtype.kind == "f" else np.iinfo(np_dtype)
    cast = float if np_dtype.kind == "f" else int
    return (np_dtype.type, cast(info.min), cast(info.max))


_LIMITS = {}


def _scalar(value, dtype):
    """A Python int/float as a NumPy scalar of ``dtype``, wrapping or overflowing as TF does."""
    np_type = dtype._np.type
    limits = _LIMITS.get(np_type)
    if limits is None:
        info = np.iinfo(np_type) if dtype.is_integer else np.finfo(np_type)
        cast = int if dtype.is_integer else float
        limits = _LIMITS[np_type] = (cast(info.min), cast(info.max))
    if limits[0] <= value <= limits[1]:
        return np_type(value)
    if type(value) is int:
        return np.array(value).astype(np.int64).astype(np_type)[()]
    with np.errstate(over="ignore"):
        return np_type(value)


_tensor.convert = convert_to_tensor  # TensorSpec.is_compatible_with converts Python values
