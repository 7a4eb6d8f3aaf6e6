"""Parsing ``tf.train.Example`` and ``SequenceExample`` protos into tensors (``tf.io.parse_*``):
feature configurations, the parse ops' NumPy kernels and the public functions."""
