"""tf.roll and tensor_scatter_nd_update under jit_compile=True (Keras' float8 layers keep their amax
history with them in compiled train steps): TF 2.21's values with XLA."""

import numpy as np
import pytest

import tensortrace as tf

pytest.importorskip("jax")  # the optional extra: pip install 'tensortrace[xla]'


def test_roll_compiles_with_tf_values():
    x = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))

    @tf.function(jit_compile=True)
    def f(x, s):
        return tf.roll(x, s, 2), tf.roll(x, [1, s, -1], [0, 2, 2]), tf.roll(x, -4, 1)

    out = f(x, tf.constant(3))
    expected = [[1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8],
                [14, 15, 12, 13, 18, 19, 16, 17, 22, 23, 20, 21],
                [4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3]]
    for got, first in zip(out, expected):
        assert got.shape == (2, 3, 4) and got.dtype == tf.float32
        np.testing.assert_array_equal(got.numpy().ravel()[:12], first)
    np.testing.assert_array_equal(out[1].numpy(), np.roll(x.numpy(), (1, 2), (0, 2)))


def test_tensor_scatter_update_compiles_with_tf_values():
    # Keras' float8 layers write their amax history with it in compiled train steps
    t = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))

    @tf.function(jit_compile=True)
    def f(t, i):
        return (tf.tensor_scatter_nd_update(t, [[1], [3]], [[9., 9., 9.], [8., 8., 8.]]),
                tf.tensor_scatter_nd_update(t, [[0, 2], [2, 1]], [-1., -2.]),
                tf.tensor_scatter_nd_update(t, tf.reshape(i, [1, 1]), [[7., 7., 7.]]))

    expected = [[0, 1, 2, 9, 9, 9, 6, 7, 8, 8, 8, 8], [0, 1, -1, 3, 4, 5, 6, -2, 8, 9, 10, 11],
                [0, 1, 2, 3, 4, 5, 7, 7, 7, 9, 10, 11]]
    for got, want in zip(f(t, tf.constant(2)), expected):
        assert got.shape == (4, 3) and got.dtype == tf.float32
        np.testing.assert_array_equal(got.numpy().ravel(), want)
