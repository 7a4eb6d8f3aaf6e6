"""``tf.sparse``: SparseTensor and the functions on it. The package also holds
``tf.IndexedSlices`` (``indexed_slices``), which is not part of the ``tf.sparse`` namespace."""

from . import indexed_slices as _indexed_slices  # noqa: F401  (exports tf.IndexedSlices)
from .functions import (add, bincount, expand_dims, eye, fill_empty_rows, from_dense,
                        map_values, mask, maximum, minimum, reduce_max, reduce_sum, reorder,
                        reset_shape, reshape, retain, slice, softmax, sparse_dense_matmul,
                        split, to_dense, to_indicator, transpose)
from .functions import concat_sparse as concat
from .sparse_tensor import SparseTensor, SparseTensorSpec as _SparseTensorSpec  # noqa: F401
