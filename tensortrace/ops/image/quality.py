"""Image measures and filters composed of public ops as TF composes them: ``psnr``, ``ssim``,
``ssim_multiscale``, ``sobel_edges``; the YIQ / YUV conversions; random crops and random JPEG
quality (TF's draws, so seeded runs give TF's crops)."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...convert import convert_to_tensor
from ...tensor import Tensor
from ..array.joining import concat, stack
from ..array.padding import pad, tile
from ..array.ranges import range as tf_range
from ..array.reshaping import reshape
from ..array.shapes import shape
from ..control_flow.records import Assert
from ..indexing.slicing import slice_ as tf_slice
from ..linalg.products import tensordot
from ..math.arithmetic import floormod, pow as tf_pow, square, squared_difference
from ..math.transcendental import log
from ..math.casting import cast
from ..nn.convolution import depthwise_conv2d
from ..nn.pooling import avg_pool
from ..nn.activations import relu
from ..nn.softmax import softmax
from ..random.stateful import uniform
from ..random.stateless import stateless_uniform
from ..math.compare import greater_equal
from ..reduce import reduce_all, reduce_mean, reduce_prod
from .adjust import _known
from .codecs import adjust_jpeg_quality
from .color import convert_image_dtype

# --- color spaces --------------------------------------------------------------------------------
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _mix(images, matrix):
    images = convert_to_tensor(images)
    kernel = convert_to_tensor(matrix, images.dtype)
    return tensordot(images, kernel, axes=[[images.shape.rank - 1], [0]])


@tf_export("image.rgb_to_yiq")
def rgb_to_yiq(images):
    """RGB (floats in [0, 1]) to YIQ by TF's matrix."""
    return _mix(images, _RGB_TO_YIQ)


@tf_export("image.yiq_to_rgb")
def yiq_to_rgb(images):
    """YIQ back to RGB by TF's matrix."""
    return _mix(images, _YIQ_TO_RGB)


@tf_export("image.rgb_to_yuv")
def rgb_to_yuv(images):
    """RGB (floats in [0, 1]) to YUV by TF's matrix."""
    return _mix(images, _RGB_TO_YUV)


@tf_export("image.yuv_to_rgb")
def yuv_to_rgb(images):
    """YUV back to RGB by TF's matrix."""
    return _mix(images, _YUV_TO_RGB)


# --- random crops and JPEG quality ---------------------------------------------------------------
def _crop(value, size, draw):
    value = convert_to_tensor(value)
    size = size if isinstance(size, Tensor) else convert_to_tensor(size, D.int32)
    dims = shape(value)
    Assert(reduce_all(greater_equal(dims, size)), ["Need value.shape >= size, got ", dims, size],
           summarize=1000)
    limit = dims - size + 1
    offset = floormod(draw(shape(dims), size.dtype), limit)
    return tf_slice(value, offset, size)


@tf_export("image.random_crop")
def random_crop(value, size, seed=None, name=None):
    """A ``size`` slice of ``value`` at a uniformly drawn offset (TF's draw: a random int32
    modulo the room left)."""
    return _crop(value, size, lambda n, dt: uniform(n, maxval=dt.max, dtype=dt, seed=seed))


@tf_export("image.stateless_random_crop")
def stateless_random_crop(value, size, seed, name=None):
    """``random_crop`` with the offset drawn from ``seed`` (the same crop every call)."""
    return _crop(value, size, lambda n, dt: stateless_uniform(n, seed, maxval=dt.max, dtype=dt))


def _check_quality(low, high):
    """TF's Python checks of the quality range (on the values known now)."""
    low, high = _known(low, "min_jpeg_quality"), _known(high, "max_jpeg_quality")
    if low is None or high is None:
        return
    if low < 0 or high < 0 or low > 100 or high > 100:
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if low >= high:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


@tf_export("image.random_jpeg_quality")
def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """``image`` through a JPEG round trip at a quality drawn in [min, max)."""
    _check_quality(min_jpeg_quality, max_jpeg_quality)
    quality = uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=D.int32)
    return adjust_jpeg_quality(image, quality)


@tf_export("image.stateless_random_jpeg_quality")
def stateless_random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed):
    """``random_jpeg_quality`` with the quality drawn from ``seed``."""
    _check_quality(min_jpeg_quality, max_jpeg_quality)
    quality = stateless_uniform([], seed, min_jpeg_quality, max_jpeg_quality, dtype=D.int32)
    return adjust_jpeg_quality(image, quality)


# --- filters and measures ------------------------------------------------------------------------
@tf_export("image.sobel_edges")
def sobel_edges(image):
    """Sobel responses [batch, h, w, d, 2] (dy, dx) of a 4-D image, edges reflected."""
    image = convert_to_tensor(image)
    dims = shape(image)
    kernels = np.transpose(np.asarray([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
                                       [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]]), (1, 2, 0))
    filters = tile(convert_to_tensor(np.expand_dims(kernels, -2), image.dtype),
                   stack([1, 1, dims[-1], 1]))
    padded = pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = depthwise_conv2d(padded, filters, [1, 1, 1, 1], "VALID")
    out = reshape(out, concat([dims, [2]], 0))
    if image.shape.rank is not None:
        out.set_shape(image.shape.concatenate([2]))
    return out


def _check_pair(a, b):
    """TF's _verify_compatible_image_shapes, statically: rank >= 3, matching last three dims."""
    for t in (a, b):
        if t.shape.rank is not None and t.shape.rank < 3:
            raise ValueError(f"Shape must be at least rank 3 but is rank {t.shape.rank}")
    if a.shape.rank is not None and b.shape.rank is not None:
        if not a.shape[-3:].is_compatible_with(b.shape[-3:]):
            raise ValueError(f"Shapes {a.shape} and {b.shape} are incompatible")


def _as_float(a, b, max_val):
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    _check_pair(a, b)
    max_val = convert_image_dtype(cast(max_val, a.dtype), D.float32)
    return convert_image_dtype(a, D.float32), convert_image_dtype(b, D.float32), max_val


@tf_export("image.psnr")
def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio of each image pair, in dB."""
    a, b, max_val = _as_float(a, b, max_val)
    mse = reduce_mean(squared_difference(a, b), [-3, -2, -1])
    return 20 * log(max_val) / log(10.0) - np.float32(10 / np.log(10)) * log(mse)


def _gauss(size, sigma):
    """TF's _fspecial_gauss: a normalized 2-D Gaussian [size, size, 1, 1] by softmax."""
    coords = cast(tf_range(size), sigma.dtype)
    coords = coords - cast(size - 1, sigma.dtype) / 2.0
    g = square(coords) * (-0.5 / square(sigma))
    g = reshape(g, [1, -1]) + reshape(g, [-1, 1])
    return reshape(softmax(reshape(g, [1, -1])), stack([size, size, 1, 1]))


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                      return_index_map=False):
    size = convert_to_tensor(filter_size, D.int32)
    sigma = convert_to_tensor(filter_sigma, img1.dtype)
    dims1, dims2 = shape(img1), shape(img2)
    for dims in (dims1, dims2):
        Assert(reduce_all(greater_equal(dims[-3:-1], size)), [dims, size], summarize=8)
    kernel = tile(_gauss(size, sigma), stack([1, 1, dims1[-1], 1]))

    def reducer(x):
        dims = shape(x)
        x = reshape(x, concat([[-1], dims[-3:]], 0))
        y = depthwise_conv2d(x, kernel, [1, 1, 1, 1], "VALID")
        return reshape(y, concat([dims[:-3], shape(y)[1:]], 0))

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mean0, mean1 = reducer(img1), reducer(img2)
    num0 = mean0 * mean1 * 2.0
    den0 = square(mean0) + square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(img1 * img2) * 2.0
    den1 = reducer(square(img1) + square(img2))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    if return_index_map:
        return luminance * cs, cs
    axes = convert_to_tensor([-3, -2], D.int32)
    return reduce_mean(luminance * cs, axes), reduce_mean(cs, axes)


@tf_export("image.ssim")
def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
    """Structural similarity of each image pair (Gaussian window), averaged over channels."""
    img1, img2, max_val = _as_float(img1, img2, max_val)
    per_channel, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                                       return_index_map)
    return reduce_mean(per_channel, [-1])


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


@tf_export("image.ssim_multiscale")
def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
    """Multi-scale SSIM: contrast-structure at each 2x-averaged scale, luminance at the last,
    raised to ``power_factors`` and multiplied."""
    img1, img2, max_val = _as_float(img1, img2, max_val)
    dims = [shape(img1), shape(img2)]
    heads, tails = [d[:-3] for d in dims], [d[-3:] for d in dims]
    divisor = [1, 2, 2, 1]
    imgs, mcs = [img1, img2], []
    for k in range(len(power_factors)):
        if k > 0:  # average 2x2 blocks, odd sizes first padded symmetrically (TF pads by 0 else)
            flat = [reshape(x, concat([[-1], t], 0)) for x, t in zip(imgs, tails)]
            remainder = floormod(tails[0], convert_to_tensor(divisor[1:], D.int32))
            padding = pad(reshape(remainder, [3, 1]), [[1, 0], [1, 0]])
            padded = [pad(x, padding, mode="SYMMETRIC") for x in flat]
            small = [avg_pool(x, ksize=divisor, strides=divisor, padding="VALID")
                     for x in padded]
            tails = [shape(x)[1:] for x in small]
            imgs = [reshape(x, concat([h, t], 0)) for x, h, t in zip(small, heads, tails)]
        ssim_per_channel, cs = _ssim_per_channel(imgs[0], imgs[1], max_val, filter_size,
                                                 filter_sigma, k1, k2)
        mcs.append(relu(cs))
    mcs.pop()  # the last scale contributes its full SSIM instead
    mcs_and_ssim = stack(mcs + [relu(ssim_per_channel)], axis=-1)
    weights = convert_to_tensor(power_factors, mcs_and_ssim.dtype)
    return reduce_mean(reduce_prod(tf_pow(mcs_and_ssim, weights), [-1]), [-1])
