"""The gradient ops of convolutions (TF's Conv2DBackpropInput/Filter, Conv3DBackprop*V2,
DepthwiseConv2dNativeBackprop*): the shapes they produce come in as tensors, so gradients (and
transposed convolutions) work when the batch or spatial sizes are only known at run time.

    dx = bind(CONV2D_BACKPROP_INPUT, shape(x), w, dy, strides=..., padding=..., ...)
"""

import itertools

import numpy as np

from ...errors import invalid_argument
from ...messages import input_dtype_error, shape_text
from ...registry import DtypeCheck, OpDef, register
from ...tensor import TensorSpec
from .._args import shape_values
from .._base import check_dtypes
from ._geometry import check_cpu_layout, out_sizes, spatial_axes, spatial_pads, windows
from ._kernels import gemm_filter_grad, gemm_input_grad
from ._util import HALF_T, in_float32
from .convolution import CONV_T


# --- geometry -----------------------------------------------------------------------------------
class _Geometry:
    """What a backprop kernel needs of the forward convolution whose input has ``in_shape``
    (given in the op's data format): channels-last sizes, strides, dilations, pads, outputs."""

    def __init__(self, op_name, in_shape, ksizes, strides, padding, explicit, data_format,
                 dilations):
        rank = len(strides)
        self.last = data_format in ("NHWC", "NDHWC")
        axes = spatial_axes(rank, self.last)
        dilations = dilations or (1,) * rank
        if min(strides) < 1 or min(dilations) < 1:
            raise invalid_argument(f"Stride and dilation must be > 0, got strides "
                                   f"{list(strides)} and dilations {list(dilations)}", op_name)
        shape = [int(v) for v in in_shape]
        if len(shape) != rank:
            raise invalid_argument(f"{op_name}: input_sizes must be {rank}-dimensional, got "
                                   f"{len(shape)} dims", op_name)
        if not self.last:
            shape = [shape[0]] + shape[2:] + [shape[1]]
        self.shape = shape  # channels last
        self.s = [strides[a] for a in axes]
        self.d = [dilations[a] for a in axes]
        self.k = list(ksizes)
        self.pads = spatial_pads(padding, explicit, shape[1:-1], self.k, self.s, self.d, axes)
        self.out = out_sizes(shape[1:-1], self.k, self.s, self.d, self.pads, padding)

    def to_last(self, x):
        return x if self.last else np.moveaxis(x, 1, -1)

    def from_last(self, x):
        return x if self.last else np.moveaxis(x, -1, 1)

    def check_backprop(self, op_name, label, dy, channels):
        """out_backprop must have the forward output's shape, as TF checks it (``label``: the
        kernel's name in TF's message)."""
        want = (self.shape[0], *self.out, channels)
        if dy.shape != want:
            for i, (got, computed) in enumerate(zip(dy.shape[1:-1], self.out)):
                if got != computed:
                    raise invalid_argument(
                        f"{label}: Size of out_backprop doesn't match computed: actual = "
                        f"{got}, computed = {computed} spatial_dim: {i + 1} input: "
                        f"{self.shape[i + 1]} filter: {self.k[i]} output: {got} stride: "
                        f"{self.s[i]} dilation: {self.d[i]}", op_name)
            raise invalid_argument(f"{label}: out_backprop has shape {shape_text(dy.shape)}, "
                                   f"expected {shape_text(want)}", op_name)

    def padded_zeros(self, dtype):
        size = [n + p[0] + p[1] for n, p in zip(self.shape[1:-1], self.pads)]
        return np.zeros([self.shape[0], *size, self.shape[-1]], dtype)

    def tap_slices(self):
        """(tap, index into the padded input of the positions that tap meets)."""
        for tap in itertools.product(*(range(k) for k in self.k)):
            yield tap, (slice(None),) + tuple(
                slice(t * d, t * d + (o - 1) * s + 1, s)
                for t, d, o, s in zip(tap, self.d, self.out, self.s))

    def crop(self, xp):
        return xp[(slice(None),) + tuple(slice(b, b + n) for (b, _), n in
                                         zip(self.pads, self.shape[1:-1]))]

    def padded(self, x):
        if all(p == (0, 0) for p in self.pads):
            return x
        return np.pad(x, [(0, 0), *self.pads, (0, 0)])


def _geometry(op_name, in_shape, ksizes, attrs):
    return _Geometry(op_name, in_shape, ksizes, attrs["strides"], attrs["padding"],
                     attrs.get("explicit_paddings", ()), attrs.get("data_format", "NHWC"),
                     attrs.get("dilations"))


# --- kernels ------------------------------------------------------------------------------------
def _input_grad(op_name, label, input_sizes, w, dy, attrs, depthwise):
    """The gradient of a convolution with respect to its input."""
    dtype = dy.dtype
    w, dy = in_float32(w), in_float32(dy)
    g = _geometry(op_name, np.asarray(input_sizes).reshape(-1), w.shape[:-2], attrs)
    dy = g.to_last(dy)
    c, cin, cout = g.shape[-1], w.shape[-2], w.shape[-1]
    if cin == 0 or c % cin or (depthwise and c != cin):
        raise invalid_argument(f"input depth must be evenly divisible by filter depth: {c} vs "
                               f"{cin}", op_name)
    g.check_backprop(op_name, label, dy, c * cout if depthwise else cout)
    dxp = g.padded_zeros(dy.dtype)
    if depthwise:
        dyr = dy.reshape(*dy.shape[:-1], c, cout)
        for tap, where in g.tap_slices():
            dxp[where] += np.einsum("...cm,cm->...c", dyr, w[tap])
    else:
        groups, og = c // cin, cout // max(c // cin, 1)
        for j in range(groups):
            gemm_input_grad(dy[..., j * og:(j + 1) * og], w[..., j * og:(j + 1) * og],
                            dxp[..., j * cin:(j + 1) * cin], g.s, g.d)
    return g.from_last(g.crop(dxp)).astype(dtype, copy=False)


def _filter_grad(op_name, label, x, filter_sizes, dy, attrs, depthwise):
    """The gradient of a convolution with respect to its filter."""
    dtype = x.dtype
    x, dy = in_float32(x), in_float32(dy)
    wshape = [int(v) for v in np.asarray(filter_sizes).reshape(-1)]
    if len(wshape) != x.ndim:
        raise invalid_argument(f"{op_name}: filter_sizes must have {x.ndim} entries, got "
                               f"{len(wshape)}", op_name)
    g = _geometry(op_name, x.shape, wshape[:-2], attrs)
    x, dy = g.to_last(x), g.to_last(dy)
    c, cin, cout = x.shape[-1], wshape[-2], wshape[-1]
    if cin == 0 or c % cin or (depthwise and c != cin):
        raise invalid_argument(f"input depth must be evenly divisible by filter depth: {c} vs "
                               f"{cin}", op_name)
    g.check_backprop(op_name, label, dy, c * cout if depthwise else cout)
    xp = g.padded(x)
    if depthwise:
        win = windows(xp, g.out, g.k, g.s, g.d)
        lead = (slice(None),) * (1 + len(g.out))
        dw = np.zeros(wshape, x.dtype)
        dyr = dy.reshape(-1, c, cout)
        for tap in itertools.product(*(range(k) for k in g.k)):
            dw[tap] = np.einsum("nc,ncm->cm", win[lead + tap].reshape(-1, c), dyr)
        return dw.astype(dtype, copy=False)
    groups, og = c // cin, cout // max(c // cin, 1)
    if groups == 1:
        return gemm_filter_grad(xp, dy, g.k, g.s, g.d).astype(dtype, copy=False)
    dw = np.concatenate([gemm_filter_grad(xp[..., j * cin:(j + 1) * cin],
                                          dy[..., j * og:(j + 1) * og], g.k, g.s, g.d)
                         for j in range(groups)], axis=-1)
    return dw.astype(dtype, copy=False)


# --- the ops ------------------------------------------------------------------------------------
def sized_spec(op_name, sizes, rank, dtype):
    """The spec of a result whose shape is the 1-D tensor ``sizes`` (partly known)."""
    dims = shape_values(sizes)
    if dims is not None and len(dims) != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {len(dims)} for "
                         f"'{{{{node {op_name}}}}}'")
    return TensorSpec(dims if dims is not None else [None] * rank, dtype)


def _backprop_input_op(op_name, label, rank, allowed, depthwise=False):
    def infer(input_sizes, filter, out_backprop, strides, padding, **attrs):
        dtype = check_dtypes(op_name, (filter, out_backprop), allowed,
                             ("filter", "out_backprop"))
        return sized_spec(op_name, input_sizes, rank, dtype)

    def kernel(input_sizes, filter, out_backprop, **attrs):
        check_cpu_layout(op_name, attrs.get("data_format", "NHWC"))
        for what, a in (("filter", filter), ("out_backprop", out_backprop)):
            if a.ndim != rank:
                raise invalid_argument(f"{what} must be {rank}-dimensional: "
                                       f"{shape_text(a.shape)}", op_name)
        return _input_grad(op_name, label, input_sizes, filter, out_backprop, attrs, depthwise)

    return register(OpDef(op_name, infer, kernel,
                          check=DtypeCheck(op_name, allowed, same=2, first=1)))


def _backprop_filter_op(op_name, label, rank, allowed, depthwise=False):
    def infer(input, filter_sizes, out_backprop, strides, padding, **attrs):
        dtype = check_dtypes(op_name, (input, out_backprop), allowed, ("input", "out_backprop"))
        return sized_spec(op_name, filter_sizes, rank, dtype)

    def kernel(input, filter_sizes, out_backprop, **attrs):
        check_cpu_layout(op_name, attrs.get("data_format", "NHWC"))
        for what, a in (("input", input), ("out_backprop", out_backprop)):
            if a.ndim != rank:
                raise invalid_argument(f"{what} must be {rank}-dimensional: "
                                       f"{shape_text(a.shape)}", op_name)
        return _filter_grad(op_name, label, input, filter_sizes, out_backprop, attrs, depthwise)

    first = DtypeCheck(op_name, allowed, same=1)

    def check(arrays):  # input and out_backprop share T; filter_sizes is int32
        first(arrays[:1])
        if len(arrays) > 2 and arrays[2].dtype != arrays[0].dtype:
            raise input_dtype_error(op_name, 2, arrays[0].dtype, arrays[2].dtype)

    return register(OpDef(op_name, infer, kernel, check=check))


CONV2D_BACKPROP_INPUT = _backprop_input_op("Conv2DBackpropInput", "Conv2DCustomBackpropInput",
                                           4, CONV_T)
CONV2D_BACKPROP_FILTER = _backprop_filter_op("Conv2DBackpropFilter",
                                             "Conv2DCustomBackpropFilter", 4, HALF_T)
CONV3D_BACKPROP_INPUT = _backprop_input_op("Conv3DBackpropInputV2", "Conv3DBackpropInputOp", 5,
                                           HALF_T)
CONV3D_BACKPROP_FILTER = _backprop_filter_op("Conv3DBackpropFilterV2", "Conv3DBackpropFilterOp",
                                             5, HALF_T)
DEPTHWISE_BACKPROP_INPUT = _backprop_input_op("DepthwiseConv2dNativeBackpropInput",
                                              "DepthwiseConv2DBackpropInput", 4, HALF_T,
                                              depthwise=True)
DEPTHWISE_BACKPROP_FILTER = _backprop_filter_op("DepthwiseConv2dNativeBackpropFilter",
                                                "DepthwiseConv2DBackpropFilter", 4, HALF_T,
                                                depthwise=True)
