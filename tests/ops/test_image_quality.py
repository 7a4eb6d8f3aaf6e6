"""psnr, ssim, ssim_multiscale, sobel_edges, YIQ/YUV, random crops and random JPEG quality
against TF 2.21's records (tests/fixtures/tf/make_images.py)."""

import json
import pathlib

import numpy as np
import pytest

import tensortrace as tf

HERE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tf" / "images"
REC = np.load(HERE / "extras.npz")
ERRORS = json.load(open(HERE / "extra_errors.json"))
X, Y = REC["x"], REC["y"]


def close(got, want, rtol=2e-6, atol=2e-7):
    got = got.numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_psnr():
    close(tf.image.psnr(X, Y, 1.0), REC["psnr"], rtol=0, atol=0)
    u8 = (X * 255).astype(np.uint8)
    close(tf.image.psnr(u8, (Y * 255).astype(np.uint8), 255), REC["psnr_u8"], rtol=0, atol=0)


def test_ssim():
    # convolution sums in another order than TF's kernels: a few float32 ulps
    close(tf.image.ssim(X, Y, 1.0), REC["ssim"], rtol=1e-5)
    close(tf.image.ssim(X, Y, 1.0, filter_size=5, return_index_map=True), REC["ssim_map"],
          rtol=1e-5, atol=1e-6)
    u8 = (X * 255).astype(np.uint8)
    close(tf.image.ssim(u8, (Y * 255).astype(np.uint8), 255), REC["ssim_u8"], rtol=1e-5)
    kind, message = ERRORS["ssim_small"]
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.image.ssim(X[:, :8], Y[:, :8], 1.0)
    assert message.split("Summarized data: ")[1] in str(info.value)


def test_ssim_multiscale():
    big_x, big_y = np.tile(X[:1], (1, 5, 5, 1)), np.tile(Y[:1], (1, 5, 5, 1))
    close(tf.image.ssim_multiscale(big_x, big_y, 1.0, filter_size=3), REC["ms_ssim"],
          rtol=1e-5)


def test_sobel_edges_and_color_spaces():
    close(tf.image.sobel_edges(X), REC["sobel"], rtol=0, atol=0)
    # TF's matrix products round differently in the last place

    for name in ("rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb"):
        close(getattr(tf.image, name)(X), REC[name], rtol=1e-6, atol=1e-7)


def test_random_crops_are_tfs():
    got = tf.image.stateless_random_crop(X, [1, 5, 6, 3], seed=(1, 2))
    np.testing.assert_array_equal(got.numpy(), REC["stateless_crop"])
    tf.random.set_seed(5)
    np.testing.assert_array_equal(tf.image.random_crop(X, [1, 5, 6, 3], seed=3).numpy(),
                                  REC["random_crop"])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.image.random_crop(X, [3, 5, 6, 3])
    assert ERRORS["crop_big"][1] in str(info.value)


def _picture():
    y, x = np.mgrid[0:21, 0:27]
    base = (x / 26 * 0.6 + y / 20 * 0.3)[..., None] * 255
    noise = np.random.default_rng(7).random((21, 27, 3)) * 255 * 0.2
    return np.clip(base + noise + np.arange(3)[None, None, :] * 25.5, 0, 255).astype(np.uint8)


def test_random_jpeg_quality():
    pytest.importorskip("simplejpeg", reason="the images extra")
    pytest.importorskip("PIL", reason="the images extra")
    pic = _picture()
    np.testing.assert_array_equal(
        tf.image.stateless_random_jpeg_quality(pic, 20, 80, (1, 2)).numpy(),
        REC["stateless_jpeg"])
    tf.random.set_seed(5)
    np.testing.assert_array_equal(tf.image.random_jpeg_quality(pic, 20, 80, seed=4).numpy(),
                                  REC["random_jpeg"])
    with pytest.raises(ValueError, match=ERRORS["jpeg_range"][1]):
        tf.image.random_jpeg_quality(pic, 20, 120)
    with pytest.raises(ValueError) as info:
        tf.image.stateless_random_jpeg_quality(pic, 80, 20, (1, 2))
    assert str(info.value) == ERRORS["jpeg_order"][1]
