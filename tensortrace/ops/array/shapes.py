"""Ops that measure tensors (shape, shape_n, size, rank), with trace-time values wherever the
static shapes tell them, so that shape maths folds to constants."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...composite import CompositeTensor, fallback
from ...context import bind
from ...convert import convert_to_tensor
from ...registry import DtypeCheck, define_op, get
from ...tensor import Tensor, TensorSpec
from .._args import const
from .._base import ALL, INDEX, check_out_type, kernel_out_type
from ..math.casting import cast
from .joining import convert_list, list_dtype, unstack


def _dense_shape(value):
    """A SparseTensor's ``dense_shape``, which TF's shape, size and rank read; else None."""
    if isinstance(value, CompositeTensor):
        found = getattr(value, "dense_shape", None)
        if isinstance(found, Tensor):
            return found
    return None


def _known_shape(input, out_type):
    """Shape's trace-time value: the static shape, when fully known."""
    shape = input.shape
    if not shape.is_fully_defined() or out_type not in INDEX:
        return None
    return np.array(shape.dims, dtype=out_type._np)


@define_op("Shape", static=_known_shape)
class Shape:
    """The shape of a tensor as a 1-D int tensor."""

    def infer(input, out_type):
        check_out_type("Shape", out_type)
        rank = input.shape.rank
        return TensorSpec([rank], out_type)

    def kernel(input, out_type):
        kernel_out_type(out_type)
        return np.array(np.shape(input), dtype=out_type._np)


@tf_export("shape")
def shape(input, out_type=None, name=None):
    """The shape of ``input`` as a 1-D tensor of ``out_type`` (default int32)."""
    out_type = D.int32 if out_type is None else D.as_dtype(out_type)
    try:
        x = convert_to_tensor(input)
    except (TypeError, ValueError):  # a composite (ragged) has its own shape
        dense_shape = _dense_shape(input)
        if dense_shape is not None:
            return cast(dense_shape, out_type)
        return fallback(shape, (input,), {"out_type": out_type})
    return bind(Shape, x, out_type=out_type)


@define_op("ShapeN")
class ShapeN:
    """The shapes of several tensors (one output each)."""

    def infer(*input, out_type):
        check_out_type("ShapeN", out_type)
        list_dtype("ShapeN", input)
        return tuple(TensorSpec([t.shape.rank], out_type) for t in input)

    def kernel(*input, out_type):
        kernel_out_type(out_type)
        return tuple(np.array(np.shape(x), dtype=out_type._np) for x in input)

    def static(*input, out_type):
        values = tuple(_known_shape(t, out_type) for t in input)
        return None if any(v is None for v in values) else values

    check = DtypeCheck("ShapeN", ALL, same=None)


@tf_export("shape_n")
def shape_n(input, out_type=D.int32, name=None):
    """The shapes of the tensors in ``input`` (a tensor is taken as the list of its rows)."""
    if isinstance(input, Tensor):
        input = unstack(input)
    return list(bind(ShapeN, *convert_list(input), out_type=D.as_dtype(out_type)))


@define_op("Size")
class Size:
    """The number of elements of a tensor."""

    def infer(input, out_type):
        check_out_type("Size", out_type)
        return TensorSpec([], out_type)

    def kernel(input, out_type):
        kernel_out_type(out_type)
        return out_type._np.type(np.size(input))

    def static(input, out_type):
        shape = input.shape
        if not shape.is_fully_defined() or out_type not in INDEX:
            return None
        return np.array(shape.num_elements(), dtype=out_type._np)


@tf_export("size")
def size(input, out_type=None, name=None):
    """The number of elements of ``input`` (a constant when its shape is known)."""
    out_type = D.int32 if out_type is None else D.as_dtype(out_type)
    try:
        x = convert_to_tensor(input)
    except (TypeError, ValueError):  # a composite (ragged) has its own size
        dense_shape = _dense_shape(input)
        if dense_shape is not None:
            # reduce.py (Prod) imports this module: the op by its name
            return bind(get("Prod"), cast(dense_shape, out_type), axis=(0,), keep_dims=False)
        return fallback(size, (input,), {"out_type": out_type})
    if x.shape.is_fully_defined():
        return const(np.array(x.shape.num_elements(), dtype=out_type._np))
    return bind(Size, x, out_type=out_type)


@define_op("Rank")
class Rank:
    """The number of dimensions of a tensor (int32)."""

    def infer(input):
        return TensorSpec([], D.int32)

    def kernel(input):
        return np.int32(np.ndim(input))

    def static(input):
        rank = input.shape.rank
        return None if rank is None else np.array(rank, dtype=np.int32)


@tf_export("rank")
def rank(input, name=None):
    """The number of dimensions of ``input`` (a constant when it is known)."""
    try:
        x = convert_to_tensor(input)
    except (TypeError, ValueError):  # a composite (ragged) has its own rank
        dense_shape = _dense_shape(input)
        if dense_shape is not None:
            return size(dense_shape)
        return fallback(rank, (input,), {})
    if x.shape.rank is not None:
        return const(np.array(x.shape.rank, dtype=np.int32))
    return bind(Rank, x)
