"""Gradients of the nn ops, following TF's nn_grad.py: activations, softmax and cross-entropies,
normalization and dropout by formula; convolutions and pooling by TF's gradient ops
(Conv2DBackpropInput, MaxPoolGrad ...), which take shapes as tensors, so they differentiate with
unknown batch and spatial sizes, to any order."""

import numpy as np

from ...context import bind
from ...ops.array.creation import zeros_like
from ...ops.array.reshaping import expand_dims, reshape
from ...ops.array.shapes import shape
from ...ops.math.casting import cast
from ...ops.math.compare import equal, greater, less, logical_and
from ...ops.math.select import where
from ...ops.math.special import erf
from ...ops.math.arithmetic import square
from ...ops.math.transcendental import exp, rsqrt, sigmoid, tanh
from ...ops.nn import conv_grad as CG
from ...ops.nn import pool_grad as PG
from ...ops.nn.activations import SELU_ALPHA, SELU_SCALE
from ...ops.nn.convolution import CONV2D, CONV3D, DEPTHWISE
from ...ops.nn.pooling import AVG_POOL, AVG_POOL3D
from ...ops.nn.softmax import log_softmax, softmax
from ...ops.reduce import reduce_mean, reduce_sum
from ..grad_util import (kept_shape, reduced_count, reduced_grad, register_gradients, skip,
                         unbroadcast)


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


def _fused_batch_norm(op, dy, *unused):
    """TF's FusedBatchNormGradV3 written with public ops (so it differentiates again): in
    training the batch statistics are recomputed from x; mean and variance get no gradient."""
    x, scale, offset, mean, variance = op.inputs
    first = op.attrs.get("data_format", "NHWC").startswith("NC")
    training, eps = op.attrs.get("is_training", True), op.attrs.get("epsilon", 1e-4)
    rank = x.shape.rank
    axes = [i for i in range(rank) if i != (1 if first else rank - 1)]
    if first:  # per-channel parameters against dim 1
        scale, mean, variance = (reshape(t, [-1] + [1] * (rank - 2))
                                 for t in (scale, mean, variance))
    xf, g = cast(x, scale.dtype), cast(dy, scale.dtype)
    if training:
        mean = reduce_mean(xf, axes, keepdims=True)
        variance = reduce_mean(square(xf - mean), axes, keepdims=True)
    inv = rsqrt(variance + eps)
    xhat = (xf - mean) * inv
    d_offset = reduce_sum(g, axes)
    d_scale = reduce_sum(g * xhat, axes)
    if training:
        dx = scale * inv * (g - reduce_mean(g, axes, keepdims=True)
                            - xhat * reduce_mean(g * xhat, axes, keepdims=True))
    else:
        dx = g * scale * inv
    return cast(dx, x.dtype), d_scale, d_offset, None, None


def _dropout(op, dy):
    """Kept elements scale their gradient by 1 / (1 - rate); dropped ones get 0. The kept mask
    is read back from the output (y == x * scale)."""
    x, rate = op.inputs
    scale = op.attrs.get("scale")
    if scale is None:
        scale = 1 / (1 - cast(rate, x.dtype))
    kept = equal(op.outputs[0], x * scale)
    return where(kept, dy * scale, zeros_like(dy)), None


# --- convolutions and pooling: TF's gradient ops, shapes passed as tensors ---------------------
def _conv(input_op, filter_op):
    """Conv2D/Conv3D/DepthwiseConv2dNative: the backprop-input and backprop-filter ops."""

    def grad(op, dy):
        x, w = op.inputs
        dx = None if skip(op, 0) else bind(input_op, shape(x), w, dy, **op.attrs)
        dw = None if skip(op, 1) else bind(filter_op, x, shape(w), dy, **op.attrs)
        return dx, dw

    return grad


def _conv_backprop_input(forward, filter_op):
    """The backprop-input op (input_sizes, filter, out_backprop) is linear in its last two."""

    def grad(op, g):
        _, w, dy = op.inputs
        dw = None if skip(op, 1) else bind(filter_op, g, shape(w), dy, **op.attrs)
        d_dy = None if skip(op, 2) else bind(forward, g, w, **op.attrs)
        return None, dw, d_dy

    return grad


def _conv_backprop_filter(forward, input_op):
    """The backprop-filter op (input, filter_sizes, out_backprop)."""

    def grad(op, g):
        x, _, dy = op.inputs
        dx = None if skip(op, 0) else bind(input_op, shape(x), g, dy, **op.attrs)
        d_dy = None if skip(op, 2) else bind(forward, x, g, **op.attrs)
        return dx, None, d_dy

    return grad


def _max_pool(grad_op):
    return lambda op, dy: bind(grad_op, op.inputs[0], op.outputs[0], dy, **op.attrs)


def _max_pool_grad(grad_op):
    """MaxPoolGrad and MaxPoolGradGrad: linear in their gradient input, each the other's
    transpose; the pooled values only pick the positions (TF gives them zeros)."""
    return lambda op, g: (None, None, bind(grad_op, *op.inputs[:2], g, **op.attrs))


def _avg_pool(grad_op):
    return lambda op, dy: bind(grad_op, shape(op.inputs[0]), dy, **op.attrs)


def _avg_pool_grad(forward):
    return lambda op, g: (None, bind(forward, g, **op.attrs))


def _ctc_loss(op, dy_loss, dy_grad):
    """TF's rule: the op's gradient output times the loss gradient (broadcast over frames and
    classes); the labels and lengths get none."""
    return (reshape(dy_loss, [1, -1, 1]) * op.outputs[1], None, None, None)


register_gradients({
    **{name: _activation(vjp) for name, vjp in _ACTIVATIONS.items()},
    "CTCLoss":                             _ctc_loss,
    "Softmax":                             _softmax,
    "LogSoftmax":                          _log_softmax,
    "SoftmaxCrossEntropyWithLogits":       _softmax_xent,
    "SparseSoftmaxCrossEntropyWithLogits": _sparse_xent,
    "SigmoidCrossEntropyWithLogits":       _sigmoid_xent,
    "L2Loss":                              lambda op, dy: op.inputs[0] * dy,
    "BiasAdd":                             _bias_add,
    "Moments":                             _moments,
    "BatchNormalization":                  _batch_norm,
    "FusedBatchNormV3":                    _fused_batch_norm,
    "Dropout":                             _dropout,
    "Conv2D":                              _conv(CG.CONV2D_BACKPROP_INPUT,
                                                 CG.CONV2D_BACKPROP_FILTER),
    "Conv2DBackpropInput":                 _conv_backprop_input(CONV2D,
                                                                CG.CONV2D_BACKPROP_FILTER),
    "Conv2DBackpropFilter":                _conv_backprop_filter(CONV2D,
                                                                 CG.CONV2D_BACKPROP_INPUT),
    "Conv3D":                              _conv(CG.CONV3D_BACKPROP_INPUT,
                                                 CG.CONV3D_BACKPROP_FILTER),
    "Conv3DBackpropInputV2":               _conv_backprop_input(CONV3D,
                                                                CG.CONV3D_BACKPROP_FILTER),
    "Conv3DBackpropFilterV2":              _conv_backprop_filter(CONV3D,
                                                                 CG.CONV3D_BACKPROP_INPUT),
    "DepthwiseConv2dNative":               _conv(CG.DEPTHWISE_BACKPROP_INPUT,
                                                 CG.DEPTHWISE_BACKPROP_FILTER),
    "DepthwiseConv2dNativeBackpropInput":  _conv_backprop_input(DEPTHWISE,
                                                                CG.DEPTHWISE_BACKPROP_FILTER),
    "DepthwiseConv2dNativeBackpropFilter": _conv_backprop_filter(DEPTHWISE,
                                                                 CG.DEPTHWISE_BACKPROP_INPUT),
    "MaxPool":                             _max_pool(PG.MAX_POOL_GRAD),
    "MaxPool3D":                           _max_pool(PG.MAX_POOL3D_GRAD),
    "MaxPoolGrad":                         _max_pool_grad(PG.MAX_POOL_GRAD_GRAD),
    "MaxPoolGradGrad":                     _max_pool_grad(PG.MAX_POOL_GRAD),
    "MaxPool3DGrad":                       _max_pool_grad(PG.MAX_POOL3D_GRAD_GRAD),
    "MaxPool3DGradGrad":                   _max_pool_grad(PG.MAX_POOL3D_GRAD),
    "AvgPool":                             _avg_pool(PG.AVG_POOL_GRAD),
    "AvgPool3D":                           _avg_pool(PG.AVG_POOL3D_GRAD),
    "AvgPoolGrad":                         _avg_pool_grad(AVG_POOL),
    "AvgPool3DGrad":                       _avg_pool_grad(AVG_POOL3D),
})
