"""Statistics and normalization: l2_loss, bias_add, moments, batch_normalization and local
response normalization."""

import numpy as np

from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_fn_error, shape_text
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec
from .._base import broadcast_shape, check_dtypes, dtypes_named
from ..array.padding import pad
from .._args import axis_attr, float_arg, int_arg
from ._util import HALF_T, in_float32

NUMBER_T = dtypes_named("float32 float64 int32 uint8 int16 int8 complex64 int64 bfloat16 uint16 "
                        "complex128 float16 uint32 uint64")


@define_op("L2Loss")
class L2Loss:
    """sum(t ** 2) / 2."""

    check = DtypeCheck("L2Loss", HALF_T, same=1)

    def infer(t):
        check_dtypes("L2Loss", (t,), HALF_T, ("t",))
        return TensorSpec([], t.dtype)

    def kernel(t):
        x = in_float32(t)
        with np.errstate(all="ignore"):
            return np.asarray(np.sum(x * x) / 2).astype(t.dtype)[()]


@tf_export("nn.l2_loss")
def l2_loss(t, name=None):
    """Half the sum of squares of ``t``."""
    return bind(L2Loss, convert_to_tensor(t))


def _channel_axis(rank, data_format):
    return 1 if data_format == "NCHW" and rank > 2 else rank - 1


@define_op("BiasAdd")
class BiasAdd:
    """value + bias along the channel dimension (last for NHWC, the second for NCHW)."""

    check = DtypeCheck("BiasAdd", NUMBER_T, same=2)

    def infer(value, bias, data_format="NHWC"):
        dtype = check_dtypes("BiasAdd", (value, bias), NUMBER_T, ("value", "bias"))
        dims = value.shape.dims
        if dims is not None:
            if len(dims) < 2:
                raise shape_fn_error("BiasAdd", f"Shape must be at least rank 2 but is rank "
                                 f"{len(dims)}", dtype, {"data_format": data_format},
                                 (value, bias), ("value", "bias"))
            c = dims[_channel_axis(len(dims), data_format)]
            b = bias.shape.dims[0] if bias.shape.rank == 1 else None
            if c is not None and b is not None and c != b:
                raise shape_fn_error("BiasAdd", f"Dimensions must be equal, but are {c} and {b}",
                                 dtype, {"data_format": data_format}, (value, bias),
                                 ("value", "bias"))
        return TensorSpec(value.shape, dtype)

    def kernel(value, bias, data_format="NHWC"):
        if value.ndim < 2:
            raise invalid_argument(f"Input tensor must be at least 2D: {shape_text(value.shape)}")
        if bias.ndim != 1:
            raise invalid_argument(f"Biases must be 1D: {shape_text(bias.shape)}")
        axis = _channel_axis(value.ndim, data_format)
        if value.shape[axis] != bias.shape[0]:
            raise invalid_argument(f"Must provide as many biases as the last dimension of the "
                                   f"input tensor: {shape_text(bias.shape)} vs. "
                                   f"{shape_text(value.shape)}")
        shape = [1] * value.ndim
        shape[axis] = bias.shape[0]
        return value + bias.reshape(shape)


@tf_export("nn.bias_add")
def bias_add(value, bias, data_format=None, name=None):
    """Add the 1-D ``bias`` along the channel dimension of ``value``.

    Raises:
        ValueError: for a ``data_format`` not of the form ``N...C`` or ``NC...``.
    """
    if data_format is not None and not isinstance(data_format, str):
        raise TypeError(f"`data_format` must be a string, got {data_format!r}")
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
        y = in_float32(x) if x.dtype.kind == "f" else x
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
    axes = axis_attr(axes, what="axes")  # the reduction checks the range
    return bind(Moments, x, axes=axes, keepdims=bool(keepdims))


# TF builds batch_normalization from Rsqrt and Muls: the parameters share one dtype, and a
# mismatch is reported by Rsqrt (input indices counted from ``mean``).
_X_CHECK = DtypeCheck("BatchNormalization", HALF_T, same=1)
_PARAMS_CHECK = DtypeCheck("Rsqrt", HALF_T, same=None)


@define_op("BatchNormalization")
class BatchNormalization:
    """(x - mean) * scale / sqrt(variance + eps) + offset (TF's Rsqrt/Mul/Sub/AddV2 as one op).

    Inputs: x, mean, variance, then offset and scale when ``has_offset``/``has_scale``.
    """

    def check(arrays):
        _X_CHECK(arrays)  # x alone (same=1)
        _PARAMS_CHECK(arrays[1:])

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
                variance_epsilon=float_arg(variance_epsilon, "variance_epsilon"),
                has_offset=offset is not None, has_scale=scale is not None)


# --- FusedBatchNormV3 (Keras 2 models' batch normalization, in graphs TF wrote) ---------------
FUSED_T = dtypes_named("float16 bfloat16 float32")


def _fused_axes(rank, data_format):
    """(reduction axes, channel axis) of a fused batch norm's input."""
    channel = 1 if data_format.startswith("NC") else rank - 1
    return tuple(a for a in range(rank) if a != channel), channel


@define_op("FusedBatchNormV3")
class FusedBatchNormV3:
    """Batch normalization of x by its batch statistics (``is_training``) or by the given
    ``mean``/``variance``: outputs y, the (running) batch mean and unbiased variance, the batch
    mean and biased variance TF keeps for the gradient, and TF's unused scalar."""

    check = DtypeCheck("FusedBatchNormV3", FUSED_T, same=1)

    def infer(x, scale, offset, mean, variance, epsilon=1e-4, exponential_avg_factor=1.0,
              data_format="NHWC", is_training=True):
        check_dtypes("FusedBatchNormV3", (x,), FUSED_T, ("x",))
        check_dtypes("FusedBatchNormV3", (scale, offset, mean, variance), dtypes_named("float32"),
                     ("scale", "offset", "mean", "variance"))
        rank = x.shape.rank
        if rank is not None and rank not in (4, 5):
            raise ValueError(f"Shape must be rank 4 but is rank {rank} for "
                             f"'{{{{node FusedBatchNormV3}}}}'")
        c = None if rank is None else x.shape.dims[_fused_axes(rank, data_format)[1]]
        for t in (scale, offset, mean, variance):
            if t.shape.rank == 1 and t.shape.dims[0] is not None:
                c = t.shape.dims[0] if c is None else c
        vec = TensorSpec([c], scale.dtype)
        return (TensorSpec(x.shape, x.dtype), vec, vec, vec, vec, TensorSpec([], scale.dtype))

    def kernel(x, scale, offset, mean, variance, epsilon=1e-4, exponential_avg_factor=1.0,
               data_format="NHWC", is_training=True):
        if x.ndim not in (4, 5):
            raise invalid_argument(f"input must be 4 or 5-dimensional{shape_text(x.shape)}")
        axes, channel = _fused_axes(x.ndim, data_format)
        c = x.shape[channel]
        for what, t in (("scale", scale), ("offset", offset)) + (
                () if is_training else (("mean", mean), ("variance", variance))):
            if t.ndim != 1 or t.shape[0] != c:
                raise invalid_argument(f"{what} must have the same number of elements as the "
                                       f"channels of x, got {t.size} and {c}")
        shape = [1] * x.ndim
        shape[channel] = c
        xf = x.astype(np.float32)
        with np.errstate(all="ignore"):
            if is_training:
                batch_mean = xf.mean(axis=axes)
                batch_var = np.square(xf - batch_mean.reshape(shape)).mean(axis=axes)
                n = x.size // max(c, 1)
                unbiased = batch_var * (n / (n - 1) if n > 1 else 1.0)
                f = np.float32(exponential_avg_factor)
                running_mean, running_var = batch_mean, unbiased
                if exponential_avg_factor != 1.0:
                    running_mean = (1 - f) * mean + f * batch_mean
                    running_var = (1 - f) * variance + f * unbiased
                use_mean, use_var = batch_mean, batch_var
            else:
                running_mean, running_var = mean, variance
                batch_mean, batch_var = use_mean, use_var = mean, variance
            inv = (scale / np.sqrt(use_var + np.float32(epsilon))).reshape(shape)
            y = (xf - use_mean.reshape(shape)) * inv + offset.reshape(shape)
        f32 = np.float32
        return (y.astype(x.dtype), running_mean.astype(f32), running_var.astype(f32),
                batch_mean.astype(f32), batch_var.astype(f32), f32(0))


@tf_export("nn.local_response_normalization", "nn.lrn")
def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                                 name=None):
    """x / (bias + alpha * sum of x**2 over the 2 * depth_radius + 1 nearest channels) ** beta,
    for NHWC ``input`` (composed from public ops, so it is differentiable)."""
    x = convert_to_tensor(input)
    if x.shape.rank is not None and x.shape.rank != 4:
        raise invalid_argument(f"input must be 4-dimensional, got {x.shape.rank}", "LRN")
    channels = x.shape[-1]
    if channels is None:
        raise NotImplementedError("local_response_normalization needs a static channel count")
    r = int_arg(depth_radius, "depth_radius")
    if r >= 2**31:
        raise invalid_argument(f"depth_radius = {r} larger than int max", "LRN")
    r = min(r, channels)  # channels further than the depth are padding zeros: same sums
    sq = pad(x * x, [[0, 0], [0, 0], [0, 0], [r, r]])
    total = sq[..., 0:channels]
    for i in range(1, 2 * r + 1):
        total = total + sq[..., i:i + channels]
    return x / (bias + alpha * total) ** beta
