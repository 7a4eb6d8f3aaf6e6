"""The summaries: ``tf.summary.write`` and the plugins' ``scalar``, ``histogram``, ``image``,
``text`` and ``audio``, as TF 2 (with TensorBoard's summary ops) writes them: a tensor summary
with the plugin's metadata (TensorBoard's own ``create_summary_metadata``), written by a
``WriteSummary`` op when a default writer is set and the ``record_if`` condition holds. The tag
is the name under the active name scopes. The tensor a plugin writes is computed only when the
summary is recorded (TensorBoard's lazy tensors); inside a ``tf.function`` every call writes, a
non-constant condition becoming a ``tf.cond``.
"""

import contextlib
import re

from .. import _protos, variables
from .. import dtypes as D
from .._export import tf_export
from ..context import bind
from ..convert import constant, convert_to_tensor
from ..ops.array.joining import concat, stack
from ..ops.array.passthrough import identity, stop_gradient
from ..ops.array.padding import tile
from ..ops.array.reshaping import reshape, transpose
from ..ops.array.shapes import shape
from ..ops.control_flow.conditionals import cond
from ..ops.debugging import assert_non_negative, assert_rank, assert_scalar, assert_type
from ..ops.functional import map_fn
from ..ops.math.arithmetic import floordiv, multiply
from ..ops.math.casting import cast
from ..ops.math.clip import saturate_cast
from ..ops.strings.numbers import as_string
from ..tensor import static_value
from . import ops as summary_ops
from .writer import get_step, should_record_summaries, state

_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")


def plugin_metadata(plugin, description=None, **kwargs):
    """The SummaryMetadata TensorBoard's ``<plugin>`` summaries write (its own builder)."""
    module = _protos._require(f"tensorboard.plugins.{plugin}.metadata")
    return module.create_summary_metadata(display_name=None, description=description, **kwargs)


@tf_export("summary.experimental.summary_scope")
@contextlib.contextmanager
def summary_scope(name, default_name="summary", values=None):
    """Yields ``(tag, scope)`` for a summary named ``name`` (``default_name`` when empty): the
    tag is the name under the active name scopes, and the body runs in a name scope of it."""
    name = name or default_name
    current = "/".join(variables._name_scopes)
    tag = current + "/" + name if current else name
    scope_name = _INVALID_SCOPE_CHARACTERS.sub("", name) or default_name
    variables._name_scopes.append(scope_name)
    try:
        yield tag, (current + "/" if current else "") + scope_name + "/"
    finally:
        variables._name_scopes.pop()


def choose_step(step):
    """``step`` as an int64 tensor of one element (a variable is read now)."""
    step = convert_to_tensor(step, dtype=D.int64)
    if step.shape.num_elements() != 1:
        raise ValueError(f"Argument `step` must be a scalar. Received step with shape "
                         f"{step.shape}.")
    return step


def smart_cond(pred, record):
    """``record()`` when ``pred`` is known true, False when known false, else a ``tf.cond``."""
    known = static_value(pred)
    if known is not None:
        return record() if known else constant(False)
    return cond(pred, record, lambda: constant(False))


@tf_export("summary.write")
def write(tag, tensor, step=None, metadata=None, name=None):
    """Write a generic tensor summary to the default writer.

    ``tensor`` may be a callable giving the tensor (called only when recording); ``metadata``
    a SummaryMetadata proto or its serialized bytes.

    Returns:
        True when written; False when no default writer is set or recording is off.

    Raises:
        ValueError: when a writer is set but no step is given or set.
    """
    if step is not None:
        choose_step(step)
    if state.writer is None:
        return constant(False)
    if step is None:
        step = get_step()
    if metadata is None:
        serialized_metadata = b""
    elif hasattr(metadata, "SerializeToString"):
        serialized_metadata = metadata.SerializeToString()
    else:
        serialized_metadata = metadata

    def record():
        if step is None:
            raise ValueError("No step set. Please specify one either through the `step` "
                             "argument or through tf.summary.experimental.set_step()")
        value = tensor() if callable(tensor) else identity(tensor)
        bind(summary_ops.WriteSummary, state.writer._resource,
             convert_to_tensor(step, dtype=D.int64), value, convert_to_tensor(tag, D.string),
             convert_to_tensor(serialized_metadata, D.string))
        return constant(True)

    return smart_cond(should_record_summaries(), record)


@tf_export("summary.experimental.write_raw_pb")
def write_raw_pb(tensor, step=None, name=None):
    """Write serialized ``Summary`` protos (a string tensor) to the default writer, as they are.

    Returns:
        True when written; False when no default writer is set or recording is off.
    """
    if step is not None:
        choose_step(step)
    if state.writer is None:
        return constant(False)
    if step is None:
        step = get_step()

    def record():
        if step is None:
            raise ValueError("No step set. Please specify one either through the `step` "
                             "argument or through tf.summary.experimental.set_step()")
        bind(summary_ops.WriteRawProtoSummary, state.writer._resource,
             convert_to_tensor(step, dtype=D.int64), identity(tensor))
        return constant(True)

    return smart_cond(should_record_summaries(), record)


@tf_export("summary.scalar")
def scalar(name, data, step=None, description=None):
    """Write a scalar summary (``data`` cast to float32) for TensorBoard's Scalars dashboard.

    Returns:
        True on success, False when no default writer is set or recording is off.

    Raises:
        ValueError: for non-scalar ``data``, or when a writer is set but no step is.
    """
    metadata = plugin_metadata("scalar", description)
    with summary_scope(name, "scalar_summary", values=[data, step]) as (tag, _):
        assert_scalar(data)
        return write(tag=tag, tensor=cast(data, D.float32), step=step, metadata=metadata)


@tf_export("summary.histogram")
def histogram(name, data, step=None, buckets=None, description=None):
    """Write a histogram of ``data``'s elements in ``buckets`` (30) equal-width buckets, for
    TensorBoard's Histograms and Distributions dashboards.

    Returns:
        True on success, False when no default writer is set or recording is off.
    """
    data = stop_gradient(data)
    metadata = plugin_metadata("histogram", description)
    with summary_scope(name, "histogram_summary", values=[data, buckets, step]) as (tag, _):
        return write(tag=tag, tensor=lambda: _buckets(data, buckets), step=step,
                     metadata=metadata)


def _buckets(data, bucket_count=None):
    if bucket_count is None:
        bucket_count = 30
    assert_scalar(bucket_count)
    assert_type(bucket_count, D.int32)
    data = cast(reshape(data, [-1]), D.float64)
    return bind(summary_ops.HistogramSummaryBuckets, data,
                convert_to_tensor(bucket_count, D.int32))


def _to_uint8(images):
    """``tf.image.convert_image_dtype(images, tf.uint8, saturate=True)``."""
    dtype = images.dtype
    if dtype is D.uint8:
        return images
    if dtype.is_floating:
        return saturate_cast(multiply(images, 255.5), D.uint8)  # 255 + 0.5: rounding in cast
    if not dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype.max > 255:
        return saturate_cast(floordiv(images, (dtype.max + 1) // 256), D.uint8)
    return multiply(saturate_cast(images, D.uint8), 256 // (dtype.max + 1))


@tf_export("summary.image")
def image(name, data, step=None, max_outputs=3, description=None):
    """Write up to ``max_outputs`` images of ``data`` ``[k, h, w, c]`` (c in 1..4; floats in
    [0, 1] or uint8) as PNGs for TensorBoard's Images dashboard.

    Returns:
        True on success, False when no default writer is set or recording is off.
    """
    metadata = plugin_metadata("image", description)
    with summary_scope(name, "image_summary", values=[data, max_outputs, step]) as (tag, _):

        def encoded():
            images = convert_to_tensor(data)
            assert_rank(images, 4)
            assert_non_negative(max_outputs)
            images = _to_uint8(images)
            pngs = bind(summary_ops.EncodePng, images[:max_outputs], compression=-1)
            size = shape(images)
            dimensions = stack([as_string(size[2]), as_string(size[1])])
            return concat([dimensions, pngs], axis=0)

        return write(tag=tag, tensor=encoded, step=step, metadata=metadata)


@tf_export("summary.text")
def text(name, data, step=None, description=None):
    """Write a string tensor for TensorBoard's Text dashboard (Markdown rendered).

    Returns:
        True on success, False when no default writer is set or recording is off.

    Raises:
        TypeError: when ``data`` is not a string tensor.
    """
    metadata = plugin_metadata("text", description)
    with summary_scope(name, "text_summary", values=[data, step]) as (tag, _):
        assert_type(data, D.string)
        return write(tag=tag, tensor=data, step=step, metadata=metadata)


@tf_export("summary.audio")
def audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None, description=None):
    """Write up to ``max_outputs`` clips of ``data`` ``[k, t, c]`` (floats in [-1, 1]) as WAV
    files at ``sample_rate`` Hz for TensorBoard's Audio dashboard.

    Returns:
        True on success, False when no default writer is set or recording is off.

    Raises:
        ValueError: for an ``encoding`` other than "wav".
    """
    if encoding is None:
        encoding = "wav"
    if encoding != "wav":
        raise ValueError("Unknown encoding: %r" % encoding)
    wav = _protos._require("tensorboard.plugins.audio.metadata").Encoding.Value("WAV")
    metadata = plugin_metadata("audio", description, encoding=wav)
    inputs = [data, sample_rate, max_outputs, step]
    with summary_scope(name, "audio_summary", values=inputs) as (tag, _):

        def encoded():
            clips = convert_to_tensor(data)
            assert_rank(clips, 3)
            assert_non_negative(max_outputs)
            limited = clips[:max_outputs]
            rate = convert_to_tensor(sample_rate, D.int32)
            wavs = map_fn(lambda clip: bind(summary_ops.EncodeWav,
                                            convert_to_tensor(clip, D.float32), rate),
                          limited, dtype=D.string)
            labels = tile(constant([""]), shape(limited)[:1])
            return transpose(stack([wavs, labels]))

        return write(tag=tag, tensor=encoded, step=step, metadata=metadata)
