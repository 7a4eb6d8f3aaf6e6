"""tf.lookup's tables: ``StaticHashTable``, ``StaticVocabularyTable`` (out-of-vocabulary keys
hashed into buckets by TF's Fingerprint64), ``tf.lookup.experimental.MutableHashTable`` and
``DenseHashTable``. Each owns a table resource (``resource.TrackableResource``); its methods bind
TF's ops on the handle, so they run eagerly, inside tf.function (the handle is captured) and in
tf.data functions alike. Mutable tables save their contents in checkpoints as TF does
(``<path>/.ATTRIBUTES/table-keys`` and ``table-values``)."""

import itertools

import numpy as np

from .. import dtypes as D
from .._export import tf_export
from ..context import bind, state
from ..convert import convert_to_tensor
from ..ops import core
from ..ops.lookup import records
from ..ops.math.arithmetic import add
from ..ops.math.casting import cast
from ..ops.math.compare import not_equal
from ..ops.math.select import where
from ..ops.strings.hashing import to_hash_bucket_fast
from ..ops.strings.numbers import as_string
from ..ragged.ragged_tensor import RaggedTensor
from ..registry import get as get_op
from ..shapes import TensorShape
from ..sparse.sparse_tensor import SparseTensor
from .initializers import TableInitializerBase, _scoped
from .resource import TrackableResource

_FIND = get_op("LookupTableFindV2")
_INSERT = get_op("LookupTableInsertV2")
_REMOVE = get_op("LookupTableRemoveV2")
_SIZE = get_op("LookupTableSizeV2")
_EXPORT = get_op("LookupTableExportV2")
_IMPORT = get_op("LookupTableImportV2")
_uid = itertools.count(1)


def _convert(value, dtype, name):
    """``convert_to_tensor`` whose dtype error names the argument, as TF's (``keys: ...``)."""
    try:
        return convert_to_tensor(value, dtype=dtype)
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None


def _op(out):
    """An op without outputs: None eagerly (as TF returns), the operation while tracing."""
    return None if state.graph is None else out


def _key_error(want, got):
    return TypeError(f"Dtype of argument `keys` must be {want}, received: {got}")


def _with_values(keys, values):
    if isinstance(keys, SparseTensor):
        return SparseTensor(keys.indices, values, keys.dense_shape)
    if isinstance(keys, RaggedTensor):
        return keys.with_values(values)
    return values


class LookupInterface(TrackableResource):
    """A lookup table: key and value dtypes, ``size``, ``lookup`` (also as ``table[keys]``)."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = D.as_dtype(key_dtype)
        self._value_dtype = D.as_dtype(value_dtype)
        super().__init__()

    @property
    def key_dtype(self):
        """The table key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The table value dtype."""
        return self._value_dtype

    @property
    def name(self):
        return getattr(self, "_table_name", None)

    def __getitem__(self, keys):
        return self.lookup(keys)

    def _size(self, name):
        return _scoped(name or f"{self.name}_Size", lambda: bind(_SIZE, self.resource_handle))

    def _export(self, name, value_shape=None):
        def run():
            keys, values = bind(_EXPORT, self.resource_handle, Tkeys=self._key_dtype,
                                Tvalues=self._value_dtype)
            if state.graph is not None and value_shape is not None:
                keys.set_shape([None])
                values.set_shape(TensorShape([None]).concatenate(value_shape))
            return keys, values
        return _scoped(name, run)

    def _find(self, keys, default, shape):
        values = bind(_FIND, self.resource_handle, keys, default, Tin=self._key_dtype,
                      Tout=self._value_dtype)
        if state.graph is not None and shape is not None:
            values.set_shape(shape)
        return values

    def _make_resource(self, opdef_name, *inputs, **attrs):
        handle = records.create(get_op(opdef_name), *inputs, **attrs)
        if state.graph is None:
            self._table_name = None
        else:
            self._table_name = handle.op.name.split("/")[-1]
        return handle


class InitializableLookupTableBase(LookupInterface):
    """A table filled once by an initializer, read-only afterwards."""

    def __init__(self, default_value, initializer):
        super().__init__(initializer.key_dtype, initializer.value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._default_value.shape.merge_with(TensorShape([]))
        if isinstance(initializer, TableInitializerBase):
            self._initializer = self._track_trackable(initializer, "_initializer")
        with core.init_scope():
            self.resource_handle = self._create_resource()
        self._init_op = self._initialize()

    def _initialize(self):
        return self._initializer.initialize(self)

    @property
    def default_value(self):
        """The default value of the table."""
        return self._default_value

    def size(self, name=None):
        """The number of entries, an int64 scalar."""
        return self._size(name)

    def lookup(self, keys, name=None):
        """The values of ``keys`` (a Tensor, SparseTensor or RaggedTensor); the default value
        for missing keys."""
        key_tensor = keys.values if isinstance(keys, (SparseTensor, RaggedTensor)) else keys
        if keys.dtype.base_dtype != self._key_dtype:
            raise _key_error(self._key_dtype, keys.dtype)
        values = _scoped(name or f"{self.name}_Lookup", lambda: self._find(
            key_tensor, self._default_value, key_tensor.shape))
        return _with_values(keys, values)


@tf_export("lookup.StaticHashTable")
class StaticHashTable(InitializableLookupTableBase):
    """A hash table filled by an initializer, immutable afterwards."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self._initializer = initializer
        self._default_value = default_value
        self._is_anonymous = experimental_is_anonymous
        if not experimental_is_anonymous:
            self._shared_name = initializer._shared_name or f"hash_table_{next(_uid)}"
        self._name = name or "hash_table"
        self._table_name = None
        super().__init__(default_value, initializer)
        self._value_shape = self._default_value.shape

    def _create_resource(self):
        if self._is_anonymous:
            return self._make_resource("AnonymousHashTable",
                                       key_dtype=self._initializer.key_dtype,
                                       value_dtype=self._initializer.value_dtype)
        return self._make_resource(
            "HashTableV2", **records._table_attrs(
                self._initializer.key_dtype, self._initializer.value_dtype,
                shared_name=self._shared_name))

    def export(self, name=None):
        """``(keys, values)``: every entry of the table."""
        return self._export(name or f"{self.name}_Export", self._value_shape)


@tf_export("lookup.StaticVocabularyTable")
class StaticVocabularyTable(LookupInterface):
    """A string or integer vocabulary to ids; out-of-vocabulary keys go to ``num_oov_buckets``
    buckets after the vocabulary, by TF's Fingerprint64 of the key's text."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if name:
            name = name.rstrip("/")
        self._tracked_children = {}
        if initializer:
            if lookup_key_dtype is None:
                lookup_key_dtype = initializer.key_dtype
            lookup_key_dtype = D.as_dtype(lookup_key_dtype)
            supported = (D.int64, D.string)
            if initializer.key_dtype not in supported:
                raise TypeError(f"Invalid `key_dtype`, expected one of (tf.int64, tf.string), "
                                f"but got {initializer.key_dtype}.")
            if initializer.key_dtype.is_integer != lookup_key_dtype.is_integer:
                raise TypeError("Invalid `key_dtype`, expected %s but got %s." % (
                    "integer" if lookup_key_dtype.is_integer else "non-integer",
                    initializer.key_dtype))
            if initializer.value_dtype != D.int64:
                raise TypeError(f"Invalid `value_dtype`, expected {D.int64} but got "
                                f"{initializer.value_dtype}.")
            self._initializer = self._track_trackable(initializer, "_initializer")
            self._table = StaticHashTable(initializer, default_value=-1,
                                          experimental_is_anonymous=experimental_is_anonymous)
            name = name or self._table.name
        else:
            lookup_key_dtype = D.string
            self._table = None
            name = name or "hash_bucket"
        lookup_key_dtype = D.as_dtype(lookup_key_dtype)
        if not lookup_key_dtype.is_integer and lookup_key_dtype != D.string:
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got "
                            f"{lookup_key_dtype}")
        self._num_oov_buckets = num_oov_buckets
        self._table_name = name.split("/")[-1] if name is not None else None
        super().__init__(lookup_key_dtype, D.int64)

    def _create_resource(self):
        return self._table._create_resource() if self._table is not None else None

    def _initialize(self):
        return self._table._initialize() if self._table is not None else None

    @property
    def resource_handle(self):
        return self._table.resource_handle if self._table is not None else None

    @property
    def name(self):
        return self._table_name

    def size(self, name=None):
        """The vocabulary's size plus the number of out-of-vocabulary buckets."""
        def run():
            size = self._table.size() if self._table is not None else \
                convert_to_tensor(0, dtype=D.int64)
            return size + self._num_oov_buckets
        return _scoped(name or f"{self.name}_Size", run)

    def lookup(self, keys, name=None):
        """The ids of ``keys`` (Tensor, SparseTensor or RaggedTensor): vocabulary ids, or
        the vocabulary's size plus the key's bucket."""
        if keys.dtype.base_dtype != self._key_dtype:
            raise _key_error(self._key_dtype, keys.dtype)
        values = keys.values if isinstance(keys, (SparseTensor, RaggedTensor)) else keys
        if self._table is not None and self._table.key_dtype.base_dtype == D.int64:
            values = cast(values, D.int64)

        def run():
            text = values if values.dtype == D.string else as_string(values)
            buckets = to_hash_bucket_fast(text, num_buckets=self._num_oov_buckets,
                                          name="hash_bucket")
            if self._table is None:
                return buckets
            ids = self._table.lookup(values)
            buckets = add(buckets, self._table.size())
            return where(not_equal(ids, self._table.default_value), ids, buckets)
        return _with_values(keys, _scoped(name or f"{self.name}_Lookup", run))


class _MutableBase(LookupInterface):
    """What MutableHashTable and DenseHashTable share: insert, export, checkpointing."""

    _checkpoint_attribute = "table"  # TF's checkpoint keys: .../.ATTRIBUTES/table-keys, -values
    _checkpoint_suffixes = ("-keys", "-values")

    def size(self, name=None):
        """The number of entries, an int64 scalar."""
        return self._size(name)

    @property
    def default_value(self):
        return self._default_value

    def _insert(self, keys, values, name):
        def run():
            k = _convert(keys, self._key_dtype, "keys")
            v = _convert(values, self._value_dtype, "values")
            return _op(bind(_INSERT, self.resource_handle, k, v, Tin=self._key_dtype,
                            Tout=self._value_dtype))
        return _scoped(name or f"{self.name}_lookup_table_insert", run)

    def _remove(self, keys, name):
        return _scoped(name or f"{self.name}_lookup_table_remove", lambda: _op(bind(
            _REMOVE, self.resource_handle, keys, Tin=self._key_dtype)))

    def export(self, name=None):
        """``(keys, values)``: every entry (a dense table: its buckets)."""
        return self._export(name or f"{self.name}_lookup_table_export_values")

    def _serialize_to_tensors(self):
        keys, values = self.export()
        return {"-keys": keys, "-values": values}

    def _restore_from_tensors(self, restored_tensors):
        return _op(bind(_IMPORT, self.resource_handle, restored_tensors["-keys"],
                        restored_tensors["-values"], Tin=self._key_dtype, Tout=self._value_dtype))

    # the checkpoint's protocol (checkpoint.graph_view): values under "table" + suffix
    def _checkpoint_value(self):
        with core.init_scope():
            return {suffix: (np.asarray(t.numpy()), t.dtype)
                    for suffix, t in self._serialize_to_tensors().items()}

    def _restore_checkpoint_value(self, values):
        with core.init_scope():
            self._restore_from_tensors({
                "-keys": convert_to_tensor(values["-keys"], dtype=self._key_dtype),
                "-values": convert_to_tensor(values["-values"], dtype=self._value_dtype)})


@tf_export("lookup.experimental.MutableHashTable")
class MutableHashTable(_MutableBase):
    """A mutable hash table: ``insert``, ``remove``, ``lookup`` with a default value."""

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable",
                 checkpoint=True, experimental_is_anonymous=False):
        self._default_value = convert_to_tensor(default_value, dtype=value_dtype)
        self._value_shape = self._default_value.shape
        self._checkpoint = checkpoint
        self._name = name
        self._is_anonymous = experimental_is_anonymous
        self._shared_name = None
        if not experimental_is_anonymous and state.graph is None:
            self._shared_name = f"table_{next(_uid)}"
        super().__init__(key_dtype, value_dtype)
        self.resource_handle = self._create_resource()

    def _create_resource(self):
        attrs = records._table_attrs(
            self._key_dtype, self._value_dtype, shared_name=self._shared_name or "",
            use_node_name_sharing=self._checkpoint and self._shared_name is None)
        if self._default_value.shape.rank == 0 and self._is_anonymous:
            return self._make_resource("AnonymousMutableHashTable", key_dtype=self._key_dtype,
                                       value_dtype=self._value_dtype)
        if self._default_value.shape.rank == 0:
            return self._make_resource("MutableHashTableV2", **attrs)
        return self._make_resource("MutableHashTableOfTensorsV2", value_shape=self._value_shape,
                                   **attrs)

    def remove(self, keys, name=None):
        """Remove ``keys`` (missing keys are ignored)."""
        if keys.dtype != self._key_dtype:
            raise _key_error(self._key_dtype, keys.dtype)
        return self._remove(keys, name)

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """The values of ``keys``; the default (or ``dynamic_default_values``) where missing."""
        def run():
            k = _convert(keys, self._key_dtype, "keys")
            default = self._default_value if dynamic_default_values is None else \
                dynamic_default_values
            return self._find(k, default, k.shape.concatenate(self._value_shape))
        return _scoped(name or f"{self.name}_lookup_table_find", run)

    def insert(self, keys, values, name=None):
        """Associate ``keys`` with ``values``."""
        return self._insert(keys, values, name)


@tf_export("lookup.experimental.DenseHashTable")
class DenseHashTable(_MutableBase):
    """A mutable hash table in flat bucket arrays (open addressing, quadratic probing);
    ``empty_key`` and ``deleted_key`` are reserved keys."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key,
                 initial_num_buckets=None, name="MutableDenseHashTable", checkpoint=True,
                 experimental_is_anonymous=False):
        self._default_value = convert_to_tensor(default_value, dtype=value_dtype)
        self._key_dtype = key_dtype
        self._value_dtype = value_dtype
        self._initial_num_buckets = initial_num_buckets
        self._value_shape = self._default_value.shape
        self._checkpoint = checkpoint
        self._name = name
        empty_key = convert_to_tensor(empty_key, dtype=key_dtype)  # as TF, before the op
        deleted_key = convert_to_tensor(deleted_key, dtype=key_dtype)
        self._empty_key, self._deleted_key = empty_key, deleted_key
        self._is_anonymous = experimental_is_anonymous
        self._shared_name = None
        if not experimental_is_anonymous and state.graph is None:
            self._shared_name = f"table_{next(_uid)}"
        super().__init__(key_dtype, value_dtype)
        self.resource_handle = self._create_resource()

    def _create_resource(self):
        empty = convert_to_tensor(self._empty_key, dtype=self._key_dtype)
        deleted = convert_to_tensor(self._deleted_key, dtype=self._key_dtype)
        attrs = records._table_attrs(
            self._key_dtype, self._value_dtype, shared_name=self._shared_name or "",
            use_node_name_sharing=self._checkpoint and self._shared_name is None)
        return self._make_resource(
            "MutableDenseHashTableV2", empty, deleted, value_shape=self._value_shape,
            initial_num_buckets=self._initial_num_buckets or 131072, max_load_factor=0.8,
            **attrs)

    def lookup(self, keys, name=None):
        """The values of ``keys``; the default value where missing."""
        def run():
            k = _convert(keys, self._key_dtype, "keys")
            return self._find(k, self._default_value, None)
        return _scoped(name or f"{self.name}_lookup_table_find", run)

    def insert_or_assign(self, keys, values, name=None):
        """Associate ``keys`` with ``values``."""
        return self._insert(keys, values, name)

    insert = insert_or_assign

    def erase(self, keys, name=None):
        """Remove ``keys`` (missing keys are ignored)."""
        if keys.dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype}, got "
                            f"{keys.dtype}.")
        return self._remove(keys, name)

    remove = erase
