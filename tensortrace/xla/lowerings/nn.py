"""Lowerings of reductions, matrix products and neural-network ops (activations, softmax and
cross-entropies, bias_add, convolutions, their gradients, and pooling)."""

import jax
import numpy as np
from jax import lax
from jax import nn as jnn
from jax import numpy as jnp

from ... import config
from ...ops.nn._geometry import spatial_pads
from ..compiler import lowering, simple, static


def _precision():
    """TF's TensorFloat-32 switch: off, GPU matmuls and convolutions keep full float32."""
    return None if config._SWITCHES["tensor_float_32"] else lax.Precision.HIGHEST


# --- reductions ---------------------------------------------------------------------------------
def _axes(axis):
    return None if axis is None else tuple(int(a) for a in axis)


def _reduction(fn, keep_dtype=True):
    def lower(op, x, axis, keep_dims):
        kw = {"dtype": x.dtype} if keep_dtype else {}
        return fn(x, axis=_axes(axis), keepdims=keep_dims, **kw)
    return lower


def _mean(x, axis, keepdims, dtype):
    if jnp.issubdtype(dtype, jnp.integer):  # TF sums integers wide, divides truncating
        total = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=jnp.int64)
        n = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
        return lax.div(total, jnp.int64(max(n, 1))).astype(dtype)
    return jnp.mean(x, axis=axis, keepdims=keepdims, dtype=dtype)


for _name, _fn, _keep in (("Sum", jnp.sum, True), ("Prod", jnp.prod, True),
                          ("Mean", _mean, True), ("Max", jnp.max, False),
                          ("Min", jnp.min, False), ("All", jnp.all, False),
                          ("Any", jnp.any, False)):
    lowering(_name)(_reduction(_fn, _keep))


@lowering("EuclideanNorm")
def _euclidean_norm(op, x, axis, keep_dims):
    return jnp.sqrt(jnp.sum(x * x, axis=_axes(axis), keepdims=keep_dims))


@lowering("ArgMax", "ArgMin")
def _arg(op, x, axis, output_type):
    fn = jnp.argmax if op.type == "ArgMax" else jnp.argmin
    return fn(x, axis=int(axis)).astype(op.outputs[0].dtype._np)


# --- products -----------------------------------------------------------------------------------
@lowering("MatMul")
def _matmul(op, a, b, transpose_a=False, transpose_b=False):
    return jnp.matmul(a.T if transpose_a else a, b.T if transpose_b else b,
                      precision=_precision())


@lowering("BatchMatMulV2", "BatchMatMulV3", "BatchMatMul")
def _batch_matmul(op, x, y, adj_x=False, adj_y=False, **attrs):
    if adj_x:
        x = jnp.conj(jnp.swapaxes(x, -1, -2))
    if adj_y:
        y = jnp.conj(jnp.swapaxes(y, -1, -2))
    return jnp.matmul(x, y, precision=_precision())


@lowering("Tensordot")
def _tensordot(op, a, b, axes_a, axes_b):
    return jnp.tensordot(a, b, (tuple(axes_a), tuple(axes_b)), precision=_precision())


@lowering("Einsum")
def _einsum(op, *inputs, equation):
    return jnp.einsum(equation, *inputs, precision=_precision())


# --- activations --------------------------------------------------------------------------------
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

simple("Relu", lambda x: jnp.maximum(x, 0))
simple("Relu6", lambda x: jnp.clip(x, 0, 6))
simple("Elu", lambda x: jnp.where(x > 0, x, jnp.expm1(x)))
simple("Selu", lambda x: _SELU_SCALE * jnp.where(x > 0, x, _SELU_ALPHA * jnp.expm1(x)))
simple("L2Loss", lambda t: jnp.sum(t * t) / 2)


@lowering("LeakyRelu")
def _leaky_relu(op, x, alpha=0.2):
    return jnp.where(x > 0, x, x * jnp.asarray(alpha, x.dtype))


@lowering("Gelu")
def _gelu(op, x, approximate=False, **attrs):
    return jnn.gelu(x, approximate=bool(approximate))


@lowering("Silu")
def _silu(op, x, beta=1.0, **attrs):
    return x * lax.logistic(x * jnp.asarray(beta, x.dtype))


@lowering("Softmax")
def _softmax(op, logits, axis=-1):
    return jnn.softmax(logits, axis=int(axis))


@lowering("LogSoftmax")
def _log_softmax(op, logits, axis=-1):
    return jnn.log_softmax(logits, axis=int(axis))


@lowering("SoftmaxCrossEntropyWithLogits")
def _softmax_xent(op, features, labels, axis=-1):
    log_p = jnn.log_softmax(features, axis=int(axis))
    z = labels.astype(features.dtype)
    return jnp.sum(z * (0.0 - log_p), axis=int(axis)), jnp.exp(log_p) - z


@lowering("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent(op, features, labels):
    log_p = jnn.log_softmax(features, axis=-1)
    picked = jnp.take_along_axis(log_p, labels[..., None].astype(jnp.int32), -1)[..., 0]
    one_hot = jnp.arange(features.shape[-1]) == labels[..., None]
    return -picked, jnp.exp(log_p) - one_hot.astype(features.dtype)


@lowering("SigmoidCrossEntropyWithLogits")
def _sigmoid_xent(op, logits, labels):
    return jnp.maximum(logits, 0) - logits * labels + jnp.log1p(jnp.exp(-jnp.abs(logits)))


@lowering("BiasAdd")
def _bias_add(op, value, bias, data_format="NHWC"):
    if data_format.startswith("NC") and value.ndim > 2:
        return value + bias.reshape((-1,) + (1,) * (value.ndim - 2))
    return value + bias


# --- convolutions and pooling -------------------------------------------------------------------
def _layout(x, data_format):
    """(channels last, spatial axes) of a 4-D/5-D input."""
    last = not data_format.startswith("NC")
    n = x.ndim - 2
    return last, tuple(range(1, 1 + n)) if last else tuple(range(2, 2 + n))


def _pads(x, padding, explicit, ksizes, strides, dilations, axes):
    sizes = [x.shape[a] for a in axes]
    return [tuple(p) for p in spatial_pads(padding, explicit, sizes, ksizes, strides,
                                           dilations, axes)]


@lowering("Conv2D", "Conv3D")
def _conv(op, x, w, strides, padding, explicit_paddings=(), data_format="NHWC", dilations=None,
          **extra):
    last, axes = _layout(x, data_format)
    s = [strides[a] for a in axes]
    d = [1] * len(axes) if dilations is None else [dilations[a] for a in axes]
    ksizes = list(w.shape[:len(axes)])
    pads = _pads(x, padding, explicit_paddings, ksizes, s, d, axes)
    n = len(axes)
    spatial = "DHW"[-n:] if n < 3 else "DHW"
    lhs = ("N" + spatial + "C") if last else ("NC" + spatial)
    groups = x.shape[axes[-1] + 1 if last else 1] // w.shape[-2]
    return lax.conv_general_dilated(
        x, w, s, pads, rhs_dilation=d, dimension_numbers=(lhs, spatial + "IO", lhs),
        feature_group_count=groups, precision=_precision())


def _sizes(value, op, index):
    return tuple(int(v) for v in np.reshape(static(value, op, index), -1))


# a convolution is linear in each operand: its gradients are the transposes JAX derives
@lowering("Conv2DBackpropInput", "Conv3DBackpropInputV2")
def _conv_input_grad(op, input_sizes, w, dy, **attrs):
    x = jnp.zeros(_sizes(input_sizes, op, 0), dy.dtype)
    return jax.vjp(lambda x: _conv(op, x, w, **attrs), x)[1](dy)[0]


@lowering("Conv2DBackpropFilter", "Conv3DBackpropFilterV2")
def _conv_filter_grad(op, x, filter_sizes, dy, **attrs):
    w = jnp.zeros(_sizes(filter_sizes, op, 1), dy.dtype)
    return jax.vjp(lambda w: _conv(op, x, w, **attrs), w)[1](dy)[0]


def _pool(op, x, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    last, axes = _layout(x, data_format)
    k, s = [ksize[a] for a in axes], [strides[a] for a in axes]
    pads = _pads(x, padding, explicit_paddings, k, s, [1] * len(axes), axes)
    window, step, full = [1] * x.ndim, [1] * x.ndim, [(0, 0)] * x.ndim
    for a, kk, ss, p in zip(axes, k, s, pads):
        window[a], step[a], full[a] = kk, ss, p
    if op.type.startswith("Max"):
        low = -jnp.inf if jnp.issubdtype(x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min
        return lax.reduce_window(x, jnp.asarray(low, x.dtype), lax.max, window, step, full)
    total = lax.reduce_window(x, jnp.asarray(0, x.dtype), lax.add, window, step, full)
    count = lax.reduce_window(jnp.ones(x.shape, x.dtype), jnp.asarray(0, x.dtype), lax.add,
                              window, step, full)
    return total / count


for _name in ("MaxPool", "AvgPool", "MaxPool3D", "AvgPool3D"):
    lowering(_name)(_pool)
