"""tf.signal's windows, framing and short-time Fourier transform, composed of public ops as TF
composes them (so they trace, differentiate and run on any shape): hann/hamming/vorbis windows,
frame, overlap_and_add, stft, inverse_stft and inverse_stft_window_fn."""

import math

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...convert import convert_to_tensor
from ...tensor import static_value
from ..array.creation import ones, zeros
from ..array.joining import concat
from ..array.padding import pad, tile
from ..array.ranges import range as tf_range
from ..array.reshaping import reshape, transpose
from ..array.shapes import shape as tf_shape
from ..indexing.gathering import gather
from ..indexing.segment import unsorted_segment_sum
from ..math.arithmetic import ceil, maximum
from ..math.casting import cast
from ..math.compare import equal
from ..math.select import where
from ..math.special import bessel_i0e
from ..math.transcendental import cos, exp, log, sin, sqrt
from ..nn.activations import relu
from ..reduce import cumsum, reduce_sum
from .fft import irfft, rfft


def _window_length(window_length, dtype):
    """TF's window argument checks: a float ``dtype`` and a scalar int32 length."""
    dtype = D.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    n = convert_to_tensor(window_length, dtype=D.int32)
    if n.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {n.shape.rank}")
    return n, dtype


def _raised_cosine(window_length, periodic, dtype, a, b):
    """``a - b * cos(2 pi k / N)``; N is ``length - 1``, plus 1 when ``periodic`` and the
    length is even (TF's rule: an odd periodic window is the symmetric one)."""
    n, dtype = _window_length(window_length, dtype)
    if static_value(n) == 1:
        return ones([1], dtype)
    even = 1 - n % 2
    denom = cast(n + cast(bool(periodic), D.int32) * even - 1, dtype)
    count = cast(tf_range(n), dtype)
    return cast(a - b * cos(convert_to_tensor(2 * np.pi, dtype) * count / denom), dtype)


@tf_export("signal.hann_window")
def hann_window(window_length, periodic=True, dtype=D.float32, name=None):
    """The Hann window ``0.5 - 0.5 cos(2 pi k / N)``."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


@tf_export("signal.hamming_window")
def hamming_window(window_length, periodic=True, dtype=D.float32, name=None):
    """The Hamming window ``0.54 - 0.46 cos(2 pi k / N)``."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


@tf_export("signal.vorbis_window")
def vorbis_window(window_length, dtype=D.float32, name=None):
    """The Vorbis power-complementary window ``sin(pi/2 sin(pi (k + 0.5) / n) ** 2)``."""
    n, dtype = _window_length(window_length, dtype)
    arg = cast(tf_range(n), dtype)
    return sin(np.pi / 2.0 * sin(np.pi / cast(n, dtype) * (arg + 0.5)) ** 2.0)


@tf_export("signal.kaiser_window")
def kaiser_window(window_length, beta=12.0, dtype=D.float32, name=None):
    """The Kaiser window ``I0(beta sqrt(1 - (2k / (n - 1) - 1) ** 2)) / I0(beta)`` (as
    ``numpy.kaiser``), through the scaled I0 so that no term overflows."""
    n, dtype = _window_length(window_length, dtype)
    if static_value(n) == 1:
        return ones([1], dtype)
    half = (cast(n, D.float32) - 1.0) / 2.0
    arg = cast(tf_range(-half, half + 0.1, dtype=D.float32), dtype)
    beta = cast(beta, dtype)
    half = cast(half, dtype)
    ratio = arg / half
    num = beta * sqrt(relu(cast(1.0, dtype) - ratio * ratio))
    return exp(num - beta) * (bessel_i0e(num) / bessel_i0e(beta))


@tf_export("signal.kaiser_bessel_derived_window")
def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=D.float32, name=None):
    """The Kaiser-Bessel-derived window: the square root of the normalized running sum of a
    Kaiser window of half the length, mirrored."""
    n, dtype = _window_length(window_length, dtype)
    kaiser = kaiser_window(n // 2 + 1, beta, dtype=dtype)
    sums = cumsum(kaiser)
    half = sqrt(sums[:-1] / sums[-1])
    return concat([half, half[::-1]], 0)


def _axis(axis, rank):
    axis = int(axis)
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for a rank {rank} signal")
    return axis % rank


@tf_export("signal.frame")
def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Overlapping frames of ``frame_length`` samples, ``frame_step`` apart, along ``axis``:
    that axis becomes ``[frames, frame_length]``; ``pad_end`` pads the last frames with
    ``pad_value`` (``ceil(n / frame_step)`` frames), else only whole frames are kept."""
    signal = convert_to_tensor(signal)
    frame_length = convert_to_tensor(frame_length, dtype=D.int32)
    frame_step = convert_to_tensor(frame_step, dtype=D.int32)
    rank = signal.shape.rank
    if rank is None or rank < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {rank}")
    axis = _axis(axis, rank)
    length = signal.shape.dims[axis]
    length = tf_shape(signal)[axis] if length is None else convert_to_tensor(length, D.int32)
    if pad_end:
        frames = -(-length // frame_step)
        extra = maximum(0, (frames - 1) * frame_step + frame_length - length)
        paddings = [[0, 0]] * axis + [[0, extra]] + [[0, 0]] * (rank - axis - 1)
        signal = pad(signal, paddings, constant_values=pad_value)
    else:
        frames = maximum(0, 1 + (length - frame_length) // frame_step)
    starts = reshape(tf_range(frames) * frame_step, [-1, 1])
    indices = starts + reshape(tf_range(frame_length), [1, -1])
    return gather(signal, indices, axis=axis)


@tf_export("signal.overlap_and_add")
def overlap_and_add(signal, frame_step, name=None):
    """The frames ``[..., frames, frame_length]`` summed at offsets ``frame_step`` apart into
    ``[..., (frames - 1) * frame_step + frame_length]`` samples."""
    signal = convert_to_tensor(signal)
    frame_step = convert_to_tensor(frame_step, dtype=D.int32)
    if frame_step.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {frame_step.shape.rank}")
    rank = signal.shape.rank
    if rank is None or rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {rank}")
    dims = tf_shape(signal)
    outer, frames, frame_length = dims[:-2], dims[-2], dims[-1]
    out_length = (frames - 1) * frame_step + frame_length
    perm = [rank - 2, rank - 1] + list(range(rank - 2))
    flat = reshape(transpose(signal, perm), concat([[frames * frame_length], outer], 0))
    targets = (reshape(tf_range(frames) * frame_step, [-1, 1])
               + reshape(tf_range(frame_length), [1, -1]))
    summed = unsorted_segment_sum(flat, reshape(targets, [-1]), out_length)
    back = list(range(1, rank - 1)) + [0]
    return transpose(summed, back)


def _enclosing_power_of_two(value):
    """2 ** N, the smallest power of two >= ``value``."""
    known = static_value(value)
    if known is not None:
        return convert_to_tensor(int(2 ** math.ceil(math.log2(int(known)))) if known > 0 else 1,
                                 dtype=value.dtype)
    return cast(2.0 ** ceil(log(cast(value, D.float32)) / math.log(2.0)), value.dtype)


@tf_export("signal.stft")
def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None):
    """The short-time Fourier transform ``[..., frames, fft_length // 2 + 1]`` of real
    ``[..., samples]`` signals: framed, windowed by ``window_fn`` and real-FFT'd
    (``fft_length`` defaults to the power of two enclosing ``frame_length``)."""
    signals = convert_to_tensor(signals)
    if signals.shape.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    frame_length = _scalar(frame_length, "frame_length")
    frame_step = _scalar(frame_step, "frame_step")
    fft_length = (_enclosing_power_of_two(frame_length) if fft_length is None
                  else convert_to_tensor(fft_length))
    framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(frame_length, dtype=framed.dtype)
    return rfft(framed, [fft_length])


def _scalar(value, what):
    t = convert_to_tensor(value)
    if t.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {t.shape.rank} for `{what}`")
    return t


@tf_export("signal.inverse_stft_window_fn")
def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window for ``inverse_stft`` that undoes ``forward_window_fn``'s overlapped gain: the
    forward window divided by the sum of its squares over the frames overlapping each sample."""

    def inverse_stft_window_fn_inner(frame_length, dtype):
        step = _scalar(frame_step, "frame_step")
        length = _scalar(frame_length, "frame_length")
        forward = forward_window_fn(length, dtype=dtype)
        overlaps = -(-length // step)
        denom = pad(forward * forward, [[0, overlaps * step - length]])
        denom = reduce_sum(reshape(denom, [overlaps, step]), 0, keepdims=True)
        denom = reshape(tile(denom, [overlaps, 1]), [-1])[:length]
        return where(equal(denom, 0.0), zeros(tf_shape(forward), dtype), forward / denom)

    return inverse_stft_window_fn_inner


@tf_export("signal.inverse_stft")
def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None):
    """The signals ``[..., samples]`` whose ``stft`` is ``stfts``: inverse real FFTs cropped or
    zero-padded to ``frame_length``, windowed by ``window_fn`` and overlap-added."""
    stfts = convert_to_tensor(stfts)
    if stfts.shape.rank is not None and stfts.shape.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {stfts.shape.rank}")
    frame_length = _scalar(frame_length, "frame_length")
    frame_step = _scalar(frame_step, "frame_step")
    fft_length = (_enclosing_power_of_two(frame_length) if fft_length is None
                  else _scalar(fft_length, "fft_length"))
    frames = irfft(stfts, [fft_length])
    rank = frames.shape.rank
    have = tf_shape(frames)[-1]
    frames = frames[..., :frame_length]
    extra = maximum(0, frame_length - have)
    frames = pad(frames, [[0, 0]] * (rank - 1) + [[0, extra]])
    if window_fn is not None:
        frames = frames * window_fn(frame_length, dtype=stfts.dtype.real_dtype)
    return overlap_and_add(frames, frame_step)
