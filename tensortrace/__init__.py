"""tensortrace: TensorFlow 2's eager tensors and tf.function, rebuilt in Python on NumPy.

    >>> import tensortrace as tf
    >>> tf.constant([1, 2]) + 1
    <tf.Tensor: shape=(2,), dtype=int32, numpy=array([2, 3], dtype=int32)>
"""

from . import autograph as _autograph  # noqa: F401  (installs the tracing converter)
from . import config as _config_module  # noqa: F401  (registers tf.config.*)
from . import data as _data  # noqa: F401  (tf.data)
from . import dtypes as _dtypes_module
from . import errors
from . import initializers as _initializers  # noqa: F401  (tf.*_initializer)
from . import nest as _nest
from . import ops as _ops  # registers every op
from . import random_generator as _random_generator  # noqa: F401  (tf.random.Generator)
from . import saving as _saving  # noqa: F401  (tf.saved_model)
from ._export import exports as _exports
from .api import build as _build_namespaces
from .autodiff import custom_gradient as _custom_gradient  # noqa: F401  (tf.custom_gradient)
from .autodiff import gradients as _gradients  # noqa: F401  (tf.gradients, tf.hessians)
from .autodiff import rules as _rules  # noqa: F401  (fills every op's gradient rule)
from .autodiff import tape as _tape  # noqa: F401  (tf.GradientTape)
from .context import executing_eagerly
from .convert import constant, convert_to_tensor
from .dtypes import (DType, as_dtype, bfloat16, bool, complex64, complex128, double, float16,
                     float32, float64, half, int8, int16, int32, int64, resource, string, uint8,
                     uint16, uint32, uint64, variant)
from .module import Module
from .shapes import TensorShape
from .tensor import Tensor, TensorSpec
from .tracing.function import function
from .variables import Variable

newaxis = None
__version__ = "0.1.0"

globals().update(_exports(""))
globals().update(_build_namespaces(__name__))
nest = _nest
