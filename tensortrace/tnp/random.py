"""``tnp.random``: NumPy-style sampling over TF's stateful random ops (so ``tnp.random.seed``
is ``tf.random.set_seed``); floats in the default float type (float64 unless prefer_float32)."""

import numpy as _np

from .. import dtypes as _D
from ..ops.array.broadcasting import broadcast_static_shape as _broadcast_shape
from ..ops.random import stateful as _random
from ..ops.random.seeds import set_seed as _set_seed
from ._core import asarray as _asarray, isscalar as _isscalar, result_type as _result_type


def seed(s):
    """Set the global seed (``tf.random.set_seed``)."""
    try:
        s = int(s)
    except TypeError:
        raise ValueError(f"Argument `s` got an invalid value {s}. Only integers are "
                         "supported.") from None
    _set_seed(s)


def _size(size):
    if size is None:
        return ()
    return (size,) if _isscalar(size) else size


def randn(*args):
    """Standard normal samples of shape ``args``."""
    return standard_normal(size=args)


def standard_normal(size=None):
    return _random.normal(_size(size), dtype=_result_type(float))


def uniform(low=0.0, high=1.0, size=None):
    dtype = _result_type(float)
    low, high = _asarray(low, dtype=dtype), _asarray(high, dtype=dtype)
    if size is None:
        size = _broadcast_shape(low.shape, high.shape).as_list()
    return _random.uniform(size, minval=low, maxval=high, dtype=dtype)


def poisson(lam=1.0, size=None):
    return _random.poisson(_size(size), lam=lam, dtype=_D.int64)


def random(size=None):
    return uniform(0.0, 1.0, size)


def rand(*size):
    return uniform(0.0, 1.0, size)


def randint(low, high=None, size=None, dtype=_np.int64):
    low = int(low)
    if high is None:
        low, high = 0, low
    if size is None:
        size = ()
    elif isinstance(size, int):
        size = (size,)
    wanted = dtype
    dtype = _result_type(dtype)
    if dtype not in (_D.int32, _D.int64):
        raise ValueError(f"Argument `dtype` got an invalid value {wanted}. Only those "
                         f"convertible to {(_np.int32, _np.int64)} are supported.")
    return _random.uniform(size, minval=low, maxval=high, dtype=dtype)
