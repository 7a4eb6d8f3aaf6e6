"""The convolution and max-pooling gradient kernels on the shapes that take their fast paths:
blocked GEMMs (whole images on the worker pool, rows of one wide image in order), grouped,
strided and dilated convolutions against loops over output positions; MaxPoolGrad's first
maximum (ties, NaN, overlapping windows, integer and half dtypes) against a loop over windows."""

import itertools

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import registry
from tensortrace.context import bind

from .optable import rand
from .test_nn import _pads


def ref_conv_grads(x, w, dy, strides, padding, dilations):
    """(dx, dw) of sum(conv(x, w) * dy) in float64, by a loop over output positions."""
    k, n = w.shape[:-2], w.ndim - 2
    cin, o = w.shape[-2], w.shape[-1]
    groups = x.shape[-1] // cin
    og = o // groups
    pads = _pads(x.shape[1:-1], k, strides, dilations, padding)
    xp = np.pad(x.astype(np.float64), [(0, 0), *pads, (0, 0)])
    w, dy = w.astype(np.float64), dy.astype(np.float64)
    dxp, dw = np.zeros_like(xp), np.zeros_like(w)
    eff = [(kk - 1) * d + 1 for kk, d in zip(k, dilations)]
    for pos in itertools.product(*(range(v) for v in dy.shape[1:-1])):
        idx = (slice(None),) + tuple(slice(p * s, p * s + e, d)
                                     for p, s, e, d in zip(pos, strides, eff, dilations))
        for g in range(groups):
            c, oc = slice(g * cin, (g + 1) * cin), slice(g * og, (g + 1) * og)
            d = dy[(slice(None),) + pos + (oc,)]
            dw[..., oc] += np.tensordot(xp[idx + (c,)], d, ([0], [0]))
            dxp[idx + (c,)] += np.tensordot(d, w[..., oc], ([1], [n + 1]))
    crop = (slice(None),) + tuple(slice(b, b + m) for (b, _), m in zip(pads, x.shape[1:-1]))
    return dxp[crop], dw


def conv_grads(x, w, dy, strides, padding, dilations):
    tx, tw = tf.constant(x), tf.constant(w)
    with tf.GradientTape() as tape:
        tape.watch([tx, tw])
        y = tf.nn.conv2d(tx, tw, strides, padding, dilations=dilations)
    assert y.shape == dy.shape
    return [g.numpy() for g in tape.gradient(y, [tx, tw], output_gradients=tf.constant(dy))]


@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilations", [
    ((1, 12, 200, 64), (3, 3, 64, 8), 1, "VALID", 1),  # row blocks of one wide image
    ((16, 24, 24, 32), (3, 3, 32, 16), 1, "SAME", 1),  # blocks of images on the workers
    ((3, 17, 19, 6), (3, 2, 6, 5), 2, "SAME", 1),
    ((2, 13, 12, 4), (2, 3, 4, 3), 1, "VALID", 2),
    ((2, 9, 9, 8), (3, 3, 4, 6), 1, "SAME", 1),        # two groups
])
def test_conv2d_gradients_match_loops(x_shape, w_shape, strides, padding, dilations):
    x, w = rand(*x_shape), rand(*w_shape)
    s, d = [strides] * 2, [dilations] * 2
    pads = _pads(x_shape[1:3], w_shape[:2], s, d, padding)
    out = [(n + p0 + p1 - (k - 1) * dd - 1) // ss + 1
           for n, (p0, p1), k, dd, ss in zip(x_shape[1:3], pads, w_shape[:2], d, s)]
    dy = rand(x_shape[0], *out, w_shape[-1])
    dx, dw = conv_grads(x, w, dy, strides, padding, dilations)
    ref_dx, ref_dw = ref_conv_grads(x, w, dy, s, padding, d)
    assert dx.dtype == dw.dtype == np.float32
    np.testing.assert_allclose(dx, ref_dx, rtol=0, atol=1e-5 * np.abs(ref_dx).max())
    np.testing.assert_allclose(dw, ref_dw, rtol=0, atol=1e-5 * np.abs(ref_dw).max())


def test_conv2d_gradients_match_finite_differences():
    rng = np.random.default_rng(3)
    x, w = rng.uniform(-1, 1, (2, 6, 7, 3)), rng.uniform(-1, 1, (3, 3, 3, 4))
    dy = rng.uniform(-1, 1, (2, 3, 4, 4))
    dx, dw = conv_grads(x, w, dy, 2, "SAME", 1)

    def loss(x, w):
        return float(np.sum(tf.nn.conv2d(x, w, 2, "SAME").numpy() * dy))

    h = 1e-6
    for got, arg in ((dx, 0), (dw, 1)):
        for i in [(0, 1, 2, 0), (1, 5, 6, 2), (1, 0, 0, 1)] if arg == 0 else \
                [(0, 0, 0, 0), (2, 1, 2, 3), (1, 2, 1, 1)]:
            a = [x.copy(), w.copy()]
            a[arg][i] += h
            up = loss(*a)
            a[arg][i] -= 2 * h
            assert got[i] == pytest.approx((up - loss(*a)) / (2 * h), rel=1e-6, abs=1e-8)


def max_pool_grad(op_type, x, y, grad, **attrs):
    """TF's MaxPoolGrad / MaxPoolGradGrad (tf.raw_ops in TF)."""
    return bind(registry.get(op_type), x, y, grad, **attrs)


def ref_first_max(x, k, s, padding):
    """Per output, the flat input position of its window's first maximum, TF's CPU order: the
    window's first in-bounds element, then any later one strictly greater (NaN never is)."""
    pads = _pads(x.shape[1:-1], k, s, [1, 1], padding)
    out = [(n + p0 + p1 - kk) // ss + 1 for n, (p0, p1), kk, ss in
           zip(x.shape[1:-1], pads, k, s)]
    arg = np.zeros((x.shape[0], *out, x.shape[-1]), np.int64)
    for b, i, j, c in np.ndindex(*arg.shape):
        best = None
        for a, e in np.ndindex(*k):
            r, q = i * s[0] + a - pads[0][0], j * s[1] + e - pads[1][0]
            if 0 <= r < x.shape[1] and 0 <= q < x.shape[2] and (
                    best is None or x[b, r, q, c] > best):
                best, arg[b, i, j, c] = x[b, r, q, c], np.ravel_multi_index((b, r, q, c),
                                                                           x.shape)
    return arg


def _pool_input(dtype):
    x = np.random.default_rng(7).integers(-3, 4, (2, 7, 6, 3)).astype(dtype)  # many ties
    if np.dtype(dtype).kind == "f":
        x[0, 0, 0, 0] = x[1, 2, 3, 1] = np.nan  # a first tap, and a later one
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, tf.bfloat16.as_numpy_dtype,
                                   np.int32])
@pytest.mark.parametrize("k, s, padding", [(2, 2, "VALID"), (3, 2, "SAME"), (2, 1, "VALID")])
def test_max_pool_grad_goes_to_the_first_maximum(dtype, k, s, padding):
    x = _pool_input(dtype)
    tx = tf.constant(x)
    y = tf.nn.max_pool2d(tx, k, s, padding)
    grad = np.random.default_rng(8).integers(1, 9, y.shape).astype(dtype)
    got = max_pool_grad("MaxPoolGrad", tx, y, tf.constant(grad),
                                 ksize=[1, k, k, 1], strides=[1, s, s, 1], padding=padding)
    arg = ref_first_max(x, [k, k], [s, s], padding)
    want = np.zeros(x.size, np.float64)
    np.add.at(want, arg.ravel(), grad.astype(np.float64).ravel())  # overlapping windows add
    assert got.dtype == tf.as_dtype(dtype)
    np.testing.assert_array_equal(got.numpy().astype(np.float64), want.reshape(x.shape))
    # MaxPoolGradGrad reads its gradient at the same positions
    v = np.random.default_rng(9).integers(1, 9, x.shape).astype(dtype)
    gg = max_pool_grad("MaxPoolGradGrad", tx, y, tf.constant(v),
                                    ksize=[1, k, k, 1], strides=[1, s, s, 1], padding=padding)
    np.testing.assert_array_equal(gg.numpy(), v.ravel()[arg])


def test_max_pool_grad_keeps_the_gradients_bits():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    grad = np.array([-0.0, np.inf, np.nan, 1e-45], np.float32).reshape(1, 2, 2, 1)
    got = max_pool_grad("MaxPoolGrad", tf.constant(x), tf.zeros(grad.shape), tf.constant(grad),
                                 ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                 padding="VALID").numpy()
    assert got[0, 1, 1, 0] == 0 and got[0, 1, 3, 0] == np.inf
    assert np.isnan(got[0, 3, 1, 0]) and got[0, 3, 3, 0] == np.float32(1e-45)
    assert np.count_nonzero(np.nan_to_num(got)) == 2 and np.isnan(got).sum() == 1  # no spread


def test_max_pool_grad_padding_never_comes_first():
    """TF 2.21 takes a window's first element in bounds, then any strictly greater: a NaN there
    keeps the gradient, and so does an all -inf window (TF's outputs, printed by MaxPoolGrad
    with ksize 3, strides 2, SAME, gradients of ones)."""
    x = np.arange(1, 26, dtype=np.float32).reshape(1, 5, 5, 1)
    x[0, 0, 0, 0] = np.nan
    ones = np.ones((1, 3, 3, 1), np.float32)
    attrs = dict(ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
    got = max_pool_grad("MaxPoolGrad", tf.constant(x), tf.nn.max_pool2d(x, 3, 2, "SAME"),
                        tf.constant(ones), **attrs).numpy()[0, :, :, 0]
    np.testing.assert_array_equal(got, [[1, 0, 0, 0, 0], [0, 0, 0, 1, 1], [0, 0, 0, 0, 0],
                                        [0, 1, 0, 1, 1], [0, 1, 0, 1, 1]])
    x = np.full((1, 4, 4, 1), -np.inf, np.float32)
    got = max_pool_grad("MaxPoolGrad", tf.constant(x), tf.constant(ones[:, :2, :2]),
                        tf.constant(ones[:, :2, :2]), **attrs).numpy()[0, :, :, 0]
    np.testing.assert_array_equal(got, [[1, 0, 1, 0], [0, 0, 0, 0], [1, 0, 1, 0], [0, 0, 0, 0]])
