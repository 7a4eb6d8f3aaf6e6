"""Gradients of tf.signal's Fourier transforms: each is linear, so its gradient is the adjoint
transform (TF's convention for complex values: the gradient is d/dRe + i d/dIm)."""

import numpy as np

from ...ops.array.padding import pad
from ...ops.array.ranges import range as tf_range
from ...ops.array.shapes import shape
from ...ops.math.casting import cast
from ...ops.math.compare import equal, logical_and, logical_or
from ...ops.math.complex_numbers import real
from ...ops.signal import fft as F
from ..grad_util import register_gradients

_RANK = {"": 1, "2D": 2, "3D": 3}


def _inner_size(x, rank, dtype):
    dims = shape(x)[-rank:]
    size = dims[0]
    for i in range(1, rank):
        size = size * dims[i]
    return cast(size, dtype)


def _complex_rules():
    rules = {}
    for suffix, rank in _RANK.items():
        forward = getattr(F, "fft" + suffix.lower())
        inverse = getattr(F, "ifft" + suffix.lower())

        def fft_grad(op, dy, inverse=inverse, rank=rank):
            return inverse(dy) * _inner_size(dy, rank, dy.dtype)

        def ifft_grad(op, dy, forward=forward, rank=rank):
            return forward(dy) / _inner_size(dy, rank, dy.dtype)

        rules["FFT" + suffix], rules["IFFT" + suffix] = fft_grad, ifft_grad
    return rules


def _fit_last(t, length):
    """``t`` cropped or zero-padded on its last axis to ``length`` (a scalar tensor)."""
    have = shape(t)[-1]
    t = t[..., :length]
    extra = length - have
    rank = t.shape.rank
    return pad(t, [[0, 0]] * (rank - 1) + [[0, (extra + abs(extra)) // 2]])


def _real_rules():
    rules = {}
    for suffix, rank in _RANK.items():
        rfft = getattr(F, "rfft" + suffix.lower())
        inverse = getattr(F, "ifft" + suffix.lower())

        def rfft_grad(op, dy, rank=rank, inverse=inverse):
            # x -> the first n // 2 + 1 bins of its FFT: the adjoint zero-fills the other bins,
            # runs the inverse FFT times the size, keeps the real part, and undoes the crop/pad
            x, lengths = op.inputs
            full = _fit_last(dy, lengths[-1])
            grad = real(inverse(full) * _inner_size(full, rank, full.dtype))
            return _fit_input(grad, x, rank), None

        def irfft_grad(op, dy, rank=rank, rfft=rfft):
            # the inverse real FFT counts each bin twice (itself and its mirror) but the DC and
            # Nyquist bins once: the adjoint is the forward real FFT, doubled except there, / N
            y, lengths = op.inputs
            n = lengths[-1]
            bins = n // 2 + 1
            spectrum = rfft(dy, lengths)
            weights = 2.0 - cast(_edge_mask(bins, n), spectrum.dtype.real_dtype)
            grad = spectrum * cast(weights, spectrum.dtype) / cast(
                _inner_size(dy, rank, dy.dtype), spectrum.dtype)
            return _fit_input(grad, y, rank), None

        rules["RFFT" + suffix], rules["IRFFT" + suffix] = rfft_grad, irfft_grad
    return rules


def _edge_mask(bins, n):
    """1.0 at the DC bin and (for even n) the Nyquist bin, else 0.0."""
    k = tf_range(bins)
    return cast(logical_or(equal(k, 0), logical_and(equal(n % 2, 0), equal(k, n // 2))),
                np.float32)


def _fit_input(grad, x, rank):
    """The gradient cropped or zero-padded back to ``x``'s inner dims (the op did the reverse)."""
    for axis in range(-rank, 0):
        grad = _fit_axis(grad, shape(x)[axis], axis)
    return grad


def _fit_axis(t, length, axis):
    rank = t.shape.rank
    axis %= rank
    have = shape(t)[axis]
    index = [slice(None)] * rank
    index[axis] = slice(None, length)
    t = t[tuple(index)]
    extra = length - have
    paddings = [[0, 0]] * rank
    paddings[axis] = [0, (extra + abs(extra)) // 2]
    return pad(t, paddings)


register_gradients({**_complex_rules(), **_real_rules()})
