"""The stateful random ops (``tf.random.uniform``, ``normal``, ``categorical``, ``gamma`` ...):
each op walks its own Philox stream of the seeds module, one call after another. Uniform, normal,
truncated normal and integer values are TF's; categorical, shuffle, gamma and Poisson draw with
NumPy from the op's Philox position (deterministic in the seeds, not TF's numbers)."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...messages import attr_dtype_error
from ...registry import DtypeCheck, OpDef, define_op, register
from ...tensor import TensorSpec
from .._base import FLOAT, INDEX, check_dtypes, kernel_out_type
from ..array.broadcasting import broadcast_dynamic_shape, broadcast_to
from ..array.shapes import shape as shape_of
from ..math.arithmetic import maximum
from . import philox
from ._common import (LOGITS_DTYPES, categorical_args, check_dtype_arg, count, dims, infer_bounds,
                      infer_multinomial, infer_shape, multinomial, out, scale, shape_tensor,
                      uniform_int)
from .seeds import seed_attrs, stream_draw

_BF16 = (D.bfloat16,) if D.bfloat16 else ()
UNIFORM_DTYPES = (D.float16,) + _BF16 + (D.float32, D.float64, D.int32, D.int64)
_GAMMA_DTYPES = (D.float16, D.float32, D.float64)
_POISSON_DTYPES = (D.float16, D.float32, D.float64, D.int32, D.int64)


def _float_op(name, sampler, doc):
    """Register a stateful op drawing floats of ``dtype`` with ``sampler(philox, dims, np_dtype)``
    from the stream its seed attrs name."""

    def infer(shape, *, dtype, seed, seed2, _stream=0):
        return TensorSpec(infer_shape(shape, name), dtype)

    def kernel(shape, *, dtype, seed, seed2, _stream=0):
        kernel_out_type(dtype, FLOAT, "dtype")
        found = dims(shape)
        gen = stream_draw((name, dtype.name), seed, seed2, _stream, count(found))
        return out(sampler(gen, found, dtype._np))

    return register(OpDef(name, infer, kernel, stateful=True, check=DtypeCheck(name, INDEX, 1),
                          doc=doc))


RandomUniform = _float_op("RandomUniform", philox.uniform, "Uniform [0, 1) floats of ``dtype``.")
RandomStandardNormal = _float_op("RandomStandardNormal", philox.normal,
                                 "Standard normal floats of ``dtype``.")
TruncatedNormal = _float_op("TruncatedNormal", philox.truncated_normal,
                            "Standard normal floats redrawn until within 2 standard deviations.")


@define_op("RandomUniformInt", stateful=True)
class RandomUniformInt:
    """Uniform integers in [minval, maxval) of minval's dtype."""

    check = DtypeCheck("RandomUniformInt", INDEX, 1)

    def infer(shape, minval, maxval, *, seed, seed2, _stream=0):
        infer_bounds(minval, maxval, "RandomUniformInt")
        return TensorSpec(infer_shape(shape, "RandomUniformInt"), minval.dtype)

    def kernel(shape, minval, maxval, *, seed, seed2, _stream=0):
        found = dims(shape)
        gen = stream_draw(("RandomUniformInt", np.asarray(minval).dtype.name), seed, seed2,
                          _stream, count(found))
        return out(uniform_int(gen, found, minval, maxval))


@tf_export("random.uniform")
def uniform(shape, minval=0, maxval=None, dtype=D.float32, seed=None, name=None):
    """Uniform values in [minval, maxval): floats (maxval defaults to 1) or ints (maxval needed).

    Raises:
        ValueError: for an unsupported dtype, or an integer dtype without maxval.
    """
    dtype = D.as_dtype(dtype)
    check_dtype_arg(dtype, UNIFORM_DTYPES)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    shape = shape_tensor(shape)
    minval_is_zero = type(minval) is int and minval == 0
    maxval_is_one = type(maxval) is int and maxval == 1
    if not minval_is_zero or not maxval_is_one or dtype.is_integer:
        minval = convert_to_tensor(minval, dtype)
        maxval = convert_to_tensor(maxval, dtype)
    attrs = seed_attrs(seed)
    if dtype.is_integer:
        return bind(RandomUniformInt, shape, minval, maxval, **attrs)
    rnd = bind(RandomUniform, shape, dtype=dtype, **attrs)
    if minval_is_zero:
        return rnd if maxval_is_one else rnd * maxval
    return scale(rnd, maxval - minval, minval)


def _normal_args(shape, mean, stddev, dtype):
    """``(shape tensor, mean, stddev, dtype)`` of a normal-style function, converted in TF's
    order."""
    dtype = D.as_dtype(dtype)
    return shape_tensor(shape), convert_to_tensor(mean, dtype), convert_to_tensor(stddev, dtype), \
        dtype


@tf_export("random.normal")
def normal(shape, mean=0.0, stddev=1.0, dtype=D.float32, seed=None, name=None):
    """Normal values with ``mean`` and ``stddev`` (broadcast against ``shape``)."""
    shape, mean, stddev, dtype = _normal_args(shape, mean, stddev, dtype)
    return scale(bind(RandomStandardNormal, shape, dtype=dtype, **seed_attrs(seed)), stddev, mean)


@tf_export("random.truncated_normal")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=D.float32, seed=None, name=None):
    """Normal values redrawn until within 2 standard deviations of ``mean``."""
    shape, mean, stddev, dtype = _normal_args(shape, mean, stddev, dtype)
    return scale(bind(TruncatedNormal, shape, dtype=dtype, **seed_attrs(seed)), stddev, mean)


# --- categorical, shuffle -----------------------------------------------------------------------
@define_op("Multinomial", stateful=True)
class Multinomial:
    """``num_samples`` class indices per row of ``logits`` [batch, classes]."""

    check = DtypeCheck("Multinomial", LOGITS_DTYPES, 1, kernels=FLOAT,
                       then=DtypeCheck("Multinomial", same=1, fixed={1: D.int32}))

    def infer(logits, num_samples, *, output_dtype, seed, seed2, _stream=0):
        return TensorSpec(infer_multinomial(logits, num_samples, "Multinomial"), output_dtype)

    def kernel(logits, num_samples, *, output_dtype, seed, seed2, _stream=0):
        lg = np.asarray(logits)
        gen = stream_draw(("Multinomial", lg.dtype.name, output_dtype.name), seed, seed2, _stream,
                          lg.shape[0] * int(np.asarray(num_samples)) if lg.ndim == 2 else 0)
        return multinomial(gen.numpy_generator(), logits, num_samples, output_dtype._np)


@tf_export("random.categorical")
def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Class indices [batch, num_samples] drawn from ``logits`` [batch, classes]."""
    logits, num_samples, dtype = categorical_args(logits, num_samples, dtype)
    return bind(Multinomial, logits, num_samples, output_dtype=dtype, **seed_attrs(seed))


@define_op("RandomShuffle", stateful=True)
class RandomShuffle:
    """A random permutation of ``value`` along its first dimension."""

    def infer(value, *, seed, seed2, _stream=0):
        return TensorSpec(value.shape, value.dtype)

    def kernel(value, *, seed, seed2, _stream=0):
        v = np.asarray(value)
        if v.ndim == 0 or len(v) <= 1:
            return value
        gen = stream_draw(("RandomShuffle", v.dtype.name), seed, seed2, _stream, len(v))
        return v[gen.numpy_generator().permutation(len(v))]


@tf_export("random.shuffle")
def shuffle(value, seed=None, name=None):
    """``value`` randomly permuted along its first dimension."""
    value = convert_to_tensor(value)
    return bind(RandomShuffle, value, **seed_attrs(seed))


# --- gamma, poisson: one draw per parameter value -----------------------------------------------
def _param_shape(shape, param, op_name):
    """``shape + param.shape``: the samples for each parameter value stack on the right."""
    return infer_shape(shape, op_name).concatenate(param.shape)


@define_op("RandomGamma", stateful=True)
class RandomGamma:
    """Gamma(alpha, 1) samples: ``shape + alpha.shape``.

    TF differentiates samples with respect to alpha (implicit reparameterisation,
    RandomGammaGrad); tensortrace does not yet, so no gradient flows to alpha."""

    check = DtypeCheck("RandomGamma", _GAMMA_DTYPES, 1, first=1)

    def infer(shape, alpha, *, seed, seed2, _stream=0):
        check_dtypes("RandomGamma", (alpha,), _GAMMA_DTYPES, names=("alpha",))
        return TensorSpec(_param_shape(shape, alpha, "RandomGamma"), alpha.dtype)

    def kernel(shape, alpha, *, seed, seed2, _stream=0):
        a = np.broadcast_to(np.asarray(alpha, np.float64), dims(shape) + np.shape(alpha))
        gen = stream_draw(("RandomGamma", alpha.dtype.name), seed, seed2, _stream, a.size)
        return out(gen.numpy_generator().standard_gamma(a).astype(alpha.dtype))


@tf_export("random.gamma")
def gamma(shape, alpha, beta=None, dtype=D.float32, seed=None, name=None):
    """Gamma(alpha, beta) samples of shape ``shape + broadcast(alpha, beta).shape``."""
    dtype = D.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"data type {dtype._np.type} not inexact")
    alpha = convert_to_tensor(alpha, dtype)
    beta = convert_to_tensor(1 if beta is None else beta, dtype)
    alpha = broadcast_to(alpha, broadcast_dynamic_shape(shape_of(alpha), shape_of(beta)))
    sample = bind(RandomGamma, shape_tensor(shape), alpha, **seed_attrs(seed))
    return maximum(np.finfo(dtype._np).tiny.astype(dtype._np), sample / beta)


@define_op("RandomPoissonV2", stateful=True)
class RandomPoissonV2:
    """Poisson(rate) counts of ``dtype``: ``shape + rate.shape``."""

    check = DtypeCheck("RandomPoissonV2", _POISSON_DTYPES, 1, first=1, attr="R")

    def infer(shape, rate, *, dtype, seed, seed2, _stream=0):
        check_dtypes("RandomPoissonV2", (rate,), _POISSON_DTYPES, names=("rate",))
        return TensorSpec(_param_shape(shape, rate, "RandomPoissonV2"), dtype)

    def kernel(shape, rate, *, dtype, seed, seed2, _stream=0):
        lam = np.broadcast_to(np.asarray(rate, np.float64), dims(shape) + np.shape(rate))
        gen = stream_draw(("RandomPoissonV2", dtype.name), seed, seed2, _stream, lam.size)
        return out(gen.numpy_generator().poisson(lam).astype(dtype._np))


@tf_export("random.poisson")
def poisson(shape, lam, dtype=D.float32, seed=None, name=None):
    """Poisson(lam) samples of ``dtype``, shape ``shape + lam.shape``."""
    dtype = D.as_dtype(dtype)
    if dtype not in _POISSON_DTYPES:
        raise attr_dtype_error("RandomPoissonV2", "dtype", dtype, _POISSON_DTYPES)
    return bind(RandomPoissonV2, shape_tensor(shape), convert_to_tensor(lam), dtype=dtype,
                **seed_attrs(seed))
