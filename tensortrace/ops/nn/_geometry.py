"""The geometry convolutions and pooling share: TF's padding/strides/data_format arguments, the
padding and output sizes they imply, and strided window views of padded inputs."""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ... import errors
from ...context import executing_eagerly
from ...errors import invalid_argument
from .._args import int_arg, static_attr

_PADDINGS = ("SAME", "VALID", "EXPLICIT")


def padding_arg(padding, rank, allow_explicit=True):
    """TF's padding argument as (padding string, explicit_paddings tuple)."""
    if isinstance(padding, (list, tuple)):
        if not allow_explicit:
            raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
        flat = []
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ValueError(f"When `padding` is a list, each element of `padding` must be a "
                                 f"list/tuple of size 2. Received: padding={padding} with "
                                 f"element at index {i} of size {len(pair)}")
            flat += [int(p) for p in pair]
        if len(padding) != rank:
            raise ValueError(f"When padding is a list, it must be of size {rank}. Received: "
                             f"padding={padding} of size {len(padding)}")
        return "EXPLICIT", tuple(flat)
    if padding == "EXPLICIT":
        raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit "
                         "padding, `padding` must be a list.")
    if padding not in _PADDINGS:
        message = (f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed "
                   f"values: \"SAME\", \"VALID\", \"EXPLICIT\"")
        if executing_eagerly():
            raise errors.InvalidArgumentError(None, None, message)
        raise ValueError(message)
    return padding, ()


_UNIMPLEMENTED, _INVALID = errors.UnimplementedError, errors.InvalidArgumentError
_DEPTHWISE_NHWC = (_UNIMPLEMENTED, "Depthwise convolution on CPU is only supported for NHWC format")
#: TF's CPU kernels of convolutions and pooling refuse channels-first data (when the graph
#: runs): the error and message of each
CPU_CHANNELS_LAST_ONLY = {
    "Conv2D": (_UNIMPLEMENTED, "The Conv2D op currently only supports the NHWC tensor format on "
                               "the CPU. The op was given the format: NCHW"),
    "Conv3D": (_INVALID, "CPU implementation of Conv3D currently only supports the NHWC tensor "
                         "format."),
    "DepthwiseConv2dNative": _DEPTHWISE_NHWC,
    "DepthwiseConv2dNativeBackpropInput": _DEPTHWISE_NHWC,
    "DepthwiseConv2dNativeBackpropFilter": _DEPTHWISE_NHWC,
    "Conv2DBackpropInput": (_INVALID, "Conv2DCustomBackpropInputOp only supports NHWC."),
    "Conv2DBackpropFilter": (_INVALID, "Conv2DCustomBackpropFilterOp only supports NHWC."),
    "Conv3DBackpropInputV2": (_INVALID, "Conv3DBackpropInputOpV2 only supports NDHWC on the "
                                        "CPU."),
    "Conv3DBackpropFilterV2": (_INVALID, "Conv3DBackpropFilterOpV2 only supports NDHWC on the "
                                         "CPU."),
    "MaxPool": (_INVALID, "Default MaxPoolingOp only supports NHWC on device type CPU"),
    "AvgPool": (_INVALID, "Default AvgPoolingOp only supports NHWC on device type CPU"),
    "MaxPool3D": (_INVALID, "Default Pooling3DOp only supports NDHWC on device type CPU"),
    "AvgPool3D": (_INVALID, "Default Pooling3DOp only supports NDHWC on device type CPU"),
    "MaxPoolGrad": (_INVALID, "Default MaxPoolingGradOp only supports NHWC on device type CPU"),
    "MaxPoolGradGrad": (_INVALID, "Default MaxPoolingGradGradOp only supports NHWC on device "
                                  "type CPU"),
    "AvgPoolGrad": (_INVALID, "Default AvgPoolingGradOp only supports NHWC on device type CPU"),
    "MaxPool3DGrad": (_INVALID, "Default MaxPooling3dGradOp only supports NDHWC on device type "
                                "CPU"),
    "MaxPool3DGradGrad": (_INVALID, "Default MaxPooling3dGradGradOp only supportsNDHWC on CPU "
                                    "device type"),  # sic
    "AvgPool3DGrad": (_INVALID, "Default AvgPooling3dGradOp only supports NDHWC on device type "
                                "CPU"),
}


def check_cpu_layout(op_name, data_format):
    """TF's CPU kernel error for channels-first data (graphs build; running them fails)."""
    if data_format.startswith("NC"):
        cls, message = CPU_CHANNELS_LAST_ONLY[op_name]
        raise cls(None, None, message)


def spatial_axes(rank, channels_last):
    return tuple(range(1, rank - 1)) if channels_last else tuple(range(2, rank))


def expand(value, n, rank, channels_last, what, allowed=None):
    """An int or list for ``n`` spatial dims as a full ``rank``-long list (batch, channel = 1)."""
    value = static_attr(value, what) if value is not None else 1
    vals = [int_arg(v, what) for v in (value if isinstance(value, (list, tuple)) else [value])]
    allowed = allowed or (1, n, rank)
    if len(vals) not in allowed:
        lengths = ", ".join(map(str, allowed[:-1])) + f" or {allowed[-1]}"
        raise ValueError(f"{what} should be of length {lengths}. Received: {what}={vals} of "
                         f"length {len(vals)}")
    if len(vals) == rank:
        return tuple(vals)
    vals = vals * n if len(vals) == 1 else vals
    full = [1] * rank
    for ax, v in zip(spatial_axes(rank, channels_last), vals):
        full[ax] = v
    return tuple(full)


def conv_data_format(data_format, rank):
    """(op data_format attr, channels_last) for a user data_format such as "NWC" or "NCHW"."""
    names = ("NDHWC", "NCDHW") if rank == 5 else ("NHWC", "NCHW")
    if data_format is not None and not isinstance(data_format, str):
        raise TypeError(f"`data_format` must be a string, got {data_format!r}")
    if data_format is None or (data_format.startswith("N") and data_format.endswith("C")):
        return names[0], True
    if data_format.startswith("NC"):
        return names[1], False
    raise ValueError(f"`data_format` must be of the form `N...C` or `NC...`. Received: "
                     f"data_format={data_format}")


def spatial_pads(padding, explicit, sizes, ksizes, strides, dilations, axes):
    """(before, after) per spatial dim; None entries where a size is unknown (SAME)."""
    out = []
    for i, ax in enumerate(axes):
        if padding == "VALID":
            out.append((0, 0))
        elif padding == "EXPLICIT":
            out.append((explicit[2 * ax], explicit[2 * ax + 1]))
        else:
            size, k, s, d = sizes[i], ksizes[i], strides[i], dilations[i]
            if size is None or k is None:
                out.append(None)
                continue
            eff = (k - 1) * d + 1
            total = max((-(-size // s) - 1) * s + eff - size, 0)
            out.append((total // 2, total - total // 2))
    return out


def out_sizes(sizes, ksizes, strides, dilations, pads, padding, graph_error=None):
    """Output spatial sizes (None where unknown); raises for windows larger than the input."""
    out = []
    for size, k, s, d, p in zip(sizes, ksizes, strides, dilations, pads):
        if size is None or k is None:
            out.append(-(-size // s) if padding == "SAME" and size is not None else None)
            continue
        eff = (k - 1) * d + 1
        padded = size + p[0] + p[1]
        if padded < eff:
            if graph_error is not None:
                raise graph_error(f"Negative dimension size caused by subtracting {eff} from "
                                  f"{padded}")
            raise invalid_argument(f"Computed output size would be negative: {padded - eff} "
                                   f"[input_size: {size}, effective_filter_size: {eff}, "
                                   f"stride: {s}]")
        out.append((padded - eff) // s + 1)
    return out


def window_counts(sizes, ksizes, strides, pads, out, dtype=np.float64):
    """How many in-bounds elements each average-pooling window covers (padding is left out of
    the mean): per-dim counts multiplied, broadcasting against a channels-last output."""
    rank = len(sizes) + 2
    count = np.ones([1] * rank, dtype)
    for i, (size, k, s, (before, _)) in enumerate(zip(sizes, ksizes, strides, pads)):
        start = np.arange(out[i]) * s - before
        n = np.minimum(start + k, size) - np.maximum(start, 0)
        shape = [1] * rank
        shape[i + 1] = out[i]
        count = count * n.reshape(shape).astype(dtype)
    return count


def windows(x, out, ksizes, strides, dilations):
    """A read-only view [N, *out, *k, C] of ``x`` ([N, *spatial, C], already padded)."""
    st = x.strides
    sp = st[1:-1]
    shape = (x.shape[0], *out, *ksizes, x.shape[-1])
    win_strides = (st[0], *(a * s for a, s in zip(sp, strides)),
                   *(a * d for a, d in zip(sp, dilations)), st[-1])
    return as_strided(x, shape, win_strides, writeable=False)


def pad_spatial(x, pads, fill=0):
    """Channels-last ``x`` padded by ``pads`` along its spatial dims (``x`` itself when none)."""
    if all(p == (0, 0) for p in pads):
        return x
    return np.pad(x, [(0, 0), *pads, (0, 0)], constant_values=fill)
