"""Table initializers: ``tf.lookup.KeyValueTensorInitializer``, ``TextFileInitializer`` (its
file is a SavedModel asset), ``TextFileIndex`` and ``tf.data.experimental.DatasetInitializer``.
``initialize(table)`` fills a table through TF's ops."""

import itertools

from .. import dtypes as D
from .._export import tf_export
from ..context import bind, state
from ..convert import convert_to_tensor
from ..ops import core
from ..ops.lookup import records  # noqa: F401 - registers the table ops
from ..registry import get as get_op
from ..saving.assets import Asset
from ..tensor import Tensor

_IMPORT = get_op("LookupTableImportV2")
_INIT = get_op("InitializeTableV2")
_FROM_TEXT = get_op("InitializeTableFromTextFileV2")
_uid = itertools.count(1)  # TF's ops.uid(): eager shared names


def check_table_dtypes(table, key_dtype, value_dtype):
    """TF's check that an initializer's dtypes are the table's."""
    if key_dtype.base_dtype != table.key_dtype:
        raise TypeError(f"Invalid key dtype for table, expected {table.key_dtype} but got "
                        f"{key_dtype}.")
    if value_dtype.base_dtype != table.value_dtype:
        raise TypeError(f"Invalid value dtype for table, expected {table.value_dtype} but got "
                        f"{value_dtype}.")


def _scoped(scope, fn):
    """``fn()`` inside the name scope ``scope`` while tracing (eagerly names do nothing)."""
    if state.graph is None:
        return fn()
    with core.name_scope(scope):
        return fn()


class TableInitializerBase:
    """What an initializer gives a table: its key and value dtypes and ``initialize``."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = D.as_dtype(key_dtype)
        self._value_dtype = D.as_dtype(value_dtype)
        self._tracked_children = {}

    @property
    def key_dtype(self):
        """The expected table key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The expected table value dtype."""
        return self._value_dtype

    def initialize(self, table):
        """The op initializing ``table``."""
        raise NotImplementedError

    @property
    def _shared_name(self):
        return str(next(_uid)) if state.graph is None else ""

    def _checkpoint_children(self):
        return list(self._tracked_children.items())


@tf_export("lookup.KeyValueTensorInitializer")
class KeyValueTensorInitializer(TableInitializerBase):
    """A table's contents given as a ``keys`` and a ``values`` tensor."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        with core.init_scope():  # TF converts outside control flow; eager values save as
            self._keys = convert_to_tensor(keys, dtype=key_dtype)  # captured constants
            self._values = convert_to_tensor(values, dtype=value_dtype)
        self._name = name if name is not None else "key_value_init"
        if state.graph is None:
            self._name += str(next(_uid))
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        check_table_dtypes(table, self._keys.dtype, self._values.dtype)
        return _scoped(self._name, lambda: bind(
            _IMPORT, table.resource_handle, self._keys, self._values,
            Tin=self._keys.dtype, Tout=self._values.dtype))


@tf_export("lookup.TextFileIndex")
class TextFileIndex:
    """The special columns of a text file: the whole line, or the line number."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


@tf_export("lookup.TextFileInitializer")
class TextFileInitializer(TableInitializerBase):
    """A table's contents read from a text file, one entry per line: keys and values are whole
    lines (``TextFileIndex.WHOLE_LINE``), line numbers (``LINE_NUMBER``) or
    ``delimiter``-separated columns. The file is an asset of SavedModels."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None, value_index_offset=0):
        if not isinstance(filename, Tensor) and not filename:
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        self._filename_arg = filename
        key_dtype, value_dtype = D.as_dtype(key_dtype), D.as_dtype(value_dtype)
        _check_index("key", key_index, key_dtype)
        _check_index("value", value_index, value_dtype)
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter, self._name = vocab_size, delimiter, name
        self._offset = value_index_offset
        super().__init__(key_dtype, value_dtype)
        with core.init_scope():
            self._filename = Asset(filename)
        self._tracked_children["_filename"] = self._filename

    def initialize(self, table):
        check_table_dtypes(table, self.key_dtype, self.value_dtype)

        def init():
            return bind(_FROM_TEXT, table.resource_handle, self._filename.asset_path,
                        key_index=self._key_index, value_index=self._value_index,
                        vocab_size=-1 if self._vocab_size is None else self._vocab_size,
                        delimiter=self._delimiter, offset=self._offset)
        return _scoped(self._name or "text_file_init", init)

    @property
    def _shared_name(self):
        parts = [f"hash_table_{_text(self._filename_arg)}"]
        if self._vocab_size:
            parts.append(str(self._vocab_size))
        parts += [str(self._key_index), str(self._value_index)]
        if self._offset:
            parts.append(str(self._offset))
        return "_".join(parts)


def _text(filename):
    if isinstance(filename, Tensor):
        filename = filename.numpy() if state.graph is None else filename.name
    return filename.decode() if isinstance(filename, bytes) else str(filename)


def _check_index(what, index, dtype):
    if index < -2:
        raise ValueError(f"`{what}_index` should be >= -2, received: {index}"
                         + ("." if what == "key" else ""))
    if index == TextFileIndex.LINE_NUMBER and dtype != D.int64:
        joiner = "if" if what == "key" else "for"
        raise ValueError(f"`{what}_dtype` must be int64 {joiner} `{what}_index` is "
                         f"{TextFileIndex.LINE_NUMBER}, received: {dtype}" if what == "key" else
                         f"`{what}_dtype` must be int64 for `{what}_index` "
                         f"{TextFileIndex.LINE_NUMBER}, received: {dtype}")
    if index == TextFileIndex.WHOLE_LINE and not dtype.is_integer and dtype != D.string:
        raise ValueError(f"`{what}_dtype` should be either integer or string for `{what}_index` "
                         f"{TextFileIndex.WHOLE_LINE}, received: {dtype}")


@tf_export("data.experimental.DatasetInitializer")
class DatasetInitializer(TableInitializerBase):
    """A table's contents from a dataset of ``(key, value)`` scalar pairs. The dataset is read
    when the table is initialized (eagerly: TF's ``InitializeTableFromDataset`` reads it when
    its op runs)."""

    def __init__(self, dataset):
        self.dataset = dataset
        spec = dataset.element_spec
        if len(spec) != 2:
            raise ValueError("The given dataset must contain pairs.")
        for s in spec:
            if not s.shape.is_compatible_with([]):
                raise ValueError("The given dataset must contain pairs of scalars.")
        super().__init__(spec[0].dtype, spec[1].dtype)

    def initialize(self, table):
        check_table_dtypes(table, self._key_dtype, self._value_dtype)
        with core.init_scope():
            keys, values = [], []
            for k, v in self.dataset:
                keys.append(k.numpy())
                values.append(v.numpy())
            keys = convert_to_tensor(keys, dtype=self._key_dtype) if keys else \
                convert_to_tensor([], dtype=self._key_dtype)
            values = convert_to_tensor(values, dtype=self._value_dtype) if values else \
                convert_to_tensor([], dtype=self._value_dtype)
        return bind(_INIT, table.resource_handle, keys, values, Tkey=self._key_dtype,
                    Tval=self._value_dtype)

