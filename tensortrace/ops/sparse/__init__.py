"""Sparse tensors as (indices, values, dense_shape) components: TF's Sparse* op records with
NumPy kernels. ``tensortrace.sparse`` builds tf.SparseTensor and tf.sparse on them."""

from . import arithmetic, cross, csr, reorganize, segments  # noqa: F401  (registers the ops)
