"""The stateless random ops (``tf.random.stateless_*``): the values are a function of a shape-[2]
``seed`` input; and ``RngReadAndSkip``, which reads and advances a ``tf.random.Generator``'s state
to seed them."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import DtypeCheck, OpDef, define_op, register
from ...tensor import TensorSpec
from .._base import FLOAT, INDEX, check_dtypes
from . import philox
from ._common import (LOGITS_DTYPES, categorical_args, check_dtype_arg, dims, infer_bounds,
                      infer_multinomial, infer_seed, infer_shape, multinomial, out, scale,
                      seed_tensor, shape_tensor, uniform_int)
from .seeds import stateless_philox
from .stateful import UNIFORM_DTYPES

_STATELESS_DTYPES = UNIFORM_DTYPES + (D.uint32, D.uint64)
_MASK64 = (1 << 64) - 1
_SKIP_PER_VALUE = 256  # TF reserves 256 counter values for every value drawn


def _seeded(name, index=1):
    """The eager check of a stateless op's int32/int64 ``seed`` input (TF's attr ``Tseed``)."""
    return DtypeCheck(name, INDEX, 1, first=index, attr="Tseed")


def _float_op(name, sampler, doc):
    """Register a stateless op drawing floats of ``dtype`` from ``sampler(gen, dims, np_dtype)``
    with a generator determined by ``seed``."""

    def infer(shape, seed, *, dtype):
        infer_seed(seed, name)
        return TensorSpec(infer_shape(shape, name), dtype)

    def kernel(shape, seed, *, dtype):
        return out(sampler(stateless_philox(seed), dims(shape), dtype._np))

    return register(OpDef(name, infer, kernel, doc=doc,
                          check=DtypeCheck(name, INDEX, 1, then=_seeded(name))))


StatelessRandomUniform = _float_op("StatelessRandomUniform", philox.uniform,
                                   "Uniform [0, 1) floats determined by ``seed``.")
StatelessRandomNormal = _float_op("StatelessRandomNormal", philox.normal,
                                  "Standard normal floats determined by ``seed``.")
StatelessTruncatedNormal = _float_op("StatelessTruncatedNormal", philox.truncated_normal,
                                     "Truncated standard normal floats from ``seed``.")


@define_op("StatelessRandomUniformInt")
class StatelessRandomUniformInt:
    """Uniform integers in [minval, maxval) determined by ``seed``."""

    check = DtypeCheck("StatelessRandomUniformInt", INDEX, 1,
                       then=_seeded("StatelessRandomUniformInt"))

    def infer(shape, seed, minval, maxval, *, dtype):
        infer_seed(seed, "StatelessRandomUniformInt")
        infer_bounds(minval, maxval, "StatelessRandomUniformInt")
        return TensorSpec(infer_shape(shape, "StatelessRandomUniformInt"), dtype)

    def kernel(shape, seed, minval, maxval, *, dtype):
        found = dims(shape)
        return out(uniform_int(stateless_philox(seed), found, minval, maxval))


@define_op("StatelessRandomUniformFullInt")
class StatelessRandomUniformFullInt:
    """Integers over the whole range of ``dtype``, determined by ``seed``."""

    check = DtypeCheck("StatelessRandomUniformFullInt", INDEX, 1,
                       then=_seeded("StatelessRandomUniformFullInt"))

    def infer(shape, seed, *, dtype):
        infer_seed(seed, "StatelessRandomUniformFullInt")
        return TensorSpec(infer_shape(shape, "StatelessRandomUniformFullInt"), dtype)

    def kernel(shape, seed, *, dtype):
        found = dims(shape)
        return out(philox.full_int(stateless_philox(seed), found, dtype._np))


@tf_export("random.stateless_uniform")
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=D.float32, name=None,
                      alg="auto_select"):
    """Uniform values determined by ``seed`` (shape [2]): the same seed, the same values.

    Integer dtypes take both ``minval`` and ``maxval``, or neither for the full range.
    """
    dtype = D.as_dtype(dtype)
    check_dtype_arg(dtype, _STATELESS_DTYPES)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype}, argument `minval` and "
                             f"`maxval` must be both None or not None. Got `minval`={minval} and "
                             f"`maxval`={maxval}.")
        if minval is not None and dtype in (D.uint32, D.uint64):
            raise ValueError(f"Argument `dtype` got invalid value {dtype} when argument `minval` "
                             "is not None. Please don't use unsigned integers in this case.")
    elif maxval is None:
        maxval = 1
    shape, seed = shape_tensor(shape), seed_tensor(seed)
    if dtype.is_integer and minval is None:
        return bind(StatelessRandomUniformFullInt, shape, seed, dtype=dtype)
    minval = convert_to_tensor(minval, dtype)
    maxval = convert_to_tensor(maxval, dtype)
    if dtype.is_integer:
        return bind(StatelessRandomUniformInt, shape, seed, minval, maxval, dtype=dtype)
    rnd = bind(StatelessRandomUniform, shape, seed, dtype=dtype)
    return scale(rnd, maxval - minval, minval)


def _scaled_normal(op, shape, seed, mean, stddev, dtype):
    """``op``'s standard normal draws determined by ``seed``, times ``stddev`` plus ``mean``."""
    dtype = D.as_dtype(dtype)
    shape, seed = shape_tensor(shape), seed_tensor(seed)
    mean, stddev = convert_to_tensor(mean, dtype), convert_to_tensor(stddev, dtype)
    return scale(bind(op, shape, seed, dtype=dtype), stddev, mean)


@tf_export("random.stateless_normal")
def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=D.float32, name=None,
                     alg="auto_select"):
    """Normal values determined by ``seed`` (shape [2])."""
    return _scaled_normal(StatelessRandomNormal, shape, seed, mean, stddev, dtype)


@tf_export("random.stateless_truncated_normal")
def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=D.float32, name=None,
                               alg="auto_select"):
    """Truncated normal values determined by ``seed`` (shape [2])."""
    return _scaled_normal(StatelessTruncatedNormal, shape, seed, mean, stddev, dtype)


@define_op("StatelessMultinomial")
class StatelessMultinomial:
    """``num_samples`` class indices per row of ``logits``, determined by ``seed``."""

    check = DtypeCheck("StatelessMultinomial", LOGITS_DTYPES, 1, kernels=FLOAT,
                       then=DtypeCheck("StatelessMultinomial", same=1, fixed={1: D.int32},
                                       then=_seeded("StatelessMultinomial", 2)))

    def infer(logits, num_samples, seed, *, output_dtype):
        infer_seed(seed, "StatelessMultinomial")
        return TensorSpec(infer_multinomial(logits, num_samples, "StatelessMultinomial"),
                          output_dtype)

    def kernel(logits, num_samples, seed, *, output_dtype):
        return multinomial(stateless_philox(seed).numpy_generator(), logits, num_samples,
                           output_dtype._np)


@tf_export("random.stateless_categorical")
def stateless_categorical(logits, num_samples, seed, dtype=D.int64, name=None):
    """Class indices drawn from ``logits``, determined by ``seed`` (shape [2])."""
    logits, num_samples, dtype = categorical_args(logits, num_samples, dtype)
    return bind(StatelessMultinomial, logits, num_samples, seed_tensor(seed), output_dtype=dtype)


# --- a tf.random.Generator's state ----------------------------------------------------------------
def state_size(alg):
    """How many int64 words a generator's state has under algorithm ``alg`` (1, 2 or 3)."""
    if alg not in (1, 2, 3):
        raise ValueError(unsupported_algorithm(alg))
    return 2 if alg == 2 else 3


def unsupported_algorithm(alg, names=(1, 2, 3)):
    """TF's message for an ``alg`` it does not know; ``names`` spell the three it does."""
    return (f"Argument `alg` got unsupported value {alg}. Supported values are {names[0]} for "
            f"the Philox algorithm, {names[1]} for the ThreeFry algorithm, and {names[2]} for "
            "auto-selection.")


@define_op("RngReadAndSkip", stateful=True)
class RngReadAndSkip:
    """The state of the generator variable ``resource`` (padded to 3 words), after which its
    counter moves on by ``256 * delta``."""

    def infer(resource, alg, delta):
        return TensorSpec([3], D.int64)

    def kernel(resource, alg, delta):
        with resource._lock:  # read and skip as one update: no two draws share a counter
            state = resource._array
            size = state_size(int(alg))
            if state is None or state.shape != (size,) or state.dtype != np.int64:
                raise invalid_argument(f"The size of the state must be {size}; got "
                                       f"{None if state is None else state.size}")
            words = [int(w) & _MASK64 for w in state]
            counter = words[0] + (words[1] << 64 if size == 3 else 0)
            counter += _SKIP_PER_VALUE * int(delta)
            new = [counter & _MASK64] + ([(counter >> 64) & _MASK64] if size == 3 else [])
            resource._array = np.array(new + words[-1:], np.uint64).astype(np.int64)
            return np.concatenate([state, np.zeros(3 - size, np.int64)])


# --- the V2 ops: an explicit Philox key and counter (tf.random.Generator's draws) ----------------
_PHILOX, _AUTO_SELECT = 1, 3


def _v2_philox(key, counter, alg):
    """The Philox position of a V2 op's inputs, with TF's CPU kernel checks."""
    alg = int(np.asarray(alg))
    if alg not in (_PHILOX, _AUTO_SELECT):  # ThreeFry has no CPU kernel in TF
        raise invalid_argument(f"Unsupported algorithm id: {alg}")
    key, counter = np.asarray(key).ravel(), np.asarray(counter).ravel()
    if key.size != 1:
        raise invalid_argument(f"key must have shape [1], not [{key.size}]. (Note that "
                               "batched keys are not supported yet.)")
    if counter.size < 2:
        raise invalid_argument(f"The size of the counter must be at least 2; got {counter.size}")
    return philox.Philox.from_key_counter(int(key[0]), counter)


def _check_v2(key, counter, alg, name):
    check_dtypes(name, (key, counter), (D.uint64,), names=("key", "counter"))
    check_dtypes(name, (alg,), (D.int32,), names=("alg",))


def _float_op_v2(name, sampler, doc):
    def infer(shape, key, counter, alg, *, dtype):
        _check_v2(key, counter, alg, name)
        return TensorSpec(infer_shape(shape, name), dtype)

    def kernel(shape, key, counter, alg, *, dtype):
        return out(sampler(_v2_philox(key, counter, alg), dims(shape), dtype._np))

    return register(OpDef(name, infer, kernel, doc=doc))


StatelessRandomUniformV2 = _float_op_v2("StatelessRandomUniformV2", philox.uniform,
                                        "Uniform [0, 1) floats from a Philox key and counter.")
StatelessRandomNormalV2 = _float_op_v2("StatelessRandomNormalV2", philox.normal,
                                       "Standard normal floats from a Philox key and counter.")
StatelessTruncatedNormalV2 = _float_op_v2("StatelessTruncatedNormalV2", philox.truncated_normal,
                                          "Truncated standard normals from a key and counter.")


@define_op("StatelessRandomUniformIntV2")
class StatelessRandomUniformIntV2:
    """Uniform integers in [minval, maxval) from a Philox key and counter."""

    def infer(shape, key, counter, alg, minval, maxval):
        _check_v2(key, counter, alg, "StatelessRandomUniformIntV2")
        infer_bounds(minval, maxval, "StatelessRandomUniformIntV2")
        return TensorSpec(infer_shape(shape, "StatelessRandomUniformIntV2"), minval.dtype)

    def kernel(shape, key, counter, alg, minval, maxval):
        return out(uniform_int(_v2_philox(key, counter, alg), dims(shape), minval, maxval))


@define_op("StatelessRandomUniformFullIntV2")
class StatelessRandomUniformFullIntV2:
    """Integers over the whole range of ``dtype`` from a Philox key and counter."""

    def infer(shape, key, counter, alg, *, dtype):
        _check_v2(key, counter, alg, "StatelessRandomUniformFullIntV2")
        return TensorSpec(infer_shape(shape, "StatelessRandomUniformFullIntV2"), dtype)

    def kernel(shape, key, counter, alg, *, dtype):
        return out(philox.full_int(_v2_philox(key, counter, alg), dims(shape), dtype._np))


@define_op("StatelessRandomGetKeyCounter")
class StatelessRandomGetKeyCounter:
    """The Philox key ([1] uint64) and counter ([2] uint64) a shape-[2] seed stands for."""

    check = _seeded("StatelessRandomGetKeyCounter", 0)

    def infer(seed):
        infer_seed(seed, "StatelessRandomGetKeyCounter")
        return TensorSpec([1], D.uint64), TensorSpec([2], D.uint64)

    def kernel(seed):
        gen = stateless_philox(seed)
        counter = [gen.counter & philox.MASK64, gen.counter >> 64]
        return np.array([gen.key], np.uint64), np.array(counter, np.uint64)


def stateless_v2(op, shape, key, counter, alg, dtype=None, minval=None, maxval=None):
    """Draw with V2 op ``op`` (a record above) from ``key``/``counter`` tensors."""
    alg = convert_to_tensor(alg, D.int32)
    if minval is not None:
        return bind(op, shape, key, counter, alg, minval, maxval)
    return bind(op, shape, key, counter, alg, dtype=dtype)
