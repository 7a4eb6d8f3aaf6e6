"""Bytes as tensors (``tf.io``): raw bytes reinterpreted as numbers (``decode_raw``), TF's
web-safe base64, a tensor serialized as the bytes of TF's ``TensorProto`` and parsed back, and
CSV records parsed into columns (``decode_csv``).

Serialization needs the ``tf-formats`` extra (protobuf); the rest runs on NumPy alone.
"""

import base64
import re

import numpy as np

from .. import _protos, dtypes as D
from .._export import tf_export
from ..context import bind
from ..convert import convert_to_tensor
from ..errors import invalid_argument
from ..graph import tensor_proto
from ..messages import attr_dtype_error, c_name, shape_text
from ..registry import DtypeCheck, define_op
from ..tensor import Tensor, TensorSpec
from ._base import check_fixed, check_out_type, dtypes_named
from .strings._common import infer_scalar, infer_strings, strings

# TF's allowed out_type lists, in its OpDefs' order (their error messages list them so)
_RAW_T = dtypes_named("float16 float32 float64 int32 uint16 uint8 int16 int8 int64 complex64 "
                      "complex128 bool bfloat16")
_PADDED_T = dtypes_named("float16 float32 float64 int32 uint16 uint8 int16 int8 int64 bfloat16")
_CSV_T = dtypes_named("float32 float64 int32 int64 string")


# --- decode_raw ----------------------------------------------------------------------------------
def _check_out_type(op_name, out_type, allowed, eager):
    if out_type not in allowed:
        if eager:
            raise attr_dtype_error(None, "out_type", out_type, allowed)  # bind tags the op
        check_out_type(op_name, out_type, allowed)


def _from_bytes(chunks, out_type, little_endian, shape):
    """Equal-length byte strings as numbers of ``out_type`` (bool: each byte nonzero)."""
    np_type = np.dtype(out_type.as_numpy_dtype)
    data = b"".join(chunks)
    if out_type is D.bool:
        values = np.frombuffer(data, np.uint8) != 0
    else:
        values = np.frombuffer(data, np_type.newbyteorder("<" if little_endian else ">"))
        values = values.astype(np_type)
    return values.reshape(shape)


@define_op("DecodeRaw")
class DecodeRaw:
    """Each string's bytes as a vector of ``out_type`` (all strings of one length)."""

    check = DtypeCheck("DecodeRaw", same=1, fixed=D.string)

    def infer(bytes, *, out_type, little_endian=True):
        infer_strings("DecodeRaw", (bytes, "bytes"))
        _check_out_type("DecodeRaw", out_type, _RAW_T, eager=False)
        return TensorSpec(bytes.shape.concatenate([None]), out_type)

    def kernel(bytes, *, out_type, little_endian=True):
        _check_out_type("DecodeRaw", out_type, _RAW_T, eager=True)
        a = np.asarray(bytes)
        flat = a.ravel().tolist()
        size = np.dtype(out_type.as_numpy_dtype).itemsize
        if not flat:
            return np.zeros(a.shape + (0,), out_type.as_numpy_dtype)
        n = len(flat[0])
        if n % size:
            raise invalid_argument(f"Input to DecodeRaw has length {n} that is not a multiple "
                                   f"of {size}, the size of {c_name(out_type)}")
        for i, s in enumerate(flat):
            if len(s) != n:
                raise invalid_argument("DecodeRaw requires input strings to all be the same "
                                       f"size, but element {i} has size {n} != {len(s)}")
        return _from_bytes(flat, out_type, little_endian, a.shape + (n // size,))


@define_op("DecodePaddedRaw")
class DecodePaddedRaw:
    """Each string's first ``fixed_length`` bytes (zero-padded) as numbers of ``out_type``."""

    check = DtypeCheck("DecodePaddedRaw", same=1, fixed={0: D.string, 1: D.int32})

    def infer(input_bytes, fixed_length, *, out_type, little_endian=True):
        infer_strings("DecodePaddedRaw", (input_bytes, "input_bytes"))
        check_fixed("DecodePaddedRaw", (fixed_length,), ("fixed_length",), D.int32)
        _check_out_type("DecodePaddedRaw", out_type, _PADDED_T, eager=False)
        return TensorSpec(input_bytes.shape.concatenate([None]), out_type)

    def kernel(input_bytes, fixed_length, *, out_type, little_endian=True):
        _check_out_type("DecodePaddedRaw", out_type, _PADDED_T, eager=True)
        a, width = np.asarray(input_bytes), int(np.asarray(fixed_length))
        size = np.dtype(out_type.as_numpy_dtype).itemsize
        if width % size:
            raise invalid_argument(f"fixed_length ({width}) must be a multiple of the size of "
                                   f"out_type ({size})")
        if width < 0:
            raise invalid_argument(f"fixed_length ({width}) must be non-negative")
        chunks = [s[:width].ljust(width, b"\0") for s in a.ravel().tolist()]
        return _from_bytes(chunks, out_type, little_endian, a.shape + (width // size,))


@tf_export("io.decode_raw")
def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """The bytes of each string as a vector of ``out_type`` numbers (little-endian unless
    ``little_endian=False``); with ``fixed_length``, each string's first ``fixed_length`` bytes,
    zero-padded."""
    out_type = D.as_dtype(out_type)
    if fixed_length is None:
        return bind(DecodeRaw, strings(input_bytes), out_type=out_type,
                    little_endian=bool(little_endian))
    length = fixed_length if isinstance(fixed_length, Tensor) else \
        convert_to_tensor(fixed_length, D.int32)
    return bind(DecodePaddedRaw, strings(input_bytes), length, out_type=out_type,
                little_endian=bool(little_endian))


# --- base64 --------------------------------------------------------------------------------------
_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _b64decode(data):
    """TF's web-safe decoder: padding optional, at most two ``=`` at the very end."""
    if not data:
        return b""
    body_len = 4 * ((len(data) - 1) // 4)
    body, tail = data[:body_len], data[body_len:]
    if body.translate(None, _ALPHABET):
        raise invalid_argument("Invalid character found in base64.")
    if len(tail) == 4:
        if tail[2:] == b"==":
            tail = tail[:2]
        elif tail[3:] == b"=":
            tail = tail[:3]
    if len(tail) == 1:
        raise invalid_argument("Base64 string length cannot be 1 modulo 4.")
    if tail.translate(None, _ALPHABET):
        raise invalid_argument("Invalid character found in base64.")
    out = base64.urlsafe_b64decode(body + tail + b"A" * (4 - len(tail)))
    return out[:len(body) // 4 * 3 + len(tail) - 1]


def _strings_like(a, fn):
    out = np.empty(a.size, object)
    out[:] = [fn(s) for s in a.ravel().tolist()]
    return out.reshape(a.shape)


@define_op("EncodeBase64")
class EncodeBase64:
    """Web-safe base64 (``-`` and ``_``), ``=`` padding only when ``pad``."""

    check = DtypeCheck("EncodeBase64", same=1, fixed=D.string)

    def infer(input, *, pad=False):
        infer_strings("EncodeBase64", (input, "input"))
        return TensorSpec(input.shape, D.string)

    def kernel(input, *, pad=False):
        enc = base64.urlsafe_b64encode
        return _strings_like(np.asarray(input),
                             (lambda s: enc(s)) if pad else (lambda s: enc(s).rstrip(b"=")))


@define_op("DecodeBase64")
class DecodeBase64:
    """The bytes web-safe base64 strings encode."""

    check = DtypeCheck("DecodeBase64", same=1, fixed=D.string)

    def infer(input):
        infer_strings("DecodeBase64", (input, "input"))
        return TensorSpec(input.shape, D.string)

    def kernel(input):
        return _strings_like(np.asarray(input), _b64decode)


@tf_export("io.encode_base64")
def encode_base64(input, pad=False, name=None):
    """Web-safe base64 of each string (padded with ``=`` only when ``pad``)."""
    return bind(EncodeBase64, strings(input), pad=bool(pad))


@tf_export("io.decode_base64")
def decode_base64(input, name=None):
    """The bytes of each web-safe base64 string (padding optional)."""
    return bind(DecodeBase64, strings(input))


# --- serialize / parse ---------------------------------------------------------------------------
def serialized_proto(arr):
    """TF's ``Tensor::AsProtoTensorContent``: numbers as raw little-endian ``tensor_content``
    (scalars too), strings as ``string_val``."""
    dtype = D.from_numpy(arr.dtype) if arr.dtype != object else D.string
    proto = _protos.tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum,
                                           tensor_shape=tensor_proto.shape_proto(arr.shape))
    if dtype is D.string:
        proto.string_val.extend(arr.ravel().tolist())
    elif arr.size:
        proto.tensor_content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"),
                                                                copy=False).tobytes()
    return proto


@define_op("SerializeTensor")
class SerializeTensor:
    """The bytes of the ``TensorProto`` holding the tensor."""

    def infer(tensor):
        return TensorSpec([], D.string)

    def kernel(tensor):
        return np.array(serialized_proto(np.asarray(tensor)).SerializeToString(), object)


@define_op("ParseTensor")
class ParseTensor:
    """The tensor a serialized ``TensorProto`` holds (its dtype must be ``out_type``)."""

    check = DtypeCheck("ParseTensor", same=1, fixed=D.string)

    def infer(serialized, *, out_type):
        infer_strings("ParseTensor", (serialized, "serialized"))
        infer_scalar(serialized, "serialized", "ParseTensor")
        return TensorSpec(None, out_type)

    def kernel(serialized, *, out_type):
        a = np.asarray(serialized)
        if a.ndim:
            raise invalid_argument(f"Expected `serialized` to be a scalar, got shape: "
                                   f"{shape_text(a.shape)}")
        data = a[()]
        proto = _protos.tensor_pb2.TensorProto()
        try:
            proto.ParseFromString(data)
        except Exception:  # protobuf's DecodeError, or a RuntimeWarning-free failure
            proto = None
        if proto is None or proto.dtype == 0:
            raise invalid_argument("Could not parse `serialized` as TensorProto, base64: "
                                   + base64.b64encode(data).decode())
        got = tensor_proto.dtype_from_enum(proto.dtype)
        if got is not out_type:
            raise invalid_argument(f"Type mismatch between parsed tensor ({c_name(got)}) and "
                                   f"dtype ({c_name(out_type)})")
        return tensor_proto.to_array(proto)


@tf_export("io.serialize_tensor")
def serialize_tensor(tensor, name=None):
    """The bytes of TF's ``TensorProto`` for ``tensor`` (a scalar string); needs the
    ``tf-formats`` extra."""
    _protos.tensor_pb2  # noqa: B018  (a missing extra fails here, naming it)
    if not isinstance(tensor, Tensor):
        tensor = convert_to_tensor(tensor)
    return bind(SerializeTensor, tensor)


@tf_export("io.parse_tensor")
def parse_tensor(serialized, out_type, name=None):
    """The tensor whose serialized ``TensorProto`` is ``serialized`` (of dtype ``out_type``)."""
    _protos.tensor_pb2  # noqa: B018  (a missing extra fails here, naming it)
    return bind(ParseTensor, strings(serialized), out_type=D.as_dtype(out_type))


# --- decode_csv ----------------------------------------------------------------------------------
_INT = re.compile(rb"\s*[-+]?[0-9]+\s*")
_FLOAT = re.compile(rb"\s*[-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|inf|infinity|"
                    rb"nan)\s*", re.IGNORECASE)
_LIMITS = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}


def _csv_fields(record, delim, quoted):
    """The fields of one record (TF's CSV rules: quoted fields may hold the delimiter and ``""``
    for a quote)."""
    if not record:
        return []
    fields, i, n = [], 0, len(record)
    q = ord('"')
    while True:
        if quoted and i < n and record[i] == q:
            out, i = bytearray(), i + 1
            while True:
                j = record.find(b'"', i)
                if j < 0:
                    raise invalid_argument("Quoted field has to end with quote followed by delim "
                                           "or end")
                out += record[i:j]
                if record[j + 1:j + 2] == b'"':
                    out += b'"'
                    i = j + 2
                    continue
                i = j + 1
                break
            if i < n and record[i:i + 1] != delim:
                raise invalid_argument("Quoted field has to end with quote followed by delim or "
                                       "end")
            fields.append(bytes(out))
        else:
            j = record.find(delim, i)
            j = n if j < 0 else j
            field = record[i:j]
            if quoted and (b'"' in field or b"\r" in field or b"\n" in field):
                raise invalid_argument("Unquoted fields cannot have quotes/CRLFs inside")
            fields.append(field)
            i = j
        if i >= n:
            return fields
        i += 1  # past the delimiter
        if i == n:
            fields.append(b"")
            return fields


def _csv_value(field, dtype, col, rec):
    if dtype is D.string:
        return field
    pattern = _INT if dtype.is_integer else _FLOAT
    if pattern.fullmatch(field):
        v = int(field) if dtype.is_integer else float(field)
        lo, hi = _LIMITS.get(dtype.name, (None, None))
        if lo is None or lo <= v <= hi:
            return v
    where = "" if rec is None else f" {rec}"  # CsvDataset's texts name no record number
    raise invalid_argument(f"Field {col} in record{where} is not a valid {c_name(dtype)}: "
                           f"{field.decode('utf-8', 'replace')}")


@define_op("DecodeCSV")
class DecodeCSV:
    """CSV records parsed into one tensor per column (empty fields take the column's
    default; a column whose default is empty is required)."""

    check = DtypeCheck("DecodeCSV", same=1, fixed={0: D.string})

    def infer(records, *record_defaults, field_delim=",", use_quote_delim=True, na_value="",
              select_cols=()):
        infer_strings("DecodeCSV", (records, "records"))
        for d in record_defaults:
            check_out_type("DecodeCSV", d.dtype, _CSV_T, "record_defaults")
        return tuple(TensorSpec(records.shape, d.dtype) for d in record_defaults)

    def kernel(records, *record_defaults, field_delim=",", use_quote_delim=True, na_value="",
               select_cols=()):
        a = np.asarray(records)
        defaults = [np.asarray(d) for d in record_defaults]
        types = [D.from_numpy(d.dtype) if d.dtype != object else D.string for d in defaults]
        for i, d in enumerate(defaults):
            if d.size > 1:
                raise invalid_argument(f"record_defaults[{i}] must be a single value, got "
                                       f"shape {shape_text(d.shape)}")
        delim, na = field_delim.encode("utf-8", "surrogateescape"), na_value.encode()
        wanted = list(select_cols) or list(range(len(defaults)))
        columns = [[] for _ in defaults]
        for rec, record in enumerate(a.ravel().tolist()):
            fields = _csv_fields(record, delim, use_quote_delim)
            if select_cols:
                if len(fields) <= wanted[-1]:  # TF counts the selected columns it found
                    found = sum(c < len(fields) for c in wanted)
                    raise invalid_argument(f"Expect {len(defaults)} fields but have {found} in "
                                           f"record {rec}")
            elif len(fields) != len(defaults):
                raise invalid_argument(f"Expect {len(defaults)} fields but have {len(fields)} "
                                       f"in record {rec}")
            for col, (src, d, t) in enumerate(zip(wanted, defaults, types)):
                field = fields[src]
                if not field or field == na:
                    if not d.size:
                        raise invalid_argument(f"Field {col} is required but missing in record "
                                               f"{rec}!")
                    columns[col].append(d.ravel()[0])
                else:
                    columns[col].append(_csv_value(field, t, col, rec))
        out = []
        for values, d, t in zip(columns, defaults, types):
            arr = np.empty(len(values), object) if t is D.string else \
                np.empty(len(values), d.dtype)
            arr[:] = values
            out.append(arr.reshape(a.shape))
        return tuple(out)


@tf_export("io.decode_csv")
def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None):
    """Parse CSV ``records`` into one tensor per column, typed by ``record_defaults`` (each a
    one-value default, or an empty tensor for a required column)."""
    if select_cols is not None:
        cols = [int(c) for c in select_cols]
        if any(b <= a for a, b in zip(cols, cols[1:])):
            raise ValueError("select_cols is not strictly increasing.")
        if cols and cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    else:
        cols = []
    defaults = []
    for d in record_defaults:
        if not isinstance(d, Tensor):
            d = convert_to_tensor(d)
        defaults.append(d)
    if len(field_delim) != 1:
        raise invalid_argument("field_delim should be only 1 char")
    out = bind(DecodeCSV, strings(records), *defaults, field_delim=str(field_delim),
               use_quote_delim=bool(use_quote_delim), na_value=str(na_value),
               select_cols=cols)
    return list(out) if isinstance(out, (list, tuple)) else [out]

