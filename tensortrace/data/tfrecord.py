"""``tf.data.TFRecordDataset``: the records of TFRecord files, file after file, as scalar
strings (TF's framing, CRCs checked; GZIP or ZLIB compressed)."""

import numpy as np

from .. import dtypes as D
from ..ops.io_records import reader_compression, read_records
from ..tensor import TensorSpec
from .dataset import Dataset, filenames_arg, value_of
from .ops import UNKNOWN


class TFRecordDatasetV2(Dataset):
    """``tf.data.TFRecordDataset(filenames, compression_type=None, ...)``."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        names = filenames_arg(filenames)
        self._compression = reader_compression(compression_type)
        self._tensors = [names]
        super().__init__(TensorSpec((), D.string))

    def _iterate(self, env):
        for name in np.asarray(value_of(self._tensors[0], env), dtype=object).reshape(-1):
            path = name.decode() if isinstance(name, bytes) else str(name)
            for record in read_records(path, self._compression):
                yield (np.array(record, dtype=object),)

    def _cardinality(self, env=None):
        return UNKNOWN
