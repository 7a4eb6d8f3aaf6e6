"""tf.image: each function's values as TF 2.21 printed them for the same call, the op table,
gradients against finite differences, and TF's argument errors."""

import struct
import zlib

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.context import bind
from tensortrace.ops.image.boxes import (CropAndResizeGradBoxes, CropAndResizeGradImage,
                                         NonMaxSuppressionV4)
from tensortrace.ops.image.resize import (ResizeBicubicGrad, ResizeBilinearGrad,
                                          ResizeNearestNeighborGrad)
from tensortrace.ops.image.scale import ScaleAndTranslateGrad
from tensortrace.ops.image.transform import ImageProjectiveTransformV2
from tensortrace.ops.image.transform import image_projective_transform_v3 as projective_v3

from .optable import Case, op_types, run_case

X = np.arange(2 * 3 * 4 * 2, dtype=np.float32).reshape(2, 3, 4, 2)
U8 = np.array([[[0], [128], [255]]], np.uint8)


def test_resize_matches_tf():
    np.testing.assert_array_equal(tf.image.resize(X, [5, 3]).numpy()[0, :, :, 0], np.float32(
        [[0.3333333730697632, 3.0, 5.6666669845581055],
         [3.5333333015441895, 6.200000286102295, 8.866666793823242],
         [8.333333015441895, 11.0, 13.666666984558105],
         [13.13333511352539, 15.80000114440918, 18.4666690826416],
         [16.33333396911621, 19.0, 21.666667938232422]]))
    np.testing.assert_array_equal(
        tf.image.resize(X, [5, 3], method="nearest").numpy()[0, :, :, 0],
        [[0, 4, 6], [0, 4, 6], [8, 12, 14], [16, 20, 22], [16, 20, 22]])
    np.testing.assert_array_equal(
        tf.image.resize(X, [5, 3], method="bicubic").numpy()[0, :, :, 0], np.float32(
            [[-0.39804109930992126, 2.3957955837249756, 5.189631462097168],
             [2.6570687294006348, 5.4509053230285645, 8.244741439819336],
             [8.20616340637207, 11.0, 13.793835639953613],
             [13.755258560180664, 16.549095153808594, 19.342931747436523],
             [16.810367584228516, 19.60420036315918, 22.398040771484375]]))
    assert tf.image.resize(X.astype(np.uint8), [5, 3], method="nearest").dtype == tf.uint8
    assert tf.image.resize(X.astype(np.uint8), [5, 3]).dtype == tf.float32
    assert tf.image.resize(X[0], [5, 3]).shape == (5, 3, 2)


def test_resize_errors_are_tfs():
    with pytest.raises(ValueError, match="'images' must have either 3 or 4 dimensions."):
        tf.image.resize(np.zeros([3, 4]), [2, 2])
    with pytest.raises(ValueError, match="'size' must be a 1-D Tensor of 2 elements"):
        tf.image.resize(X, [2])
    with pytest.raises(ValueError, match="Resize method is not implemented: cubic"):
        tf.image.resize(X, [2, 2], method="cubic")


def test_dtype_and_color_match_tf():
    np.testing.assert_array_equal(tf.image.convert_image_dtype(U8, tf.float32).numpy().ravel(),
                                  np.float32([0.0, 0.501960813999176, 1.0]))
    np.testing.assert_array_equal(
        tf.image.convert_image_dtype(tf.constant([[[0.5], [1.0], [1.2]]]), tf.uint8,
                                     saturate=True).numpy().ravel(), [127, 255, 255])
    np.testing.assert_allclose(tf.image.rgb_to_grayscale(
        tf.reshape(tf.constant(np.arange(24, dtype=np.float32) / 24), [2, 4, 3])).numpy()[0]
        .ravel(), [0.03395833, 0.15894583, 0.28393334, 0.40892085], rtol=1e-6)
    assert tf.image.grayscale_to_rgb(tf.ones([2, 2, 1])).shape == (2, 2, 3)
    np.testing.assert_array_equal(tf.image.rgb_to_hsv(
        tf.constant([[0.2, 0.5, 0.9], [1., 0., 0.], [0.5, 0.5, 0.5]])).numpy(), np.float32(
        [[0.5952380895614624, 0.7777777910232544, 0.8999999761581421], [0, 1, 1], [0, 0, 0.5]]))
    np.testing.assert_array_equal(tf.image.hsv_to_rgb(
        tf.constant([[0.6, 0.7, 0.9], [0.1, 1., 1.], [0., 0., 0.5]])).numpy(), np.float32(
        [[0.27000001072883606, 0.5219998955726624, 0.8999999761581421],
         [1.0, 0.6000000238418579, 0.0], [0.5, 0.5, 0.5]]))


def test_adjustments_match_tf():
    pixel = tf.constant([[[0.2, 0.5, 0.9]]])
    np.testing.assert_array_equal(tf.image.adjust_hue(pixel, 0.2).numpy().ravel(),
                                  np.float32([0.7400000095367432, 0.2, 0.8999999761581421]))
    np.testing.assert_array_equal(
        tf.image.adjust_saturation(pixel, 0.5).numpy().ravel(),
        np.float32([0.5499999523162842, 0.6999999284744263, 0.8999999761581421]))
    np.testing.assert_array_equal(tf.image.adjust_contrast(X[0], 2.0).numpy()[:, :, 0],
                                  [[-11, -7, -3, 1], [5, 9, 13, 17], [21, 25, 29, 33]])
    np.testing.assert_array_equal(tf.image.adjust_brightness(U8, 0.1).numpy().ravel(),
                                  [25, 153, 255])
    np.testing.assert_array_equal(tf.image.adjust_gamma(U8, 2.0).numpy().ravel(), [0, 64, 255])
    np.testing.assert_allclose(
        tf.image.per_image_standardization(tf.reshape(tf.range(12.), [2, 2, 3])).numpy().ravel(),
        [-1.5932550430297852, -1.3035722970962524, -1.0138895511627197, -0.724206805229187,
         -0.4345240890979767, -0.14484135806560516, 0.14484135806560516, 0.4345240890979767,
         0.724206805229187, 1.0138895511627197, 1.3035722970962524, 1.5932550430297852],
        rtol=1e-6)
    with pytest.raises(ValueError, match="Gamma should be a non-negative real number."):
        tf.image.adjust_gamma(tf.zeros([3, 3, 1]), -1.0)
    with pytest.raises(ValueError, match="max_delta must be <= 0.5."):
        tf.image.random_hue(pixel, 0.7)
    with pytest.raises(ValueError, match="upper must be > lower."):
        tf.image.random_contrast(pixel, 0.5, 0.2)


def test_random_adjustments_draw_tfs_values():
    # stateless_random_brightness draws its delta with stateless_uniform, TF's Philox numbers
    seed = (1, 2)
    delta = tf.random.stateless_uniform([], seed, -0.2, 0.2).numpy()
    np.testing.assert_allclose(
        tf.image.stateless_random_brightness(tf.zeros([1, 1, 1]), 0.2, seed).numpy().ravel(),
        [delta])
    flipped = tf.image.stateless_random_flip_left_right(X[0], seed).numpy()
    coin = tf.random.stateless_uniform([], seed, 0, 1.0).numpy()
    np.testing.assert_array_equal(flipped, X[0][:, ::-1] if coin < 0.5 else X[0])
    batch = tf.image.random_flip_up_down(X, seed=3).numpy()
    for image, out in zip(X, batch):
        assert np.array_equal(out, image) or np.array_equal(out, image[::-1])


def test_geometry_matches_tf():
    np.testing.assert_array_equal(tf.image.rot90(X[0]).numpy()[:, :, 0],
                                  [[6, 14, 22], [4, 12, 20], [2, 10, 18], [0, 8, 16]])
    for k in range(4):
        np.testing.assert_array_equal(tf.image.rot90(X, k).numpy(),
                                      np.rot90(X, k, axes=(1, 2)))
    np.testing.assert_array_equal(tf.image.flip_left_right(X).numpy(), X[:, :, ::-1])
    np.testing.assert_array_equal(tf.image.flip_up_down(X[0]).numpy(), X[0][::-1])
    np.testing.assert_array_equal(tf.image.transpose(X).numpy(), X.transpose(0, 2, 1, 3))
    square = tf.reshape(tf.range(16.), [4, 4, 1])
    np.testing.assert_array_equal(tf.image.central_crop(square, 0.5).numpy()[:, :, 0],
                                  [[5, 6], [9, 10]])
    np.testing.assert_array_equal(
        tf.image.pad_to_bounding_box(tf.ones([1, 1, 1]), 1, 0, 2, 2).numpy()[:, :, 0],
        [[0, 0], [1, 0]])
    np.testing.assert_array_equal(tf.image.resize_with_crop_or_pad(
        tf.reshape(tf.range(9.), [3, 3, 1]), 2, 4).numpy()[:, :, 0], [[0, 1, 2, 0], [3, 4, 5, 0]])
    np.testing.assert_array_equal(
        tf.image.crop_to_bounding_box(X, 1, 1, 2, 2).numpy(), X[:, 1:3, 1:3])
    assert tf.image.total_variation(tf.reshape(tf.range(12.), [2, 2, 3])).numpy() == 54.0
    dy, dx = tf.image.image_gradients(X)
    np.testing.assert_array_equal(dy.numpy()[:, :-1], X[:, 1:] - X[:, :-1])
    np.testing.assert_array_equal(dx.numpy()[:, :, -1], 0)
    with pytest.raises(ValueError, match=r"'image' \(shape \(3, 3\)\) must be at least "
                                         "three-dimensional."):
        tf.image.flip_left_right(tf.zeros([3, 3]))
    with pytest.raises(ValueError, match="width must be >= target \\+ offset."):
        tf.image.crop_to_bounding_box(tf.zeros([3, 3, 1]), 2, 2, 2, 2)


def test_extract_patches_matches_tf():
    image = tf.reshape(tf.range(16.), [1, 4, 4, 1])
    np.testing.assert_array_equal(
        tf.image.extract_patches(image, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
        .numpy(), [[[[0, 1, 4, 5], [2, 3, 6, 7]], [[8, 9, 12, 13], [10, 11, 14, 15]]]])
    assert tf.image.extract_patches(image, [1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1],
                                    "SAME").shape == (1, 2, 2, 9)


def _finite_difference(f, x, eps=1e-3):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        grad[i] = (np.sum(f(x + e)) - np.sum(f(x - e))) / (2 * eps)
    return grad


@pytest.mark.parametrize("fn", [
    lambda t: tf.image.resize(t, [5, 3]),
    lambda t: tf.image.resize(t, [5, 3], method="bicubic"),
    lambda t: tf.image.resize(t, [5, 7], method="nearest"),
    lambda t: tf.image.extract_patches(t, [1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "SAME"),
], ids=["bilinear", "bicubic", "nearest", "patches"])
def test_gradients_match_finite_differences(fn):
    x = np.random.default_rng(0).random((1, 3, 4, 2))
    xt = tf.constant(x.astype(np.float32))
    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = tf.reduce_sum(fn(xt) ** 2)
    ref = _finite_difference(lambda a: fn(tf.constant(a.astype(np.float32))).numpy()
                             .astype(np.float64) ** 2, x)
    np.testing.assert_allclose(tape.gradient(loss, xt).numpy(), ref, atol=5e-4)


def test_rgb_to_hsv_gradient():
    x = np.random.default_rng(1).random((4, 3))
    xt = tf.constant(x)
    weights = tf.constant([[1.0, 2.0, 3.0]], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = tf.reduce_sum(tf.image.rgb_to_hsv(xt) * weights)
    ref = _finite_difference(
        lambda a: tf.image.rgb_to_hsv(tf.constant(a)).numpy() * weights.numpy(), x, 1e-6)
    np.testing.assert_allclose(tape.gradient(loss, xt).numpy(), ref, atol=1e-6)


def test_color_adjustments_have_no_gradient_as_in_tf():
    x = tf.constant(np.full([1, 1, 3], 0.5, np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.image.adjust_hue(x, 0.1)
    with pytest.raises(LookupError):
        tape.gradient(y, x)


G = np.random.default_rng(2).random((2, 5, 3, 2)).astype(np.float32)


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


U8_IMAGE = np.uint8([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]])
PNG = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
       + _chunk(b"IDAT", zlib.compress(b"".join(b"\0" + r.tobytes() for r in U8_IMAGE)))
       + _chunk(b"IEND", b""))
BMP = (b"BM" + struct.pack("<IHHI", 70, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 2, 2, 1, 24,
                                                                 0, 16, 0, 0, 0, 0)
       + b"".join(r[:, ::-1].tobytes() + b"\0\0" for r in U8_IMAGE[::-1]))
# six pixels of color 0, each code a 3-bit clear then a literal (the table never grows)
_CODES = sum(((4 | 0 << 3) << 6 * i for i in range(6)), 5 << 36).to_bytes(5, "little")
GIF = (b"GIF89a" + struct.pack("<HHBBB", 3, 2, 0x80, 0, 0) + bytes([10, 20, 30, 0, 0, 0])
       + b"\x2c" + struct.pack("<HHHHB", 0, 0, 3, 2, 0) + b"\x02" + bytes([len(_CODES)])
       + _CODES + b"\x00\x3b")
FLAT = np.full((8, 16, 3), 128, np.uint8)  # JPEG keeps a flat gray exactly
NMS_BOXES = np.float32([[0, 0, 1, 1], [0, 0, 1, 1.1], [2, 2, 3, 3]])
NMS_SCORES = np.float32([0.5, 0.9, 0.3])
CASES = [
    Case(tf.image.resize, (X, [5, 3]), check=lambda out, *a: out.shape == (2, 5, 3, 2),
         id="resize-bilinear"),
    Case(lambda x: tf.image.resize(x, [5, 3], method="nearest"), (X,),
         ref=lambda x: x[:, [0, 0, 1, 2, 2]][:, :, [0, 2, 3]], id="resize-nearest"),
    Case(lambda x: tf.image.resize(x, [3, 4], method="bicubic"), (X,), ref=lambda x: x,
         rtol=1e-5, atol=1e-5, id="resize-bicubic-identity"),
    Case(lambda g, x: bind(ResizeBilinearGrad, g, x, half_pixel_centers=True), (G, X),
         check=lambda out, g, x: np.isclose(out.numpy().sum(), g.sum(), rtol=1e-5),
         id="bilinear-grad"),
    Case(lambda g, x: bind(ResizeBicubicGrad, g, x, half_pixel_centers=True), (G, X),
         check=lambda out, g, x: np.isclose(out.numpy().sum(), g.sum(), rtol=1e-4),
         id="bicubic-grad"),
    Case(lambda g: bind(ResizeNearestNeighborGrad, g, tf.constant([3, 4]),
                        half_pixel_centers=True), (G,),
         check=lambda out, g: np.isclose(out.numpy().sum(), g.sum(), rtol=1e-5),
         id="nearest-grad"),
    Case(tf.image.adjust_contrast, (X[0], 1.0), ref=lambda x, f: x, id="contrast"),
    Case(tf.image.adjust_hue, (np.float32([[[0.2, 0.5, 0.9]]]), 0.0),
         ref=lambda x, d: x, id="hue"),
    Case(tf.image.adjust_saturation, (np.float32([[[0.2, 0.5, 0.9]]]), 1.0),
         ref=lambda x, s: x, rtol=1e-6, id="saturation"),
    Case(lambda x: tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(x)),
         (np.float32([[0.2, 0.5, 0.9], [0.3, 0.1, 0.0]]),), ref=lambda x: x, atol=1e-6,
         id="hsv-round-trip"),
    Case(lambda x: tf.image.extract_patches(x, [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1],
                                            "VALID"), (X,), ref=lambda x: x, id="patches"),
    # resampling: an identity resize, an area average, ScaleAndTranslate and its gradient
    Case(lambda x: tf.image.resize(x, [3, 4], method="area"), (X,), ref=lambda x: x,
         id="resize-area-identity"),
    Case(lambda x: tf.image.resize(x, [1, 2], method="area"), (X,),
         ref=lambda x: x.reshape(2, 1, 3, 2, 2, 2).mean(axis=(2, 4)), rtol=1e-5,
         id="resize-area-mean"),
    Case(lambda x: tf.image.resize(x, [3, 4], method="lanczos3"), (X,), ref=lambda x: x,
         rtol=1e-5, atol=1e-5, id="resize-lanczos3-identity"),
    Case(lambda g, x: bind(ScaleAndTranslateGrad, g, x, tf.constant([5 / 3, 0.75]),
                           tf.constant([0.0, 0.0]), kernel_type="triangle", antialias=True),
         (G, X), check=lambda out, g, x: np.isclose(out.numpy().sum(), g.sum(), rtol=1e-5),
         id="scale-and-translate-grad"),
    # codecs: PNG / GIF / BMP / JPEG bytes made here, decoded back
    Case(lambda s: tf.io.decode_png(s), (np.array(PNG, object),), ref=lambda s: U8_IMAGE,
         dynamic_shape=True, id="decode-png"),
    Case(lambda s: tf.io.decode_image(s, expand_animations=False), (np.array(PNG, object),),
         ref=lambda s: U8_IMAGE, dynamic_shape=True, id="decode-image"),
    Case(lambda s: tf.io.decode_bmp(s), (np.array(BMP, object),), ref=lambda s: U8_IMAGE,
         dynamic_shape=True, id="decode-bmp"),
    Case(lambda s: tf.io.decode_gif(s), (np.array(GIF, object),),
         ref=lambda s: np.zeros((1, 2, 3, 3), np.uint8) + np.uint8([10, 20, 30]),
         dynamic_shape=True, id="decode-gif"),
    Case(lambda x: tf.io.decode_jpeg(tf.io.encode_jpeg(x, quality=100)), (FLAT,),
         ref=lambda x: x, dynamic_shape=True, id="jpeg-round-trip"),
    Case(lambda x: tf.io.extract_jpeg_shape(tf.io.encode_jpeg(x)), (FLAT,),
         ref=lambda x: np.int32([8, 16, 3]), id="jpeg-shape"),
    Case(lambda x: tf.io.decode_and_crop_jpeg(tf.io.encode_jpeg(x, quality=100), [1, 2, 3, 4]),
         (FLAT,), ref=lambda x: x[1:4, 2:6], dynamic_shape=True, id="jpeg-crop"),
    Case(lambda x: tf.image.adjust_jpeg_quality(x, 100), (FLAT,), ref=lambda x: x,
         dynamic_shape=True, id="jpeg-quality"),
    # boxes
    Case(lambda b, s: tf.image.non_max_suppression(b, s, 3, 0.5), (NMS_BOXES, NMS_SCORES),
         ref=lambda b, s: np.int32([1, 2]), dynamic_shape=True, id="nms"),
    Case(lambda b, s: bind(NonMaxSuppressionV4, b, s, tf.constant(3), tf.constant(0.5),
                           tf.constant(-1.0), pad_to_max_output_size=True),
         (NMS_BOXES, NMS_SCORES), ref=lambda b, s: (np.int32([1, 2, 0]), np.int32(2)),
         id="nms-v4"),
    Case(lambda b, s: tf.image.non_max_suppression_with_scores(b, s, 3, 0.5),
         (NMS_BOXES, NMS_SCORES), ref=lambda b, s: (np.int32([1, 2]), s[[1, 2]]),
         dynamic_shape=True, id="nms-v5"),
    Case(lambda s: tf.image.non_max_suppression_overlaps(np.eye(3, dtype=np.float32), s, 3),
         (NMS_SCORES,), ref=lambda s: np.int32([1, 0, 2]), dynamic_shape=True,
         id="nms-overlaps"),
    Case(lambda b, s: tf.image.combined_non_max_suppression(b[None, :, None], s[None, :, None],
                                                            2, 2, 0.5),
         (NMS_BOXES, NMS_SCORES),
         ref=lambda b, s: (np.clip(b[[1, 2]], 0, 1)[None], s[[1, 2]][None],
                           np.zeros((1, 2), np.float32),
                           np.int32([2])), id="combined-nms"),
    Case(lambda x: tf.image.crop_and_resize(x, [[0.0, 0.0, 1.0, 1.0]], [1], [3, 4]), (X,),
         ref=lambda x: x[1:2], atol=1e-5, id="crop-and-resize"),
    Case(lambda g, b: bind(CropAndResizeGradImage, g, b, tf.constant([0]),
                           tf.constant([1, 3, 4, 2]), T=tf.float32, method="bilinear"),
         (np.ones((1, 3, 4, 2), np.float32), np.float32([[0, 0, 1, 1]])),
         ref=lambda g, b: np.ones((1, 3, 4, 2), np.float32), id="crop-grad-image"),
    Case(lambda g, x, b: bind(CropAndResizeGradBoxes, g, x, b, tf.constant([0])),
         (np.ones((1, 3, 4, 2), np.float32), np.ones((1, 3, 4, 2), np.float32),
          np.float32([[0, 0, 1, 1]])),
         ref=lambda g, x, b: np.zeros((1, 4), np.float32), id="crop-grad-boxes"),
    Case(lambda x: tf.image.draw_bounding_boxes(x, [[[0.0, 0.0, 1.0, 1.0]]], [[1.0, 0, 0]]),
         (np.zeros((1, 3, 3, 3), np.float32),),
         ref=lambda x: np.where((np.arange(3)[:, None] != 1) | (np.arange(3) != 1), 1, 0)
         [None, :, :, None].astype(np.float32) * np.float32([1, 0, 0]), id="draw-boxes"),
    Case(lambda: tf.image.stateless_sample_distorted_bounding_box(
        [10, 10, 3], np.zeros((1, 0, 4), np.float32), (1, 2), area_range=(1.0, 1.0),
        use_image_if_no_bounding_boxes=True), (),
         ref=lambda: (np.int32([0, 0, 0]), np.int32([10, 10, -1]),
                      np.float32([[[0, 0, 1, 1]]])), id="stateless-sample-box"),
    Case(lambda: tf.image.sample_distorted_bounding_box(
        [10, 10, 3], np.zeros((1, 0, 4), np.float32), seed=3, area_range=(1.0, 1.0),
        use_image_if_no_bounding_boxes=True), (),
         ref=lambda: (np.int32([0, 0, 0]), np.int32([10, 10, -1]),
                      np.float32([[[0, 0, 1, 1]]])), id="sample-box"),
    Case(lambda x: projective_v3(x, np.float32([[1, 0, 0, 0, 1, 0, 0, 0]]), [3, 4], 0.0,
                                 "BILINEAR"), (X,), ref=lambda x: x, id="projective-v3"),
    Case(lambda x: bind(ImageProjectiveTransformV2, x,
                        tf.constant(np.float32([[1, 0, 0, 0, 1, 0, 0, 0]])),
                        tf.constant([3, 4]), interpolation="NEAREST"), (X,), ref=lambda x: x,
         id="projective-v2"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


def test_every_image_op_has_a_case():
    covered = set().union(*(op_types(c) for c in CASES))
    assert {"ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeBilinearGrad",
            "ResizeBicubicGrad", "ResizeNearestNeighborGrad", "AdjustContrastv2", "AdjustHue",
            "AdjustSaturation", "RGBToHSV", "HSVToRGB", "ExtractImagePatches", "ResizeArea",
            "ScaleAndTranslate", "ScaleAndTranslateGrad", "DecodePng", "DecodeImage",
            "DecodeBmp", "DecodeGif", "DecodeJpeg", "EncodeJpeg", "ExtractJpegShape",
            "DecodeAndCropJpeg", "EncodeJpegVariableQuality", "NonMaxSuppressionV3",
            "NonMaxSuppressionV4", "NonMaxSuppressionV5", "NonMaxSuppressionWithOverlaps",
            "CombinedNonMaxSuppression", "CropAndResize", "CropAndResizeGradImage",
            "CropAndResizeGradBoxes", "DrawBoundingBoxesV2", "SampleDistortedBoundingBoxV2",
            "StatelessSampleDistortedBoundingBox", "ImageProjectiveTransformV3",
            "ImageProjectiveTransformV2"} <= covered


def test_hsv_conversions_take_bfloat16():
    # TF 2.21's RGBToHSV/HSVToRGB allow half, bfloat16, float, double (its message's order)
    x = tf.cast(tf.constant(np.random.RandomState(0).rand(2, 2, 3), tf.float32), tf.bfloat16)
    hsv = tf.image.rgb_to_hsv(x)
    assert hsv.dtype == tf.bfloat16
    # TF's values for this input (bfloat16 rounding of each step)
    np.testing.assert_allclose(hsv.numpy().astype(np.float32)[0, 0],
                               [0.388672, 0.235352, 0.714844], rtol=1e-5)
    assert tf.image.hsv_to_rgb(x).dtype == tf.bfloat16
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="allowed values: half, bfloat16, float, double"):
        tf.image.rgb_to_hsv(tf.zeros([1, 3], tf.int32))

