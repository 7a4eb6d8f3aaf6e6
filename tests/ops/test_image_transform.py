"""ImageProjectiveTransformV3 (Keras' affine transforms on TF) against TF 2.21's records: every
fill mode and interpolation, integer images, the gradient rule (tests/fixtures/tf/make_images.py).
"""

import pathlib

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.ops.image.transform import image_projective_transform_v3 as transform

REC = np.load(pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tf" / "images" /
              "boxes.npz")
IMAGES, TRANSFORMS = REC["pt_images"], REC["pt_transforms"]


@pytest.mark.parametrize("interpolation", ["NEAREST", "BILINEAR"])
def test_projective_transform_matches_tf(interpolation):
    for mode in ("CONSTANT", "REFLECT", "WRAP", "NEAREST"):
        got = transform(IMAGES, TRANSFORMS, [8, 6], -1.0, interpolation, mode).numpy()
        np.testing.assert_array_equal(got, REC[f"pt_{interpolation}_{mode}"])
    got = transform((IMAGES * 20).astype(np.uint8), TRANSFORMS[:1], [7, 9], 3.0, interpolation,
                    "REFLECT")
    assert got.dtype == tf.uint8
    np.testing.assert_array_equal(got.numpy(), REC[f"pt_u8_{interpolation}"])


@pytest.mark.parametrize("interpolation", ["NEAREST", "BILINEAR"])
def test_projective_transform_gradient(interpolation):
    x = tf.constant(IMAGES)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = transform(x, TRANSFORMS, [7, 9], 0.0, interpolation, "WRAP")
        loss = tf.reduce_sum(y * tf.reshape(tf.range(tf.size(y), dtype=tf.float32),
                                            tf.shape(y)))
    # TF's rule resamples through inverted transforms; the inverses differ from TF's LU in the
    # last place, which can move a bilinear weight by an ulp
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), REC[f"pt_grad_{interpolation}"],
                               rtol=2e-6, atol=0)


def test_projective_transform_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_images x 8 or 1 x 8"):
        transform(IMAGES, TRANSFORMS[:, :6], [7, 9], 0.0, "NEAREST")
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank 4"):
        transform(IMAGES[0], TRANSFORMS[:1], [7, 9], 0.0, "NEAREST")
