"""``tf.random.Generator``: a random stream whose state lives in a ``tf.Variable``, so it works
eagerly and inside ``tf.function`` and advances on every call (also of a traced function).

As in TF, each draw is one ``RngReadAndSkip`` op (return the state, advance its counter by 256
per value drawn) followed by a stateless V2 op given the counter and key it returned, so the
values are TF's for the same state.

    >>> g = tf.random.Generator.from_seed(1)
    >>> g.normal([2]).shape, g.state.numpy()
    (TensorShape([2]), array([513,   0,   0]))
"""

import enum

import numpy as np

from . import dtypes as D
from ._export import tf_export
from .context import bind
from .convert import convert_to_tensor
from .ops.array.creation import zeros, zeros_like
from .ops.array.joining import concat, stack, unstack
from .ops.array.reshaping import reshape
from .ops.core import init_scope
from .ops.math.casting import cast
from .ops.random.stateless import (RngReadAndSkip, StatelessRandomNormalV2,
                                   StatelessRandomUniformFullIntV2, StatelessRandomUniformIntV2,
                                   StatelessRandomUniformV2, StatelessTruncatedNormalV2,
                                   state_size, stateless_v2, unsupported_algorithm)
from .ops.random._common import scale
from .ops.reduce import reduce_prod
from .tensor import Tensor
from .variables import Variable

_MASK64 = (1 << 64) - 1

#: Set by tf.distribute: the strategy a new generator belongs to (None: none), the replica id
#: its draws hash into their key, the turn a replica takes to draw from a shared generator, and
#: a cross-replica draw that advances every copy of a mirrored state
_strategy_hooks = {"current": lambda: None, "replica_id": lambda strategy: None,
                   "turn": lambda generator: None, "update": lambda generator, fn: None}


@tf_export("random.Algorithm", "random.experimental.Algorithm")
class Algorithm(enum.Enum):
    """The counter-based generator a ``Generator`` models (its state size depends on it)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _alg_to_int(alg):
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, int):
        return alg
    if isinstance(alg, str):
        canon = alg.strip().lower().replace("-", "").replace("_", "")
        found = {"philox": 1, "threefry": 2, "autoselect": 3}.get(canon)
        if found is None:
            raise ValueError(unsupported_algorithm(alg, ("philox", "threefry", "auto_select")))
        return found
    raise TypeError(f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) to int.")


def _counter_size(alg):
    return state_size(alg) - 1


def _make_1d_state(size, seed):
    """TF's state from a seed: an int is split into 64-bit words (low first); anything else is
    cast to int64, flattened, cut to ``size`` and zero-padded on the left."""
    if isinstance(seed, int):
        words = []
        for _ in range(size):
            words.append(seed & _MASK64)
            seed >>= 64
        return np.array(words, np.uint64).astype(np.int64)
    seed = cast(convert_to_tensor(seed), D.int64)
    seed = reshape(seed, [-1])[:size]
    pad = size - int(seed.shape[0])
    return concat([zeros([max(pad, 0)], D.int64), seed], 0)


@tf_export("random.create_rng_state", "random.experimental.create_rng_state")
def create_rng_state(seed, alg):
    """The generator state (int64 vector) that ``seed`` stands for under ``alg``."""
    return convert_to_tensor(_make_1d_state(state_size(_alg_to_int(alg)), seed))


def _state_tensor(state):
    if isinstance(state, (list, tuple)) and not any(isinstance(s, Tensor) for s in state):
        state = [s - (1 << 64) if isinstance(s, int) and s >= 1 << 63 else s for s in state]
    return cast(convert_to_tensor(state), D.int64)


def _checked_state(state, alg):
    """``state`` as an int64 tensor (a variable as it is) whose shape fits algorithm ``alg``."""
    state = state if isinstance(state, Variable) else _state_tensor(state)
    state.shape.assert_is_compatible_with([state_size(alg)])
    return state


def _key_counter_state(key, counter, alg):
    """The state made of ``counter`` (its words) and ``key`` (one word)."""
    counter, key = _state_tensor(counter), _state_tensor(key)
    counter.shape.assert_is_compatible_with([_counter_size(alg)])
    key.shape.assert_is_compatible_with([])
    return concat([counter, reshape(key, [1])], 0)


def _shape_arg(shape):
    if isinstance(shape, (list, tuple)) and not shape:
        return convert_to_tensor(shape, D.int64)
    return convert_to_tensor(shape)


@tf_export("random.Generator", "random.experimental.Generator")
class Generator:
    """A random number generator with its state in a variable (``tf.random.Generator``).

    Create one with ``from_seed``, ``from_non_deterministic_state``, ``from_state`` or
    ``from_key_counter``; ``normal``, ``uniform``, ``truncated_normal`` and
    ``uniform_full_int`` draw values and advance the state; ``make_seeds`` and ``split`` make
    seeds and independent generators.
    """

    @classmethod
    def from_state(cls, state, alg):
        return cls(state=state, alg=alg)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose sequence is determined by ``seed``."""
        alg = _alg_to_int(Algorithm.PHILOX if alg is None else alg)
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy."""
        alg = _alg_to_int(Algorithm.PHILOX if alg is None else alg)
        words = np.random.default_rng().integers(-(1 << 63), (1 << 63) - 1, state_size(alg),
                                                 dtype=np.int64, endpoint=True)
        return cls(state=words, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        alg = _alg_to_int(alg)
        return cls(state=_key_counter_state(key, counter, alg), alg=alg)

    def __init__(self, copy_from=None, state=None, alg=None):
        self._distribution_strategy = _strategy_hooks["current"]()
        if copy_from is not None:
            if alg is not None or state is not None:
                raise ValueError("Generator: give either `copy_from` or `state` and `alg`")
            self._alg = copy_from.algorithm
            self._state_var = self._variable(copy_from.state)
            return
        if alg is None or state is None:
            raise ValueError("Generator needs both `state` and `alg` (or use from_seed)")
        self._alg = _alg_to_int(alg)
        state = _checked_state(state, self._alg)
        self._state_var = state if isinstance(state, Variable) else self._variable(state)

    @staticmethod
    def _variable(value):
        return Variable(value, dtype=D.int64, trainable=False, name="StateVar")

    # --- state -----------------------------------------------------------------------------
    state = property(lambda self: self._state_var,
                     doc="The state variable (int64: counter words, then the key).")
    algorithm = property(lambda self: self._alg, doc="The algorithm, as an int.")
    key = property(lambda self: self._state_var.value()[-1], doc="The key: the state's last word.")

    def reset(self, state):
        self._state_var.assign(_checked_state(_state_tensor(state), self._alg))

    def reset_from_seed(self, seed):
        self._state_var.assign(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        self._state_var.assign(_key_counter_state(key, counter, self._alg))

    def skip(self, delta):
        """Advance the counter by ``256 * delta``; returns the state before (padded to 3)."""
        def update_fn(var):
            return bind(RngReadAndSkip, var.handle, convert_to_tensor(self._alg, D.int32),
                        cast(convert_to_tensor(delta), D.uint64))

        if self._distribution_strategy is not None:
            old = _strategy_hooks["update"](self, update_fn)
            if old is not None:
                return old
        turn = _strategy_hooks["turn"](self)
        if turn is None:
            return update_fn(self._state_var)
        with turn:
            return update_fn(self._state_var)

    def _key_counter(self, shape):
        """The Philox key and counter of the state as it was before this draw, which advances
        it by 256 per value (TF's ``_prepare_key_counter``); under a strategy the key is
        hashed with the replica id, so each replica draws its own numbers."""
        old = self.skip(reduce_prod(shape))
        size = _counter_size(self._alg)
        # TF bitcasts int64 to uint64; a cast wraps to the same bits (and keeps the utility
        # family unloaded)
        key, counter = cast(old[size:size + 1], D.uint64), cast(old[:size], D.uint64)
        if self._distribution_strategy is not None:
            replica = _strategy_hooks["replica_id"](self._distribution_strategy)
            if replica is not None:
                replica = cast(stack([convert_to_tensor(replica, D.int32), 0]), D.uint64)
                key = stateless_v2(StatelessRandomUniformFullIntV2, _shape_arg([1]), key, replica,
                                   self._alg, D.uint64)
        return key, counter

    def _draw(self, op, shape, dtype=None, minval=None, maxval=None):
        key, counter = self._key_counter(shape)
        return stateless_v2(op, shape, key, counter, self._alg, dtype, minval, maxval)

    # --- drawing ---------------------------------------------------------------------------
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=D.float32, name=None):
        """Normal values; the state advances."""
        shape = _shape_arg(shape)
        mean, stddev = convert_to_tensor(mean, dtype), convert_to_tensor(stddev, dtype)
        return scale(self._draw(StatelessRandomNormalV2, shape, D.as_dtype(dtype)), stddev, mean)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=D.float32, name=None):
        """Normal values redrawn beyond two standard deviations; the state advances."""
        shape = _shape_arg(shape)
        mean, stddev = convert_to_tensor(mean, dtype), convert_to_tensor(stddev, dtype)
        return scale(self._draw(StatelessTruncatedNormalV2, shape, D.as_dtype(dtype)), stddev,
                     mean)

    def uniform(self, shape, minval=0, maxval=None, dtype=D.float32, name=None):
        """Uniform values in ``[minval, maxval)``; integer dtypes need both bounds or neither
        (the full range)."""
        dtype = D.as_dtype(dtype)
        if dtype.is_integer and (minval is None) != (maxval is None):
            raise ValueError(f"For integer dtype {dtype}, minval and maxval must be both `None` "
                             f"or both non-`None`; got minval={minval} and maxval={maxval}")
        if not dtype.is_integer and maxval is None:
            maxval = 1
        shape = _shape_arg(shape)
        if dtype.is_integer and minval is None:
            return self.uniform_full_int(shape, dtype)
        minval, maxval = convert_to_tensor(minval, dtype), convert_to_tensor(maxval, dtype)
        if dtype.is_integer:
            return self._draw(StatelessRandomUniformIntV2, shape, minval=minval, maxval=maxval)
        return scale(self._draw(StatelessRandomUniformV2, shape, dtype), maxval - minval, minval)

    def uniform_full_int(self, shape, dtype=D.uint64, name=None):
        """Integers over the whole range of ``dtype``."""
        shape = _shape_arg(shape)
        return self._draw(StatelessRandomUniformFullIntV2, shape, D.as_dtype(dtype))

    def make_seeds(self, count=1):
        """``count`` seeds for the stateless ops: an int64 tensor of shape ``[2, count]``."""
        keys = self.uniform_full_int([count], D.int64)
        return stack([keys, zeros_like(keys)])

    def split(self, count=1):
        """``count`` new generators, each keyed from this one (which advances)."""
        keys = self.uniform_full_int([count], D.int64)
        size = state_size(self._alg)
        return [Generator(state=concat([zeros([size - 1], D.int64), reshape(k, [1])], 0),
                          alg=self._alg) for k in unstack(keys, num=count)]


_GLOBAL = [None]


@tf_export("random.get_global_generator", "random.experimental.get_global_generator")
def get_global_generator():
    """The process-wide generator (nondeterministically seeded on first use)."""
    if _GLOBAL[0] is None:
        with init_scope():
            _GLOBAL[0] = Generator.from_non_deterministic_state()
    return _GLOBAL[0]


@tf_export("random.set_global_generator", "random.experimental.set_global_generator")
def set_global_generator(generator):
    """Replace the global generator (functions traced earlier keep the old one)."""
    _GLOBAL[0] = generator
