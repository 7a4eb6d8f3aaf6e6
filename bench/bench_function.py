"""tf.function call costs: tensortrace graphs vs the same work in plain NumPy (and TensorFlow
when the interpreter has it). Run: python bench/bench_function.py [and with an interpreter that
has TF]."""

import time

import numpy as np
from _timing import load_jax, load_tensorflow, median_time, paired_ratio, report

import tensortrace as tt

TF = load_tensorflow()
JAX = load_jax()


def scalar_expr():
    def f(x):
        return x * x + 2

    # NumPy baseline: a 0-d array, what a tensor holds (TF's tf.function is ~370x it, the issue's
    # figure); NumPy's scalar type, 4x faster still, is shown for context.
    xn, xs = np.array(3.0, np.float32), np.float32(3.0)
    rows = [("numpy", median_time(lambda: xn * xn + 2)),
            ("numpy scalar type", median_time(lambda: xs * xs + 2))]
    g, x = tt.function(f), tt.constant(3.0)
    rows.append(("tensortrace function", median_time(lambda: g(x))))
    if TF:
        h, y = TF.function(f), TF.constant(3.0)
        rows.append(("tensorflow function", median_time(lambda: h(y))))
    report("cache-hit call of f(x) = x * x + 2 on a float32 scalar", rows)


def power():
    def make(lib):
        def power(x, y):
            result = lib.eye(10, dtype=lib.int32)
            for _ in range(y):
                result = lib.matmul(x, result)
            return result
        return power

    xn = np.random.default_rng(0).integers(0, 3, (10, 10)).astype(np.int32)
    eye = np.eye(10, dtype=np.int32)

    def numpy_power():
        result = eye
        for _ in range(100):
            result = xn @ result
        return result

    rows = [("numpy", median_time(numpy_power))]
    g, x = tt.function(make(tt)), tt.constant(xn)
    np.testing.assert_array_equal(g(x, 100).numpy(), numpy_power())
    rows.append(("tensortrace function", median_time(lambda: g(x, 100))))
    rows.append(("tensortrace eager", median_time(lambda: make(tt)(x, 100))))
    if JAX:  # jit_compile=True (XLA through JAX), and JAX's own jax.jit on the same code
        jit = tt.function(make(tt), jit_compile=True)
        np.testing.assert_array_equal(jit(x, 100).numpy(), numpy_power())
        ref = JAX.jit(lambda x: make(JAX.numpy)(x, 100))
        rows += [("tensortrace jit_compile", median_time(lambda: jit(x, 100))),
                 ("jax.jit", median_time(lambda: np.asarray(ref(xn))))]
    if TF:
        h, y = TF.function(make(TF)), TF.constant(xn)
        rows.append(("tensorflow function", median_time(lambda: h(y, 100))))
    report("power(x, 100): 100 matmuls of a 10x10 int32 matrix", rows)
    if JAX:
        ours = paired_ratio(lambda: jit(x, 100), lambda: g(x, 100))
        theirs = paired_ratio(lambda: np.asarray(ref(xn)), lambda: g(x, 100))
        direct = paired_ratio(lambda: jit(x, 100), lambda: np.asarray(ref(xn)))
        print(f"  jit_compile / function = {ours:.2f}x (target 0.96), jax.jit / function = "
              f"{theirs:.2f}x, jit_compile / jax.jit = {direct:.2f}x (target 1.5) (medians of "
              "paired runs)")


def mse():
    def make(lib):
        def get_MSE(y_true, y_pred):
            sq_diff = lib.pow(y_true - y_pred, 2)
            return lib.reduce_mean(sq_diff)
        return get_MSE

    a, b = np.array([5, 1, 4, 3, 2], np.int32), np.array([1, 2, 3, 4, 5], np.int32)
    rows = [("numpy", median_time(lambda: np.sum((a - b) ** 2) // 5))]
    g, x, y = tt.function(make(tt)), tt.constant(a), tt.constant(b)
    rows.append(("tensortrace function", median_time(lambda: g(x, y))))
    if TF:
        h, x2, y2 = TF.function(make(TF)), TF.constant(a), TF.constant(b)
        rows.append(("tensorflow function", median_time(lambda: h(x2, y2))))
    report("get_MSE on 5 int32 values", rows)


def first_call():
    def make(lib):
        def chain(x):
            for i in range(50):
                x = lib.tanh(x * 1.01 + 0.5) - x / 3.0
            return x
        return chain

    def once(lib, arg):
        start = time.perf_counter()
        lib.function(make(lib))(arg)
        return time.perf_counter() - start

    xn = np.linspace(-1, 1, 16).astype(np.float32)
    rows = [("tensortrace", np.median([once(tt, tt.constant(xn)) for _ in range(5)]))]
    if TF:
        rows.append(("tensorflow", np.median([once(TF, TF.constant(xn)) for _ in range(3)])))
    print("\nfirst call (trace + compile + run) of a 200-op function")
    for name, t in rows:
        print(f"  {name:<22} {t * 1e3:10.1f} ms   {t / rows[0][1]:6.2f}x tensortrace")


if __name__ == "__main__":
    scalar_expr()
    power()
    mse()
    first_call()
