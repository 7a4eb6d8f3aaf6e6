"""``tf.where``: the coordinates of true elements (``Where``) or an elementwise choice between two
tensors (``SelectV2``)."""

import numpy as np

from ... import dtypes as D
from ... import errors
from ..._export import tf_export
from ...composite import fallback
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...tensor import Tensor, TensorSpec
from .._base import broadcast_shape, check_dtypes, check_fixed, dtypes_named
from .operands import bools, same_dtype_operands

_WHERE = dtypes_named("float32 float64 int32 uint8 int16 int8 complex64 int64 bfloat16 uint16 "
                      "complex128 float16 uint32 uint64 bool")


@define_op("Where")
class Where:
    """The int64 coordinates of the true (nonzero) elements of ``input``, one row each."""

    def infer(x):
        check_dtypes("Where", (x,), _WHERE, ("input",))
        return TensorSpec([None, x.shape.rank], D.int64)

    def kernel(x):
        if x.ndim == 0:
            raise invalid_argument("WhereOp : Unhandled input dimensions: 0")
        if x.dtype == np.float16:
            raise errors.UnimplementedError(
                None, None, "No WhereOp available for float16/half type on CPU; dying in CPU "
                            "WhereOp to avoid silently creating costly copies from device.")
        return np.argwhere(x).astype(np.int64, copy=False)

    check = DtypeCheck("Where", _WHERE, 1)


@define_op("SelectV2")
class SelectV2:
    """``t`` where ``condition`` holds, else ``e``; all three broadcast."""

    def infer(condition, t, e):
        check_fixed("SelectV2", (condition,), ("condition",))
        check_dtypes("SelectV2", (t, e), None, ("t", "e"))
        shape = broadcast_shape(broadcast_shape(condition.shape, t.shape, "SelectV2"), e.shape,
                                "SelectV2")
        return TensorSpec(shape, t.dtype)

    def kernel(condition, t, e):
        try:
            return np.where(condition, t, e)
        except ValueError:
            raise invalid_argument(
                f"condition {shape_text(np.shape(condition))}, then {shape_text(np.shape(t))}, "
                f"and else {shape_text(np.shape(e))} must be broadcastable") from None

    # TF numbers the inputs after the condition: a mismatched ``e`` is input #2
    check = DtypeCheck("SelectV2", None, 2, first=1, fixed={0: D.bool})


@tf_export("where")
def where(condition, x=None, y=None, name=None):
    """The int64 coordinates of true (nonzero) elements of ``condition`` (Where), or elementwise
    ``x`` where ``condition`` holds and ``y`` elsewhere, all broadcast (SelectV2).

    Raises:
        ValueError: if only one of ``x`` and ``y`` is given.
    """
    if x is None and y is None:
        if not isinstance(condition, Tensor):
            try:
                condition = convert_to_tensor(condition, dtype_hint=D.bool)
            except (TypeError, ValueError):  # a composite condition (ragged)
                return fallback(where, (condition,), {})
        return bind(Where, condition)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    try:
        condition, = bools(condition)
        x, y = same_dtype_operands(x, y)
    except (TypeError, ValueError):  # composite arguments (ragged) have their own form
        return fallback(where, (condition, x, y), {})
    return bind(SelectV2, condition, x, y)
