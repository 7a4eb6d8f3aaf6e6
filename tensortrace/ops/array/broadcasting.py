"""Broadcasting: broadcast_to, the broadcast of two shapes (static, or the BroadcastArgs op), and
SumToShape, which undoes a broadcast for gradients."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape, as_shape
from ...tensor import Tensor, TensorSpec
from .._args import int_input, shape_values
from .._base import (INDEX, bounded_static, broadcast_shape, check_dtypes, check_index, graph_error,
                     unbroadcast_axes)


@bounded_static
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

    check = DtypeCheck("BroadcastTo", INDEX, 1, first=1, attr="Tidx")


@tf_export("broadcast_to")
def broadcast_to(input, shape, name=None):
    """``input`` broadcast to ``shape``."""
    return bind(BroadcastTo, convert_to_tensor(input), int_input(shape, hint=D.int32))


@define_op("BroadcastArgs")
class BroadcastArgs:
    """The broadcast of two shapes given as 1-D int tensors."""

    def infer(s0, s1):
        check_dtypes("BroadcastArgs", (s0, s1), INDEX, ("s0", "s1"))
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

    check = DtypeCheck("BroadcastArgs", INDEX, same=2)


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
    return bind(BroadcastArgs, int_input(shape_x, dtype, D.int32),
                int_input(shape_y, dtype, D.int32))


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


def sum_to_shape(x, shape):
    """``x`` summed back to ``shape`` (a 1-D int tensor), undoing broadcasting."""
    return bind(SumToShape, x, shape)
