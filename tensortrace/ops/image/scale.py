"""ScaleAndTranslate (TF's separable resampling with lanczos, gaussian, box, triangle, Keys and
Mitchell kernels, optionally widened to antialias), its gradient, and ResizeArea.

Spans and weights follow TF's ComputeSpans in float32: an output pixel's center mapped back into
the input, the kernel's taps clamped to the image, the weights renormalized; rows are
resampled first, then columns, each output a float32 sum of weight * value in tap order. The
gradient runs the same gather with TF's transposed spans.
"""

import ctypes
import ctypes.util

import numpy as np

from ... import dtypes as D
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec
from .._base import dtypes_named
from ._common import (check_images as _check_images, infer_resized as _infer,
                      out_size as _size)

_REAL = dtypes_named("int8 uint8 int16 uint16 int32 int64 bfloat16 float16 float32 float64")
_F = np.float32


def _libm_sinf():
    """The C library's sinf, which TF's Lanczos kernel calls (glibc's is not always the float
    nearest the true sine, and NumPy's float32 sine differs from both)."""
    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m"))
        libm.sinf.restype, libm.sinf.argtypes = ctypes.c_float, [ctypes.c_float]
    except (OSError, AttributeError, TypeError):
        return None
    return np.frompyfunc(lambda v: libm.sinf(v), 1, 1)


_C_SINF = _libm_sinf()


def _sinf(x):
    x = np.asarray(x, _F)
    if _C_SINF is None:
        return np.sin(x.astype(np.float64)).astype(_F)
    return np.asarray(_C_SINF(x.astype(np.float64)), _F)


def _lanczos(radius):
    r = _F(radius)

    def kernel(x):
        pi = _F(3.14159265359)
        with np.errstate(divide="ignore", invalid="ignore"):
            v = r * _sinf(pi * x) * _sinf(pi * x / r) / (pi * pi * x * x)
        return np.where(x > r, _F(0), np.where(x <= 1e-3, _F(1), v)).astype(_F)

    return kernel, r


def _gaussian(x):
    sigma = _F(1.5) / _F(3)
    v = np.exp((-x * x).astype(np.float64) / (2.0 * sigma * sigma)).astype(_F)
    return np.where(x >= _F(1.5), _F(0), v)


def _box(x):
    return np.where(x < 0.5, _F(1), np.where(x == 0.5, _F(0.5), _F(0))).astype(_F)


def _triangle(x):
    return np.where(x < 1, _F(1) - x, _F(0)).astype(_F)


def _keys(x):
    far = ((_F(-0.5) * x + _F(2.5)) * x - _F(4)) * x + _F(2)
    near = ((_F(1.5) * x - _F(2.5)) * x) * x + _F(1)
    return np.where(x >= 2, _F(0), np.where(x >= 1, far, near)).astype(_F)


def _mitchell(x):
    far = ((_F(-7.0 / 18.0) * x + _F(2)) * x - _F(10.0 / 3.0)) * x + _F(16.0 / 9.0)
    near = ((_F(7.0 / 6.0) * x - _F(2)) * x) * x + _F(8.0 / 9.0)
    return np.where(x >= 2, _F(0), np.where(x >= 1, far, near)).astype(_F)


_KERNELS = {"lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5),
            "gaussian": (_gaussian, _F(1.5)), "box": (_box, _F(1)),
            "triangle": (_triangle, _F(1)), "keyscubic": (_keys, _F(2)),
            "mitchellcubic": (_mitchell, _F(2))}


def spans(kernel_type, out_size, in_size, scale, translate, antialias):
    """(starts [out], weights [out, span]) of TF's ComputeSpans."""
    kernel, radius = _KERNELS[kernel_type]
    inv_scale = _F(1.0 / float(_F(scale)))
    inv_translate = -inv_scale * _F(translate)
    kernel_scale = max(inv_scale, _F(1)) if antialias else _F(1)
    span = min(2 * int(np.ceil(radius * kernel_scale)) + 1, in_size)
    sample = (np.arange(out_size, dtype=_F) + _F(0.5)) * inv_scale + inv_translate
    inside = (sample >= 0) & (sample <= in_size)
    reach = radius * kernel_scale
    start = np.clip(np.ceil(sample - reach - _F(0.5)), 0, in_size - 1).astype(np.int64)
    end = np.clip(np.floor(sample + reach - _F(0.5)), 0, in_size - 1).astype(np.int64) + 1
    taps = start[:, None] + np.arange(span)[None, :]
    used = taps < end[:, None]
    pos = taps.astype(_F) + _F(0.5) - sample[:, None]
    w = np.where(used, kernel(np.abs(pos * (_F(1) / kernel_scale))), _F(0)).astype(_F)
    total = np.zeros(out_size, _F)
    for i in range(span):  # TF's float sum, tap by tap
        total = total + w[:, i]
    ok = np.abs(total) >= _F(1000) * np.finfo(_F).tiny
    w = np.where(ok[:, None], w * (_F(1) / np.where(ok, total, 1))[:, None], _F(0)).astype(_F)
    w = np.where(inside[:, None], w, _F(0))
    return np.where(inside, start, 0), w


def _gather(x, axis, starts, weights, in_size):
    """Σ_i weights[:, i] * x[start + i] along ``axis``, summed in tap order in float32."""
    out = np.zeros_like(np.take(x, starts, axis=axis), _F)
    for i in range(weights.shape[1]):
        index = np.minimum(starts + i, in_size - 1)
        w = weights[:, i].reshape([-1 if a == axis else 1 for a in range(4)])
        out = out + np.take(x, index, axis=axis) * w
    return out


@define_op("ScaleAndTranslate")
class ScaleAndTranslate:
    """``images`` resampled to ``size`` by a kernel, scaled by ``scale`` and shifted by
    ``translation`` (float32 out)."""

    check = DtypeCheck("ScaleAndTranslate", _REAL, 1)

    def infer(images, size, scale, translation, *, kernel_type="lanczos3", antialias=True):
        return _infer(images, size, D.float32)

    def kernel(images, size, scale, translation, *, kernel_type="lanczos3", antialias=True):
        _check_images(images, "ScaleAndTranslate")
        if kernel_type not in _KERNELS:
            raise invalid_argument(f"Unrecognized kernel type: {kernel_type}")
        x = np.asarray(images).astype(_F)
        h, w = _size(size)
        s, t = np.asarray(scale, _F), np.asarray(translation, _F)
        if s.shape != (2,) or t.shape != (2,):
            raise invalid_argument("scale and translation must be 1-dimensional with 2 "
                                   "elements")
        if s[0] <= 0 or s[1] <= 0:
            raise invalid_argument("Scale must be greater than zero.")
        rs, rw = spans(kernel_type, h, x.shape[1], s[0], t[0], antialias)
        cs, cw = spans(kernel_type, w, x.shape[2], s[1], t[1], antialias)
        return _gather(_gather(x, 1, rs, rw, x.shape[1]), 2, cs, cw, x.shape[2])


@define_op("ScaleAndTranslateGrad")
class ScaleAndTranslateGrad:
    """The gradient of ScaleAndTranslate: each output's gradient spread onto its taps."""

    def infer(grads, original_image, scale, translation, *, kernel_type="lanczos3",
              antialias=True):
        return TensorSpec(original_image.shape, D.float32)

    def kernel(grads, original_image, scale, translation, *, kernel_type="lanczos3",
               antialias=True):
        g = np.asarray(grads, _F)
        _, in_h, in_w, _ = np.shape(original_image)
        s, t = np.asarray(scale, _F), np.asarray(translation, _F)
        rs, rw = grad_spans(*spans(kernel_type, g.shape[1], in_h, s[0], t[0], antialias), in_h)
        cs, cw = grad_spans(*spans(kernel_type, g.shape[2], in_w, s[1], t[1], antialias), in_w)
        return _gather(_gather(g, 1, rs, rw, g.shape[1]), 2, cs, cw, g.shape[2])


def grad_spans(starts, weights, in_size):
    """TF's ComputeGradSpansCore: for each input pixel, the outputs it feeds (from the first
    one) with their weights."""
    feeds = [[] for _ in range(in_size)]
    for out_index, (start, row) in enumerate(zip(starts.tolist(), weights.tolist())):
        for j, w in enumerate(row):
            if w != 0.0 and start + j < in_size:
                feeds[start + j].append((out_index, w))
    size = max([f[-1][0] - f[0][0] + 1 for f in feeds if f], default=0)
    grad_starts = np.zeros(in_size, np.int64)
    grad_weights = np.zeros((in_size, size), _F)
    for i, f in enumerate(feeds):
        if f:
            grad_starts[i] = f[0][0]
            for index, w in f:
                grad_weights[i, index - f[0][0]] += _F(w)
    return grad_starts, grad_weights


def scale_and_translate(images, size, scale, translation, kernel_type="lanczos3",
                        antialias=True):
    """The op on converted arguments (size int32, scale and translation float32)."""
    return bind(ScaleAndTranslate, convert_to_tensor(images), convert_to_tensor(size, D.int32),
                convert_to_tensor(scale, D.float32), convert_to_tensor(translation, D.float32),
                kernel_type=kernel_type, antialias=bool(antialias))


# --- ResizeArea ----------------------------------------------------------------------------------
def _area_scales(in_size, out_size, align_corners):
    if align_corners and out_size > 1:
        scale = _F((in_size - 1) / _F(out_size - 1))
    else:
        scale = _F(in_size / _F(out_size))
    cells = []
    for y in range(out_size):
        lo, hi = _F(y) * scale, _F(y + 1) * scale
        first, last = int(np.floor(lo)), int(np.ceil(hi))
        weights = []
        for i in range(first, last):
            if i < lo:
                v = scale if i + 1 > hi else _F(i + 1) - lo
            else:
                v = hi - _F(i) if i + 1 > hi else _F(1)
            weights.append((min(max(i, 0), in_size - 1), _F(v)))
        cells.append(weights)
    return scale, cells


@define_op("ResizeArea")
class ResizeArea:
    """Each output pixel the area-weighted mean of the input cells it covers (float32)."""

    check = DtypeCheck("ResizeArea", _REAL, 1)

    def infer(images, size, *, align_corners=False):
        return _infer(images, size, D.float32)

    def kernel(images, size, *, align_corners=False):
        _check_images(images, "ResizeArea")
        x = np.asarray(images).astype(_F)
        h, w = _size(size)
        hs, ycells = _area_scales(x.shape[1], h, align_corners)
        ws, xcells = _area_scales(x.shape[2], w, align_corners)
        norm = _F(1.0 / float(_F(hs * ws)))
        out = np.empty((x.shape[0], h, w, x.shape[3]), _F)
        for ox, xc in enumerate(xcells):
            # sum along x per input row: first cell * scale, middle cells, last cell * scale
            row = x[:, :, xc[0][0]] * xc[0][1]
            for i, (ix, v) in enumerate(xc[1:], 1):
                row = row + (x[:, :, ix] * v if i == len(xc) - 1 else x[:, :, ix])
            for oy, yc in enumerate(ycells):
                total = _F(0)
                for iy, v in yc:
                    total = total + row[:, iy] * v
                out[:, oy, ox] = total * norm
        return out
