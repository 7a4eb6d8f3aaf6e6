"""ExtractImagePatches (``tf.image.extract_patches``): each output pixel holds the flattened
``sizes`` window of the input at ``strides``, sampled every ``rates`` pixels, zero outside."""

import numpy as np

from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import define_op
from ...shapes import TensorShape
from ...tensor import TensorSpec
from ..nn._geometry import out_sizes, spatial_pads


def _check_list(values, name):
    values = list(values)
    if len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise invalid_argument(f"{name} is only supported across rows and cols, must have "
                               "length 4 with 1 for batch and depth.")
    return values


def _grid(sizes, ksizes, strides, rates, padding):
    """Output rows and cols and the (before, after) padding of each, as TF's windows."""
    args = ([ksizes[1], ksizes[2]], [strides[1], strides[2]], [rates[1], rates[2]])
    pads = spatial_pads(padding, None, sizes, *args, [0, 1])
    return out_sizes(sizes, *args, pads, padding), pads


@define_op("ExtractImagePatches")
class ExtractImagePatches:
    """Windows of ``images`` [batch, rows, cols, depth] as [batch, out_rows, out_cols,
    ksize_rows * ksize_cols * depth]."""

    def infer(images, *, ksizes, strides, rates, padding):
        dims = images.shape.dims
        if dims is None:
            return TensorSpec(TensorShape(None), images.dtype)
        if len(dims) != 4:
            raise ValueError(f"Shape must be rank 4 but is rank {len(dims)}")
        b, r, c, d = dims
        (out_r, out_c), _ = _grid([r, c], ksizes, strides, rates, padding)
        k = ksizes[1] * ksizes[2]
        return TensorSpec(TensorShape([b, out_r, out_c, None if d is None else k * d]),
                          images.dtype)

    def kernel(images, *, ksizes, strides, rates, padding):
        x = np.asarray(images)
        if x.ndim != 4:
            raise invalid_argument(f"input must be 4-dimensional{list(x.shape)}")
        b, rows, cols, depth = x.shape
        kr, kc = ksizes[1], ksizes[2]
        (out_r, out_c), ((pad_r, _), (pad_c, _)) = _grid([rows, cols], ksizes, strides, rates,
                                                         padding)
        padded = np.zeros((b, rows + kr * rates[1] + strides[1] * out_r,
                           cols + kc * rates[2] + strides[2] * out_c, depth), x.dtype)
        padded[:, pad_r:pad_r + rows, pad_c:pad_c + cols] = x
        r0 = np.arange(out_r)[:, None] * strides[1] + np.arange(kr)[None, :] * rates[1]
        c0 = np.arange(out_c)[:, None] * strides[2] + np.arange(kc)[None, :] * rates[2]
        win = padded[:, r0[:, None, :, None], c0[None, :, None, :]]  # b, or, oc, kr, kc, d
        return win.reshape(b, out_r, out_c, kr * kc * depth)


@tf_export("image.extract_patches")
def extract_patches(images, sizes, strides, rates, padding, name=None):
    """Patches of ``images`` ([batch, rows, cols, depth]) flattened into the depth axis."""
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    return bind(ExtractImagePatches, convert_to_tensor(images),
                ksizes=tuple(_check_list(sizes, "ksizes")),
                strides=tuple(_check_list(strides, "strides")),
                rates=tuple(_check_list(rates, "rates")), padding=padding)
