"""Transposed convolutions, as TF writes them: the gradient op of the convolution with respect to
its input (Conv2DBackpropInput, Conv3DBackpropInputV2), ``output_shape`` a tensor, so it may be
known only at run time (a batch of None)."""

import numpy as np

from ...context import bind
from ...convert import convert_to_tensor
from ..._export import tf_export
from ...tensor import static_value
from ..array.joining import concat
from ..array.reshaping import expand_dims, squeeze
from ..math.casting import cast
from ._geometry import conv_data_format, expand, padding_arg
from .conv_grad import CONV2D_BACKPROP_INPUT, CONV3D_BACKPROP_INPUT


def _output_shape(output_shape, rank):
    shape = convert_to_tensor(output_shape)
    if shape.dtype.name not in ("int32", "int64"):
        shape = cast(shape, "int32")
    if shape.shape.rank is not None and shape.shape.rank != 1:
        raise ValueError(f"output_shape must be a 1-D tensor, got shape {shape.shape}")
    n = shape.shape[0] if shape.shape.rank == 1 else None
    if n is not None and n != rank:
        raise ValueError(f"output_shape must have shape ({rank},), got ({n},)")
    return shape


def _conv_transpose(input, filters, output_shape, strides, padding, data_format, dilations, n):
    """The gradient of an ``n``-d (2 or 3) convolution with respect to its input: ``output_shape``
    is the forward input's shape."""
    rank = n + 2
    fmt, last = conv_data_format(data_format, rank)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    for what, t in (("filters", w), ("input", x)):
        if t.shape.rank is not None and t.shape.rank != rank:
            raise ValueError(f"{what} must be {rank}-dimensional; got shape {t.shape}")
    padding, explicit = padding_arg(padding, rank, allow_explicit=n == 2)
    attrs = dict(strides=expand(strides, n, rank, last, "strides"), padding=padding,
                 data_format=fmt, dilations=expand(dilations, n, rank, last, "dilations"))
    if n == 2:
        attrs["explicit_paddings"] = explicit
    op = CONV2D_BACKPROP_INPUT if n == 2 else CONV3D_BACKPROP_INPUT
    return bind(op, _output_shape(output_shape, rank), w, x, **attrs)


@tf_export("nn.conv2d_transpose")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",
                     dilations=None, name=None):
    """The transpose of conv2d: ``filters`` is [H, W, out_channels, in_channels] and
    ``output_shape`` the full output shape."""
    return _conv_transpose(input, filters, output_shape, strides, padding, data_format, dilations,
                           2)


@tf_export("nn.conv1d_transpose")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",
                     dilations=None, name=None):
    """The transpose of conv1d: ``filters`` is [W, out_channels, in_channels]; as TF, a
    Conv2DBackpropInput over a unit height (ExpandDims, Conv2DBackpropInput, Squeeze)."""
    fmt, last = conv_data_format(data_format, 4)
    if isinstance(padding, (list, tuple)):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    axis = 1 if last else 2
    s = expand(strides, 1, 3, last, "strides")
    d = expand(dilations, 1, 3, last, "dilations")
    shape = _output_shape(output_shape, 3)
    shape = concat([shape[:axis], [1], shape[axis:]], 0) if shape.dtype.name == "int32" else \
        concat([shape[:axis], np.array([1], np.int64), shape[axis:]], 0)
    out = _conv_transpose(expand_dims(convert_to_tensor(input), axis),
                          expand_dims(convert_to_tensor(filters), 0), shape,
                          [1, s[axis]], padding, fmt, [1, d[axis]], 2)
    return squeeze(out, [axis])


@tf_export("nn.conv3d_transpose")
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC",
                     dilations=None, name=None):
    """The transpose of conv3d: ``filters`` is [D, H, W, out_channels, in_channels]."""
    return _conv_transpose(input, filters, output_shape, strides, padding, data_format, dilations,
                           3)


@tf_export("nn.conv_transpose")
def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,
                   dilations=None, name=None):
    """The transpose of an N-d convolution (1 to 3 spatial dims, from ``output_shape``)."""
    out = static_value(convert_to_tensor(output_shape))
    n = (len(np.asarray(out).reshape(-1)) if out is not None else
         convert_to_tensor(filters).shape.rank) - 2
    fn = {1: conv1d_transpose, 2: conv2d_transpose, 3: conv3d_transpose}.get(n)
    if fn is None:
        raise ValueError(f"output_shape must be of length 3, 4 or 5 but was {n + 2}.")
    default = {1: "NWC", 2: "NHWC", 3: "NDHWC"}[n]
    return fn(input, filters, output_shape, strides, padding, data_format or default, dilations)
