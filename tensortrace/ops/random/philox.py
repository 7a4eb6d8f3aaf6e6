"""TF's random numbers bit for bit: the Philox-4x32-10 counter generator and the distributions
TF's CPU kernels draw with it (uniform floats from mantissa bits, Box-Muller normals, truncated
normals by rejection, integers by modulo), vectorized over counters with NumPy.

A ``Philox`` is one position of a stream: a 64-bit key and a 128-bit counter. Each call of the
generator turns one counter into four 32-bit words, and an output *group* (4 floats, or 2 doubles or
64-bit ints) takes one call, so element ``i`` depends only on the key, the counter and ``i``. The
truncated normal draws a variable number of words per group, so TF gives each group its own window
of 256 counters.
"""

import numpy as np

from ... import dtypes as D

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)  # round multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85  # key schedule increments
_LOW32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)
MASK64 = (1 << 64) - 1
MASK128 = (1 << 128) - 1
SKIP_PER_VALUE = 256  # TF reserves 256 counters for every value a stateful op draws
_TRUNCATE = 2.0  # truncated normals keep |x| < 2


def _words(x):
    """The 32-bit words of an int, low first, as uint64 (the arithmetic type of the rounds)."""
    return np.uint64(x & 0xFFFFFFFF), np.uint64((x >> 32) & 0xFFFFFFFF)


class Philox:
    """A stream position: ``key`` (64 bits) and ``counter`` (128 bits), TF's ``PhiloxRandom``."""

    __slots__ = ("key", "counter")

    def __init__(self, key, counter):
        self.key = key & MASK64
        self.counter = counter & MASK128

    @classmethod
    def from_seeds(cls, seed, seed2):
        """The generator of a stateful op with attrs ``seed``/``seed2``."""
        return cls(seed, (seed2 & MASK64) << 64)

    @classmethod
    def from_stateless_seed(cls, seed0, seed1):
        """TF's key and counter for a shape-[2] stateless seed: the seed, as a counter, run through
        one Philox call under a fixed key; two words become the key, two the counter's top."""
        mixer = cls(0x02461E293EC8F720, ((seed1 & MASK64) << 64) | (seed0 & MASK64))
        w = mixer.blocks(1)[0].astype(np.uint64)
        return cls(int(w[0]) | int(w[1]) << 32, (int(w[2]) | int(w[3]) << 32) << 64)

    @classmethod
    def from_key_counter(cls, key, counter_words):
        """From a V2 op's ``key`` (one uint64) and ``counter`` (uint64 words, low first)."""
        counter = 0
        for i, word in enumerate(counter_words[:2]):
            counter |= (int(word) & MASK64) << (64 * i)
        return cls(int(key), counter)

    def skipped(self, n):
        return Philox(self.key, self.counter + n)

    def blocks(self, n):
        """``n`` calls of the generator on consecutive counters: an ``(n, 4)`` uint32 array."""
        return self.blocks_at(np.arange(n, dtype=np.uint64))

    def blocks_at(self, offsets):
        """The generator's output at ``counter + offsets`` (uint64 offsets): ``(len, 4)`` uint32."""
        lo = self.counter & MASK64
        base = offsets.astype(np.uint64) + np.uint64(lo)
        carry = (base < np.uint64(lo)).astype(np.uint64)  # the low 64 bits wrapped
        hi0, hi1 = _words(self.counter >> 64)
        c0, c1 = base & _LOW32, base >> _SHIFT32
        c2 = hi0 + carry
        c3 = (hi1 + (c2 >> _SHIFT32)) & _LOW32  # past 2**128 the counter wraps, as in TF
        c2 &= _LOW32
        k0, k1 = (int(w) for w in _words(self.key))
        for _ in range(10):
            p0, p1 = _M0 * c0, _M1 * c2
            c0, c1, c2, c3 = ((p1 >> _SHIFT32) ^ c1 ^ np.uint64(k0), p1 & _LOW32,
                              (p0 >> _SHIFT32) ^ c3 ^ np.uint64(k1), p0 & _LOW32)
            k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
        return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)

    def words(self, n_groups):
        """The generator's output for ``n_groups`` calls as one flat uint32 vector."""
        return self.blocks(n_groups).ravel()

    def numpy_generator(self):
        """A NumPy generator seeded from this position, for samplers TF's values are not
        reproduced for (gamma, Poisson, multinomial, shuffle): deterministic in the seeds."""
        return np.random.Generator(np.random.Philox(key=self.key, counter=self.counter))


# --- words -> floats ----------------------------------------------------------------------------
def _u32_to_float(x):
    """[0, 1) from 23 mantissa bits: 1.m - 1."""
    return ((x & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)).view(np.float32) - np.float32(1)


def _u64_to_double(x0, x1):
    man = ((x0 & np.uint32(0xFFFFF)).astype(np.uint64) << _SHIFT32) | x1.astype(np.uint64)
    return (man | np.uint64(1023 << 52)).view(np.float64) - 1.0


def _u16_to_half(x, np_dtype):
    """float16: 10 mantissa bits; bfloat16: 7 (TF's Uint16ToHalf / Uint16ToGfloat16)."""
    if np_dtype == np.float16:
        bits = ((x & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
        return bits.view(np.float16) - np.float16(1)
    bits = ((x & np.uint32(0x7F)) | np.uint32(127 << 7)).astype(np.uint16)
    one = np.ones((), np_dtype)
    return bits.view(np_dtype) - one


def _box_muller_float(x0, x1):
    """Two float32 normals from two words. TF computes 2*pi in double and logf/sincosf in
    float; the float64 math rounded to float32 gives the correctly rounded values."""
    u1 = np.maximum(_u32_to_float(x0), np.float32(1e-7))
    v1 = (2.0 * np.pi * _u32_to_float(x1).astype(np.float64)).astype(np.float32)
    log = np.log(u1.astype(np.float64)).astype(np.float32)
    u2 = np.sqrt(np.float32(-2) * log)
    v = v1.astype(np.float64)
    return np.sin(v).astype(np.float32) * u2, np.cos(v).astype(np.float32) * u2


def _box_muller_double(x0, x1, x2, x3):
    u1 = np.maximum(_u64_to_double(x0, x1), 1e-7)
    v1 = 2.0 * np.pi * _u64_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


def _count(dims):
    return int(np.prod(dims, dtype=np.int64))


def _half(np_dtype):
    return np_dtype == np.float16 or np_dtype == getattr(D.bfloat16, "_np", None)


# --- distributions ------------------------------------------------------------------------------
def uniform(gen, dims, np_dtype):
    """Uniform [0, 1) values of a float dtype."""
    n = _count(dims)
    if np_dtype == np.float64:
        w = gen.words(-(-n // 2)).reshape(-1, 2)
        values = _u64_to_double(w[:, 0], w[:, 1])
    else:
        w = gen.words(-(-n // 4))
        values = _u16_to_half(w, np_dtype) if _half(np_dtype) else _u32_to_float(w)
    return values[:n].reshape(dims)


def normal(gen, dims, np_dtype):
    """Standard normal values: Box-Muller on pairs of words (of word pairs for doubles)."""
    n = _count(dims)
    if np_dtype == np.float64:
        w = gen.words(-(-n // 2)).reshape(-1, 4)
        values = np.stack(_box_muller_double(w[:, 0], w[:, 1], w[:, 2], w[:, 3]), 1).ravel()
    else:
        w = gen.words(-(-n // 4)).reshape(-1, 2)
        values = np.stack(_box_muller_float(w[:, 0], w[:, 1]), 1).ravel()
        if np_dtype != np.float32:
            values = values.astype(np_dtype)
    return values[:n].reshape(dims)


def truncated_normal(gen, dims, np_dtype):
    """Standard normals within 2: each output group (4 values, 2 for doubles) rejects draws from
    its own window of counters, one word (two for doubles) at a time as TF's single-sample
    adapter hands them out."""
    n = _count(dims)
    double = np_dtype == np.float64
    per_group = 2 if double else 4
    groups = -(-n // per_group)
    out = np.empty((groups, per_group), np.float64 if double else np.float32)
    window = per_group * SKIP_PER_VALUE // 4
    calls = 4  # calls per group tried at once: 8 candidate values, each kept with p = 0.95
    filled = np.zeros(groups, np.int64)
    pending = np.arange(groups, dtype=np.uint64)
    start = 0
    while pending.size:
        offsets = (pending[:, None] * np.uint64(window) + np.uint64(start)
                   + np.arange(calls, dtype=np.uint64)[None, :]).ravel()
        words = gen.blocks_at(offsets).reshape(pending.size, -1, 4 if double else 2)
        if double:
            a, b = _box_muller_double(words[..., 0], words[..., 1], words[..., 2], words[..., 3])
        else:
            a, b = _box_muller_float(words[..., 0], words[..., 1])
        draws = np.stack([a, b], -1).reshape(pending.size, -1)
        rows_of = pending.astype(np.int64)
        keep = np.abs(draws) < _TRUNCATE
        slot = np.cumsum(keep, axis=1) - 1 + filled[rows_of][:, None]
        rows, cols = np.nonzero(keep & (slot < per_group))
        out[rows_of[rows], slot[rows, cols]] = draws[rows, cols]
        filled[rows_of] = np.minimum(per_group, filled[rows_of] + keep.sum(axis=1))
        pending = pending[filled[rows_of] < per_group]
        start += calls
    values = out.ravel()[:n]
    return (values if values.dtype == np_dtype else values.astype(np_dtype)).reshape(dims)


def uniform_int(gen, dims, lo, hi, np_dtype):
    """Integers in [lo, hi): ``lo + bits % (hi - lo)`` on 32 bits, or 64 for 64-bit dtypes."""
    n = _count(dims)
    wide = np.dtype(np_dtype).itemsize == 8
    span = np.uint64((int(hi) - int(lo)) & (MASK64 if wide else 0xFFFFFFFF))
    if wide:
        w = gen.words(-(-n // 2)).reshape(-1, 2).astype(np.uint64)
        bits = w[:, 0] | (w[:, 1] << _SHIFT32)
    else:
        bits = gen.words(-(-n // 4)).astype(np.uint64)
    # lo + offset wraps like TF's SignedAdd (unsigned addition, read back as signed)
    values = ((bits[:n] % span) + np.uint64(int(lo) & MASK64)).view(np.int64)
    return values.astype(np_dtype).reshape(dims)


def full_int(gen, dims, np_dtype):
    """Integers over the whole range of the dtype: the words themselves (pairs for 64 bits),
    read as the dtype (signed ones wrap, as C's conversion does)."""
    n = _count(dims)
    kind = np.dtype(np_dtype)
    if kind.itemsize == 8:
        w = gen.words(-(-n // 2)).reshape(-1, 2).astype(np.uint64)
        bits = (w[:, 0] | (w[:, 1] << _SHIFT32))[:n]
        values = bits.view(np.int64) if kind.kind == "i" else bits
    else:
        bits = gen.words(-(-n // 4))[:n]
        values = bits.view(np.int32) if kind.kind == "i" else bits
    return values.astype(np_dtype).reshape(dims)
