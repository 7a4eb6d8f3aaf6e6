"""Transposed convolutions (TF's Conv*DBackpropInput): the input zero-stuffed by the strides,
padded, then a stride-1 VALID convolution with the flipped filters."""

import numpy as np

from ..._export import tf_export
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...tensor import static_value
from .._args import int_arg
from ..array.padding import pad
from ..array.reshaping import expand_dims, reshape, transpose
from ..array.sequences import reverse
from ._geometry import conv_data_format, expand
from .convolution import convolution


def _stuff(x, axis, stride, length):
    """Insert ``stride - 1`` zeros between the entries of ``x`` along ``axis`` (static sizes)."""
    if stride == 1:
        return x
    dims = x.shape.as_list()
    x = expand_dims(x, axis + 1)
    paddings = [[0, 0]] * (len(dims) + 1)
    paddings[axis + 1] = [0, stride - 1]
    x = pad(x, paddings)
    dims[axis] *= stride
    x = reshape(x, [-1 if d is None else d for d in dims])
    return x[(slice(None),) * axis + (slice(0, length),)]


def _conv_transpose(input, filters, output_shape, strides, padding, data_format, dilations, n,
                    op_name):
    """The gradient of an ``n``-d convolution with respect to its input (TF's
    Conv*DBackpropInput): ``output_shape`` is the forward input's shape."""
    rank = n + 2
    _, last = conv_data_format(data_format, 5 if n == 3 else 4)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    out = static_value(convert_to_tensor(output_shape))
    if out is None:
        raise NotImplementedError(f"{op_name}: output_shape must be known when the function is "
                                  f"traced")
    out = [int_arg(v, "output_shape") for v in np.asarray(out).reshape(-1)]
    if len(out) != rank:
        raise ValueError(f"output_shape must have shape ({rank},), got ({len(out)},)")
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"{op_name}: padding must be 'SAME' or 'VALID'; got {padding!r}")
    padding = padding.upper()
    if not last:
        x = transpose(x, [0] + list(range(2, rank)) + [1])
        out = [out[0]] + out[2:] + [out[1]]
    s = expand(strides, n, rank, True, "strides")[1:-1]
    d = expand(dilations, n, rank, True, "dilations")[1:-1]
    if w.shape.rank is not None and w.shape.rank != rank:
        raise ValueError(f"filters must be {rank}-dimensional; got shape {w.shape}")
    if x.shape.rank is not None and x.shape.rank != rank:
        raise ValueError(f"input must be {rank}-dimensional; got shape {x.shape}")
    k = w.shape.as_list()[:n]
    sizes = x.shape.as_list()[1:-1]
    if None in k or None in sizes:
        raise NotImplementedError(f"{op_name} needs static spatial and filter sizes")
    cin, cout = w.shape.as_list()[-1], w.shape.as_list()[-2]
    if x.shape[-1] is not None and cin is not None and x.shape[-1] != cin:
        raise invalid_argument(f"input depth {x.shape[-1]} does not match the filter's "
                               f"in_channels {cin}", op_name)
    if cout is not None and out[-1] != cout:
        raise invalid_argument(f"output_shape's depth {out[-1]} does not match the filter's "
                               f"out_channels {cout}", op_name)
    pads = []
    for i, (size, o, kk, ss, dd) in enumerate(zip(sizes, out[1:-1], k, s, d)):
        keff = (kk - 1) * dd + 1
        if padding == "SAME":
            expected = -(-o // ss)
            before = max((expected - 1) * ss + keff - o, 0) // 2
        else:
            expected = max((o - keff) // ss + 1, 0) if o >= keff else 0
            before = 0
        if size != expected:
            raise invalid_argument(
                f"Conv{n}DCustomBackpropInput: Size of out_backprop doesn't match computed: "
                f"actual = {size}, computed = {expected} spatial_dim: {i + 1} input: {o} "
                f"filter: {kk} output: {size} stride: {ss} dilation: {dd}", op_name)
        length = (size - 1) * ss + 1 if size else 0
        x = _stuff(x, i + 1, ss, length)
        lo = keff - 1 - before
        pads.append((lo, o + keff - 1 - lo - length))
    crop = [slice(None)] + [slice(max(-lo, 0), None if hi >= 0 else hi) for lo, hi in pads]
    x = pad(x, [[0, 0]] + [[max(lo, 0), max(hi, 0)] for lo, hi in pads] + [[0, 0]])
    x = x[tuple(crop)]
    wf = transpose(reverse(w, list(range(n))), list(range(n)) + [rank - 1, rank - 2])
    y = convolution(x, wf, strides=1, padding="VALID", dilations=list(d))
    return y if last else transpose(y, [0, rank - 1] + list(range(1, rank - 1)))


@tf_export("nn.conv2d_transpose")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",
                     dilations=None, name=None):
    """The transpose of conv2d: ``filters`` is [H, W, out_channels, in_channels] and
    ``output_shape`` the full output shape."""
    return _conv_transpose(input, filters, output_shape, strides, padding, data_format, dilations,
                           2, "Conv2DBackpropInput")


@tf_export("nn.conv1d_transpose")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",
                     dilations=None, name=None):
    """The transpose of conv1d: ``filters`` is [W, out_channels, in_channels]."""
    return _conv_transpose(input, filters, output_shape, strides, padding, data_format, dilations,
                           1, "Conv2DBackpropInput")


@tf_export("nn.conv3d_transpose")
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC",
                     dilations=None, name=None):
    """The transpose of conv3d: ``filters`` is [D, H, W, out_channels, in_channels]."""
    return _conv_transpose(input, filters, output_shape, strides, padding, data_format, dilations,
                           3, "Conv3DBackpropInputV2")


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
