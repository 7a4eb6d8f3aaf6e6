"""Ragged tensors: ``tf.RaggedTensor``, ``tf.RaggedTensorSpec`` and the ``tf.ragged`` ops (this
package is the ``tf.ragged`` namespace). Loading any of its modules loads them all, so a ragged
tensor always has its indexing and the op overrides registered."""

from . import ragged_tensor, ragged_ops, indexing, shape, dispatch  # noqa: F401
