"""TF's DType objects and their mapping to NumPy dtypes.

    >>> as_dtype("float32") is float32, float32.as_numpy_dtype is np.float32
    (True, True)
"""

import numpy as np

try:  # bfloat16, float8, int4 ... come from ml_dtypes when installed (the "bfloat16" and
    # "float8" extras)
    import ml_dtypes as _ml_dtypes
except ImportError:  # pragma: no cover - depends on the environment
    _ml_dtypes = None


class DType:
    """A TensorFlow element type such as ``tf.float32``."""

    __slots__ = ("_name", "_enum", "_np")

    def __new__(cls, name, enum=None, np_dtype=None):
        if enum is None:  # tf.dtypes.DType(type_enum): the existing DType of that enum
            try:
                code = int(name)
            except (TypeError, ValueError) as e:
                raise ValueError(str(e)) from None
            found = _BY_ENUM.get(code)
            if found is None:
                raise TypeError(f"{code} does not correspond to a valid tensorflow::DataType")
            return found
        return super().__new__(cls)

    def __init__(self, name, enum=None, np_dtype=None):
        if enum is None:
            return  # DType(type_enum) returned an existing DType
        self._name = name
        self._enum = enum
        self._np = np_dtype

    name = property(lambda self: self._name)
    as_datatype_enum = property(lambda self: self._enum)
    # TF gives Python's ``object`` for strings (not np.object_)
    as_numpy_dtype = property(lambda self: None if self._np is None else
                              object if self._np.kind == "O" else self._np.type)
    base_dtype = property(lambda self: self)
    is_numpy_compatible = property(lambda self: self._np is not None)
    is_quantized = property(lambda self: False)

    @property
    def is_bool(self):
        return self is bool

    @property
    def is_floating(self):
        return self._name in _FLOATING

    @property
    def is_integer(self):
        return self._np is not None and self._np.kind in "iu" or self._name in _NARROW_INTS

    @property
    def is_unsigned(self):
        return self._np is not None and self._np.kind == "u" or self._name in ("uint4", "uint2")

    @property
    def is_numeric(self):  # TF's narrow ml_dtypes types (float8, int4, ...) are not numeric
        return ((self.is_floating or self.is_integer or self.is_complex)
                and self._name not in _NARROW)

    @property
    def is_complex(self):
        return self._name in ("complex64", "complex128")

    @property
    def real_dtype(self):
        return {"complex64": float32, "complex128": float64}.get(self._name, self)

    @property
    def size(self):
        if self is string:
            return 8
        return self._np.itemsize if self._np is not None else 1

    @property
    def min(self):
        if self.is_integer:
            return int(_iinfo(self._np).min)
        if self.is_floating:
            return _finfo(self._np).min
        raise TypeError(f"Cannot find minimum value of {self}.")

    @property
    def max(self):
        if self.is_integer:
            return int(_iinfo(self._np).max)
        if self.is_floating:
            return _finfo(self._np).max
        if self is bool:
            return True
        raise TypeError(f"Cannot find maximum value of {self}.")

    @property
    def limits(self):
        return (self.min, self.max)

    def is_compatible_with(self, other):
        return self is as_dtype(other)

    def __eq__(self, other):
        if other is None:
            return False
        if isinstance(other, DType):
            return self is other
        try:
            return self is as_dtype(other)
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._enum

    def __repr__(self):
        return "tf." + self._name

    def __str__(self):
        return f"<dtype: '{self._name}'>"

    def __reduce__(self):
        return as_dtype, (self._name,)


def _finfo(np_dtype):
    return np.finfo(np_dtype) if _ml_dtypes is None else _ml_dtypes.finfo(np_dtype)


def _iinfo(np_dtype):
    return np.iinfo(np_dtype) if _ml_dtypes is None else _ml_dtypes.iinfo(np_dtype)


def _ml_dtype(name, enum):
    """TF's DType of an ml_dtypes type; None when ml_dtypes (or this version of it) lacks it."""
    np_type = getattr(_ml_dtypes, name, None)
    return None if np_type is None else DType(name, enum, np.dtype(np_type))


# TF's narrow types (tf.dtypes.experimental): ml_dtypes' arrays, as TF's own.
_NARROW_FLOATS = ("float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
                  "float8_e5m2fnuz", "float4_e2m1fn")
_NARROW_INTS = ("int4", "uint4", "int2", "uint2")
_NARROW = frozenset(_NARROW_FLOATS + _NARROW_INTS)
_FLOATING = frozenset(("float16", "float32", "float64", "bfloat16") + _NARROW_FLOATS)


float16 = half = DType("float16", 19, np.dtype(np.float16))
float32 = DType("float32", 1, np.dtype(np.float32))
float64 = double = DType("float64", 2, np.dtype(np.float64))
int8 = DType("int8", 6, np.dtype(np.int8))
int16 = DType("int16", 5, np.dtype(np.int16))
int32 = DType("int32", 3, np.dtype(np.int32))
int64 = DType("int64", 9, np.dtype(np.int64))
uint8 = DType("uint8", 4, np.dtype(np.uint8))
uint16 = DType("uint16", 17, np.dtype(np.uint16))
uint32 = DType("uint32", 22, np.dtype(np.uint32))
uint64 = DType("uint64", 23, np.dtype(np.uint64))
bool = DType("bool", 10, np.dtype(np.bool_))  # noqa: A001 - TF's public name
string = DType("string", 7, np.dtype(object))
complex64 = DType("complex64", 8, np.dtype(np.complex64))
complex128 = DType("complex128", 18, np.dtype(np.complex128))
resource = DType("resource", 20, None)
variant = DType("variant", 21, None)
bfloat16 = _ml_dtype("bfloat16", 14)
float8_e5m2 = _ml_dtype("float8_e5m2", 24)
float8_e4m3fn = _ml_dtype("float8_e4m3fn", 25)
float8_e4m3fnuz = _ml_dtype("float8_e4m3fnuz", 26)
float8_e4m3b11fnuz = _ml_dtype("float8_e4m3b11fnuz", 27)
float8_e5m2fnuz = _ml_dtype("float8_e5m2fnuz", 28)
int4 = _ml_dtype("int4", 29)
uint4 = _ml_dtype("uint4", 30)
int2 = _ml_dtype("int2", 31)
uint2 = _ml_dtype("uint2", 32)
float4_e2m1fn = _ml_dtype("float4_e2m1fn", 33)

ALL = [d for d in (float16, float32, float64, bfloat16, int8, int16, int32, int64, uint8, uint16,
                   uint32, uint64, bool, string, complex64, complex128, resource, variant,
                   float8_e5m2, float8_e4m3fn, float8_e4m3fnuz, float8_e4m3b11fnuz,
                   float8_e5m2fnuz, int4, uint4, int2, uint2, float4_e2m1fn) if d]

_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update(half=float16, double=float64, float=float32)  # TF's C type names
_BY_ENUM = {d.as_datatype_enum: d for d in ALL}
# NumPy dtype -> DType; object arrays hold bytes and are TF strings.
_BY_NUMPY = {d._np: d for d in ALL if d._np is not None}
_BY_NUMPY[np.dtype("S")] = string
_BY_NUMPY[np.dtype("U")] = string


def as_dtype(type_value):
    """Convert a DType, NumPy dtype, Python type, name or enum into a ``DType``.

    Raises:
        TypeError: if ``type_value`` names no TF dtype.
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):  # TF's own names only: "int", "f4" or "long" are errors
        d = _BY_NAME.get(type_value)
        if d is not None:
            return d
        extra = "bfloat16" if type_value == "bfloat16" else "float8"
        extra = (f" (it needs ml_dtypes: pip install 'tensortrace[{extra}]')"
                 if type_value in _NARROW or type_value == "bfloat16" else "")
        raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a "
                        f"TensorFlow DType.{extra}")
    elif isinstance(type_value, int) and not isinstance(type_value, type(True)):
        d = _BY_ENUM.get(type_value)
        if d is not None:
            return d
    elif type_value is type(True):
        return bool
    elif type_value is float:
        return float32
    np_dtype = None
    if not any(type_value is t for t in (int, complex, str, bytes)):  # NumPy takes these; TF not
        try:
            np_dtype = np.dtype(type_value)
        except (TypeError, ValueError):  # ValueError: objects NumPy tries to read a dtype from
            pass
    if np_dtype is not None:
        d = _BY_NUMPY.get(np_dtype) or _BY_NUMPY.get(np.dtype(np_dtype.kind))
        if d is not None:
            return d
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow "
                    "DType.")


def from_numpy(np_dtype):
    """The DType of a NumPy dtype (the hot path of ``EagerTensor.dtype``)."""
    d = _BY_NUMPY.get(np_dtype)
    if d is None:
        d = as_dtype(np_dtype)
    return d


QUANTIZED_DTYPES = frozenset()

