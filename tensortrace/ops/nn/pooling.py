"""Pooling: the MaxPool, AvgPool, MaxPool3D and AvgPool3D ops, and 1-D, rank-dispatched and
generic pooling composed from them."""

import itertools

import numpy as np

from ... import dtypes as D
from ... import errors
from ..._export import export_function, tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_fn_error, shape_text
from ...registry import DtypeCheck, OpDef, register
from ...tensor import TensorSpec
from .._args import int_arg
from .._base import check_dtypes, dtypes_named
from ..array.reshaping import expand_dims, squeeze
from ._geometry import (check_cpu_layout, expand, out_sizes, pad_spatial, padding_arg,
                        spatial_axes, spatial_pads, window_counts, windows)
from ._util import HALF_T

MAXPOOL_T = dtypes_named("float16 bfloat16 float32 float64 int32 int64 uint8 int16 int8 uint16")


def _pool_kernel(x, ksize, strides, padding, explicit, channels_last, average):
    rank = x.ndim
    if ksize[0] != 1 or strides[0] != 1:
        raise errors.UnimplementedError(None, None, "Pooling is not yet supported on the batch "
                                        "dimension.")
    axes = spatial_axes(rank, channels_last)
    cax = rank - 1 if channels_last else 1
    if ksize[cax] != 1 or strides[cax] != 1:
        raise errors.UnimplementedError(None, None, "Depthwise pooling is not supported here: "
                                        "ksize and strides must be 1 on the channel dimension.")
    if min(ksize) < 1 or min(strides) < 1:
        raise invalid_argument("Sliding window ksize and stride must be > 0")
    if not channels_last:
        x = np.moveaxis(x, 1, -1)
    k = [ksize[a] for a in axes]
    s = [strides[a] for a in axes]
    ones = [1] * len(axes)
    sizes = list(x.shape[1:-1])
    pads = spatial_pads(padding, explicit, sizes, k, s, ones, axes)
    out = out_sizes(sizes, k, s, ones, pads, padding)
    y = (_avg_pool if average else _max_pool)(x, k, s, pads, out)
    return y if channels_last else np.moveaxis(y, -1, 1)


def _max_pool(x, k, s, pads, out):
    fill = -np.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min  # V: bfloat16
    win = windows(pad_spatial(x, pads, fill), out, k, s, [1] * len(k))
    lead = (slice(None),) * (1 + len(out))
    taps = itertools.product(*(range(v) for v in k))
    y = np.array(win[lead + next(taps)])
    for tap in taps:
        np.fmax(y, win[lead + tap], out=y)  # fmax: NaNs are skipped, as TF's MaxPool does
    return y


def _avg_pool(x, k, s, pads, out):
    acc = np.float32 if x.dtype.itemsize == 2 else x.dtype
    win = windows(pad_spatial(x, pads), out, k, s, [1] * len(k))
    lead = (slice(None),) * (1 + len(out))
    y = np.zeros((x.shape[0], *out, x.shape[-1]), acc)
    for tap in itertools.product(*(range(v) for v in k)):
        y += win[lead + tap]
    count = window_counts(x.shape[1:-1], k, s, pads, out, acc)
    return (y / count).astype(x.dtype, copy=False)


def _pool_op(op_name, allowed, average, rank):
    def infer(input, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
        check_dtypes(op_name, (input,), allowed, ("input",))
        last = not data_format.startswith("NC")
        dims = input.shape.dims
        if dims is None:
            return TensorSpec([None] * rank, input.dtype)
        if len(dims) != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {len(dims)} for "
                             f"'{{{{node {op_name}}}}}'")
        axes = spatial_axes(rank, last)
        k = [ksize[a] for a in axes]
        s = [strides[a] for a in axes]
        sizes = [dims[a] for a in axes]
        ones = [1] * len(axes)
        pads = spatial_pads(padding, explicit_paddings, sizes, k, s, ones, axes)

        def graph_error(what):
            return shape_fn_error(op_name, what, input.dtype, {"ksize": ksize, "padding": padding,
                                                            "strides": strides}, (input,),
                              ("input",))

        out = out_sizes(sizes, k, s, ones, pads, padding, graph_error)
        c = dims[-1] if last else dims[1]
        return TensorSpec([dims[0]] + out + [c] if last else [dims[0], c] + out, input.dtype)

    def kernel(input, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
        check_cpu_layout(op_name, data_format)
        if input.ndim != rank:
            if rank == 4 and input.dtype in _ONEDNN_POOL:  # TF's oneDNN kernel's message
                raise invalid_argument("Input must be 4 or 5-dimensional")
            raise invalid_argument(f"input must be {rank}-dimensional: "
                                   f"{shape_text(input.shape)}")
        return _pool_kernel(input, ksize, strides, padding, explicit_paddings,
                            not data_format.startswith("NC"), average)

    return register(OpDef(op_name, infer, kernel, check=DtypeCheck(op_name, allowed, same=1)))


_ONEDNN_POOL = frozenset(d._np for d in (D.float32, D.bfloat16) if d is not None)
MAX_POOL = _pool_op("MaxPool", MAXPOOL_T, False, 4)
AVG_POOL = _pool_op("AvgPool", HALF_T, True, 4)
MAX_POOL3D = _pool_op("MaxPool3D", HALF_T, False, 5)
AVG_POOL3D = _pool_op("AvgPool3D", HALF_T, True, 5)


def _pool_nd(opdef, rank, explicit_ok):
    """Pooling by ``opdef`` (2-D or 3-D): TF's arguments turned into the op's attrs."""

    def run(input, ksize, strides, padding, data_format):
        x = convert_to_tensor(input)
        names = {4: ("NHWC", "NCHW"), 5: ("NDHWC", "NCDHW")}[rank]
        fmt = names[0] if data_format is None else data_format
        if fmt not in names:
            raise ValueError(f"`data_format` must be one of {names}. Received: "
                             f"data_format={fmt}")
        last = fmt == names[0]
        padding, explicit = padding_arg(padding, rank, allow_explicit=explicit_ok)
        n = rank - 2
        attrs = {"ksize": expand(ksize, n, rank, last, "ksize"),
                 "strides": expand(strides, n, rank, last, "strides"), "padding": padding,
                 "data_format": fmt}
        if explicit:
            attrs["explicit_paddings"] = explicit
        return bind(opdef, x, **attrs)

    return run


def _pool_1d(pool2d):
    """TF's 1-D pooling: ExpandDims, the 2-D pooling with a unit window dim, Squeeze."""

    def run(input, ksize, strides, padding, data_format):
        if data_format not in ("NWC", "NCW", None):
            raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: "
                             f"data_format={data_format}")
        last = data_format != "NCW"
        axis = 1 if last else 2
        k = expand(ksize, 1, 3, last, "ksize")
        s = expand(strides, 1, 3, last, "strides")
        k2 = list(k[:axis]) + [1] + list(k[axis:])
        s2 = list(s[:axis]) + [1] + list(s[axis:])
        if isinstance(padding, (list, tuple)):
            padding = list(padding[:axis]) + [[0, 0]] + list(padding[axis:])
        out = pool2d(expand_dims(convert_to_tensor(input), axis), k2, s2, padding,
                     "NHWC" if last else "NCHW")
        return squeeze(out, [axis])

    return run


def _pool_by_rank(pools):
    """Pooling dispatched on the input's rank to ``pools`` (1-D, 2-D, 3-D); a None data_format
    is each one's default."""

    def run(input, ksize, strides, padding, data_format):
        x = convert_to_tensor(input)
        rank = x.shape.rank
        if rank not in (3, 4, 5):
            raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: "
                             f"input.shape={x.shape} of rank {rank}")
        return pools[rank - 3](x, ksize, strides, padding, data_format)

    return run


def _api(export, run, data_format, doc):
    """The public pooling function ``tf.<export>`` of TF's signature, calling ``run``."""

    def fn(input, ksize, strides, padding, data_format=data_format, name=None):
        return run(input, ksize, strides, padding, data_format)

    return export_function(fn, export, doc=doc)


max_pool2d = _api("nn.max_pool2d", _pool_nd(MAX_POOL, 4, True), "NHWC",
                  "The maximum over each ``ksize`` window (padding \"SAME\", \"VALID\" or "
                  "explicit pairs).")
avg_pool2d = _api("nn.avg_pool2d", _pool_nd(AVG_POOL, 4, False), "NHWC",
                  "The mean over each window; with \"SAME\", padded positions are left out of "
                  "the count.")
max_pool3d = _api("nn.max_pool3d", _pool_nd(MAX_POOL3D, 5, False), "NDHWC", "3-D max pooling.")
avg_pool3d = _api("nn.avg_pool3d", _pool_nd(AVG_POOL3D, 5, False), "NDHWC",
                  "3-D average pooling.")
max_pool1d = _api("nn.max_pool1d", _pool_1d(max_pool2d), "NWC",
                  "1-D max pooling over NWC (or NCW) input.")
avg_pool1d = _api("nn.avg_pool1d", _pool_1d(avg_pool2d), "NWC",
                  "1-D average pooling over NWC (or NCW) input.")
max_pool = _api("nn.max_pool", _pool_by_rank((max_pool1d, max_pool2d, max_pool3d)), None,
                "Max pooling dispatched on the input's rank (3: 1-D, 4: 2-D, 5: 3-D).")
avg_pool = _api("nn.avg_pool", _pool_by_rank((avg_pool1d, avg_pool2d, avg_pool3d)), None,
                "Average pooling dispatched on the input's rank (3: 1-D, 4: 2-D, 5: 3-D).")


def _int_list(value, what):
    """A list-of-ints argument (one int stands for a list of one)."""
    if not isinstance(value, (list, tuple)):
        value = [value]
    return [int_arg(v, what) for v in value]


@tf_export("nn.pool")
def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,
         dilations=None, name=None):
    """N-d max or average pooling over ``window_shape`` (``pooling_type`` "MAX" or "AVG")."""
    window_shape = _int_list(window_shape, "window_shape")
    n = len(window_shape)
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"Unsupported pooling type: {pooling_type}")
    dilations = None if dilations is None else _int_list(dilations, "dilations")
    if dilations is not None and any(d < 1 for d in dilations):
        raise ValueError(f"`dilations` must be positive, got {dilations}")
    if dilations is not None and any(d != 1 for d in dilations):
        raise NotImplementedError("tf.nn.pool with dilations > 1")
    strides = [1] * n if strides is None else _int_list(strides, "strides")
    fn = max_pool if pooling_type == "MAX" else avg_pool
    return fn(input, list(window_shape), strides, padding, data_format)
