"""Reversing and masking along sequences: reverse (ReverseV2), and the composites
reverse_sequence and sequence_mask."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...composite import fallback
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_fn_error
from ...registry import DtypeCheck, define_op
from ...registry import get as get_op
from ...tensor import TensorSpec, static_value
from .._args import arg_error, axis_attr, int_attr, static_ints
from .._base import INDEX, graph_error
from ..math.arithmetic import maximum
from ..math.casting import cast
from ..math.compare import less
from ..math.select import where
from .ranges import Range
from .ranges import range as tf_range
from .reshaping import expand_dims, transpose
from .shapes import shape


@define_op("ReverseV2")
class ReverseV2:
    """Reverse the order of elements along each of ``axis``."""

    def infer(tensor, axis):
        rank = tensor.shape.rank
        if rank is not None:
            for i, a in enumerate(axis):
                if not -rank <= a < rank:
                    raise graph_error("ReverseV2", f"'axis'[{i}] = {a} is out of valid range "
                                      f"[0, {rank - 1}", tensor.shape, [len(axis)])
        return TensorSpec(tensor.shape, tensor.dtype)

    def kernel(tensor, axis):
        n = np.ndim(tensor)
        seen = set()
        for i, a in enumerate(axis):
            if not -n <= a < n:
                raise invalid_argument(f"'axis'[{i}] = {a} is out of valid range [0, {n - 1}")
            if a % n in seen:
                raise invalid_argument(f"axis {a % n} specified more than once.")
            seen.add(a % n)
        return np.flip(tensor, axis) if axis else tensor


@tf_export("reverse")
def reverse(tensor, axis, name=None):
    """``tensor`` with the order of elements reversed along each dimension in ``axis``."""
    if isinstance(axis, (int, np.integer)) or np.ndim(static_ints(axis, "axis")) == 0:
        raise arg_error("ReverseV2", "'dims' must be 1-dimension, not 0")
    try:
        x = convert_to_tensor(tensor)
    except (TypeError, ValueError):  # a composite (ragged) has its own form
        return fallback(reverse, (tensor, axis), {})
    return bind(ReverseV2, x, axis=axis_attr(axis))


def _check_reverse_sequence(x, lengths, seq, batch):
    """TF's ReverseSequence runtime checks, on the values known now (eagerly: all of them)."""
    if seq == batch:
        raise invalid_argument(f"batch_dim == seq_dim == {seq}", "ReverseSequence")
    n = static_value(lengths)
    dims = x.shape.dims
    if n is None or dims is None:
        return
    n = np.asarray(n).astype(np.int64)
    if dims[batch] is not None and (n.ndim != 1 or n.shape[0] != dims[batch]):
        raise invalid_argument(f"Length of seq_lengths != input.dims({batch}), "
                               f"({n.size} vs. {dims[batch]})", "ReverseSequence")
    steps = dims[seq]
    bad = (n < 0) | (n > (np.iinfo(np.int64).max if steps is None else steps))
    if bad.any():  # TF reports the first bad entry
        b = int(np.argmax(bad))
        raise invalid_argument(f"seq_lens({b}) < 0" if n[b] < 0 else
                               f"seq_lens({b}) > input.dims({seq})", "ReverseSequence")


@tf_export("reverse_sequence")
def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):
    """Reverse the first ``seq_lengths[b]`` entries along ``seq_axis`` of each batch entry b
    (composed, as a gather with batch_dims, so its gradient is the gather's)."""
    x = convert_to_tensor(input)
    lengths = convert_to_tensor(seq_lengths)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("tf.reverse_sequence needs an input of known rank")
    if rank < 2 or lengths.dtype not in (D.int32, D.int64):
        raise arg_error("ReverseSequence", "input must be at least rank 2 and seq_lengths an "
                        f"int32 or int64 vector, got {x.dtype.name} of rank {rank} and "
                        f"{lengths.dtype.name} seq_lengths")
    seq = int_attr(0 if seq_axis is None else seq_axis, "seq_axis", rank) % rank
    batch = int_attr(0 if batch_axis is None else batch_axis, "batch_axis", rank) % rank
    _check_reverse_sequence(x, lengths, seq, batch)
    perm = [batch, seq] + [a for a in range(rank) if a not in (batch, seq)]
    moved = transpose(x, perm)
    steps = shape(moved, out_type=lengths.dtype)[1]
    t = expand_dims(tf_range(steps, dtype=lengths.dtype), 0)
    n = expand_dims(lengths, 1)
    source = where(less(t, n), n - 1 - t, t + 0 * n)  # [batch, steps]
    # tf.gather's op (indexing comes later in the family order than array)
    out = bind(get_op("GatherV2"), moved, source, axis=1, batch_dims=1)
    return transpose(out, [perm.index(a) for a in range(rank)])


@tf_export("sequence_mask")
def sequence_mask(lengths, maxlen=None, dtype=D.bool, name=None):
    """``mask[i..., j] = j < lengths[i...]`` for j below ``maxlen`` (default: max of lengths)."""
    lengths = convert_to_tensor(lengths)
    if maxlen is None:
        # tf.reduce_max's op (reduce comes later in the family order than array)
        longest = bind(get_op("Max"), lengths, axis=None, keep_dims=False)
        maxlen = maximum(convert_to_tensor(0, lengths.dtype), longest)
    else:
        maxlen = convert_to_tensor(maxlen)
    if maxlen.shape.rank not in (None, 0):
        raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` "
                         f"= {maxlen} with shape '{maxlen.shape}' instead")
    row = bind(Range, convert_to_tensor(0, maxlen.dtype), maxlen,
               convert_to_tensor(1, maxlen.dtype))
    column = expand_dims(lengths, -1)
    if column.dtype != maxlen.dtype:
        column = cast(column, maxlen.dtype)
    result = less(row, column)
    dtype = D.as_dtype(dtype)
    return result if dtype is D.bool else cast(result, dtype)


@define_op("InvertPermutation")
class InvertPermutation:
    """The inverse of the permutation ``x`` (a vector of 0..n-1): ``y[x[i]] = i``."""

    check = DtypeCheck("InvertPermutation", INDEX, same=1)

    def infer(x):
        if x.shape.rank not in (None, 1):
            raise shape_fn_error("InvertPermutation", f"Shape must be rank 1 but is rank "
                                 f"{x.shape.rank}", x.dtype, {}, (x,), ("x",))
        return TensorSpec(x.shape, x.dtype)

    def kernel(x):
        if x.ndim != 1:
            raise invalid_argument("invert_permutation expects a 1D vector.")
        n = x.shape[0]
        y = np.full(n, -1, x.dtype)
        for i, v in enumerate(x.tolist()):
            if not 0 <= v < n:
                raise invalid_argument(f"{v} is not between 0 and {n}")
            if y[v] >= 0:
                raise invalid_argument(f"{v} is duplicated in the input.")
            y[v] = i
        return y


@tf_export("math.invert_permutation")
def invert_permutation(x, name=None):
    """The inverse permutation of ``x``."""
    return bind(InvertPermutation, convert_to_tensor(x, dtype_hint=D.int32))
