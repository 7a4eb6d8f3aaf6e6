"""A ``jit_compile=True`` function called inside a plain tf.function is one call op (TF's
PartitionedCall / StatefulPartitionedCall marked ``_XlaMustCompile``) run through XLA, as TF runs
it as its own cluster: the values, variable updates and gradients of the NumPy path."""

import numpy as np
import pytest

import tensortrace as tf

pytest.importorskip("jax")  # the optional extra: pip install 'tensortrace[xla]'

from tensortrace.xla.compiler import XlaCompiledGraph  # needs jax: after the skip

RNG = np.random.default_rng(3)


@pytest.fixture
def xla_runs(monkeypatch):
    """The names of the graphs XLA ran, in order."""
    runs = []
    call = XlaCompiledGraph.__call__

    def counted(self, *feeds):
        runs.append(self.name)
        return call(self, *feeds)

    monkeypatch.setattr(XlaCompiledGraph, "__call__", counted)
    return runs


def op_types(fn, *args):
    return [op.type for op in fn.get_concrete_function(*args).graph.get_operations()]


def test_inner_call_is_one_compiled_call_op(xla_runs):
    def body(x):
        return tf.tanh(x) * 2.0, tf.reduce_sum(x * x)

    inner = tf.function(body, jit_compile=True)

    @tf.function
    def outer(x):
        a, b = inner(x)
        return a + b

    @tf.function
    def reference(x):
        a, b = body(x)
        return a + b

    x = tf.constant(RNG.normal(size=(3, 4)).astype(np.float32))
    got = outer(x)
    np.testing.assert_allclose(got.numpy(), reference(x).numpy(), rtol=1e-6, atol=1e-6)
    assert xla_runs and all(name.startswith("__inference_body_") for name in xla_runs)
    types = op_types(outer, x)
    assert "PartitionedCall" in types and "Tanh" not in types  # not inlined
    call = next(op for op in outer.get_concrete_function(x).graph.get_operations()
                if op.type == "PartitionedCall")
    assert call.attrs["_XlaMustCompile"] is True and [t.shape for t in call.outputs] == \
        [tf.TensorShape([3, 4]), tf.TensorShape([])]
    assert "PartitionedCall" not in op_types(tf.function(lambda x: body(x)[0]), x)


def test_stateful_call_updates_variables_as_numpy():
    def program(v, jit):
        @tf.function(jit_compile=jit)
        def step(x):
            v.assign_add(x * 0.5)
            return v * x

        return tf.function(lambda x: step(x) + step(x * 2.0))

    results = {}
    for jit in (True, False):
        v = tf.Variable([1.0, 2.0, 3.0])
        outer = program(v, jit)
        x = tf.constant([0.5, -1.0, 2.0])
        results[jit] = ([outer(x).numpy() for _ in range(2)], v.numpy())
        if jit:
            assert "StatefulPartitionedCall" in op_types(outer, x)
    np.testing.assert_allclose(results[True][0], results[False][0], rtol=1e-6)
    np.testing.assert_allclose(results[True][1], results[False][1], rtol=1e-6)
    np.testing.assert_allclose(results[True][1], [1 + 3 * 0.5, 2 - 3 * 1.0, 3 + 3 * 2.0])


def test_gradients_through_the_call_run_compiled(xla_runs):
    w = tf.Variable(RNG.normal(size=(4, 2)).astype(np.float32))

    def body(x):
        return tf.reduce_sum(tf.sin(tf.matmul(x, w)) * x[:, :2])

    inner = tf.function(body, jit_compile=True)

    def grads_of(fn):
        @tf.function
        def outer(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = fn(x)
            return tape.gradient(y, [x, w])
        return outer

    x = tf.constant(RNG.normal(size=(3, 4)).astype(np.float32))
    got = grads_of(inner)(x)
    assert any(name.endswith("_grad") or "backward" in name or "grad" in name
               for name in xla_runs)  # the backward function ran through XLA too
    expected = grads_of(body)(x)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)
    # and against finite differences of the NumPy values
    xn, wn = x.numpy().astype(np.float64), w.numpy().astype(np.float64)
    def f(a):
        return np.sum(np.sin(a @ wn) * a[:, :2])

    eps, num = 1e-6, np.zeros_like(xn)
    for i in np.ndindex(xn.shape):
        d = np.zeros_like(xn)
        d[i] = eps
        num[i] = (f(xn + d) - f(xn - d)) / (2 * eps)
    np.testing.assert_allclose(got[0].numpy(), num, rtol=1e-3, atol=1e-4)


def test_eager_tape_over_outer_function_differentiates_the_call():
    inner = tf.function(lambda x: tf.exp(x) * x, jit_compile=True)
    outer = tf.function(lambda x: inner(x) + 1.0)
    x = tf.constant([0.1, -0.4, 1.2])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    xn = x.numpy()
    np.testing.assert_allclose(y.numpy(), np.exp(xn) * xn + 1.0, rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.exp(xn) * (xn + 1), rtol=1e-5)


def test_must_compile_inside_a_plain_function():
    @tf.function(jit_compile=True)
    def inner(x):
        tf.print(x)
        return x + 1

    @tf.function
    def outer(x):
        return inner(x) * 2

    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Detected unsupported operations when trying to compile graph "
                             "__inference_inner_"):
        outer(tf.constant(1.0))


def test_jit_inside_jit_is_one_cluster(xla_runs):
    v = tf.Variable([1.0, 2.0])

    @tf.function(jit_compile=True)
    def inner(x):
        v.assign_add(x)
        return tf.tanh(x) * v

    @tf.function(jit_compile=True)
    def outer(x):
        return inner(x) + 1.0

    x = tf.constant([0.5, 1.0])
    np.testing.assert_allclose(outer(x).numpy(), np.tanh([0.5, 1.0]) * [1.5, 3.0] + 1,
                               rtol=1e-6)
    np.testing.assert_allclose(v.numpy(), [1.5, 3.0])
    assert not xla_runs  # no separate cluster: the call lowered into the outer one
    assert isinstance(outer.get_concrete_function(x)._executable(), XlaCompiledGraph)
    assert inner.get_concrete_function(x)._compiled is None


@pytest.mark.parametrize("jit", [False, True])
def test_gradient_of_a_writing_call_writes_once(jit):
    # TF 2.21: y [1.5, 6], dy/dx [3, 6], dy/dv [1, 2], v [1.5, 3], with and without
    # jit_compile: the forward's write is not made again to recompute it for the gradient
    v = tf.Variable([1.0, 2.0])
    inner = tf.function(lambda x: (v.assign_add(x), v * x)[1], jit_compile=jit)
    outer = tf.function(lambda x: inner(x) * 2.0)
    x = tf.constant([0.5, 1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    dx, dv = tape.gradient(y, [x, v])
    np.testing.assert_allclose(y.numpy(), [1.5, 6.0])
    np.testing.assert_allclose(dx.numpy(), [3.0, 6.0])
    np.testing.assert_allclose(dv.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(v.numpy(), [1.5, 3.0])
