"""Image resizing: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic (and the first two's
gradient ops) with TF's sampling grids, and ``tf.image.resize``.

The kernels follow TF's CPU kernels step for step in float32: half-pixel centers (``tf.image.
resize`` always asks for them), bilinear as two lerps, nearest by flooring the scaled center,
bicubic with Keys' kernel (a = -0.5) looked up in TF's 1024-entry table, out-of-image taps
dropped and the rest renormalized.
"""

import numpy as np

from ... import dtypes as D
from ..._export import export_value, tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import UnimplementedError
from ...registry import DtypeCheck, define_op
from ...tensor import Tensor, TensorSpec, static_value
from .._base import dtypes_named
from ._common import check_3d as _check_3d
from ._common import (check_images as _check_images, infer_resized as _infer,
                      out_size as _size)
from .geometry import pad_to_bounding_box
from .scale import ResizeArea, ScaleAndTranslate
from ..array.creation import zeros
from ..array.reshaping import expand_dims, squeeze
from ..array.shapes import shape
from ..math.arithmetic import floor, maximum
from ..math.casting import cast

_REAL = dtypes_named("int8 uint8 int16 uint16 int32 int64 bfloat16 float16 float32 float64")
_FLOAT_GRADS = dtypes_named("float32 bfloat16 float16 float64")


class ResizeMethod:
    """The ``method`` names ``tf.image.resize`` takes."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


export_value(ResizeMethod, "image.ResizeMethod")


# --- sampling grids ------------------------------------------------------------------------------
def _scale(in_size, out_size, align_corners):
    if align_corners and out_size > 1:
        return np.float32((in_size - 1) / np.float32(out_size - 1))
    return np.float32(in_size / np.float32(out_size))


def _linear_grid(in_size, out_size, align_corners, half_pixel):
    """Lower and upper input indices and the lerp of every output index (TF's
    compute_interpolation_weights)."""
    scale = _scale(in_size, out_size, align_corners)
    i = np.arange(out_size, dtype=np.float32)
    pos = (i + np.float32(0.5)) * scale - np.float32(0.5) if half_pixel else i * scale
    floor = np.floor(pos)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(pos).astype(np.int64), in_size - 1)
    return lower, upper, (pos - floor).astype(np.float32)


def _nearest_grid(in_size, out_size, align_corners, half_pixel):
    scale = _scale(in_size, out_size, align_corners)
    i = np.arange(out_size, dtype=np.float32)
    pos = (i + np.float32(0.5)) * scale if half_pixel else i * scale
    idx = (np.round(pos) if align_corners else np.floor(pos)).astype(np.int64)
    idx = np.minimum(idx, in_size - 1)
    return np.maximum(idx, 0) if half_pixel else idx


def _cubic_table(a):
    """Keys' kernel at 1025 points of [0, 1] (and [1, 2]), evaluated in double and stored in
    float as TF's table is (its values match TF's to the last bit)."""
    x = np.arange(1025) / 1024.0
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = x + 1
    far = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return near.astype(np.float32), far.astype(np.float32)


_TABLES = {}


def _cubic_grid(in_size, out_size, align_corners, half_pixel):
    """The four input indices and weights of every output index (TF's GetWeightsAndIndices)."""
    scale = _scale(in_size, out_size, align_corners)
    i = np.arange(out_size, dtype=np.float32)
    pos = (i + np.float32(0.5)) * scale - np.float32(0.5) if half_pixel else i * scale
    loc = np.floor(pos)
    offset = np.rint((pos - loc) * np.float32(1024)).astype(np.int64)
    a = -0.5 if half_pixel else -0.75
    near, far = _TABLES.get(a) or _TABLES.setdefault(a, _cubic_table(a))
    weights = np.stack([far[offset], near[offset], near[1024 - offset], far[1024 - offset]])
    loc = loc.astype(np.int64)
    wanted = np.stack([loc - 1, loc, loc + 1, loc + 2])
    index = np.clip(wanted, 0, in_size - 1)
    if half_pixel:  # taps outside the image get no weight; the rest sum to one again
        weights = np.where(index == wanted, weights, np.float32(0))
        total = weights[0] + weights[1] + weights[2] + weights[3]
        ok = np.abs(total) >= np.float32(1000 * np.finfo(np.float32).tiny)
        weights = np.where(ok, weights * (np.float32(1) / np.where(ok, total, 1)), weights)
    return index, weights.astype(np.float32)


def _scatter_taps(g, original_image, row_taps, col_taps):
    """The gradient of a separable resampling: each output's gradient ``g`` spread back onto
    the input pixels its taps read, times the taps' weights. ``row_taps``/``col_taps`` are
    (input index per output row/col, weight per output row/col) pairs."""
    shape = np.shape(original_image)
    out = np.zeros((g.shape[0], shape[1], shape[2], g.shape[3]), np.float32)
    for rows, wy in row_taps:
        for cols, wx in col_taps:
            w = wy[None, :, None, None] * wx[None, None, :, None]
            np.add.at(out, (slice(None), rows[:, None], cols[None, :]), g * w)
    return out.astype(np.asarray(original_image).dtype)


# --- op records ----------------------------------------------------------------------------------
@define_op("ResizeBilinear")
class ResizeBilinear:
    """Bilinear interpolation of 4-D ``images`` to ``size``; float32 out."""

    check = DtypeCheck("ResizeBilinear", _REAL, 1)

    def infer(images, size, *, align_corners=False, half_pixel_centers=False):
        return _infer(images, size, D.float32)

    def kernel(images, size, *, align_corners=False, half_pixel_centers=False):
        _check_images(images, "ResizeBilinear")
        x = np.asarray(images).astype(np.float32)
        h, w = _size(size)
        y0, y1, fy = _linear_grid(x.shape[1], h, align_corners, half_pixel_centers)
        x0, x1, fx = _linear_grid(x.shape[2], w, align_corners, half_pixel_centers)
        fx = fx[None, None, :, None]
        top_l, top_r = x[:, y0][:, :, x0], x[:, y0][:, :, x1]
        bot_l, bot_r = x[:, y1][:, :, x0], x[:, y1][:, :, x1]
        top = top_l + (top_r - top_l) * fx
        bottom = bot_l + (bot_r - bot_l) * fx
        return top + (bottom - top) * fy[None, :, None, None]


@define_op("ResizeBilinearGrad")
class ResizeBilinearGrad:
    """The gradient of ResizeBilinear with respect to its images (shaped like them)."""

    def infer(grads, original_image, *, align_corners=False, half_pixel_centers=False):
        return TensorSpec(original_image.shape, original_image.dtype)

    def kernel(grads, original_image, *, align_corners=False, half_pixel_centers=False):
        g = np.asarray(grads, np.float32)
        shape = np.shape(original_image)
        y0, y1, fy = _linear_grid(shape[1], g.shape[1], align_corners, half_pixel_centers)
        x0, x1, fx = _linear_grid(shape[2], g.shape[2], align_corners, half_pixel_centers)
        return _scatter_taps(g, original_image, ((y0, 1 - fy), (y1, fy)),
                             ((x0, 1 - fx), (x1, fx)))


@define_op("ResizeNearestNeighbor")
class ResizeNearestNeighbor:
    """Nearest-neighbor resizing of 4-D ``images`` to ``size``; the dtype is kept."""

    check = DtypeCheck("ResizeNearestNeighbor", _REAL, 1)

    def infer(images, size, *, align_corners=False, half_pixel_centers=False):
        return _infer(images, size, images.dtype)

    def kernel(images, size, *, align_corners=False, half_pixel_centers=False):
        _check_images(images, "ResizeNearestNeighbor")
        x = np.asarray(images)
        h, w = _size(size)
        rows = _nearest_grid(x.shape[1], h, align_corners, half_pixel_centers)
        cols = _nearest_grid(x.shape[2], w, align_corners, half_pixel_centers)
        return x[:, rows][:, :, cols]


@define_op("ResizeNearestNeighborGrad")
class ResizeNearestNeighborGrad:
    """The gradient of ResizeNearestNeighbor: each output's gradient summed into its source."""

    def infer(grads, size, *, align_corners=False, half_pixel_centers=False):
        return _infer(grads, size, grads.dtype)

    def kernel(grads, size, *, align_corners=False, half_pixel_centers=False):
        g = np.asarray(grads)
        h, w = _size(size)
        rows = _nearest_grid(h, g.shape[1], align_corners, half_pixel_centers)
        cols = _nearest_grid(w, g.shape[2], align_corners, half_pixel_centers)
        out = np.zeros((g.shape[0], h, w, g.shape[3]), g.dtype)
        np.add.at(out, (slice(None), rows[:, None], cols[None, :]), g)
        return out


@define_op("ResizeBicubic")
class ResizeBicubic:
    """Bicubic (Keys) interpolation of 4-D ``images`` to ``size``; float32 out."""

    check = DtypeCheck("ResizeBicubic", _REAL, 1)

    def infer(images, size, *, align_corners=False, half_pixel_centers=False):
        return _infer(images, size, D.float32)

    def kernel(images, size, *, align_corners=False, half_pixel_centers=False):
        _check_images(images, "ResizeBicubic")
        x = np.asarray(images).astype(np.float32)
        h, w = _size(size)
        ry, wy = _cubic_grid(x.shape[1], h, align_corners, half_pixel_centers)
        rx, wx = _cubic_grid(x.shape[2], w, align_corners, half_pixel_centers)
        # along y first, then x, each as TF's sum of four products in order
        cols = x[:, ry[0]] * wy[0][None, :, None, None]
        for k in (1, 2, 3):
            cols = cols + x[:, ry[k]] * wy[k][None, :, None, None]
        out = cols[:, :, rx[0]] * wx[0][None, None, :, None]
        for k in (1, 2, 3):
            out = out + cols[:, :, rx[k]] * wx[k][None, None, :, None]
        return out


@define_op("ResizeBicubicGrad")
class ResizeBicubicGrad:
    """The gradient of ResizeBicubic with respect to its images (shaped like them)."""

    def infer(grads, original_image, *, align_corners=False, half_pixel_centers=False):
        return TensorSpec(original_image.shape, original_image.dtype)

    def kernel(grads, original_image, *, align_corners=False, half_pixel_centers=False):
        g = np.asarray(grads, np.float32)
        shape = np.shape(original_image)
        ry, wy = _cubic_grid(shape[1], g.shape[1], align_corners, half_pixel_centers)
        rx, wx = _cubic_grid(shape[2], g.shape[2], align_corners, half_pixel_centers)
        return _scatter_taps(g, original_image, tuple(zip(ry, wy)), tuple(zip(rx, wx)))


# --- tf.image.resize ---------------------------------------------------------------------------
_OPS = {ResizeMethod.BILINEAR: ResizeBilinear, ResizeMethod.NEAREST_NEIGHBOR: ResizeNearestNeighbor,
        ResizeMethod.BICUBIC: ResizeBicubic}
# methods TF resamples with ScaleAndTranslate, and the kernel each uses (antialias: all of them)
_KERNEL_METHODS = {ResizeMethod.LANCZOS3: "lanczos3", ResizeMethod.LANCZOS5: "lanczos5",
                   ResizeMethod.GAUSSIAN: "gaussian", ResizeMethod.MITCHELLCUBIC: "mitchellcubic"}
_ANTIALIASED = {ResizeMethod.BILINEAR: "triangle", ResizeMethod.BICUBIC: "keyscubic"}


def _size_tensor(size):
    if not isinstance(size, Tensor):
        size = convert_to_tensor(size, D.int32)
    if size.shape.rank != 1 or size.shape.dims[0] not in (None, 2):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if not size.dtype.is_integer:
        raise TypeError(f"Value passed to parameter 'size' has DataType {size.dtype.name} not "
                        "in list of allowed values: int32")
    return size


@tf_export("image.resize")
def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False,
           antialias=False, name=None):
    """``images`` ([batch,] height, width, channels) resized to ``size`` = [height, width].

    Float32 results, except nearest-neighbor, which keeps the dtype (as TF)."""
    images = convert_to_tensor(images)
    rank = images.shape.rank
    if rank is not None and rank not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    size = _size_tensor(size)
    if method not in _OPS and method not in _KERNEL_METHODS and method != ResizeMethod.AREA:
        raise ValueError(f"Resize method is not implemented: {method}")
    if preserve_aspect_ratio:
        size = _aspect_size(images, size)
    batched = images if rank == 4 else expand_dims(images, 0)
    size = cast(size, D.int32)
    kernel = _KERNEL_METHODS.get(method) or (antialias and _ANTIALIASED.get(method))
    if kernel:
        scale = cast(size, D.float32) / cast(shape(batched)[1:3], D.float32)
        out = bind(ScaleAndTranslate, batched, size, scale, zeros([2], D.float32),
                   kernel_type=kernel, antialias=bool(antialias))
    elif method == ResizeMethod.AREA:
        out = bind(ResizeArea, batched, size, align_corners=False)
    else:
        out = bind(_OPS[method], batched, size, align_corners=False, half_pixel_centers=True)
    return out if rank == 4 else squeeze(out, [0])


def _aspect_size(images, size):
    """TF's preserve_aspect_ratio: the largest size within ``size`` keeping height / width."""
    dims = images.shape.dims
    hw = static_value(size)
    if dims is None or dims[-3] is None or dims[-2] is None or hw is None:
        raise UnimplementedError(None, None, "tf.image.resize: preserve_aspect_ratio=True needs "
                                 "static image and target sizes in tensortrace")
    h, w = np.float32(dims[-3]), np.float32(dims[-2])
    scale = min(np.float32(hw[0]) / h, np.float32(hw[1]) / w)  # float32 and half-even, as TF
    return convert_to_tensor([int(np.round(scale * h)), int(np.round(scale * w))], D.int32)


@tf_export("image.resize_with_pad")
def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                    antialias=False):
    """``image`` resized to fit ``target_height`` x ``target_width`` keeping its aspect ratio
    (float32 ratios floored, as TF), then zero-padded around its center to that size."""
    image = convert_to_tensor(image)
    rank = image.shape.rank
    if rank is not None and rank not in (3, 4):
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    batched = image if rank == 4 else expand_dims(image, 0)
    _check_3d(batched)
    for value, what in ((target_width, "target_width"), (target_height, "target_height")):
        known = value if isinstance(value, (int, np.integer)) else static_value(value)
        if known is not None and not int(known) > 0:
            raise ValueError(f"{what} must be > 0.")
    dims = shape(batched)
    f_height, f_width = cast(dims[1], D.float32), cast(dims[2], D.float32)
    f_target_height = cast(target_height, D.float32)
    f_target_width = cast(target_width, D.float32)
    ratio = maximum(f_width / f_target_width, f_height / f_target_height)
    height_float, width_float = f_height / ratio, f_width / ratio
    new_size = [cast(floor(height_float), D.int32), cast(floor(width_float), D.int32)]
    pad_height = maximum(0, cast(floor((f_target_height - height_float) / 2), D.int32))
    pad_width = maximum(0, cast(floor((f_target_width - width_float) / 2), D.int32))
    resized = resize(batched, new_size, method, antialias=antialias)
    padded = pad_to_bounding_box(resized, pad_height, pad_width, target_height, target_width)
    return padded if rank == 4 else squeeze(padded, [0])
