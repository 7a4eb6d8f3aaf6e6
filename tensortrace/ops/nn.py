"""Neural-network ops: activations, softmax and cross-entropies, losses, bias_add, moments, batch
normalization, dropout, convolutions and pooling."""

import itertools
import numbers
import threading

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import dtypes as D
from .. import errors
from .._export import tf_export
from ..context import bind, executing_eagerly
from ..convert import convert_to_tensor
from ..errors import invalid_argument
from ..registry import OpDef, define_op, register
from ..tensor import TensorSpec, static_value
from ._base import broadcast_shape, check_dtypes
from ..messages import c_name
from ..registry import DtypeCheck
from .linalg import dims_text, dtypes_named, node_error, static_attr, via_float32

RELU_T = dtypes_named("float32", "float64", "int32", "uint8", "int16", "int8", "int64", "bfloat16",
                      "uint16", "float16", "uint32", "uint64")
HALF_T = dtypes_named("float16", "bfloat16", "float32", "float64")
SIGMOID_T = dtypes_named("bfloat16", "float16", "float32", "float64", "complex64", "complex128")
CONV_T = dtypes_named("float16", "bfloat16", "float32", "float64", "int32")
MAXPOOL_T = dtypes_named("float16", "bfloat16", "float32", "float64", "int32", "int64", "uint8",
                         "int16", "int8", "uint16")
NUMBER_T = dtypes_named("float32", "float64", "int32", "uint8", "int16", "int8", "complex64",
                        "int64", "bfloat16", "uint16", "complex128", "float16", "uint32", "uint64")
LABEL_T = (D.int32, D.int64)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _quiet(fn):
    """Run ``fn`` with NumPy's overflow/invalid warnings off (TF returns inf/nan silently)."""

    def run(*args, **kw):
        with np.errstate(all="ignore"):
            return fn(*args, **kw)

    run.__name__ = fn.__name__
    return run


def _activation(name, kernel, allowed, quiet=True, ints_to_float=False):
    """Register an elementwise one-input op whose attrs (LeakyRelu's alpha) go to the kernel;
    with ``ints_to_float``, integer features give float32 (TF's leaky_relu casts them first)."""
    base = DtypeCheck(name, allowed, same=1)

    def check(arrays):
        if not (ints_to_float and arrays[0].dtype.kind in "iu"):
            base(arrays)

    def infer(x, **attrs):
        if ints_to_float and x.dtype.is_integer:
            return TensorSpec(x.shape, D.float32)
        check_dtypes(name, (x,), allowed, ("features",))
        return TensorSpec(x.shape, x.dtype)

    return register(OpDef(name, infer, _quiet(kernel) if quiet else kernel, check=check))


# --- activations -------------------------------------------------------------------------------
def _leaky_relu(x, alpha=0.2):
    if x.dtype.kind in "iu":  # TF's leaky_relu casts integer features to float32 first
        x = x.astype(np.float32)
    return np.where(x > 0, x, x * x.dtype.type(alpha))


def _elu(x):
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


def _selu(x):
    t = x.dtype.type
    return t(SELU_SCALE) * np.where(x > 0, x, t(SELU_ALPHA) * np.expm1(np.minimum(x, 0)))


RELU = _activation("Relu", lambda x: np.maximum(x, x.dtype.type(0)), RELU_T, quiet=False)
RELU6 = _activation("Relu6", lambda x: np.clip(x, x.dtype.type(0), x.dtype.type(6)), RELU_T,
                    quiet=False)
LEAKY_RELU = _activation("LeakyRelu", _leaky_relu, HALF_T, ints_to_float=True)
ELU = _activation("Elu", _elu, HALF_T)
SELU = _activation("Selu", _selu, HALF_T)


@tf_export("nn.relu")
def relu(features, name=None):
    """max(features, 0)."""
    return bind(RELU, convert_to_tensor(features))


@tf_export("nn.relu6")
def relu6(features, name=None):
    """min(max(features, 0), 6)."""
    return bind(RELU6, convert_to_tensor(features))


@tf_export("nn.leaky_relu")
def leaky_relu(features, alpha=0.2, name=None):
    """features where positive, else ``alpha * features`` (integers become float32, as in TF)."""
    alpha = float(np.float32(static_attr(alpha, "leaky_relu alpha")))  # a float32 attr in TF
    return bind(LEAKY_RELU, convert_to_tensor(features), alpha=alpha)


@tf_export("nn.elu")
def elu(features, name=None):
    """features where positive, else exp(features) - 1."""
    return bind(ELU, convert_to_tensor(features))


@tf_export("nn.selu")
def selu(features, name=None):
    """scale * (features where positive, else alpha * (exp(features) - 1))."""
    return bind(SELU, convert_to_tensor(features))


# erfc by a Chebyshev fit (Numerical Recipes, 3rd ed., 6.2.2): NumPy has no erf and the project
# depends on NumPy alone. Evaluated in float64 (28 terms: double precision); float32's exp(-z^2)
# would lose ~1e-5 relative in the tail.
_ERFC_COF = (
    -1.3026537197817094, 6.4196979235649026e-1, 1.9476473204185836e-2, -9.561514786808631e-3,
    -9.46595344482036e-4, 3.66839497852761e-4, 4.2523324806907e-5, -2.0278578112534e-5,
    -1.624290004647e-6, 1.303655835580e-6, 1.5626441722e-8, -8.5238095915e-8, 6.529054439e-9,
    5.059343495e-9, -9.91364156e-10, -2.27365122e-10, 9.6467911e-11, 2.394038e-12,
    -6.886027e-12, 8.94487e-13, 3.13092e-13, -1.12708e-13, 3.81e-16, 7.106e-15, -1.523e-15,
    -9.4e-17, 1.21e-16, -2.8e-17)


def erfc(x):
    """The complementary error function, vectorised, in ``x``'s dtype."""
    z = np.abs(x).astype(np.float64)
    t = 2 / (2 + z)
    ty = 4 * t - 2
    d = dd = np.zeros_like(z)
    for c in _ERFC_COF[:0:-1]:  # Clenshaw's recurrence
        d, dd = ty * d - dd + c, d
    with np.errstate(all="ignore"):
        r = t * np.exp(-z * z + 0.5 * (_ERFC_COF[0] + ty * d) - dd)
    return np.where(x >= 0, r, 2 - r).astype(x.dtype, copy=False)


def _gelu(x, approximate=False):
    t = x.dtype.type
    if approximate:
        inner = t(np.sqrt(2 / np.pi)) * (x + t(0.044715) * x * x * x)
        return t(0.5) * x * (t(1) + np.tanh(inner))
    return t(0.5) * x * erfc(-x * t(1 / np.sqrt(2)))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _silu(x, beta=1.0):
    return x * _sigmoid(x * x.dtype.type(beta))


# TF composes these from Erfc/Tanh/Sigmoid and Mul; here each is one op (named after it).
GELU = _activation("Gelu", _gelu, HALF_T)
SILU = _activation("Silu", _silu, SIGMOID_T)


@tf_export("nn.gelu")
def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit: x * Phi(x) (the tanh approximation when ``approximate``).

    Raises:
        ValueError: for non-floating ``features``, as TF.
    """
    x = convert_to_tensor(features)
    if not x.dtype.is_floating:
        raise ValueError(f"`features.dtype` must be a floating point tensor.Received:"
                         f"features.dtype={x.dtype}")
    return bind(GELU, x, approximate=bool(approximate))


@tf_export("nn.silu", "nn.swish")
def silu(features, beta=1.0, name=None):
    """features * sigmoid(beta * features)."""
    return bind(SILU, convert_to_tensor(features), beta=float(static_attr(beta, "silu beta")))


# --- softmax -----------------------------------------------------------------------------------
def _shifted(x, axis):
    return x - np.max(x, axis=axis, keepdims=True, initial=-np.inf)


def _softmax_kernel(log):
    def kernel(logits, axis=-1):
        if logits.ndim == 0:
            raise invalid_argument("logits must have >= 1 dimension, got []")
        with np.errstate(all="ignore"):
            s = _shifted(logits, axis)
            e = np.exp(s)
            total = np.sum(e, axis=axis, keepdims=True)
            return (s - np.log(total)) if log else (e / total)

    return kernel


def _softmax_infer(name):
    def infer(logits, axis=-1):
        check_dtypes(name, (logits,), HALF_T, ("logits",))
        if logits.shape.rank == 0:
            raise node_error(name, "Shape must be at least rank 1 but is rank 0", logits.dtype,
                             {}, (logits,), ("logits",))
        return TensorSpec(logits.shape, logits.dtype)

    return infer


# TF's ops work on the last axis and the Python wrapper transposes; an ``axis`` attr saves that.
SOFTMAX = register(OpDef("Softmax", _softmax_infer("Softmax"), _softmax_kernel(False),
                         check=DtypeCheck("Softmax", HALF_T, same=1)))
LOG_SOFTMAX = register(OpDef("LogSoftmax", _softmax_infer("LogSoftmax"), _softmax_kernel(True),
                             check=DtypeCheck("LogSoftmax", HALF_T, same=1)))


def _softmax_axis(x, axis):
    axis = -1 if axis is None else static_attr(axis, "softmax axis")
    rank = x.shape.rank
    if rank and not -rank <= axis < rank:  # rank 0 is the op's error
        raise errors.InvalidArgumentError(
            None, None, f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the number "
            f"of dimensions in the input. Received: dim={axis}")
    return int(axis) if rank is None or axis < 0 else int(axis) - rank


@tf_export("nn.softmax", "math.softmax")
def softmax(logits, axis=None, name=None):
    """exp(logits) / sum(exp(logits), axis), computed stably."""
    x = convert_to_tensor(logits)
    return bind(SOFTMAX, x, axis=_softmax_axis(x, axis))


@tf_export("nn.log_softmax", "math.log_softmax")
def log_softmax(logits, axis=None, name=None):
    """logits - log(sum(exp(logits), axis)), computed stably."""
    x = convert_to_tensor(logits)
    return bind(LOG_SOFTMAX, x, axis=_softmax_axis(x, axis))


# --- cross-entropies ---------------------------------------------------------------------------
@define_op("SigmoidCrossEntropyWithLogits")
class SigmoidCrossEntropyWithLogits:
    """max(x, 0) - x * z + log1p(exp(-|x|)): TF's composite as one op (x logits, z labels)."""

    check = DtypeCheck("SigmoidCrossEntropyWithLogits", HALF_T, same=2)

    def infer(logits, labels):
        dtype = check_dtypes("SigmoidCrossEntropyWithLogits", (logits, labels), HALF_T,
                             ("logits", "labels"))
        return TensorSpec(logits.shape.merge_with(labels.shape), dtype)

    def kernel(logits, labels):
        with np.errstate(all="ignore"):
            zero = logits.dtype.type(0)
            return (np.maximum(logits, zero) - logits * labels
                    + np.log1p(np.exp(-np.abs(logits))))


@tf_export("nn.sigmoid_cross_entropy_with_logits")
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise logistic loss of ``logits`` against ``labels`` (same shape).

    Raises:
        ValueError: if the shapes differ.
    """
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if not logits.shape.is_compatible_with(labels.shape):
        raise ValueError(f"`logits` and `labels` must have the same shape, received "
                         f"({logits.shape} vs {labels.shape}).")
    return bind(SigmoidCrossEntropyWithLogits, logits, labels)


def _in_float32(x):
    """Half-precision losses are computed in float32 and rounded back, as TF does."""
    return x.astype(np.float32) if x.dtype.itemsize == 2 else x


def _xent_from_log_probs(log_p, labels, axis):
    with np.errstate(all="ignore"):
        # 0 * -inf is nan, as in TF; 0 - log_p (not a negated sum) gives TF's +0.0 for a sure class
        return np.sum(labels * (0.0 - log_p), axis=axis)


@define_op("SoftmaxCrossEntropyWithLogits")
class SoftmaxCrossEntropyWithLogits:
    """Per-example softmax cross-entropy over ``axis``, and its gradient (softmax - labels).

    TF's op takes 2-D inputs and the Python wrapper reshapes/transposes; ``axis`` saves that.
    """

    def check(arrays):
        DtypeCheck("SoftmaxCrossEntropyWithLogits", HALF_T, same=1)(arrays)

    def infer(features, labels, axis=-1):
        check_dtypes("SoftmaxCrossEntropyWithLogits", (features,), HALF_T, ("features",))
        dtype = features.dtype
        if features.shape.rank == 0:
            raise ValueError("logits must have at least one dimension")
        shape = broadcast_shape(features.shape, labels.shape, "SoftmaxCrossEntropyWithLogits")
        if shape.rank is None:
            return TensorSpec(None, dtype), TensorSpec(None, dtype)
        dims = shape.dims
        del dims[axis]
        return TensorSpec(dims, dtype), TensorSpec(shape, dtype)

    def kernel(features, labels, axis=-1):
        if features.ndim == 0:
            raise invalid_argument("logits must have at least one dimension")
        try:
            np.broadcast_shapes(features.shape, labels.shape)
        except ValueError:
            raise invalid_argument(f"logits and labels must be broadcastable: logits_size="
                                   f"{dims_text(features.shape)} labels_size="
                                   f"{dims_text(labels.shape)}") from None
        x = _in_float32(features)
        z = labels.astype(x.dtype, copy=False)
        with np.errstate(all="ignore"):
            log_p = _shifted(x, axis)
            log_p = log_p - np.log(np.sum(np.exp(log_p), axis=axis, keepdims=True))
            loss = _xent_from_log_probs(log_p, z, axis)
            backprop = np.exp(log_p) - z
        return (np.asarray(loss).astype(features.dtype, copy=False),
                backprop.astype(features.dtype, copy=False))


@tf_export("nn.softmax_cross_entropy_with_logits")
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Cross-entropy between ``labels`` (a distribution over ``axis``) and softmax(logits).

    ``labels`` are cast to the logits' dtype and broadcast against them, as in TF.
    """
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    axis = int(static_attr(axis, "softmax_cross_entropy axis"))
    rank = logits.shape.rank
    if rank is not None and rank > 0:
        axis = axis % rank - rank
    loss, _ = bind(SoftmaxCrossEntropyWithLogits, logits, labels, axis=axis)
    return loss


@define_op("SparseSoftmaxCrossEntropyWithLogits")
class SparseSoftmaxCrossEntropyWithLogits:
    """Softmax cross-entropy against integer class ``labels`` (any leading dims), and its
    gradient."""

    def check(arrays):
        DtypeCheck("SparseSoftmaxCrossEntropyWithLogits", HALF_T, same=1)(arrays)
        dt = D.from_numpy(arrays[1].dtype)
        if dt not in LABEL_T:
            raise invalid_argument(f"Value for attr 'Tlabels' of {c_name(dt)} is not in the list "
                                   f"of allowed values: int32, int64",
                                   "SparseSoftmaxCrossEntropyWithLogits")

    def infer(features, labels):
        check_dtypes("SparseSoftmaxCrossEntropyWithLogits", (features,), HALF_T, ("features",))
        check_dtypes("SparseSoftmaxCrossEntropyWithLogits", (labels,), LABEL_T, ("labels",))
        loss = labels.shape
        if features.shape.rank is not None and loss.is_compatible_with(features.shape[:-1]):
            loss = loss.merge_with(features.shape[:-1])
        return TensorSpec(loss, features.dtype), TensorSpec(features.shape, features.dtype)

    def kernel(features, labels):
        depth = features.shape[-1]
        if labels.size:
            lo, hi = labels.min(), labels.max()
            if lo < 0 or hi >= depth:
                bad = lo if lo < 0 else hi
                values = " ".join(str(v) for v in labels.reshape(-1)[:10])
                raise invalid_argument(f"Received a label value of {bad} which is outside the "
                                       f"valid range of [0, {depth}).  Label values: {values}")
        x = _in_float32(features)
        with np.errstate(all="ignore"):
            log_p = _shifted(x, -1)
            log_p = log_p - np.log(np.sum(np.exp(log_p), axis=-1, keepdims=True))
            picked = np.take_along_axis(log_p, labels[..., None].astype(np.intp), -1)[..., 0]
            backprop = np.exp(log_p)
        one_hot = np.arange(depth) == labels[..., None]
        backprop = backprop - one_hot
        return (np.asarray(0.0 - picked).astype(features.dtype, copy=False),  # +0.0, as TF
                backprop.astype(features.dtype, copy=False))


@tf_export("nn.sparse_softmax_cross_entropy_with_logits")
def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Cross-entropy between integer class ``labels`` and softmax(logits) over the last axis.

    Raises:
        ValueError: if ``labels`` is not ``logits``' shape without its last dimension.
    """
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    ls, gs = labels.shape, logits.shape
    if ls.rank is not None and gs.rank is not None:
        if ls.rank != gs.rank - 1:
            raise ValueError(f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                             f"labels.shape={ls} of rank {ls.rank} and logits.shape={gs} of rank "
                             f"{gs.rank}")
        if not ls.is_compatible_with(gs[:-1]):
            raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last "
                             f"dimension. Received: labels.shape={ls} and logits.shape={gs}")
    loss, _ = bind(SparseSoftmaxCrossEntropyWithLogits, logits, labels)
    return loss


# --- l2_loss, bias_add -------------------------------------------------------------------------
@define_op("L2Loss")
class L2Loss:
    """sum(t ** 2) / 2."""

    check = DtypeCheck("L2Loss", HALF_T, same=1)

    def infer(t):
        check_dtypes("L2Loss", (t,), HALF_T, ("t",))
        return TensorSpec([], t.dtype)

    def kernel(t):
        x = _in_float32(t)
        with np.errstate(all="ignore"):
            return np.asarray(np.sum(x * x) / 2).astype(t.dtype)[()]


@tf_export("nn.l2_loss")
def l2_loss(t, name=None):
    """Half the sum of squares of ``t``."""
    return bind(L2Loss, convert_to_tensor(t))


@define_op("BiasAdd")
class BiasAdd:
    """value + bias along the channel dimension (last for NHWC, the second for NCHW)."""

    check = DtypeCheck("BiasAdd", NUMBER_T, same=2)

    def infer(value, bias, data_format="NHWC"):
        dtype = check_dtypes("BiasAdd", (value, bias), NUMBER_T, ("value", "bias"))
        dims = value.shape.dims
        if dims is not None:
            if len(dims) < 2:
                raise node_error("BiasAdd", f"Shape must be at least rank 2 but is rank "
                                 f"{len(dims)}", dtype, {"data_format": data_format},
                                 (value, bias), ("value", "bias"))
            c = dims[_channel_axis(len(dims), data_format)]
            b = bias.shape.dims[0] if bias.shape.rank == 1 else None
            if c is not None and b is not None and c != b:
                raise node_error("BiasAdd", f"Dimensions must be equal, but are {c} and {b}",
                                 dtype, {"data_format": data_format}, (value, bias),
                                 ("value", "bias"))
        return TensorSpec(value.shape, dtype)

    def kernel(value, bias, data_format="NHWC"):
        if value.ndim < 2:
            raise invalid_argument(f"Input tensor must be at least 2D: {dims_text(value.shape)}")
        if bias.ndim != 1:
            raise invalid_argument(f"Biases must be 1D: {dims_text(bias.shape)}")
        axis = _channel_axis(value.ndim, data_format)
        if value.shape[axis] != bias.shape[0]:
            raise invalid_argument(f"Must provide as many biases as the last dimension of the "
                                   f"input tensor: {dims_text(bias.shape)} vs. "
                                   f"{dims_text(value.shape)}")
        shape = [1] * value.ndim
        shape[axis] = bias.shape[0]
        return value + bias.reshape(shape)


def _channel_axis(rank, data_format):
    return 1 if data_format == "NCHW" and rank > 2 else rank - 1


@tf_export("nn.bias_add")
def bias_add(value, bias, data_format=None, name=None):
    """Add the 1-D ``bias`` along the channel dimension of ``value``.

    Raises:
        ValueError: for a ``data_format`` not of the form ``N...C`` or ``NC...``.
    """
    if data_format is None or (data_format.startswith("N") and data_format.endswith("C")):
        fmt = "NHWC"
    elif data_format.startswith("NC"):
        fmt = "NCHW"
    else:
        raise ValueError(f"`data_format` must be of the form `N...C` or `NC...`. Received: "
                         f"data_format={data_format}")
    value = convert_to_tensor(value)
    bias = convert_to_tensor(bias, dtype_hint=value.dtype)
    return bind(BiasAdd, value, bias, data_format=fmt)


# --- moments, batch_normalization --------------------------------------------------------------
def _check_axes(axes, rank):
    seen = set()
    for a in axes:
        if not -rank <= a < rank:
            raise invalid_argument(f"Invalid reduction dimension ({a} for input with {rank} "
                                   f"dimension(s)")
        if a % rank in seen:
            raise invalid_argument(f"Invalid reduction arguments: Axes contains duplicate "
                                   f"dimension: {a % rank}")
        seen.add(a % rank)
    return tuple(sorted(seen))


def _mean(x, axes):
    """TF's Mean: integer means truncate toward zero in the input dtype."""
    if x.dtype.kind in "iu":
        n = max(int(np.prod([x.shape[a] for a in axes])), 1)
        s = np.sum(x, axis=axes, keepdims=True, dtype=np.int64)
        return (np.sign(s) * (np.abs(s) // n)).astype(x.dtype)
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    with np.errstate(all="ignore"):  # an empty reduction is nan, silently (np.mean warns)
        return np.sum(x, axis=axes, keepdims=True) / x.dtype.type(n)


@define_op("Moments")
class Moments:
    """Mean and variance over ``axes`` (TF's Mean, SquaredDifference, Mean, as one op)."""

    check = DtypeCheck("Mean", NUMBER_T, same=1)

    def infer(x, axes, keepdims=False):
        check_dtypes("Mean", (x,), NUMBER_T, ("input",))
        dims = x.shape.dims
        if dims is None:
            return TensorSpec(None, x.dtype), TensorSpec(None, x.dtype)
        rank = len(dims)
        if any(not -rank <= a < rank for a in axes):
            raise ValueError(f"Invalid reduction dimension {axes} for input with {rank} "
                             f"dimensions")
        axes = {a % rank for a in axes}
        out = ([1 if i in axes else d for i, d in enumerate(dims)] if keepdims
               else [d for i, d in enumerate(dims) if i not in axes])
        return TensorSpec(out, x.dtype), TensorSpec(out, x.dtype)

    def kernel(x, axes, keepdims=False):
        axes = _check_axes(axes, x.ndim)
        y = _in_float32(x) if x.dtype.kind == "f" else x
        mean = _mean(y, axes)
        with np.errstate(all="ignore"):
            diff = y - mean
            var = _mean(diff * np.conj(diff) if diff.dtype.kind == "c" else diff * diff, axes)
        if not keepdims:
            mean, var = np.squeeze(mean, axis=axes), np.squeeze(var, axis=axes)
        return (np.asarray(mean).astype(x.dtype, copy=False),
                np.asarray(var).astype(x.dtype, copy=False))


@tf_export("nn.moments")
def moments(x, axes, shift=None, keepdims=False, name=None):
    """Mean and variance of ``x`` over ``axes`` (``shift`` is accepted and unused, as in TF)."""
    x = convert_to_tensor(x)
    axes = static_attr(axes, "moments axes")
    axes = tuple(int(a) for a in (axes if isinstance(axes, (list, tuple)) else [axes]))
    return bind(Moments, x, axes=axes, keepdims=bool(keepdims))


@define_op("BatchNormalization")
class BatchNormalization:
    """(x - mean) * scale / sqrt(variance + eps) + offset (TF's Rsqrt/Mul/Sub/AddV2 as one op).

    Inputs: x, mean, variance, then offset and scale when ``has_offset``/``has_scale``.
    """

    def check(arrays):
        DtypeCheck("BatchNormalization", HALF_T, same=1)(arrays[:1])
        DtypeCheck("Rsqrt", HALF_T, same=len(arrays) - 1)(arrays[1:])

    def infer(x, mean, variance, *rest, variance_epsilon, has_offset, has_scale):
        check_dtypes("BatchNormalization", (x,), HALF_T, ("x",))
        check_dtypes("Rsqrt", (mean, variance) + rest, HALF_T,
                     ("mean", "variance", "offset", "scale"))
        shape = x.shape
        for t in (mean, variance) + rest:
            shape = broadcast_shape(shape, t.shape, "Mul")
        return TensorSpec(shape, x.dtype)

    def kernel(x, mean, variance, *rest, variance_epsilon, has_offset, has_scale):
        offset = rest[0] if has_offset else None
        scale = rest[-1] if has_scale else None
        t = variance.dtype.type
        with np.errstate(all="ignore"):
            inv = 1 / np.sqrt(variance + t(variance_epsilon))
            if scale is not None:
                inv = inv * scale
            shift = (offset - mean * inv) if offset is not None else -mean * inv
            return x * inv.astype(x.dtype, copy=False) + shift.astype(x.dtype, copy=False)


@tf_export("nn.batch_normalization")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """Normalize ``x`` with the given moments, then scale and shift (``offset``/``scale`` may be
    None)."""
    x = convert_to_tensor(x)
    params = [convert_to_tensor(mean), convert_to_tensor(variance)]
    params += [convert_to_tensor(p) for p in (offset, scale) if p is not None]
    return bind(BatchNormalization, x, *params,
                variance_epsilon=float(static_attr(variance_epsilon, "variance_epsilon")),
                has_offset=offset is not None, has_scale=scale is not None)


# --- dropout -----------------------------------------------------------------------------------
def _seed_attrs(seed):
    """The random family's seed attrs (TF's global/op seed rules) when it provides them."""
    from . import random as _random

    make = getattr(_random, "_seed_attrs", None)
    if make is not None:
        return make(seed)
    return {"seed": 0 if seed is None else int(seed), "seed2": 0}


_FALLBACK_STREAMS = {}


def _generator(dtype, seed, seed2, stream):
    """The NumPy generator a dropout kernel draws its mask from."""
    from . import random as _random

    shared = getattr(_random, "_generator", None)
    if shared is not None:
        return shared(("Dropout", dtype.name), seed, seed2, stream)
    key = (seed, seed2)
    if key not in _FALLBACK_STREAMS:
        _FALLBACK_STREAMS[key] = np.random.default_rng(None if key == (0, 0) else list(key))
    return _FALLBACK_STREAMS[key]


@define_op("Dropout", stateful=True)
class Dropout:
    """x * scale where a uniform draw >= rate, else 0 (TF's RandomUniform/GreaterEqual/SelectV2
    composite as one stateful op). ``noise_shape`` broadcasts the mask; ``scale`` is
    1 / (1 - rate) computed in Python for a Python rate (as TF), else in x's dtype."""

    check = DtypeCheck("Dropout", HALF_T, same=2)

    def infer(x, rate, noise_shape=None, scale=None, seed=0, seed2=0, _stream=0):
        return TensorSpec(x.shape, x.dtype)

    def kernel(x, rate, noise_shape=None, scale=None, seed=0, seed2=0, _stream=0):
        shape = x.shape if noise_shape is None else tuple(
            x.shape[i] if d is None else d for i, d in enumerate(noise_shape))
        try:
            np.broadcast_shapes(shape, x.shape)
        except ValueError:
            raise invalid_argument(f"condition {dims_text(shape)}, then {dims_text(x.shape)}, "
                                   f"and else [] must be broadcastable") from None
        gen = _generator(D.from_numpy(x.dtype), seed, seed2, _stream)
        draw = np.float32 if x.dtype == np.float32 else np.float64
        keep = gen.random(shape, dtype=draw) >= rate
        with np.errstate(all="ignore"):
            if scale is None:  # a tensor rate: 1 / (1 - rate) in x's dtype, as TF's graph does
                scale = x.dtype.type(1) / (x.dtype.type(1) - rate)
            kept = x * x.dtype.type(scale)
        return np.where(keep, kept, x.dtype.type(0))


@tf_export("nn.dropout")
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero elements with probability ``rate`` and scale the others by 1 / (1 - rate).

    Seeds follow tf.random's rules (``tf.random.set_seed`` and the op ``seed``).

    Raises:
        ValueError: for non-floating ``x`` or a Python ``rate`` outside [0, 1).
    """
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                         f"Received: x_dtype={x.dtype}")
    scale = None
    if isinstance(rate, numbers.Real):
        if not 0 <= rate < 1:
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). "
                             f"Received: rate={rate}")
        if rate == 0:
            return x  # TF's fast path: no op at all
        scale = 1 / (1 - rate)  # in Python floats, then rounded to x's dtype, as TF
    rate = convert_to_tensor(rate, dtype=x.dtype)
    if noise_shape is not None:
        noise_shape = tuple(None if d is None else int(d)
                            for d in static_attr(noise_shape, "dropout noise_shape"))
    return bind(Dropout, x, rate, noise_shape=noise_shape, scale=scale,
                **_seed_attrs(None if seed is None else int(seed)))


# --- convolution and pooling geometry ----------------------------------------------------------
_PADDINGS = ("SAME", "VALID", "EXPLICIT")


def _padding_arg(padding, rank, channels_last, allow_explicit=True):
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


def _spatial_axes(rank, channels_last):
    return tuple(range(1, rank - 1)) if channels_last else tuple(range(2, rank))


def _expand(value, n, rank, channels_last, what, allowed=None):
    """An int or list for ``n`` spatial dims as a full ``rank``-long list (batch, channel = 1)."""
    value = static_attr(value, what) if value is not None else 1
    vals = [int(value)] if not isinstance(value, (list, tuple)) else [int(v) for v in value]
    allowed = allowed or (1, n, rank)
    if len(vals) not in allowed:
        lengths = ", ".join(map(str, allowed[:-1])) + f" or {allowed[-1]}"
        raise ValueError(f"{what} should be of length {lengths}. Received: {what}={vals} of "
                         f"length {len(vals)}")
    if len(vals) == rank:
        return tuple(vals)
    vals = vals * n if len(vals) == 1 else vals
    full = [1] * rank
    for ax, v in zip(_spatial_axes(rank, channels_last), vals):
        full[ax] = v
    return tuple(full)


def _pads(padding, explicit, sizes, ksizes, strides, dilations, axes):
    """(before, after) per spatial dim; None entries where a size is unknown (SAME)."""
    pads = []
    for i, ax in enumerate(axes):
        if padding == "VALID":
            pads.append((0, 0))
        elif padding == "EXPLICIT":
            pads.append((explicit[2 * ax], explicit[2 * ax + 1]))
        else:
            size, k, s, d = sizes[i], ksizes[i], strides[i], dilations[i]
            if size is None or k is None:
                pads.append(None)
                continue
            eff = (k - 1) * d + 1
            total = max((-(-size // s) - 1) * s + eff - size, 0)
            pads.append((total // 2, total - total // 2))
    return pads


def _out_sizes(sizes, ksizes, strides, dilations, pads, padding, graph_error=None):
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


def _windows(x, out, ksizes, strides, dilations):
    """A read-only view [N, *out, *k, C] of ``x`` ([N, *spatial, C], already padded)."""
    st = x.strides
    sp = st[1:-1]
    shape = (x.shape[0], *out, *ksizes, x.shape[-1])
    win_strides = (st[0], *(a * s for a, s in zip(sp, strides)),
                   *(a * d for a, d in zip(sp, dilations)), st[-1])
    return as_strided(x, shape, win_strides, writeable=False)


def _pad(x, pads, fill=0):
    if all(p == (0, 0) for p in pads):
        return x
    return np.pad(x, [(0, 0), *pads, (0, 0)], constant_values=fill)


# One patch block of about this many bytes per BLAS call: big enough for the GEMM to run at full
# speed, small enough to stay in cache (measured with bench/bench_conv.py).
_BLOCK_BYTES = 3 << 20
_PARALLEL_FLOPS = 5e7  # below this a convolution is one plain GEMM per block, no workers


class _Blas:
    """The thread count of NumPy's bundled OpenBLAS, found through ctypes (as threadpoolctl
    does); ``set`` stays None when this NumPy's BLAS cannot be controlled."""

    get = set = None
    found = False

    @classmethod
    def load(cls):
        if not cls.found:
            cls.found = True
            cls.get, cls.set = _openblas_thread_functions()
        return cls.set is not None


def _openblas_thread_functions():
    import ctypes
    import glob
    import os

    root = os.path.dirname(os.path.dirname(np.__file__))
    for lib in sorted(glob.glob(os.path.join(root, "numpy.libs", "*openblas*"))
                      + glob.glob(os.path.join(os.path.dirname(np.__file__), ".libs", "*blas*"))):
        try:
            dll = ctypes.CDLL(lib)
        except OSError:
            continue
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                try:
                    get = getattr(dll, f"{prefix}_get_num_threads{suffix}")
                    set_ = getattr(dll, f"{prefix}_set_num_threads{suffix}")
                except AttributeError:
                    continue
                get.restype = ctypes.c_int
                set_.argtypes = [ctypes.c_int]
                return get, set_
    return None, None


class _Workers:
    """One worker thread per CPU for the blocks of a large convolution, each calling BLAS with
    one thread: the workers balance among themselves, where BLAS's own threads each wait for the
    slowest (twice as slow as this whenever another process holds a core)."""

    pool = pid = None
    lock = threading.Lock()
    active = 0  # convolutions running now; the first saves BLAS's thread count, the last restores
    saved = 1

    @classmethod
    def run(cls, fn, tasks):
        import os

        _Blas.load()
        with cls.lock:
            if cls.pid != os.getpid():  # a forked child inherits no threads: make a new pool
                from concurrent.futures import ThreadPoolExecutor

                cls.pool, cls.pid = ThreadPoolExecutor(os.cpu_count() or 1), os.getpid()
            if cls.active == 0:
                cls.saved = _Blas.get()
                _Blas.set(1)
            cls.active += 1
        try:
            for f in [cls.pool.submit(fn, *t) for t in tasks]:
                f.result()
        finally:
            with cls.lock:
                cls.active -= 1
                if cls.active == 0:
                    _Blas.set(cls.saved)


def _parallel(flops, tasks):
    return len(tasks) > 1 and flops >= _PARALLEL_FLOPS and _Blas.load()


def _gemm_conv(x, w, out, strides, dilations):
    """Convolve padded channels-last ``x`` with ``w`` [*k, C, O]: im2col blocks, one GEMM each."""
    n, c = x.shape[0], x.shape[-1]
    ksizes, o = w.shape[:-2], w.shape[-1]
    kc = int(np.prod(ksizes)) * c
    w2 = np.ascontiguousarray(w.reshape(kc, o))
    y = np.empty((n, *out, o), x.dtype)
    if y.size == 0:
        return y
    if kc == 0:
        y[...] = 0
        return y
    if kc == c and all(s == 1 for s in strides) and tuple(out) == x.shape[1:-1]:
        np.matmul(x.reshape(-1, c), w2, out=y.reshape(-1, o))  # 1x1 convolution: no patches
        return y
    win = _windows(x, out, ksizes, strides, dilations)
    blocks = [(b,) for b in _blocks(n, out, kc * x.itemsize)]

    def run(block, buf=None):
        src = win[block]
        patches = np.empty(src.shape, x.dtype) if buf is None else buf[:src.size].reshape(
            src.shape)
        np.copyto(patches, src)
        np.matmul(patches.reshape(-1, kc), w2, out=y[block].reshape(-1, o))

    if _parallel(2.0 * y.size * kc, blocks):
        _Workers.run(run, blocks)
        return y
    buf = np.empty(max(win[b].size for (b,) in blocks[:2]), x.dtype)
    for (b,) in blocks:
        run(b, buf)
    return y


# Winograd's F(2x2, 3x3) (Lavin & Gray, 2015): each 4x4 input tile gives a 2x2 output tile from
# 16 products instead of 36, so a 3x3 convolution is 16 GEMMs of a quarter of the rows, 2.25x
# fewer flops than im2col (float32 errors stay at the GEMM's level).
_WINO_G = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]])


def _winograd_ok(x, w, out, strides, dilations):
    """Large float32 3x3 stride-1 convolutions of finite values (the transforms would turn an
    inf into nan where the direct sum gives inf; a sum is a cheap test that also catches values
    big enough to overflow in the transforms)."""
    return (w.shape[:-2] == (3, 3) and x.dtype == np.float32 and max(strides) == 1
            and max(dilations) == 1 and w.shape[-2] == x.shape[-1] and min(out) > 0
            and 18.0 * x.shape[0] * out[0] * out[1] * w.shape[-2] * w.shape[-1]
            >= _PARALLEL_FLOPS and _Blas.load()
            and np.isfinite(np.sum(x)) and np.isfinite(np.sum(w)))


def _winograd_conv(x, w, out):
    """3x3, stride-1 convolution of padded NHWC ``x`` by F(2x2, 3x3), in blocks of tile rows."""
    n, c, o = x.shape[0], x.shape[-1], w.shape[-1]
    th, tw = -(-out[0] // 2), -(-out[1] // 2)
    hp, wp = 2 * th + 2, 2 * tw + 2
    if (hp, wp) != x.shape[1:3]:  # odd output sizes: one more row/column of tiles
        x = np.pad(x, [(0, 0), (0, hp - x.shape[1]), (0, wp - x.shape[2]), (0, 0)])
    u = np.einsum("ai,ijco,bj->abco", _WINO_G, w.astype(np.float64), _WINO_G, optimize=True)
    u = u.reshape(16, c, o).astype(x.dtype)
    y = np.empty((n, 2 * th, 2 * tw, o), x.dtype)
    rows = max(1, _BLOCK_BYTES // (16 * tw * c * x.itemsize))

    def run(i, t0, t1):
        b = t1 - t0
        slab = x[i, 2 * t0:2 * t1 + 2]
        d0, d1, d2, d3 = (slab[k:k + 2 * b:2] for k in range(4))
        r = np.empty((4, b, wp, c), x.dtype)  # B^T d along rows ...
        np.subtract(d0, d2, out=r[0])
        np.add(d1, d2, out=r[1])
        np.subtract(d2, d1, out=r[2])
        np.subtract(d1, d3, out=r[3])
        e0, e1, e2, e3 = (r[:, :, k:k + 2 * tw:2] for k in range(4))
        v = np.empty((4, 4, b, tw, c), x.dtype)  # ... then along columns
        np.subtract(e0, e2, out=v[:, 0])
        np.add(e1, e2, out=v[:, 1])
        np.subtract(e2, e1, out=v[:, 2])
        np.subtract(e1, e3, out=v[:, 3])
        m = np.matmul(v.reshape(16, b * tw, c), u).reshape(4, 4, b, tw, o)
        h = np.empty((4, 2, b, tw, o), x.dtype)  # A^T m A along rows ... [column, row, ...]
        np.add(m[0], m[1], out=h[:, 0])
        h[:, 0] += m[2]
        np.subtract(m[1], m[2], out=h[:, 1])
        h[:, 1] -= m[3]
        dst = y[i, 2 * t0:2 * t1].reshape(b, 2, tw, 2, o).transpose(3, 1, 0, 2, 4)
        np.add(h[0], h[1], out=dst[0])  # ... then along columns, into the output
        dst[0] += h[2]
        np.subtract(h[1], h[2], out=dst[1])
        dst[1] -= h[3]

    _Workers.run(run, [(i, t0, min(t0 + rows, th)) for i in range(n)
                       for t0 in range(0, th, rows)])
    return y[:, :out[0], :out[1]]


def _blocks(n, out, row_bytes):
    """Index tuples (into the patch view and the output) of blocks of about _BLOCK_BYTES."""
    slab = int(np.prod(out[1:], dtype=np.int64)) * row_bytes  # one (image, output row)
    rows = max(1, _BLOCK_BYTES // max(slab, 1))
    if rows >= out[0]:
        step = max(1, rows // out[0])
        return [(slice(i, min(i + step, n)),) for i in range(0, n, step)]
    return [(i, slice(r, min(r + rows, out[0]))) for i in range(n)
            for r in range(0, out[0], rows)]


def _depthwise(x, w, out, strides, dilations):
    """Per-channel convolution: ``w`` [*k, C, M] -> C*M channels, accumulated tap by tap."""
    ksizes, c, m = w.shape[:-2], w.shape[-2], w.shape[-1]
    win = _windows(x, out, ksizes, strides, dilations)
    y = np.zeros((x.shape[0], *out, c, m), x.dtype)
    lead = (slice(None),) * (1 + len(out))
    for tap in itertools.product(*(range(k) for k in ksizes)):
        y += win[lead + tap][..., None] * w[tap]
    return y.reshape(*y.shape[:-2], c * m)


def _conv_kernel(x, w, strides, padding, explicit, dilations, channels_last, depthwise=False):
    """The shared N-d convolution kernel (channels-first inputs are moved to channels-last)."""
    rank = x.ndim
    axes = _spatial_axes(rank, channels_last)
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
    pads = _pads(padding, explicit, list(x.shape[1:-1]), k, s, d, axes)
    out = _out_sizes(list(x.shape[1:-1]), k, s, d, pads, padding)
    xp = _pad(x, pads)
    groups = 1 if depthwise else c // cin
    run = _depthwise if depthwise else _gemm_conv
    if not depthwise and groups > 1:
        og = w.shape[-1] // groups
        y = np.concatenate([via_float32(
            lambda a, b: _gemm_conv(a, b, out, s, d), xp[..., g * cin:(g + 1) * cin],
            w[..., g * og:(g + 1) * og]) for g in range(groups)], axis=-1)
    elif not depthwise and xp.ndim == 4 and _winograd_ok(xp, w, out, s, d):
        y = _winograd_conv(xp, w, out)
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
        raise node_error(op_name, f"Shape must be rank {rank} but is rank {len(wd)}", dtype,
                         attrs, (x, w), ("input", "filter"))
    xd = x.shape.dims
    if xd is not None and len(xd) != rank:
        raise node_error(op_name, f"Shape must be rank {rank} but is rank {len(xd)}", dtype,
                         attrs, (x, w), ("input", "filter"))
    xd = xd if xd is not None else [None] * rank
    wd = wd if wd is not None else [None] * rank
    axes = _spatial_axes(rank, channels_last)
    c = xd[-1 if channels_last else 1]
    cin, cout = wd[-2], wd[-1]
    if c is not None and cin is not None and (
            (depthwise and c != cin) or (not depthwise and (cin == 0 or c % cin))):
        raise node_error(op_name, f"Depth of input ({c}) is not a multiple of input depth of "
                         f"filter ({cin})", dtype, attrs, (x, w), ("input", "filter"))
    if depthwise:
        cout = None if (cin if cin is not None else c) is None or cout is None else (
            (cin if cin is not None else c) * cout)
    s = [strides[a] for a in axes]
    d = [dilations[a] for a in axes]
    sizes = [xd[a] for a in axes]
    k = wd[:-2]
    pads = _pads(padding, explicit, sizes, k, s, d, axes)

    def graph_error(what):
        return node_error(op_name, what, dtype, attrs, (x, w), ("input", "filter"))

    out = _out_sizes(sizes, k, s, d, pads, padding, graph_error)
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
        rank = len(strides)
        for what, a in (("input", input), ("filter", filter)):
            if a.ndim != rank:
                raise invalid_argument(f"{what} must be {rank}-dimensional: "
                                       f"{dims_text(a.shape)}")
        return _conv_kernel(input, filter, strides, padding, explicit_paddings,
                            dilations or (1,) * rank, data_format in fmt_last, depthwise)

    return register(OpDef(op_name, infer, kernel, check=DtypeCheck(op_name, allowed, same=2)))


CONV2D = _conv_op("Conv2D", CONV_T)
DEPTHWISE = _conv_op("DepthwiseConv2dNative", HALF_T, depthwise=True)
CONV3D = _conv_op("Conv3D", HALF_T, fmt_last=("NDHWC",))


def _conv_data_format(data_format, rank):
    """(op data_format attr, channels_last) for a user data_format such as "NWC" or "NCHW"."""
    names = ("NDHWC", "NCDHW") if rank == 5 else ("NHWC", "NCHW")
    if data_format is None or (data_format.startswith("N") and data_format.endswith("C")):
        return names[0], True
    if data_format.startswith("NC"):
        return names[1], False
    raise ValueError(f"`data_format` must be of the form `N...C` or `NC...`. Received: "
                     f"data_format={data_format}")


@tf_export("nn.conv2d")
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """2-D convolution of NHWC ``input`` with HWIO ``filters`` (grouped when the input has a
    multiple of the filters' input channels).

    Args:
        strides, dilations: an int or a list of 1, 2 or 4 ints.
        padding: "SAME", "VALID" or a list of 4 [before, after] pairs.
    """
    fmt, last = _conv_data_format(data_format, 4)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    padding, explicit = _padding_arg(padding, 4, last)
    return bind(CONV2D, x, w, strides=_expand(strides, 2, 4, last, "strides"), padding=padding,
                explicit_paddings=explicit, data_format=fmt,
                dilations=_expand(dilations, 2, 4, last, "dilations"))


@tf_export("nn.conv1d")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """1-D convolution of NWC (or NCW) ``input`` with WIO ``filters``: as TF, a Conv2D over a
    unit height (ExpandDims, Conv2D, Squeeze)."""
    from .array import expand_dims, squeeze

    fmt, last = _conv_data_format(data_format, 4)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    if isinstance(padding, (list, tuple)):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    axis = 1 if last else 2
    s = _expand(stride, 1, 3, last, "stride")
    d = _expand(dilations, 1, 3, last, "dilations")
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
    sv = [1] * n if strides is None else list(_expand(strides, n, n + 2, True, "strides")[1:-1])
    dv = [1] * n if dilations is None else list(
        _expand(dilations, n, n + 2, True, "dilations")[1:-1])
    if max(sv) > 1 and max(dv) > 1:
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                         f"Received: strides={np.array(sv)} and dilation_rate={np.array(dv)}")
    if n == 1:
        return conv1d(x, w, sv, padding, data_format or "NWC", dv)
    if n == 2:
        return conv2d(x, w, sv, padding, data_format or "NHWC", dv)
    if n == 3:
        return conv3d(x, w, [1, *sv, 1], padding, data_format or "NDHWC", [1, *dv, 1])
    raise ValueError(f"`filters` must be of rank 3, 4 or 5 (1 to 3 spatial dimensions). "
                     f"Received: filters.shape={w.shape}")


@tf_export("nn.conv3d")
def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):
    """3-D convolution of NDHWC ``input`` with DHWIO ``filters`` (``strides``: 5 ints;
    padding "SAME" or "VALID")."""
    fmt, last = _conv_data_format(data_format, 5)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    padding, _ = _padding_arg(padding, 5, last, allow_explicit=False)
    return bind(CONV3D, x, w, strides=_expand(strides, 3, 5, last, "strides", (5,)),
                padding=padding, data_format=fmt,
                dilations=_expand(dilations, 3, 5, last, "dilations", (1, 3, 5)))


@tf_export("nn.depthwise_conv2d")
def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None,
                     name=None):
    """Per-channel 2-D convolution: ``filter`` [H, W, C, M] gives C * M output channels.

    Args:
        strides: a list of 4 ints (TF requires all 4).
    """
    fmt, last = _conv_data_format(data_format, 4)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filter, dtype_hint=x.dtype)
    strides = tuple(int(s) for s in static_attr(strides, "strides"))
    if len(strides) != 4:
        raise errors.InvalidArgumentError(
            None, None, "Sliding window strides field must specify 4 or 5 dimensions "
            "[Op:DepthwiseConv2dNative]")
    padding, explicit = _padding_arg(padding, 4, last)
    return bind(DEPTHWISE, x, w, strides=strides, padding=padding, explicit_paddings=explicit,
                data_format=fmt, dilations=_expand(dilations, 2, 4, last, "dilations"))


# --- transposed convolutions: zero-stuff the input, then a stride-1 VALID convolution -----------
def _stuff(x, axis, stride, length):
    """Insert ``stride - 1`` zeros between the entries of ``x`` along ``axis`` (static sizes)."""
    from .array import expand_dims, pad, reshape

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
    from .array import pad, reverse, transpose

    rank = n + 2
    _, last = _conv_data_format(data_format, 5 if n == 3 else 4)
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype_hint=x.dtype)
    out = static_value(convert_to_tensor(output_shape))
    if out is None:
        raise NotImplementedError(f"{op_name}: output_shape must be known when the function is "
                                  f"traced")
    out = [int(v) for v in np.asarray(out).reshape(-1)]
    if len(out) != rank:
        raise ValueError(f"output_shape must have shape ({rank},), got ({len(out)},)")
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"{op_name}: padding must be 'SAME' or 'VALID'; got {padding!r}")
    padding = padding.upper()
    if not last:
        x = transpose(x, [0] + list(range(2, rank)) + [1])
        out = [out[0]] + out[2:] + [out[1]]
    s = _expand(strides, n, rank, True, "strides")[1:-1]
    d = _expand(dilations, n, rank, True, "dilations")[1:-1]
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


@tf_export("nn.pool")
def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,
         dilations=None, name=None):
    """N-d max or average pooling over ``window_shape`` (``pooling_type`` "MAX" or "AVG")."""
    n = len(window_shape)
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"Unsupported pooling type: {pooling_type}")
    if dilations is not None and any(int(d) != 1 for d in dilations):
        raise NotImplementedError("tf.nn.pool with dilations > 1")
    strides = [1] * n if strides is None else list(strides)
    fn = max_pool if pooling_type == "MAX" else avg_pool
    return fn(input, list(window_shape), strides, padding, data_format)


@tf_export("nn.local_response_normalization", "nn.lrn")
def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                                 name=None):
    """x / (bias + alpha * sum of x**2 over the 2 * depth_radius + 1 nearest channels) ** beta,
    for NHWC ``input`` (composed from public ops, so it is differentiable)."""
    from .array import pad

    x = convert_to_tensor(input)
    if x.shape.rank is not None and x.shape.rank != 4:
        raise invalid_argument(f"input must be 4-dimensional, got {x.shape.rank}", "LRN")
    channels = x.shape[-1]
    if channels is None:
        raise NotImplementedError("local_response_normalization needs a static channel count")
    r = int(depth_radius)
    sq = pad(x * x, [[0, 0], [0, 0], [0, 0], [r, r]])
    total = sq[..., 0:channels]
    for i in range(1, 2 * r + 1):
        total = total + sq[..., i:i + channels]
    return x / (bias + alpha * total) ** beta


def _pool_kernel(x, ksize, strides, padding, explicit, channels_last, average):
    rank = x.ndim
    if ksize[0] != 1 or strides[0] != 1:
        raise errors.UnimplementedError(None, None, "Pooling is not yet supported on the batch "
                                        "dimension.")
    axes = _spatial_axes(rank, channels_last)
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
    pads = _pads(padding, explicit, sizes, k, s, ones, axes)
    out = _out_sizes(sizes, k, s, ones, pads, padding)
    y = (_avg_pool if average else _max_pool)(x, k, s, pads, out)
    return y if channels_last else np.moveaxis(y, -1, 1)


def _max_pool(x, k, s, pads, out):
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win = _windows(_pad(x, pads, fill), out, k, s, [1] * len(k))
    lead = (slice(None),) * (1 + len(out))
    taps = itertools.product(*(range(v) for v in k))
    y = np.array(win[lead + next(taps)])
    for tap in taps:
        np.fmax(y, win[lead + tap], out=y)  # fmax: NaNs are skipped, as TF's MaxPool does
    return y


def _avg_pool(x, k, s, pads, out):
    acc = np.float32 if x.dtype.itemsize == 2 else x.dtype
    win = _windows(_pad(x, pads), out, k, s, [1] * len(k))
    lead = (slice(None),) * (1 + len(out))
    y = np.zeros((x.shape[0], *out, x.shape[-1]), acc)
    for tap in itertools.product(*(range(v) for v in k)):
        y += win[lead + tap]
    # Each window averages only its in-bounds elements: per-dim counts, multiplied.
    count = np.ones([1] * len(y.shape), acc)
    for i, (size, kk, ss, (before, _)) in enumerate(zip(x.shape[1:-1], k, s, pads)):
        start = np.arange(out[i]) * ss - before
        n = np.minimum(start + kk, size) - np.maximum(start, 0)
        shape = [1] * y.ndim
        shape[i + 1] = out[i]
        count = count * n.reshape(shape).astype(acc)
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
        axes = _spatial_axes(rank, last)
        k = [ksize[a] for a in axes]
        s = [strides[a] for a in axes]
        sizes = [dims[a] for a in axes]
        ones = [1] * len(axes)
        pads = _pads(padding, explicit_paddings, sizes, k, s, ones, axes)

        def graph_error(what):
            return node_error(op_name, what, input.dtype, {"ksize": ksize, "padding": padding,
                                                            "strides": strides}, (input,),
                              ("input",))

        out = _out_sizes(sizes, k, s, ones, pads, padding, graph_error)
        c = dims[-1] if last else dims[1]
        return TensorSpec([dims[0]] + out + [c] if last else [dims[0], c] + out, input.dtype)

    def kernel(input, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
        if input.ndim != rank:
            if rank == 4 and input.dtype in _ONEDNN_POOL:  # TF's oneDNN kernel's message
                raise invalid_argument("Input must be 4 or 5-dimensional")
            raise invalid_argument(f"input must be {rank}-dimensional: "
                                   f"{dims_text(input.shape)}")
        return _pool_kernel(input, ksize, strides, padding, explicit_paddings,
                            not data_format.startswith("NC"), average)

    return register(OpDef(op_name, infer, kernel, check=DtypeCheck(op_name, allowed, same=1)))


_ONEDNN_POOL = frozenset(d._np for d in (D.float32, D.bfloat16) if d is not None)
MAX_POOL = _pool_op("MaxPool", MAXPOOL_T, False, 4)
AVG_POOL = _pool_op("AvgPool", HALF_T, True, 4)
MAX_POOL3D = _pool_op("MaxPool3D", HALF_T, False, 5)
AVG_POOL3D = _pool_op("AvgPool3D", HALF_T, True, 5)


def _pool(opdef, input, ksize, strides, padding, data_format, rank, explicit_ok):
    x = convert_to_tensor(input)
    names = {4: ("NHWC", "NCHW"), 5: ("NDHWC", "NCDHW")}[rank]
    fmt = names[0] if data_format is None else data_format
    if fmt not in names:
        raise ValueError(f"`data_format` must be one of {names}. Received: data_format={fmt}")
    last = fmt == names[0]
    padding, explicit = _padding_arg(padding, rank, last, allow_explicit=explicit_ok)
    n = rank - 2
    attrs = {"ksize": _expand(ksize, n, rank, last, "ksize"),
             "strides": _expand(strides, n, rank, last, "strides"), "padding": padding,
             "data_format": fmt}
    if explicit:
        attrs["explicit_paddings"] = explicit
    return bind(opdef, x, **attrs)


@tf_export("nn.max_pool2d")
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """The maximum over each ``ksize`` window (padding "SAME", "VALID" or explicit pairs)."""
    return _pool(MAX_POOL, input, ksize, strides, padding, data_format, 4, True)


@tf_export("nn.avg_pool2d")
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """The mean over each window; with "SAME", padded positions are left out of the count."""
    return _pool(AVG_POOL, input, ksize, strides, padding, data_format, 4, False)


@tf_export("nn.max_pool3d")
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """3-D max pooling."""
    return _pool(MAX_POOL3D, input, ksize, strides, padding, data_format, 5, False)


@tf_export("nn.avg_pool3d")
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """3-D average pooling."""
    return _pool(AVG_POOL3D, input, ksize, strides, padding, data_format, 5, False)


def _pool1d(pool2d, input, ksize, strides, padding, data_format):
    """TF's 1-D pooling: ExpandDims, the 2-D op with a unit window dim, Squeeze."""
    from .array import expand_dims, squeeze

    if data_format not in ("NWC", "NCW", None):
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: "
                         f"data_format={data_format}")
    last = data_format != "NCW"
    axis = 1 if last else 2
    k = _expand(ksize, 1, 3, last, "ksize")
    s = _expand(strides, 1, 3, last, "strides")
    k2 = list(k[:axis]) + [1] + list(k[axis:])
    s2 = list(s[:axis]) + [1] + list(s[axis:])
    if isinstance(padding, (list, tuple)):
        padding = list(padding[:axis]) + [[0, 0]] + list(padding[axis:])
    out = pool2d(expand_dims(convert_to_tensor(input), axis), k2, s2, padding,
                 "NHWC" if last else "NCHW")
    return squeeze(out, [axis])


@tf_export("nn.max_pool1d")
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """1-D max pooling over NWC (or NCW) input."""
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format)


@tf_export("nn.avg_pool1d")
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """1-D average pooling over NWC (or NCW) input."""
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format)


_POOLS = {"max": (max_pool1d, max_pool2d, max_pool3d), "avg": (avg_pool1d, avg_pool2d, avg_pool3d)}


def _pool_by_rank(kind, input, ksize, strides, padding, data_format):
    x = convert_to_tensor(input)
    rank = x.shape.rank
    if rank not in (3, 4, 5):
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: "
                         f"input.shape={x.shape} of rank {rank}")
    pool = _POOLS[kind][rank - 3]
    if data_format is None:
        return pool(x, ksize, strides, padding)
    return pool(x, ksize, strides, padding, data_format)


@tf_export("nn.max_pool")
def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """Max pooling dispatched on the input's rank (3: 1-D, 4: 2-D, 5: 3-D)."""
    return _pool_by_rank("max", input, ksize, strides, padding, data_format)


@tf_export("nn.avg_pool")
def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """Average pooling dispatched on the input's rank (3: 1-D, 4: 2-D, 5: 3-D)."""
    return _pool_by_rank("avg", input, ksize, strides, padding, data_format)


# --- gradients --------------------------------------------------------------------------------
# Rules written with the public API (so they run eagerly, while tracing and under outer tapes),
# following TF's nn_grad.py. Convolutions and pooling are differentiated through their
# composition from strided slices (static shapes only).
from ..registry import get as _get_op  # noqa: E402


from ..autodiff.grad_util import public as _tf  # noqa: E402
from ..autodiff.grad_util import skip as _skip  # noqa: E402
from ..autodiff.grad_util import unbroadcast as _unbroadcast  # noqa: E402
from ..autodiff.grad_util import via_composite as _via_composite  # noqa: E402


def _times(cond, g):
    """g * cond, as TF's ReluGrad kernels compute it (so an inf gradient gives nan where cond
    is false, as in TF); cheaper than a select."""
    return g * _tf().cast(cond, g.dtype)

_ACTIVATIONS = {  # op: d/dx as a function of (x, y, g, attrs)
    "Relu":  lambda x, y, g, a: _times(_tf().math.greater(y, 0), g),
    "Relu6": lambda x, y, g, a: _times(_tf().math.logical_and(_tf().math.greater(x, 0),
                                                             _tf().math.less(x, 6)), g),
    "LeakyRelu": lambda x, y, g, a: _tf().where(_tf().math.greater(x, 0), g,
                                                g * a.get("alpha", 0.2)),
    "Elu":   lambda x, y, g, a: _tf().where(_tf().math.greater(x, 0), g, g * (y + 1)),
    "Selu":  lambda x, y, g, a: _tf().where(
        _tf().math.greater(x, 0), g * 1.0507009873554804934193349852946,
        g * (y + 1.0507009873554804934193349852946 * 1.6732632423543772848170429916717)),
    "Gelu":  lambda x, y, g, a: g * _gelu_derivative(x, a.get("approximate", False)),
    "Silu":  lambda x, y, g, a: g * _silu_derivative(x, a.get("beta", 1.0)),
}

def _gelu_derivative(x, approximate):
    tf = _tf()
    if approximate:
        c = np.sqrt(2 / np.pi)
        inner = c * (x + 0.044715 * x * x * x)
        t = tf.tanh(inner)
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)
    cdf = 0.5 * (1 + tf.math.erf(x / np.sqrt(2)))
    pdf = tf.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)
    return cdf + x * pdf

def _silu_derivative(x, beta):
    s = _tf().sigmoid(beta * x)
    return s * (1 + beta * x * (1 - s))

def _activation_rule(derivative):
    return lambda op, g: derivative(op.inputs[0], op.outputs[0], g, op.attrs)

def _softmax_grad(op, g):
    tf = _tf()
    y, axis = op.outputs[0], op.attrs.get("axis", -1)
    return (g - tf.reduce_sum(g * y, axis, keepdims=True)) * y

def _log_softmax_grad(op, g):
    tf = _tf()
    y, axis = op.outputs[0], op.attrs.get("axis", -1)
    return g - tf.exp(y) * tf.reduce_sum(g, axis, keepdims=True)

def _softmax_xent_grad(op, g_loss, g_backprop):
    """TF's rule: the op's own backprop output times the loss gradient, plus the second-order
    term through g_backprop; the labels get -log_softmax * g_loss."""
    tf = _tf()
    logits, labels = op.inputs
    axis = op.attrs.get("axis", -1)
    backprop = op.outputs[1]
    g = tf.expand_dims(g_loss, axis)
    grad = g * backprop
    if not _is_zero(g_backprop):
        softmax = tf.nn.softmax(logits, axis)
        grad += (g_backprop - tf.reduce_sum(g_backprop * softmax, axis, keepdims=True)) * softmax
    grad = _unbroadcast(grad, logits, labels)
    g_labels = None
    if not _skip(op, 1) and labels.dtype.is_floating:
        g_labels = _unbroadcast(g * -tf.nn.log_softmax(logits, axis), labels, logits)
    return grad, g_labels

def _is_zero(t):
    """True when t was made as zeros for an unused output (the backward walk's ZerosLike)."""
    value = getattr(t, "_value", None)
    if value is not None:
        return not np.any(value)
    op = getattr(t, "op", None)
    return op is not None and op.type == "ZerosLike"

def _sparse_xent_grad(op, g_loss, g_backprop):
    tf = _tf()
    logits = op.inputs[0]
    grad = tf.expand_dims(g_loss, -1) * op.outputs[1]
    if not _is_zero(g_backprop):
        softmax = tf.nn.softmax(logits)
        grad += (g_backprop - tf.reduce_sum(g_backprop * softmax, -1, keepdims=True)) * softmax
    return grad, None

def _sigmoid_xent_grad(op, g):
    tf = _tf()
    logits, labels = op.inputs
    return g * (tf.sigmoid(logits) - labels), g * -logits

def _l2_loss_grad(op, g):
    return op.inputs[0] * g

def _bias_add_grad(op, g):
    tf = _tf()
    value = op.inputs[0]
    rank = value.shape.rank
    if op.attrs.get("data_format", "NHWC") == "NCHW" and rank and rank > 2:
        axes = [0] + list(range(2, rank))
    else:
        axes = list(range(rank - 1)) if rank is not None else None
    if axes is None:
        raise NotImplementedError("the gradient of bias_add needs a value of known rank")
    return g, tf.reduce_sum(g, axes)

def _moments_grad(op, g_mean, g_var):
    tf = _tf()
    x = op.inputs[0]
    axes, keep = op.attrs["axes"], op.attrs.get("keepdims", False)
    mean = op.outputs[0]
    from ..autodiff.grad_util import kept_shape, reduced_count, reduced_grad

    n = reduced_count(x, op.outputs[0])
    n = n if isinstance(n, int) else tf.cast(n, x.dtype)
    kept_mean = mean if keep else tf.reshape(mean, kept_shape(x, axes))
    gm = reduced_grad(g_mean / n, x, axes, keep)
    gv = reduced_grad(g_var * (2.0 / n) if isinstance(n, int) else g_var * 2.0 / n, x, axes,
                      keep)
    return gm + gv * (x - kept_mean)

def _batch_norm_grad(op, g):
    """y = x * inv + (offset - mean * inv), inv = scale / sqrt(variance + eps)."""
    tf = _tf()
    x, mean, variance, *rest = op.inputs
    a = op.attrs
    offset = rest[0] if a["has_offset"] else None
    scale = rest[-1] if a["has_scale"] else None
    rsqrt = tf.math.rsqrt(variance + a["variance_epsilon"])
    inv = rsqrt * scale if scale is not None else rsqrt
    gx = _unbroadcast(g * inv, x, mean, variance, *rest)
    gmean = _unbroadcast(-g * inv, mean, x, variance, *rest)
    d_inv = _unbroadcast(g * (x - mean), variance, x, mean, *rest)
    gvar = d_inv * (scale if scale is not None else 1.0) * -0.5 * rsqrt / (
        variance + a["variance_epsilon"])
    gvar = _unbroadcast(gvar, variance, x, mean, *rest)
    out = [gx, gmean, gvar]
    if offset is not None:
        out.append(_unbroadcast(g, offset, x, mean, variance, *rest))
    if scale is not None:
        out.append(_unbroadcast(g * (x - mean) * rsqrt, scale, x, mean, variance, *rest))
    return out

def _dropout_grad(op, g):
    """Kept elements scale their gradient by 1 / (1 - rate); dropped ones get 0. The kept mask
    is read back from the output (y == x * scale)."""
    tf = _tf()
    x, rate = op.inputs
    y = op.outputs[0]
    scale = op.attrs.get("scale")
    if scale is None:
        scale = 1 / (1 - tf.cast(rate, x.dtype))
    kept = tf.math.equal(y, x * scale)
    return tf.where(kept, g * scale, tf.zeros_like(g)), None

def _layout(x, data_format):
    rank = x.shape.rank
    last = not data_format.startswith("NC")
    if rank is None or not x.shape.is_fully_defined():
        raise NotImplementedError("the gradients of convolutions and pooling need static shapes")
    axes = tuple(range(1, rank - 1)) if last else tuple(range(2, rank))
    return rank, last, axes

def _channels_last(x, last):
    tf = _tf()
    rank = x.shape.rank
    return x if last else tf.transpose(x, [0] + list(range(2, rank)) + [1])

def _channels_back(y, last):
    tf = _tf()
    rank = y.shape.rank
    return y if last else tf.transpose(y, [0, rank - 1] + list(range(1, rank - 1)))

def _taps(xp, k, s, d, out):
    """For each kernel offset, the strided slice of the padded input it meets: [N, *out, C]."""
    import itertools

    tf = _tf()
    for tap in itertools.product(*(range(v) for v in k)):
        begin = [0] + [t * dd for t, dd in zip(tap, d)] + [0]
        end = [xp.shape[0]] + [t * dd + (o - 1) * ss + 1 for t, dd, o, ss in
                               zip(tap, d, out, s)] + [xp.shape[-1]]
        yield tap, tf.strided_slice(xp, begin, end, [1] + list(s) + [1])

def _spatial(x, padding, explicit, k, s, d, axes, pad_value=0.0):
    """x (channels last) padded as the op pads it, and the output's spatial sizes."""
    tf = _tf()
    sizes = x.shape.as_list()[1:-1]
    pads = _pads(padding, explicit, sizes, k, s, d, axes)  # axes: explicit_paddings' layout
    out = _out_sizes(sizes, k, s, d, pads, padding)
    if any(p != (0, 0) for p in pads):
        x = tf.pad(x, [[0, 0]] + [list(p) for p in pads] + [[0, 0]],
                   constant_values=pad_value)
    return x, out, pads

def _conv_composite(depthwise):
    def composite(x, w, strides, padding, explicit_paddings=(), data_format="NHWC",
                  dilations=None, **extra):
        tf = _tf()
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
                terms.append(tf.reshape(tf.expand_dims(window, -1) * wt,
                                        [-1] + out + [cin * cout]))
            else:
                terms.append(tf.tensordot(window, wt, [[rank - 1], [0]]))
        return _channels_back(tf.add_n(terms), last)

    return composite

def _pool_composite(average):
    def composite(x, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
        tf = _tf()
        _, last, axes = _layout(x, data_format)
        k, s = [ksize[a] for a in axes], [strides[a] for a in axes]
        ones = [1] * len(k)
        xl = _channels_last(x, last)
        fill = 0.0 if average else -np.inf
        xp, out, pads = _spatial(xl, padding, explicit_paddings, k, s, ones, axes, fill)
        windows = tf.stack([w for _, w in _taps(xp, k, s, ones, out)])
        if average:
            count = np.ones([1] * (len(k) + 2))
            for i, (size, kk, ss, (before, _)) in enumerate(zip(xl.shape[1:-1], k, s, pads)):
                start = np.arange(out[i]) * ss - before
                n = np.minimum(start + kk, size) - np.maximum(start, 0)
                shape = [1] * (len(k) + 2)
                shape[i + 1] = out[i]
                count = count * n.reshape(shape)
            y = tf.reduce_sum(windows, 0) / tf.constant(count, x.dtype)
        else:  # the first maximum of each window takes the gradient, as TF's MaxPoolGrad
            first = tf.one_hot(tf.argmax(windows, 0), int(np.prod(k)), axis=0, dtype=x.dtype)
            y = tf.reduce_sum(windows * tf.stop_gradient(first), 0)
        return _channels_back(y, last)

    return composite


_GRADS = {
    "Softmax": _softmax_grad,
    "LogSoftmax": _log_softmax_grad,
    "SoftmaxCrossEntropyWithLogits": _softmax_xent_grad,
    "SparseSoftmaxCrossEntropyWithLogits": _sparse_xent_grad,
    "SigmoidCrossEntropyWithLogits": _sigmoid_xent_grad,
    "L2Loss": _l2_loss_grad,
    "BiasAdd": _bias_add_grad,
    "Moments": _moments_grad,
    "BatchNormalization": _batch_norm_grad,
    "Dropout": _dropout_grad,
    "Conv2D": _via_composite(_conv_composite(False)),
    "Conv3D": _via_composite(_conv_composite(False)),
    "DepthwiseConv2dNative": _via_composite(_conv_composite(True)),
    "MaxPool": _via_composite(_pool_composite(False)),
    "MaxPool3D": _via_composite(_pool_composite(False)),
    "AvgPool": _via_composite(_pool_composite(True)),
    "AvgPool3D": _via_composite(_pool_composite(True)),
}
_GRADS.update({name: _activation_rule(d) for name, d in _ACTIVATIONS.items()})
for _name, _rule in _GRADS.items():
    _get_op(_name).grad = _rule
