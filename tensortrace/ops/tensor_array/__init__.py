"""TensorLists and ``tf.TensorArray``: the list value, its ops, list arithmetic, TensorArray."""

from . import list_math, list_ops, list_value, tensor_arrays  # noqa: F401  (registers the ops)
