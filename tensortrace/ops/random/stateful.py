"""Random ops (``tf.random.*``): TF's global/op seed semantics over NumPy's Philox generator.

Values are NumPy's, not TF's Philox numbers; what matches TF is the contract: the same seeds give
the same sequence run to run and after ``set_seed``, different op seeds give different streams,
and a stateful op walks its stream one call after another (also inside a traced function).

How a stateful kernel finds its stream: its attrs ``seed``/``seed2`` (plain ints, as in TF) and
``_stream`` name it. ``_stream`` plays the part of TF's kernel instance: 0 is the eager kernel
cache (every eager call with the same attrs shares one stream), -1 an eager op whose op seed was
drawn from the global seed's counter (used once, so not kept), and a positive id one graph op (each
op of a traced function owns its stream, as each TF graph op owns its kernel). ``set_seed`` drops
every stream, as TF clears its kernel caches.
"""

import itertools
import random as _pyrandom
import weakref

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind, state
from ...convert import convert_to_tensor
from ...errors import NotFoundError, invalid_argument
from ...registry import NON_DIFFERENTIABLE, OpDef, define_op, register
from ...shapes import TensorShape
from ...tensor import Tensor, TensorSpec, static_value
from .._base import FLOAT, check_dtypes
from ...messages import c_name
from ..array import stack
from ..math import add

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_MASK64 = 2**64 - 1
_SHAPE_DTYPES = (D.int32, D.int64)
_SEED_DTYPES = (D.int32, D.int64)
_BF16 = (D.bfloat16,) if D.bfloat16 else ()
_UNIFORM_DTYPES = (D.float16,) + _BF16 + (D.float32, D.float64, D.int32, D.int64)
_STATELESS_DTYPES = _UNIFORM_DTYPES + (D.uint32, D.uint64)


# --- seeds ---------------------------------------------------------------------------------------
class _Seeds:
    """The global seed and the generator of eager op seeds (TF's ``context._rng``)."""

    seed = None
    rng = None


_GLOBAL = _Seeds()
_GRAPH_SEEDS = weakref.WeakKeyDictionary()  # graph -> [graph seed, next op seed]
_STREAM_IDS = itertools.count(1)
_STREAMS = {}  # ((op, dtypes), seed, seed2, stream) -> np.random.Generator
_ENTROPY = np.random.default_rng()  # seed == seed2 == 0: nondeterministic, as in TF


def _graph_entry(graph):
    """[seed, op counter] of a graph; a new graph takes the seed of its outer graph (or the
    global seed), as a FuncGraph does when it is created."""
    entry = _GRAPH_SEEDS.get(graph)
    if entry is None:
        outer = getattr(graph, "outer", None)
        seed = _graph_entry(outer)[0] if outer is not None else _GLOBAL.seed
        entry = _GRAPH_SEEDS[graph] = [seed, 0]
    return entry


def _truncate(seed):
    return int(seed) % _MAXINT32


def get_seed(op_seed):
    """TF's ``random_seed.get_seed``: the (global, op) seed pair an op should use.

    Returns ``(None, None)`` when neither seed is set (the op is then nondeterministic).
    """
    graph = state.graph
    entry = None if graph is None else _graph_entry(graph)
    global_seed = _GLOBAL.seed if entry is None else entry[0]
    if global_seed is not None:
        if op_seed is None:
            if entry is None:
                op_seed = _GLOBAL.rng.randint(0, _MAXINT32)
            else:
                op_seed = entry[1]
                entry[1] += 1
        seeds = _truncate(global_seed), _truncate(op_seed)
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, _truncate(op_seed)
    else:
        return None, None
    # (0, 0) means "nondeterministic" to the kernels; TF avoids it the same way.
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def _seed_attrs(op_seed):
    """The ``seed``/``seed2``/``_stream`` attrs of a stateful op created now."""
    seed, seed2 = get_seed(op_seed)
    if seed is None:
        return {"seed": 0, "seed2": 0}
    if state.graph is not None:
        return {"seed": seed, "seed2": seed2, "_stream": next(_STREAM_IDS)}
    if op_seed is None:  # a fresh op seed from the global counter: a one-shot stream
        return {"seed": seed, "seed2": seed2, "_stream": -1}
    return {"seed": seed, "seed2": seed2}


@tf_export("random.set_seed")
def set_seed(seed):
    """Set the global random seed; restarts every stateful random op's sequence.

    Inside a function being traced, sets the seed of that function's graph only.
    """
    if state.graph is not None:
        _graph_entry(state.graph)[0] = seed
        return
    _GLOBAL.seed = seed
    try:
        _GLOBAL.rng = _pyrandom.Random(seed)
    except TypeError:
        _GLOBAL.rng = _pyrandom.Random(int(np.array(seed)))
    _STREAMS.clear()


def _generator(kind, seed, seed2, stream):
    """The generator a stateful kernel draws from (see the module docstring)."""
    if seed == 0 and seed2 == 0:
        return _ENTROPY
    if stream == -1:
        return np.random.Generator(np.random.Philox(key=(seed << 32) | seed2))
    key = (kind, seed, seed2, stream)
    gen = _STREAMS.get(key)
    if gen is None:
        gen = _STREAMS[key] = np.random.Generator(np.random.Philox(key=(seed << 32) | seed2))
    return gen


def _stateless_generator(seed):
    """A fresh generator determined by a shape-[2] seed (the stateless ops)."""
    s = np.asarray(seed)
    if s.shape != (2,):
        raise invalid_argument(f"seed must have shape [2], not {_fmt(s.shape)}")
    key = ((int(s[0]) & _MASK64) << 64) | (int(s[1]) & _MASK64)
    return np.random.Generator(np.random.Philox(key=key))


# --- shared kernel pieces ------------------------------------------------------------------------
def _fmt(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _out(a):
    """0-d results as NumPy scalars, like the other kernels."""
    return a[()] if a.ndim == 0 else a


def _dims(shape):
    """The output shape from a shape tensor's value, with TF's runtime checks."""
    s = np.asarray(shape)
    if s.ndim != 1:
        raise invalid_argument("shape must be a vector of {int32,int64}, got shape "
                               + _fmt(s.shape))
    dims = tuple(s.tolist())
    for d in dims:
        if d < 0:
            raise invalid_argument(f"Dimension {d} must be >= 0")
    return dims


def _uniform01(gen, dims, np_dtype):
    """Uniform [0, 1) of ``np_dtype``; half types use exact k / 2**mantissa so 1.0 never occurs."""
    if np_dtype == np.float32 or np_dtype == np.float64:
        return gen.random(dims, dtype=np_dtype)
    bits = 7 if np_dtype == getattr(D.bfloat16, "_np", None) else np.finfo(np_dtype).nmant
    return (gen.integers(0, 1 << bits, dims) * (1.0 / (1 << bits))).astype(np_dtype)


def _normal(gen, dims, np_dtype):
    if np_dtype == np.float32 or np_dtype == np.float64:
        return gen.standard_normal(dims, dtype=np_dtype)
    return gen.standard_normal(dims, dtype=np.float32).astype(np_dtype)


def _truncated(gen, dims, np_dtype):
    """Standard normal, redrawing every value more than 2 standard deviations out."""
    x = _normal(gen, dims, np_dtype)
    bad = np.abs(x) > 2
    while bad.any():
        x[bad] = _normal(gen, (int(bad.sum()),), np_dtype)
        bad = np.abs(x) > 2
    return x


def _uniform_int(gen, dims, minval, maxval):
    lo, hi = np.asarray(minval), np.asarray(maxval)
    if lo.ndim:
        raise invalid_argument(f"minval must be 0-D, got shape {_fmt(lo.shape)}")
    if hi.ndim:
        raise invalid_argument(f"maxval must be 0-D, got shape {_fmt(hi.shape)}")
    if 0 in dims:
        return np.zeros(dims, lo.dtype)
    if lo >= hi:
        raise invalid_argument(f"Need minval < maxval, got {lo} >= {hi}")
    return gen.integers(lo, hi, dims, dtype=lo.dtype)


def _full_int(gen, dims, np_dtype):
    info = np.iinfo(np_dtype)
    return gen.integers(info.min, info.max, dims, dtype=np_dtype, endpoint=True)


def _check_float_attr(dtype, attr="dtype"):
    if dtype not in FLOAT:
        allowed = ", ".join(c_name(d) for d in FLOAT)
        raise invalid_argument(f"Value for attr '{attr}' of {c_name(dtype)} is not in the list "
                               f"of allowed values: {allowed}")


def _multinomial(gen, logits, num_samples, np_out):
    """TF's CPU sampler: non-finite logits get no mass; a row with no mass gives num_classes."""
    lg = np.asarray(logits)
    n = np.asarray(num_samples)
    if lg.ndim != 2:
        raise invalid_argument(f"logits should be a matrix, got shape {_fmt(lg.shape)}")
    if n.ndim:
        raise invalid_argument("num_samples should be a scalar.")
    n = int(n)
    if n < 0:
        raise invalid_argument(f"num_samples should be non-negative, got {n}")
    batch, classes = lg.shape
    if classes == 0:
        raise invalid_argument(f"num_classes should be positive, got {classes}")
    if batch == 0 or n == 0:
        return np.zeros((batch, n), np_out)
    lg = lg.astype(np.float64)
    finite = np.isfinite(lg)
    with np.errstate(all="ignore"):
        top = np.max(np.where(finite, lg, -np.inf), axis=1, keepdims=True)
        cdf = np.cumsum(np.where(finite, np.exp(lg - top), 0.0), axis=1)
        total = cdf[:, -1:]
        p = np.where(total > 0, cdf / total, 0.0)
    p[:, -1] = np.where(total[:, 0] > 0, 1.0, 0.0)
    # One searchsorted for every row: row r lives in [2r, 2r + 1], so rows cannot interleave.
    rows = np.arange(batch)[:, None]
    u = gen.random((batch, n))
    idx = np.searchsorted((p + 2.0 * rows).ravel(), (u + 2.0 * rows).ravel(), side="right")
    return (idx.reshape(batch, n) - rows * classes).astype(np_out)


# --- shape rules ---------------------------------------------------------------------------------
def _infer_shape(shape, op_name):
    """The static output shape from a shape tensor (unknown dims where its value is unknown)."""
    check_dtypes(op_name, (shape,), _SHAPE_DTYPES, names=("shape",))
    rank = shape.shape.rank
    if rank is not None and rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {rank} for '{{{{node {op_name}}}}} = "
                         f"{op_name}(shape)' with input shapes: {_fmt(shape.shape.dims)}.")
    from ..array import shape_values

    # the known entries of a partly known shape (tf.shape(x), [tf.shape(x)[0], 3]) are kept
    values = shape_values(shape) if rank in (None, 1) else None
    if values is None:
        return TensorShape(None)
    return TensorShape([None if v is None or v < 0 else int(v) for v in values])


def _infer_scalar_bound(t, name, op_name):
    if t.shape.rank not in (None, 0):
        raise ValueError(f"{name} must be a scalar; got a tensor of shape {_fmt(t.shape.dims)} "
                         f"for '{{{{node {op_name}}}}}'")


def _infer_seed(seed, op_name):
    check_dtypes(op_name, (seed,), _SEED_DTYPES, names=("seed",))
    dims = seed.shape.dims
    if dims is not None and len(dims) != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {len(dims)} for '{{{{node "
                         f"{op_name}}}}}' with input shapes: {_fmt(dims)}.")
    if dims is not None and dims[0] not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {dims[0]} for '{{{{node {op_name}}}}}' "
                         f"with input shapes: {_fmt(dims)}.")


def _infer_multinomial(logits, num_samples, op_name):
    check_dtypes(op_name, (logits,), FLOAT, names=("logits",))
    check_dtypes(op_name, (num_samples,), (D.int32,), names=("num_samples",))
    dims = logits.shape.dims
    if dims is not None and len(dims) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(dims)} for '{{{{node "
                         f"{op_name}}}}}' with input shapes: {_fmt(dims)}.")
    n = static_value(num_samples)
    n = None if n is None or int(n) < 0 else int(n)  # a negative count fails when run
    return TensorShape([None if dims is None else dims[0], n])


# --- eager dtype checks --------------------------------------------------------------------------
_FLOAT_NP = frozenset(d._np for d in FLOAT)


def _check_input(op_name, index, allowed, attr):
    """An eager check that input ``index`` has a dtype in ``allowed`` (TF's attr message)."""
    allowed_np = frozenset(d._np for d in allowed)
    text = ", ".join(c_name(d) for d in allowed)

    def check(arrays):
        dt = arrays[index].dtype
        if dt not in allowed_np:
            raise invalid_argument(f"Value for attr '{attr}' of {c_name(D.from_numpy(dt))} is not "
                                   f"in the list of allowed values: {text}", op_name)

    return check


def _shape_check(op_name, seed_index=None):
    """Eager checks of a shape input (and a seed input) of a random op."""
    shape_check = _check_input(op_name, 0, _SHAPE_DTYPES, "T")
    if seed_index is None:
        return shape_check
    seed_check = _check_input(op_name, seed_index, _SEED_DTYPES, "Tseed")

    def check(arrays):
        shape_check(arrays)
        seed_check(arrays)

    return check


def _multinomial_check(op_name, seed_index=None):
    seed_check = None if seed_index is None else _check_input(op_name, seed_index, _SEED_DTYPES,
                                                              "Tseed")

    def check(arrays):
        dt = arrays[0].dtype
        if dt not in _FLOAT_NP:
            node = f"{op_name}[T=DT_{D.from_numpy(dt).name.upper()}]"
            raise NotFoundError(None, None, f"Could not find device for node: {{{{node "
                                            f"{op_name}}}}} = {node}")
        if arrays[1].dtype != np.int32:
            raise invalid_argument(
                f"cannot compute {op_name} as input #1(zero-based) was expected to be a int32 "
                f"tensor but is a {c_name(D.from_numpy(arrays[1].dtype))} tensor", op_name)
        if seed_check is not None:
            seed_check(arrays)

    return check


# --- stateful ops --------------------------------------------------------------------------------
@define_op("RandomUniform", stateful=True)
class RandomUniform:
    """Uniform [0, 1) floats of ``dtype``."""

    grad = NON_DIFFERENTIABLE
    check = _shape_check("RandomUniform")

    def infer(shape, *, dtype, seed, seed2, _stream=0):
        return TensorSpec(_infer_shape(shape, "RandomUniform"), dtype)

    def kernel(shape, *, dtype, seed, seed2, _stream=0):
        _check_float_attr(dtype)
        gen = _generator(("RandomUniform", dtype.name), seed, seed2, _stream)
        return _out(_uniform01(gen, _dims(shape), dtype._np))


@define_op("RandomUniformInt", stateful=True)
class RandomUniformInt:
    """Uniform integers in [minval, maxval) of minval's dtype."""

    grad = NON_DIFFERENTIABLE
    check = _shape_check("RandomUniformInt")

    def infer(shape, minval, maxval, *, seed, seed2, _stream=0):
        check_dtypes("RandomUniformInt", (minval, maxval), (D.int32, D.int64),
                     names=("minval", "maxval"))
        _infer_scalar_bound(minval, "minval", "RandomUniformInt")
        _infer_scalar_bound(maxval, "maxval", "RandomUniformInt")
        return TensorSpec(_infer_shape(shape, "RandomUniformInt"), minval.dtype)

    def kernel(shape, minval, maxval, *, seed, seed2, _stream=0):
        dims = _dims(shape)
        gen = _generator(("RandomUniformInt", np.asarray(minval).dtype.name), seed, seed2,
                         _stream)
        return _out(_uniform_int(gen, dims, minval, maxval))


@define_op("RandomStandardNormal", stateful=True)
class RandomStandardNormal:
    """Standard normal floats of ``dtype``."""

    grad = NON_DIFFERENTIABLE
    check = _shape_check("RandomStandardNormal")

    def infer(shape, *, dtype, seed, seed2, _stream=0):
        return TensorSpec(_infer_shape(shape, "RandomStandardNormal"), dtype)

    def kernel(shape, *, dtype, seed, seed2, _stream=0):
        _check_float_attr(dtype)
        gen = _generator(("RandomStandardNormal", dtype.name), seed, seed2, _stream)
        return _out(_normal(gen, _dims(shape), dtype._np))


@define_op("TruncatedNormal", stateful=True)
class TruncatedNormal:
    """Standard normal floats redrawn until within 2 standard deviations."""

    grad = NON_DIFFERENTIABLE
    check = _shape_check("TruncatedNormal")

    def infer(shape, *, dtype, seed, seed2, _stream=0):
        return TensorSpec(_infer_shape(shape, "TruncatedNormal"), dtype)

    def kernel(shape, *, dtype, seed, seed2, _stream=0):
        _check_float_attr(dtype)
        gen = _generator(("TruncatedNormal", dtype.name), seed, seed2, _stream)
        return _out(_truncated(gen, _dims(shape), dtype._np))


@define_op("Multinomial", stateful=True)
class Multinomial:
    """``num_samples`` class indices per row of ``logits`` [batch, classes]."""

    grad = NON_DIFFERENTIABLE
    check = _multinomial_check("Multinomial")

    def infer(logits, num_samples, *, output_dtype, seed, seed2, _stream=0):
        return TensorSpec(_infer_multinomial(logits, num_samples, "Multinomial"), output_dtype)

    def kernel(logits, num_samples, *, output_dtype, seed, seed2, _stream=0):
        gen = _generator(("Multinomial", np.asarray(logits).dtype.name, output_dtype.name), seed,
                         seed2, _stream)
        return _multinomial(gen, logits, num_samples, output_dtype._np)


@define_op("RandomShuffle", stateful=True)
class RandomShuffle:
    """A random permutation of ``value`` along its first dimension."""

    grad = NON_DIFFERENTIABLE

    def infer(value, *, seed, seed2, _stream=0):
        return TensorSpec(value.shape, value.dtype)

    def kernel(value, *, seed, seed2, _stream=0):
        v = np.asarray(value)
        if v.ndim == 0 or len(v) <= 1:
            return value
        gen = _generator(("RandomShuffle", v.dtype.name), seed, seed2, _stream)
        return v[gen.permutation(len(v))]


# --- stateless ops -------------------------------------------------------------------------------
def _stateless_float(name, sampler, doc):
    """Register a stateless op drawing floats of ``dtype`` from ``sampler(gen, dims, np_dtype)``
    with a generator determined by ``seed`` (shape [2])."""

    def infer(shape, seed, *, dtype):
        _infer_seed(seed, name)
        return TensorSpec(_infer_shape(shape, name), dtype)

    def kernel(shape, seed, *, dtype):
        return _out(sampler(_stateless_generator(seed), _dims(shape), dtype._np))

    return register(OpDef(name, infer, kernel, grad=NON_DIFFERENTIABLE,
                          check=_shape_check(name, seed_index=1), doc=doc))


StatelessRandomUniform = _stateless_float("StatelessRandomUniform", _uniform01,
                                          "Uniform [0, 1) floats determined by ``seed``.")
StatelessRandomNormal = _stateless_float("StatelessRandomNormal", _normal,
                                         "Standard normal floats determined by ``seed``.")
StatelessTruncatedNormal = _stateless_float("StatelessTruncatedNormal", _truncated,
                                            "Truncated standard normal floats from ``seed``.")


@define_op("StatelessRandomUniformInt")
class StatelessRandomUniformInt:
    """Uniform integers in [minval, maxval) determined by ``seed``."""

    grad = NON_DIFFERENTIABLE
    check = _shape_check("StatelessRandomUniformInt", seed_index=1)

    def infer(shape, seed, minval, maxval, *, dtype):
        _infer_seed(seed, "StatelessRandomUniformInt")
        check_dtypes("StatelessRandomUniformInt", (minval, maxval), (D.int32, D.int64),
                     names=("minval", "maxval"))
        _infer_scalar_bound(minval, "minval", "StatelessRandomUniformInt")
        _infer_scalar_bound(maxval, "maxval", "StatelessRandomUniformInt")
        return TensorSpec(_infer_shape(shape, "StatelessRandomUniformInt"), dtype)

    def kernel(shape, seed, minval, maxval, *, dtype):
        dims = _dims(shape)
        return _out(_uniform_int(_stateless_generator(seed), dims, minval, maxval))


@define_op("StatelessRandomUniformFullInt")
class StatelessRandomUniformFullInt:
    """Integers over the whole range of ``dtype``, determined by ``seed``."""

    grad = NON_DIFFERENTIABLE
    check = _shape_check("StatelessRandomUniformFullInt", seed_index=1)

    def infer(shape, seed, *, dtype):
        _infer_seed(seed, "StatelessRandomUniformFullInt")
        return TensorSpec(_infer_shape(shape, "StatelessRandomUniformFullInt"), dtype)

    def kernel(shape, seed, *, dtype):
        dims = _dims(shape)
        return _out(_full_int(_stateless_generator(seed), dims, dtype._np))


@define_op("StatelessMultinomial")
class StatelessMultinomial:
    """``num_samples`` class indices per row of ``logits``, determined by ``seed``."""

    grad = NON_DIFFERENTIABLE

    check = _multinomial_check("StatelessMultinomial", seed_index=2)

    def infer(logits, num_samples, seed, *, output_dtype):
        _infer_seed(seed, "StatelessMultinomial")
        return TensorSpec(_infer_multinomial(logits, num_samples, "StatelessMultinomial"),
                          output_dtype)

    def kernel(logits, num_samples, seed, *, output_dtype):
        return _multinomial(_stateless_generator(seed), logits, num_samples, output_dtype._np)


_GAMMA_DTYPES = (D.float16, D.float32, D.float64)
_POISSON_DTYPES = (D.float16, D.float32, D.float64, D.int32, D.int64)


def _param_shape(shape, param, op_name):
    """``shape + param.shape``: the samples for each parameter value stack on the right."""
    return _infer_shape(shape, op_name).concatenate(param.shape)


@define_op("RandomGamma", stateful=True)
class RandomGamma:
    """Gamma(alpha, 1) samples: ``shape + alpha.shape``."""

    # TF differentiates samples with respect to alpha (implicit reparameterisation,
    # RandomGammaGrad); tensortrace does not yet, so no gradient flows to alpha
    grad = NON_DIFFERENTIABLE
    check = _check_input("RandomGamma", 1, _GAMMA_DTYPES, "T")

    def infer(shape, alpha, *, seed, seed2, _stream=0):
        check_dtypes("RandomGamma", (alpha,), _GAMMA_DTYPES, names=("alpha",))
        return TensorSpec(_param_shape(shape, alpha, "RandomGamma"), alpha.dtype)

    def kernel(shape, alpha, *, seed, seed2, _stream=0):
        gen = _generator(("RandomGamma", alpha.dtype.name), seed, seed2, _stream)
        a = np.broadcast_to(np.asarray(alpha, np.float64), _dims(shape) + np.shape(alpha))
        return _out(gen.standard_gamma(a).astype(alpha.dtype))


@define_op("RandomPoissonV2", stateful=True)
class RandomPoissonV2:
    """Poisson(rate) counts of ``dtype``: ``shape + rate.shape``."""

    grad = NON_DIFFERENTIABLE
    check = _check_input("RandomPoissonV2", 1, _POISSON_DTYPES, "R")

    def infer(shape, rate, *, dtype, seed, seed2, _stream=0):
        check_dtypes("RandomPoissonV2", (rate,), _POISSON_DTYPES, names=("rate",))
        return TensorSpec(_param_shape(shape, rate, "RandomPoissonV2"), dtype)

    def kernel(shape, rate, *, dtype, seed, seed2, _stream=0):
        gen = _generator(("RandomPoissonV2", dtype.name), seed, seed2, _stream)
        lam = np.broadcast_to(np.asarray(rate, np.float64), _dims(shape) + np.shape(rate))
        return _out(gen.poisson(lam).astype(dtype._np))


# --- public functions ----------------------------------------------------------------------------
def shape_tensor(shape):
    """TF's ``shape_util.shape_tensor``: a shape argument (list, TensorShape, tensor) as a
    tensor; an empty list is int32."""
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)):
        if not shape:
            return convert_to_tensor(np.zeros(0, np.int32))
        if any(isinstance(d, Tensor) for d in shape):  # [tf.shape(x)[0], 3] inside a function
            return stack([d if isinstance(d, Tensor) else convert_to_tensor(d, D.int32)
                          for d in shape])
    return convert_to_tensor(shape)


def _check_dtype(dtype, accepted):
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"{accepted}.")


def _scale(rnd, scale, shift):
    """``rnd * scale + shift`` as TF builds it (Mul then AddV2)."""
    return add(rnd * scale, shift)


@tf_export("random.uniform")
def uniform(shape, minval=0, maxval=None, dtype=D.float32, seed=None, name=None):
    """Uniform values in [minval, maxval): floats (maxval defaults to 1) or ints (maxval needed).

    Raises:
        ValueError: for an unsupported dtype, or an integer dtype without maxval.
    """
    dtype = D.as_dtype(dtype)
    _check_dtype(dtype, _UNIFORM_DTYPES)
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
    attrs = _seed_attrs(seed)
    if dtype.is_integer:
        return bind(RandomUniformInt, shape, minval, maxval, **attrs)
    rnd = bind(RandomUniform, shape, dtype=dtype, **attrs)
    if minval_is_zero:
        return rnd if maxval_is_one else rnd * maxval
    return _scale(rnd, maxval - minval, minval)


@tf_export("random.normal")
def normal(shape, mean=0.0, stddev=1.0, dtype=D.float32, seed=None, name=None):
    """Normal values with ``mean`` and ``stddev`` (broadcast against ``shape``)."""
    dtype = D.as_dtype(dtype)
    shape = shape_tensor(shape)
    mean = convert_to_tensor(mean, dtype)
    stddev = convert_to_tensor(stddev, dtype)
    rnd = bind(RandomStandardNormal, shape, dtype=dtype, **_seed_attrs(seed))
    return _scale(rnd, stddev, mean)


@tf_export("random.truncated_normal")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=D.float32, seed=None, name=None):
    """Normal values redrawn until within 2 standard deviations of ``mean``."""
    dtype = D.as_dtype(dtype)
    shape = shape_tensor(shape)
    mean = convert_to_tensor(mean, dtype)
    stddev = convert_to_tensor(stddev, dtype)
    rnd = bind(TruncatedNormal, shape, dtype=dtype, **_seed_attrs(seed))
    return _scale(rnd, stddev, mean)


def _categorical_args(logits, num_samples, dtype):
    logits = convert_to_tensor(logits)
    dtype = D.as_dtype(dtype) if dtype else D.int64
    _check_dtype(dtype, (D.int32, D.int64))
    if not isinstance(num_samples, Tensor):
        num_samples = convert_to_tensor(num_samples, D.int32)
    return logits, num_samples, dtype


@tf_export("random.categorical")
def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Class indices [batch, num_samples] drawn from ``logits`` [batch, classes]."""
    logits, num_samples, dtype = _categorical_args(logits, num_samples, dtype)
    return bind(Multinomial, logits, num_samples, output_dtype=dtype, **_seed_attrs(seed))


@tf_export("random.shuffle")
def shuffle(value, seed=None, name=None):
    """``value`` randomly permuted along its first dimension."""
    value = convert_to_tensor(value)
    return bind(RandomShuffle, value, **_seed_attrs(seed))


def _seed_tensor(seed):
    return seed if isinstance(seed, Tensor) else convert_to_tensor(seed)


@tf_export("random.stateless_uniform")
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=D.float32, name=None,
                      alg="auto_select"):
    """Uniform values determined by ``seed`` (shape [2]): the same seed, the same values.

    Integer dtypes take both ``minval`` and ``maxval``, or neither for the full range.
    """
    dtype = D.as_dtype(dtype)
    _check_dtype(dtype, _STATELESS_DTYPES)
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
    shape, seed = shape_tensor(shape), _seed_tensor(seed)
    if dtype.is_integer and minval is None:
        return bind(StatelessRandomUniformFullInt, shape, seed, dtype=dtype)
    minval = convert_to_tensor(minval, dtype)
    maxval = convert_to_tensor(maxval, dtype)
    if dtype.is_integer:
        return bind(StatelessRandomUniformInt, shape, seed, minval, maxval, dtype=dtype)
    rnd = bind(StatelessRandomUniform, shape, seed, dtype=dtype)
    return _scale(rnd, maxval - minval, minval)


@tf_export("random.stateless_normal")
def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=D.float32, name=None,
                     alg="auto_select"):
    """Normal values determined by ``seed`` (shape [2])."""
    dtype = D.as_dtype(dtype)
    shape, seed = shape_tensor(shape), _seed_tensor(seed)
    mean = convert_to_tensor(mean, dtype)
    stddev = convert_to_tensor(stddev, dtype)
    return _scale(bind(StatelessRandomNormal, shape, seed, dtype=dtype), stddev, mean)


@tf_export("random.stateless_truncated_normal")
def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=D.float32, name=None,
                               alg="auto_select"):
    """Truncated normal values determined by ``seed`` (shape [2])."""
    dtype = D.as_dtype(dtype)
    shape, seed = shape_tensor(shape), _seed_tensor(seed)
    mean = convert_to_tensor(mean, dtype)
    stddev = convert_to_tensor(stddev, dtype)
    return _scale(bind(StatelessTruncatedNormal, shape, seed, dtype=dtype), stddev, mean)


@tf_export("random.stateless_categorical")
def stateless_categorical(logits, num_samples, seed, dtype=D.int64, name=None):
    """Class indices drawn from ``logits``, determined by ``seed`` (shape [2])."""
    logits, num_samples, dtype = _categorical_args(logits, num_samples, dtype)
    return bind(StatelessMultinomial, logits, num_samples, _seed_tensor(seed), output_dtype=dtype)


@tf_export("random.gamma")
def gamma(shape, alpha, beta=None, dtype=D.float32, seed=None, name=None):
    """Gamma(alpha, beta) samples of shape ``shape + broadcast(alpha, beta).shape``."""
    from ..array import broadcast_dynamic_shape, broadcast_to
    from ..array import shape as shape_of
    from ..math import maximum

    dtype = D.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"data type {dtype._np.type} not inexact")
    alpha = convert_to_tensor(alpha, dtype)
    beta = convert_to_tensor(1 if beta is None else beta, dtype)
    alpha = broadcast_to(alpha, broadcast_dynamic_shape(shape_of(alpha), shape_of(beta)))
    sample = bind(RandomGamma, shape_tensor(shape), alpha, **_seed_attrs(seed))
    return maximum(np.finfo(dtype._np).tiny.astype(dtype._np), sample / beta)


@tf_export("random.poisson")
def poisson(shape, lam, dtype=D.float32, seed=None, name=None):
    """Poisson(lam) samples of ``dtype``, shape ``shape + lam.shape``."""
    dtype = D.as_dtype(dtype)
    if dtype not in _POISSON_DTYPES:
        raise errors_invalid_attr("RandomPoissonV2", "dtype", dtype, _POISSON_DTYPES)
    return bind(RandomPoissonV2, shape_tensor(shape), convert_to_tensor(lam), dtype=dtype,
                **_seed_attrs(seed))


def errors_invalid_attr(op_name, attr, dtype, allowed):
    """TF's message for an attr outside its op's allowed list (raised while building the op)."""
    text = ", ".join(c_name(d) for d in allowed)
    return invalid_argument(f"Value for attr '{attr}' of {c_name(dtype)} is not in the list of "
                            f"allowed values: {text}", op_name)
