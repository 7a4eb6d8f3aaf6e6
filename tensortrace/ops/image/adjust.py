"""Color adjustments: brightness, contrast (AdjustContrastv2), gamma, hue (AdjustHue) and
saturation (AdjustSaturation) with TF's kernels, per_image_standardization, and the random_* and
stateless_random_* forms that draw the factor and apply them.

As in TF, images are adjusted in float32 (float16 and float32 stay as they are) and converted back
to their dtype with saturation."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec, static_value
from .._base import dtypes_named
from ..array.shapes import shape
from ..math.arithmetic import add, divide, maximum, multiply, pow as tf_pow, subtract
from ..math.casting import cast
from ..math.transcendental import rsqrt
from ..random.stateful import uniform
from ..random.stateless import stateless_uniform
from ..reduce import reduce_mean, reduce_prod, reduce_std
from ._common import check_3d
from .color import convert_image_dtype, to_float

_FLOATS = dtypes_named("float16 float32 float64")


def _back(adjusted, dtype):
    return convert_image_dtype(adjusted, dtype, saturate=True)


@tf_export("image.adjust_brightness")
def adjust_brightness(image, delta):
    """``image`` + ``delta`` (in the float scale, [0, 1) for integer images)."""
    flt, dtype = to_float(image)
    return _back(add(flt, cast(convert_to_tensor(delta), flt.dtype)), dtype)


@define_op("AdjustContrastv2")
class AdjustContrastv2:
    """Each channel of each image moved away from (or toward) its mean by ``contrast_factor``."""

    check = DtypeCheck("AdjustContrastv2", (D.float16, D.float32), 1)

    def infer(images, contrast_factor):
        return TensorSpec(images.shape, images.dtype)

    def kernel(images, contrast_factor):
        x = np.asarray(images)
        if x.ndim < 3:
            raise invalid_argument(f"input must be at least 3-D, got shape{list(x.shape)}",
                                   "AdjustContrastv2")
        f = np.asarray(contrast_factor, np.float32)
        if f.ndim:
            raise invalid_argument(f"contrast_factor must be scalar: {list(f.shape)}",
                                   "AdjustContrastv2")
        xf = x.astype(np.float32)
        mean = xf.mean(axis=(-3, -2), keepdims=True, dtype=np.float32)
        return ((xf - mean) * f + mean).astype(x.dtype)


@tf_export("image.adjust_contrast")
def adjust_contrast(images, contrast_factor):
    """``(x - mean) * contrast_factor + mean`` per channel of each image."""
    flt, dtype = to_float(images)
    return _back(bind(AdjustContrastv2, flt, cast(convert_to_tensor(contrast_factor),
                                                  D.float32)), dtype)


@tf_export("image.adjust_gamma")
def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma`` (in the float scale)."""
    flt, dtype = to_float(image)
    gamma = convert_to_tensor(gamma, flt.dtype)
    known = static_value(gamma)
    if known is not None and np.any(np.asarray(known) < 0):
        raise ValueError("Gamma should be a non-negative real number.")
    adjusted = multiply(convert_to_tensor(gain, flt.dtype), tf_pow(flt, gamma))
    return _back(adjusted, dtype)


# --- hue and saturation: TF's kernels, per pixel ------------------------------------------------
def _hue_kernel(x, delta):
    """AdjustHue: hue as a position in [0, 6) between the min and max channel, moved by 6*delta."""
    r, g, b = (x[..., i].astype(np.float32) for i in range(3))
    f = np.float32
    # the six orderings of (r, g, b): category and which channel is max / mid / min
    cat = np.select([(r < g) & (b < r), (r < g) & (b > g), r < g, b < g, b > r],
                    [1, 3, 2, 0, 4], 5)
    channels = np.stack([r, g, b])
    order = np.array([[0, 1, 2], [1, 0, 2], [1, 2, 0], [2, 1, 0], [2, 0, 1], [0, 2, 1]])
    # order[cat] = (max, mid, min) channel indices per category
    pick = order[cat]
    vmax = np.take_along_axis(channels, pick[None, ..., 0], 0)[0]
    vmid = np.take_along_axis(channels, pick[None, ..., 1], 0)[0]
    vmin = np.take_along_axis(channels, pick[None, ..., 2], 0)[0]
    with np.errstate(all="ignore"):
        ratio = (vmid - vmin) / (vmax - vmin)
    h = np.where(cat % 2 == 0, cat + ratio, cat + (f(1) - ratio)).astype(np.float32)
    h = np.where(vmax == vmin, f(0), h)
    h = (h + f(delta) * f(6)).astype(np.float32)
    for _ in range(2):  # TF adds or subtracts 6 until h is in [0, 6); |delta| <= 1 needs 2
        h = np.where(h < 0, h + f(6), h)
        h = np.where(h >= 6, h - f(6), h)
    cat2 = np.minimum(h.astype(np.int64), 5)
    ratio2 = h - cat2
    ratio2 = np.where(cat2 % 2 == 0, ratio2, f(1) - ratio2)
    mid = vmin + ratio2 * (vmax - vmin)
    out_pick = np.argsort(order, axis=1)[cat2]  # channel c takes slot out_pick[c]
    slots = np.stack([vmax, mid, vmin])
    out = np.stack([np.take_along_axis(slots, out_pick[None, ..., c], 0)[0] for c in range(3)],
                   -1)
    return out.astype(x.dtype)


def _saturation_kernel(x, scale):
    r, g, b = (x[..., i].astype(np.float32) for i in range(3))
    f = np.float32
    v = np.maximum(r, np.maximum(g, b))
    span = v - np.minimum(r, np.minimum(g, b))
    with np.errstate(all="ignore"):
        s = np.where(v > 0, span / v, f(0))
        norm = f(1) / (f(6) * span)
        h = np.where(r == v, norm * (g - b),
                     np.where(g == v, norm * (b - r) + f(2 / 6), norm * (r - g) + f(4 / 6)))
    h = np.where(span <= 0, f(0), h)
    h = np.where(h < 0, h + f(1), h).astype(np.float32)
    s = np.minimum(f(1), np.maximum(f(0), s * f(scale))).astype(np.float32)
    c = s * v
    m = v - c
    dh = h * f(6)
    cat = dh.astype(np.int64)
    fmodu = np.mod(dh, f(2))
    xx = c * (f(1) - np.abs(fmodu - f(1)))
    zero = np.zeros_like(c)
    table = {0: (c, xx, zero), 1: (xx, c, zero), 2: (zero, c, xx), 3: (zero, xx, c),
             4: (xx, zero, c), 5: (c, zero, xx)}
    out = []
    for ch in range(3):
        out.append(np.select([cat == k for k in range(6)], [table[k][ch] for k in range(6)],
                             zero) + m)
    return np.stack(out, -1).astype(x.dtype)


def _pixel_op(name, fn, arg, doc):
    @define_op(name)
    class Op:
        check = DtypeCheck(name, (D.float16, D.float32), 1)

        def infer(images, factor):
            return TensorSpec(images.shape, images.dtype)

        def kernel(images, factor):
            x = np.asarray(images)
            if x.ndim < 3:
                raise invalid_argument(f"input must be at least 3-D, got shape{list(x.shape)}",
                                       name)
            if x.shape[-1] != 3:
                raise invalid_argument(f"input must have 3 channels but instead has "
                                       f"{x.shape[-1]} channels.", name)
            f = np.asarray(factor)
            if f.ndim:
                raise invalid_argument(f"{arg} must be scalar: {list(f.shape)}", name)
            return fn(x, float(f))

    Op.__doc__ = doc
    return Op


AdjustHue = _pixel_op("AdjustHue", _hue_kernel, "delta", "Hue rotated by ``delta`` turns.")
AdjustSaturation = _pixel_op("AdjustSaturation", _saturation_kernel, "scale",
                             "Saturation scaled by ``scale`` (clipped to [0, 1]).")


@tf_export("image.adjust_hue")
def adjust_hue(image, delta, name=None):
    """RGB ``image`` with its hue rotated by ``delta`` (in turns, [-1, 1])."""
    flt, dtype = to_float(image)
    return _back(bind(AdjustHue, flt, convert_to_tensor(delta, D.float32)), dtype)


@tf_export("image.adjust_saturation")
def adjust_saturation(image, saturation_factor, name=None):
    """RGB ``image`` with its saturation multiplied by ``saturation_factor``."""
    flt, dtype = to_float(image)
    return _back(bind(AdjustSaturation, flt, convert_to_tensor(saturation_factor, D.float32)),
                 dtype)


@tf_export("image.per_image_standardization")
def per_image_standardization(image):
    """Each image scaled to mean 0 and variance 1 (the stddev at least 1/sqrt(pixels))."""
    image = cast(check_3d(image), D.float32)
    pixels = reduce_prod(shape(image)[-3:])
    mean = reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
    stddev = reduce_std(image, axis=[-1, -2, -3], keepdims=True)
    adjusted = maximum(stddev, rsqrt(cast(pixels, D.float32)))
    return divide(subtract(image, mean), adjusted)


# --- random adjustments --------------------------------------------------------------------------
def _known(value, name):
    """A bound's value where it is known now (None for a symbolic one, checked by nobody, as
    TF's Python checks cannot either); a non-scalar is refused."""
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    known = static_value(convert_to_tensor(value))
    if known is not None and np.ndim(known) != 0:
        raise ValueError(f"`{name}` must be a scalar, got shape {list(np.shape(known))}")
    return None if known is None else float(known)


def _check_range(lower, upper, what="lower"):
    lo, hi = _known(lower, "lower"), _known(upper, "upper")
    if lo is not None and hi is not None and hi <= lo:
        raise ValueError("upper must be > lower.")
    if lo is not None and lo < 0:
        raise ValueError(f"{what} must be non-negative.")


def _check_delta(max_delta, limit=None):
    delta = _known(max_delta, "max_delta")
    if delta is not None and delta < 0:
        raise ValueError("max_delta must be non-negative.")
    if delta is not None and limit is not None and delta > limit:
        raise ValueError(f"max_delta must be <= {limit}.")


@tf_export("image.random_brightness")
def random_brightness(image, max_delta, seed=None):
    """``adjust_brightness`` by a delta drawn from [-max_delta, max_delta)."""
    _check_delta(max_delta)
    return adjust_brightness(image, uniform([], -max_delta, max_delta, seed=seed))


@tf_export("image.stateless_random_brightness")
def stateless_random_brightness(image, max_delta, seed):
    """``adjust_brightness`` by a delta in [-max_delta, max_delta) determined by ``seed``."""
    _check_delta(max_delta)
    return adjust_brightness(image, stateless_uniform([], seed, -max_delta, max_delta))


@tf_export("image.random_contrast")
def random_contrast(image, lower, upper, seed=None):
    """``adjust_contrast`` by a factor drawn from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_contrast(image, uniform([], lower, upper, seed=seed))


@tf_export("image.stateless_random_contrast")
def stateless_random_contrast(image, lower, upper, seed):
    """``adjust_contrast`` by a factor in [lower, upper) determined by ``seed``."""
    _check_range(lower, upper)
    return adjust_contrast(image, stateless_uniform([], seed, lower, upper))


@tf_export("image.random_hue")
def random_hue(image, max_delta, seed=None):
    """``adjust_hue`` by a delta drawn from [-max_delta, max_delta) (max_delta <= 0.5)."""
    _check_delta(max_delta, 0.5)
    return adjust_hue(image, uniform([], -max_delta, max_delta, seed=seed))


@tf_export("image.stateless_random_hue")
def stateless_random_hue(image, max_delta, seed):
    """``adjust_hue`` by a delta in [-max_delta, max_delta) determined by ``seed``."""
    _check_delta(max_delta, 0.5)
    return adjust_hue(image, stateless_uniform([], seed, -max_delta, max_delta))


@tf_export("image.random_saturation")
def random_saturation(image, lower, upper, seed=None):
    """``adjust_saturation`` by a factor drawn from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_saturation(image, uniform([], lower, upper, seed=seed))


@tf_export("image.stateless_random_saturation")
def stateless_random_saturation(image, lower, upper, seed):
    """``adjust_saturation`` by a factor in [lower, upper) determined by ``seed``."""
    _check_range(lower, upper)
    return adjust_saturation(image, stateless_uniform([], seed, lower, upper))
