"""Non-max suppression, crop_and_resize (and its gradients), draw_bounding_boxes against TF
2.21's records (tests/fixtures/tf/make_images.py)."""

import json
import pathlib

import numpy as np
import pytest

import tensortrace as tf

HERE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tf" / "images"
REC = np.load(HERE / "boxes.npz")
ERRORS = json.load(open(HERE / "box_errors.json"))
BOXES, SCORES = REC["boxes"], REC["scores"]


def same(got, want):
    got = got.numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def tf_message(name):
    return ERRORS[name][1].split("}} ")[-1].split(" [Op:")[0]


def test_non_max_suppression():
    same(tf.image.non_max_suppression(BOXES, SCORES, 8, 0.3), REC["nms"])
    same(tf.image.non_max_suppression(BOXES, SCORES, 8, 0.5, 0.4), REC["nms_thr"])
    idx, kept = tf.image.non_max_suppression_with_scores(BOXES, SCORES, 10, 0.5, 0.1, 0.5)
    same(idx, REC["soft_idx"])
    same(kept, REC["soft_scores"])
    same(tf.image.non_max_suppression_overlaps(REC["overlaps"], SCORES, 6, 0.6),
         REC["nms_overlaps"])
    f = tf.function(lambda b, s: tf.image.non_max_suppression(b, s, 8, 0.3))
    same(f(BOXES, SCORES), REC["nms"])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.image.non_max_suppression(BOXES, SCORES, 3, 1.5)
    assert tf_message("nms_iou") in str(info.value)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.image.non_max_suppression(BOXES[:, :3], SCORES, 3)
    assert tf_message("nms_cols") in str(info.value)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("size", [(5, 4), (1, 1)])
def test_crop_and_resize_and_gradients(method, size):
    image, boxes, ind = REC["crop_image"], REC["crop_boxes"], np.array([0, 1, 1, 0], np.int32)
    name = f"crop_{method}_{size[0]}"
    same(tf.image.crop_and_resize(image, boxes, ind, size, method=method,
                                  extrapolation_value=-1), REC[name])
    x, b = tf.constant(image), tf.constant(boxes)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, b])
        y = tf.image.crop_and_resize(x, b, ind, size, method=method)
        loss = tf.reduce_sum(y * tf.reshape(tf.range(tf.size(y), dtype=tf.float32),
                                            tf.shape(y)) / 100.0)
    same(tape.gradient(loss, x), REC[name + "_dimage"])
    same(tape.gradient(loss, b), REC[name + "_dboxes"])


def test_crop_and_resize_errors():
    image, boxes = REC["crop_image"], REC["crop_boxes"]
    with pytest.raises(tf.errors.OutOfRangeError, match=r"outside \[0, batch_size\)"):
        tf.image.crop_and_resize(image, boxes, [0, 1, 2, 0], (2, 2))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.image.crop_and_resize(image, boxes, [0, 1, 1, 0], (2, 2), method="bicubic")
    assert ERRORS["crop_method"][1].split("\n")[0] in str(info.value)


def test_draw_bounding_boxes():
    canvas, boxes = REC["canvas"], REC["draw_boxes"]
    same(tf.image.draw_bounding_boxes(canvas, boxes, None), REC["drawn"])
    same(tf.image.draw_bounding_boxes(canvas, boxes, [[1.0, 0.0, 0.0, 1.0],
                                                      [0.2, 0.4, 0.6, 1.0]]),
         REC["drawn_colors"])
    same(tf.image.draw_bounding_boxes(canvas[..., :1], boxes, None), REC["drawn_gray"])


GT = np.array([[[0.1, 0.2, 0.6, 0.7], [0.3, 0.1, 0.9, 0.5]]], np.float32)


def test_sample_distorted_bounding_box_is_tfs():
    for i, (covered, aspect, area) in enumerate([(0.1, None, None), (0.5, (0.5, 2.0), (0.1, 0.9)),
                                                 (0.9, (0.9, 1.1), (0.3, 0.6))]):
        for size in ([40, 57, 3], [7, 300, 1]):
            begin, extent, box = tf.image.stateless_sample_distorted_bounding_box(
                np.array(size, np.int32), GT, (3, i), covered, aspect, area)
            np.testing.assert_array_equal(np.concatenate([begin.numpy(), extent.numpy()]),
                                          REC[f"sdbb_{i}_{size[0]}"])
            same(box, REC[f"sdbb_{i}_{size[0]}_box"])
    tf.random.set_seed(9)  # a seeded stateful op walks TF's stream call after call
    draws = [tf.image.sample_distorted_bounding_box([40, 57, 3], GT, seed=4,
                                                    min_object_covered=0.3) for _ in range(3)]
    np.testing.assert_array_equal(
        np.stack([np.concatenate([d[0].numpy(), d[1].numpy()]) for d in draws]),
        REC["sdbb_stateful"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be in"):
        tf.image.stateless_sample_distorted_bounding_box([4, 4, 3], GT + 1, (1, 2))


def test_crop_and_resize_gradients_are_finite_differences():
    image = REC["crop_image"][:1, :5, :6, :1].astype(np.float32)
    boxes = np.array([[0.13, 0.23, 0.71, 0.87]], np.float32)  # no sample on a pixel center
    w = np.random.default_rng(4).random((1, 3, 4, 1))

    def loss(img, bx):
        return float((tf.image.crop_and_resize(img, bx, [0], (3, 4)).numpy() * w).sum())

    x, b = tf.constant(image), tf.constant(boxes)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, b])
        y = tf.reduce_sum(tf.image.crop_and_resize(x, b, [0], (3, 4)) * tf.constant(w,
                                                                                  tf.float32))
    d_image, d_boxes = tape.gradient(y, x).numpy(), tape.gradient(y, b).numpy()
    for i in np.ndindex(image.shape):
        up, down = image.copy(), image.copy()
        up[i] += 0.5
        down[i] -= 0.5
        assert abs((loss(up, boxes) - loss(down, boxes)) - d_image[i]) < 1e-5
    for i in np.ndindex(boxes.shape):  # piecewise linear in the boxes: a small step
        up, down = boxes.copy(), boxes.copy()
        up[i] += 1e-3
        down[i] -= 1e-3
        assert abs((loss(image, up) - loss(image, down)) / 2e-3 - d_boxes[i]) < 2e-2


def test_combined_non_max_suppression():
    boxes, scores = REC["det_boxes"], REC["det_scores"]
    for pad in (False, True):
        for clip in (False, True):
            out = tf.image.combined_non_max_suppression(boxes, scores, 4, 7, 0.4, 0.2,
                                                        pad_per_class=pad, clip_boxes=clip)
            for k, part in enumerate(out):
                same(part, REC[f"combined_{int(pad)}{int(clip)}_{k}"])
            out = tf.image.combined_non_max_suppression(boxes[:, :, :1], scores, 2, 9, 0.5,
                                                        pad_per_class=pad, clip_boxes=clip)
            for k, part in enumerate(out):
                same(part, REC[f"combined_q1_{int(pad)}{int(clip)}_{k}"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="third dimension of boxes"):
        tf.image.combined_non_max_suppression(boxes[:, :, :2], scores, 2, 9)
