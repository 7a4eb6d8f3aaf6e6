"""One SGD training step of a 784-256-128-10 MLP (relu, softmax cross-entropy, batch 64):
tensortrace as a tf.function and eagerly, against the same step hand-written in NumPy with manual
backprop (and TensorFlow when the interpreter has it). With JAX installed: the tf.function with
jit_compile=True, and the step hand-written for ``jax.jit`` with its parameters kept as JAX
arrays between calls (XLA's own time for the step: the floor of jit_compile's).

Run: python bench/bench_training.py   (or with an interpreter that has TensorFlow)
"""

import os
import time

# One BLAS thread for every candidate: on a shared 2-core machine, threaded BLAS makes the
# timings depend on the other processes' load more than on the code measured.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np
from _timing import load_jax, load_tensorflow, report

import tensortrace as tt

TF = load_tensorflow()
SIZES = (784, 256, 128, 10)
BATCH, LR = 64, 0.1


def initial_params(seed=0):
    rng = np.random.default_rng(seed)
    ws = [rng.normal(0, np.sqrt(2 / a), (a, b)).astype(np.float32)
          for a, b in zip(SIZES[:-1], SIZES[1:])]
    bs = [np.zeros(b, np.float32) for b in SIZES[1:]]
    return ws, bs


def data(seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(BATCH, SIZES[0])).astype(np.float32)
    labels = np.eye(SIZES[-1], dtype=np.float32)[rng.integers(0, SIZES[-1], BATCH)]
    return x, labels


def numpy_step(ws, bs, x, labels):
    """Forward, manual backward, in-place SGD update; returns the loss."""
    activations, h = [x], x
    for i, (w, b) in enumerate(zip(ws, bs)):
        h = h @ w + b
        if i < len(ws) - 1:
            h = np.maximum(h, 0)
        activations.append(h)
    logits = activations[-1]
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    loss = np.mean(np.sum(labels * (np.log(total) - shifted), axis=1))
    dh = (exp / total - labels) / np.float32(BATCH)
    for i in range(len(ws) - 1, -1, -1):
        dw, db = activations[i].T @ dh, dh.sum(axis=0)
        if i:
            dh = (dh @ ws[i].T) * (activations[i] > 0)
        ws[i] -= LR * dw
        bs[i] -= LR * db
    return loss


def make_step(lib, ws, bs):
    """The training step written against a TF-compatible ``lib``."""
    params = [v for pair in zip(ws, bs) for v in pair]

    def step(x, labels):
        with lib.GradientTape() as tape:
            h = x
            for i, (w, b) in enumerate(zip(ws, bs)):
                h = lib.matmul(h, w) + b
                if i < len(ws) - 1:
                    h = lib.nn.relu(h)
            loss = lib.reduce_mean(lib.nn.softmax_cross_entropy_with_logits(labels, h))
        grads = tape.gradient(loss, params)
        for v, g in zip(params, grads):
            v.assign_sub(LR * g)
        return loss

    return step


def variables(lib):
    ws, bs = initial_params()
    return [lib.Variable(w) for w in ws], [lib.Variable(b) for b in bs]


def jax_step(jax, ws, bs):
    """The step written for ``jax.jit`` (``value_and_grad``); the parameters stay JAX arrays
    between calls and the loss comes back as NumPy, as jit_compile's does."""
    jnp = jax.numpy

    def loss_of(params, x, labels):
        h = x
        for i in range(len(ws)):
            h = h @ params[2 * i] + params[2 * i + 1]
            if i < len(ws) - 1:
                h = jax.nn.relu(h)
        return jnp.mean(-jnp.sum(labels * jax.nn.log_softmax(h), axis=1))

    @jax.jit
    def update(params, x, labels):
        loss, grads = jax.value_and_grad(loss_of)(params, x, labels)
        return loss, [p - LR * g for p, g in zip(params, grads)]

    params = [jnp.asarray(p) for pair in zip(ws, bs) for p in pair]

    def step(x, labels):
        nonlocal params
        loss, params = update(params, x, labels)
        return np.asarray(loss)
    return step


def check_losses(step, x, labels, steps=3, convert=tt.constant):
    """The first losses agree with NumPy's (the steps really train)."""
    ws, bs = initial_params()
    expected = [numpy_step(ws, bs, x, labels) for _ in range(steps)]
    got = [float(step(convert(x), convert(labels))) for _ in range(steps)]
    np.testing.assert_allclose(got, expected, rtol=2e-4)


def interleaved(candidates, rounds=30, number=5, warm=5):
    """Seconds per call of each ``(name, fn)``, timed in alternating rounds so that load from
    other processes hits them alike; the best round of each is kept. Each round times the
    candidate's calls after ``warm`` untimed ones, as a training loop calls its step back to
    back: the first calls after another candidate pay for it (the caches it evicted, XLA's
    thread pool gone idle), which would charge whichever candidate follows in the order."""
    best = {name: float("inf") for name, _ in candidates}
    for name, fn in candidates:
        fn()
    for _ in range(rounds):
        for name, fn in candidates:
            for _ in range(warm):
                fn()
            start = time.perf_counter()
            for _ in range(number):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / number)
    return [(name, best[name]) for name, _ in candidates]


def main():
    x, labels = data()
    ws, bs = initial_params()
    tx, tl = tt.constant(x), tt.constant(labels)
    check_losses(tt.function(make_step(tt, *variables(tt))), x, labels)
    check_losses(make_step(tt, *variables(tt)), x, labels)
    graph_step = tt.function(make_step(tt, *variables(tt)))
    eager_step = make_step(tt, *variables(tt))
    candidates = [("numpy", lambda: numpy_step(ws, bs, x, labels)),
                  ("tensortrace function", lambda: graph_step(tx, tl)),
                  ("tensortrace eager", lambda: eager_step(tx, tl))]
    jax = load_jax()
    if jax:  # jit_compile=True: the step compiled with XLA through JAX
        check_losses(tt.function(make_step(tt, *variables(tt)), jit_compile=True), x, labels)
        jit_step = tt.function(make_step(tt, *variables(tt)), jit_compile=True)
        check_losses(jax_step(jax, *initial_params()), x, labels, convert=jax.numpy.asarray)
        by_jax, jx, jl = jax_step(jax, *initial_params()), jax.numpy.asarray(x), \
            jax.numpy.asarray(labels)
        candidates += [("tensortrace jit_compile", lambda: jit_step(tx, tl)),
                       ("jax.jit", lambda: by_jax(jx, jl))]
    if TF:
        fx, fl = TF.constant(x), TF.constant(labels)
        tf_graph = TF.function(make_step(TF, *variables(TF)))
        tf_eager = make_step(TF, *variables(TF))
        candidates += [("tensorflow function", lambda: tf_graph(fx, fl)),
                       ("tensorflow eager", lambda: tf_eager(fx, fl))]
    rows = interleaved(candidates)
    report(f"one SGD step, MLP {'-'.join(map(str, SIZES))}, batch {BATCH} "
           "(targets: function <= 1.3x numpy, eager <= 3x)", rows)
    best = dict(rows)
    if "tensortrace jit_compile" in best:
        print(f"  jit_compile / function = "
              f"{best['tensortrace jit_compile'] / best['tensortrace function']:.2f}x "
              "(target 1.05, the NumPy path)")
        print(f"  jit_compile / jax.jit  = "
              f"{best['tensortrace jit_compile'] / best['jax.jit']:.2f}x")


if __name__ == "__main__":
    main()
