"""jit_compile=True on a 200-op elementwise chain: hand-written NumPy, tensortrace's NumPy path,
the same tf.function with jit_compile=True (XLA through JAX), and JAX's own jax.jit on the same
code, on 64 and on 1M float32 values. Ratios are medians of paired runs; the targets: on [64]
within 1.5x of jax.jit (0.1x NumPy where jax.jit is 0.067x), on [1M] at most 0.3x NumPy. Run:
python bench/bench_chain_jit.py (needs the xla extra: pip install 'tensortrace[xla]')."""

from types import SimpleNamespace

import numpy as np
from _timing import median_time, paired_ratio, report
from bench_chain import NP, make  # the same chain as the NumPy-path benchmark

import tensortrace as tt

try:
    import jax
    from jax import numpy as jnp
except ImportError:
    jax = None


def run(n):
    xn = np.random.default_rng(0).normal(size=n).astype(np.float32)
    x = tt.constant(xn)
    plain, jitted = tt.function(make(tt)), tt.function(make(tt), jit_compile=True)
    np.testing.assert_allclose(jitted(x).numpy(), plain(x).numpy(), rtol=1e-4, atol=1e-5)
    by_hand = make(NP)
    rows = [("numpy", median_time(lambda: by_hand(xn))),
            ("tensortrace function", median_time(lambda: plain(x))),
            ("tensortrace jit_compile", median_time(lambda: jitted(x)))]
    ratios = {"jit_compile / numpy path": paired_ratio(lambda: jitted(x), lambda: plain(x)),
              "jit_compile / numpy": paired_ratio(lambda: jitted(x), lambda: by_hand(xn))}
    if jax is not None:
        lib = SimpleNamespace(tanh=jnp.tanh, sqrt=jnp.sqrt, abs=jnp.abs, maximum=jnp.maximum,
                              exp=jnp.exp, minimum=jnp.minimum)
        ref = jax.jit(make(lib))

        def reference():
            return np.asarray(ref(xn))

        reference()
        rows.append(("jax.jit", median_time(reference)))
        ratios["jax.jit / numpy path"] = paired_ratio(reference, lambda: plain(x))
        ratios["jax.jit / numpy"] = paired_ratio(reference, lambda: by_hand(xn))
        ratios["jit_compile / jax.jit"] = paired_ratio(lambda: jitted(x), reference)
    report(f"200-op elementwise chain on {n} float32 values", rows,
           baseline="tensortrace function")
    for name, r in ratios.items():
        print(f"  {name:<28} {r:.2f}x (median of paired runs)")
    return ratios


if __name__ == "__main__":
    run(64)
    run(1 << 20)
