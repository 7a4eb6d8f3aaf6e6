"""The run-time lookup tables behind a table's ``resource`` tensor, as TF's kernels keep them.

A table resource is a Python object (the value a ``resource`` tensor holds, like a variable's):
``HashTable`` (filled once by an initializer, TF's ``lookup::HashTable``), ``MutableHashTable``
(scalar or tensor values) and ``DenseHashTable`` (TF's open-addressing table with quadratic
probing, whose exported buckets are TF's). Every method runs under the table's lock and raises
TF's error types with TF's texts; the op records in ``records.py`` call them.
"""

import threading

import numpy as np

from ... import dtypes as D
from ..._farmhash import legacy_hash64
from ...errors import FailedPreconditionError, InternalError, InvalidArgumentError
from ...messages import shape_text
from ...tensor import ResourceTensor

_UINT64 = (1 << 64) - 1


class TableHandle(ResourceTensor):
    """The eager ``resource`` tensor of a lookup table; its value is the table resource."""

    __slots__ = ()
    _use = "use the table"

    def _text(self):
        return (f'<ResourceHandle(name="{self._value.name}", device="/job:localhost/replica:0/'
                'task:0/device:CPU:0", container="localhost", type="tensorflow::lookup::'
                'LookupInterface", dtype and shapes : "[  ]")>')

    def __repr__(self):
        return f"<tf.Tensor: shape=(), dtype=resource, value={self._text()}>"

    def __str__(self):
        return f"tf.Tensor({self._text()}, shape=(), dtype=resource)"


def _error(cls, message):
    return cls(None, None, message)


def _key_text(key):
    return key.decode("utf-8", "backslashreplace") if isinstance(key, bytes) else str(key)


def _value_text(value):
    v = np.asarray(value)
    if v.ndim == 0:
        return _key_text(v.item())
    return "[" + " ".join(_key_text(x) for x in v.ravel().tolist()) + "]"


class Table:
    """What every table kernel shares: dtypes, value shape, the lock and the dtype checks."""

    kind = "table"

    def __init__(self, key_dtype, value_dtype, value_shape=(), name=""):
        self.key_dtype, self.value_dtype = D.as_dtype(key_dtype), D.as_dtype(value_dtype)
        self.value_shape = tuple(value_shape)
        self.name = name
        self._lock = threading.Lock()

    def check_signature(self, have, key_dtype, value_dtype=None):
        """TF's ``MatchSignature``: the inputs' dtypes against the table's."""
        got = [D.from_numpy(np.asarray(a).dtype) for a in have]
        want = [self.key_dtype] + ([self.value_dtype] if value_dtype is not None else [])
        if got != want:
            raise _error(InvalidArgumentError, "Signature mismatch, have: " + ", ".join(
                ["resource"] + [d.name for d in got]) + " expected: " + ", ".join(
                ["resource"] + [d.name for d in want]))

    def _values_shape(self, keys):
        return tuple(keys.shape) + self.value_shape

    def _check_values(self, keys, values):
        expected = self._values_shape(keys)
        if tuple(values.shape) != expected:
            raise _error(InvalidArgumentError, f"Expected shape {shape_text(expected)} for value, "
                         f"got {shape_text(values.shape)}")

    def _rows(self, values, n):
        return values.reshape((n,) + self.value_shape)

    def _output(self, keys, found, default):
        """Values for ``found`` (a value or None per key), ``default`` where None (one default,
        or one per key)."""
        shape = self._values_shape(keys)
        default = np.asarray(default, self.value_dtype._np)
        per_key = default.shape == shape and default.shape != self.value_shape
        if per_key:
            default = default.reshape((-1,) + self.value_shape)
        if not self.value_shape:
            fill = default.reshape(-1).tolist() if per_key else None
            one = None if per_key else default[()]
            values = [(fill[i] if per_key else one) if v is None else v
                      for i, v in enumerate(found)]
            return np.array(values, self.value_dtype._np).reshape(shape)
        out = np.empty(shape, self.value_dtype._np)
        flat = out.reshape((-1,) + self.value_shape)
        for i, row in enumerate(found):
            flat[i] = (default[i] if per_key else default) if row is None else row
        return out


class HashTable(Table):
    """TF's ``HashTable``: filled once (by import or a text file), then read only."""

    kind = "HashTable"

    def __init__(self, key_dtype, value_dtype, name=""):
        super().__init__(key_dtype, value_dtype, (), name)
        self._data = None  # None until initialized

    def _ready(self):
        if self._data is None:
            raise _error(FailedPreconditionError, "Table not initialized.")
        return self._data

    def size(self):
        with self._lock:
            return 0 if self._data is None else len(self._data)

    def find(self, keys, default):
        with self._lock:
            data = self._ready()
            found = [data.get(k) for k in keys.ravel().tolist()]
        return self._output(keys, found, default)

    def export(self):
        with self._lock:
            data = self._data or {}
            keys = np.array(list(data), dtype=self.key_dtype._np).reshape(-1)
            values = np.array(list(data.values()), dtype=self.value_dtype._np).reshape(-1)
        return keys, values

    def import_values(self, keys, values):
        """Fill the table from ``keys``/``values`` (TF's ``InitializableLookupTable``: a second
        initialization must bring the same entries)."""
        self._check_values(keys, values)
        self.fill(zip(keys.ravel().tolist(), values.ravel().tolist()))

    def fill(self, pairs):
        """Insert ``(key, value)`` pairs into an empty table under the lock; a key seen twice
        with two values is TF's FailedPreconditionError, and leaves the table uninitialized."""
        data = {}
        for k, v in pairs:
            old = data.setdefault(k, v)
            if old != v:
                raise _error(FailedPreconditionError,
                             f"HashTable has different value for same key. Key {_key_text(k)} "
                             f"has {_value_text(old)} and trying to add value {_value_text(v)}")
        with self._lock:
            if self._data is not None:
                if data != self._data:
                    raise _error(FailedPreconditionError,
                                 "Table was already initialized with different data.")
                return
            self._data = data

    def insert(self, keys, values):
        raise _error(InvalidArgumentError,
                     "Insert not supported by InitializableLookupTable implementations")

    remove = insert


class MutableHashTable(Table):
    """TF's ``MutableHashTable`` (and ``MutableHashTableOfTensors``): inserts, removes, finds
    with a default value (one for all keys, or one per key)."""

    kind = "MutableHashTable"

    def __init__(self, key_dtype, value_dtype, value_shape=(), name=""):
        super().__init__(key_dtype, value_dtype, value_shape, name)
        self._data = {}

    def size(self):
        with self._lock:
            return len(self._data)

    def find(self, keys, default):
        default = np.asarray(default)
        if default.shape not in (self.value_shape, self._values_shape(keys)):
            raise _error(InvalidArgumentError, "Expected shape "
                         f"{shape_text(self.value_shape)} or {shape_text(self._values_shape(keys))}"
                         f" for default value, got {shape_text(default.shape)}")
        with self._lock:
            found = [self._data.get(k) for k in keys.ravel().tolist()]
        return self._output(keys, found, default)

    def insert(self, keys, values):
        self._check_values(keys, values)
        rows = self._rows(values, keys.size)
        with self._lock:
            for k, row in zip(keys.ravel().tolist(), rows):
                self._data[k] = row.copy() if row.ndim else row[()]

    def remove(self, keys):
        with self._lock:
            for k in keys.ravel().tolist():
                self._data.pop(k, None)

    def export(self):
        with self._lock:
            keys = np.array(list(self._data), dtype=self.key_dtype._np).reshape(-1)
            values = np.array(list(self._data.values()), dtype=self.value_dtype._np).reshape(
                (len(keys),) + self.value_shape)
        return keys, values

    def import_values(self, keys, values):
        self._check_values(keys, values)
        rows = self._rows(values, keys.size)
        with self._lock:
            self._data = {k: row.copy() if row.ndim else row[()]
                          for k, row in zip(keys.ravel().tolist(), rows)}


def _hash_scalar(key):
    """TF's ``HashScalar``: integers as themselves (as uint64), strings by the legacy Hash64."""
    if isinstance(key, bytes):
        return int(legacy_hash64([key])[0])
    return int(key) & _UINT64


def _hash_combine(a, b):
    """TF's ``Hash64Combine``."""
    return (a ^ (b + 0x9E3779B97F4A7800 + ((a << 10) & _UINT64) + (a >> 4))) & _UINT64


class DenseHashTable(Table):
    """TF's ``MutableDenseHashTable``: keys and values in power-of-two bucket arrays (what export
    gives and import takes), open addressing with quadratic probing, grown by doubling past the
    load factor; ``empty_key`` marks free buckets, ``deleted_key`` removed ones."""

    kind = "MutableDenseHashTable"

    def __init__(self, empty_key, deleted_key, value_dtype, value_shape=(),
                 initial_num_buckets=131072, max_load_factor=0.8, name=""):
        empty_key, deleted_key = np.asarray(empty_key), np.asarray(deleted_key)
        super().__init__(D.from_numpy(empty_key.dtype), value_dtype, value_shape, name)
        if empty_key.ndim > 1:
            raise _error(InvalidArgumentError, "Empty key must be a scalar or a vector, got shape "
                         f"{shape_text(empty_key.shape)}")
        if not 0 < max_load_factor < 1:
            raise _error(InvalidArgumentError,
                         f"max_load_factor must be between 0 and 1, got: {max_load_factor}")
        if empty_key.shape != deleted_key.shape:
            raise _error(InvalidArgumentError, "Empty and deleted keys must have same shape, got "
                         f"shapes: {shape_text(empty_key.shape)} and "
                         f"{shape_text(deleted_key.shape)}")
        if np.array_equal(empty_key, deleted_key):
            raise _error(InvalidArgumentError, "Empty and deleted keys cannot be equal")
        self.key_shape = empty_key.shape
        self._key_size = max(1, empty_key.size)
        self._value_size = int(np.prod(self.value_shape, dtype=np.int64))
        self._empty = tuple(empty_key.reshape(-1).tolist())
        self._deleted = tuple(deleted_key.reshape(-1).tolist())
        self._max_load = max_load_factor
        self._allocate(initial_num_buckets)

    def _allocate(self, n):
        if n < 4 or n & (n - 1):
            raise _error(InvalidArgumentError,
                         f"Number of buckets must be at least 4 and a power of 2, got: {n}")
        self._keys = [self._empty] * n
        self._values = np.zeros((n, self._value_size), self.value_dtype._np)
        self._count = 0

    def _hash(self, key):
        if len(key) == 1:
            return _hash_scalar(key[0])
        h = 0
        for k in key:
            h = _hash_combine(h, _hash_scalar(k))
        return h

    def _key_rows(self, keys):
        """The keys as tuples; TF's check that they are ``[n] + key_shape``."""
        n = keys.shape[0] if keys.ndim else 1
        if keys.size != n * self._key_size:
            raise _error(InvalidArgumentError, f"Expected key shape "
                         f"{shape_text((n,) + self.key_shape)} got {shape_text(keys.shape)}")
        return [tuple(r) for r in keys.reshape(-1, self._key_size).tolist()]

    def _check_key(self, key):
        if key == self._empty:
            raise _error(InvalidArgumentError, "Using the empty_key as a table key is not allowed")
        if key == self._deleted:
            raise _error(InvalidArgumentError,
                         "Using the deleted_key as a table key is not allowed")

    def _probe(self, key):
        """The bucket holding ``key``, else the first free one on its probe path (negative)."""
        n = len(self._keys)
        mask, index, probes = n - 1, self._hash(key) & (n - 1), 0
        while True:
            found = self._keys[index]
            if found == key:
                return index
            if found == self._empty:
                return ~index
            probes += 1
            index = (index + probes) & mask
            if probes >= n:
                raise _error(InternalError, "Internal error in MutableDenseHashTable lookup")

    def size(self):
        with self._lock:
            return self._count

    @property
    def _out_key_rank(self):
        return len(self.key_shape)

    def _values_shape(self, keys):
        return tuple(keys.shape[:keys.ndim - self._out_key_rank]) + self.value_shape

    def find(self, keys, default):
        rows = self._key_rows(keys)
        with self._lock:
            found = []
            for key in rows:
                self._check_key(key)
                i = self._probe(key)
                found.append(None if i < 0 else self._values[i].reshape(self.value_shape))
        return self._output(keys, found, default)

    def _insert(self, rows, values, skip_special):
        n = len(self._keys)
        mask = n - 1
        for key, value in zip(rows, values):
            if key == self._empty or key == self._deleted:
                if skip_special:
                    continue
                self._check_key(key)
            index, probes = self._hash(key) & mask, 0
            while True:
                found = self._keys[index]
                if found == key:
                    self._values[index] = value
                    break
                if found == self._empty or found == self._deleted:
                    self._count += 1
                    self._keys[index] = key
                    self._values[index] = value
                    break
                probes += 1
                index = (index + probes) & mask
                if probes >= n:
                    raise _error(InternalError, "Internal error in MutableDenseHashTable insert")

    def insert(self, keys, values):
        rows = self._key_rows(keys)
        self._check_values(keys, values)
        for key in rows:
            self._check_key(key)
        values = values.reshape(len(rows), self._value_size)
        with self._lock:
            pending = self._count + len(rows)
            n = len(self._keys)
            if pending > n * self._max_load:
                while pending > n * self._max_load:
                    n <<= 1
                old_keys, old_values = self._keys, self._values
                self._allocate(n)
                self._insert(old_keys, old_values, True)
            self._insert(rows, values, False)

    def remove(self, keys):
        rows = self._key_rows(keys)
        for key in rows:
            self._check_key(key)
        with self._lock:
            for key in rows:
                i = self._probe(key)
                if i >= 0:
                    self._keys[i] = self._deleted
                    self._count -= 1

    def export(self):
        with self._lock:
            keys = np.array(self._keys, self.key_dtype._np).reshape(len(self._keys),
                                                                     self._key_size)
            return keys, self._values.copy()

    def import_values(self, keys, values):
        n = keys.shape[0] if keys.ndim else 0
        if keys.shape != (n, self._key_size) or values.shape != (n, self._value_size):
            raise _error(InvalidArgumentError, f"Expected shape {shape_text((n, self._value_size))}"
                         f" for value, got {shape_text(values.shape)}")
        rows = [tuple(r) for r in keys.tolist()]
        with self._lock:
            self._allocate(n)
            self._keys = rows
            self._values = values.astype(self.value_dtype._np, copy=True)
            self._count = sum(1 for r in rows if r != self._empty and r != self._deleted)
