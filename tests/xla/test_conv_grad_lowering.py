"""Convolution gradients under jit_compile=True: the Conv2D/Conv3D backprop ops lower to XLA
(Keras' convolution layers train in compiled functions); values are TF 2.21's with XLA."""

import numpy as np
import pytest

import tensortrace as tf

pytest.importorskip("jax")  # the optional extra: pip install 'tensortrace[xla]'


def _grads(conv, x_shape, w_shape, **kw):
    x = tf.constant(np.arange(np.prod(x_shape), dtype=np.float32).reshape(x_shape) / 10)
    w = tf.constant(np.cos(np.arange(np.prod(w_shape), dtype=np.float32)).reshape(w_shape))

    def f(x, w):
        with tf.GradientTape() as t:
            t.watch([x, w])
            y = conv(x, w, **kw)
            loss = tf.reduce_sum(y * y)
        return t.gradient(loss, [x, w])

    return tf.function(f, jit_compile=True)(x, w), f(x, w)


# the first six values of d(loss)/dx and d(loss)/dw, TF 2.21 under jit_compile=True
CASES = [
    ((tf.nn.conv2d, (1, 5, 5, 2), (3, 3, 2, 3)), dict(strides=2, padding="SAME"),
     [0.039, 0.124, 0.519, -0.06, 0.187, 0.13],
     [29.974, -12.029, -42.973, 31.311, -12.315, -44.619]),
    ((tf.nn.conv1d, (2, 7, 2), (3, 2, 4)), dict(stride=1, padding="VALID", dilations=2),
     [-0.41, -1.236, 0.083, -1.718, 2.601, -3.613],
     [6.797, -6.472, -13.791, -8.431, 7.211, -7.19]),
    ((tf.nn.conv3d, (1, 4, 4, 4, 2), (2, 2, 2, 2, 3)),
     dict(strides=[1, 2, 2, 2, 1], padding="VALID"),
     [5.477, -5.204, 4.826, -4.351, 6.38, -6.027],
     [490.006, 60.774, -424.334, 498.375, 61.987, -431.391]),
]


@pytest.mark.parametrize("case", CASES, ids=["conv2d", "conv1d", "conv3d"])
def test_convolution_gradients_compile_with_tf_values(case):
    (conv, x_shape, w_shape), kw, dx, dw = case
    compiled, eager = _grads(conv, x_shape, w_shape, **kw)
    np.testing.assert_allclose(compiled[0].numpy().ravel()[:6], dx, atol=1e-3)
    np.testing.assert_allclose(compiled[1].numpy().ravel()[:6], dw, rtol=1e-5, atol=1e-3)
    for c, e in zip(compiled, eager):
        assert c.shape == e.shape and c.dtype == e.dtype
        if "dilations" not in kw:  # TF's CPU kernels refuse dilated gradients; XLA's do not
            np.testing.assert_allclose(c.numpy(), e.numpy(), rtol=1e-5, atol=1e-3)
