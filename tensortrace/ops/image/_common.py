"""Shape checks every image function makes, with TF's messages; the resize ops' size checks
and output specs."""

import numpy as np

from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...shapes import TensorShape
from ...tensor import TensorSpec, static_value


def check_3d(image, name="image", require_static=False):
    """``image`` as a tensor of rank >= 3 whose last three dimensions are not 0 (TF's
    _CheckAtLeast3DImage); a static rank below 3 is TF's ValueError."""
    image = convert_to_tensor(image)
    dims = image.shape.dims
    if dims is None:
        if require_static:
            raise ValueError(f"'{name}' ({_shape(image.shape)}) must be fully defined.")
        return image
    if len(dims) < 3:
        raise ValueError(f"'{name}' (shape {_shape(image.shape)}) must be at least "
                         "three-dimensional.")
    if any(d == 0 for d in dims[-3:]):
        raise ValueError(f"inner 3 dims of '{name}.shape' must be > 0: {_shape(image.shape)}")
    return image


def _shape(shape):
    return str(TensorShape(shape))



def out_size(size):
    s = np.asarray(size)
    if s.shape != (2,):
        raise invalid_argument(f"shape_t must be 1-dimensional with 2 elements, got "
                               f"{s.ndim}-dimensional with {s.size} elements"
                               if s.ndim == 1 else "shape_t must be 1-dimensional")
    h, w = int(s[0]), int(s[1])
    if h <= 0 or w <= 0:
        raise invalid_argument("output dimensions must be positive")
    return h, w


def check_images(images, op):
    if np.ndim(images) != 4:
        raise invalid_argument(f"input must be 4-dimensional{np.shape(images)}", op)


def infer_resized(images, size, dtype):
    dims = images.shape.dims
    hw = static_value(size)
    out_hw = [None, None] if hw is None else [int(v) for v in np.asarray(hw)]
    batch, depth = (None, None) if dims is None else (dims[0], dims[3])
    return TensorSpec(TensorShape([batch] + out_hw + [depth]), dtype)
