"""ImageProjectiveTransformV2/V3: each output pixel read from the input at a projective map of its
coordinates (what Keras' random rotations, zooms, shifts and shears run on TF), with TF's fill
modes (constant, reflect, wrap, nearest) and nearest or bilinear sampling, in float32 as TF's
ProjectiveGenerator."""

import numpy as np

from ... import dtypes as D
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape
from ...tensor import TensorSpec, static_value
from .._base import dtypes_named

_F = np.float32
_T = dtypes_named("uint8 int32 int64 float16 bfloat16 float32 float64")
_MODES = ("REFLECT", "WRAP", "CONSTANT", "NEAREST")


def _map(coord, length, mode):
    """TF's MapCoordinate for one axis (float32 coordinates, integer length)."""
    c = coord.astype(_F)
    if mode == "CONSTANT":
        return c
    top = _F(length - 1)
    if mode == "NEAREST":
        return np.clip(c, _F(0), top)
    with np.errstate(invalid="ignore", over="ignore"):
        if length <= 1:
            c = np.where((c < 0) | (c > top), _F(0), c)
        elif mode == "REFLECT":
            sz2 = 2 * length
            neg = c.copy()
            small = neg < sz2
            neg = np.where(small, _F(sz2) * np.trunc(-neg / _F(sz2)) + neg, neg).astype(_F)
            neg = np.where(neg < -length, neg + _F(sz2), -neg - _F(1)).astype(_F)
            pos = (c - _F(sz2) * np.trunc(c / _F(sz2))).astype(_F)
            pos = np.where(pos >= length, _F(sz2) - pos - _F(1), pos).astype(_F)
            c = np.where(c < 0, neg, np.where(c > top, pos, c))
        else:  # WRAP
            sz = length - 1
            neg = (c + _F(length) * (np.trunc(-c / _F(sz)) + 1)).astype(_F)
            pos = (c - _F(length) * np.trunc(c / _F(sz))).astype(_F)
            c = np.where(c < 0, neg, np.where(c > top, pos, c))
    return np.clip(c, _F(0), top).astype(_F)


def _read(img, y, x, fill):
    """img[y, x] (all channels) where inside, else the fill value."""
    h, w = img.shape[:2]
    ok = (y >= 0) & (y < h) & (x >= 0) & (x < w)
    got = img[np.clip(y, 0, h - 1), np.clip(x, 0, w - 1)]
    return np.where(ok[..., None], got, fill)


def _transform(images, transforms, out_h, out_w, interpolation, mode, fill_value):
    x = np.asarray(images)
    t = np.asarray(transforms, _F)
    if x.ndim != 4:
        raise invalid_argument("Input images must have rank 4")
    if t.ndim != 2 or t.shape[1] != 8 or t.shape[0] not in (1, x.shape[0]):
        raise invalid_argument("Input transform should be num_images x 8 or 1 x 8")
    if interpolation not in ("NEAREST", "BILINEAR"):
        raise invalid_argument(f"Invalid interpolation {interpolation}. Supported types: "
                               "NEAREST, BILINEAR")
    if mode not in _MODES:
        raise invalid_argument(f"Invalid fill_mode {mode}. Supported types: REFLECT, WRAP, "
                               "CONSTANT, NEAREST")
    out_dtype = x.dtype
    fill = np.asarray(fill_value).astype(out_dtype)
    ys, xs = np.mgrid[0:out_h, 0:out_w]
    oy, ox = ys.astype(_F), xs.astype(_F)
    out = np.empty((x.shape[0], out_h, out_w, x.shape[3]), out_dtype)
    h, w = x.shape[1], x.shape[2]
    for b in range(x.shape[0]):
        k = t[0 if t.shape[0] == 1 else b]
        projection = (k[6] * ox + k[7] * oy + _F(1)).astype(_F)
        with np.errstate(divide="ignore", invalid="ignore"):
            in_x = ((k[0] * ox + k[1] * oy + k[2]) / projection).astype(_F)
            in_y = ((k[3] * ox + k[4] * oy + k[5]) / projection).astype(_F)
        px, py = _map(in_x, w, mode), _map(in_y, h, mode)
        # only an infinite projection is filled outright: other outside taps read the fill
        outside = (projection == 0) | ~np.isfinite(px) | ~np.isfinite(py)
        px, py = np.where(outside, _F(-2), px), np.where(outside, _F(-2), py)
        img = x[b]
        if interpolation == "NEAREST":
            val = _read(img, _round(py), _round(px), fill)
        else:
            y0, x0 = np.floor(py), np.floor(px)
            y1, x1 = y0 + 1, x0 + 1
            iy0, ix0, iy1, ix1 = (v.astype(np.int64) for v in (y0, x0, y1, x1))
            f = img.astype(_F)
            fillf = fill.astype(_F)
            wx0, wx1 = (x1 - px)[..., None], (px - x0)[..., None]
            low = wx0 * _read(f, iy0, ix0, fillf) + wx1 * _read(f, iy0, ix1, fillf)
            high = wx0 * _read(f, iy1, ix0, fillf) + wx1 * _read(f, iy1, ix1, fillf)
            mixed = ((y1 - py)[..., None] * low + (py - y0)[..., None] * high).astype(_F)
            val = _cast(mixed, out_dtype)
        out[b] = np.where(outside[..., None], fill, val)
    return out


def _round(v):
    """std::round: halves away from zero."""
    a = np.abs(v)
    low = np.floor(a)
    return (np.sign(v) * (low + (a - low >= 0.5))).astype(np.int64)


def _cast(v, dtype):
    if np.issubdtype(dtype, np.integer):  # C's float -> int conversion truncates
        return np.trunc(v).astype(dtype)
    return v.astype(dtype)


def _infer(images, output_shape, dtype):
    hw = static_value(output_shape)
    out_hw = [None, None] if hw is None else [int(v) for v in np.asarray(hw)]
    dims = images.shape.dims
    batch, depth = (None, None) if dims is None else (dims[0], dims[3])
    return TensorSpec(TensorShape([batch] + out_hw + [depth]), dtype)


def _out_hw(output_shape):
    s = np.asarray(output_shape)
    if s.shape != (2,):
        raise invalid_argument("output shape must be 1-dimensional with 2 elements")
    h, w = (int(v) for v in s)
    if h <= 0 or w <= 0:
        raise invalid_argument("output dimensions must be positive")
    return h, w


@define_op("ImageProjectiveTransformV3")
class ImageProjectiveTransformV3:
    """``images`` resampled through projective ``transforms`` (one [a0..a7] per image or one
    for all), outside pixels by ``fill_mode`` (``fill_value`` for CONSTANT)."""

    check = DtypeCheck("ImageProjectiveTransformV3", _T, 1,
                       fixed={1: D.float32, 2: D.int32, 3: D.float32}, attr="dtype")

    def infer(images, transforms, output_shape, fill_value, *, interpolation,
              fill_mode="CONSTANT"):
        return _infer(images, output_shape, images.dtype)

    def kernel(images, transforms, output_shape, fill_value, *, interpolation,
               fill_mode="CONSTANT"):
        h, w = _out_hw(output_shape)
        return _transform(images, transforms, h, w, interpolation, fill_mode,
                          np.asarray(fill_value, _F))


@define_op("ImageProjectiveTransformV2")
class ImageProjectiveTransformV2:
    """ImageProjectiveTransformV3 with a zero fill value."""

    check = DtypeCheck("ImageProjectiveTransformV2", _T, 1, fixed={1: D.float32, 2: D.int32},
                       attr="dtype")

    def infer(images, transforms, output_shape, *, interpolation, fill_mode="CONSTANT"):
        return _infer(images, output_shape, images.dtype)

    def kernel(images, transforms, output_shape, *, interpolation, fill_mode="CONSTANT"):
        h, w = _out_hw(output_shape)
        return _transform(images, transforms, h, w, interpolation, fill_mode, _F(0))


def image_projective_transform_v3(images, transforms, output_shape, fill_value, interpolation,
                                  fill_mode="CONSTANT", name=None):
    """The op on converted arguments, as ``tf.raw_ops.ImageProjectiveTransformV3`` takes them."""
    images = convert_to_tensor(images)
    return bind(ImageProjectiveTransformV3, images, convert_to_tensor(transforms, D.float32),
                convert_to_tensor(output_shape, D.int32), convert_to_tensor(fill_value,
                                                                            D.float32),
                interpolation=str(interpolation), fill_mode=str(fill_mode))
