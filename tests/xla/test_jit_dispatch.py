"""How a jit_compile call reaches its executable: static 32-bit feeds call the executable
compiled ahead of time (new shapes and variables' new shapes compile again), other feeds go
through jax.jit in 64-bit mode; CPU executables run in the calling thread unless the process
chose JAX's asynchronous dispatch (the setting is made before JAX's CPU client exists)."""

import numpy as np
import pytest

import tensortrace as tf

pytest.importorskip("jax")  # the optional extra: pip install 'tensortrace[xla]'


def test_static_feeds_across_shapes_and_calls():
    f = tf.function(lambda x, n: tf.tanh(x) * tf.cast(n, tf.float32) + 1.0, jit_compile=True)
    rng = np.random.default_rng(5)
    for shape in [(3,), (3,), (2, 4), (3,)]:
        x = rng.normal(size=shape).astype(np.float32)
        got = f(tf.constant(x), tf.constant(3, tf.int32))
        assert got.dtype == tf.float32 and got.shape == shape
        np.testing.assert_allclose(got.numpy(), np.tanh(x) * 3 + 1, rtol=1e-6)
    assert f.experimental_get_tracing_count() == 2


def test_wide_and_unknown_shaped_feeds_keep_dtypes_and_values():
    f = tf.function(lambda x, i: (x * 2.0, i + 1, tf.argmax(x)), jit_compile=True,
                    input_signature=[tf.TensorSpec([None], tf.float64),
                                     tf.TensorSpec([], tf.int64)])
    for n in (3, 5):
        x = np.linspace(-1, 1, n)
        a, b, c = f(tf.constant(x), tf.constant(2 ** 40, tf.int64))
        assert (a.dtype, b.dtype, c.dtype) == (tf.float64, tf.int64, tf.int64)
        np.testing.assert_array_equal(a.numpy(), x * 2.0)
        assert int(b) == 2 ** 40 + 1 and int(c) == n - 1


def test_variable_of_changing_shape_compiles_again():
    v = tf.Variable(np.ones(2, np.float32), shape=tf.TensorShape(None))

    @tf.function(jit_compile=True)
    def grow(x):
        v.assign(tf.concat([v, x], 0))
        return tf.reduce_sum(v)

    total = 2.0
    for k in range(1, 4):
        x = np.full(k, float(k), np.float32)
        total += x.sum()
        np.testing.assert_allclose(grow(tf.constant(x)).numpy(), total)
    np.testing.assert_array_equal(v.numpy(), [1, 1, 1, 2, 2, 3, 3, 3])


def test_dispatch_setting_left_to_the_process(monkeypatch):
    import jax  # the optional extra: after the skip

    from tensortrace import xla

    updates = []
    monkeypatch.setattr(jax.config, "update", lambda *a: updates.append(a))
    xla._synchronous_cpu()  # JAX's CPU client exists already: too late, left alone
    monkeypatch.setattr(xla.xla_bridge, "backends_are_initialized", lambda: False)
    monkeypatch.setenv("JAX_CPU_ENABLE_ASYNC_DISPATCH", "1")
    xla._synchronous_cpu()  # the process chose
    assert updates == []
    monkeypatch.delenv("JAX_CPU_ENABLE_ASYNC_DISPATCH")
    xla._synchronous_cpu()
    assert updates == [("jax_cpu_enable_async_dispatch", False)]
    assert jax.config.read("jax_cpu_enable_async_dispatch") in (True, False)  # JAX's option
