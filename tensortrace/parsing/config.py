"""The feature configurations of ``tf.io.parse_example`` (``FixedLenFeature``, ``VarLenFeature``,
``RaggedFeature``, ``FixedLenSequenceFeature``, ``SparseFeature``) and TF's validation of a
feature dict."""

import collections

from .. import dtypes as D
from .._export import tf_export
from ..shapes import as_shape

PARSE_DTYPES = (D.float32, D.int64, D.string)


@tf_export("io.VarLenFeature")
class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A variable-length feature, parsed into a ``tf.SparseTensor``."""


@tf_export("io.RaggedFeature")
class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """A feature parsed into a ``tf.RaggedTensor``: the values of ``value_key`` (the feature's
    own key by default) split by ``partitions`` (outermost first)."""

    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])
    _PARTITION_TYPES = (RowSplits, RowLengths, RowStarts, RowLimits, ValueRowIds,
                        UniformRowLength)

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=D.int32,
                validate=False):
        if value_key is not None:
            if not isinstance(value_key, str):
                raise ValueError(f"Argument `value_key` must be a string; got {value_key}")
            if not value_key:
                raise ValueError("Argument `value_key` must not be empty")
        dtype = D.as_dtype(dtype)
        if dtype not in PARSE_DTYPES:
            raise ValueError(f"Argument `dtype` must be int64, float32, or bytes; got {dtype!r}")
        row_splits_dtype = D.as_dtype(row_splits_dtype)
        if row_splits_dtype not in (D.int32, D.int64):
            # TF's message runs "got" into the dtype
            raise ValueError(f"Argument `row_splits_dtype` must be int32 or int64; got"
                             f"{row_splits_dtype!r}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"Argument `partitions` must be a list or tuple. Received"
                            f"partitions={partitions} of type {type(partitions).__name__}.")
        for p in partitions:
            if not isinstance(p, cls._PARTITION_TYPES):
                raise TypeError(f"Argument `partitions` cannot be cast to any of the partition "
                                f"types in {_partition_types_text()}; got: {p!r} with type "
                                f"{type(p)}")
        if not isinstance(validate, bool):
            raise TypeError(f"Argument `validate` must be a bool; got {validate!r}")
        return super().__new__(cls, dtype, value_key, tuple(partitions), row_splits_dtype,
                               validate)


def _partition_types_text():
    # TF names the classes by their module path; ours are named as TF's are
    return "(" + ", ".join(f"<class 'tensorflow.python.ops.parsing_config.{t.__name__}'>"
                           for t in RaggedFeature._PARTITION_TYPES) + ")"


@tf_export("io.SparseFeature")
class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A ``tf.SparseTensor`` whose indices come from ``index_key`` feature(s) and values from
    ``value_key``; ``size`` is its dense shape (without the batch dimension)."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


@tf_export("io.FixedLenFeature")
class FixedLenFeature(collections.namedtuple(
        "FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of fixed ``shape``; ``default_value`` fills examples that lack it."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


@tf_export("io.FixedLenSequenceFeature")
class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A variable number of items of ``shape``, parsed into a dense tensor ``[None] + shape``
    (batches padded with ``default_value``)."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class ParseParams:
    """The sparse, dense and ragged keys a feature dict asks the parser for (TF's
    ``_ParseOpParams``): keys sorted, shared keys once, with TF's checks."""

    def __init__(self):
        self.sparse_keys, self.sparse_types = [], []
        self.dense_keys, self.dense_types, self.dense_shapes = [], [], []
        self.dense_defaults = {}
        self.dense_sequence = []  # whether a dense key's first dimension varies
        self.ragged_keys, self.ragged_value_types, self.ragged_split_types = [], [], []

    @classmethod
    def from_features(cls, features, types):
        params = cls()
        for key in sorted(features or {}):
            feature = features[key]
            if not isinstance(feature, tuple(types)):
                raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key "
                                 f"'{key}'")
            params._add(key, feature)
        params._validate()
        return params

    @property
    def num_features(self):
        return len(self.dense_keys) + len(self.sparse_keys) + len(self.ragged_keys)

    def _add(self, key, feature):
        if isinstance(feature, VarLenFeature):
            if not feature.dtype:
                raise ValueError(f"Missing type for feature {key}. Received feature={feature}")
            self._add_sparse_key(key, feature.dtype)
        elif isinstance(feature, SparseFeature):
            self._add_sparse_feature(key, feature)
        elif isinstance(feature, FixedLenFeature):
            self._add_fixed(key, feature)
        elif isinstance(feature, FixedLenSequenceFeature):
            self._add_sequence(key, feature)
        else:
            value_key = key if feature.value_key is None else feature.value_key
            self._add_ragged_key(value_key, feature.dtype, feature.row_splits_dtype)
            for p in feature.partitions:
                if not isinstance(p, RaggedFeature.UniformRowLength):
                    self._add_ragged_key(p.key, D.int64, feature.row_splits_dtype)

    def _add_sparse_key(self, key, dtype):
        dtype = D.as_dtype(dtype)
        if key in self.sparse_keys:
            original = self.sparse_types[self.sparse_keys.index(key)]
            if original != dtype:
                raise ValueError(f"Conflicting type {original} vs {dtype} for feature {key}.")
        else:
            self.sparse_keys.append(key)
            self.sparse_types.append(dtype)

    def _add_sparse_feature(self, key, feature):
        if not feature.index_key:
            raise ValueError(f"Missing index_key for SparseFeature {feature}.")
        if not feature.value_key:
            raise ValueError(f"Missing value_key for SparseFeature {feature}.")
        if not feature.dtype:
            raise ValueError(f"Missing type for feature {key}. Received feature={feature}.")
        index_keys = feature.index_key
        if isinstance(index_keys, str):
            index_keys = [index_keys]
        for index_key in sorted(index_keys):
            self._add_sparse_key(index_key, D.int64)
        self._add_sparse_key(feature.value_key, feature.dtype)

    def _add_fixed(self, key, feature):
        if not feature.dtype:
            raise ValueError(f"Missing type for feature {key}. Received feature={feature}.")
        if feature.shape is None:
            raise ValueError(f"Missing shape for feature {key}. Received feature={feature}.")
        shape = as_shape(feature.shape)
        if feature.shape and shape.rank and shape.dims[0] is None:
            raise ValueError(f"First dimension of shape for feature {key} unknown. Consider "
                             f"using FixedLenSequenceFeature. Received feature={feature}.")
        if not shape.is_fully_defined():
            raise ValueError(f"All dimensions of shape for feature {key} need to be known but "
                             f"received {feature.shape!s}.")
        self._add_dense(key, feature.dtype, shape, False)
        if feature.default_value is not None:
            self.dense_defaults[key] = feature.default_value

    def _add_sequence(self, key, feature):
        if not feature.dtype:
            raise ValueError(f"Missing type for feature {key}. Received feature={feature}.")
        if feature.shape is None:
            raise ValueError(f"Missing shape for feature {key}. Received feature={feature}.")
        self._add_dense(key, feature.dtype, as_shape(feature.shape), True)
        if feature.allow_missing:
            self.dense_defaults[key] = None
        if feature.default_value is not None:
            self.dense_defaults[key] = feature.default_value

    def _add_dense(self, key, dtype, shape, sequence):
        self.dense_keys.append(key)
        self.dense_types.append(D.as_dtype(dtype))
        self.dense_shapes.append(shape)
        self.dense_sequence.append(sequence)

    def _add_ragged_key(self, key, value_type, split_type):
        value_type, split_type = D.as_dtype(value_type), D.as_dtype(split_type)
        if key in self.ragged_keys:
            i = self.ragged_keys.index(key)
            if self.ragged_value_types[i] != value_type:
                raise ValueError(f"Conflicting type {self.ragged_value_types[i]} vs "
                                 f"{value_type} for feature {key}.")
            if self.ragged_split_types[i] != split_type:
                raise ValueError(f"Conflicting partition type {self.ragged_split_types[i]} vs "
                                 f"{split_type} for feature {key}.")
        else:
            self.ragged_keys.append(key)
            self.ragged_value_types.append(value_type)
            self.ragged_split_types.append(split_type)

    def _validate(self):
        dense, sparse, ragged = set(self.dense_keys), set(self.sparse_keys), set(self.ragged_keys)
        if not dense.isdisjoint(sparse):
            raise ValueError(f"Dense and sparse keys must not intersect; dense_keys: "
                             f"{self.dense_keys}, sparse_keys: {self.sparse_keys}, "
                             f"intersection: {dense & sparse}")
        if not dense.isdisjoint(ragged):
            # TF passes its message to ValueError as two arguments
            raise ValueError("Dense and ragged keys must not intersect; dense_keys: ",
                             f"{self.dense_keys}, ragged_keys: {self.ragged_keys}, "
                             f"intersection: {dense & ragged}")
        if not ragged.isdisjoint(sparse):
            raise ValueError(f"Ragged and sparse keys must not intersect; ragged_keys: "
                             f"{self.ragged_keys}, sparse_keys: {self.sparse_keys}, "
                             f"intersection: {ragged & sparse}")

