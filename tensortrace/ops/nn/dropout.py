"""Dropout: zero elements at random, scaling the kept ones, with tf.random's seeding."""

import numbers

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec
from .._args import int_arg, static_attr
from ..array.shapes import shape as _shape
from ..math.arithmetic import multiply
from ..math.compare import greater_equal
from ..math.select import where
from ..random import philox
from ..random.seeds import seed_attrs as _seed_attrs
from ..random.seeds import stream_draw
from ..random.stateless import stateless_uniform
from ._util import HALF_T


@define_op("Dropout", stateful=True)
class Dropout:
    """x * scale where a uniform draw >= rate, else 0 (TF's RandomUniform/GreaterEqual/SelectV2
    composite as one stateful op). ``noise_shape`` broadcasts the mask; ``scale`` is
    1 / (1 - rate) computed in Python for a Python rate (as TF), else in x's dtype."""

    check = DtypeCheck("Dropout", HALF_T, same=2)

    def infer(x, rate, noise_shape=None, scale=None, seed=0, seed2=0, _stream=0):
        return TensorSpec(x.shape, x.dtype)

    def kernel(x, rate, noise_shape=None, scale=None, seed=0, seed2=0, _stream=0):
        shape = x.shape if noise_shape is None else tuple(
            x.shape[i] if d is None else d for i, d in enumerate(noise_shape))
        try:
            np.broadcast_shapes(shape, x.shape)
        except ValueError:
            raise invalid_argument(f"condition {shape_text(shape)}, then {shape_text(x.shape)}, "
                                   f"and else [] must be broadcastable") from None
        # TF draws the mask with a RandomUniform op of x's dtype: the same stream and values
        dtype = D.from_numpy(x.dtype)
        gen = stream_draw(("RandomUniform", dtype.name), seed, seed2, _stream,
                          int(np.prod(shape, dtype=np.int64)))
        keep = philox.uniform(gen, tuple(shape), x.dtype) >= rate
        with np.errstate(all="ignore"):
            if scale is None:  # a tensor rate: 1 / (1 - rate) in x's dtype, as TF's graph does
                scale = x.dtype.type(1) / (x.dtype.type(1) - rate)
            kept = x * x.dtype.type(scale)
        return np.where(keep, kept, x.dtype.type(0))


@tf_export("nn.dropout")
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero elements with probability ``rate`` and scale the others by 1 / (1 - rate).

    Seeds follow tf.random's rules (``tf.random.set_seed`` and the op ``seed``).

    Raises:
        ValueError: for non-floating ``x`` or a Python ``rate`` outside [0, 1).
    """
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                         f"Received: x_dtype={x.dtype}")
    scale = None
    if isinstance(rate, numbers.Real):
        if not 0 <= rate < 1:
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). "
                             f"Received: rate={rate}")
        if rate == 0:
            return x  # TF's fast path: no op at all
        scale = 1 / (1 - rate)  # in Python floats, then rounded to x's dtype, as TF
    rate = convert_to_tensor(rate, dtype=x.dtype)
    if noise_shape is not None:
        noise_shape = static_attr(noise_shape, "dropout noise_shape")
        if not isinstance(noise_shape, (list, tuple)):
            raise TypeError(f"noise_shape must be a list of ints, got {noise_shape!r}")
        noise_shape = tuple(None if d is None else int_arg(d, "noise_shape")
                            for d in noise_shape)
    return bind(Dropout, x, rate, noise_shape=noise_shape, scale=scale,
                **_seed_attrs(None if seed is None else int_arg(seed, "seed")))


@tf_export("nn.experimental.stateless_dropout")
def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """Dropout whose mask is ``tf.random.stateless_uniform(noise_shape, seed)`` >= ``rate``:
    the same seed, the same mask (TF's composition: x * (1 / (1 - rate)), then the mask).

    Raises:
        ValueError: for non-floating ``x`` or a Python ``rate`` outside [0, 1).
    """
    if isinstance(rate, numbers.Real) and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). "
                         f"Received: rate={rate}")
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                         f"Received: x_dtype={x.dtype}")
    if isinstance(rate, numbers.Real):
        if rate == 0:
            return x
        kept = multiply(x, convert_to_tensor(1 / (1 - rate), dtype=x.dtype))
    else:
        rate = convert_to_tensor(rate)
        if rate.dtype != x.dtype:
            raise ValueError(f"`x.dtype` must be the same as `rate.dtype`. Received: "
                             f"x_dtype={x.dtype} and rate_dtype={rate.dtype}")
        kept = x / (convert_to_tensor(1, dtype=x.dtype) - rate)
    if noise_shape is None:
        noise_shape = _shape(x)
    elif x.shape.rank is not None and isinstance(noise_shape, (list, tuple)):
        noise_shape = [x.shape[i] if d is None else d for i, d in enumerate(noise_shape)]
    draws = stateless_uniform(noise_shape, seed=seed, dtype=x.dtype,
                              alg="auto_select" if rng_alg is None else rng_alg)
    return where(greater_equal(draws, rate), kept, convert_to_tensor(0, dtype=x.dtype))
