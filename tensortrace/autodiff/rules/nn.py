"""Gradients of the nn ops, following TF's nn_grad.py: activations, softmax and cross-entropies,
normalization and dropout by formula; convolutions and pooling by differentiating their
composition from strided slices (static shapes only)."""

import itertools

import numpy as np

from ...convert import constant
from ...ops.array.creation import zeros_like
from ...ops.array.joining import stack
from ...ops.array.padding import pad
from ...ops.array.passthrough import stop_gradient
from ...ops.array.ranges import one_hot
from ...ops.array.reshaping import expand_dims, reshape, transpose
from ...ops.indexing.slicing import strided_slice
from ...ops.linalg.products import tensordot
from ...ops.math.casting import cast
from ...ops.math.clip import add_n
from ...ops.math.compare import equal, greater, less, logical_and
from ...ops.math.select import where
from ...ops.math.special import erf
from ...ops.math.transcendental import exp, rsqrt, sigmoid, tanh
from ...ops.nn._geometry import out_sizes, spatial_axes, spatial_pads, window_counts
from ...ops.nn.activations import SELU_ALPHA, SELU_SCALE
from ...ops.nn.softmax import log_softmax, softmax
from ...ops.reduce import argmax, reduce_sum
from ..grad_util import (kept_shape, reduced_count, reduced_grad, register_gradients, skip,
                         unbroadcast, via_composite)


# --- activations: each rule maps (x, y, dy, attrs) to dx -------------------------------------
def _times(cond, dy):
    """dy * cond, as TF's ReluGrad kernels compute it (so an inf gradient gives nan where cond
    is false, as in TF); cheaper than a select."""
    return dy * cast(cond, dy.dtype)


def _gelu_derivative(x, approximate):
    if approximate:
        c = np.sqrt(2 / np.pi)
        t = tanh(c * (x + 0.044715 * x * x * x))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)
    cdf = 0.5 * (1 + erf(x / np.sqrt(2)))
    pdf = exp(-0.5 * x * x) / np.sqrt(2 * np.pi)
    return cdf + x * pdf


def _silu_derivative(x, beta):
    s = sigmoid(beta * x)
    return s * (1 + beta * x * (1 - s))


_ACTIVATIONS = {
    "Relu":      lambda x, y, dy, a: _times(greater(y, 0), dy),
    "Relu6":     lambda x, y, dy, a: _times(logical_and(greater(x, 0), less(x, 6)), dy),
    "LeakyRelu": lambda x, y, dy, a: where(greater(x, 0), dy, dy * a.get("alpha", 0.2)),
    "Elu":       lambda x, y, dy, a: where(greater(x, 0), dy, dy * (y + 1)),
    "Selu":      lambda x, y, dy, a: where(greater(x, 0), dy * SELU_SCALE,
                                           dy * (y + SELU_SCALE * SELU_ALPHA)),
    "Gelu":      lambda x, y, dy, a: dy * _gelu_derivative(x, a.get("approximate", False)),
    "Silu":      lambda x, y, dy, a: dy * _silu_derivative(x, a.get("beta", 1.0)),
}


def _activation(vjp):
    return lambda op, dy: vjp(op.inputs[0], op.outputs[0], dy, op.attrs)


# --- softmax and cross-entropies -------------------------------------------------------------
def _softmax_vjp(dy, y, axis):
    """The gradient through y = softmax(logits) over ``axis``."""
    return (dy - reduce_sum(dy * y, axis, keepdims=True)) * y


def _is_zero(t):
    """True when t was made as zeros for an unused output (the backward walk's ZerosLike)."""
    value = getattr(t, "_value", None)
    if value is not None:
        return not np.any(value)
    op = getattr(t, "op", None)
    return op is not None and op.type == "ZerosLike"


def _softmax(op, dy):
    return _softmax_vjp(dy, op.outputs[0], op.attrs.get("axis", -1))


def _log_softmax(op, dy):
    y, axis = op.outputs[0], op.attrs.get("axis", -1)
    return dy - exp(y) * reduce_sum(dy, axis, keepdims=True)


def _softmax_xent(op, *dys):
    """TF's rule: the op's own backprop output times the loss gradient, plus the second-order
    term through the backprop output's gradient; the labels get -log_softmax times the loss
    gradient."""
    dy_loss, dy_backprop = dys
    logits, labels = op.inputs
    axis = op.attrs.get("axis", -1)
    dy = expand_dims(dy_loss, axis)
    grad = dy * op.outputs[1]
    if not _is_zero(dy_backprop):
        grad += _softmax_vjp(dy_backprop, softmax(logits, axis), axis)
    grad = unbroadcast(grad, logits, labels)
    d_labels = None
    if not skip(op, 1) and labels.dtype.is_floating:
        d_labels = unbroadcast(dy * -log_softmax(logits, axis), labels, logits)
    return grad, d_labels


def _sparse_xent(op, *dys):
    dy_loss, dy_backprop = dys
    grad = expand_dims(dy_loss, -1) * op.outputs[1]
    if not _is_zero(dy_backprop):
        grad += _softmax_vjp(dy_backprop, softmax(op.inputs[0]), -1)
    return grad, None


def _sigmoid_xent(op, dy):
    logits, labels = op.inputs
    return dy * (sigmoid(logits) - labels), dy * -logits


# --- normalization and dropout ---------------------------------------------------------------
def _bias_add(op, dy):
    rank = op.inputs[0].shape.rank
    if op.attrs.get("data_format", "NHWC") == "NCHW" and rank and rank > 2:
        axes = [0] + list(range(2, rank))
    else:
        axes = list(range(rank - 1)) if rank is not None else None
    if axes is None:
        raise NotImplementedError("the gradient of bias_add needs a value of known rank")
    return dy, reduce_sum(dy, axes)


def _moments(op, *dys):
    dy_mean, dy_var = dys
    x = op.inputs[0]
    axes, keep = op.attrs["axes"], op.attrs.get("keepdims", False)
    mean = op.outputs[0]
    n = reduced_count(x, mean)
    n = n if isinstance(n, int) else cast(n, x.dtype)
    kept_mean = mean if keep else reshape(mean, kept_shape(x, axes))
    dx_mean = reduced_grad(dy_mean / n, x, axes, keep)
    dx_var = reduced_grad(dy_var * (2.0 / n) if isinstance(n, int) else dy_var * 2.0 / n, x,
                          axes, keep)
    return dx_mean + dx_var * (x - kept_mean)


def _batch_norm(op, dy):
    """y = x * inv + (offset - mean * inv), inv = scale / sqrt(variance + eps)."""
    x, mean, variance, *rest = op.inputs
    a = op.attrs
    offset = rest[0] if a["has_offset"] else None
    scale = rest[-1] if a["has_scale"] else None
    r = rsqrt(variance + a["variance_epsilon"])
    inv = r * scale if scale is not None else r
    dx = unbroadcast(dy * inv, x, mean, variance, *rest)
    d_mean = unbroadcast(-dy * inv, mean, x, variance, *rest)
    d_inv = unbroadcast(dy * (x - mean), variance, x, mean, *rest)
    d_var = d_inv * (scale if scale is not None else 1.0) * -0.5 * r / (
        variance + a["variance_epsilon"])
    out = [dx, d_mean, unbroadcast(d_var, variance, x, mean, *rest)]
    if offset is not None:
        out.append(unbroadcast(dy, offset, x, mean, variance, *rest))
    if scale is not None:
        out.append(unbroadcast(dy * (x - mean) * r, scale, x, mean, variance, *rest))
    return out


def _dropout(op, dy):
    """Kept elements scale their gradient by 1 / (1 - rate); dropped ones get 0. The kept mask
    is read back from the output (y == x * scale)."""
    x, rate = op.inputs
    scale = op.attrs.get("scale")
    if scale is None:
        scale = 1 / (1 - cast(rate, x.dtype))
    kept = equal(op.outputs[0], x * scale)
    return where(kept, dy * scale, zeros_like(dy)), None


# --- convolutions and pooling, rebuilt from strided slices ------------------------------------
def _layout(x, data_format):
    rank = x.shape.rank
    last = not data_format.startswith("NC")
    if rank is None or not x.shape.is_fully_defined():
        raise NotImplementedError("the gradients of convolutions and pooling need static shapes")
    return rank, last, spatial_axes(rank, last)


def _channels_last(x, last):
    rank = x.shape.rank
    return x if last else transpose(x, [0] + list(range(2, rank)) + [1])


def _channels_back(y, last):
    rank = y.shape.rank
    return y if last else transpose(y, [0, rank - 1] + list(range(1, rank - 1)))


def _taps(xp, k, s, d, out):
    """For each kernel offset, the strided slice of the padded input it meets: [N, *out, C]."""
    for tap in itertools.product(*(range(v) for v in k)):
        begin = [0] + [t * dd for t, dd in zip(tap, d)] + [0]
        end = [xp.shape[0]] + [t * dd + (o - 1) * ss + 1 for t, dd, o, ss in
                               zip(tap, d, out, s)] + [xp.shape[-1]]
        yield tap, strided_slice(xp, begin, end, [1] + list(s) + [1])


def _spatial(x, padding, explicit, k, s, d, axes, pad_value=0.0):
    """x (channels last) padded as the op pads it, and the output's spatial sizes."""
    sizes = x.shape.as_list()[1:-1]
    pads = spatial_pads(padding, explicit, sizes, k, s, d, axes)  # axes: explicit's layout
    out = out_sizes(sizes, k, s, d, pads, padding)
    if any(p != (0, 0) for p in pads):
        x = pad(x, [[0, 0]] + [list(p) for p in pads] + [[0, 0]], constant_values=pad_value)
    return x, out, pads


def _conv_composite(depthwise):
    def composite(x, w, strides, padding, explicit_paddings=(), data_format="NHWC",
                  dilations=None, **extra):
        rank, last, axes = _layout(x, data_format)
        dilations = dilations or (1,) * rank
        k = w.shape.as_list()[:-2]
        s, d = [strides[a] for a in axes], [dilations[a] for a in axes]
        xl = _channels_last(x, last)
        cin, cout = w.shape.as_list()[-2:]
        if not depthwise and xl.shape[-1] != cin:
            raise NotImplementedError("the gradient of grouped convolutions")
        xp, out, _ = _spatial(xl, padding, explicit_paddings, k, s, d, axes)
        terms = []
        for tap, window in _taps(xp, k, s, d, out):
            wt = w[tap]
            if depthwise:
                terms.append(reshape(expand_dims(window, -1) * wt, [-1] + out + [cin * cout]))
            else:
                terms.append(tensordot(window, wt, [[rank - 1], [0]]))
        return _channels_back(add_n(terms), last)

    return composite


def _pool_composite(average):
    def composite(x, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
        _, last, axes = _layout(x, data_format)
        k, s = [ksize[a] for a in axes], [strides[a] for a in axes]
        ones = [1] * len(k)
        xl = _channels_last(x, last)
        fill = 0.0 if average else -np.inf
        xp, out, pads = _spatial(xl, padding, explicit_paddings, k, s, ones, axes, fill)
        windows = stack([w for _, w in _taps(xp, k, s, ones, out)])
        if average:
            count = window_counts(xl.shape.as_list()[1:-1], k, s, pads, out)
            y = reduce_sum(windows, 0) / constant(count, x.dtype)
        else:  # the first maximum of each window takes the gradient, as TF's MaxPoolGrad
            first = one_hot(argmax(windows, 0), int(np.prod(k)), axis=0, dtype=x.dtype)
            y = reduce_sum(windows * stop_gradient(first), 0)
        return _channels_back(y, last)

    return composite


_CONV = via_composite(_conv_composite(depthwise=False))
_MAX_POOL = via_composite(_pool_composite(average=False))
_AVG_POOL = via_composite(_pool_composite(average=True))

register_gradients({
    **{name: _activation(vjp) for name, vjp in _ACTIVATIONS.items()},
    "Softmax":                             _softmax,
    "LogSoftmax":                          _log_softmax,
    "SoftmaxCrossEntropyWithLogits":       _softmax_xent,
    "SparseSoftmaxCrossEntropyWithLogits": _sparse_xent,
    "SigmoidCrossEntropyWithLogits":       _sigmoid_xent,
    "L2Loss":                              lambda op, dy: op.inputs[0] * dy,
    "BiasAdd":                             _bias_add,
    "Moments":                             _moments,
    "BatchNormalization":                  _batch_norm,
    "Dropout":                             _dropout,
    "Conv2D":                              _CONV,
    "Conv3D":                              _CONV,
    "DepthwiseConv2dNative":               via_composite(_conv_composite(depthwise=True)),
    "MaxPool":                             _MAX_POOL,
    "MaxPool3D":                           _MAX_POOL,
    "AvgPool":                             _AVG_POOL,
    "AvgPool3D":                           _AVG_POOL,
})
