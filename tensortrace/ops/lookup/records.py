"""The lookup-table ops, TF's records: table creation (``HashTableV2``,
``MutableHashTableV2``, ``MutableHashTableOfTensorsV2``, ``MutableDenseHashTableV2``, the
anonymous ``AnonymousHashTable`` and ``AnonymousMutableHashTable``), the initializers
(``LookupTableImportV2``, ``InitializeTableV2``, ``InitializeTableFromTextFileV2``,
``InitializeTableFromDataset``)
and the table ops (``LookupTableFindV2``, ``Insert``, ``Remove``, ``Size``, ``Export``).

A table's ``resource`` tensor holds its run-time table (``resources.py``); ``create`` makes one
eagerly (a ``TableHandle``) or adds its op to the graph being traced.
"""

import numpy as np

from ... import dtypes as D
from ...context import bind, state
from ...errors import InvalidArgumentError, OpError
from ...messages import kernel_error_text
from ...registry import define_op
from ...tensor import TensorSpec
from .. import io_files
from .resources import DenseHashTable, HashTable, MutableHashTable, TableHandle

_RESOURCE = TensorSpec((), D.resource)


def _table_attrs(key_dtype, value_dtype, container="", shared_name="",
                 use_node_name_sharing=False):
    return dict(container=container, shared_name=shared_name,
                use_node_name_sharing=use_node_name_sharing, key_dtype=key_dtype,
                value_dtype=value_dtype)


@define_op("HashTableV2", stateful=True)
class HashTableV2:
    """A new, uninitialized static hash table."""

    def infer(container, shared_name, use_node_name_sharing, key_dtype, value_dtype):
        return _RESOURCE

    def kernel(container, shared_name, use_node_name_sharing, key_dtype, value_dtype):
        return HashTable(key_dtype, value_dtype, shared_name)


@define_op("MutableHashTableV2", stateful=True)
class MutableHashTableV2:
    """A new, empty mutable hash table of scalar values."""

    def infer(container, shared_name, use_node_name_sharing, key_dtype, value_dtype):
        return _RESOURCE

    def kernel(container, shared_name, use_node_name_sharing, key_dtype, value_dtype):
        return MutableHashTable(key_dtype, value_dtype, (), shared_name)


@define_op("MutableHashTableOfTensorsV2", stateful=True)
class MutableHashTableOfTensorsV2:
    """A new, empty mutable hash table whose values are tensors of ``value_shape``."""

    def infer(container, shared_name, use_node_name_sharing, key_dtype, value_dtype,
              value_shape):
        return _RESOURCE

    def kernel(container, shared_name, use_node_name_sharing, key_dtype, value_dtype,
               value_shape):
        return MutableHashTable(key_dtype, value_dtype, tuple(value_shape.as_list()),
                                shared_name)


@define_op("MutableDenseHashTableV2", stateful=True)
class MutableDenseHashTableV2:
    """A new, empty dense hash table (open addressing over power-of-two bucket arrays)."""

    def infer(empty_key, deleted_key, container, shared_name, use_node_name_sharing, key_dtype,
              value_dtype, value_shape, initial_num_buckets, max_load_factor):
        return _RESOURCE

    def kernel(empty_key, deleted_key, container, shared_name, use_node_name_sharing,
               key_dtype, value_dtype, value_shape, initial_num_buckets, max_load_factor):
        return DenseHashTable(empty_key, deleted_key, value_dtype,
                              tuple(value_shape.as_list()), initial_num_buckets,
                              max_load_factor, shared_name)


@define_op("AnonymousHashTable", stateful=True)
class AnonymousHashTable:
    """A new, uninitialized static hash table no name shares (``experimental_is_anonymous``)."""

    def infer(key_dtype, value_dtype):
        return _RESOURCE

    def kernel(key_dtype, value_dtype):
        return HashTable(key_dtype, value_dtype)


@define_op("AnonymousMutableHashTable", stateful=True)
class AnonymousMutableHashTable:
    """A new, empty mutable hash table of scalar values no name shares."""

    def infer(key_dtype, value_dtype):
        return _RESOURCE

    def kernel(key_dtype, value_dtype):
        return MutableHashTable(key_dtype, value_dtype, ())


def create(opdef, *inputs, **attrs):
    """A new table: eagerly its ``TableHandle``, while tracing the op's resource output."""
    if state.graph is not None:
        return bind(opdef, *inputs, **attrs)
    try:
        table = opdef.kernel(*[t._value for t in inputs], **attrs)
    except OpError as e:  # worded as bind words an eager kernel's error
        raise type(e)(None, None, kernel_error_text(e.message, opdef.name)) from None
    return TableHandle._wrap(table)


@define_op("LookupTableFindV2", stateful=True)
class LookupTableFindV2:
    """The values of ``keys``; ``default_value`` (one value, or one per key) for missing keys."""

    def infer(table_handle, keys, default_value, Tin, Tout):
        return TensorSpec(None, Tout)

    def kernel(table_handle, keys, default_value, Tin, Tout):
        table_handle.check_signature((keys, default_value), Tin, Tout)
        return table_handle.find(np.asarray(keys), default_value)


@define_op("LookupTableInsertV2", stateful=True)
class LookupTableInsertV2:
    """Associate ``keys`` with ``values`` (replacing values of keys present)."""

    def infer(table_handle, keys, values, Tin, Tout):
        return ()

    def kernel(table_handle, keys, values, Tin, Tout):
        table_handle.check_signature((keys, values), Tin, Tout)
        table_handle.insert(np.asarray(keys), np.asarray(values))
        return ()


@define_op("LookupTableRemoveV2", stateful=True)
class LookupTableRemoveV2:
    """Remove ``keys`` (keys not present are ignored)."""

    def infer(table_handle, keys, Tin):
        return ()

    def kernel(table_handle, keys, Tin):
        table_handle.check_signature((keys,), Tin)
        table_handle.remove(np.asarray(keys))
        return ()


@define_op("LookupTableSizeV2", stateful=True)
class LookupTableSizeV2:
    """The number of entries, an int64 scalar."""

    def infer(table_handle):
        return TensorSpec((), D.int64)

    def kernel(table_handle):
        return np.int64(table_handle.size())


@define_op("LookupTableExportV2", stateful=True)
class LookupTableExportV2:
    """Every key and value (a dense table: its bucket arrays)."""

    def infer(table_handle, Tkeys, Tvalues):
        return TensorSpec(None, Tkeys), TensorSpec(None, Tvalues)

    def kernel(table_handle, Tkeys, Tvalues):
        return table_handle.export()


@define_op("LookupTableImportV2", stateful=True)
class LookupTableImportV2:
    """Replace the contents by ``keys``/``values`` (a static table: its initialization)."""

    def infer(table_handle, keys, values, Tin, Tout):
        return ()

    def kernel(table_handle, keys, values, Tin, Tout):
        table_handle.check_signature((keys, values), Tin, Tout)
        table_handle.import_values(np.asarray(keys), np.asarray(values))
        return ()


@define_op("InitializeTableV2", stateful=True)
class InitializeTableV2:
    """Initialize a static table from ``keys``/``values`` (TF 1's initializer op)."""

    def infer(table_handle, keys, values, Tkey, Tval):
        return ()

    def kernel(table_handle, keys, values, Tkey, Tval):
        table_handle.check_signature((keys, values), Tkey, Tval)
        table_handle.import_values(np.asarray(keys), np.asarray(values))
        return ()


@define_op("InitializeTableFromDataset", stateful=True)
class InitializeTableFromDataset:
    """Initialize a static table from a dataset of ``(key, value)`` scalar pairs, read when the
    op runs (``tf.data.experimental.DatasetInitializer``)."""

    def infer(table_handle, dataset):
        return ()

    def kernel(table_handle, dataset):
        pairs = list(dataset.dataset._iterate(dataset.env))  # a run-time dataset value
        if any(len(p) != 2 for p in pairs):
            raise InvalidArgumentError(None, None, "The dataset must contain pairs of scalars.")
        def column(i, dtype):
            out = np.empty(len(pairs), dtype._np)
            out[:] = [np.asarray(p[i]).reshape(()).item() for p in pairs]
            return out
        keys = column(0, table_handle.key_dtype)
        values = column(1, table_handle.value_dtype)
        table_handle.import_values(keys, values)
        return ()


_LINE_NUMBER, _WHOLE_LINE = -1, -2
_PARSERS = {D.int64: int, D.int32: int, D.float32: float, D.float64: float}


def _field(text, dtype, line):
    """One column as the table's dtype (TF's ``strings::SafeStringTo*``)."""
    if dtype == D.string:
        return text.encode("utf-8", "surrogateescape")
    parse = _PARSERS.get(dtype)
    try:
        value = parse(text.strip())
        np.array(value, dtype._np)  # out of the dtype's range: OverflowError
        return value
    except (TypeError, ValueError, OverflowError):
        raise InvalidArgumentError(None, None, f"Field {text} in line {line} is not a valid "
                                   f"{dtype.name}.") from None


def text_file_pairs(filename, key_index, value_index, vocab_size, delimiter, offset,
                    key_dtype, value_dtype):
    """The ``(key, value)`` pairs TF's ``TextFileLineIterator`` reads from ``filename``."""
    path = io_files._path(filename)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise io_files._os_error(e, path) from None
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the newline ending the last line
    pairs, position = [], 0
    need = max(key_index, value_index) + 1
    for number, raw in enumerate(lines):
        if vocab_size != -1 and number >= vocab_size:
            break
        position += len(raw) + 1
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw:
            raise InvalidArgumentError(None, None, f"Invalid content in {path}: empty line found "
                                       f"at position {position}.")
        text = raw.decode("utf-8", "surrogateescape")
        columns = text.split(delimiter) if need > 0 else None
        if need > 0 and len(columns) < need:
            raise InvalidArgumentError(None, None, f"Invalid number of columns in {path} line "
                                       f"{number} ({text}) : expected at least {need} got "
                                       f"{len(columns)}")

        def pick(index, dtype, add=0):
            if index == _LINE_NUMBER:
                return number + add
            return _field(text if index == _WHOLE_LINE else columns[index], dtype, number)

        pairs.append((pick(key_index, key_dtype), pick(value_index, value_dtype, offset)))
    if vocab_size != -1 and len(pairs) < vocab_size:
        raise InvalidArgumentError(None, None, f"Invalid vocab_size in {path}: expected "
                                   f"{vocab_size} but got {len(pairs)}")
    return pairs


@define_op("InitializeTableFromTextFileV2", stateful=True)
class InitializeTableFromTextFileV2:
    """Initialize a static table from a text file's lines: keys and values are whole lines,
    line numbers or ``delimiter``-separated columns."""

    def infer(table_handle, filename, key_index, value_index, vocab_size=-1, delimiter="\t",
              offset=0):
        return ()

    def kernel(table_handle, filename, key_index, value_index, vocab_size=-1, delimiter="\t",
               offset=0):
        table_handle.fill(text_file_pairs(filename, key_index, value_index, vocab_size,
                                          delimiter, offset, table_handle.key_dtype,
                                          table_handle.value_dtype))
        return ()
