"""tensortrace: TensorFlow 2's eager tensors and tf.function, rebuilt in Python on NumPy.

    >>> import tensortrace as tf
    >>> tf.constant([1, 2]) + 1
    <tf.Tensor: shape=(2,), dtype=int32, numpy=array([2, 3], dtype=int32)>

Importing the package loads only its vocabulary (errors, dtypes, shapes); every other public
name loads the module defining it on first use (``api``), and ``dir(tf)`` lists them all.
"""

from . import errors
from .api import install as _install
from .dtypes import (DType, as_dtype, bfloat16, bool, complex64, complex128, double, float16,
                     float32, float64, half, int8, int16, int32, int64, resource, string, uint8,
                     uint16, uint32, uint64, variant)
from .shapes import TensorShape

newaxis = None

__getattr__, __dir__ = _install(__name__)
