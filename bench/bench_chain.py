"""A 200-op elementwise chain in a tf.function against the same chain in hand-written NumPy
(every op a fresh array; and by hand with ``out=``, for context), on 1M and on 64 float32
values, plus the peak memory of the 1M call (tracemalloc). The 1M chain runs its blocks on
the machine's cores; the "1 thread" row is the same function with one intra-op thread (the
load average is printed: threads only help where cores are free). Run:
python bench/bench_chain.py [under a Python with TensorFlow for its column]."""

import os
import tracemalloc
from types import SimpleNamespace

import numpy as np
from _timing import load_tensorflow, median_time, report

import tensortrace as tt
from tensortrace.executor import parallel

TF = load_tensorflow()
STEPS = 25  # 8 ops a step: 200 ops


def make(lib):
    """The chain written with ``lib``'s functions (tensortrace, TensorFlow or NumPy's)."""

    def chain(x):
        for i in range(STEPS):
            if i % 2 == 0:  # mul add tanh div sub maximum abs sqrt
                t = lib.tanh(x * 1.01 + 0.5) - x / 3.0
                x = lib.sqrt(lib.abs(lib.maximum(t, -0.5)))
            else:  # mul exp add mul sub minimum neg abs
                t = lib.exp(x * -0.5) + x - x * x
                x = lib.abs(-lib.minimum(t, 2.0))
        return x

    return chain


NP = SimpleNamespace(tanh=np.tanh, sqrt=np.sqrt, abs=np.abs, maximum=np.maximum, exp=np.exp,
                     minimum=np.minimum)


def numpy_in_place(x):
    """The chain by hand in three scratch buffers (what buffer reuse can reach)."""
    f = np.float32
    a, b, u = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    for i in range(STEPS):
        t = b if x is a else a
        if i % 2 == 0:
            np.multiply(x, f(1.01), out=t)
            np.add(t, f(0.5), out=t)
            np.tanh(t, out=t)
            np.true_divide(x, f(3.0), out=u)
            np.subtract(t, u, out=t)
            np.maximum(t, f(-0.5), out=t)
            np.abs(t, out=t)
            np.sqrt(t, out=t)
        else:
            np.multiply(x, f(-0.5), out=t)
            np.exp(t, out=t)
            np.add(t, x, out=t)
            np.multiply(x, x, out=u)
            np.subtract(t, u, out=t)
            np.minimum(t, f(2.0), out=t)
            np.negative(t, out=t)
            np.abs(t, out=t)
        x = t
    return x


def one_thread(g, x):
    tt.config.threading.set_intra_op_parallelism_threads(1)
    try:
        return g(x)
    finally:
        tt.config.threading.set_intra_op_parallelism_threads(0)


def chain_rows(n):
    xn = np.random.default_rng(0).uniform(-1, 1, n).astype(np.float32)
    expected = make(NP)(xn)
    g, x = tt.function(make(tt)), tt.constant(xn)
    np.testing.assert_allclose(g(x).numpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(numpy_in_place(xn), expected, rtol=1e-5)
    repeat = 15 if n > 1000 else 25
    rows = [("numpy", median_time(lambda: make(NP)(xn), repeat=repeat)),
            ("numpy by hand, out=", median_time(lambda: numpy_in_place(xn), repeat=repeat)),
            ("tensortrace function", median_time(lambda: g(x), repeat=repeat))]
    if n > 1000:  # runs on small arrays are never blocked
        rows.append(("tensortrace, 1 thread", median_time(lambda: one_thread(g, x), repeat=repeat)))
    if TF:
        h, y = TF.function(make(TF)), TF.constant(xn)
        rows.append(("tensorflow function", median_time(lambda: h(y), repeat=repeat)))
        hx, y = TF.function(make(TF), jit_compile=True), TF.constant(xn)
        rows.append(("tensorflow XLA", median_time(lambda: hx(y), repeat=repeat)))
    report(f"200-op elementwise chain on [{n}] float32 (load average "
           f"{os.getloadavg()[0]:.2f}, {parallel.threads()} threads)", rows)
    return g, x


def peak_memory(g, x, n):
    """Peak bytes the call allocates, in n-float32 buffers (the input is not counted)."""
    buffer = 4 * n

    def peak(fn):
        tracemalloc.start()
        tracemalloc.reset_peak()
        fn()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak / buffer

    xn = x.numpy()
    print(f"\npeak memory of one call on [{n}] float32, in {buffer // 1024} KB buffers")
    print(f"  {'numpy':<22} {peak(lambda: make(NP)(xn)):8.2f}")
    print(f"  {'numpy by hand, out=':<22} {peak(lambda: numpy_in_place(xn)):8.2f}")
    print(f"  {'tensortrace function':<22} {peak(lambda: g(x)):8.2f}")


if __name__ == "__main__":
    big = 1 << 20
    g, x = chain_rows(big)
    chain_rows(64)
    peak_memory(g, x, big)
