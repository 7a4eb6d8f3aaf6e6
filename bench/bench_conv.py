"""Eager conv2d speed on TF's guide example: zeros [1, 200, 200, 100] input, 100 3x3 filters,
VALID padding; tensortrace against plain NumPy (one im2col GEMM) and, when importable,
TensorFlow, measured in one run.

    python bench/bench_conv.py                      # tensortrace vs NumPy
    PYTHON_WITH_TF bench/bench_conv.py            # ... and vs TensorFlow

Rounds run every implementation a few times back to back, so changing machine load hits all of
them alike; the medians over all runs are reported with their ratios. NumPy's OpenBLAS kernel set is
printed too: this machine pins it with OPENBLAS_CORETYPE=Haswell (AVX2), while TensorFlow's
oneDNN uses AVX-512; ``env -u OPENBLAS_CORETYPE`` lets OpenBLAS pick SkylakeX kernels.
"""

import argparse
import os
import sys
import time

import numpy as np
from numpy.lib.stride_tricks import as_strided

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import tensortrace

SHAPE, FILTERS = (1, 200, 200, 100), (3, 3, 100, 100)


def numpy_gemm(x, w):
    """The same convolution as plain NumPy: a contiguous patch matrix times the filters."""
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    oh, ow = h - kh + 1, wd - kw + 1
    s = x.strides
    patches = as_strided(x, (n, oh, ow, kh, kw, c), (s[0], s[1], s[2], s[1], s[2], s[3]))
    cols = np.ascontiguousarray(patches).reshape(n * oh * ow, kh * kw * c)
    return (cols @ w.reshape(kh * kw * c, o)).reshape(n, oh, ow, o)


def openblas_core():
    """The CPU kernel set OpenBLAS picked (OPENBLAS_CORETYPE pins it), or "?" if unknown."""
    import ctypes
    import glob

    libs = glob.glob(os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs",
                                  "*openblas*"))
    for lib in libs:
        for fn in ("scipy_openblas_get_corename64_", "openblas_get_corename64_",
                   "openblas_get_corename"):
            try:
                f = getattr(ctypes.CDLL(lib), fn)
            except (OSError, AttributeError):
                continue
            f.restype = ctypes.c_char_p
            return f().decode()
    return "?"


def contenders(x, w):
    """name -> zero-argument callable returning a NumPy array."""
    tx, tw = tensortrace.constant(x), tensortrace.constant(w)
    runs = {
        "tensortrace": lambda: tensortrace.nn.conv2d(tx, tw, 1, "VALID").numpy(),
        "numpy-gemm": lambda: numpy_gemm(x, w),
    }
    try:
        import tensorflow as tf
    except ImportError:
        return runs
    fx, fw = tf.constant(x), tf.constant(w)
    runs["tensorflow"] = lambda: tf.nn.conv2d(fx, fw, 1, "VALID").numpy()
    return runs


def measure(runs, rounds, per_round, warmup):
    """Median seconds per contender. Each round runs every contender ``per_round`` times back to
    back (NumPy first, then a pause so OpenBLAS's spinning threads settle before TensorFlow), so
    load changes over the rounds hit all contenders alike."""
    order = sorted(runs, key=lambda name: name != "numpy-gemm")
    times = {name: [] for name in runs}
    for fn in runs.values():
        for _ in range(warmup):
            fn()
    for _ in range(rounds):
        for name in order:
            time.sleep(0.05)
            for _ in range(per_round):
                t = time.perf_counter()
                runs[name]()
                times[name].append(time.perf_counter() - t)
    return {name: float(np.median(v)) for name, v in times.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--per-round", type=int, default=5)
    p.add_argument("--warmup", type=int, default=2)
    args = p.parse_args()
    rng = np.random.default_rng(0)
    x = np.zeros(SHAPE, np.float32)
    w = rng.standard_normal(FILTERS).astype(np.float32)
    runs = contenders(x, w)
    # Correctness on a random input first: every contender computes the same thing.
    xr = rng.standard_normal(SHAPE).astype(np.float32)
    ref = numpy_gemm(xr, w)
    for name, fn in contenders(xr, w).items():
        err = float(np.abs(fn() - ref).max())
        assert err < 1e-2, f"{name} differs from the NumPy GEMM by {err}"
    med = measure(runs, args.rounds, args.per_round, args.warmup)
    print(f"conv2d {list(SHAPE)} * {list(FILTERS)} VALID, float32, {os.cpu_count()} cpus, "
          f"median of {args.rounds} rounds x {args.per_round} runs; "
          f"OpenBLAS kernels: {openblas_core()} "
          f"(OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')})")
    for name, t in med.items():
        print(f"  {name:12s} {t * 1e3:8.2f} ms")
    tt = med["tensortrace"]
    print(f"  tensortrace / numpy-gemm = {tt / med['numpy-gemm']:.2f}")
    if "tensorflow" in med:
        ratio = tt / med["tensorflow"]
        print(f"  tensortrace / tensorflow = {ratio:.2f}  (target <= 1.5: "
              f"{'met' if ratio <= 1.5 else 'NOT met'})")


if __name__ == "__main__":
    main()
