"""The convolution kernels' arithmetic: im2col GEMMs in cache-sized blocks on worker threads
(the forward convolution and its filter gradient; col2im for its input gradient), Winograd's
F(2x2, 3x3) for 3x3 filters, depthwise taps; and OpenBLAS's thread count, which the workers set
to one while they run."""

import ctypes
import glob
import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...executor import parallel
from ._geometry import windows

# One patch block of about this many bytes per BLAS call: big enough for the GEMM to run at full
# speed, small enough to stay in cache (measured with bench/bench_conv.py).
_BLOCK_BYTES = 3 << 20
_PARALLEL_FLOPS = 5e7  # below this a convolution is one plain GEMM per block, no workers
# An image whose own GEMM does at least this much work (enough to run at full speed) gets a GEMM
# of its own, on one BLAS thread: OpenBLAS's float32 sums depend on a row's place in the matrix
# and on the thread count, and an image's outputs then depend on it alone, not on the rest of
# the batch (as TF's: Keras' STFTSpectrogram checks a 7-channel batch against single channels).
_IMAGE_GEMM_FLOPS = 4e6


class Blas:
    """The thread count of NumPy's bundled OpenBLAS, found through ctypes (as threadpoolctl
    does); ``set`` stays None when this NumPy's BLAS cannot be controlled."""

    get = set = None
    found = False

    @classmethod
    def load(cls):
        if not cls.found:
            cls.found = True
            cls.get, cls.set = _openblas_thread_functions()
        return cls.set is not None


def _openblas_thread_functions():
    root = os.path.dirname(os.path.dirname(np.__file__))
    for lib in sorted(glob.glob(os.path.join(root, "numpy.libs", "*openblas*"))
                      + glob.glob(os.path.join(os.path.dirname(np.__file__), ".libs", "*blas*"))):
        try:
            dll = ctypes.CDLL(lib)
        except OSError:
            continue
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                try:
                    get = getattr(dll, f"{prefix}_get_num_threads{suffix}")
                    set_ = getattr(dll, f"{prefix}_set_num_threads{suffix}")
                except AttributeError:
                    continue
                get.restype = ctypes.c_int
                set_.argtypes = [ctypes.c_int]
                return get, set_
    return None, None


class Workers:
    """One worker thread per CPU (at most ``tf.config.threading``'s intra-op threads) for the
    blocks of a large convolution, each calling BLAS with one thread: the workers balance among
    themselves, where BLAS's own threads each wait for the slowest (twice as slow as this
    whenever another process holds a core)."""

    pool = pid = None
    lock = threading.Lock()
    active = 0  # convolutions running now; the first saves BLAS's thread count, the last restores
    saved = 1

    @classmethod
    def run(cls, fn, tasks):
        Blas.load()
        with cls.lock:
            if cls.pid != os.getpid():  # a forked child inherits no threads: make a new pool
                cls.pool, cls.pid = ThreadPoolExecutor(os.cpu_count() or 1), os.getpid()
            if cls.active == 0:
                cls.saved = Blas.get()
                Blas.set(1)
            cls.active += 1
        try:
            cls._share(fn, tasks)
        finally:
            with cls.lock:
                cls.active -= 1
                if cls.active == 0:
                    Blas.set(cls.saved)

    @classmethod
    def _share(cls, fn, tasks):
        """Run ``fn(*task)`` for every task on the calling thread and at most intra-op threads
        minus one workers, each taking the next task when done with one."""
        pending, take = iter(tasks), threading.Lock()

        def drain():
            while True:
                with take:
                    task = next(pending, None)
                if task is None:
                    return
                fn(*task)

        helpers = [cls.pool.submit(drain)
                   for _ in range(min(parallel.threads(), len(tasks)) - 1)]
        try:
            drain()
        finally:
            failures = [f.exception() for f in helpers]  # waits for every helper
        for failure in failures:
            if failure is not None:
                raise failure


def _parallel(flops, tasks):
    return (len(tasks) > 1 and flops >= _PARALLEL_FLOPS and parallel.threads() > 1
            and Blas.load())


def gemm_conv(x, w, out, strides, dilations):
    """Convolve padded channels-last ``x`` with ``w`` [*k, C, O]: im2col blocks, one GEMM each."""
    n, c = x.shape[0], x.shape[-1]
    ksizes, o = w.shape[:-2], w.shape[-1]
    kc = int(np.prod(ksizes)) * c
    w2 = np.ascontiguousarray(w.reshape(kc, o))
    y = np.empty((n, *out, o), x.dtype)
    if y.size == 0:
        return y
    if kc == 0:
        y[...] = 0
        return y
    if kc == c and all(s == 1 for s in strides) and tuple(out) == x.shape[1:-1]:
        np.matmul(x.reshape(-1, c), w2, out=y.reshape(-1, o))  # 1x1 convolution: no patches
        return y
    win = windows(x, out, ksizes, strides, dilations)
    per_image = 2.0 * (y.size // n) * kc >= _IMAGE_GEMM_FLOPS and Blas.load()
    blocks = [(b,) for b in _blocks(n, out, kc * x.itemsize, per_image)]

    def run(block, buf=None):
        src = win[block]
        patches = np.empty(src.shape, x.dtype) if buf is None else buf[:src.size].reshape(
            src.shape)
        np.copyto(patches, src)
        np.matmul(patches.reshape(-1, kc), w2, out=y[block].reshape(-1, o))

    if per_image or _parallel(2.0 * y.size * kc, blocks):
        Workers.run(run, blocks)
        return y
    buf = np.empty(max(win[b].size for (b,) in blocks[:2]), x.dtype)
    for (b,) in blocks:
        run(b, buf)
    return y


def _rows_of(block, out0):
    """A block of ``_blocks`` as (batch slice, slice of the first output dim)."""
    b = block[0] if isinstance(block[0], slice) else slice(block[0], block[0] + 1)
    return b, block[1] if len(block) > 1 else slice(0, out0)


def gemm_input_grad(dy, w, dxp, strides, dilations):
    """Add into padded channels-last ``dxp`` the gradient of a convolution by ``w`` [*k, C, O]
    with respect to its input, ``dy`` [N, *out, O] its output's: per block, one GEMM gives every
    tap's share of every input position (col2im), each tap's share added at its place."""
    out, o = dy.shape[1:-1], dy.shape[-1]
    ksizes, c = w.shape[:-2], w.shape[-2]
    kc = int(np.prod(ksizes)) * c
    if dy.size == 0 or kc == 0:
        return
    wt = w.reshape(kc, o).T
    taps = list(itertools.product(*(range(k) for k in ksizes)))
    lead = (slice(None),) * (1 + len(out))
    blocks = _blocks(dy.shape[0], out, kc * dy.itemsize)

    def run(block):
        b, rows = _rows_of(block, out[0])
        src = dy[(b, rows)]
        cols = np.matmul(src.reshape(-1, o), wt).reshape(*src.shape[:-1], *ksizes, c)
        first = [rows.start] + [0] * (len(out) - 1)
        for tap in taps:
            where = (b,) + tuple(slice(t * d + f * s, t * d + f * s + (m - 1) * s + 1, s)
                                 for t, d, f, s, m in zip(tap, dilations, first, strides,
                                                          src.shape[1:-1]))
            dxp[where] += cols[lead + tap]

    # Blocks of whole images write apart and may run at once; row blocks of one image overlap.
    if all(len(b) == 1 for b in blocks) and _parallel(2.0 * dy.size * kc, blocks):
        Workers.run(run, [(b,) for b in blocks])
        return
    for block in blocks:
        run(block)


def gemm_filter_grad(x, dy, ksizes, strides, dilations):
    """The gradient [*k, C, O] of a convolution with respect to its filter: padded channels-last
    ``x``'s patches (im2col) times ``dy`` [N, *out, O], one GEMM per block, the blocks' sums
    added in order (the same sum with or without workers)."""
    out, o, c = dy.shape[1:-1], dy.shape[-1], x.shape[-1]
    kc = int(np.prod(ksizes)) * c
    dw = np.zeros((kc, o), x.dtype)
    if dy.size == 0 or kc == 0:
        return dw.reshape(*ksizes, c, o)
    win = windows(x, out, ksizes, strides, dilations)
    blocks = _blocks(x.shape[0], out, kc * x.itemsize)

    def part(block, buf=None):
        src = win[block]
        patches = np.empty(src.shape, x.dtype) if buf is None else buf[:src.size].reshape(
            src.shape)
        np.copyto(patches, src)
        return np.matmul(patches.reshape(-1, kc).T, dy[block].reshape(-1, o))

    if _parallel(2.0 * dy.size * kc, blocks):
        parts = [None] * len(blocks)

        def run(i, block):
            parts[i] = part(block)

        Workers.run(run, list(enumerate(blocks)))
    else:
        buf = np.empty(max(win[b].size for b in blocks[:2]), x.dtype)
        parts = (part(b, buf) for b in blocks)
    for p in parts:
        dw += p
    return dw.reshape(*ksizes, c, o)


# Winograd's F(2x2, 3x3) (Lavin & Gray, 2015): each 4x4 input tile gives a 2x2 output tile from
# 16 products instead of 36, so a 3x3 convolution is 16 GEMMs of a quarter of the rows, 2.25x
# fewer flops than im2col (float32 errors stay at the GEMM's level).
_WINO_MIN_PIXELS = 700  # output pixels per image
_WINO_MIN_CHANNELS = 30  # C * O / (C + O): 32 for 64 in and out channels
_WINO_G = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]])


def winograd_ok(x, w, out, strides, dilations):
    """Large float32 3x3 stride-1 convolutions of finite values (the transforms would turn an
    inf into nan where the direct sum gives inf; a sum is a cheap test that also catches values
    big enough to overflow in the transforms). The transforms' memory traffic grows with C + O
    and the GEMM's saving with C * O: with few channels, or small images (many small blocks),
    im2col is faster (measured: 2x slower by Winograd at 13x13, C 32, O 64; 15% faster at
    56x56, C 64, O 64, and at 198x198, C 100, O 100)."""
    c, o = w.shape[-2], w.shape[-1]
    return (w.shape[:-2] == (3, 3) and x.dtype == np.float32 and max(strides) == 1
            and max(dilations) == 1 and c == x.shape[-1] and min(out) > 0
            and out[0] * out[1] >= _WINO_MIN_PIXELS and c * o >= _WINO_MIN_CHANNELS * (c + o)
            and 18.0 * x.shape[0] * out[0] * out[1] * c * o >= _PARALLEL_FLOPS and Blas.load()
            and np.isfinite(np.sum(x)) and np.isfinite(np.sum(w)))


def winograd_conv(x, w, out):
    """3x3, stride-1 convolution of padded NHWC ``x`` by F(2x2, 3x3), in blocks of tile rows."""
    n, c, o = x.shape[0], x.shape[-1], w.shape[-1]
    th, tw = -(-out[0] // 2), -(-out[1] // 2)
    hp, wp = 2 * th + 2, 2 * tw + 2
    if (hp, wp) != x.shape[1:3]:  # odd output sizes: one more row/column of tiles
        x = np.pad(x, [(0, 0), (0, hp - x.shape[1]), (0, wp - x.shape[2]), (0, 0)])
    u = np.einsum("ai,ijco,bj->abco", _WINO_G, w.astype(np.float64), _WINO_G, optimize=True)
    u = u.reshape(16, c, o).astype(x.dtype)
    y = np.empty((n, 2 * th, 2 * tw, o), x.dtype)
    rows = max(1, _BLOCK_BYTES // (16 * tw * c * x.itemsize))

    def run(i, t0, t1):
        b = t1 - t0
        slab = x[i, 2 * t0:2 * t1 + 2]
        d0, d1, d2, d3 = (slab[k:k + 2 * b:2] for k in range(4))
        r = np.empty((4, b, wp, c), x.dtype)  # B^T d along rows ...
        np.subtract(d0, d2, out=r[0])
        np.add(d1, d2, out=r[1])
        np.subtract(d2, d1, out=r[2])
        np.subtract(d1, d3, out=r[3])
        e0, e1, e2, e3 = (r[:, :, k:k + 2 * tw:2] for k in range(4))
        v = np.empty((4, 4, b, tw, c), x.dtype)  # ... then along columns
        np.subtract(e0, e2, out=v[:, 0])
        np.add(e1, e2, out=v[:, 1])
        np.subtract(e2, e1, out=v[:, 2])
        np.subtract(e1, e3, out=v[:, 3])
        m = np.matmul(v.reshape(16, b * tw, c), u).reshape(4, 4, b, tw, o)
        h = np.empty((4, 2, b, tw, o), x.dtype)  # A^T m A along rows ... [column, row, ...]
        np.add(m[0], m[1], out=h[:, 0])
        h[:, 0] += m[2]
        np.subtract(m[1], m[2], out=h[:, 1])
        h[:, 1] -= m[3]
        dst = y[i, 2 * t0:2 * t1].reshape(b, 2, tw, 2, o).transpose(3, 1, 0, 2, 4)
        np.add(h[0], h[1], out=dst[0])  # ... then along columns, into the output
        dst[0] += h[2]
        np.subtract(h[1], h[2], out=dst[1])
        dst[1] -= h[3]

    Workers.run(run, [(i, t0, min(t0 + rows, th)) for i in range(n)
                      for t0 in range(0, th, rows)])
    return y[:, :out[0], :out[1]]


def _blocks(n, out, row_bytes, per_image=False):
    """Index tuples (into the patch view and the output) of blocks of about _BLOCK_BYTES (never
    more than one image with ``per_image``)."""
    slab = int(np.prod(out[1:], dtype=np.int64)) * row_bytes  # one (image, output row)
    rows = max(1, _BLOCK_BYTES // max(slab, 1))
    if rows >= out[0]:
        step = 1 if per_image else max(1, rows // out[0])
        return [(slice(i, min(i + step, n)),) for i in range(0, n, step)]
    return [(i, slice(r, min(r + rows, out[0]))) for i in range(n)
            for r in range(0, out[0], rows)]


def depthwise_conv(x, w, out, strides, dilations):
    """Per-channel convolution: ``w`` [*k, C, M] -> C*M channels, accumulated tap by tap."""
    ksizes, c, m = w.shape[:-2], w.shape[-2], w.shape[-1]
    win = windows(x, out, ksizes, strides, dilations)
    y = np.zeros((x.shape[0], *out, c, m), x.dtype)
    lead = (slice(None),) * (1 + len(out))
    for tap in itertools.product(*(range(k) for k in ksizes)):
        y += win[lead + tap][..., None] * w[tap]
    return y.reshape(*y.shape[:-2], c * m)
