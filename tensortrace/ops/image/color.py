"""Image dtypes and colors: convert_image_dtype (TF's rescaling rules), grayscale, and HSV
(the RGBToHSV and HSVToRGB kernels, as TF's Eigen expressions)."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec
from .._base import dtypes_named
from ..array.creation import ones
from ..array.joining import concat
from ..array.padding import tile
from ..array.reshaping import expand_dims
from ..array.shapes import rank
from ..linalg.products import tensordot
from ..math.arithmetic import floordiv, multiply
from ..math.casting import cast
from ..math.clip import saturate_cast

_FLOATS = dtypes_named("float16 float32 float64")
_HSV_T = dtypes_named("float16 bfloat16 float32 float64")  # RGBToHSV's and HSVToRGB's order
_HALF_FLOAT = (D.float16, D.float32)


@tf_export("image.convert_image_dtype")
def convert_image_dtype(image, dtype, saturate=False, name=None):
    """``image`` in ``dtype``, rescaled: floats are in [0, 1), integers span [0, MAX]."""
    image = convert_to_tensor(image)
    dtype = D.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return image
    to = saturate_cast if saturate else cast
    if image.dtype.is_integer and dtype.is_integer:
        scale_in, scale_out = image.dtype.max, dtype.max
        if scale_in > scale_out:  # scale first, then cast
            scale = (scale_in + 1) // (scale_out + 1)
            return to(floordiv(image, convert_to_tensor(scale, image.dtype)), dtype)
        scale = (scale_out + 1) // (scale_in + 1)
        return multiply(to(image, dtype), convert_to_tensor(scale, dtype))
    if image.dtype.is_floating and dtype.is_floating:
        return cast(image, dtype)
    if image.dtype.is_integer:  # to float: cast, then scale
        return multiply(cast(image, dtype), convert_to_tensor(1.0 / image.dtype.max, dtype))
    scaled = multiply(image, convert_to_tensor(dtype.max + 0.5, image.dtype))
    return to(scaled, dtype)


def to_float(image):
    """The float32 working copy of an image (float16 and float32 are kept) and its dtype."""
    image = convert_to_tensor(image)
    if image.dtype in _HALF_FLOAT:
        return image, image.dtype
    return convert_image_dtype(image, D.float32), image.dtype


# --- grayscale ---------------------------------------------------------------------------------
@tf_export("image.rgb_to_grayscale")
def rgb_to_grayscale(images, name=None):
    """Luma of RGB ``images`` (ITU-R BT.601 weights), with a last dimension of 1."""
    images = convert_to_tensor(images)
    flt = convert_image_dtype(images, D.float32)
    gray = tensordot(flt, convert_to_tensor([0.2989, 0.5870, 0.1140], D.float32), [-1, -1])
    return convert_image_dtype(expand_dims(gray, -1), images.dtype)


@tf_export("image.grayscale_to_rgb")
def grayscale_to_rgb(images, name=None):
    """Grayscale ``images`` (last dimension 1) repeated into three channels."""
    images = convert_to_tensor(images)
    dims = images.shape.dims
    if dims is not None and (len(dims) < 2 or dims[-1] not in (None, 1)):
        raise ValueError("Last dimension of a grayscale image should be size 1.")
    multiples = concat([ones(expand_dims(rank(images) - 1, 0), D.int32),
                        convert_to_tensor([3], D.int32)], 0)
    return tile(images, multiples)


# --- HSV -----------------------------------------------------------------------------------------
def _rgb_to_hsv(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    one = rgb.dtype.type(1)
    v = np.maximum(np.maximum(r, g), b)
    span = v - np.minimum(np.minimum(r, g), b)
    with np.errstate(all="ignore"):
        s = np.where(v > 0, span / v, 0).astype(rgb.dtype)
        norm = (one / span) * (one / rgb.dtype.type(6))
        h = np.where(r == v, norm * (g - b),
                     np.where(g == v, norm * (b - r) + rgb.dtype.type(2 / 6),
                              norm * (r - g) + rgb.dtype.type(4 / 6)))
    h = np.where(span > 0, h, 0)
    h = np.where(h < 0, h + one, h).astype(rgb.dtype)
    return np.stack([h, s, v], -1)


def _hsv_to_rgb(hsv):
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    t = hsv.dtype.type
    dh = h * t(6)
    dr = np.clip(np.abs(dh - t(3)) - t(1), 0, 1)
    dg = np.clip(-np.abs(dh - t(2)) + t(2), 0, 1)
    db = np.clip(-np.abs(dh - t(4)) + t(2), 0, 1)
    one_s = -s + t(1)
    return np.stack([(one_s + s * d) * v for d in (dr, dg, db)], -1).astype(hsv.dtype)


def _rgb_op(name, fn, doc):
    @define_op(name)
    class Op:
        check = DtypeCheck(name, _HSV_T, 1)

        def infer(images):
            dims = images.shape.dims
            if dims is not None and (not dims or dims[-1] not in (None, 3)):
                raise ValueError(f"Dimension must be 3 but is {dims[-1] if dims else 0} for "
                                 f"'{{{{node {name}}}}} = {name}[T=DT_FLOAT](images)'")
            return TensorSpec(images.shape, images.dtype)

        def kernel(images):
            x = np.asarray(images)
            if x.ndim < 1 or x.shape[-1] != 3:
                raise invalid_argument(f"input must have 3 channels but input only has "
                                       f"{x.shape[-1] if x.ndim else 0} channels.", name)
            return fn(x)

    Op.__doc__ = doc
    return Op


RGBToHSV = _rgb_op("RGBToHSV", _rgb_to_hsv, "RGB to HSV, all in [0, 1].")
HSVToRGB = _rgb_op("HSVToRGB", _hsv_to_rgb, "HSV to RGB, all in [0, 1].")


@tf_export("image.rgb_to_hsv")
def rgb_to_hsv(images, name=None):
    """HSV of RGB ``images`` (floats in [0, 1]; the last dimension is the channel)."""
    return bind(RGBToHSV, convert_to_tensor(images))


@tf_export("image.hsv_to_rgb")
def hsv_to_rgb(images, name=None):
    """RGB of HSV ``images`` (floats in [0, 1])."""
    return bind(HSVToRGB, convert_to_tensor(images))
