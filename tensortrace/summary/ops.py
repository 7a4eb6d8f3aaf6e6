"""The graph ops of ``tf.summary``: the writer ops (``WriteSummary``, ``WriteGraphSummary``,
``WriteRawProtoSummary``, ``FlushSummaryWriter``, ``CloseSummaryWriter``: stateful, so a compiled
function writes on every call) and the ops that make a summary's tensor (``EncodePng``,
``EncodeWav`` and the histogram's buckets). A writer's resource tensor holds the event file
(``writer.EventFile``) at run time; the writer kernels call its methods.
"""

import struct

import numpy as np

from .. import dtypes as D
from ..autodiff.grad_util import not_differentiable
from ..errors import InvalidArgumentError
from ..messages import shape_fn_error, shape_text
from ..ops.image.codecs import EncodePng  # noqa: F401  (summaries encode images with it)
from ..registry import DtypeCheck, define_op, never_static
from ..tensor import TensorSpec


def _scalar_text(value):
    return bytes(np.asarray(value).reshape(-1)[0])


def _step(step, op):
    step = np.asarray(step)
    if step.size != 1:
        raise InvalidArgumentError(None, None, f"step must be a scalar, got shape "
                                   f"{shape_text(step.shape)} [Op:{op}]")
    return int(step.reshape(-1)[0])


@define_op("WriteSummary", stateful=True, static=never_static)
class WriteSummary:
    """Write ``tensor`` as one summary value (``tag``, parsed ``summary_metadata``) at ``step``:
    TF's tensor summary, written by the writer's event file."""

    def infer(writer, step, tensor, tag, summary_metadata):
        return ()

    def kernel(writer, step, tensor, tag, summary_metadata):
        writer.write_tensor(_step(step, "WriteSummary"), np.asarray(tensor), _scalar_text(tag),
                            _scalar_text(summary_metadata))
        return ()


@define_op("WriteGraphSummary", stateful=True, static=never_static)
class WriteGraphSummary:
    """Write a serialized GraphDef as the ``graph_def`` of one event."""

    def infer(writer, step, tensor):
        return ()

    def kernel(writer, step, tensor):
        writer.write_graph(_step(step, "WriteGraphSummary"), _scalar_text(tensor))
        return ()


@define_op("WriteRawProtoSummary", stateful=True, static=never_static)
class WriteRawProtoSummary:
    """Write serialized ``Summary`` protos, one event each."""

    def infer(writer, step, tensor):
        return ()

    def kernel(writer, step, tensor):
        step = _step(step, "WriteRawProtoSummary")
        for serialized in np.asarray(tensor, dtype=object).reshape(-1):
            writer.write_raw_summary(step, bytes(serialized))
        return ()


@define_op("FlushSummaryWriter", stateful=True, static=never_static)
class FlushSummaryWriter:
    """Write the writer's queued events to its file."""

    def infer(writer):
        return ()

    def kernel(writer):
        writer.flush()
        return ()


@define_op("CloseSummaryWriter", stateful=True, static=never_static)
class CloseSummaryWriter:
    """Flush and close the writer's file."""

    def infer(writer):
        return ()

    def kernel(writer):
        writer.close()
        return ()


# --- the tensors summaries write ------------------------------------------------------------
def encode_wav(audio, sample_rate):
    """A 16-bit PCM WAV file (bytes) of ``[frames, channels]`` float samples in [-1, 1]: each
    sample times 2**15 rounded half away from zero and clamped, as TF's wav encoder does."""
    frames, channels = audio.shape
    x = (np.asarray(audio, np.float32) * np.float32(32768.0)).astype(np.float64)
    x = np.sign(x) * np.floor(np.abs(x) + 0.5)
    data = np.clip(x, -32768, 32767).astype("<i2").tobytes()
    fmt = struct.pack("<HHIIHH", 1, channels, sample_rate, sample_rate * channels * 2,
                      channels * 2, 16)
    return (b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE" + b"fmt " +
            struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", len(data)) + data)


@define_op("EncodeWav")
class EncodeWav:
    """WAV-encode ``audio`` ``[frames, channels]`` (float32) at ``sample_rate`` Hz."""

    def infer(audio, sample_rate):
        if audio.shape.rank is not None and audio.shape.rank != 2:
            raise shape_fn_error("EncodeWav", f"Shape must be rank 2 but is rank "
                                 f"{audio.shape.rank}", audio.dtype, {}, [audio, sample_rate],
                                 ["audio", "sample_rate"])
        return TensorSpec([], D.string)

    check = DtypeCheck("EncodeWav", fixed={0: D.float32, 1: D.int32}, same=1)

    def kernel(audio, sample_rate):
        rate = np.asarray(sample_rate)
        if rate.ndim != 0:
            raise InvalidArgumentError(None, None, "Input sample_rate should be a scalar tensor, "
                                       f"got {shape_text(rate.shape)} instead.")
        if not 0 < int(rate) < 2**32:
            raise InvalidArgumentError(None, None, f"sample_rate must be in (0, 2^32), got: "
                                       f"{int(rate)}")
        return np.array(encode_wav(audio, int(rate)), dtype=object)


@define_op("HistogramSummaryBuckets")
class HistogramSummaryBuckets:
    """The buckets of ``tf.summary.histogram``: ``[bucket_count, 3]`` float64 rows (left edge,
    right edge, count) of float64 ``data``, as TensorBoard's summary computes them: equal-width
    buckets from min to max (the last right edge exactly max), each value in the bucket
    ``floor((x - min) / width)`` clamped to the last; all values equal: every edge is that value
    and the last bucket counts them; no data or no buckets: zeros."""

    def infer(data, bucket_count):
        value = getattr(bucket_count, "static", None)
        count = None if value is None else max(0, int(value))
        return TensorSpec([count, 3], D.float64)

    def kernel(data, bucket_count):
        k = max(0, int(bucket_count))
        data = np.asarray(data, np.float64).reshape(-1)
        out = np.zeros((k, 3), np.float64)
        if data.size == 0 or k == 0:
            return out
        low, high = data.min(), data.max()
        span = high - low
        if span == 0:
            out[:, 0] = out[:, 1] = high
            out[-1, 2] = data.size
            return out
        with np.errstate(invalid="ignore", over="ignore"):
            index = np.floor((data - low) / (span / k))
            index = np.where(np.isfinite(index), index, -1).astype(np.int64)
            edges = low + np.arange(k + 1) * (span / k)  # TF's linspace: start + i * delta,
        edges[0], edges[-1] = low, high  # its ends exactly start and stop (also when infinite)
        index = np.minimum(index, k - 1)
        out[:, 2] = np.bincount(index[index >= 0], minlength=k)[:k]
        out[:, 0], out[:, 1] = edges[:-1], edges[1:]
        return out


not_differentiable("WriteSummary", "WriteGraphSummary", "WriteRawProtoSummary",
                   "FlushSummaryWriter", "CloseSummaryWriter", "EncodePng", "EncodeWav",
                   "HistogramSummaryBuckets")
