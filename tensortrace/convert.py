"""TF's rules for turning Python and NumPy values into tensors (``tf.constant``,
``tf.convert_to_tensor``).

    >>> constant(1).dtype, constant(1.0).dtype, constant(np.float64(1)).dtype
    (tf.int32, tf.float32, tf.float64)
"""


from math import prod

import numpy as np

from . import dtypes as _dtypes
from . import tensor as _tensor
from .config import _runtime_started
from .context import bind
from .messages import check_size
from .context import state as _state
from .registry import get as get_op
from .shapes import TensorShape
from .tensor import EagerTensor, Tensor

_wrap = EagerTensor._wrap
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_UINT64_MAX = 2**64 - 1
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_SCALAR_TYPES = (bool, int, float, complex, str, bytes)
_MAX_RANK = 64  # NumPy's limit on dimensions (TF's own is 254)

# TF's messages for Python values (py_seq_tensor.cc), raised as ValueError.
_RECTANGULAR = "Can't convert non-rectangular Python sequence to Tensor."
_MIXED = "Can't convert Python sequence with mixed types to Tensor."
_OUT_OF_RANGE = "Can't convert Python sequence with out-of-range integer to Tensor."
_OUT_OF_RANGE_DOUBLE = ("Can't convert Python sequence with a value out of range for a "
                        "double-precision float.")
_FOUND_INT64 = "Can't convert Python sequence with out-of-range integer to int32 Tensor."
_FOUND_FLOAT = "Can't convert Python sequence with floating point values to integer Tensor."


def _unsupported(value):
    return ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                      f"({type(value)}) to a Tensor.")


def _cannot_convert(value, dtype):
    name = {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {name}")


def _string_array(value):
    def enc(v):
        if isinstance(v, str):
            return v.encode("utf-8")
        if isinstance(v, (bytes, np.bytes_)):
            return bytes(v)
        if isinstance(v, np.str_):
            return str(v).encode("utf-8")
        raise ValueError(_MIXED)

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
        ValueError: for unsupported values, ragged or mixed sequences, out-of-range numbers.
        OverflowError: for an integer out of ``dtype``'s range while a function is traced (as
            TF's graph-mode conversion through NumPy), or a negative one as uint64.
    """
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind in "USO":
            arr = _string_array(value)
            if dtype is not None and dtype is not _dtypes.string:
                raise _cannot_convert(value, dtype)
            return arr
        if dtype is None:
            return np.array(value) if isinstance(value, np.ndarray) else value
        return value.astype(dtype._np) if dtype is not _dtypes.string else _cannot(value, dtype)
    fast = _DIRECT_SCALARS.get((type(value), dtype))
    if fast is not None and fast[1] <= value <= fast[2]:  # tf.constant(1.0), x * 2.0
        return fast[0](value)
    if isinstance(value, _SCALAR_TYPES):
        return _from_python(value, (), [value], None, {_kind(value)}, dtype)
    if isinstance(value, (list, tuple)):
        shape = _inferred_shape(value)
        if 0 in shape:  # TF makes the empty tensor from the first elements' shape alone
            return np.empty(shape, (dtype or _dtypes.float32)._np)
        walked = _leaves(value, shape)
        if walked is None:
            return _pack_array(value, dtype)
        return _from_python(value, shape, *walked, dtype)
    if hasattr(type(value), "__array__"):  # NumPy's array protocol (JAX arrays ...), as TF
        arr = np.asarray(value)
        if isinstance(arr, np.ndarray):
            return to_array(arr, dtype)
    raise _unsupported(value)


def _inferred_shape(value):
    """TF's shape of a nested sequence: the lengths along its first elements."""
    shape = []
    while isinstance(value, (list, tuple)):
        shape.append(len(value))
        if len(shape) > _MAX_RANK:
            raise ValueError(f"Can't convert a Python sequence nested more than {_MAX_RANK} deep "
                             "to Tensor: a tensor has at most that many dimensions here.")
        if not value:
            break
        value = value[0]
    return tuple(shape)


def _packable(v):
    return isinstance(v, (Tensor, np.ndarray, np.generic)) or hasattr(v, "read_value")


def _leaves(value, shape):
    """(the leaves before the first non-rectangular part, in order; that part's place or None;
    the leaves' kinds), or None when the sequence holds tensors or arrays (they are packed)."""
    level, ragged_at = value, None
    for depth in range(1, len(shape)):
        n, block = shape[depth], prod(shape[depth:])  # block: the leaves under one whole item
        nxt = []
        for i, seq in enumerate(level):
            if isinstance(seq, (list, tuple)):
                if len(seq) == n:
                    nxt.extend(seq)
                    continue
            elif _packable(seq):
                return None
            place = i * block  # the leaves before it, all items before it being whole
            ragged_at = place if ragged_at is None else min(ragged_at, place)
            break
        level = nxt
    leaves = level if type(level) is list else list(level)
    if ragged_at is not None:
        leaves = leaves[:ragged_at]
    types = set(map(type, leaves))
    if types <= _PLAIN:
        return leaves, ragged_at, types
    for t in types - _PLAIN:
        if not issubclass(t, _SCALAR_TYPES) and not issubclass(t, (list, tuple)) and \
                any(_packable(v) for v in leaves if type(v) is t):
            return None
    return leaves, ragged_at, {_kind(v) for v in leaves}


_PLAIN = frozenset(_SCALAR_TYPES)


def _from_python(value, shape, leaves, ragged_at, kinds, dtype):
    """Python values as TF converts them eagerly: the requested dtype's converter, else the one of
    the first element's type, then a cast to ``dtype`` where TF allows it."""
    first = leaves[0] if leaves else None
    if _state.graph is not None:  # TF's graph-mode conversion: NumPy first, with its errors
        if dtype is not None and (dtype.is_integer or dtype.is_floating):
            _graph_range_check(leaves, kinds, dtype)
        if ragged_at is not None:
            np.array(value, None if dtype is None or dtype is _dtypes.string else dtype._np)
    error = None
    made = None
    direct = _DIRECT.get(dtype)
    if direct is not None:
        error = _first_error(direct, leaves, kinds)
        made = direct if error is None else None
    if made is None:
        kind = _kind(first) if leaves else None
        if kind is None:
            raise _unsupported(first) if leaves else ValueError(_RECTANGULAR)
        if kind is float:  # (a NumPy float64 first is a double to TF)
            made = "float32" if dtype is None and type(first) is not np.float64 else "float64"
        elif kind is int:
            made = "int32" if dtype is None else "int64"
        else:
            made = {str: "string", bytes: "string", complex: "complex128", bool: "bool"}[kind]
        error = _first_error(made, leaves, kinds)
        if error is _FOUND_INT64 and made == "int32":
            made = "int64"
            error = _first_error(made, leaves, kinds)
        if error is _FOUND_FLOAT:
            made = "float32" if dtype is None else "float64"
            error = _first_error(made, leaves, kinds)
    if error is None and ragged_at is not None:
        error = _RECTANGULAR
    if error is not None:
        raise ValueError(error)
    made_dtype = _MADE[made]
    if dtype is not None and dtype is not made_dtype and not _castable(dtype, made_dtype):
        raise _cannot_convert(value, dtype)
    if made == "string":
        return _string_array(value)
    if made in ("float32", "float16") and kinds != {float}:  # big ints become inf, as in TF
        with np.errstate(over="ignore"):
            arr = np.array(value, np.float64).astype(made_dtype._np)
    else:  # (floats past float32's range were refused above)
        arr = np.array(value, made_dtype._np)
    if dtype is not None and dtype is not made_dtype:
        with np.errstate(over="ignore", invalid="ignore"):  # TF's Cast wraps ints: uint8 300 -> 44
            arr = arr.astype(dtype._np)
    return _as_value(arr)


def _kind(v):
    """The Python type TF sees in a leaf (bool before int), or None when it takes none."""
    t = type(v)
    if t in _PLAIN:
        return t
    for base in (bool, int, float, complex, str, bytes):
        if isinstance(v, base):
            return base
    return None


_DIRECT = {}  # the requested dtypes with a converter of their own (filled below)
_TAKES = {  # converter -> the leaf kinds it takes (before range checks)
    "int32": {bool, int}, "int64": {bool, int}, "uint64": {bool, int},
    "float32": {bool, int, float}, "float16": {bool, int, float}, "float64": {bool, int, float},
    "complex128": {bool, int, float, complex}, "string": {str, bytes}, "bool": {bool},
}


def _first_error(made, leaves, kinds):
    """The error TF's converter for ``made`` meets first in ``leaves`` (walked in order), or
    None."""
    takes = _TAKES[made]
    if not kinds <= takes:  # the first leaf it takes no kind of, unless a range error comes first
        at = next(i for i, v in enumerate(leaves) if _kind(v) not in takes)
        k = _kind(leaves[at])
        return _first_error(made, leaves[:at], kinds & takes) or (
            _FOUND_FLOAT if k is float and made in ("int32", "int64", "uint64") else _MIXED)
    for k in (int, float):  # within one converter, every range error of a kind is one text
        if k in kinds:
            same = leaves if len(kinds) == 1 else [v for v in leaves if _kind(v) is k]
            bad = _range_error(made, same, k)
            if bad is not None:
                return bad
    return None


def _range_error(made, leaves, kind):
    """The first range error of leaves of one kind (int or float) in converter ``made``."""
    if not leaves:
        return None
    if kind is float:
        if made in ("float32", "float16"):
            limit = _FLOAT32_MAX if made == "float32" else 65504.0
            if -limit <= min(leaves) and max(leaves) <= limit:  # NaN fails: checked below
                return None
            arr = np.array(leaves, np.float64)
            with np.errstate(over="ignore"):
                if (np.isinf(arr.astype(_MADE[made]._np)) & np.isfinite(arr)).any():
                    return _OUT_OF_RANGE_DOUBLE
        return None
    lo, hi = min(leaves), max(leaves)
    if made == "int32":
        if _INT32_MIN <= lo and hi <= _INT32_MAX:
            return None
        v = next(v for v in leaves if not _INT32_MIN <= v <= _INT32_MAX)
        return _FOUND_INT64 if _INT64_MIN <= v <= _INT64_MAX else _OUT_OF_RANGE
    if made == "int64":
        return None if _INT64_MIN <= lo and hi <= _INT64_MAX else _OUT_OF_RANGE
    if made == "uint64":
        if lo < 0:  # TF's converter leaves Python's own error set (a SystemError there)
            raise OverflowError("can't convert negative int to unsigned")
        if hi > _UINT64_MAX:
            raise OverflowError("int too big to convert")
        return None
    try:
        float(lo), float(hi)
    except OverflowError:
        return _OUT_OF_RANGE_DOUBLE
    return None


def _graph_range_check(leaves, kinds, target):
    """While tracing, TF converts Python numbers through NumPy, which refuses ints out of range."""
    if int not in kinds:
        return
    ints = [v for v in leaves if type(v) is int] if len(kinds) > 1 else leaves
    if not ints:
        return
    lo, hi = min(ints), max(ints)
    if target.is_floating:
        try:
            float(lo), float(hi)
        except OverflowError:
            raise OverflowError("int too large to convert to float") from None
        return
    info = np.iinfo(target._np)
    if int(info.min) <= lo and hi <= int(info.max):
        return
    v = next(v for v in ints if not int(info.min) <= v <= int(info.max))
    if not _INT64_MIN <= v <= (_UINT64_MAX if target.name == "uint64" else _INT64_MAX):
        raise OverflowError("Python int too large to convert to C long")
    raise OverflowError(f"Python integer {v} out of bounds for {target.name}")


def _castable(desired, made):
    """TF's IsCompatible: the casts its conversion applies after converting."""
    if desired.is_integer:
        return made.is_integer
    if desired.is_floating:
        return made.is_floating or made.is_integer
    if desired.is_complex:
        return made.is_complex or made.is_floating or made.is_integer
    return False


def _cannot(value, dtype):
    raise _cannot_convert(value, dtype)


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
    dims = TensorShape(shape)  # TF's as_shape: its Dimension errors name a bad dimension
    arr = np.asarray(arr)
    if not dims.is_fully_defined():
        raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {arr} "
                        f"(converted from {value}) cannot be shaped as {dims}: every dimension "
                        f"must be known.")
    shape = tuple(dims.as_list())
    check_size(shape, arr.dtype, "Fill")
    size = prod(shape)
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
    _runtime_started[0] = True  # the first eager tensor fixes the logical devices, as in TF
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
    protocol = getattr(type(value), "__tf_tensor__", None)
    if protocol is not None:  # TF's tensor protocol: the object converts itself
        return convert_to_tensor(protocol(value, dtype, name), dtype)
    if isinstance(value, TensorShape):
        return _shape_tensor(value, dtype)
    if isinstance(value, (list, tuple)) and _needs_packing(value):
        if dtype is not None:  # TF casts the list's tensors to a requested dtype
            return _autopack(value, _dtypes.as_dtype(dtype), cast=True)
        return _autopack(value, _first_dtype(value))
    if dtype is not None:
        return _make(to_array(value, _dtypes.as_dtype(dtype)))
    if dtype_hint is not None:
        try:
            return _make(to_array(value, _dtypes.as_dtype(dtype_hint)))
        except (TypeError, ValueError):
            pass
    return _make(to_array(value))


def _shape_tensor(shape, dtype):
    """A fully known TensorShape as its dims: int32, int64 when a dim needs it (TF's rule)."""
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    dims = shape.as_list()
    if dtype is None:
        dtype = _dtypes.int64 if any(d >= 2 ** 31 for d in dims) else _dtypes.int32
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"Cannot convert TensorShape {shape} to dtype <dtype: '{dtype.name}'>. "
                        "Allowed dtypes are tf.int32 and tf.int64.")
    return _make(np.array(dims, dtype=dtype.as_numpy_dtype))


def _needs_packing(value):
    """True for sequences holding symbolic tensors or variables: they pack with ``tf.stack``."""
    stack = [(value, 0)]
    while stack:
        seq, depth = stack.pop()
        for v in seq:
            if isinstance(v, (list, tuple)):
                if depth < _MAX_RANK:  # deeper (or cyclic) lists fail in to_array
                    stack.append((v, depth + 1))
            elif (isinstance(v, Tensor) and not isinstance(v, EagerTensor)) or \
                    hasattr(v, "_as_graph_or_eager_tensor"):
                return True
    return False


def _first_dtype(value):
    """The dtype of the first tensor or variable in a nested sequence (depth first)."""
    stack = [iter(value)]
    while stack:
        v = next(stack[-1], _END)
        if v is _END:
            stack.pop()
        elif isinstance(v, (list, tuple)):
            if len(stack) <= _MAX_RANK:
                stack.append(iter(v))
        elif isinstance(v, Tensor) or hasattr(v, "_as_graph_or_eager_tensor"):
            return v.dtype
    return None


_END = object()


def _autopack(value, dtype, cast=False):
    """``[tf.shape(x)[0], 3]`` in a graph: convert each element, then stack them (TF packs);
    with ``cast``, tensors of another dtype are cast to ``dtype`` first."""
    parts = [_autopack(v, dtype, cast) if isinstance(v, (list, tuple)) else
             _cast(v, dtype) if cast and isinstance(v, Tensor) and v.dtype != dtype else
             convert_to_tensor(v, dtype) for v in value]
    return bind(get_op("Pack"), *parts, axis=0)


def _cast(t, dtype):
    return bind(get_op("Cast"), t, SrcT=t.dtype, DstT=dtype, Truncate=False)


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
    return to_array(value, dtype)  # out of range: TF's rules (wrap, inf, or an error)


_MADE = {name: _dtypes.as_dtype(name) for name in _TAKES}
_DIRECT.update({d: name for name, d in _MADE.items()})
# Python scalars that convert directly within these bounds: (NumPy type, low, high).
_DIRECT_SCALARS = {
    (float, None): (np.float32, -_FLOAT32_MAX, _FLOAT32_MAX),
    (int, None): (np.int32, _INT32_MIN, _INT32_MAX),
    (float, _dtypes.float32): (np.float32, -_FLOAT32_MAX, _FLOAT32_MAX),
    (float, _dtypes.float64): (np.float64, -np.inf, np.inf),
    (int, _dtypes.float32): (np.float32, _INT64_MIN, _INT64_MAX),
    (int, _dtypes.float64): (np.float64, _INT64_MIN, _INT64_MAX),
    (int, _dtypes.int32): (np.int32, _INT32_MIN, _INT32_MAX),
    (int, _dtypes.int64): (np.int64, _INT64_MIN, _INT64_MAX),
}

_tensor.convert = convert_to_tensor  # TensorSpec.is_compatible_with converts Python values
