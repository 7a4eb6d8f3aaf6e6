"""Shape and array ops: reshape, transpose, concat/stack/split, pad, fill, shape, range, one_hot.

Shape-like arguments (reshape's shape, fill's dims, tile's multiples, pad's paddings, range's
bounds ...) are op inputs, so they may be computed inside a function; ``shape_values`` recovers
what is known of them at trace time. Structural parameters (axis, perm) are attrs.
"""

import builtins
import math as _pymath

import numpy as np

from ... import dtypes as D
from ..._export import exports, tf_export
from ...context import bind, executing_eagerly, state
from ...convert import convert_to_tensor, to_array
from ...errors import OpError, invalid_argument
from ...registry import NON_DIFFERENTIABLE, define_op
from ...shapes import TensorShape, as_shape
from ...tensor import EagerTensor, Tensor, TensorSpec, static_value
from ...messages import c_name
from ...registry import DtypeCheck
from ...messages import shape_text
from .._args import arg_error, auto_pack as _auto_pack, axis_attr, const as _const, holds_tensor
from .._args import int_attr, int_input, known_values, scalar_array, scalar_tensor, shape_values
from .._args import static_int as _static_int, static_ints
from .._base import BOOL, INDEX as _INDEX, NUMERIC, bounded_static, broadcast_shape, check_dtypes
from .._base import unbroadcast_axes
from .._base import check_index, check_out_type, graph_error, kernel_out_type

_PUBLIC = {}


def public(name):
    """A public function another op module exports (``"math.exp"``), looked up when first used
    so the op modules need not import one another in a fixed order."""
    fn = _PUBLIC.get(name)
    if fn is None:
        namespace, _, short = name.rpartition(".")
        fn = exports(namespace).get(short)
        if fn is None:
            raise NotImplementedError(f"tf.{name} is not available in tensortrace yet")
        _PUBLIC[name] = fn
    return fn

_BF16 = (D.bfloat16,) if D.bfloat16 else ()
_RANGE_DTYPES = _BF16 + (D.float16, D.float32, D.float64, D.int8, D.int16, D.int32, D.int64,
                         D.uint16, D.uint32, D.uint64)
_RANGE_HIERARCHY = (D.int32, D.int64, D.float16) + _BF16 + (D.float32, D.float64)
_ONE_HOT_INDEX = (D.uint8, D.int8, D.int32, D.int64)
_FLOATS = _BF16 + (D.float16, D.float32, D.float64)
_MANY = 1 << 30  # make_check: every input shares the first one's dtype


def _object_scalar(v):
    """Indexing an object array gives bare bytes; kernels must return 0-d arrays instead."""
    return v if isinstance(v, (np.ndarray, np.generic)) else np.array(v, dtype=object)


def _zero_of(dtype):
    return b"" if dtype == object else 0


# --- Reshape ----------------------------------------------------------------------------------
@define_op("Reshape")
class Reshape:
    """Reshape ``tensor`` to ``shape`` (an int input; one entry may be -1)."""

    def infer(tensor, shape):
        check_index("Reshape", shape, "shape")
        return TensorSpec(_reshaped(tensor.shape, shape_values(shape), shape), tensor.dtype)

    def kernel(tensor, shape):
        if shape.ndim != 1:
            raise invalid_argument(f"sizes input must be 1-D, not {shape_text(shape.shape)}")
        return tensor.reshape(_resolve_reshape(tensor, shape.tolist()))

    check = DtypeCheck("Reshape", _INDEX, 1, first=1, attr="Tshape")


def _resolve_reshape(tensor, dims):
    """TF's rule for the -1 entry (including its treatment of empty tensors) and its errors."""
    unknown, product = -1, 1
    for i, d in enumerate(dims):
        if d == -1:
            if unknown >= 0:
                raise invalid_argument(f"Only one input size may be -1, not both {unknown} and {i}")
            unknown = i
        elif d < 0:
            raise invalid_argument(f"Size {i} must be non-negative, not {d}")
        else:
            product *= d
    n = tensor.size
    if unknown < 0:
        if product != n:
            raise invalid_argument(f"Input to reshape is a tensor with {n} values, but the "
                                   f"requested shape has {product}")
        return dims
    if product == 0:
        if n != 0:
            raise invalid_argument(f"Input to reshape is a tensor with {n} values, but the "
                                   f"requested shape has 0")
        nonzero_in = _pymath.prod(d for d in tensor.shape if d)
        nonzero_out = _pymath.prod(d for d in dims if d > 0)
        dims[unknown] = nonzero_in // nonzero_out
        return dims
    if n % product:
        raise invalid_argument(f"Input to reshape is a tensor with {n} values, but the "
                               f"requested shape requires a multiple of {product}")
    dims[unknown] = n // product
    return dims


def _reshaped(in_shape, values, shape_t):
    """The static result shape of a reshape; unknown entries stay None."""
    if values is None:
        return TensorShape(None)
    for v in values:
        if v is not None and v < -1:
            raise ValueError(f"Invalid value in tensor used for shape: {v}")
    dims = [None if v == -1 else v for v in values]
    n = in_shape.num_elements() if in_shape.is_fully_defined() else None
    if n is None and in_shape.rank is not None and 0 in in_shape.dims:
        n = 0
    known = [d for d in dims if d is not None]
    product = _pymath.prod(known)
    holes = len(dims) - len(known)
    if product == 0 and n:
        raise graph_error("Reshape", f"Cannot reshape a tensor with {n} elements to shape "
                          f"{shape_text(dims)} (0 elements)", in_shape, shape_t.shape)
    if holes == 0:
        if n is not None and n != product:
            raise graph_error("Reshape", f"Cannot reshape a tensor with {n} elements to shape "
                              f"{shape_text(dims)} ({product} elements)", in_shape, shape_t.shape)
        known_in = _pymath.prod(d for d in in_shape.dims or () if d is not None)
        if n is None and known_in and product % known_in:
            raise graph_error("Reshape", f"Dimension size must be evenly divisible by {known_in} "
                              f"but is {product}", in_shape, shape_t.shape)
    elif holes == 1 and values.count(-1) == 1 and n is not None and product > 0:
        if n % product:
            raise graph_error("Reshape", f"Dimension size must be evenly divisible by {product} "
                              f"but is {n}", in_shape, shape_t.shape)
        dims[values.index(-1)] = n // product
    return TensorShape(dims)


# --- Transpose --------------------------------------------------------------------------------
def _transpose_infer(x, perm):
    if perm is None:
        return TensorSpec(TensorShape(None) if x.shape.rank is None
                          else TensorShape(x.shape.dims[::-1]), x.dtype)
    if x.shape.rank is None:
        return TensorSpec([None] * len(perm), x.dtype)
    rank = x.shape.rank
    if len(perm) != rank:
        raise graph_error("Transpose", f"Dimension must be {rank} but is {len(perm)}", x.shape,
                          [len(perm)])
    dims = x.shape.dims
    for p in perm:
        if not -rank <= p < rank:
            raise graph_error("Transpose", f"perm dim {p} is out of range of input rank {rank}",
                              x.shape, [len(perm)])
    return TensorSpec([dims[p] for p in perm], x.dtype)


def _checked_perm(x, perm):
    n = x.ndim
    if len(perm) != n:
        raise invalid_argument(f"transpose expects a vector of size {n}. But input(1) is a "
                               f"vector of size {len(perm)}")
    seen = set()
    for p in perm:
        if not -n <= p < n:
            raise invalid_argument(f"{p} is out of range [0 .. {n})")
        seen.add(p % n)
    if len(seen) != n:
        missing = min(set(builtins.range(n)) - seen)
        raise invalid_argument(f"{missing} is missing from {{{','.join(map(str, perm))}}}.")
    return perm


@define_op("Transpose")
class Transpose:
    """Permute dimensions (``perm`` None reverses them)."""

    infer = _transpose_infer

    def kernel(x, perm):
        return np.transpose(x) if perm is None else np.transpose(x, _checked_perm(x, perm))


@define_op("ConjugateTranspose")
class ConjugateTranspose:
    """Permute dimensions and conjugate (``tf.transpose(conjugate=True)`` of complex tensors)."""

    infer = _transpose_infer

    def kernel(x, perm):
        return np.conj(np.transpose(x) if perm is None else
                       np.transpose(x, _checked_perm(x, perm)))


# --- ExpandDims / Squeeze ---------------------------------------------------------------------
@define_op("ExpandDims")
class ExpandDims:
    """Insert a dimension of size 1 at ``axis``."""

    def infer(input, axis):
        rank = input.shape.rank
        if rank is None:
            return TensorSpec(TensorShape(None), input.dtype)
        if not -rank - 1 <= axis <= rank:
            raise graph_error("ExpandDims", f"dim {axis} not in the interval [{-rank - 1}, "
                              f"{rank}].", input.shape, [])
        dims = input.shape.dims
        dims.insert(axis % (rank + 1), 1)
        return TensorSpec(dims, input.dtype)

    def kernel(input, axis):
        n = np.ndim(input)
        if not -n - 1 <= axis <= n:
            raise invalid_argument(f"Tried to expand dim index {axis} for tensor with {n} "
                                   "dimensions.")
        return np.expand_dims(input, axis)


@define_op("Squeeze")
class Squeeze:
    """Remove dimensions of size 1 (those in ``squeeze_dims``, or all when it is empty)."""

    def infer(input, squeeze_dims):
        shape = input.shape
        if shape.rank is None:
            return TensorSpec(TensorShape(None), input.dtype)
        dims, rank = shape.dims, shape.rank
        if not squeeze_dims:
            if None in dims:  # an unknown dim may be 1: even the rank is unknown
                return TensorSpec(TensorShape(None), input.dtype)
            return TensorSpec([d for d in dims if d != 1], input.dtype)
        drop = set()
        for i, a in enumerate(squeeze_dims):
            if not -rank <= a < rank:
                raise graph_error("Squeeze", f"squeeze_dims[{i}] not in [{-rank},{rank}).", shape)
            a %= rank
            if dims[a] not in (None, 1):
                raise graph_error("Squeeze", f"Can not squeeze dim[{a}], expected a dimension "
                                  f"of 1, got {dims[a]}", shape)
            drop.add(a)
        return TensorSpec([d for i, d in enumerate(dims) if i not in drop], input.dtype)

    def kernel(input, squeeze_dims):
        if not squeeze_dims:
            return np.squeeze(input)
        n, shape = np.ndim(input), np.shape(input)
        axes = set()
        for a in squeeze_dims:
            if not -n <= a < n:
                raise invalid_argument(f"Tried to squeeze dim index {a} for tensor with {n} "
                                       "dimensions.")
            a %= n
            if shape[a] != 1:
                raise invalid_argument(f"Can not squeeze dim[{a}], expected a dimension of 1, "
                                       f"got {shape[a]}")
            axes.add(a)
        return np.squeeze(input, tuple(axes))


# --- ConcatV2 / Pack / Unpack -----------------------------------------------------------------
def _same_dtype(op, values):
    dtypes = [v.dtype for v in values]
    if any(d != dtypes[0] for d in dtypes):
        raise TypeError(f"Tensors in list passed to 'values' of '{op}' Op have types "
                        f"[{', '.join(d.name for d in dtypes)}] that don't all match.")
    return dtypes[0]


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
        for d in builtins.range(rank):
            if d != axis % rank and s[d] != first[d]:
                return invalid_argument(f"ConcatOp : Dimension {d} in both shapes must be equal: "
                                        f"shape[0] = {shape_text(first)} vs. shape[{i}] = "
                                        f"{shape_text(s)}")
    return invalid_argument("ConcatOp : invalid inputs")


@define_op("ConcatV2")
class ConcatV2:
    """Join tensors along an existing ``axis``."""

    def infer(*values, axis):
        return TensorSpec(_concat_shape(values, axis), _same_dtype("ConcatV2", values))

    def kernel(*values, axis):
        try:
            return np.concatenate(values, axis=axis)
        except ValueError:
            raise _concat_error(values, axis) from None

    check = DtypeCheck("ConcatV2", NUMERIC + BOOL + (D.string,), same=_MANY)


@define_op("Pack")
class Pack:
    """Stack same-shaped tensors along a new ``axis``."""

    def infer(*values, axis):
        dtype = _same_dtype("Pack", values)
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

    check = DtypeCheck("Pack", NUMERIC + BOOL + (D.string,), same=_MANY)


@define_op("Unpack")
class Unpack:
    """Split a tensor into ``num`` tensors along ``axis``, removing it."""

    def infer(value, num, axis):
        shape = value.shape
        if shape.rank is None:
            return tuple(TensorSpec(TensorShape(None), value.dtype) for _ in builtins.range(num))
        dims = shape.dims
        axis %= len(dims)
        if dims[axis] is not None and dims[axis] != num:
            raise graph_error("Unpack", f"Dimension must be {num} but is {dims[axis]}", shape)
        del dims[axis]
        return tuple(TensorSpec(dims, value.dtype) for _ in builtins.range(num))

    def kernel(value, num, axis):
        shape = np.shape(value)
        if shape[axis] != num:
            raise invalid_argument(f"Input shape axis {axis % len(shape)} must equal {num}, got "
                                   f"shape {shape_text(shape)}")
        parts = tuple(np.moveaxis(value, axis, 0))
        if value.dtype == object and value.ndim == 1:
            parts = tuple(map(_object_scalar, parts))
        return parts


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


@define_op("SplitV")
class SplitV:
    """Split a tensor into pieces of ``size_splits`` along ``axis`` (one size may be -1)."""

    def infer(value, size_splits, axis):
        if value.shape.rank is None:
            return tuple(TensorSpec(TensorShape(None), value.dtype) for _ in size_splits)
        d = value.shape[axis] if -value.shape.rank <= axis < value.shape.rank else None
        sizes = list(size_splits)
        if d is not None:
            total = sum(s for s in sizes if s != -1)
            if -1 in sizes and total > d:
                raise graph_error("SplitV", f"Split size at index {sizes.index(-1)} must be >= 0. "
                                  f"Got: {d - total}", value.shape)
            if -1 in sizes:
                sizes[sizes.index(-1)] = d - total
            elif total != d:
                raise graph_error("SplitV", f"can't split axis of size {d} into pieces of size "
                                  f"[{','.join(map(str, size_splits))}]", value.shape)
        return _split_specs(value, axis, [None if s == -1 else s for s in sizes])

    def kernel(value, size_splits, axis):
        axis = _split_axis(value, axis)
        sizes = list(size_splits)
        if sizes.count(-1) > 1:
            raise invalid_argument("There can only be one -1 in the input.")
        d = value.shape[axis]
        total = sum(s for s in sizes if s != -1)
        if -1 in sizes:
            if total > d:
                raise _size_splits_error(total)
            sizes[sizes.index(-1)] = d - total
        elif total != d:
            raise _size_splits_error(total)
        return tuple(np.split(value, np.cumsum(sizes[:-1]), axis))


# --- Tile / Pad -------------------------------------------------------------------------------
@define_op("Tile")
class Tile:
    """Repeat a tensor ``multiples[i]`` times along each dimension i."""

    def infer(input, multiples):
        check_index("Tile", multiples, "multiples")
        m = shape_values(multiples)
        rank = input.shape.rank
        if rank is not None and m is not None and len(m) != rank:
            raise graph_error("Tile", f"Shape must be rank {rank} but is rank {len(m)}",
                              input.shape, multiples.shape)
        if rank is None:
            return TensorSpec(TensorShape(None) if m is None else [None] * len(m), input.dtype)
        m = m or [None] * rank
        dims = [None if d is None or k is None else d * k for d, k in zip(input.shape.dims, m)]
        return TensorSpec(dims, input.dtype)

    def kernel(input, multiples):
        m = np.reshape(multiples, -1).tolist()
        if len(m) != np.ndim(input):
            raise invalid_argument(f"Expected multiples argument to be a vector of length "
                                   f"{np.ndim(input)} but got length {len(m)}")
        for i, k in enumerate(m):
            if k < 0:
                raise invalid_argument(f"Expected multiples[{i}] >= 0, but got {k}")
        return np.tile(input, m)

    check = DtypeCheck("Tile", _INDEX, 1, first=1, attr="Tmultiples")


def _pad_infer(op):
    def infer(input, paddings, *constant_values, **attrs):
        check_index(op, paddings, "paddings")
        if constant_values:
            check_dtypes(op, (input, constant_values[0]), None, ("input", "constant_values"))
        rows = paddings.shape[0] if paddings.shape.rank else None
        rank = input.shape.rank
        if rank is not None and rows is not None and rows != rank:
            raise graph_error(op, f"Shape must be rank {rows} but is rank {rank}", input.shape,
                              paddings.shape)
        rank = rank if rank is not None else rows
        if rank is None:
            return TensorSpec(TensorShape(None), input.dtype)
        p = static_value(paddings)
        dims = input.shape.dims or [None] * rank
        if p is None:
            return TensorSpec([None] * rank, input.dtype)
        p = np.reshape(p, (rank, 2)).tolist()
        return TensorSpec([None if d is None else d + a + b for d, (a, b) in zip(dims, p)],
                          input.dtype)

    return infer


def _checked_paddings(x, paddings):
    p = np.asarray(paddings)
    if p.ndim != 2 or p.shape[0] != np.ndim(x) or p.shape[1] != 2:
        raise invalid_argument(f"The first dimension of paddings must be the rank of inputs"
                               f"{shape_text(p.shape)} {shape_text(np.shape(x))}")
    p = p.tolist()
    for a, b in p:
        if a < 0 or b < 0:
            raise invalid_argument(f"Paddings must be non-negative: {a} {b}")
    return p


def _constant_pad(x, paddings, value):
    p = _checked_paddings(x, paddings)
    shape = np.shape(x)
    out = np.full([d + a + b for d, (a, b) in zip(shape, p)], value, dtype=x.dtype)
    out[tuple(slice(a, a + d) for d, (a, _) in zip(shape, p))] = x
    return out


@define_op("Pad")
class Pad:
    """Pad with zeros (empty strings, False)."""

    infer = _pad_infer("Pad")

    def kernel(input, paddings):
        return _constant_pad(input, paddings, _zero_of(input.dtype))

    check = DtypeCheck("Pad", _INDEX, 1, first=1, attr="Tpaddings")


@define_op("PadV2")
class PadV2:
    """Pad with ``constant_values``."""

    infer = _pad_infer("PadV2")

    def kernel(input, paddings, constant_values):
        if np.ndim(constant_values) != 0:
            raise invalid_argument(f"constant_values must be a scalar. Got: "
                                   f"{shape_text(np.shape(constant_values))}")
        return _constant_pad(input, paddings, constant_values)

    check = DtypeCheck("PadV2", _INDEX, 1, first=1, attr="Tpaddings")


@define_op("MirrorPad")
class MirrorPad:
    """Pad by mirroring the edges: ``mode`` REFLECT (edge excluded) or SYMMETRIC (included)."""

    infer = _pad_infer("MirrorPad")

    def kernel(input, paddings, mode):
        p = _checked_paddings(input, paddings)
        for d, (a, b) in zip(np.shape(input), p):
            if mode == "REFLECT" and (a >= d or b >= d):
                raise invalid_argument(f"paddings must be less than the dimension size: {a}, {b} "
                                       f"not less than {d}")
            if mode == "SYMMETRIC" and (a > d or b > d):
                raise invalid_argument(f"paddings must be no greater than the dimension size: "
                                       f"{a}, {b} greater than {d}")
        return np.pad(input, p, mode=mode.lower())

    check = DtypeCheck("MirrorPad", _INDEX, 1, first=1, attr="Tpaddings")


# --- Fill / ZerosLike / OnesLike / Identity ---------------------------------------------------
@define_op("Fill")
class Fill:
    """A tensor of shape ``dims`` filled with the scalar ``value``."""

    def infer(dims, value):
        check_index("Fill", dims, "dims")
        if value.shape.rank not in (None, 0) and value.shape != TensorShape([1]):
            raise graph_error("Fill", f"Shape must be rank 0 but is rank {value.shape.rank}",
                              dims.shape, value.shape)
        vals = shape_values(dims)
        if vals is not None and any(v is not None and v < 0 for v in vals):
            raise graph_error("Fill", "Fill dimensions must be >= 0", dims.shape, value.shape)
        return TensorSpec(TensorShape(vals), value.dtype)

    def kernel(dims, value):
        if np.ndim(value) != 0:
            if np.shape(value) != (1,):  # TF still takes a one-element vector (legacy)
                raise invalid_argument(f"value must represent a scalar, got shape "
                                       f"{shape_text(np.shape(value))}")
            value = value[0] if value.dtype != object else value.reshape(())
        if np.ndim(dims) != 1:
            raise invalid_argument(f"dims must be a vector, got shape "
                                   f"{shape_text(np.shape(dims))}")
        shape = dims.tolist()
        for d in shape:
            if d < 0:
                raise invalid_argument(f"Dimension {d} must be >= 0")
        return np.full(shape, value, dtype=value.dtype)

    check = DtypeCheck("Fill", _INDEX, 1, attr="index_type")


@define_op("ZerosLike")
class ZerosLike:
    """Zeros (empty strings, False) shaped and typed like ``x``."""

    def infer(x):
        return TensorSpec(x.shape, x.dtype)

    def kernel(x):
        if x.dtype == object:
            return np.full(np.shape(x), b"", dtype=object)
        return np.zeros_like(x)

    grad = NON_DIFFERENTIABLE


_ONES_LIKE_DTYPES = _BF16 + (D.float16, D.float32, D.float64, D.int8, D.uint8, D.int16, D.uint16,
                             D.int32, D.uint32, D.int64, D.uint64, D.complex64, D.complex128,
                             D.bool)


@define_op("OnesLike")
class OnesLike:
    """Ones (True) shaped and typed like ``x``."""

    def infer(x):
        check_dtypes("OnesLike", (x,), _ONES_LIKE_DTYPES)
        return TensorSpec(x.shape, x.dtype)

    def kernel(x):
        return np.ones_like(x)

    check = DtypeCheck("OnesLike", _ONES_LIKE_DTYPES, same=1)
    grad = NON_DIFFERENTIABLE


@define_op("Identity", expr="{0}")
class Identity:
    """The input, unchanged."""

    def infer(input):
        return TensorSpec(input.shape, input.dtype)

    def kernel(input):
        return input


# --- Shape / ShapeN / Size / Rank -------------------------------------------------------------
@define_op("Shape")
class Shape:
    """The shape of a tensor as a 1-D int tensor."""

    def infer(input, out_type):
        check_out_type("Shape", out_type)
        rank = input.shape.rank
        return TensorSpec([rank], out_type)

    def kernel(input, out_type):
        kernel_out_type(out_type)
        return np.array(np.shape(input), dtype=out_type._np)

    grad = NON_DIFFERENTIABLE


def _shape_static(input, out_type):
    shape = input.shape
    if not shape.is_fully_defined() or out_type not in _INDEX:
        return None
    return np.array(shape.dims, dtype=out_type._np)


Shape.static = _shape_static


@define_op("ShapeN")
class ShapeN:
    """The shapes of several tensors (one output each)."""

    def infer(*input, out_type):
        check_out_type("ShapeN", out_type)
        _same_dtype("ShapeN", input)
        return tuple(TensorSpec([t.shape.rank], out_type) for t in input)

    def kernel(*input, out_type):
        kernel_out_type(out_type)
        return tuple(np.array(np.shape(x), dtype=out_type._np) for x in input)

    check = DtypeCheck("ShapeN", NUMERIC + BOOL + (D.string,), same=_MANY)
    grad = NON_DIFFERENTIABLE


def _shape_n_static(*input, out_type):
    values = tuple(_shape_static(t, out_type) for t in input)
    return None if any(v is None for v in values) else values


ShapeN.static = _shape_n_static


@define_op("Size")
class Size:
    """The number of elements of a tensor."""

    def infer(input, out_type):
        check_out_type("Size", out_type)
        return TensorSpec([], out_type)

    def kernel(input, out_type):
        kernel_out_type(out_type)
        return out_type._np.type(np.size(input))

    grad = NON_DIFFERENTIABLE


def _size_static(input, out_type):
    shape = input.shape
    if not shape.is_fully_defined() or out_type not in _INDEX:
        return None
    return np.array(shape.num_elements(), dtype=out_type._np)


Size.static = _size_static


@define_op("Rank")
class Rank:
    """The number of dimensions of a tensor (int32)."""

    def infer(input):
        return TensorSpec([], D.int32)

    def kernel(input):
        return np.int32(np.ndim(input))

    grad = NON_DIFFERENTIABLE


Rank.static = lambda input: (None if input.shape.rank is None
                                     else np.array(input.shape.rank, dtype=np.int32))


# --- BroadcastTo / BroadcastArgs / ReverseV2 --------------------------------------------------
@define_op("BroadcastTo")
class BroadcastTo:
    """Broadcast ``input`` to ``shape``."""

    def infer(input, shape):
        check_index("BroadcastTo", shape, "shape")
        target = shape_values(shape)
        if target is None:
            return TensorSpec(TensorShape(None), input.dtype)
        rank = input.shape.rank
        if rank is None:
            return TensorSpec(target, input.dtype)
        if rank > len(target):
            raise graph_error("BroadcastTo", f"Shape must be at most rank {len(target)} but is "
                              f"rank {rank}", input.shape, shape.shape)
        dims = [None] * (len(target) - rank) + input.shape.dims
        out = []
        for d, t in zip(dims, target):
            if t is not None and t >= 0:
                if d not in (None, 1, t):
                    raise graph_error("BroadcastTo", f"Dimensions must be equal, but are {d} and "
                                      f"{t}", input.shape, shape.shape)
                out.append(t)
            else:
                out.append(d if d not in (None, 1) else None)
        return TensorSpec(out, input.dtype)

    def kernel(input, shape):
        target = tuple(shape.tolist())
        if len(target) < np.ndim(input):
            raise invalid_argument(f"Rank of input ({np.ndim(input)}) must be no greater than "
                                   f"rank of output shape ({len(target)}).")
        try:
            return np.broadcast_to(input, target)
        except ValueError:
            raise invalid_argument(f"Incompatible shapes: {shape_text(np.shape(input))} vs. "
                                   f"{shape_text(target)}") from None

    check = DtypeCheck("BroadcastTo", _INDEX, 1, first=1, attr="Tidx")


@define_op("BroadcastArgs")
class BroadcastArgs:
    """The broadcast of two shapes given as 1-D int tensors."""

    def infer(s0, s1):
        check_dtypes("BroadcastArgs", (s0, s1), _INDEX, ("s0", "s1"))
        a, b = shape_values(s0), shape_values(s1)
        n = None if a is None or b is None else max(len(a), len(b))
        return TensorSpec([n], s0.dtype)

    def kernel(s0, s1):
        try:
            return np.array(np.broadcast_shapes(tuple(s0.tolist()), tuple(s1.tolist())),
                            dtype=s0.dtype)
        except ValueError:
            raise invalid_argument(f"Incompatible shapes: {shape_text(s0.tolist())} vs. "
                                   f"{shape_text(s1.tolist())}") from None

    check = DtypeCheck("BroadcastArgs", _INDEX, same=2)
    grad = NON_DIFFERENTIABLE


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


# --- Range / LinSpace / OneHot ----------------------------------------------------------------
def _num_text(v):
    """A number as TF's C++ streams print it (6 significant digits)."""
    return str(int(v)) if isinstance(v, (int, np.integer)) else f"{float(v):.6g}"


def _range_size(start, limit, delta):
    """The length of ``range(start, limit, delta)``, computed in the tensors' dtype like TF."""
    if delta == 0:
        raise invalid_argument(f"Requires delta != 0: {_num_text(delta)}")
    if delta > 0 and start > limit:
        raise invalid_argument(f"Requires start <= limit when delta > 0: {_num_text(start)}/"
                               f"{_num_text(limit)}")
    if delta < 0 and start < limit:
        raise invalid_argument(f"Requires start >= limit when delta < 0: {_num_text(start)}/"
                               f"{_num_text(limit)}")
    if isinstance(start, np.integer):
        s, l, d = int(start), int(limit), int(delta)
        return (abs(l - s) + abs(d) - 1) // abs(d)
    with np.errstate(all="ignore"):
        size = np.ceil(np.abs((limit - start) / delta))
    if not float(size) <= 2.0**63 - 1:
        raise invalid_argument("Requires ((limit - start) / delta) <= 9223372036854775807")
    return int(size)


@define_op("Range")
class Range:
    """``start, start + delta, ...`` up to (excluding) ``limit``."""

    def infer(start, limit, delta):
        dtype = check_dtypes("Range", (start, limit, delta), _RANGE_DTYPES,
                             ("start", "limit", "delta"))
        values = [static_value(t) for t in (start, limit, delta)]
        if any(v is None for v in values):
            return TensorSpec([None], dtype)
        try:
            return TensorSpec([_range_size(*(v[()] for v in values))], dtype)
        except OpError as e:  # TF's shape function checks known bounds the same way
            raise graph_error("Range", e.message, [], [], []) from None

    def kernel(start, limit, delta):
        start, limit, delta = start[()], limit[()], delta[()]
        for v in (start, limit, delta):
            if np.ndim(v):
                raise invalid_argument(f"start, limit and delta must be scalars, got shape "
                                       f"{shape_text(np.shape(v))}")
        n = _range_size(start, limit, delta)
        dtype = np.asarray(start).dtype
        if dtype.kind in "iu":
            return (np.arange(n, dtype=np.int64) * int(delta) + int(start)).astype(dtype)
        # TF computes start + i * delta in the output dtype (not a running sum)
        return (start + np.arange(n, dtype=dtype) * delta).astype(dtype, copy=False)

    check = DtypeCheck("Range", _RANGE_DTYPES, 3, attr="Tidx")
    grad = NON_DIFFERENTIABLE


bounded_static(Range)


@define_op("LinSpace")
class LinSpace:
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included), inserted at
    ``axis`` when start/stop are tensors (``tf.linspace``'s N-d form)."""

    def infer(start, stop, num, axis):
        dtype = check_dtypes("LinSpace", (start, stop), _FLOATS, ("start", "stop"))
        check_index("LinSpace", num, "num")
        n = _static_int(num)
        shape = broadcast_shape(start.shape, stop.shape, "LinSpace")
        if shape.rank is None:
            return TensorSpec(TensorShape(None), dtype)
        dims = shape.dims
        dims.insert(axis % (len(dims) + 1), n if n is None or n >= 0 else None)
        return TensorSpec(dims, dtype)

    def kernel(start, stop, num, axis):
        n = int(num)
        if n < 0:
            raise invalid_argument(f"Requires start <= limit when delta > 0: 1/{n}")
        dtype = start.dtype
        s, e = np.broadcast_arrays(np.asarray(start)[..., None], np.asarray(stop)[..., None])
        if n <= 1:
            out = s[..., :n]
        else:
            step = (e - s) / dtype.type(n - 1)
            out = np.concatenate([s + np.arange(n - 1, dtype=dtype) * step, e], -1)
        return np.moveaxis(out, -1, axis).astype(dtype, copy=False)

    check = DtypeCheck("LinSpace", _FLOATS, same=2)
    grad = NON_DIFFERENTIABLE


bounded_static(LinSpace)


@define_op("OneHot")
class OneHot:
    """``on_value`` where ``indices`` equals the position along the new ``axis``, else
    ``off_value``."""

    def infer(indices, depth, on_value, off_value, axis):
        check_dtypes("OneHot", (indices,), _ONE_HOT_INDEX, ("indices",))
        dtype = check_dtypes("OneHot", (on_value, off_value), None, ("on_value", "off_value"))
        rank = indices.shape.rank
        if rank is None:
            return TensorSpec(TensorShape(None), dtype)
        if not (axis == -1 or 0 <= axis <= rank):
            raise graph_error("OneHot", f"Expected axis to be -1 or between [0, {rank + 1}).  "
                              f"But received: {axis}", indices.shape)
        d = _static_int(depth)
        dims = indices.shape.dims
        dims.insert(rank if axis == -1 else axis, d if d is None or d >= 0 else None)
        return TensorSpec(dims, dtype)

    def kernel(indices, depth, on_value, off_value, axis):
        d = int(depth)
        if d < 0:
            raise invalid_argument(f"depth must be non-negative, got: {d}")
        n = np.ndim(indices)
        if not (axis == -1 or 0 <= axis <= n):
            raise invalid_argument(f"Expected axis to be -1 or between [0, {n + 1}).  But "
                                   f"received: {axis}")
        hot = np.asarray(indices)[..., None] == np.arange(d)
        out = np.where(hot, on_value, off_value)
        return out if axis == -1 else np.moveaxis(out, -1, axis)

    check = DtypeCheck("OneHot", _ONE_HOT_INDEX, 1, attr="TI")
    grad = NON_DIFFERENTIABLE


bounded_static(OneHot)
for _op in (Reshape, Tile, Pad, PadV2, MirrorPad, Fill, BroadcastTo):
    bounded_static(_op)

RESHAPE, TRANSPOSE, CONJUGATE_TRANSPOSE = Reshape, Transpose, ConjugateTranspose
EXPAND_DIMS, SQUEEZE, CONCAT, PACK, UNPACK = ExpandDims, Squeeze, ConcatV2, Pack, Unpack
SPLIT, SPLIT_V, TILE, PAD, PAD_V2, MIRROR_PAD = Split, SplitV, Tile, Pad, PadV2, MirrorPad
FILL, ZEROS_LIKE, ONES_LIKE, IDENTITY = Fill, ZerosLike, OnesLike, Identity
SHAPE, SHAPE_N, SIZE, RANK = Shape, ShapeN, Size, Rank
BROADCAST_TO, BROADCAST_ARGS, REVERSE = BroadcastTo, BroadcastArgs, ReverseV2
RANGE, LINSPACE, ONE_HOT = Range, LinSpace, OneHot


# --- public functions ---------------------------------------------------------------------------
def _convert_all(values):
    """Convert the items of a list-typed op input: Python values take the dtype of the first
    tensor among them, as TF's op builder does (so mismatched tensors are reported by the op)."""
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), None)
    out = []
    for v in values:
        if not isinstance(v, Tensor):
            if isinstance(v, (list, tuple)) and holds_tensor(v):
                v = _auto_pack(v, dtype)
            else:
                v = convert_to_tensor(v, dtype)
            dtype = dtype or v.dtype
        out.append(v)
    return out


@tf_export("reshape")
def reshape(tensor, shape, name=None):
    """``tensor`` with the same values in ``shape`` (one entry may be -1: inferred).

    Raises:
        InvalidArgumentError: eagerly, when the sizes do not match (ValueError while tracing).
    """
    return bind(RESHAPE, convert_to_tensor(tensor), int_input(shape, hint=D.int32))


@tf_export("transpose")
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permute the dimensions of ``a`` by ``perm`` (default: reversed); ``conjugate`` also
    conjugates complex values."""
    x = convert_to_tensor(a)
    if perm is not None:
        perm = axis_attr(perm)
    elif x.shape.rank is not None:
        perm = tuple(builtins.range(x.shape.rank - 1, -1, -1))
    op = CONJUGATE_TRANSPOSE if conjugate and x.dtype.is_complex else TRANSPOSE
    return bind(op, x, perm=perm)


@tf_export("expand_dims")
def expand_dims(input, axis, name=None):
    """``input`` with a dimension of size 1 inserted at ``axis``."""
    if type(axis) is not int:
        values = np.reshape(static_ints(axis, "axis"), -1)
        if values.size != 1:
            raise arg_error("ExpandDims", "'dim' must be a tensor with a single value")
        axis = int(values[0])
    return bind(EXPAND_DIMS, convert_to_tensor(input), axis=axis)


@tf_export("squeeze")
def squeeze(input, axis=None, name=None):
    """``input`` without the dimensions of size 1 listed in ``axis`` (all of them if None)."""
    return bind(SQUEEZE, convert_to_tensor(input), squeeze_dims=axis_attr(axis) or ())


@tf_export("concat")
def concat(values, axis, name="concat"):
    """Join ``values`` along the existing dimension ``axis``."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    axis = int_attr(axis)
    if len(values) == 1:
        return identity(values[0])
    if not values:
        raise arg_error("ConcatV2", "ConcatV2 needs at least one input tensor")
    return bind(CONCAT, *_convert_all(values), axis=axis)


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
    if not values:
        return convert_to_tensor(values)
    if axis == 0 and not holds_tensor(values):
        try:
            return convert_to_tensor(values)
        except (TypeError, ValueError, NotImplementedError):
            pass  # ragged values: as TF, Pack the converted elements (and report their shapes)
    tensors = _convert_all(values)
    rank = tensors[0].shape.rank
    if rank is not None and not -rank - 1 <= axis < rank + 1:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank - 1}, {rank + 1})")
    return bind(PACK, *tensors, axis=axis)


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
    return list(bind(UNPACK, x, num=int(num), axis=axis))


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
        return list(bind(SPLIT, x, num_split=int(n), axis=axis))
    if isinstance(n, Tensor) and n.shape.rank == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument "
                         f"to split. Argument provided: {n}")
    sizes = tuple(int(s) for s in np.reshape(static_ints(n, "num_or_size_splits"), -1))
    return list(bind(SPLIT_V, x, size_splits=sizes, axis=axis))


@tf_export("tile")
def tile(input, multiples, name=None):
    """``input`` repeated ``multiples[i]`` times along dimension i."""
    return bind(TILE, convert_to_tensor(input), int_input(multiples, hint=D.int32))


@tf_export("pad")
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pad ``tensor`` by ``paddings`` ([rank, 2]: before/after per dimension).

    ``mode`` is CONSTANT (with ``constant_values``), REFLECT or SYMMETRIC (any case).
    """
    x = convert_to_tensor(tensor)
    p = int_input(paddings, hint=D.int32)
    mode = mode.upper()
    if mode == "CONSTANT":
        if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 and \
                constant_values == np.zeros_like(constant_values):
            return bind(PAD, x, p)
        return bind(PAD_V2, x, p, convert_to_tensor(constant_values, x.dtype))
    if mode in ("REFLECT", "SYMMETRIC"):
        return bind(MIRROR_PAD, x, p, mode=mode)
    raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or '
                     f'"SYMMETRIC". Received `mode` = {mode}')


@tf_export("fill")
def fill(dims, value, name=None, layout=None):
    """A tensor of shape ``dims`` filled with the scalar ``value``."""
    return bind(FILL, int_input(dims, hint=D.int32), convert_to_tensor(value))


def _filled(shape, dtype, value):
    """zeros/ones: a constant when the shape is known (and small, while tracing), else Fill."""
    dtype = D.as_dtype(dtype)
    value = scalar_array(value, dtype)  # TF refuses ones of strings: "Cannot convert 1 ..."
    if not isinstance(shape, Tensor):
        try:
            dims = TensorShape(shape).dims
        except (TypeError, ValueError):
            dims = None
        if dims is not None and None not in dims:
            if executing_eagerly() or _pymath.prod(dims) < 1000:
                return _const(np.full(dims, value, dtype=dtype._np))
            shape = dims
    dims = int_input(shape, D.int32)
    if dims.shape.rank == 0:
        dims = reshape(dims, [-1])
    return bind(FILL, dims, _const(value))


@tf_export("zeros")
def zeros(shape, dtype=D.float32, name=None, layout=None):
    """A tensor of ``shape`` filled with zeros (False, empty strings)."""
    dtype = D.as_dtype(dtype)
    return _filled(shape, dtype, "" if dtype is D.string else False if dtype is D.bool else 0)


@tf_export("ones")
def ones(shape, dtype=D.float32, name=None, layout=None):
    """A tensor of ``shape`` filled with ones (True)."""
    dtype = D.as_dtype(dtype)
    return _filled(shape, dtype, True if dtype is D.bool else 1)


def _like(op, make, input, dtype):
    x = convert_to_tensor(input)
    if dtype is not None and D.as_dtype(dtype) != x.dtype:
        return make(x.shape.dims if x.shape.is_fully_defined() else shape(x), dtype)
    return bind(op, x)


@tf_export("zeros_like")
def zeros_like(input, dtype=None, name=None, layout=None):
    """Zeros with the shape of ``input`` (and its dtype unless ``dtype`` is given)."""
    return _like(ZEROS_LIKE, zeros, input, dtype)


@tf_export("ones_like")
def ones_like(input, dtype=None, name=None, layout=None):
    """Ones with the shape of ``input`` (and its dtype unless ``dtype`` is given)."""
    return _like(ONES_LIKE, ones, input, dtype)


@tf_export("eye", "linalg.eye")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=D.float32, name=None):
    """An identity matrix (or a batch of them) of ``num_rows`` x ``num_columns``."""
    dtype = D.as_dtype(dtype)
    cols = num_rows if num_columns is None else num_columns
    if isinstance(num_rows, float) or isinstance(cols, float):
        raise TypeError("Arguments `num_rows` and `num_columns` must be positive integer values. "
                        f"Received: num_rows={num_rows}, num_columns={cols}")
    on = scalar_array(True if dtype is D.bool else 1, dtype)
    r, c = _maybe_int(num_rows), _maybe_int(cols)
    batch = [] if batch_shape is None else _maybe_ints(batch_shape)
    if r is not None and c is not None and batch is not None:
        for d in [r, c] + batch:
            if d < 0:
                raise arg_error("Fill", f"Dimension {d} must be >= 0")
        matrix = np.eye(r, c, dtype=dtype._np)
        return _const(np.broadcast_to(matrix, batch + [r, c]).copy() if batch else matrix)
    rows = convert_to_tensor(num_rows, D.int32)
    matrix = one_hot(range(rows), convert_to_tensor(cols, D.int32), on_value=_const(on),
                     off_value=_const(np.zeros((), dtype._np)), dtype=dtype)
    if batch_shape is None:
        return matrix
    return broadcast_to(matrix, concat([int_input(batch_shape, D.int32), shape(matrix)], 0))


def _maybe_int(value):
    v = value if type(value) is int else static_value(value) if isinstance(value, Tensor) else \
        np.asarray(value)
    return None if v is None else int(v)


def _maybe_ints(value):
    if isinstance(value, (list, tuple)) and holds_tensor(value):
        return None
    v = static_value(value) if isinstance(value, Tensor) else np.asarray(value)
    return None if v is None else [int(d) for d in np.reshape(v, -1)]


@tf_export("identity")
def identity(input, name=None):
    """A tensor with the same value as ``input``."""
    return bind(IDENTITY, convert_to_tensor(input))


@tf_export("shape")
def shape(input, out_type=None, name=None):
    """The shape of ``input`` as a 1-D tensor of ``out_type`` (default int32)."""
    out_type = D.int32 if out_type is None else D.as_dtype(out_type)
    return bind(SHAPE, convert_to_tensor(input), out_type=out_type)


@tf_export("shape_n")
def shape_n(input, out_type=D.int32, name=None):
    """The shapes of the tensors in ``input`` (a tensor is taken as the list of its rows)."""
    if isinstance(input, Tensor):
        input = unstack(input)
    return list(bind(SHAPE_N, *_convert_all(input), out_type=D.as_dtype(out_type)))


@tf_export("size")
def size(input, out_type=None, name=None):
    """The number of elements of ``input`` (a constant when its shape is known)."""
    out_type = D.int32 if out_type is None else D.as_dtype(out_type)
    x = convert_to_tensor(input)
    if x.shape.is_fully_defined():
        return _const(np.array(x.shape.num_elements(), dtype=out_type._np))
    return bind(SIZE, x, out_type=out_type)


@tf_export("rank")
def rank(input, name=None):
    """The number of dimensions of ``input`` (a constant when it is known)."""
    x = convert_to_tensor(input)
    if x.shape.rank is not None:
        return _const(np.array(x.shape.rank, dtype=np.int32))
    return bind(RANK, x)


@tf_export("broadcast_to")
def broadcast_to(input, shape, name=None):
    """``input`` broadcast to ``shape``."""
    return bind(BROADCAST_TO, convert_to_tensor(input), int_input(shape, hint=D.int32))


@tf_export("broadcast_static_shape")
def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes.

    Raises:
        ValueError: if they are incompatible.
    """
    x, y = as_shape(shape_x), as_shape(shape_y)
    try:
        return broadcast_shape(x, y)
    except ValueError:
        raise ValueError("Incompatible shapes for broadcasting. Two shapes are compatible if for "
                         "each dimension pair they are either equal or one of them is 1. "
                         f"Received: {x} and {y}.") from None


@tf_export("broadcast_dynamic_shape")
def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two shapes given as 1-D int tensors (a BroadcastArgs op)."""
    dtype = next((v.dtype for v in (shape_x, shape_y) if isinstance(v, Tensor)), None)
    return bind(BROADCAST_ARGS, int_input(shape_x, dtype, D.int32),
                int_input(shape_y, dtype, D.int32))


@tf_export("reverse")
def reverse(tensor, axis, name=None):
    """``tensor`` with the order of elements reversed along each dimension in ``axis``."""
    if isinstance(axis, (int, np.integer)) or np.ndim(static_ints(axis, "axis")) == 0:
        raise arg_error("ReverseV2", "'dims' must be 1-dimension, not 0")
    return bind(REVERSE, convert_to_tensor(tensor), axis=axis_attr(axis))


def _check_reverse_sequence(x, lengths, seq, batch):
    """TF's ReverseSequence runtime checks, on the values known now (eagerly: all of them)."""
    from ... import errors

    if seq == batch:
        raise errors.invalid_argument(f"batch_dim == seq_dim == {seq}", "ReverseSequence")
    n = static_value(lengths)
    dims = x.shape.dims
    if n is None or dims is None:
        return
    n = np.asarray(n).astype(np.int64)
    if dims[batch] is not None and (n.ndim != 1 or n.shape[0] != dims[batch]):
        raise errors.invalid_argument(f"Length of seq_lengths != input.dims({batch}), "
                                      f"({n.size} vs. {dims[batch]})", "ReverseSequence")
    steps = dims[seq]
    bad = (n < 0) | (n > (np.iinfo(np.int64).max if steps is None else steps))
    if bad.any():  # TF reports the first bad entry
        b = int(np.argmax(bad))
        raise errors.invalid_argument(f"seq_lens({b}) < 0" if n[b] < 0 else
                                      f"seq_lens({b}) > input.dims({seq})", "ReverseSequence")


@tf_export("reverse_sequence")
def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):
    """Reverse the first ``seq_lengths[b]`` entries along ``seq_axis`` of each batch entry b
    (composed, as a gather with batch_dims, so its gradient is the gather's)."""
    from ..indexing import gather
    from ..math import less, where

    x = convert_to_tensor(input)
    lengths = convert_to_tensor(seq_lengths)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("tf.reverse_sequence needs an input of known rank")
    seq = int_attr(0 if seq_axis is None else seq_axis) % rank
    batch = int_attr(0 if batch_axis is None else batch_axis) % rank
    _check_reverse_sequence(x, lengths, seq, batch)
    perm = [batch, seq] + [a for a in builtins.range(rank) if a not in (batch, seq)]
    moved = transpose(x, perm)
    steps = shape(moved, out_type=lengths.dtype)[1]
    t = expand_dims(range(steps, dtype=lengths.dtype), 0)
    n = expand_dims(lengths, 1)
    source = where(less(t, n), n - 1 - t, t + 0 * n)  # [batch, steps]
    out = gather(moved, source, axis=1, batch_dims=1)
    return transpose(out, [perm.index(a) for a in builtins.range(rank)])


@tf_export("range")
def range(start, limit=None, delta=1, dtype=None, name="range"):
    """``[start, start + delta, ...)`` up to ``limit`` (``range(n)`` counts from 0).

    Without ``dtype`` the widest of the arguments' dtypes wins (int32 < int64 < float16 <
    float32 < float64), as in TF: ``range(5)`` is int32, ``range(1, 2.5, 0.5)`` float32.
    """
    if limit is None:
        start, limit = 0, start
    dtype = None if dtype is None else D.as_dtype(dtype)
    args = (start, limit, delta)
    tensors = [a if isinstance(a, Tensor) else scalar_tensor(a, dtype) for a in args]
    if dtype is None:
        for t in tensors:
            if t.dtype not in _RANGE_HIERARCHY:
                raise TypeError(f"tf.range does not accept arguments of dtype {t.dtype.name}")
        dtype = max((t.dtype for t in tensors), key=_RANGE_HIERARCHY.index)
    tensors = [t if t.dtype == dtype else
               public("cast")(t, dtype) if isinstance(a, Tensor) else scalar_tensor(a, dtype)
               for a, t in zip(args, tensors)]
    return bind(RANGE, *tensors)


@tf_export("linspace")
def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop``, both included; N-d ``start`` and
    ``stop`` broadcast and the values run along ``axis``. Integers give float64."""
    start = convert_to_tensor(start)
    stop = convert_to_tensor(stop, start.dtype) if not isinstance(stop, Tensor) else stop
    num = convert_to_tensor(num)
    if not num.dtype.is_integer:
        raise TypeError("Argument `tensor` (name: num) must be of type integer. Received `tensor` "
                        f"= {num.numpy() if hasattr(num, 'numpy') else num} of dtype: {num.dtype}")
    if start.dtype.is_integer:
        wide = D.float64 if start.dtype.size >= 4 else D.float32
        start, stop = (public("cast")(t, wide) for t in (start, stop))
    axis = int_attr(axis)
    rank = broadcast_shape(start.shape, stop.shape, "LinSpace").rank
    if rank is not None and not -rank - 1 <= axis <= rank:
        raise arg_error("ExpandDims", f"Tried to expand dim index {axis} for tensor with {rank} "
                        "dimensions.")
    return bind(LINSPACE, start, stop, num, axis=axis)


@tf_export("meshgrid")
def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D ``args``: ``indexing`` "xy" (Cartesian, default) or "ij"."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    for key in kwargs:
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError("Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    ndim = len(args)
    if not ndim:
        return []
    ones_shape = (1,) * ndim
    outputs = [reshape(stack(x), ones_shape[:i] + (-1,) + ones_shape[i + 1:])
               for i, x in enumerate(args)]
    sizes = [size(x) for x in args]
    dtype = convert_to_tensor(args[0]).dtype
    if indexing == "xy" and ndim > 1:  # TF's way: swap the first two axes
        outputs[0] = reshape(outputs[0], (1, -1) + (1,) * (ndim - 2))
        outputs[1] = reshape(outputs[1], (-1, 1) + (1,) * (ndim - 2))
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grid = ones(sizes, dtype)
    return [x * grid for x in outputs]


@tf_export("one_hot")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A one-hot tensor: ``on_value`` (default 1) where ``indices`` points, ``off_value``
    (default 0) elsewhere, along a new dimension ``axis`` (default last) of size ``depth``.

    Raises:
        TypeError: if ``on_value``, ``off_value`` and ``dtype`` disagree.
    """
    dtype = None if dtype is None else D.as_dtype(dtype)
    values = {}
    for key, value in (("on_value", on_value), ("off_value", off_value)):
        if value is not None:
            values[key] = _hinted(value, dtype)
            if dtype is not None and values[key].dtype != dtype:
                raise TypeError(f"dtype {values[key].dtype} of {key} does not match dtype "
                                f"parameter {dtype}")
    if dtype is None:
        dtype = next((v.dtype for v in values.values()), D.float32)
    on = values.get("on_value")
    off = values.get("off_value")
    on = on if on is not None else scalar_tensor(1, dtype)
    off = off if off is not None else scalar_tensor(0, dtype)
    if on.dtype != off.dtype:
        raise TypeError(f"dtype {on.dtype} of on_value does not match dtype {off.dtype} of "
                        "off_value")
    indices = convert_to_tensor(indices, dtype_hint=D.int64)  # TF prefers OneHot's default TI
    return bind(ONE_HOT, indices, scalar_tensor(depth, D.int32), on, off,
                axis=-1 if axis is None else int_attr(axis))


def _hinted(value, dtype):
    """``convert_to_tensor(value, dtype_hint=dtype)``, fast for Python scalars."""
    try:
        return scalar_tensor(value, dtype)
    except (TypeError, ValueError):
        return scalar_tensor(value)


@tf_export("sequence_mask")
def sequence_mask(lengths, maxlen=None, dtype=D.bool, name=None):
    """``mask[i..., j] = j < lengths[i...]`` for j below ``maxlen`` (default: max of lengths)."""
    from ..reduce import reduce_max

    lengths = convert_to_tensor(lengths)
    if maxlen is None:
        maxlen = public("math.maximum")(convert_to_tensor(0, lengths.dtype), reduce_max(lengths))
    else:
        maxlen = convert_to_tensor(maxlen)
    if maxlen.shape.rank not in (None, 0):
        raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` "
                         f"= {maxlen} with shape '{maxlen.shape}' instead")
    row = bind(RANGE, convert_to_tensor(0, maxlen.dtype), maxlen,
               convert_to_tensor(1, maxlen.dtype))
    column = expand_dims(lengths, -1)
    if column.dtype != maxlen.dtype:
        column = public("cast")(column, maxlen.dtype)
    result = public("math.less")(row, column)
    dtype = D.as_dtype(dtype)
    return result if dtype is D.bool else public("cast")(result, dtype)


# --- gradients --------------------------------------------------------------------------------
# Written with public ops (see math.py's gradients); they follow TF's array_grad.py. Static
# shapes become constants; unknown ones are read with ``shape`` at run time.
def _grad_util():
    from ...autodiff import grad_util

    return grad_util


def _like_input(op, dy):
    """dy reshaped to the shape of the op's first input (Reshape, Squeeze, ExpandDims)."""
    return reshape(dy, _grad_util().shape_of(op.inputs[0])), None


def _inverse_perm(perm, rank):
    perm = [p % rank for p in perm]
    return tuple(perm.index(i) for i in builtins.range(rank))


def _transpose_grad(op, dy):
    perm = op.attrs["perm"]
    if perm is not None:
        perm = _inverse_perm(perm, len(perm))
    return bind(op.opdef, dy, perm=perm)


def _expand_dims_grad(op, dy):
    x = op.inputs[0]
    if x.shape.rank is not None:
        return squeeze(dy, [op.attrs["axis"] % (x.shape.rank + 1)])
    return reshape(dy, shape(x))


def _axis_sizes(values, axis):
    """Each input's size along ``axis``: ints when all are static, else int32 tensors."""
    sizes = []
    for v in values:
        rank = v.shape.rank
        d = v.shape[axis] if rank is not None else None
        sizes.append(d)
    if None not in sizes:
        return sizes
    return [shape(v)[axis] for v in values]


def _concat_grad(op, dy):
    values, axis = op.inputs, op.attrs["axis"]
    sizes = _axis_sizes(values, axis)
    if all(type(s) is int for s in sizes):
        return split(dy, sizes, axis) if len(sizes) > 1 else [dy]
    slice_ = public("slice")
    rank = values[0].shape.rank
    if rank is None:
        raise NotImplementedError("the gradient of concat needs inputs of known rank")
    axis %= rank
    out, offset = [], 0
    for v, n in zip(values, sizes):
        begin = [0] * axis + [offset] + [0] * (rank - axis - 1)
        out.append(slice_(dy, begin, shape(v)))
        offset = offset + n
    return out


def _pad_grad(op, dy):
    """The slice of dy where the input sits (PadV2's constant gets None, as in TF)."""
    x, paddings = op.inputs[0], op.inputs[1]
    p = static_value(paddings)
    if p is not None:
        begin, size = np.reshape(p, (-1, 2))[:, 0].tolist(), _grad_util().shape_of(x)
    else:
        begin = reshape(public("slice")(paddings, [0, 0], [-1, 1]), [-1])
        size = shape(x, out_type=paddings.dtype)
    return (public("slice")(dy, begin, size), None) + ((None,) if len(op.inputs) == 3 else ())


def _mirror_indices(d, before, after, mode):
    """For each position of a mirror-padded axis, the input index it copies."""
    skip = 1 if mode == "REFLECT" else 0
    left = reverse(range(skip, before + skip), [0])
    right = (d - 1 - skip) - range(after)
    return concat([left, range(d), right], 0)


def _mirror_pad_grad(op, dy):
    """Each padded position sends its gradient back to the input position it copied."""
    x, paddings = op.inputs[0], op.inputs[1]
    rank = x.shape.rank
    p = static_value(paddings)
    if rank is None or p is None:
        raise NotImplementedError("the gradient of MirrorPad needs a known rank and paddings")
    segment_sum = public("math.unsorted_segment_sum")
    sizes = _grad_util().static_dims(x) or [None] * rank
    for axis, (before, after) in enumerate(np.reshape(p, (rank, 2)).tolist()):
        if not before and not after:
            continue
        d = sizes[axis] if sizes[axis] is not None else shape(x)[axis]
        perm = [axis] + [i for i in builtins.range(rank) if i != axis]
        moved = transpose(dy, perm) if axis else dy
        summed = segment_sum(moved, _mirror_indices(d, before, after, op.attrs["mode"]), d)
        dy = transpose(summed, _inverse_perm(perm, rank)) if axis else summed
    return dy, None


def _tile_grad(op, dy):
    """Sum the copies: view dy as [m0, d0, m1, d1, ...] and sum the m axes."""
    x, multiples = op.inputs
    dims, m = _grad_util().static_dims(x), static_value(multiples)
    if dims is not None and m is not None:
        m = np.reshape(m, -1).tolist()
        if m == [1] * len(m):
            return dy, None
        split_shape = [k for pair in zip(m, dims) for k in pair]
        return reduce_sum_(reshape(dy, split_shape), list(builtins.range(0, 2 * len(m), 2))), None
    rank = x.shape.rank
    if rank is None:
        raise NotImplementedError("the gradient of tile needs an input of known rank")
    pairs = stack([public("cast")(multiples, D.int32), shape(x)], axis=1)
    return reduce_sum_(reshape(dy, reshape(pairs, [-1])),
                       list(builtins.range(0, 2 * rank, 2))), None


def reduce_sum_(x, axis):
    from ..reduce import reduce_sum

    return reduce_sum(x, axis)


def _fill_grad(op, dy):
    value = op.inputs[1]
    total = reduce_sum_(dy, None)
    return None, total if value.shape.rank == 0 else reshape(total, [1])


def _linspace_grad(op, dy):
    """d/dstart is 1 - t and d/dstop is t, with t running from 0 to 1 along ``axis``."""
    start, stop, num = op.inputs
    axis = op.attrs["axis"]
    t = bind(LINSPACE, convert_to_tensor(0, dy.dtype), convert_to_tensor(1, dy.dtype), num,
             axis=0)
    rank = dy.shape.rank
    if rank is None:
        raise NotImplementedError("the gradient of linspace needs a result of known rank")
    axis %= rank
    t = reshape(t, [-1] + [1] * (rank - axis - 1))
    util = _grad_util()
    from ..reduce import reduce_sum

    return (util.unbroadcast(reduce_sum(dy * (1 - t), axis), start, stop),
            util.unbroadcast(reduce_sum(dy * t, axis), stop, start), None)


def _broadcast_to_grad(op, dy):
    return _grad_util().unbroadcast(dy, op.inputs[0]), None


Reshape.grad = _like_input
Squeeze.grad = lambda op, dy: reshape(dy, _grad_util().shape_of(op.inputs[0]))
ExpandDims.grad = _expand_dims_grad
Transpose.grad = ConjugateTranspose.grad = _transpose_grad
ConcatV2.grad = _concat_grad
Pack.grad = lambda op, dy: unstack(dy, len(op.inputs), op.attrs["axis"])
Unpack.grad = lambda op, *dys: stack(list(dys), op.attrs["axis"])
Split.grad = lambda op, *dys: concat(list(dys), op.attrs["axis"])
SplitV.grad = lambda op, *dys: concat(list(dys), op.attrs["axis"])
Tile.grad = _tile_grad
Pad.grad = PadV2.grad = _pad_grad
MirrorPad.grad = _mirror_pad_grad
Fill.grad = _fill_grad
Identity.grad = lambda op, dy: dy
BroadcastTo.grad = _broadcast_to_grad
ReverseV2.grad = lambda op, dy: reverse(dy, op.attrs["axis"]) if op.attrs["axis"] else dy
LinSpace.grad = _linspace_grad


# --- StopGradient -------------------------------------------------------------------------------
@define_op("StopGradient", expr="{0}")
class StopGradient:
    """The input, unchanged; tapes see no path through it."""

    def infer(input):
        return TensorSpec(input.shape, input.dtype)

    def kernel(input):
        return input

    grad = NON_DIFFERENTIABLE


@tf_export("stop_gradient")
def stop_gradient(input, name=None):
    """``input``, treated as a constant by gradients."""
    return bind(StopGradient, convert_to_tensor(input))


# --- SumToShape ---------------------------------------------------------------------------------
@define_op("SumToShape")
class SumToShape:
    """``x`` summed over the axes along which ``shape`` was broadcast to give x's shape.

    TF spells this BroadcastGradientArgs + Sum(reduction_indices) + Reshape; our Sum takes its
    axes as an attr, so the three are one op here. Gradients emit it only when static shapes
    cannot tell which axes were broadcast.
    """

    def infer(x, shape):
        check_index("SumToShape", shape, "shape")
        return TensorSpec(TensorShape(shape_values(shape)), x.dtype)

    def kernel(x, shape):
        target = tuple(shape.tolist())
        if np.shape(x) == target:
            return x
        axes = unbroadcast_axes(np.shape(x), target)
        return np.add.reduce(x, axis=axes, dtype=x.dtype).reshape(target)

    def grad(op, dy):
        return broadcast_to(dy, shape(op.inputs[0])), None


def sum_to_shape(x, shape):
    """``x`` summed back to ``shape`` (a 1-D int tensor), undoing broadcasting."""
    return bind(SumToShape, x, shape)
