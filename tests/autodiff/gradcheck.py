"""Gradient checks against central finite differences, in float64, eagerly and inside
``tf.function`` (with static and with unknown dims), to first and second order.

    check(GradCase(tf.math.sin, (rand(3),)))

The analytic side is a vector-Jacobian product ``tape.gradient(y, xs, output_gradients=u)``
for a random ``u``; the numeric side perturbs each input element by +-eps. The second order
differentiates ``sum(v * vjp(xs))`` with a nested tape and compares it the same way.
"""

import dataclasses
import zlib
from typing import Callable

import numpy as np

import tensortrace as tf

RNG = np.random.default_rng(7)
EPS = 1e-6


@dataclasses.dataclass
class GradCase:
    fn: Callable                  # public ops on tensors; ndarray args become tensors
    args: tuple                   # float64 arrays are differentiated; other arrays are not
    order: int = 2                # 1: first order only (the function is not smooth enough)
    dynamic: bool = True          # also trace with unknown dims
    rtol: float = 1e-5
    atol: float = 1e-6
    id: str = ""

    def __str__(self):
        return self.id or getattr(self.fn, "__name__", "case")


def rand(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape)


def distinct(*shape, low=-2.0, high=2.0):
    """Random values at least 1e-2 apart (no ties for max/min/sort)."""
    n = int(np.prod(shape, dtype=np.int64))
    values = np.linspace(low, high, n) + RNG.uniform(-1e-3, 1e-3, n)
    return RNG.permutation(values).reshape(shape)


def _differentiable(a):
    return isinstance(a, np.ndarray) and a.dtype == np.float64


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [y for x in out for y in _flat(x)]
    return [out]


def _float_outputs(out):
    return [y for y in _flat(out) if y.dtype.is_floating]


def _seeds(case):
    """Random cotangents for the float outputs (fixed per case)."""
    tensors = [tf.constant(a) for a in case.args if isinstance(a, np.ndarray)]
    out = _call(case, tensors)
    rng = np.random.default_rng(zlib.crc32(str(case).encode()))
    return [rng.uniform(-1, 1, y.shape.as_list()) for y in _float_outputs(out)]


def _call(case, tensors):
    it = iter(tensors)
    args = [next(it) if isinstance(a, np.ndarray) else a for a in case.args]
    return case.fn(*args)


def _vjp(case, tensors, seeds):
    """Gradients of sum(u * f(xs)) for the float64 inputs (None where unconnected)."""
    wrt = [t for t, a in zip(tensors, _array_args(case)) if _differentiable(a)]
    with tf.GradientTape() as tape:
        tape.watch(wrt)
        ys = _float_outputs(_call(case, tensors))
    grads = tape.gradient(ys, wrt, output_gradients=[tf.constant(u) for u in seeds])
    # an axis-0 gather's gradient is an IndexedSlices (as in TF): compared densified
    return [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g for g in grads]


def _hvp(case, tensors, seeds, vs):
    """Gradients of sum(v * vjp(xs)): the second order."""
    wrt = [t for t, a in zip(tensors, _array_args(case)) if _differentiable(a)]
    with tf.GradientTape() as outer:
        outer.watch(wrt)
        grads = _vjp(case, tensors, seeds)
        total = tf.add_n([tf.reduce_sum(g * v) for g, v in zip(grads, vs) if g is not None]
                         or [tf.constant(0.0, tf.float64)])
    return outer.gradient(total, wrt)


def _array_args(case):
    return [a for a in case.args if isinstance(a, np.ndarray)]


def _numeric(fn, arrays, index):
    """Central differences of the scalar ``fn(arrays)`` w.r.t. ``arrays[index]``."""
    x = arrays[index]
    out = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        plus, minus = [a.copy() for a in arrays], [a.copy() for a in arrays]
        plus[index][j] += EPS
        minus[index][j] -= EPS
        out[j] = (fn(plus) - fn(minus)) / (2 * EPS)
    return out


def _as_numpy(grads, arrays):
    return [np.zeros_like(a) if g is None else np.asarray(g) for g, a in
            zip(grads, [a for a in arrays if _differentiable(a)])]


def first_order(case, mode="eager"):
    """(analytic, numeric) gradients of sum(u * f(xs)) for each float64 input."""
    arrays = _array_args(case)
    seeds = _seeds(case)
    run = _runner(case, mode, lambda *ts: _vjp(case, list(ts), seeds))
    analytic = run(arrays)

    def scalar(values):
        out = _float_outputs(_call(case, [tf.constant(v) for v in values]))
        return sum(float(np.sum(np.asarray(y) * u)) for y, u in zip(out, seeds))

    numeric = [_numeric(scalar, arrays, i) for i, a in enumerate(arrays) if _differentiable(a)]
    return analytic, numeric


def second_order(case, mode="eager"):
    arrays = _array_args(case)
    seeds = _seeds(case)
    rng = np.random.default_rng(3)
    vs = [rng.uniform(-1, 1, a.shape) for a in arrays if _differentiable(a)]
    run = _runner(case, mode, lambda *ts: _hvp(case, list(ts), seeds, vs))
    analytic = run(arrays)

    def scalar(values):
        grads = _vjp(case, [tf.constant(v) for v in values], seeds)
        return sum(float(np.sum(np.asarray(g) * v)) for g, v in zip(grads, vs) if g is not None)

    numeric = [_numeric(scalar, arrays, i) for i, a in enumerate(arrays) if _differentiable(a)]
    return analytic, numeric


def _runner(case, mode, body):
    """Run ``body`` on the case's arrays eagerly or as a tf.function; returns the gradients
    (tensors or None), as a list."""
    arrays = _array_args(case)
    if mode == "eager":
        return lambda values: list(body(*[tf.constant(v) for v in values]))
    if mode == "graph":
        signature = [tf.TensorSpec(a.shape, tf.as_dtype(a.dtype)) for a in arrays]
    else:  # unknown dims
        signature = [tf.TensorSpec([None] * a.ndim, tf.as_dtype(a.dtype)) for a in arrays]
    fn = tf.function(_wrap_none(body), input_signature=[signature], autograph=False)
    return lambda values: _unwrap_none(fn([tf.constant(v) for v in values]))


def _wrap_none(body):
    """tf.function outputs cannot be None: return (flags, values) instead."""

    def fn(ts):
        grads = list(body(*ts))
        return [tf.constant(g is not None) for g in grads], \
            [g if g is not None else tf.constant(0.0, tf.float64) for g in grads]

    return fn


def _unwrap_none(out):
    flags, values = out
    return [v if bool(f.numpy()) else None for f, v in zip(flags, values)]


def assert_close(analytic, numeric, case):
    assert len(analytic) == len(numeric)
    for i, (a, n) in enumerate(zip(analytic, numeric)):
        a = np.zeros_like(n) if a is None else np.asarray(a)
        assert a.shape == n.shape, f"input {i}: gradient shape {a.shape} != {n.shape}"
        np.testing.assert_allclose(a, n, rtol=case.rtol, atol=case.atol,
                                   err_msg=f"input {i} of {case}")


def check(case, mode="eager", order=1):
    analytic, numeric = (first_order if order == 1 else second_order)(case, mode)
    for g in analytic:
        assert g is None or g.dtype == tf.float64, f"gradient dtype {g.dtype}"
    assert_close(analytic, numeric, case)


def op_types(case):
    """The op types the case's forward computation uses (traced)."""
    arrays = _array_args(case)
    fn = tf.function(lambda *ts: _call(case, list(ts)), autograph=False)
    concrete = fn.get_concrete_function(*[tf.TensorSpec(a.shape, tf.as_dtype(a.dtype))
                                          for a in arrays])
    return {op.type for op in concrete.graph.get_operations()}

