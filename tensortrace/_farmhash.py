"""TensorFlow's string hashes on NumPy: FarmHash ``Fingerprint64`` (farmhashna's 64-bit hash,
TF's ``Fingerprint64`` and ``tf.strings.to_hash_bucket_fast``), ``FingerprintCat64``, the legacy
``Hash64`` of ``tf.strings.to_hash_bucket`` (a MurmurHash2-style hash, seed ``0xDECAFCAFFE``)
and SipHash-2-4 (``to_hash_bucket_strong``).

Every hash takes a sequence of byte strings and returns a ``uint64`` array: strings of one
length class are hashed together in NumPy's wrapping ``uint64`` arithmetic, little-endian as TF
(which only supports little-endian hosts here).
"""

import struct

import numpy as np

_U64 = np.uint64
_K0 = _U64(0xC3A5C85C97CB3127)
_K1 = _U64(0xB492B66FBE98F273)
_K2 = _U64(0x9AE16A3B2F90404F)
_MURMUR = _U64(0xC6A4A7935BD1E995)  # FingerprintCat64's and Hash64's multiplier
_HASH128_MUL = _U64(0x9DDFEA08EB382D69)
_S47 = _U64(47)
_LEGACY_SEED = 0xDECAFCAFFE
_BYTE_WEIGHTS = (np.uint64(1) << (np.arange(8, dtype=np.uint64) * np.uint64(8)))


def _rot(v, shift):
    """Right rotation of uint64 words by a constant 0 < shift < 64."""
    return (v >> _U64(shift)) | (v << _U64(64 - shift))


def _shift_mix(v):
    return v ^ (v >> _S47)


def _len16(u, v, mul):
    """FarmHash's Murmur-inspired 128 -> 64 bit mix with a multiplier."""
    a = _shift_mix((u ^ v) * mul)
    b = _shift_mix((v ^ a) * mul)
    return b * mul


class _Buffer:
    """The strings concatenated, with readers of little-endian words at per-string offsets."""

    def __init__(self, strings):
        self.lengths = np.fromiter((len(s) for s in strings), dtype=np.int64, count=len(strings))
        self.starts = np.zeros(len(strings), dtype=np.int64)
        np.cumsum(self.lengths[:-1], out=self.starts[1:])
        self.data = np.frombuffer(b"".join(strings) + b"\0" * 8, dtype=np.uint8)

    def word(self, offsets, size=8):
        """The ``size``-byte little-endian words starting at byte ``offsets`` (uint64)."""
        raw = self.data[offsets[:, None] + np.arange(size)].astype(np.uint64)
        return raw @ _BYTE_WEIGHTS[:size] if len(offsets) else np.zeros(0, np.uint64)


def _as_bytes_list(strings):
    return [s.encode("utf-8") if isinstance(s, str) else bytes(s) for s in strings]


def _weak32(s, a, b, w, x, y, z):
    """FarmHash's ``WeakHashLen32WithSeeds`` over words (w, x, y, z) and seeds (a, b)."""
    a = a + w
    b = _rot(b + a + z, 21)
    c = a
    a = a + x + y
    b = b + _rot(a, 44)
    return a + z, b + c


def _weak32_at(buf, offsets, a, b):
    w, x, y, z = (buf.word(offsets + k) for k in (0, 8, 16, 24))
    return _weak32(buf, a, b, w, x, y, z)


def _hash_0_to_16(buf, s, n):
    out = np.full(len(s), _K2, dtype=np.uint64)
    mul_all = _K2 + n.astype(np.uint64) * _U64(2)
    big = n >= 8
    if big.any():
        sb, nb, mul = s[big], n[big], mul_all[big]
        a = buf.word(sb) + _K2
        b = buf.word(sb + nb - 8)
        c = _rot(b, 37) * mul + a
        d = (_rot(a, 25) + b) * mul
        out[big] = _len16(c, d, mul)
    mid = (n >= 4) & (n < 8)
    if mid.any():
        sm, nm, mul = s[mid], n[mid], mul_all[mid]
        a = buf.word(sm, 4)
        out[mid] = _len16(nm.astype(np.uint64) + (a << _U64(3)), buf.word(sm + nm - 4, 4), mul)
    small = (n > 0) & (n < 4)
    if small.any():
        ss, ns = s[small], n[small]
        a = buf.data[ss].astype(np.uint64)
        b = buf.data[ss + (ns >> 1)].astype(np.uint64)
        c = buf.data[ss + ns - 1].astype(np.uint64)
        y = a + (b << _U64(8))
        z = ns.astype(np.uint64) + (c << _U64(2))
        out[small] = _shift_mix((y * _K2) ^ (z * _K0)) * _K2
    return out


def _hash_17_to_32(buf, s, n):
    mul = _K2 + n.astype(np.uint64) * _U64(2)
    a = buf.word(s) * _K1
    b = buf.word(s + 8)
    c = buf.word(s + n - 8) * mul
    d = buf.word(s + n - 16) * _K2
    return _len16(_rot(a + b, 43) + _rot(c, 30) + d, a + _rot(b + _K2, 18) + c, mul)


def _hash_33_to_64(buf, s, n):
    mul = _K2 + n.astype(np.uint64) * _U64(2)
    a = buf.word(s) * _K2
    b = buf.word(s + 8)
    c = buf.word(s + n - 8) * mul
    d = buf.word(s + n - 16) * _K2
    y = _rot(a + b, 43) + _rot(c, 30) + d
    z = _len16(y, a + _rot(b + _K2, 18) + c, mul)
    e = buf.word(s + 16) * mul
    f = buf.word(s + 24)
    g = (y + buf.word(s + n - 32)) * mul
    h = (z + buf.word(s + n - 24)) * mul
    return _len16(_rot(e + f, 43) + _rot(g, 30) + h, e + _rot(f + a, 18) + g, mul)


def _hash_over_64(buf, s, n):
    """Strings of 65 bytes or more: 64-byte blocks through a 56-byte state, then the last 64."""
    count = len(s)
    seed = _U64(81)
    x = np.full(count, seed * _K2, dtype=np.uint64) + buf.word(s)
    y = np.full(count, seed * _K1 + _U64(113), dtype=np.uint64)
    z = _shift_mix(y * _K2 + _U64(113)) * _K2
    v0, v1, w0, w1 = (np.zeros(count, dtype=np.uint64) for _ in range(4))
    blocks = (n - 1) // 64
    pos = s.copy()
    for i in range(int(blocks.max())):
        live = blocks > i  # strings still in their block loop
        p = pos
        nx = _rot(x + y + v0 + buf.word(p + 8), 37) * _K1
        ny = _rot(y + v1 + buf.word(p + 48), 42) * _K1
        nx = nx ^ w1
        ny = ny + v0 + buf.word(p + 40)
        nz = _rot(z + w0, 33) * _K1
        nv0, nv1 = _weak32_at(buf, p, v1 * _K1, nx + w0)
        nw0, nw1 = _weak32_at(buf, p + 32, nz + w1, ny + buf.word(p + 16))
        # FarmHash swaps z and x after each block
        x, y, z = np.where(live, nz, x), np.where(live, ny, y), np.where(live, nx, z)
        v0, v1 = np.where(live, nv0, v0), np.where(live, nv1, v1)
        w0, w1 = np.where(live, nw0, w0), np.where(live, nw1, w1)
        pos = np.where(live, pos + 64, pos)
    mul = _K1 + ((z & _U64(0xFF)) << _U64(1))
    last = s + n - 64
    w0 = w0 + ((n - 1) & 63).astype(np.uint64)
    v0 = v0 + w0
    w0 = w0 + v0
    x = _rot(x + y + v0 + buf.word(last + 8), 37) * mul
    y = _rot(y + v1 + buf.word(last + 48), 42) * mul
    x = x ^ (w1 * _U64(9))
    y = y + v0 * _U64(9) + buf.word(last + 40)
    z = _rot(z + w0, 33) * mul
    v0, v1 = _weak32_at(buf, last, v1 * mul, x + w0)
    w0, w1 = _weak32_at(buf, last + 32, z + w1, y + buf.word(last + 16))
    x, z = z, x
    return _len16(_len16(v0, w0, mul) + _shift_mix(y) * _K0 + z,
                  _len16(v1, w1, mul) + x, mul)


_M64 = (1 << 64) - 1
_IK0, _IK1, _IK2 = int(_K0), int(_K1), int(_K2)


def _irot(v, shift):
    return ((v >> shift) | (v << (64 - shift))) & _M64


def _ilen16(u, v, mul):
    a = ((u ^ v) * mul) & _M64
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M64
    b ^= b >> 47
    return (b * mul) & _M64


def _iweak32(w, x, y, z, a, b):
    a = (a + w) & _M64
    b = _irot((b + a + z) & _M64, 21)
    c = a
    a = (a + x + y) & _M64
    b = (b + _irot(a, 44)) & _M64
    return (a + z) & _M64, (b + c) & _M64


def _over_64_one(data):
    """``_hash_over_64`` for one long string in Python ints: its blocks are sequential, so
    NumPy's per-call cost would dominate."""
    n = len(data)
    unpack = struct.Struct("<8Q").unpack_from
    x = (81 * _IK2 + unpack(data, 0)[0]) & _M64
    y = (81 * _IK1 + 113) & _M64
    z = ((((y * _IK2 + 113) & _M64) ^ (((y * _IK2 + 113) & _M64) >> 47)) * _IK2) & _M64
    v0 = v1 = w0 = w1 = 0
    for pos in range(0, ((n - 1) // 64) * 64, 64):
        f = unpack(data, pos)
        x = (_irot((x + y + v0 + f[1]) & _M64, 37) * _IK1) & _M64
        y = (_irot((y + v1 + f[6]) & _M64, 42) * _IK1) & _M64
        x ^= w1
        y = (y + v0 + f[5]) & _M64
        z = (_irot((z + w0) & _M64, 33) * _IK1) & _M64
        v0, v1 = _iweak32(f[0], f[1], f[2], f[3], (v1 * _IK1) & _M64, (x + w0) & _M64)
        w0, w1 = _iweak32(f[4], f[5], f[6], f[7], (z + w1) & _M64, (y + f[2]) & _M64)
        z, x = x, z
    mul = _IK1 + ((z & 0xFF) << 1)
    f = unpack(data, n - 64)
    w0 = (w0 + ((n - 1) & 63)) & _M64
    v0 = (v0 + w0) & _M64
    w0 = (w0 + v0) & _M64
    x = (_irot((x + y + v0 + f[1]) & _M64, 37) * mul) & _M64
    y = (_irot((y + v1 + f[6]) & _M64, 42) * mul) & _M64
    x ^= (w1 * 9) & _M64
    y = (y + v0 * 9 + f[5]) & _M64
    z = (_irot((z + w0) & _M64, 33) * mul) & _M64
    v0, v1 = _iweak32(f[0], f[1], f[2], f[3], (v1 * mul) & _M64, (x + w0) & _M64)
    w0, w1 = _iweak32(f[4], f[5], f[6], f[7], (z + w1) & _M64, (y + f[2]) & _M64)
    z, x = x, z
    return _ilen16((_ilen16(v0, w0, mul) + (y ^ (y >> 47)) * _IK0 + z) & _M64,
                   (_ilen16(v1, w1, mul) + x) & _M64, mul)


def fingerprint64(strings):
    """FarmHash ``Fingerprint64`` of each byte string (``str`` is UTF-8): a ``uint64`` array."""
    strings = _as_bytes_list(strings)
    buf = _Buffer(strings)
    n, s = buf.lengths, buf.starts
    out = np.empty(len(strings), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for lo, hi, fn in ((0, 16, _hash_0_to_16), (17, 32, _hash_17_to_32),
                           (33, 64, _hash_33_to_64), (65, None, _hash_over_64)):
            pick = (n >= lo) & (n <= hi) if hi is not None else n >= lo
            if lo == 65 and 0 < pick.sum() <= 4:  # a few long strings: one at a time
                out[pick] = [_over_64_one(strings[i]) for i in np.flatnonzero(pick)]
            elif pick.any():
                out[pick] = fn(buf, s[pick], n[pick])
    return out


def fingerprint64_one(data):
    """``Fingerprint64`` of one byte string, as a Python int."""
    return int(fingerprint64([data])[0])


def fingerprint_cat64(fp1, fp2):
    """TF's ``FingerprintCat64``: combines two fingerprints (Python ints) into one."""
    with np.errstate(over="ignore"):
        r = np.array([fp1], dtype=np.uint64) ^ _MURMUR
        r ^= _shift_mix(np.array([fp2], dtype=np.uint64) * _MURMUR) * _MURMUR
        r *= _MURMUR
        r = _shift_mix(_shift_mix(r) * _MURMUR)
    return int(r[0])


def legacy_hash64(strings, seed=_LEGACY_SEED):
    """TF's ``Hash64`` (MurmurHash64A-style, seed 0xDECAFCAFFE): ``to_hash_bucket``'s hash."""
    strings = _as_bytes_list(strings)
    buf = _Buffer(strings)
    n, s = buf.lengths, buf.starts
    with np.errstate(over="ignore"):
        h = _U64(seed) ^ (n.astype(np.uint64) * _MURMUR)
        words = n // 8
        for i in range(int(words.max()) if len(n) else 0):
            live = words > i
            k = buf.word(s + 8 * i) * _MURMUR
            k = _shift_mix(k) * _MURMUR
            h = np.where(live, (h ^ k) * _MURMUR, h)
        tail = n % 8
        t = buf.word(s + 8 * words) & ((_U64(1) << (tail.astype(np.uint64) * _U64(8))) - _U64(1))
        h = np.where(tail > 0, (h ^ t) * _MURMUR, h)
        h = _shift_mix(_shift_mix(h) * _MURMUR)
    return h


def _sip_round(v0, v1, v2, v3):
    v0 = v0 + v1
    v1 = _rot(v1, 64 - 13) ^ v0
    v0 = _rot(v0, 32)
    v2 = v2 + v3
    v3 = _rot(v3, 64 - 16) ^ v2
    v0 = v0 + v3
    v3 = _rot(v3, 64 - 21) ^ v0
    v2 = v2 + v1
    v1 = _rot(v1, 64 - 17) ^ v2
    v2 = _rot(v2, 32)
    return v0, v1, v2, v3


def siphash24(strings, key0, key1):
    """SipHash-2-4 of each byte string under the 128-bit key (key0, key1): ``uint64`` array."""
    strings = _as_bytes_list(strings)
    buf = _Buffer(strings)
    n, s = buf.lengths, buf.starts
    count = len(strings)
    with np.errstate(over="ignore"):
        k0, k1 = _U64(key0 & 0xFFFFFFFFFFFFFFFF), _U64(key1 & 0xFFFFFFFFFFFFFFFF)
        v0 = np.full(count, k0 ^ _U64(0x736F6D6570736575), dtype=np.uint64)
        v1 = np.full(count, k1 ^ _U64(0x646F72616E646F6D), dtype=np.uint64)
        v2 = np.full(count, k0 ^ _U64(0x6C7967656E657261), dtype=np.uint64)
        v3 = np.full(count, k1 ^ _U64(0x7465646279746573), dtype=np.uint64)

        def compress(v, m, live):
            v0, v1, v2, v3 = v
            a0, a1, a2, a3 = v0, v1, v2, v3 ^ m
            for _ in range(2):
                a0, a1, a2, a3 = _sip_round(a0, a1, a2, a3)
            a0 = a0 ^ m
            return tuple(np.where(live, new, old) for new, old in zip((a0, a1, a2, a3), v))

        v = (v0, v1, v2, v3)
        words = n // 8
        for i in range(int(words.max()) if count else 0):
            v = compress(v, buf.word(s + 8 * i), words > i)
        tail = n % 8
        last = buf.word(s + 8 * words) & ((_U64(1) << (tail.astype(np.uint64) * _U64(8)))
                                          - _U64(1))
        last = last | ((n.astype(np.uint64) & _U64(0xFF)) << _U64(56))
        v = compress(v, last, np.ones(count, dtype=bool))
        v0, v1, v2, v3 = v
        v2 = v2 ^ _U64(0xFF)
        for _ in range(4):
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        return v0 ^ v1 ^ v2 ^ v3
