"""Eager dispatch cost: the same eager code on tensortrace, in plain NumPy and (when the running
interpreter has it) on TensorFlow, timed in one run. Run: python bench/bench_eager.py, and
the same with an interpreter that has TensorFlow for all three."""

import statistics
import time

import numpy as np
from _timing import load_tensorflow, median_time

import tensortrace as tt

TF = load_tensorflow()
TARGETS = {"power(x, 100)": 3.0, "x * x + 2": 10.0}  # tensortrace / NumPy must stay below these


def power_of(lib):
    """The seed's power(): ``result = x @ result`` 100 times through ``lib.matmul``."""

    def power(x, y):
        result = lib.eye(10, dtype=lib.int32)
        for _ in range(y):
            result = lib.matmul(x, result)
        return result

    return power


def scalar_expr(x):
    return x * x + 2


def workloads():
    """{workload: {implementation: (fn, check)}}: fn() runs the work, check() its result."""
    xn = np.random.default_rng(0).integers(-1, 2, (10, 10)).astype(np.int32)
    x_tt = tt.constant(xn)
    power_np, power_tt = power_of(np), power_of(tt)
    # The NumPy baseline for the scalar expression is a 0-d array, the NumPy value a tensor is:
    # TensorFlow eager is ~100x it, the figure (NumPy scalars are 4x faster again).
    s_np, s_tt = np.array(3, np.int32), tt.constant(3)
    table = {
        "power(x, 100)": {
            "numpy": lambda: power_np(xn, 100),
            "tensortrace": lambda: power_tt(x_tt, 100),
        },
        "x * x + 2": {
            "numpy": lambda: scalar_expr(s_np),
            "tensortrace": lambda: scalar_expr(s_tt),
        },
    }
    if TF is not None:
        power_tf, x_tf, s_tf = power_of(TF), TF.constant(xn), TF.constant(3)
        table["power(x, 100)"]["tensorflow"] = lambda: power_tf(x_tf, 100)
        table["x * x + 2"]["tensorflow"] = lambda: scalar_expr(s_tf)
    return table


def interleaved_medians(impls, repeat=41, budget=0.05):
    """Median seconds per call of each implementation, measured in alternation (batch by batch)
    so that a change in the machine's load affects them all alike and their ratios stay fair."""
    number = {}
    for name, fn in impls.items():
        fn()
        n, t = 1, 0.0
        while t < budget / 4:
            n *= 2
            start = time.perf_counter()
            for _ in range(n):
                fn()
            t = time.perf_counter() - start
        number[name] = n
    samples = {name: [] for name in impls}
    for _ in range(repeat):
        for name, fn in impls.items():
            start = time.perf_counter()
            for _ in range(number[name]):
                fn()
            samples[name].append((time.perf_counter() - start) / number[name])
    return {name: statistics.median(s) for name, s in samples.items()}


def check_agreement(impls):
    """Every implementation computes the same value and dtype as NumPy."""
    want = np.asarray(impls["numpy"]())
    for name, fn in impls.items():
        got = np.asarray(fn())
        assert got.dtype == want.dtype and np.array_equal(got, want), (name, got, want)


def main():
    print("eager: median time per call (many repeats), ratios measured in this run")
    print(f"{'workload':<16}{'numpy':>12}{'tensortrace':>14}{'tensorflow':>13}"
          f"{'tt/numpy':>10}{'tf/numpy':>10}  target")
    missed = []
    for workload, impls in workloads().items():
        check_agreement(impls)
        t = interleaved_medians(impls)
        ratio = t["tensortrace"] / t["numpy"]
        tf_time = f"{t['tensorflow'] * 1e6:10.2f} us" if "tensorflow" in t else f"{'-':>13}"
        tf_ratio = f"{t['tensorflow'] / t['numpy']:9.1f}x" if "tensorflow" in t else f"{'-':>10}"
        target = TARGETS[workload]
        verdict = "ok" if ratio <= target else "MISSED"
        if ratio > target:
            missed.append(workload)
        print(f"{workload:<16}{t['numpy'] * 1e6:9.2f} us{t['tensortrace'] * 1e6:11.2f} us"
              f"{tf_time}{ratio:9.1f}x{tf_ratio}  <= {target:g}x {verdict}")
    a = np.int32(3)  # context: NumPy's scalar type skips the array machinery entirely
    t_scalar = median_time(lambda: scalar_expr(a), repeat=31)
    print(f"(x * x + 2 on a NumPy scalar instead of a 0-d array: {t_scalar * 1e6:.2f} us)")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
