"""Softmax and log-softmax, and the cross-entropy losses of logits (sigmoid, softmax and sparse
softmax)."""

import numpy as np

from ... import errors
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_fn_error, shape_text
from ...registry import DtypeCheck, OpDef, define_op, register
from ...tensor import TensorSpec
from .._base import INDEX, broadcast_shape, check_dtypes
from .._args import int_attr
from ._util import HALF_T, in_float32


def _shifted(x, axis):
    return x - np.max(x, axis=axis, keepdims=True, initial=-np.inf)


def _log_probs(x, axis):
    """log(softmax(x)) over ``axis``, from the shifted logits (no overflow)."""
    log_p = _shifted(x, axis)
    return log_p - np.log(np.sum(np.exp(log_p), axis=axis, keepdims=True))


def _softmax_op(name, log):
    """Register Softmax or LogSoftmax. TF's ops work on the last axis and the Python wrapper
    transposes; an ``axis`` attr saves that."""

    def infer(logits, axis=-1):
        check_dtypes(name, (logits,), HALF_T, ("logits",))
        if logits.shape.rank == 0:
            raise shape_fn_error(name, "Shape must be at least rank 1 but is rank 0", logits.dtype,
                             {}, (logits,), ("logits",))
        return TensorSpec(logits.shape, logits.dtype)

    def kernel(logits, axis=-1):
        if logits.ndim == 0:
            raise invalid_argument("logits must have >= 1 dimension, got []")
        with np.errstate(all="ignore"):
            s = _shifted(logits, axis)
            e = np.exp(s)
            total = np.sum(e, axis=axis, keepdims=True)
            return (s - np.log(total)) if log else (e / total)

    return register(OpDef(name, infer, kernel, check=DtypeCheck(name, HALF_T, same=1)))


SOFTMAX = _softmax_op("Softmax", log=False)
LOG_SOFTMAX = _softmax_op("LogSoftmax", log=True)


def _softmax_axis(x, axis):
    axis = -1 if axis is None else int_attr(axis, "axis")
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


@define_op("SoftmaxCrossEntropyWithLogits")
class SoftmaxCrossEntropyWithLogits:
    """Per-example softmax cross-entropy over ``axis``, and its gradient (softmax - labels).

    TF's op takes 2-D inputs and the Python wrapper reshapes/transposes; ``axis`` saves that.
    """

    check = DtypeCheck("SoftmaxCrossEntropyWithLogits", HALF_T, same=1)

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
                                   f"{shape_text(features.shape)} labels_size="
                                   f"{shape_text(labels.shape)}") from None
        x = in_float32(features)
        z = labels.astype(x.dtype, copy=False)
        with np.errstate(all="ignore"):
            log_p = _log_probs(x, axis)
            # 0 * -inf is nan, as in TF; 0 - log_p (not a negated sum) gives TF's +0.0 for a
            # sure class
            loss = np.sum(z * (0.0 - log_p), axis=axis)
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
    axis = int_attr(axis, "axis", logits.shape.rank)
    rank = logits.shape.rank
    if rank is not None and rank > 0:
        axis = axis % rank - rank
    loss, _ = bind(SoftmaxCrossEntropyWithLogits, logits, labels, axis=axis)
    return loss


@define_op("SparseSoftmaxCrossEntropyWithLogits")
class SparseSoftmaxCrossEntropyWithLogits:
    """Softmax cross-entropy against integer class ``labels`` (any leading dims), and its
    gradient."""

    check = DtypeCheck("SparseSoftmaxCrossEntropyWithLogits", HALF_T, same=1,
                       then=DtypeCheck("SparseSoftmaxCrossEntropyWithLogits", INDEX, same=1,
                                       first=1, attr="Tlabels"))

    def infer(features, labels):
        check_dtypes("SparseSoftmaxCrossEntropyWithLogits", (features,), HALF_T, ("features",))
        check_dtypes("SparseSoftmaxCrossEntropyWithLogits", (labels,), INDEX, ("labels",))
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
        x = in_float32(features)
        with np.errstate(all="ignore"):
            log_p = _log_probs(x, -1)
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
