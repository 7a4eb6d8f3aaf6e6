"""Joining strings (elementwise, or along axes) and splitting them (on a separator, or into
bytes)."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...composite import composite_class, fallback
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import OutOfRangeError, invalid_argument
from ...messages import input_dtype_error, merge_error_text, shape_text
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape
from ...tensor import Tensor, TensorSpec, static_value
from .._args import int_arg
from ..array.reshaping import reshape
from ._common import encode, infer_scalar, infer_strings, string_op, strings, text

_RAGGED = ("of a tensor of rank >= 1 returns a RaggedTensor, which tensortrace does not "
           "support; split scalars one at a time.")


# --- join ----------------------------------------------------------------------------------------
@define_op("StringJoin")
class StringJoin:
    """Elementwise join of N string tensors of one shape (scalars repeat)."""

    check = DtypeCheck("StringJoin", same=1, fixed=D.string)

    def infer(*inputs, separator):
        shape = TensorShape([])
        for i, t in enumerate(inputs):
            infer_strings("StringJoin", (t, f"inputs_{i}"))
            if t.shape.rank == 0:
                continue
            if shape.rank == 0:
                shape = t.shape
            elif not shape.is_compatible_with(t.shape):
                raise ValueError(merge_error_text(shape, t.shape) + " for '{{node StringJoin}}'")
            else:
                shape = shape.merge_with(t.shape)
        return TensorSpec(shape, D.string)

    def kernel(*inputs, separator):
        arrays = [np.asarray(a) for a in inputs]
        shape = None
        for a in arrays:
            if a.ndim:
                if shape is None:
                    shape = a.shape
                elif a.shape != shape:
                    raise invalid_argument(f"Input shapes do not match: {shape_text(shape)} vs. "
                                           f"{shape_text(a.shape)}")
        shape = () if shape is None else shape
        size = int(np.prod(shape))
        columns = [a.ravel().tolist() if a.ndim else [a[()]] * size for a in arrays]
        sep = encode(separator)
        out = np.empty(size, object)
        out[:] = [sep.join(parts) for parts in zip(*columns)] if columns else [b""]
        return out.reshape(shape)


@tf_export("strings.join")
def join(inputs, separator="", name=None):
    """Elementwise concatenation of string tensors of one shape (scalars repeat)."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"`inputs` must be a list of string tensors, got {inputs!r}")
    try:
        tensors = [strings(x) for x in inputs]
    except (TypeError, ValueError):  # ragged inputs: joined value by value
        return fallback(join, (inputs,), {"separator": separator})
    return bind(StringJoin, *tensors, separator=text(separator))


def _reduction_axes(indices, rank):
    """ReduceJoin's axes, normalized, in the order given (which orders the join)."""
    axes = []
    for i in np.asarray(indices).ravel().tolist():
        if not -rank <= i < rank:
            raise OutOfRangeError(None, None, f"Invalid reduction dimension {i} for input with "
                                              f"{rank} dimension(s)")
        a = i % rank
        if a in axes:
            raise invalid_argument(f"Duplicate reduction dimension {i}")
        axes.append(a)
    return axes


@define_op("ReduceJoin")
class ReduceJoin:
    """Join along ``reduction_indices``; the first listed axis varies fastest."""

    check = DtypeCheck("ReduceJoin", same=1, fixed={0: D.string, 1: D.int32})

    def infer(inputs, reduction_indices, *, keep_dims, separator):
        infer_strings("ReduceJoin", (inputs, "inputs"))
        dims = inputs.shape.dims
        axes = static_value(reduction_indices)
        if dims is None or axes is None:
            if keep_dims and dims is not None:
                return TensorSpec([None] * len(dims), D.string)
            return TensorSpec(None, D.string)
        rank = len(dims)
        axes = np.asarray(axes).ravel().tolist()
        for i in axes:
            if not -rank <= i < rank:
                raise ValueError(f"Invalid reduction dimension {i} for input with {rank} "
                                 "dimensions. for '{{node ReduceJoin}}'")
        axes = {i % rank for i in axes}
        if keep_dims:
            out = [1 if i in axes else d for i, d in enumerate(dims)]
        else:
            out = [d for i, d in enumerate(dims) if i not in axes]
        return TensorSpec(out, D.string)

    def kernel(inputs, reduction_indices, *, keep_dims, separator):
        a = np.asarray(inputs)
        axes = _reduction_axes(reduction_indices, a.ndim)
        if not axes:
            return inputs
        kept = [i for i in range(a.ndim) if i not in axes]
        kept_shape = tuple(a.shape[i] for i in kept)
        size = int(np.prod(kept_shape))
        out = np.empty(size, object)
        if a.size == 0:
            out[:] = [b""] * size
        else:
            sep = encode(separator)
            rows = a.transpose(kept + axes[::-1]).reshape(size, -1)
            out[:] = [sep.join(r) for r in rows.tolist()]
        if keep_dims:
            return out.reshape(tuple(1 if i in axes else d for i, d in enumerate(a.shape)))
        return out.reshape(kept_shape)


@tf_export("strings.reduce_join")
def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Join along ``axis`` (all axes, row-major, when None)."""
    inputs = strings(inputs)
    if axis is None:
        rank = inputs.shape.rank
        if rank is None:
            raise ValueError("reduce_join with axis=None needs an input of known rank")
        axis = np.arange(rank - 1, -1, -1, dtype=np.int32)
    axes = axis if isinstance(axis, Tensor) else convert_to_tensor(axis, D.int32)  # axis as given
    return bind(ReduceJoin, inputs, axes, keep_dims=bool(keepdims), separator=text(separator))


# --- split ---------------------------------------------------------------------------------------
@define_op("StringSplitV2")
class StringSplitV2:
    """Split each string of a vector on ``sep`` (whitespace when empty): the sparse parts
    (indices [n, 2], values [n], dense shape [2]). A scalar input counts as one row."""

    check = DtypeCheck("StringSplitV2", same=1, fixed=D.string)

    def infer(input, sep, *, maxsplit):
        infer_strings("StringSplitV2", (input, "input"), (sep, "sep"))
        infer_scalar(sep, "sep", "StringSplitV2")
        return (TensorSpec([None, 2], D.int64), TensorSpec([None], D.string),
                TensorSpec([2], D.int64))

    def kernel(input, sep, *, maxsplit):
        a, sp = np.asarray(input), np.asarray(sep)
        if a.ndim > 1:
            raise invalid_argument(f"input must be a vector, got shape: {shape_text(a.shape)}")
        if sp.ndim:
            raise invalid_argument(f"sep must be a scalar, got shape: {shape_text(sp.shape)}")
        sp = sp[()] or None
        parts = [s.split(sp, maxsplit) for s in a.ravel().tolist()]
        counts = np.array([len(p) for p in parts], np.int64)
        values = np.empty(int(counts.sum()), object)
        values[:] = [v for p in parts for v in p]
        rows = np.repeat(np.arange(len(parts), dtype=np.int64), counts)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        cols = np.arange(len(values), dtype=np.int64) - starts
        shape = np.array([len(parts), counts.max(initial=0)], np.int64)
        return np.stack([rows, cols], axis=1), values, shape


@tf_export("strings.split")
def split(input, sep=None, maxsplit=-1, name=None):
    """Split strings into parts (on whitespace when ``sep`` is None): a scalar gives a 1-D
    tensor, a tensor of rank >= 1 a RaggedTensor with one more (ragged) dimension."""
    input = strings(input)
    maxsplit = int_arg(maxsplit, "maxsplit")
    if input.dtype != D.string:
        raise input_dtype_error("StringSplitV2", 0, D.string, input.dtype)
    rank = input.shape.rank
    if rank is None:
        raise ValueError("input must have a statically-known rank.")
    sep = strings("" if sep is None else sep)
    if rank != 0:  # rows of parts: a RaggedTensor (the outer dimensions stay uniform)
        flat = reshape(input, [-1]) if rank > 1 else input
        indices, values, shape = bind(StringSplitV2, flat, sep, maxsplit=maxsplit)
        ragged = composite_class("ragged")
        result = ragged.from_value_rowids(values, indices[:, 0], nrows=shape[0], validate=False)
        for dim in reversed(input.shape.as_list()[1:]):
            result = ragged.from_uniform_row_length(result, dim, validate=False)
        return result
    return bind(StringSplitV2, input, sep, maxsplit=maxsplit)[1]


def _bytes_of(input):
    data = bytes(input[()])
    out = np.empty(len(data), object)
    out[:] = [data[i:i + 1] for i in range(len(data))]
    return out


# bytes_split of a scalar: a dense 1-D result
StringBytesSplit = string_op("StringBytesSplit", _bytes_of,
                             "The bytes of one scalar string, each as a 1-byte string.",
                             shape=[None])


@tf_export("strings.bytes_split")
def bytes_split(input, name=None):
    """The bytes of a scalar string as a 1-D string tensor (higher ranks give a RaggedTensor in
    TF, which tensortrace does not support)."""
    input = strings(input)
    if input.dtype != D.string:
        raise input_dtype_error("StringBytesSplit", 0, D.string, input.dtype)
    if input.shape.rank != 0:
        raise NotImplementedError("tf.strings.bytes_split " + _RAGGED)
    return bind(StringBytesSplit, input)
