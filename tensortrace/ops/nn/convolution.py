"""Convolutions: the Conv2D, DepthwiseConv2dNative and Conv3D ops, and conv1d, convolution,
separable and atrous convolutions composed from them."""

import numpy as np

from ... import errors
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_fn_error, shape_text
from ...registry import DtypeCheck, OpDef, register
from ...tensor import TensorSpec
from .._base import check_dtypes, dtypes_named
from ..array.reshaping import expand_dims, squeeze
from .._args import int_arg, static_attr
from ...numerics import via_float32
from ._geometry import (check_cpu_layout, conv_data_format, expand, out_sizes, pad_spatial,
                        padding_arg, spatial_axes, spatial_pads)
from ._kernels import depthwise_conv, gemm_conv, winograd_conv, winograd_ok
from ._util import HALF_T

CONV_T = dtypes_named("float16 bfloat16 float32 float64 int32")


def _conv_kernel(x, w, strides, padding, explicit, dilations, channels_last, depthwise=False):
    """The shared N-d convolution kernel (channels-first inputs are moved to channels-last)."""
    rank = x.ndim
    axes = spatial_axes(rank, channels_last)
    if not channels_last:
        x = np.moveaxis(x, 1, -1)
    c, cin = x.shape[-1], w.shape[-2]
    if min(strides) < 1 or min(dilations) < 1:
        raise invalid_argument(f"Stride and dilation must be > 0, got strides "
                               f"{list(strides)} and dilations {list(dilations)}")
    if strides[0] != 1 or strides[-1 if channels_last else 1] != 1:
        raise errors.UnimplementedError(None, None, "Current implementation does not yet support "
                                        "strides in the batch and depth dimensions.")
    if explicit and any(explicit[2 * a] or explicit[2 * a + 1]
                        for a in range(rank) if a not in axes):
        raise invalid_argument("Nonzero explicit padding in the batch or depth dimensions is not "
                               "supported")
    if (depthwise and c != cin) or (cin == 0 or c % cin):
        raise invalid_argument(f"input depth must be evenly divisible by filter depth: {c} vs "
                               f"{cin}")
    s = [strides[a] for a in axes]
    d = [dilations[a] for a in axes]
    k = list(w.shape[:-2])
    pads = spatial_pads(padding, explicit, list(x.shape[1:-1]), k, s, d, axes)
    out = out_sizes(list(x.shape[1:-1]), k, s, d, pads, padding)
    xp = pad_spatial(x, pads)
    groups = 1 if depthwise else c // cin
    run = depthwise_conv if depthwise else gemm_conv
    if not depthwise and groups > 1:
        og = w.shape[-1] // groups
        y = np.concatenate([via_float32(
            lambda a, b: gemm_conv(a, b, out, s, d), xp[..., g * cin:(g + 1) * cin],
            w[..., g * og:(g + 1) * og]) for g in range(groups)], axis=-1)
    elif not depthwise and xp.ndim == 4 and winograd_ok(xp, w, out, s, d):
        y = winograd_conv(xp, w, out)
    else:
        y = via_float32(lambda a, b: run(a, b, out, s, d), xp, w)
    return y if channels_last else np.moveaxis(y, -1, 1)


def _conv_infer(op_name, x, w, strides, padding, explicit, dilations, channels_last, attrs,
                depthwise=False):
    dtype = check_dtypes(op_name, (x, w), CONV_T if not depthwise else HALF_T,
                         ("input", "filter"))
    rank = len(strides)
    wd = w.shape.dims
    if wd is not None and len(wd) != rank:
        raise shape_fn_error(op_name, f"Shape must be rank {rank} but is rank {len(wd)}", dtype,
                         attrs, (x, w), ("input", "filter"))
    xd = x.shape.dims
    if xd is not None and len(xd) != rank:
        raise shape_fn_error(op_name, f"Shape must be rank {rank} but is rank {len(xd)}", dtype,
                         attrs, (x, w), ("input", "filter"))
    xd = xd if xd is not None else [None] * rank
    wd = wd if wd is not None else [None] * rank
    axes = spatial_axes(rank, channels_last)
    c = xd[-1 if channels_last else 1]
    cin, cout = wd[-2], wd[-1]
    if c is not None and cin is not None and (
            (depthwise and c != cin) or (not depthwise and (cin == 0 or c % cin))):
        raise shape_fn_error(op_name, f"Depth of input ({c}) is not a multiple of input depth of "
                         f"filter ({cin})", dtype, attrs, (x, w), ("input", "filter"))
    if depthwise:
        cout = None if (cin if cin is not None else c) is None or cout is None else (
            (cin if cin is not None else c) * cout)
    s = [strides[a] for a in axes]
    d = [dilations[a] for a in axes]
    sizes = [xd[a] for a in axes]
    k = wd[:-2]
    pads = spatial_pads(padding, explicit, sizes, k, s, d, axes)

    def graph_error(what):
        return shape_fn_error(op_name, what, dtype, attrs, (x, w), ("input", "filter"))

    out = out_sizes(sizes, k, s, d, pads, padding, graph_error)
    dims = [xd[0]] + out + [cout] if channels_last else [xd[0], cout] + out
    return TensorSpec(dims, dtype)


def _conv_attrs_text(strides, padding, explicit, data_format, dilations):
    return {"data_format": data_format, "dilations": dilations,
            "explicit_paddings": explicit, "padding": padding, "strides": strides}


def _conv_op(op_name, allowed, depthwise=False, fmt_last=("NHWC",)):
    """Register a convolution op taking TF's attrs (strides, padding, explicit_paddings,
    data_format, dilations)."""

    def infer(input, filter, strides, padding, explicit_paddings=(), data_format="NHWC",
              dilations=None, **extra):
        dilations = dilations or (1,) * len(strides)
        return _conv_infer(op_name, input, filter, strides, padding, explicit_paddings,
                           dilations, data_format in fmt_last,
                           _conv_attrs_text(strides, padding, explicit_paddings, data_format,
                                            dilations), depthwise)

    def kernel(input, filter, strides, padding, explicit_paddings=(), data_format="NHWC",
               dilations=None, **extra):
        check_cpu_layout(op_name, data_format)
        rank = len(strides)
        for what, a in (("input", input), ("filter", filter)):
            if a.ndim != rank:
                raise invalid_argument(f"{what} must be {rank}-dimensional: "
                                       f"{shape_text(a.shape)}")
        return _conv_kernel(input, filter, strides, padding, explicit_paddings,
                            dilations or (1,) * rank, data_format in fmt_last, depthwise)

    return register(OpDef(op_name, infer, kernel, check=DtypeCheck(op_name, allowed, same=2)))


CONV2D = _conv_op("Conv2D", CONV_T)
DEPTHWISE = _conv_op("DepthwiseConv2dNative", HALF_T, depthwise=True)
CONV3D = _conv_op("Conv3D", HALF_T, fmt_last=("NDHWC",))


@tf_export("nn.conv2d")
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """2-D convolution of NHWC ``input`` with HWIO ``filters`` (grouped when the input has a
    multiple of the filters' input channels).

    Args:
        strides, dilations: an int or a list of 1, 2 or 4 ints.
        padding: "SAME", "VALID" or a list of 4 [before, after] pairs.
    """
    fmt, last = conv_data_format(data_format, 4)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    padding, explicit = padding_arg(padding, 4)
    return bind(CONV2D, x, w, strides=expand(strides, 2, 4, last, "strides"), padding=padding,
                explicit_paddings=explicit, data_format=fmt,
                dilations=expand(dilations, 2, 4, last, "dilations"))


@tf_export("nn.conv1d")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """1-D convolution of NWC (or NCW) ``input`` with WIO ``filters``: as TF, a Conv2D over a
    unit height (ExpandDims, Conv2D, Squeeze)."""
    fmt, last = conv_data_format(data_format, 4)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    if isinstance(padding, (list, tuple)):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    axis = 1 if last else 2
    s = expand(stride, 1, 3, last, "stride")
    d = expand(dilations, 1, 3, last, "dilations")
    out = conv2d(expand_dims(x, axis), expand_dims(w, 0), [1, s[axis]], padding, fmt,
                 [1, d[axis]])
    return squeeze(out, [axis])


@tf_export("nn.convolution")
def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,
                name=None):
    """N-d convolution (1, 2 or 3 spatial dims, from the rank of ``filters``).

    Raises:
        ValueError: for strides > 1 together with dilations > 1, as TF.
    """
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    n = (w.shape.rank or x.shape.rank or 4) - 2
    if not 1 <= n <= 3:
        raise ValueError(f"`filters` must be of rank 3, 4 or 5 (1 to 3 spatial dims); got "
                         f"shape {w.shape}")
    sv = [1] * n if strides is None else list(expand(strides, n, n + 2, True, "strides")[1:-1])
    dv = [1] * n if dilations is None else list(
        expand(dilations, n, n + 2, True, "dilations")[1:-1])
    if max(sv) > 1 and max(dv) > 1:
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                         f"Received: strides={np.array(sv)} and dilation_rate={np.array(dv)}")
    if n == 1:
        return conv1d(x, w, sv, padding, data_format or "NWC", dv)
    if n == 2:
        return conv2d(x, w, sv, padding, data_format or "NHWC", dv)
    if n == 3:
        full = (lambda v: [1, 1, *v]) if str(data_format).startswith("NC") else (
            lambda v: [1, *v, 1])  # conv3d takes 5 values in the data's own layout
        return conv3d(x, w, full(sv), padding, data_format or "NDHWC", full(dv))
    raise ValueError(f"`filters` must be of rank 3, 4 or 5 (1 to 3 spatial dimensions). "
                     f"Received: filters.shape={w.shape}")


@tf_export("nn.conv3d")
def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):
    """3-D convolution of NDHWC ``input`` with DHWIO ``filters`` (``strides``: 5 ints;
    padding "SAME" or "VALID")."""
    fmt, last = conv_data_format(data_format, 5)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    padding, _ = padding_arg(padding, 5, allow_explicit=False)
    return bind(CONV3D, x, w, strides=expand(strides, 3, 5, last, "strides", (5,)),
                padding=padding, data_format=fmt,
                dilations=expand(dilations, 3, 5, last, "dilations", (1, 3, 5)))


@tf_export("nn.depthwise_conv2d")
def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None,
                     name=None):
    """Per-channel 2-D convolution: ``filter`` [H, W, C, M] gives C * M output channels.

    Args:
        strides: a list of 4 ints (TF requires all 4).
    """
    fmt, last = conv_data_format(data_format, 4)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filter, dtype_hint=x.dtype)
    strides = static_attr(strides, "strides")
    strides = tuple(int_arg(s, "strides")
                    for s in (strides if isinstance(strides, (list, tuple)) else [strides]))
    if len(strides) != 4:
        raise errors.InvalidArgumentError(
            None, None, "Sliding window strides field must specify 4 or 5 dimensions "
            "[Op:DepthwiseConv2dNative]")
    padding, explicit = padding_arg(padding, 4)
    return bind(DEPTHWISE, x, w, strides=strides, padding=padding, explicit_paddings=explicit,
                data_format=fmt, dilations=expand(dilations, 2, 4, last, "dilations"))


@tf_export("nn.separable_conv2d")
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None,
                     dilations=None, name=None):
    """A depthwise convolution followed by a 1x1 (pointwise) convolution, as TF composes it."""
    depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format,
                                 dilations)
    return conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], "VALID", data_format or "NHWC")


@tf_export("nn.atrous_conv2d")
def atrous_conv2d(value, filters, rate, padding, name=None):
    """conv2d with the filter taps ``rate`` apart (NHWC, stride 1)."""
    return convolution(value, filters, padding=padding, dilations=[rate, rate])
