"""A convolution's output for one image does not depend on the rest of the batch when the
image's GEMM is big enough to run on its own (TF 2.21's CPU convolution gives bit-identical
rows for a batch and its parts: Keras' STFTSpectrogram test compares a 7-channel batch with
single channels at 1e-6)."""

import numpy as np

import tensortrace as tf


def test_conv1d_rows_do_not_depend_on_the_batch():
    rng = np.random.RandomState(41)
    x = rng.uniform(-1, 1, (6, 8192, 1)).astype(np.float32)
    w = rng.uniform(-1, 1, (256, 1, 129)).astype(np.float32)  # an STFT's frames as a conv
    whole = tf.nn.conv1d(x, w, stride=128, padding="VALID").numpy()
    parts = [tf.nn.conv1d(x[i:i + k], w, stride=128, padding="VALID").numpy()
             for i, k in ((0, 1), (1, 2), (3, 3))]
    np.testing.assert_array_equal(whole, np.concatenate(parts))
    frames = np.stack([x[:, t * 128:t * 128 + 256, 0] for t in range(whole.shape[1])], 1)
    exact = frames.astype(np.float64) @ w[:, 0].astype(np.float64)
    np.testing.assert_allclose(whole, exact, rtol=2e-6, atol=1e-5)  # float32 sums of 256 terms


def test_conv2d_rows_do_not_depend_on_the_batch():
    rng = np.random.RandomState(0)
    x = rng.standard_normal((5, 20, 20, 16)).astype(np.float32)
    w = rng.standard_normal((5, 5, 16, 24)).astype(np.float32)
    whole = tf.nn.conv2d(x, w, 1, "VALID").numpy()
    np.testing.assert_array_equal(whole[3:], tf.nn.conv2d(x[3:], w, 1, "VALID").numpy())
