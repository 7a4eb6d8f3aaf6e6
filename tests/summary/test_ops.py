"""The summary tensors' ops on their own: the histogram's buckets with infinities and NaNs (TF
2.21's values), PNG and WAV encodings and their errors (TF's messages)."""

import atexit
import tempfile

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import _protos, registry
from tensortrace.context import bind
from tensortrace.summary import ops

from ..ops.optable import Case, op_types, run_case
from .readers import decode_png, decode_wav, events

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
                       match=r"^\{\{function_node __wrapped__EncodePng_device_/job:localhost/replica:0/task:0/"
                             r"device:CPU:0\}\} compression should be in \[-1,9\], got 12 \[Op:EncodePng\] name: $"):
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
                       match=r"^\{\{function_node __wrapped__EncodeWav_device_/job:localhost/replica:0/task:0/"
                             r"device:CPU:0\}\} sample_rate must be in \(0, 2\^32\), got: 0 \[Op:EncodeWav\] name: $"):
        bind(ops.EncodeWav, tf.zeros([2, 1]), tf.constant(0))


# --- the op table: every summary op run eagerly against a reference, and traced -------------
_LOGS = tempfile.TemporaryDirectory()
atexit.register(_LOGS.cleanup)
_WRITER = tf.summary.create_file_writer(_LOGS.name)


def _buckets(data):
    return bind(ops.HistogramSummaryBuckets, data, tf.constant(4))


def _numpy_buckets(data):
    edges = np.linspace(data.min(), data.max(), 5)
    return np.stack([edges[:-1], edges[1:], np.histogram(data, edges)[0].astype(np.float64)], 1)


def _png(images):
    return bind(ops.EncodePng, images, compression=-1)


def _check_png(out, images):
    for png, image in zip(out.numpy().reshape(-1), images.reshape((-1,) + images.shape[-3:])):
        np.testing.assert_array_equal(decode_png(png), image)


def _wav(audio):
    return bind(ops.EncodeWav, audio, tf.constant(8000))


def _check_wav(out, audio):
    rate, samples = decode_wav(out.numpy())
    assert rate == 8000 and samples.shape == audio.shape


def _scalar_and_flush(x):
    with _WRITER.as_default(step=1):
        return tf.summary.scalar("s", x)


def _raw_protos(serialized):
    with _WRITER.as_default():
        return tf.summary.experimental.write_raw_pb(serialized, step=2)


_CLOSED = []  # the log directories of _graph_and_close's writers (one per call, traces too)


def _graph_and_close(serialized):
    _CLOSED.append(tempfile.mkdtemp(dir=_LOGS.name))
    writer = tf.summary.create_file_writer(_CLOSED[-1])
    bind(ops.WriteGraphSummary, writer._resource, tf.constant(0, tf.int64), serialized)
    writer.close()
    return tf.constant(True)


def _check_closed(out, serialized):
    written = [e for e in events(_CLOSED[-1]) if e.HasField("graph_def")]
    assert [e.graph_def for e in written] == [serialized.item()]


_SUMMARY = _protos.summary_pb2.Summary()
_SUMMARY.value.add(tag="r", simple_value=1.0)
CASES = [
    Case(_buckets, (np.random.RandomState(0).normal(size=30),), ref=_numpy_buckets,
         rtol=1e-15, atol=1e-15, id="histogram_buckets"),
    Case(_png, (np.random.RandomState(1).randint(0, 256, (2, 3, 4, 2)).astype(np.uint8),),
         check=_check_png, id="encode_png_batch"),
    Case(_wav, (np.linspace(-1, 1, 12, dtype=np.float32).reshape(6, 2),), check=_check_wav,
         id="encode_wav"),
    Case(_scalar_and_flush, (np.float32(2.5),), ref=lambda x: np.True_, id="write_summary"),
    Case(_raw_protos, (np.array([_SUMMARY.SerializeToString()], dtype=object),),
         ref=lambda x: np.True_, id="write_raw_proto_summary"),
    Case(_graph_and_close, (np.array(b"\n\x05\n\x01a\x12\x00", dtype=object),),
         ref=lambda x: np.True_, check=_check_closed, id="write_graph_and_close"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


def test_every_summary_op_is_in_the_table():
    mine = {name for name, op in registry.all_ops().items()
            if op.infer.__module__ == ops.__name__}
    mine |= {"EncodePng"}  # defined with the image codecs; image summaries encode with it
    covered = set().union(*(op_types(c) for c in CASES))
    assert len(mine) == 8 and mine - covered == set()
