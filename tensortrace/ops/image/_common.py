"""Shape checks every image function makes, with TF's messages."""

from ...convert import convert_to_tensor
from ...shapes import TensorShape


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

