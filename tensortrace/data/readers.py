"""File readers: ``tf.data.experimental.CsvDataset`` (TF's CSVDatasetV2: RFC 4180 records, which
quoted fields may continue over line ends, from plain, GZIP or ZLIB files), parsed with
``tf.io.decode_csv``'s field rules; ``make_csv_dataset`` (column names and types inferred from the
files, batches of feature dictionaries) composed from it as TF composes it."""

import collections
import csv
import glob
import gzip
import io
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
        self._skip_errors = False
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
                if not self._skip_errors:
                    yield self._parse(record)
                    continue
                try:  # make_csv_dataset(ignore_errors=True): malformed records are skipped
                    parsed = self._parse(record)
                except errors.InvalidArgumentError:
                    continue
                yield parsed

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


# --- make_csv_dataset: TF's composition (names and types inferred in Python, as TF does) -----
_INFER_ORDER = (D.int32, D.int64, D.float32, D.float64, D.string)


def _is_int(text, bits):
    try:
        value = int(text)
    except ValueError:
        return False
    return -2**(bits - 1) <= value < 2**(bits - 1)


def _is_float(text, dtype):
    try:
        with np.errstate(over="ignore"):
            return bool(dtype.as_numpy_dtype(float(text)) < np.inf)
    except (ValueError, OverflowError):
        return False


_INFER_CHECKS = (lambda t: _is_int(t, 32), lambda t: _is_int(t, 64),
                 lambda t: _is_float(t, D.float32), lambda t: _is_float(t, D.float64),
                 lambda t: True)


def _infer_type(text, na_value, prev):
    """TF's least permissive type of ``text`` that keeps the column's earlier values valid."""
    if text in ("", na_value):
        return prev
    for i, (dtype, valid) in enumerate(zip(_INFER_ORDER, _INFER_CHECKS)):
        if valid(text) and (prev is None or prev in _INFER_ORDER[:i + 1]):
            return dtype
    return D.string


def _file_names(file_pattern):
    if isinstance(file_pattern, list):
        if not file_pattern:
            raise ValueError("Argument `file_pattern` should not be empty.")
        names = [n for entry in file_pattern for n in glob.glob(entry)]
    else:
        names = glob.glob(file_pattern)
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return sorted(names)  # TF sorts: deterministic


def _csv_rows(name, compression, encoding, field_delim, use_quote_delim):
    data = read_file(name, "GZIP" if compression == "GZIP" else "")
    quoting = csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE
    return csv.reader(io.StringIO(data.decode(encoding), newline=""), delimiter=field_delim,
                      quoting=quoting)


def _column_names(names, rows_of):
    columns = None
    for name in names:
        try:
            header = next(rows_of(name))
        except StopIteration:
            raise ValueError(f"Failed when reading the header line of {name}. Is it an empty "
                             f"file?") from None
        if columns is None:
            columns = header
        elif header != columns:
            raise ValueError(f"All input CSV files should have the same column names in the "
                             f"header row. File {name} has different column names.")
    return columns


def _column_defaults(names, rows_of, num_cols, na_value, header, rows_wanted, select):
    select = range(num_cols) if select is None else select
    types = [None] * len(select)
    seen = 0
    for name in names:
        rows = rows_of(name)
        row_num = 1
        if header:
            next(rows, None)
            row_num += 1
        for row in rows:
            if rows_wanted is not None and seen >= rows_wanted:
                break
            if len(row) != num_cols:
                raise ValueError(f"Problem inferring types: CSV row {row_num} has {len(row)} "
                                 f"number of fields. Expected: {num_cols}.")
            row_num += 1
            for j, c in enumerate(select):
                types[j] = _infer_type(row[c], na_value, types[j])
            seen += 1
    types = [t or D.string for t in types]
    return [convert_to_tensor(["" if t is D.string else 0], dtype=t) for t in types]


def _sorted_columns(select_columns, column_names):
    index = {n: i for i, n in enumerate(column_names)}
    out = []
    for v in select_columns:
        if isinstance(v, int):
            if v < 0 or v >= len(column_names):
                raise ValueError(f"Column index {v} specified in `select_columns` should be > 0 "
                                 f" and <= {len(column_names)}, which is the number of columns.")
            out.append(v)
        elif v not in index:
            raise ValueError(f"Column {v} specified in `select_columns` must be of one of the "
                             f"columns: {index.keys()}.")
        else:
            out.append(index[v])
    result = sorted(set(out))
    if len(result) != len(select_columns):
        ordered = sorted(result)  # TF's text looks in the deduplicated list: always set()
        dups = {a for a, b in zip(ordered[:-1], ordered[1:]) if a == b}
        raise ValueError(f"The `select_columns` argument contains duplicate columns: {dups}.")
    return result


@tf_export("data.experimental.make_csv_dataset")
def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8"):
    """Batches of CSV records as ``{column name: values}`` dictionaries (and the label column
    apart when ``label_name`` is given), names and types inferred from the files when not
    given, shuffled and repeated as asked (TF's defaults: shuffled, repeated forever)."""
    names = _file_names(file_pattern)
    dataset = Dataset.from_tensor_slices(names)  # methods.py has given Dataset its methods
    if shuffle:
        dataset = dataset.shuffle(len(names), shuffle_seed)
    if compression_type not in (None, "", "GZIP", "ZLIB"):
        raise ValueError(f"Received unknown `compression_type` {compression_type}. Expected: "
                         f"GZIP, ZLIB or  (empty string).")
    if (column_names is None or column_defaults is None) and compression_type == "ZLIB":
        raise ValueError(f"`compression_type` {compression_type} is not supported for probing "
                         f"columns.")

    def rows_of(name):
        return _csv_rows(name, compression_type, encoding, field_delim, use_quote_delim)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is "
                             "provided.")
        column_names = _column_names(names, rows_of)
    if len(column_names) != len(set(column_names)):
        ordered = sorted(column_names)
        dups = {a for a, b in zip(ordered[:-1], ordered[1:]) if a == b}
        raise ValueError(f"Either `column_names` argument or CSV header row contains duplicate "
                         f"column names: {dups}.")
    if select_columns is not None:
        select_columns = _sorted_columns(select_columns, column_names)
    if column_defaults is not None:
        column_defaults = [_default(x) for x in column_defaults]
    else:
        column_defaults = _column_defaults(names, rows_of, len(column_names), na_value, header,
                                           num_rows_for_inference, select_columns)
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError(f"If specified, `column_defaults` and `select_columns` must have the "
                         f"same length: `column_defaults` has length {len(column_defaults)}, "
                         f"`select_columns` has length {len(select_columns)}.")
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError(f"`label_name` provided must be one of the columns: {column_names}. "
                         f"Received: {label_name}.")

    def filename_to_dataset(filename):
        ds = CsvDatasetV2(filename, record_defaults=column_defaults, field_delim=field_delim,
                          use_quote_delim=use_quote_delim, na_value=na_value,
                          select_cols=select_columns, header=header,
                          compression_type=compression_type)
        ds._skip_errors = bool(ignore_errors)
        return ds

    def map_fn(*columns):
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is not None:
            label = features.pop(label_name)
            return features, label
        return features

    dataset = dataset.interleave(filename_to_dataset, cycle_length=num_parallel_reads or 1,
                                 block_length=1)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    return dataset.map(map_fn).prefetch(-1 if prefetch_buffer_size is None
                                        else prefetch_buffer_size)
