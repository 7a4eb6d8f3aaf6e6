"""``tf.data.TFRecordDataset``: the records of TFRecord files, file after file, as scalar
strings (TF's framing, CRCs checked; GZIP or ZLIB compressed)."""

import numpy as np

from .. import dtypes as D
from ..convert import convert_to_tensor
from ..ops.io_records import reader_compression, read_records
from ..tensor import Tensor, TensorSpec
from .dataset import Dataset, value_of
from .ops import UNKNOWN


class TFRecordDatasetV2(Dataset):
    """``tf.data.TFRecordDataset(filenames, compression_type=None, ...)``."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        names = filenames if isinstance(filenames, Tensor) else \
            convert_to_tensor(filenames, dtype=D.string)
        if names.dtype != D.string:
            raise TypeError(f"Invalid `filenames`. `filenames` must be a `tf.Tensor` of dtype "
                            f"`tf.string` dtype. Got {names.dtype}")
        if names.shape.rank not in (0, 1, None):
            raise ValueError(f"Invalid `filenames`. `filenames` must be a `tf.Tensor` with "
                             f"`tf.TensorShape([None])` shape. Got {names.shape}")
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
