"""The initializers TF 2.21 exposes at the top level (``tf.zeros_initializer``,
``tf.constant_initializer``, ...): callables ``init(shape, dtype)`` returning a tensor, as
``tf.Variable(init(shape))`` uses them.

    >>> tf.constant_initializer([1, 2])([2])
    <tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>
"""

import numpy as np

from . import dtypes as D
from ._export import tf_export
from .convert import constant
from .ops.array.creation import ones, zeros
from .ops.random.stateful import normal, uniform
from .ops.random.stateless import stateless_normal, stateless_uniform

_PARTITION_SHAPE, _PARTITION_OFFSET = "partition_shape", "partition_offset"


class Initializer:
    """Base class: ``__call__(shape, dtype=None, **kwargs)`` and a config round trip."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        config.pop("dtype", None)
        return cls(**config)

    def _validate_kwargs(self, kwargs, support_partition=True):
        for kwarg in kwargs:
            if kwarg not in (_PARTITION_SHAPE, _PARTITION_OFFSET):
                raise TypeError(f"Keyword argument should be one of "
                                f"{[_PARTITION_SHAPE, _PARTITION_OFFSET]}. Received: {kwarg}")
            if not support_partition:
                raise ValueError(f"{type(self).__name__} initializer doesn't support "
                                 "partition-related arguments")


def _numeric_or_bool(dtype):
    dtype = D.as_dtype(dtype)
    if dtype == D.string or dtype in (D.resource, D.variant):
        raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received {dtype}.")
    return dtype


@tf_export("zeros_initializer")
class Zeros(Initializer):
    """Tensors of zeros."""

    def __call__(self, shape, dtype=D.float32, **kwargs):
        self._validate_kwargs(kwargs)
        return zeros(kwargs.get(_PARTITION_SHAPE, shape), _numeric_or_bool(dtype))


@tf_export("ones_initializer")
class Ones(Initializer):
    """Tensors of ones."""

    def __call__(self, shape, dtype=D.float32, **kwargs):
        self._validate_kwargs(kwargs)
        return ones(kwargs.get(_PARTITION_SHAPE, shape), _numeric_or_bool(dtype))


@tf_export("constant_initializer")
class Constant(Initializer):
    """Tensors filled from ``value``: a scalar broadcast, or as many values as elements."""

    def __init__(self, value=0, support_partition=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {type(value).__name__}. Expected "
                            "Python scalar, list or tuple of values, or numpy.ndarray.")
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape, dtype=None, **kwargs):
        self._validate_kwargs(kwargs, support_partition=self.support_partition)
        return constant(self.value, dtype=None if dtype is None else D.as_dtype(dtype),
                        shape=shape)

    def get_config(self):
        return {"value": self.value}


def _float_dtype(dtype):
    dtype = D.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: {dtype}.")
    return dtype


class _Random(Initializer):
    """With a ``seed`` the values are a pure function of it (stateless ops, as TF); without,
    each call draws new values."""

    def __init__(self, seed):
        self.seed = seed
        self._seed = None if seed is None else [seed, 0]


@tf_export("random_uniform_initializer")
class RandomUniform(_Random):
    """Uniform values in ``[minval, maxval)``."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape, dtype=D.float32, **kwargs):
        self._validate_kwargs(kwargs)
        dtype = D.as_dtype(dtype)
        if not dtype.is_floating and not dtype.is_integer:
            raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received "
                             f"{dtype}.")
        shape = kwargs.get(_PARTITION_SHAPE, shape)
        if self._seed is not None:
            return stateless_uniform(shape, self._seed, self.minval, self.maxval, dtype)
        return uniform(shape, self.minval, self.maxval, dtype)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


@tf_export("random_normal_initializer")
class RandomNormal(_Random):
    """Normal values of ``mean`` and ``stddev``."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=D.float32, **kwargs):
        self._validate_kwargs(kwargs)
        dtype = _float_dtype(dtype)
        shape = kwargs.get(_PARTITION_SHAPE, shape)
        if self._seed is not None:
            return stateless_normal(shape, self._seed, self.mean, self.stddev, dtype)
        return normal(shape, self.mean, self.stddev, dtype)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}
