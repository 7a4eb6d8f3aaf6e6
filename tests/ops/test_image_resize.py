"""tf.image.resize by every method, with and without antialias, ScaleAndTranslate's kernels and
gradients, ResizeArea, resize_with_pad: TF 2.21's values bit for bit
(tests/fixtures/tf/make_images.py)."""

import json
import pathlib

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.ops.image.scale import scale_and_translate

HERE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tf" / "images"
REC = np.load(HERE / "resize.npz")
ERRORS = json.load(open(HERE / "resize_errors.json"))
SIZES = [(4, 5), (13, 17), (9, 3), (1, 1)]
METHODS = ["bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
           "mitchellcubic"]


def same(got, want):
    got = got.numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("method", METHODS)
def test_resize_matches_tf(method):
    for key in ("f", "u"):
        for i, size in enumerate(SIZES):
            for aa in (0, 1):
                got = tf.image.resize(REC[f"img_{key}"], size, method=method, antialias=bool(aa))
                same(got, REC[f"resize_{key}_{i}_{method}_{aa}"])
    # unbatched images and tf.function give the same values
    got = tf.function(lambda x: tf.image.resize(x, [13, 17], method=method))(REC["img_f"][0])
    same(got, REC[f"resize_f_1_{method}_0"][0])


@pytest.mark.parametrize("kernel", ["lanczos1", "lanczos3", "lanczos5", "gaussian", "box",
                                    "triangle", "keyscubic", "mitchellcubic"])
def test_scale_and_translate_kernels(kernel):
    for aa in (0, 1):
        got = scale_and_translate(REC["img_f"], [6, 14], [0.7, 1.3], [0.5, -1.25], kernel,
                                  bool(aa))
        same(got, REC[f"sat_{kernel}_{aa}"])


@pytest.mark.parametrize("method", METHODS)
def test_resize_gradients(method):
    x = tf.constant(REC["img_f"])
    for aa in (0, 1):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.image.resize(x, (13, 5), method=method, antialias=bool(aa))
                                 * REC["weights"])
        name = f"grad_{method}_{aa}"
        if name in ERRORS:  # TF registers no gradient for ResizeArea
            kind, message = ERRORS[name]
            with pytest.raises(getattr(__builtins__, kind, LookupError), match=message):
                tape.gradient(loss, x)
            continue
        got = tape.gradient(loss, x).numpy()
        if method in ("bilinear", "bicubic") and not aa:
            # the ResizeBilinearGrad/ResizeBicubicGrad kernels sum in another order than TF's
            np.testing.assert_allclose(got, REC[name], rtol=0, atol=2e-7)
        else:
            np.testing.assert_array_equal(got, REC[name])


def test_resize_errors():
    with pytest.raises(ValueError, match=ERRORS["bad_method"][1]):
        tf.image.resize(REC["img_f"], (3, 3), method="cubic")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unrecognized kernel type: foo"):
        scale_and_translate(REC["img_f"], [3, 3], [1.0, 1.0], [0.0, 0.0], "foo")


def test_resize_with_pad():
    same(tf.image.resize_with_pad(REC["img_f"], 12, 7), REC["with_pad"])
    same(tf.image.resize_with_pad(REC["img_u"][0], 4, 9, method="area"), REC["with_pad_area"])
    f = tf.function(lambda x: tf.image.resize_with_pad(x, 12, 7))
    same(f(REC["img_f"]), REC["with_pad"])
    with pytest.raises(ValueError, match="target_width must be > 0"):
        tf.image.resize_with_pad(REC["img_f"], 12, 0)


def _finite_difference(fn, x, eps):
    """d sum(fn(x) * w) / dx by central differences (w fixed pseudo-random weights)."""
    w = np.random.default_rng(5).random(fn(x).shape)
    out = np.zeros_like(x, np.float64)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = ((fn(up) * w).sum() - (fn(down) * w).sum()) / (2 * eps)
    return out, w


def test_scale_and_translate_gradient_is_the_finite_difference():
    x = np.random.default_rng(2).random((1, 4, 5, 1)).astype(np.float32)
    fn = lambda v: scale_and_translate(v, [3, 7], [0.7, 1.3], [0.5, -1.0], "lanczos3",  # noqa
                                       True).numpy().astype(np.float64)
    want, w = _finite_difference(fn, x, 0.5)  # linear in the image: exact up to rounding
    t = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(t)
        loss = tf.reduce_sum(scale_and_translate(t, [3, 7], [0.7, 1.3], [0.5, -1.0], "lanczos3",
                                                 True) * tf.constant(w, tf.float32))
    np.testing.assert_allclose(tape.gradient(loss, t).numpy(), want, atol=1e-5)
