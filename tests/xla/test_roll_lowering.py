"""tf.roll under jit_compile=True (Keras' float8 layers roll their amax history in compiled train
steps): TF 2.21's values with XLA, the shift computed or constant, repeated axes adding up."""

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
