"""Ragged tensors: ``tf.RaggedTensor``, ``tf.RaggedTensorSpec`` and the ``tf.ragged`` ops."""
