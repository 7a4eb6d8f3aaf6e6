"""Flips, rotations, crops and pads of images (TF's Python composites over reverse, transpose,
slice and pad), their random and stateless random forms, total_variation and image_gradients."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...convert import convert_to_tensor
from ...tensor import static_value
from ..array.creation import zeros
from ..array.joining import concat, stack
from ..array.padding import pad
from ..array.reshaping import reshape, transpose as tf_transpose
from ..array.sequences import reverse
from ..array.shapes import shape
from ..control_flow.conditionals import cond
from ..indexing.slicing import slice_ as tf_slice
from ..math.arithmetic import abs as tf_abs
from ..math.arithmetic import add, maximum, minimum, multiply, subtract
from ..math.arithmetic import round as tf_round
from ..math.casting import cast
from ..math.compare import less
from ..random.stateful import uniform
from ..random.stateless import stateless_uniform
from ..reduce import reduce_sum
from ._common import check_3d


def _axis(image, axis3):
    """The axis of a 3-D image's ``axis3`` in ``image`` (one more for a batch)."""
    return axis3 + (1 if image.shape.rank == 4 else 0)


def _flip(image, axis3):
    image = check_3d(image)
    return reverse(image, [_axis(image, axis3)])


@tf_export("image.flip_left_right")
def flip_left_right(image):
    """``image`` mirrored horizontally (the width axis reversed)."""
    return _flip(image, 1)


@tf_export("image.flip_up_down")
def flip_up_down(image):
    """``image`` mirrored vertically (the height axis reversed)."""
    return _flip(image, 0)


@tf_export("image.transpose")
def transpose(image, name=None):
    """``image`` with height and width swapped."""
    image = check_3d(image)
    return tf_transpose(image, [0, 2, 1, 3] if image.shape.rank == 4 else [1, 0, 2])


@tf_export("image.rot90")
def rot90(image, k=1, name=None):
    """``image`` rotated counter-clockwise by ``k`` quarter turns."""
    image = check_3d(image)
    k = int(static_value(convert_to_tensor(k)) if not isinstance(k, int) else k) % 4
    batch = image.shape.rank == 4
    h, w = (1, 2) if batch else (0, 1)
    perm = [0, 2, 1, 3] if batch else [1, 0, 2]
    if k == 0:
        return image
    if k == 1:
        return tf_transpose(reverse(image, [w]), perm)
    if k == 2:
        return reverse(image, [h, w])
    return reverse(tf_transpose(image, perm), [w])


def _random_flip(image, axis3, draw):
    """Flip each image (or the one image) where its uniform draw is below 0.5."""
    image = check_3d(image)
    if image.shape.rank == 4:
        batch = shape(image)[0]
        flips = tf_round(reshape(draw(stack([batch])), stack([batch, 1, 1, 1])))
        flips = cast(flips, image.dtype)
        flipped = reverse(image, [axis3 + 1])
        return add(multiply(flips, flipped), multiply(1 - flips, image))
    mirror = less(draw([]), 0.5)
    return cond(mirror, lambda: reverse(image, [axis3]), lambda: image)


@tf_export("image.random_flip_left_right")
def random_flip_left_right(image, seed=None):
    """``image`` mirrored horizontally with probability 1/2 (each image of a batch)."""
    return _random_flip(image, 1, lambda s: uniform(s, 0, 1.0, seed=seed))


@tf_export("image.random_flip_up_down")
def random_flip_up_down(image, seed=None):
    """``image`` mirrored vertically with probability 1/2 (each image of a batch)."""
    return _random_flip(image, 0, lambda s: uniform(s, 0, 1.0, seed=seed))


@tf_export("image.stateless_random_flip_left_right")
def stateless_random_flip_left_right(image, seed):
    """``image`` mirrored horizontally or not, as ``seed`` determines."""
    return _random_flip(image, 1, lambda s: stateless_uniform(s, seed, 0, 1.0))


@tf_export("image.stateless_random_flip_up_down")
def stateless_random_flip_up_down(image, seed):
    """``image`` mirrored vertically or not, as ``seed`` determines."""
    return _random_flip(image, 0, lambda s: stateless_uniform(s, seed, 0, 1.0))


# --- crops and pads ------------------------------------------------------------------------------
def _hw(image):
    dims = image.shape.dims
    return dims[-3], dims[-2]


def _static(value):
    v = static_value(convert_to_tensor(value)) if not isinstance(value, (int, np.integer)) \
        else value
    return None if v is None else int(v)


def _check(ok, message):
    if ok is False:
        raise ValueError(message)


@tf_export("image.crop_to_bounding_box")
def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height`` x ``target_width`` box of ``image`` at the given offsets."""
    image = check_3d(image)
    height, width = _hw(image)
    oh, ow, th, tw = (_static(v) for v in (offset_height, offset_width, target_height,
                                           target_width))
    _check(ow is None or ow >= 0, "offset_width must be >= 0.")
    _check(oh is None or oh >= 0, "offset_height must be >= 0.")
    _check(tw is None or tw > 0, "target_width must be > 0.")
    _check(th is None or th > 0, "target_height must be > 0.")
    _check(None in (width, tw, ow) or width >= tw + ow, "width must be >= target + offset.")
    _check(None in (height, th, oh) or height >= th + oh, "height must be >= target + offset.")
    batch = image.shape.rank == 4
    begin = ([0] if batch else []) + [offset_height, offset_width, 0]
    size = ([-1] if batch else []) + [target_height, target_width, -1]
    return tf_slice(image, stack([convert_to_tensor(v, D.int32) for v in begin]),
                    stack([convert_to_tensor(v, D.int32) for v in size]))


@tf_export("image.pad_to_bounding_box")
def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """``image`` zero-padded to ``target_height`` x ``target_width``, placed at the offsets."""
    image = check_3d(image)
    height, width = _hw(image)
    oh, ow, th, tw = (_static(v) for v in (offset_height, offset_width, target_height,
                                           target_width))
    _check(oh is None or oh >= 0, "offset_height must be >= 0")
    _check(ow is None or ow >= 0, "offset_width must be >= 0")
    _check(None in (width, tw, ow) or tw - ow - width >= 0, "width must be <= target - offset")
    _check(None in (height, th, oh) or th - oh - height >= 0,
           "height must be <= target - offset")
    dims = shape(image)
    h, w = dims[-3], dims[-2]
    rows = stack([convert_to_tensor(offset_height, D.int32),
                  convert_to_tensor(target_height, D.int32) - offset_height - h])
    cols = stack([convert_to_tensor(offset_width, D.int32),
                  convert_to_tensor(target_width, D.int32) - offset_width - w])
    none = zeros([2], D.int32)
    paddings = stack(([none] if image.shape.rank == 4 else []) + [rows, cols, none])
    return pad(image, paddings)


@tf_export("image.resize_with_crop_or_pad", "image.resize_image_with_crop_or_pad")
def resize_with_crop_or_pad(image, target_height, target_width):
    """``image`` centrally cropped and/or zero-padded to ``target_height`` x ``target_width``."""
    image = check_3d(image)
    height, width = _hw(image)
    if height is None or width is None:
        dims = shape(image)
        height, width = dims[-3], dims[-2]
    th, tw = _static(target_height), _static(target_width)
    _check(tw is None or tw > 0, "target_width must be > 0.")
    _check(th is None or th > 0, "target_height must be > 0.")
    width_diff, height_diff = target_width - width, target_height - height
    crop_w, pad_w = _max(-width_diff // 2, 0), _max(width_diff // 2, 0)
    crop_h, pad_h = _max(-height_diff // 2, 0), _max(height_diff // 2, 0)
    cropped = crop_to_bounding_box(image, crop_h, crop_w, _min(target_height, height),
                                   _min(target_width, width))
    return pad_to_bounding_box(cropped, pad_h, pad_w, target_height, target_width)


def _max(a, b):
    """max of Python ints, or the op when either is a tensor (a dynamic image size)."""
    return max(a, b) if isinstance(a, int) and isinstance(b, int) else maximum(a, b)


def _min(a, b):
    return min(a, b) if isinstance(a, int) and isinstance(b, int) else minimum(a, b)


@tf_export("image.central_crop")
def central_crop(image, central_fraction):
    """The central ``central_fraction`` (in (0, 1]) of each side of ``image``."""
    if central_fraction <= 0.0 or central_fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    image = check_3d(image)
    if central_fraction == 1.0:
        return image
    height, width = _hw(image)
    if height is None or width is None:
        raise ValueError("central_crop needs the image's height and width")
    start_h = int((height - height * central_fraction) / 2)
    start_w = int((width - width * central_fraction) / 2)
    return crop_to_bounding_box(image, start_h, start_w, height - 2 * start_h,
                                width - 2 * start_w)


# --- differences ---------------------------------------------------------------------------------
@tf_export("image.total_variation")
def total_variation(images, name=None):
    """The sum of absolute differences between neighboring pixels (per image of a batch)."""
    images = convert_to_tensor(images)
    ndims = images.shape.rank
    if ndims == 3:
        dif1 = images[1:, :, :] - images[:-1, :, :]
        dif2 = images[:, 1:, :] - images[:, :-1, :]
        axis = None
    elif ndims == 4:
        dif1 = images[:, 1:, :, :] - images[:, :-1, :, :]
        dif2 = images[:, :, 1:, :] - images[:, :, :-1, :]
        axis = [1, 2, 3]
    else:
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    return add(reduce_sum(tf_abs(dif1), axis=axis), reduce_sum(tf_abs(dif2), axis=axis))


@tf_export("image.image_gradients")
def image_gradients(image):
    """(dy, dx): forward differences of a 4-D ``image``, zero in the last row / column."""
    image = convert_to_tensor(image)
    if image.shape.rank != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{image.shape}.")
    dims = shape(image)
    dy = subtract(image[:, 1:, :, :], image[:, :-1, :, :])
    dx = subtract(image[:, :, 1:, :], image[:, :, :-1, :])
    dy = concat([dy, zeros(stack([dims[0], 1, dims[2], dims[3]]), image.dtype)], 1)
    dx = concat([dx, zeros(stack([dims[0], dims[1], 1, dims[3]]), image.dtype)], 2)
    return dy, dx
