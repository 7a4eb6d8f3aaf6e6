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
