"""The summary tensors' ops on their own: the histogram's buckets with infinities and NaNs (TF
2.21's values), PNG and WAV encodings and their errors (TF's messages)."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.context import bind
from tensortrace.summary import ops

from .readers import decode_png, decode_wav

NAN, INF = np.nan, np.inf


@pytest.mark.parametrize("data, expected", [
    ([1.0, NAN, 3.0], [[NAN, NAN, 0], [NAN, NAN, 0], [NAN, NAN, 0]]),
    ([1.0, INF, 3.0], [[1, INF, 2], [INF, INF, 0], [INF, INF, 0]]),
    ([-INF, 0.0, 1.0], [[-INF, NAN, 0], [NAN, NAN, 0], [NAN, 1, 0]]),
    ([NAN, NAN], [[NAN, NAN, 0], [NAN, NAN, 0], [NAN, NAN, 0]]),
    ([0.0, 1.0, 2.0, 3.0], [[0, 1, 1], [1, 2, 1], [2, 3, 2]]),
])
def test_histogram_buckets_are_tfs(data, expected):
    got = bind(ops.HistogramSummaryBuckets, tf.constant(data, tf.float64), tf.constant(3))
    np.testing.assert_array_equal(got.numpy(), expected)


def test_png_encoding():
    rgb = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3) * 7
    batch = bind(ops.EncodePng, tf.constant(np.stack([rgb, rgb[::-1]])), compression=9)
    assert batch.shape == (2,)
    np.testing.assert_array_equal(decode_png(batch.numpy()[1]), rgb[::-1])
    wide = bind(ops.EncodePng, tf.zeros([2, 2, 1], tf.uint16), compression=-1).numpy()
    assert wide[24:26] == b"\x10\x00"  # IHDR: bit depth 16, grayscale
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^compression should be in \[-1,9\], got 12 \[Op:EncodePng\]$"):
        bind(ops.EncodePng, tf.zeros([2, 2, 1], tf.uint8), compression=12)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="image must have 1, 2, 3, or 4 channels, got 5"):
        bind(ops.EncodePng, tf.zeros([2, 2, 5], tf.uint8), compression=-1)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Value for attr 'T' of float is not in the list of allowed values: "
                             "uint8, uint16"):
        bind(ops.EncodePng, tf.zeros([2, 2, 1]), compression=-1)


def test_wav_encoding():
    audio = np.array([[0.5, -0.5], [1.0, -1.0], [2.0, 1 / 65536]], np.float32)
    wav = bind(ops.EncodeWav, tf.constant(audio), tf.constant(44100)).numpy()
    rate, samples = decode_wav(wav)
    assert rate == 44100
    np.testing.assert_array_equal(samples, [[16384, -16384], [32767, -32768], [32767, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^sample_rate must be in \(0, 2\^32\), got: 0 \[Op:EncodeWav\]$"):
        bind(ops.EncodeWav, tf.zeros([2, 1]), tf.constant(0))
