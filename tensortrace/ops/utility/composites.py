"""Small functions TF also builds from other public ops (so gradients flow through them):
``matvec``, ``in_top_k``, ``polyval``, weighted and Poisson losses, loss scaling for custom
training loops, segment means, ``zero_fraction``, ``crelu``, ``normalize`` and the
space/depth rearrangements."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...convert import convert_to_tensor
from .._args import int_arg
from ..array.creation import ones, ones_like, zeros_like
from ..array.joining import concat, stack
from ..array.reshaping import expand_dims, reshape, squeeze, transpose
from ..array.shapes import rank, shape
from ..indexing.gathering import gather
from ..indexing.segment import unsorted_segment_sum
from ..linalg.norms import norm
from ..linalg.products import matmul
from ..math.arithmetic import abs as abs_
from ..math.arithmetic import divide_no_nan, maximum
from ..math.casting import cast
from ..math.compare import equal, greater, is_finite, less, logical_and
from ..math.select import where
from ..math.transcendental import exp, log, log1p, sqrt
from ..nn.activations import relu
from ..reduce import reduce_all, reduce_mean, reduce_sum


@tf_export("linalg.matvec")
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """``a @ b`` for a (batch of) matrix ``a`` and vector ``b``: ``matmul`` on ``b[..., None]``."""
    b = expand_dims(convert_to_tensor(b), -1)
    return squeeze(matmul(a, b, transpose_a=transpose_a, adjoint_a=adjoint_a), axis=-1)


# --- in_top_k, polyval ---------------------------------------------------------------------------
@tf_export("math.in_top_k", "nn.in_top_k")
def in_top_k(targets, predictions, k, name=None):
    """Whether each row's target class is among its ``k`` highest predictions (ties count as in;
    an out-of-range target or a non-finite prediction in the row gives False), as TF's InTopKV2."""
    predictions = convert_to_tensor(predictions, D.float32)
    targets = convert_to_tensor(targets)
    if targets.dtype not in (D.int32, D.int64):
        raise TypeError(f"Value passed to parameter 'targets' has DataType {targets.dtype.name} "
                        f"not in list of allowed values: int32, int64")
    k = convert_to_tensor(k, targets.dtype)
    classes = cast(shape(predictions)[1], targets.dtype)
    valid = logical_and(targets >= 0, less(targets, classes))
    picked = gather(predictions, where(valid, targets, 0 * targets), axis=1, batch_dims=1)
    more = reduce_sum(cast(greater(predictions, expand_dims(picked, 1)), targets.dtype), 1)
    ok = logical_and(logical_and(valid, is_finite(picked)),
                     reduce_all(is_finite(predictions), 1))
    return logical_and(ok, less(more, k))


@tf_export("math.polyval")
def polyval(coeffs, x, name=None):
    """``coeffs[0] * x**(n-1) + ... + coeffs[-1]`` by Horner's rule (zeros_like(x) if empty)."""
    if not isinstance(coeffs, (list, tuple)):  # a ValueError, as TF raises
        raise ValueError(f"Argument coeffs must be list type found {type(coeffs)}.")  # noqa: TRY004
    x = convert_to_tensor(x)
    if not coeffs:
        return zeros_like(x)
    coeffs = [convert_to_tensor(c) for c in coeffs]
    p = coeffs[0]
    for c in coeffs[1:]:
        p = c + p * x
    return p


# --- losses --------------------------------------------------------------------------------------
@tf_export("nn.weighted_cross_entropy_with_logits")
def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Sigmoid cross-entropy with the positive term weighted by ``pos_weight`` (TF's stable
    form: (1 - z) x + (1 + (q - 1) z) (log1p(exp(-|x|)) + max(-x, 0)))."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, logits.dtype)
    pos_weight = convert_to_tensor(pos_weight, logits.dtype)
    log_weight = 1 + (pos_weight - 1) * labels
    return (1 - labels) * logits + log_weight * (log1p(exp(-abs_(logits))) + relu(-logits))


@tf_export("nn.log_poisson_loss")
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - log_input * targets (+ Stirling's term for targets > 1 when
    ``compute_full_loss``)."""
    log_input = convert_to_tensor(log_input)
    targets = convert_to_tensor(targets, log_input.dtype)
    result = exp(log_input) - log_input * targets
    if compute_full_loss:
        point_five = convert_to_tensor(0.5, targets.dtype)
        two_pi = convert_to_tensor(2 * np.pi, targets.dtype)
        stirling = targets * log(targets) - targets + point_five * log(two_pi * targets)
        return result + where(greater(targets, ones_like(targets)), stirling,
                              zeros_like(targets))
    return result


@tf_export("nn.compute_average_loss")
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size (0 when that is 0); the batch
    size defaults to the first dimension (tensortrace runs one replica)."""
    loss = convert_to_tensor(per_example_loss)
    dtype = loss.dtype
    if loss.shape.rank == 0:
        raise ValueError(f"Invalid value passed for `per_example_loss`. Expected a tensor with at "
                         f"least rank 1. Received per_example_loss={loss} with rank 0")
    if sample_weight is not None:
        weight = cast(convert_to_tensor(sample_weight), D.float32)
        loss = cast(loss, D.float32)
        diff = None if weight.shape.rank is None or loss.shape.rank is None else \
            weight.shape.rank - loss.shape.rank
        if diff == 1 and weight.shape[-1] == 1:
            weight = squeeze(weight, [-1])
        elif diff == -1:
            weight = expand_dims(weight, -1)
        loss = cast(loss * weight, dtype)
    if global_batch_size is None:
        global_batch_size = shape(loss)[0] * _num_replicas("compute_average_loss")
    global_batch_size = convert_to_tensor(global_batch_size)
    if global_batch_size.shape.rank not in (None, 0):
        raise ValueError(f"global_batch_size must be scalar.  Expected shape () but got "
                         f"{global_batch_size.shape}")
    if not global_batch_size.dtype.is_integer:
        raise TypeError(f'global_batch_size must be an integer..  Expected "x" to be integer '
                        f'type.  Found: tensor of dtype {global_batch_size.dtype}')
    return divide_no_nan(reduce_sum(loss), cast(global_batch_size, dtype))


@tf_export("nn.scale_regularization_loss")
def scale_regularization_loss(regularization_loss):
    """The summed regularization loss divided by the number of replicas."""
    return reduce_sum(regularization_loss) / _num_replicas("scale_regularization_loss")


#: Set by tf.distribute: name -> the replicas in sync of the current strategy (TF's
#: RuntimeError in its cross-replica context); one replica without it
replicas_in_sync = [None]


def _num_replicas(name):
    return 1 if replicas_in_sync[0] is None else replicas_in_sync[0](name)


# --- segment means, zero_fraction, crelu, normalize ----------------------------------------------
def _segment_counts(data, segment_ids, num_segments):
    """max(count of rows per segment, 1), shaped to broadcast against the segment sums."""
    n = unsorted_segment_sum(ones(shape(segment_ids), data.dtype), segment_ids, num_segments)
    extra = rank(data) - rank(segment_ids)
    num = cast(convert_to_tensor(num_segments), D.int32)
    n = reshape(n, concat([expand_dims(num, 0), ones(expand_dims(extra, 0), D.int32)], 0))
    return maximum(n, convert_to_tensor(1, data.dtype))


@tf_export("math.unsorted_segment_mean")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of the rows of ``data`` in each segment (0 for empty segments)."""
    data = convert_to_tensor(data)
    return unsorted_segment_sum(data, segment_ids, num_segments) / _segment_counts(
        data, segment_ids, num_segments)


@tf_export("math.unsorted_segment_sqrt_n")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The sum of each segment's rows divided by sqrt(their count)."""
    data = convert_to_tensor(data)
    return unsorted_segment_sum(data, segment_ids, num_segments) / sqrt(_segment_counts(
        data, segment_ids, num_segments))


@tf_export("math.zero_fraction", "nn.zero_fraction")
def zero_fraction(value, name=None):
    """The fraction of zeros in ``value`` (float32)."""
    value = convert_to_tensor(value)
    return reduce_mean(cast(equal(value, convert_to_tensor(0, value.dtype)), D.float32))


@tf_export("nn.crelu")
def crelu(features, name=None, axis=-1):
    """concat([relu(x), relu(-x)], axis)."""
    features = convert_to_tensor(features)
    return concat([relu(features), relu(-features)], axis)


@tf_export("linalg.normalize")
def normalize(tensor, ord="euclidean", axis=None, name=None):
    """(tensor / norm(tensor), norm(tensor)), the norm kept broadcastable."""
    tensor = convert_to_tensor(tensor)
    n = norm(tensor, ord=ord, axis=axis, keepdims=True)
    return tensor / n, n


# --- space_to_depth, depth_to_space --------------------------------------------------------------
def _move_blocks(input, block_size, data_format, op, blocked, result):
    """Reshape NHWC ``input`` to ``blocked(n, h, w, c, b)`` (six dims), swap its dims 2 and 3,
    and reshape to ``result(n, h, w, c, b)``: TF's rearrangement of b x b spatial blocks."""
    if data_format not in ("NHWC", "NCHW", "NCHW_VECT_C"):
        raise ValueError(f"Unknown data_format for tf.nn.{op}: {data_format!r} (NHWC, NCHW or "
                         f"NCHW_VECT_C)")
    if data_format != "NHWC":
        raise NotImplementedError(f"tf.nn.{op} supports NHWC only")
    x = convert_to_tensor(input)
    b = int_arg(block_size, "block_size")
    n, h, w, c = (shape(x)[i] for i in range(4))
    y = transpose(reshape(x, stack(blocked(n, h, w, c, b))), [0, 1, 3, 2, 4, 5])
    return reshape(y, stack(result(n, h, w, c, b)))


@tf_export("nn.space_to_depth")
def space_to_depth(input, block_size, data_format="NHWC", name=None):
    """Move ``block_size`` x ``block_size`` spatial blocks into the channels (NHWC)."""
    return _move_blocks(input, block_size, data_format, "space_to_depth",
                        lambda n, h, w, c, b: [n, h // b, b, w // b, b, c],
                        lambda n, h, w, c, b: [n, h // b, w // b, b * b * c])


@tf_export("nn.depth_to_space")
def depth_to_space(input, block_size, data_format="NHWC", name=None):
    """Move channels into ``block_size`` x ``block_size`` spatial blocks (NHWC)."""
    return _move_blocks(input, block_size, data_format, "depth_to_space",
                        lambda n, h, w, c, b: [n, h, w, b, b, c // (b * b)],
                        lambda n, h, w, c, b: [n, h * b, w * b, c // (b * b)])
