"""``tf.sparse``: SparseTensor and the functions on it (this package is the namespace)."""

from .functions import (add, bincount, expand_dims, eye, fill_empty_rows,  # noqa: F401
                        from_dense, map_values, mask, maximum, minimum, reduce_max, reduce_sum,
                        reorder, reset_shape, reshape, retain, segment_mean, segment_sqrt_n,
                        segment_sum, slice, softmax, sparse_dense_matmul, split, to_dense,
                        to_indicator, transpose)
from .functions import concat_sparse as concat  # noqa: F401
from .cross import cross, cross_hashed  # noqa: F401
from .sparse_tensor import SparseTensor  # noqa: F401
