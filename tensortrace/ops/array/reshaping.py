"""Ops that rearrange a tensor's values without changing them: reshape, transpose (with
conjugation), expand_dims and squeeze."""

import math as _pymath

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...composite import CompositeTensor, fallback_call
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape
from ...tensor import TensorSpec
from .._args import arg_error, axis_attr, int_input, shape_values, static_ints
from .._base import INDEX, bounded_static, check_index, graph_error


# --- Reshape ----------------------------------------------------------------------------------
@bounded_static
@define_op("Reshape")
class Reshape:
    """Reshape ``tensor`` to ``shape`` (an int input; one entry may be -1)."""

    def infer(tensor, shape):
        check_index("Reshape", shape, "shape")
        if shape.shape.rank not in (None, 1):  # the kernel's legacy scalar is no graph shape
            raise graph_error("Reshape", f"Shape must be rank 1 but is rank {shape.shape.rank}",
                              tensor.shape, shape.shape)
        return TensorSpec(_reshaped(tensor.shape, shape_values(shape), shape), tensor.dtype)

    def kernel(tensor, shape):
        if shape.ndim > 1:  # TF's kernel still takes a scalar as a one-entry shape
            raise invalid_argument(f"sizes input must be 1-D, not {shape_text(shape.shape)}")
        return tensor.reshape(_resolve_reshape(tensor, shape.reshape(-1).tolist()))

    check = DtypeCheck("Reshape", INDEX, 1, first=1, attr="Tshape")


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


@tf_export("reshape")
def reshape(tensor, shape, name=None):
    """``tensor`` with the same values in ``shape`` (one entry may be -1: inferred).

    Raises:
        InvalidArgumentError: eagerly, when the sizes do not match (ValueError while tracing).
    """
    if isinstance(shape, CompositeTensor):  # a DynamicRaggedShape: a ragged result
        return fallback_call(reshape, (tensor, shape), {})
    return bind(Reshape, convert_to_tensor(tensor), int_input(shape, hint=D.int32))


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
        missing = min(set(range(n)) - seen)
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


@tf_export("transpose")
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permute the dimensions of ``a`` by ``perm`` (default: reversed); ``conjugate`` also
    conjugates complex values."""
    x = convert_to_tensor(a)
    axes = None  # perm stays as given: an eager error's text depends on it (messages)
    if perm is not None:
        axes = axis_attr(perm)
    elif x.shape.rank is not None:
        axes = tuple(range(x.shape.rank - 1, -1, -1))
    op = ConjugateTranspose if conjugate and x.dtype.is_complex else Transpose
    return bind(op, x, perm=axes)


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


@tf_export("expand_dims")
def expand_dims(input, axis, name=None):
    """``input`` with a dimension of size 1 inserted at ``axis``."""
    if type(axis) is not int:
        values = np.reshape(static_ints(axis, "axis"), -1)
        if values.size != 1:
            raise arg_error("ExpandDims", "'dim' must be a tensor with a single value")
        axis = int(values[0])
    return bind(ExpandDims, convert_to_tensor(input), axis=axis)


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


@tf_export("squeeze")
def squeeze(input, axis=None, name=None):
    """``input`` without the dimensions of size 1 listed in ``axis`` (all of them if None)."""
    return bind(Squeeze, convert_to_tensor(input), squeeze_dims=axis_attr(axis) or ())
