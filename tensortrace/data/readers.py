"""File readers: ``tf.data.experimental.CsvDataset`` (TF's CSVDatasetV2: RFC 4180 records, which
quoted fields may continue over line ends, from plain, GZIP or ZLIB files), parsed with
``tf.io.decode_csv``'s field rules."""

import gzip
import re
import zlib

import numpy as np

from .. import dtypes as D
from .. import errors
from .._export import tf_export
from ..convert import convert_to_tensor
from ..messages import attr_dtype_error
from ..ops.io_bytes import _csv_fields, _csv_value
from ..ops.core import init_scope
from ..tensor import Tensor, TensorSpec, static_value
from .dataset import Dataset, value_of
from .ops import UNKNOWN

_CSV_TYPES = (D.float32, D.float64, D.int32, D.int64, D.string)
_OP = "CSVDatasetV2"
_LINE_END = re.compile(rb"[\r\n]")
_UNCLOSED = "Reached end of file without closing quoted field in record"
_CSV_SIGNATURE = (
    "\n\t; NodeDef: {{node CSVDatasetV2}}; Op<name=CSVDatasetV2; signature=filenames:string, "
    "compression_type:string, buffer_size:int64, header:bool, field_delim:string, "
    "use_quote_delim:bool, na_value:string, select_cols:int64, record_defaults:, "
    "exclude_cols:int64 -> handle:variant; attr=output_types:list(type),min=1,allowed=[DT_FLOAT, "
    "DT_DOUBLE, DT_INT32, DT_INT64, DT_STRING]; attr=output_shapes:list(shape),min=1; "
    "is_stateful=true>")


def _op_error(message):
    return errors.InvalidArgumentError(None, None, f"{message} [Op:{_OP}]")


def read_file(path, compression):
    """A file's bytes, decompressed (``""``, ``"GZIP"`` or ``"ZLIB"``); TF's NotFoundError."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    try:
        if compression == "GZIP":
            return gzip.decompress(data)
        if compression == "ZLIB":
            return zlib.decompress(data)
    except (OSError, EOFError, zlib.error) as e:
        raise errors.DataLossError(None, None, f"{path}: {e}") from None
    return data


def _records(data, quoted, delim):
    """The records of a CSV file: lines ended by ``\\n``, ``\\r\\n`` or ``\\r``, except inside a
    quoted field (one that starts with a quote), which may span lines."""
    stop = re.compile(b"[" + re.escape(delim) + rb"\r\n]")
    i, n = 0, len(data)
    while i < n:
        start = i
        while True:  # one field each turn
            if quoted and data[i:i + 1] == b'"':
                j = i + 1
                while True:
                    k = data.find(b'"', j)
                    if k < 0:
                        raise errors.invalid_argument(_UNCLOSED)
                    if data[k + 1:k + 2] != b'"':
                        break
                    j = k + 2
                i = k + 1
            m = stop.search(data, i)
            i = n if m is None else m.start()
            if m is None or data[i:i + 1] != delim:
                break
            i += 1
        yield data[start:i]
        i += 2 if data[i:i + 2] == b"\r\n" else 1


def _fields(record, delim, quoted):
    if not record:
        return [b""]  # an empty line is one empty field
    try:
        return _csv_fields(record, delim, quoted)
    except errors.InvalidArgumentError as e:  # decode_csv's texts; the dataset's own
        if e.message.startswith("Unquoted"):
            raise errors.invalid_argument("Unquoted fields cannot have quotes inside") from None
        raise errors.invalid_argument(_UNCLOSED) from None


def _check_cols(cols, name):
    if any(c < 0 for c in cols):
        raise _op_error(f"{name} should be non-negative indices")
    if any(b <= a for a, b in zip(cols, cols[1:])):
        raise _op_error(f"{name} should be strictly increasing indices")


def _known(value, dtype, name):
    """An argument's value now (a tensor's trace-time value inside a function)."""
    if isinstance(value, Tensor):
        known = static_value(value)
        if known is None:
            raise ValueError(f"CsvDataset: `{name}` must be known when the dataset is made "
                             f"(tensortrace reads it then); got {value!r}.")
        return np.asarray(known)
    with init_scope():  # TF's conversion and errors, as an eager tensor even while tracing
        return np.asarray(convert_to_tensor(value, dtype=dtype)._value)


def _cols(value, name):
    if value is None:
        return []
    return [int(c) for c in _known(value, D.int64, name).reshape(-1)]


def _default(x):
    """A record default as a tensor: a CSV dtype (or what TF's ``x in (dtypes)`` test takes for
    one, as the integer of its enum) means a required column."""
    if not isinstance(x, Tensor):
        probe = x
        if isinstance(x, (bool, int, float, np.number)) and float(x).is_integer():
            probe = int(x)  # TF's enum table is a dict: 1.0 and True find DT_FLOAT's 1
        for dtype in _CSV_TYPES:
            try:
                if dtype == probe:
                    return convert_to_tensor(np.zeros(0, dtype.as_numpy_dtype), dtype=dtype)
            except (TypeError, ValueError):
                break
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


@tf_export("data.experimental.CsvDataset")
class CsvDatasetV2(Dataset):
    """The records of CSV files as tuples of scalars, typed by ``record_defaults`` (a default
    value per column, or a dtype / empty tensor for a required column)."""

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None):
        names = filenames if isinstance(filenames, Tensor) else \
            convert_to_tensor(filenames, dtype=D.string)
        compression = "" if compression_type is None else \
            _known(compression_type, D.string, "compression_type").item().decode()
        with init_scope():
            defaults = [_default(x) for x in record_defaults]
        header, delim, quoted, na = (_known(v, d, n).item() for v, d, n in (
            (header, D.bool, "header"), (field_delim, D.string, "field_delim"),
            (use_quote_delim, D.bool, "use_quote_delim"), (na_value, D.string, "na_value")))
        select, exclude = _cols(select_cols, "select_cols"), _cols(exclude_cols, "exclude_cols")
        buffer = 4 * 2**20 if buffer_size is None else int(_known(buffer_size, D.int64,
                                                                   "buffer_size"))
        for d in defaults:
            if d.dtype not in _CSV_TYPES:
                err = attr_dtype_error(_OP, "output_types", d.dtype, _CSV_TYPES)
                raise type(err)(None, None, err.message.replace(
                    f" [Op:{_OP}]", _CSV_SIGNATURE + f" [Op:{_OP}]"))
        if compression not in ("", "GZIP", "ZLIB"):
            raise _op_error(f"Unsupported compression_type: {compression}.")
        if buffer <= 0:
            raise _op_error("buffer_size should be positive")
        if len(delim) != 1:
            raise _op_error("field_delim should be only 1 char")
        for i, d in enumerate(defaults):
            if d.shape.num_elements() > 1:
                raise _op_error(f"There should only be 1 default per field but field {i} has "
                                f"{d.shape.num_elements()}")
        if select and len(select) != len(defaults):
            raise _op_error("select_cols should match output size")
        if select and exclude:
            raise _op_error("Either select_cols or exclude_cols should be empty")
        _check_cols(select, "select_cols")
        _check_cols(exclude, "exclude_cols")
        self._tensors = [names]
        self._defaults = [_known(d, d.dtype, "record_defaults").reshape(-1) for d in defaults]
        self._types = [d.dtype for d in defaults]
        self._compression, self._header, self._quoted = compression, bool(header), bool(quoted)
        self._delim, self._na = delim.encode("utf-8", "surrogateescape") if isinstance(
            delim, str) else delim, na
        if select:
            self._wanted, self._limit = select, None  # more fields than selected are fine
        else:
            excluded, wanted, c = set(exclude), [], 0
            while len(wanted) < len(defaults):
                if c not in excluded:
                    wanted.append(c)
                c += 1
            self._wanted, self._limit = wanted, len(defaults) + len(exclude)
        super().__init__(tuple(TensorSpec((), t) for t in self._types))

    def _iterate(self, env):
        for name in np.asarray(value_of(self._tensors[0], env), dtype=object).reshape(-1):
            path = name.decode() if isinstance(name, bytes) else str(name)
            records = _records(read_file(path, self._compression), self._quoted,
                               self._delim)
            if self._header:
                next(records, None)
            for record in records:
                yield self._parse(record)

    def _parse(self, record):
        fields = _fields(record, self._delim, self._quoted)
        out = []
        for col, (src, default, dtype) in enumerate(zip(self._wanted, self._defaults,
                                                        self._types)):
            if src >= len(fields):
                found = sum(c < len(fields) for c in self._wanted)
                raise errors.invalid_argument(f"Expect {len(self._wanted)} fields but have "
                                              f"{found} in record")
            field = fields[src]
            if not field or field == self._na:
                if not default.size:
                    raise errors.invalid_argument(f"Field {col} is required but missing in "
                                                  f"record!")
                value = default[0]
            else:
                value = _csv_value(field, dtype, col, None)
            out.append(np.array(value, dtype=object if dtype is D.string else
                                dtype.as_numpy_dtype))
        if self._limit is not None and len(fields) > self._limit:
            raise errors.invalid_argument(f"Expect {len(self._wanted)} fields but have more in "
                                          f"record")
        return tuple(out)

    def _cardinality(self, env=None):
        return UNKNOWN
