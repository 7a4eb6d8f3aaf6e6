"""Ops that join tensors or split one: concat, stack, unstack and split (into equal pieces or
pieces of listed sizes)."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...composite import fallback
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape
from ...tensor import Tensor, TensorSpec
from .._args import arg_error, auto_pack, holds_tensor, int_arg, int_attr, known_values, shown
from .._base import ALL, check_dtypes, graph_error, object_result
from .passthrough import identity


def list_dtype(op_name, values, param="values"):
    """The one dtype of the tensors of the list input ``param`` (TypeError, as TF's op builder
    raises, if they differ)."""
    if not values:  # TF's op builder: list inputs hold at least one tensor
        raise ValueError(f"List argument '{param}' to '{op_name}' Op with length 0 shorter than "
                         f"minimum length 1.")
    dtypes = [v.dtype for v in values]
    if any(d != dtypes[0] for d in dtypes):
        raise TypeError(f"Tensors in list passed to '{param}' of '{op_name}' Op have types "
                        f"[{', '.join(d.name for d in dtypes)}] that don't all match.")
    return dtypes[0]


def convert_list(values):
    """Convert the items of a list-typed op input: Python values take the dtype of the first
    tensor among them, as TF's op builder does (so mismatched tensors are reported by the op)."""
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"Expected a list of tensors, got {shown(values)}")
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), None)
    out = []
    for v in values:
        if not isinstance(v, Tensor):
            if isinstance(v, (list, tuple)) and holds_tensor(v):
                v = auto_pack(v, dtype)
            else:
                v = convert_to_tensor(v, dtype)
            dtype = dtype or v.dtype
        out.append(v)
    return out


# --- ConcatV2 ----------------------------------------------------------------------------------
def _concat_shape(values, axis):
    shapes = [v.shape for v in values if v.shape.rank is not None]
    if not shapes:
        return TensorShape(None)
    rank = shapes[0].rank
    for s in shapes:
        if s.rank != rank:
            raise graph_error("ConcatV2", f"Shape must be rank {rank} but is rank {s.rank}",
                              *[v.shape for v in values])
    if not -rank <= axis < rank:
        raise graph_error("ConcatV2", f"Shape must be at least rank {max(axis + 1, -axis)} but "
                          f"is rank {rank}", *[v.shape for v in values])
    axis %= rank
    out = shapes[0].dims
    for s in shapes[1:]:
        for i, d in enumerate(s.dims):
            if i == axis:
                continue
            if out[i] is None:
                out[i] = d
            elif d is not None and d != out[i]:
                a = out[:axis] + out[axis + 1:]
                b = s.dims[:axis] + s.dims[axis + 1:]
                raise graph_error("ConcatV2", f"Dimension {i} in both shapes must be equal, but "
                                  f"are {out[i]} and {d}. Shapes are {shape_text(a)} and "
                                  f"{shape_text(b)}.", *[v.shape for v in values])
    along = [v.shape[axis] if v.shape.rank is not None else None for v in values]
    out[axis] = None if None in along else sum(along)
    return TensorShape(out)


def _concat_error(values, axis):
    """TF's message for a concatenation NumPy refused."""
    if any(np.ndim(v) == 0 for v in values):
        return invalid_argument("ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    first = np.shape(values[0])
    rank = len(first)
    if not -rank <= axis < rank:
        return invalid_argument(f"ConcatOp : Expected concatenating dimensions in the range "
                                f"[{-rank}, {rank}), but got {axis}")
    for i, v in enumerate(values[1:], 1):
        s = np.shape(v)
        if len(s) != rank:
            return invalid_argument(f"ConcatOp : Ranks of all input tensors should match: "
                                    f"shape[0] = {shape_text(first)} vs. shape[{i}] = "
                                    f"{shape_text(s)}")
        for d in range(rank):
            if d != axis % rank and s[d] != first[d]:
                return invalid_argument(f"ConcatOp : Dimension {d} in both shapes must be equal: "
                                        f"shape[0] = {shape_text(first)} vs. shape[{i}] = "
                                        f"{shape_text(s)}")
    return invalid_argument("ConcatOp : invalid inputs")


@define_op("ConcatV2")
class ConcatV2:
    """Join tensors along an existing ``axis``."""

    def infer(*values, axis):
        return TensorSpec(_concat_shape(values, axis), list_dtype("ConcatV2", values))

    def kernel(*values, axis):
        try:
            return np.concatenate(values, axis=axis)
        except ValueError:
            raise _concat_error(values, axis) from None

    check = DtypeCheck("ConcatV2", ALL, same=None)


@tf_export("concat")
def concat(values, axis, name="concat"):
    """Join ``values`` along the existing dimension ``axis``."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    axis = int_attr(axis)
    if not values:
        raise arg_error("ConcatV2", "ConcatV2 needs at least one input tensor")
    try:
        if len(values) == 1:
            return identity(values[0])
        tensors = convert_list(values)
    except (TypeError, ValueError):  # composite values (ragged) have their own form
        return fallback(concat, (values, axis), {"name": name})
    return bind(ConcatV2, *tensors, axis=axis)


# --- Pack / Unpack -----------------------------------------------------------------------------
@define_op("Pack")
class Pack:
    """Stack same-shaped tensors along a new ``axis``."""

    def infer(*values, axis):
        dtype = list_dtype("Pack", values)
        shape = TensorShape(None)
        for i, v in enumerate(values):
            try:
                shape = shape.merge_with(v.shape)
            except ValueError:
                raise graph_error("Pack", f"Shapes of all inputs must match: values[0].shape = "
                                  f"{shape_text(values[0].shape)} != values[{i}].shape = "
                                  f"{shape_text(v.shape)}", *[t.shape for t in values]) from None
        if shape.rank is None:
            return TensorSpec(TensorShape(None), dtype)
        dims = shape.dims
        dims.insert(axis % (len(dims) + 1), len(values))
        return TensorSpec(dims, dtype)

    def kernel(*values, axis):
        if axis == 0 and all(type(v) is not np.ndarray for v in values):
            return np.array(values)  # NumPy scalars of one dtype (checked): [i] in x[i]
        first = np.shape(values[0])
        for i, v in enumerate(values[1:], 1):
            if np.shape(v) != first:
                raise invalid_argument(f"Shapes of all inputs must match: values[0].shape = "
                                       f"{shape_text(first)} != values[{i}].shape = "
                                       f"{shape_text(np.shape(v))}")
        return np.stack(values, axis=axis)

    check = DtypeCheck("Pack", ALL, same=None)


@tf_export("stack")
def stack(values, axis=0, name="stack"):
    """Stack same-shaped ``values`` along a new dimension ``axis``.

    Raises:
        ValueError: if ``axis`` is out of range.
    """
    axis = int_attr(axis)
    if isinstance(values, Tensor) or hasattr(values, "_as_graph_or_eager_tensor"):
        x = convert_to_tensor(values)
        return x if axis == 0 else stack(unstack(x), axis)
    if isinstance(values, np.ndarray):  # TF converts it whole; Pack takes no array as a list
        if axis == 0:
            return convert_to_tensor(values)
        raise ValueError(f"expected a sequence for attr N, got an ndarray with rank "
                         f"{values.ndim} instead")
    if not values:
        return convert_to_tensor(values)
    if axis == 0 and not holds_tensor(values):
        try:
            return convert_to_tensor(values)
        except (TypeError, ValueError, NotImplementedError):
            pass  # ragged values: as TF, Pack the converted elements (and report their shapes)
    try:
        tensors = convert_list(values)
    except (TypeError, ValueError):  # composite values (ragged) have their own form
        return fallback(stack, (values,), {"axis": axis, "name": name})
    rank = tensors[0].shape.rank
    if rank is not None and not -rank - 1 <= axis < rank + 1:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank - 1}, {rank + 1})")
    return bind(Pack, *tensors, axis=axis)


@define_op("Unpack")
class Unpack:
    """Split a tensor into ``num`` tensors along ``axis``, removing it."""

    def infer(value, num, axis):
        shape = value.shape
        if shape.rank is None:
            return tuple(TensorSpec(TensorShape(None), value.dtype) for _ in range(num))
        dims = shape.dims
        axis %= len(dims)
        if dims[axis] is not None and dims[axis] != num:
            raise graph_error("Unpack", f"Dimension must be {num} but is {dims[axis]}", shape)
        del dims[axis]
        return tuple(TensorSpec(dims, value.dtype) for _ in range(num))

    def kernel(value, num, axis):
        shape = np.shape(value)
        if shape[axis] != num:
            raise invalid_argument(f"Input shape axis {axis % len(shape)} must equal {num}, got "
                                   f"shape {shape_text(shape)}")
        parts = tuple(np.moveaxis(value, axis, 0))
        if value.dtype == object and value.ndim == 1:
            parts = tuple(map(object_result, parts))
        return parts


@tf_export("unstack")
def unstack(value, num=None, axis=0, name="unstack"):
    """The list of slices of ``value`` along ``axis``.

    Raises:
        ValueError: if ``axis`` is out of range or ``num`` cannot be inferred.
    """
    x = convert_to_tensor(value)
    axis = int_attr(axis)
    rank = x.shape.rank
    if rank is not None:
        if not -rank <= axis < rank:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
        if num is None:
            num = x.shape[axis]
    if num is None:
        raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    num = int_arg(num, "num")
    out = bind(Unpack, x, num=num, axis=axis)
    return list(out) if num else []  # no outputs: an op (tracing) or an empty tuple


# --- Split / SplitV ---------------------------------------------------------------------------
def _split_axis(x, axis):
    n = x.ndim
    if not -n <= axis < n:
        raise invalid_argument(f"-input rank(-{n}) <= split_dim < input rank ({n}), but got "
                               f"{axis}")
    return axis % n


def _split_specs(value, axis, pieces):
    dims = value.shape.dims
    rank = len(dims)
    if not -rank <= axis < rank:
        raise graph_error("Split", f"Split dimension {axis} must be in range [{-rank}, {rank})",
                          value.shape)
    axis %= rank
    return tuple(TensorSpec(dims[:axis] + [p] + dims[axis + 1:], value.dtype) for p in pieces)


@define_op("Split")
class Split:
    """Split a tensor into ``num_split`` equal pieces along ``axis``."""

    def infer(value, num_split, axis):
        if value.shape.rank is None:
            unknown = TensorSpec(TensorShape(None), value.dtype)
            return (unknown,) * num_split
        d = value.shape[axis] if -value.shape.rank <= axis < value.shape.rank else None
        if d is not None and d % num_split:
            raise graph_error("Split", f"Dimension size must be evenly divisible by {num_split} "
                              f"but is {d}\n\tNumber of ways to split should evenly divide the "
                              "split dimension", [], value.shape)
        piece = None if d is None else d // num_split
        return _split_specs(value, axis, [piece] * num_split)

    def kernel(value, num_split, axis):
        axis = _split_axis(value, axis)
        d = value.shape[axis]
        if d % num_split:
            raise invalid_argument(f"Number of ways to split should evenly divide the split "
                                   f"dimension, but got split_dim {axis} (size = {d}) and "
                                   f"num_split {num_split}")
        return tuple(np.split(value, num_split, axis))


def _size_splits_error(total):
    return invalid_argument("Determined shape must either match input shape along split_dim "
                            "exactly if fully specified, or be less than the size of the input "
                            f"along split_dim if not fully specified.  Got: {total}")


SIZE_DTYPES = (D.int8, D.int32, D.int64)  # SplitV's Tlen


@define_op("SplitV")
class SplitV:
    """Split a tensor into ``num_split`` pieces along ``axis``, of the sizes the int vector
    ``size_splits`` holds (an input, as TF's: one size may be -1). Its value shapes the outputs
    only when known at trace time."""

    def infer(value, size_splits, num_split, axis):
        check_dtypes("SplitV", (size_splits,), SIZE_DTYPES, ("size_splits",))
        rank = value.shape.rank
        if rank is None:
            return tuple(TensorSpec(TensorShape(None), value.dtype) for _ in range(num_split))
        known = known_values(size_splits)
        if known is None or known.ndim != 1 or any(s is None for s in known):
            if not -rank <= axis < rank:
                raise graph_error("SplitV", f"Split dimension {axis} must be in range "
                                  f"[{-rank}, {rank})", value.shape, size_splits.shape)
            return _split_specs(value, axis, [None] * num_split)
        sizes = [int(s) for s in known]
        if len(sizes) != num_split:
            raise graph_error("SplitV", "Length of size_splits should be equal to num_outputs",
                              value.shape, size_splits.shape)
        d = value.shape[axis] if -rank <= axis < rank else None
        if sizes.count(-1) > 1:
            raise graph_error("SplitV", "size_splits can only have one -1", value.shape,
                              size_splits.shape)
        total = sum(s for s in sizes if s != -1)
        pieces = []
        for i, s in enumerate(sizes):
            if s == -1 and d is not None:
                s = d - total
            if s < -1 or (s == -1 and d is not None):
                raise graph_error("SplitV", f"Split size at index {i} must be >= 0. Got: {s}",
                                  value.shape, size_splits.shape)
            pieces.append(None if s == -1 else s)
        if d is not None and (total > d if -1 in sizes else total != d):
            raise graph_error("SplitV", f"can't split axis of size {d} into pieces of size "
                              f"[{','.join(map(str, sizes))}]", value.shape, size_splits.shape)
        return _split_specs(value, axis, pieces)

    def kernel(value, size_splits, num_split, axis):
        if size_splits.ndim != 1 or size_splits.size != num_split:
            raise invalid_argument("size of the split_tensor must be 1-D and have the same "
                                   f"elements as outputs got {size_splits.ndim} -D and "
                                   f"{size_splits.size} elements")
        axis = _split_axis(value, axis)
        sizes = size_splits.tolist()
        d = value.shape[axis]
        if num_split == 1:
            if sizes[0] != d:
                raise invalid_argument("If there is only one output, it must have the same size "
                                       f"as the input. Input size: {d} output size: {sizes[0]}")
            return (value,)
        if sizes.count(-1) > 1:
            raise invalid_argument("There can only be one -1 in the input.")
        total = sum(s for s in sizes if s != -1)
        if (total > d) if -1 in sizes else (total != d):
            raise _size_splits_error(total)
        if -1 in sizes:
            sizes[sizes.index(-1)] = d - total
        for i, s in enumerate(sizes):
            if s < 0:
                raise invalid_argument(f"Split size at index {i} must be >= 0. Got: {s}")
        return tuple(np.split(value, np.cumsum(sizes[:-1]), axis))

    check = DtypeCheck("SplitV", SIZE_DTYPES, 1, first=1, attr="Tlen")


@tf_export("split")
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Split ``value`` along ``axis`` into ``num_or_size_splits`` equal pieces, or into pieces of
    the listed sizes (one may be -1)."""
    x = convert_to_tensor(value)
    axis = int_attr(axis)
    n = num_or_size_splits
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool):
        if n < 1:
            raise arg_error("Split", f"Value for attr 'num_split' of {n} must be at least "
                            "minimum 1")
        return list(bind(Split, x, num_split=int(n), axis=axis))
    sizes = convert_to_tensor(n)  # TF's SplitV takes the sizes as an input tensor
    if sizes.shape.rank == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument "
                         f"to split. Argument provided: {n}")
    if num is None:
        num = sizes.shape[0] if sizes.shape.rank else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {n}")
    num = int_arg(num, "num")
    if num < 1:
        raise arg_error("SplitV", f"Value for attr 'num_split' of {num} must be at least "
                        "minimum 1")
    return list(bind(SplitV, x, sizes, num_split=num, axis=axis))
