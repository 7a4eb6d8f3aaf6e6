"""``tf.data``: in-memory datasets over NumPy values, iterated eagerly or inside functions.

    ds = tf.data.Dataset.range(5).map(lambda x: x * 2).batch(2)
"""

import enum as _enum
import importlib as _importlib
import types as _types

from .. import dtypes as _dtypes
from .._logging import logger as _logger
from .._export import export_value as _export_value
from .._export import tf_export as _tf_export
from . import methods as _methods  # noqa: F401  (gives Dataset its map, batch ...)
from . import ops as _ops
from .dataset import Dataset, DatasetSpec, Options
from .iterator import Iterator, NumpyIterator
from .optional import Optional as _Optional
from .optional import get_next_as_optional as _get_next_as_optional
from .selection import SHARD_HINT as _SHARD_HINT
from .sources import TextLineDatasetV2 as TextLineDataset
from .tfrecord import TFRecordDatasetV2 as TFRecordDataset

AUTOTUNE = -1
INFINITE_CARDINALITY = _ops.INFINITE
UNKNOWN_CARDINALITY = _ops.UNKNOWN


@_tf_export("data.experimental.cardinality")
def _cardinality(dataset):
    """``dataset.cardinality()`` (-1 infinite, -2 unknown)."""
    return dataset.cardinality()


experimental = _types.ModuleType("tensortrace.data.experimental", "tf.data.experimental")
experimental.AUTOTUNE = AUTOTUNE
experimental.INFINITE_CARDINALITY = INFINITE_CARDINALITY
experimental.UNKNOWN_CARDINALITY = UNKNOWN_CARDINALITY
experimental.cardinality = _cardinality
experimental.Optional = _Optional
experimental.get_next_as_optional = _get_next_as_optional
experimental.SHARD_HINT = _SHARD_HINT

# The CSV readers parse with tf.io's string ops: loaded when first named, not with tf.data.
_READERS = {"CsvDataset": (".readers", "CsvDatasetV2"),
            "make_csv_dataset": (".readers", "make_csv_dataset"),
            "DatasetInitializer": ("..lookup.initializers", "DatasetInitializer")}


def _experimental_getattr(name):
    if name not in _READERS:
        raise AttributeError(f"module 'tensortrace.data.experimental' has no attribute {name!r}")
    module, attr = _READERS[name]
    value = getattr(_importlib.import_module(module, __name__), attr)
    setattr(experimental, name, value)
    return value


experimental.__getattr__ = _experimental_getattr
experimental.__dir__ = lambda: sorted(set(vars(experimental)) | set(_READERS))


class _AutoShardPolicy(_enum.IntEnum):
    """How a dataset is split over workers (an option: one worker here reads it all)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class _ExternalStatePolicy(_enum.Enum):
    """What to do with state outside a dataset when it is serialized (an option)."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


_AutoShardPolicy.__name__ = _AutoShardPolicy.__qualname__ = "AutoShardPolicy"
_ExternalStatePolicy.__name__ = _ExternalStatePolicy.__qualname__ = "ExternalStatePolicy"
experimental.AutoShardPolicy = _AutoShardPolicy
experimental.ExternalStatePolicy = _ExternalStatePolicy


def _dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=_dtypes.int64):
    """Deprecated (TF): use ``tf.data.Dataset.ragged_batch``; a function for ``apply``."""
    _logger.warning("dense_to_ragged_batch (from tensorflow.python.data.experimental.ops."
                    "batching) is deprecated and will be removed in a future version.\n"
                    "Instructions for updating:\nUse `tf.data.Dataset.ragged_batch` instead.")
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


experimental.dense_to_ragged_batch = _dense_to_ragged_batch

for _name in ("AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY"):
    _export_value(globals()[_name], "data." + _name)
_export_value(experimental, "data.experimental")
_export_value(DatasetSpec, "data.DatasetSpec")
_export_value(TextLineDataset, "data.TextLineDataset")
_export_value(TFRecordDataset, "data.TFRecordDataset")

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset", "DatasetSpec",
           "Iterator", "NumpyIterator", "Options", "TFRecordDataset", "TextLineDataset",
           "experimental"]
