"""Shared timing helpers for the benchmarks: medians of repeated runs, ratios in one run."""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def median_time(fn, number=None, repeat=15, budget=0.2):
    """Median seconds per call of ``fn`` over ``repeat`` batches of ``number`` calls."""
    fn()
    if number is None:
        number, t = 1, 0.0
        while t < budget / repeat and number < 1 << 20:
            start = time.perf_counter()
            for _ in range(number):
                fn()
            t = time.perf_counter() - start
            number *= 2
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def load_tensorflow():
    """TensorFlow when the running interpreter has it (a virtual environment with TensorFlow
    2.21), else None."""
    try:
        import os

        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow

        return tensorflow
    except ImportError:
        return None


def report(title, rows, baseline="numpy"):
    """Print one table: time per call and the ratio to ``baseline``."""
    base = dict(rows)[baseline]
    print(f"\n{title}")
    for name, t in rows:
        print(f"  {name:<22} {t * 1e6:12.2f} us   {t / base:7.2f}x {baseline}")


def paired_ratio(f, g, rounds=41, budget=0.01):
    """Median over ``rounds`` of time(f) / time(g), the two timed back to back each round, so
    load from other processes hits both alike."""
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            g()
        if time.perf_counter() - start > budget:
            break
        number *= 2
    ratios = []
    for _ in range(rounds):
        times = []
        for fn in (f, g):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            times.append(time.perf_counter() - start)
        ratios.append(times[0] / times[1])
    return statistics.median(ratios)


def load_jax():
    """JAX when installed (the xla extra), else None: the jax.jit reference columns."""
    try:
        import jax

        return jax
    except ImportError:
        return None
