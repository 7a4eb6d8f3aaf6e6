"""NumPy arrays <-> TF's ``TensorProto`` and shapes/dtypes <-> ``TensorShapeProto``/``DataType``.

The encodings are TF's (``tf.make_tensor_proto`` / ``tf.make_ndarray``): numeric arrays of more
than one element go into ``tensor_content`` (raw little-endian bytes, C order); scalars and
broadcast values into the typed ``*_val`` fields (float16 and bfloat16 as their 16-bit patterns
in ``half_val``, complex numbers as interleaved real/imaginary pairs); strings into
``string_val``. Reading pads a ``*_val`` list shorter than the shape with its last value (zeros
when empty), as TF does. Resource and variant tensors have no value encoding here: refused.

    >>> to_array(to_proto(np.arange(3, dtype=np.float32)))
    array([0., 1., 2.], dtype=float32)

Needs the ``tf-formats`` extra (protobuf); loaded only on first use.
"""

import sys

import numpy as np

from .. import _protos, dtypes, errors
from ..shapes import TensorShape, as_shape

# TF's _TENSOR_CONTENT_TYPES among our dtypes: these use tensor_content for more than 1 element
_CONTENT = frozenset(d for d in (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.bfloat16,
                                 dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64,
                                 dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64) if d)
# dtype name -> the repeated field holding its values (TF's GetNumpyAppendFn / MakeNdarray)
_FIELD = {"float16": "half_val", "bfloat16": "half_val", "float32": "float_val",
          "float64": "double_val", "int8": "int_val", "int16": "int_val", "int32": "int_val",
          "uint8": "int_val", "uint16": "int_val", "int64": "int64_val",
          "uint32": "uint32_val", "uint64": "uint64_val", "bool": "bool_val",
          "complex64": "scomplex_val", "complex128": "dcomplex_val", "string": "string_val"}
_LIMIT = 1 << 31


def _pb():
    return _protos.tensor_pb2, _protos.tensor_shape_pb2


# --- dtypes and shapes ----------------------------------------------------------------------------
def dtype_enum(dtype):
    """The ``DataType`` enum value of a tensortrace DType (or anything ``as_dtype`` takes)."""
    return dtypes.as_dtype(dtype).as_datatype_enum


def dtype_from_enum(value):
    """The DType of a ``DataType`` enum value.

    Raises:
        TypeError: for an enum tensortrace has no DType for (quantized, float8, reference types).
    """
    found = dtypes._BY_ENUM.get(int(value))
    if found is None:
        name = _protos.types_pb2.DataType.Name(value) if _enum_known(value) else str(value)
        raise TypeError(f"DataType {name} ({int(value)}) is not supported by tensortrace "
                        "(no such tensortrace dtype).")
    return found


def _enum_known(value):
    try:
        _protos.types_pb2.DataType.Name(int(value))
        return True
    except ValueError:
        return False


def shape_proto(shape):
    """A ``TensorShapeProto`` for ``shape`` (unknown rank -> ``unknown_rank``, None -> -1)."""
    shape = as_shape(shape)
    proto = _pb()[1].TensorShapeProto()
    if shape.rank is None:
        proto.unknown_rank = True
        return proto
    for d in shape.dims:
        proto.dim.add(size=-1 if d is None else int(d))
    return proto


def shape_from_proto(proto):
    """The TensorShape a ``TensorShapeProto`` describes.

    Raises:
        ValueError: for a dimension below -1 (TF's "Shape ... has dimensions with values below
            -1 (where -1 means unknown)").
    """
    if proto.unknown_rank:
        return TensorShape(None)
    sizes = [d.size for d in proto.dim]
    if any(s < -1 for s in sizes):
        text = ",".join("?" if s == -1 else str(s) for s in sizes)
        raise ValueError(f"Shape [{text}] has dimensions with values below -1 (where -1 means "
                         "unknown)")
    return TensorShape([None if s == -1 else s for s in sizes])


# --- values ---------------------------------------------------------------------------------------
def _as_array(value, dtype):
    """``value`` as a NumPy array of ``dtype`` (a DType or None); strings as an object array of
    bytes."""
    if hasattr(value, "numpy") and hasattr(value, "dtype"):  # an eager tensor
        value = value.numpy()
    if dtype is None:
        arr = np.asarray(value)
        if arr.dtype.kind in "SUO":
            return _strings(value)
        if not isinstance(value, (np.ndarray, np.generic)):  # Python values: TF's defaults
            if arr.dtype == np.float64:
                return arr.astype(np.float32)
            if arr.dtype == np.int64 and (arr.size == 0 or np.abs(arr).max() < 2**31):
                return arr.astype(np.int32)
        return arr
    if dtype is dtypes.string:
        return _strings(value)
    if dtype.as_numpy_dtype is None:
        raise TypeError(f"Cannot make a TensorProto of dtype {dtype.name}: {dtype.name} tensors "
                        "hold handles, not values.")
    arr = np.asarray(value)
    if arr.dtype.kind in "SUO":
        raise TypeError(f"`dtype` {dtype} is not compatible with {value!r} of dtype "
                        f"{arr.dtype}.")
    return arr.astype(dtype.as_numpy_dtype, copy=False)


def _strings(value):
    arr = np.asarray(value, dtype=object)
    flat = arr.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, str):
            flat[i] = v.encode("utf-8")
        elif isinstance(v, (bytes, np.bytes_)):
            flat[i] = bytes(v)
        else:
            raise TypeError(f"Failed to convert elements of {value!r} to Tensor: {v!r} is not "
                            "a string.")
    return flat.reshape(arr.shape)


def to_proto(value, dtype=None, shape=None):
    """A ``TensorProto`` holding ``value`` (array, scalar, nested list, eager tensor).

    ``dtype`` (a DType) casts the value; ``shape`` broadcasts a scalar or one-element value to
    ``shape`` in TF's compact form (one ``*_val`` entry that readers pad).

    Raises:
        TypeError: for resource/variant dtypes and values of no TF dtype.
        ValueError: for more elements than ``shape`` holds, or more than 2GB of content.
    """
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    arr = _as_array(value, dtype)
    try:
        dt = dtype or dtypes.from_numpy(arr.dtype)
    except TypeError:
        raise TypeError(f"Failed to convert elements of {value!r} to Tensor. Consider casting "
                        "elements to a supported type. See https://www.tensorflow.org/api_docs/"
                        "python/tf/dtypes for supported TF dtypes.") from None
    if dt.name not in _FIELD:
        raise TypeError(f"Cannot make a TensorProto of dtype {dt.name}.")
    same_size = True
    if shape is not None:
        shape = [int(d) for d in as_shape(shape).as_list()]
        size = int(np.prod(shape, dtype=np.int64))
        same_size = size == arr.size
        if arr.size > size:
            raise ValueError(f"Too many elements provided. Takes at most {size:d}, but got "
                             f"{arr.size:d}.")
    else:
        shape = list(arr.shape)
        size = arr.size
    proto = _pb()[0].TensorProto(dtype=dt.as_datatype_enum, tensor_shape=shape_proto(shape))
    if same_size and dt in _CONTENT and size > 1:
        if arr.size * arr.itemsize >= _LIMIT:
            raise ValueError("Cannot create a tensor proto whose content is larger than 2GB.")
        arr = np.ascontiguousarray(arr)
        proto.tensor_content = (arr.byteswap() if sys.byteorder == "big" else arr).tobytes()
        return proto
    flat = arr.reshape(-1)
    field = getattr(proto, _FIELD[dt.name])
    if dt.name in ("float16", "bfloat16"):
        field.extend(flat.view(np.uint16).tolist())
    elif dt.is_complex:
        pairs = np.stack([flat.real, flat.imag], axis=-1).reshape(-1)
        field.extend(pairs.tolist())
    else:
        field.extend(flat.tolist())
    return proto


def _string_list(content, count):
    """TF's ``port::DecodeStringList``: ``count`` varint32 lengths, then the strings' bytes."""
    lengths, pos = [], 0
    for _ in range(count):
        value, shift = 0, 0
        while True:
            if pos >= len(content) or shift > 28:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot parse tensor from proto: a string tensor's "
                    "tensor_content has malformed lengths")
            byte = content[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        lengths.append(value)
    if pos + sum(lengths) != len(content):
        raise errors.InvalidArgumentError(
            None, None, f"Cannot parse tensor from proto: a string tensor's tensor_content holds "
            f"{len(content) - pos} bytes of strings, its lengths say {sum(lengths)}")
    out = []
    for n in lengths:
        out.append(bytes(content[pos:pos + n]))
        pos += n
    return out


def to_array(proto):
    """The NumPy array a ``TensorProto`` holds (TF's ``tf.make_ndarray``).

    Raises:
        TypeError: for dtypes without a value encoding (resource, variant, quantized).
        InvalidArgumentError: when ``tensor_content`` does not match the shape and dtype.
    """
    shape = [d.size for d in proto.tensor_shape.dim]
    if any(s < 0 for s in shape):
        raise errors.InvalidArgumentError(
            None, None, f"Cannot parse tensor from proto: shape {shape} is not fully defined")
    count = int(np.prod(shape, dtype=np.int64))
    try:
        dt = dtype_from_enum(proto.dtype)
    except TypeError:
        dt = None
    if dt is None or dt.name not in _FIELD:
        name = (_protos.types_pb2.DataType.Name(proto.dtype) if _enum_known(proto.dtype)
                else str(proto.dtype))
        raise TypeError(f"Unsupported tensor type: {name}. See https://www.tensorflow.org/"
                        "api_docs/python/tf/dtypes for supported TF dtypes.")
    np_dtype = np.dtype(dt.as_numpy_dtype)
    if proto.tensor_content:
        if dt is dtypes.string:  # TF's EncodeStringList (dataset graphs hold it)
            out = np.empty(count, dtype=object)
            out[:] = _string_list(proto.tensor_content, count)
            return out.reshape(shape)
        content = proto.tensor_content
        if len(content) != count * np_dtype.itemsize:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot parse tensor from proto: tensor_content holds "
                f"{len(content)} bytes, a {dt.name} tensor of shape {shape} needs "
                f"{count * np_dtype.itemsize}")
        arr = np.frombuffer(content, dtype=np_dtype).copy()
        if sys.byteorder == "big":  # the bytes are little-endian
            arr = arr.byteswap()
        return arr.reshape(shape)
    field = getattr(proto, _FIELD[dt.name])
    if dt is dtypes.string:
        values = list(field)
        if count > len(values):
            values.extend([values[-1] if values else b""] * (count - len(values)))
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return _reshape(out, count, shape, dt)
    if dt.name in ("float16", "bfloat16"):
        values = np.fromiter(field, dtype=np.uint16, count=len(field)).view(np_dtype)
    elif dt.is_complex:
        part = np.float32 if dt is dtypes.complex64 else np.float64
        raw = np.fromiter(field, dtype=part, count=len(field))
        if raw.size % 2:
            raise errors.InvalidArgumentError(
                None, None, "Cannot parse tensor from proto: an odd number of complex parts")
        values = (raw[0::2] + 1j * raw[1::2]).astype(np_dtype)
    else:
        values = np.array(list(field), dtype=np_dtype)
    if values.size == 0:
        return np.zeros(shape, np_dtype)
    if values.size < count:
        values = np.pad(values, (0, count - values.size), "edge")
    return _reshape(values, count, shape, dt)


def _reshape(values, count, shape, dt):
    if values.size != count:
        raise errors.InvalidArgumentError(
            None, None, f"Cannot parse tensor from proto: {values.size} {dt.name} values for "
            f"shape {shape} ({count} elements)")
    return values.reshape(shape)

