"""Ops with a bool answer or bitwise integers: comparisons, equality, the float tests (IsNan ...),
logic on bool tensors, and bitwise operations."""

import builtins
import operator

import numpy as np

from ... import dtypes as D
from ..._export import export_function, tf_export
from ...composite import fallback
from ...context import bind
from ...registry import DtypeCheck, OpDef, register
from ...shapes import TensorShape
from ...tensor import TensorSpec
from .._base import ALL, broadcast_shape, check_dtypes, check_fixed, dtypes_named
from ._families import FLOATING, binary_op, unary_op
from .operands import bools, same_dtype_operands

_COMPARE = dtypes_named("float32 float64 int32 uint8 int16 int8 int64 bfloat16 uint16 float16 "
                        "uint32 uint64")
_BITWISE = dtypes_named("int8 int16 int32 int64 uint8 uint16 uint32 uint64")

# --- ordering ------------------------------------------------------------------------------------
# Python's comparison operators on NumPy values are the ufuncs, but scalars skip the ufunc call.
LESS, less = binary_op("Less", operator.lt, _COMPARE, "math.less", "less", out=D.bool,
                       expr="({0} < {1})", doc="x < y elementwise.")
LESS_EQUAL, less_equal = binary_op("LessEqual", operator.le, _COMPARE, "math.less_equal",
                                   "less_equal", out=D.bool, expr="({0} <= {1})",
                                   doc="x <= y elementwise.")
GREATER, greater = binary_op("Greater", operator.gt, _COMPARE, "math.greater", "greater",
                             out=D.bool, expr="({0} > {1})", doc="x > y elementwise.")
GREATER_EQUAL, greater_equal = binary_op("GreaterEqual", operator.ge, _COMPARE,
                                         "math.greater_equal", "greater_equal", out=D.bool,
                                         expr="({0} >= {1})", doc="x >= y elementwise.")

# --- float tests ---------------------------------------------------------------------------------
IS_NAN, is_nan = unary_op("IsNan", np.isnan, FLOATING, "math.is_nan", out=D.bool,
                          expr="np.isnan({0})")
IS_INF, is_inf = unary_op("IsInf", np.isinf, FLOATING, "math.is_inf", out=D.bool,
                          expr="np.isinf({0})")
IS_FINITE, is_finite = unary_op("IsFinite", np.isfinite, FLOATING, "math.is_finite",
                                out=D.bool, expr="np.isfinite({0})")


# --- equality ------------------------------------------------------------------------------------
def _lenient_broadcast_shape(a, b):
    """TF's shape rule for Equal/NotEqual with ``incompatible_shape_error=False``: a scalar when
    the shapes cannot broadcast, an unknown shape when that depends on unknown dimensions."""
    if a.rank is None or b.rank is None:
        return TensorShape(None)
    n = builtins.max(a.rank, b.rank)
    da = [1] * (n - a.rank) + a.dims
    db = [1] * (n - b.rank) + b.dims
    out = []
    for x, y in zip(da, db):
        if x is None or y is None:
            known = x if y is None else y
            if known is not None and known != 1:
                return TensorShape(None)  # the unknown side may not match: no static answer
            out.append(None)
        elif x == 1 or y == 1:
            out.append(y if x == 1 else x)
        elif x != y:
            return TensorShape([])
        else:
            out.append(x)
    return TensorShape(out)


def _equality_op(name, ufunc, mismatch, *names, doc):
    """Register Equal/NotEqual and make its public function. ``incompatible_shape_error=False``
    (the ``==`` operator) turns unbroadcastable shapes into a scalar ``mismatch``; the public
    function raises for them."""

    def infer(x, y, incompatible_shape_error=True):
        check_dtypes(name, (x, y), None)
        shape = (broadcast_shape(x.shape, y.shape, name) if incompatible_shape_error
                 else _lenient_broadcast_shape(x.shape, y.shape))
        return TensorSpec(shape, D.bool)

    def kernel(x, y, incompatible_shape_error=True):
        try:
            out = ufunc(x, y)
        except ValueError:
            if incompatible_shape_error:
                raise
            return np.bool_(mismatch)
        return out if x.dtype != object else np.asarray(out, dtype=np.bool_)

    opdef = register(OpDef(name, infer, kernel, check=DtypeCheck(name, ALL)))

    def fn(x, y, name=None):
        try:
            x, y = same_dtype_operands(x, y)
        except (TypeError, ValueError):  # a composite argument (ragged) has its own form
            return fallback(fn, (x, y), {"name": name}, elementwise=True)
        return bind(opdef, x, y, incompatible_shape_error=True)

    return opdef, export_function(fn, *names, doc=doc)


EQUAL, equal = _equality_op(
    "Equal", np.equal, False, "math.equal", "equal",
    doc="x == y elementwise; shapes that cannot broadcast raise (unlike the ``==`` operator).")
NOT_EQUAL, not_equal = _equality_op(
    "NotEqual", np.not_equal, True, "math.not_equal", "not_equal",
    doc="x != y elementwise; shapes that cannot broadcast raise (unlike the ``!=`` operator).")


# --- logic ---------------------------------------------------------------------------------------
def _logical_op(name, kernel, arity, expr, *names):
    """Register a logical op (bool inputs, TF fixes their type; broadcasting; bool output) and
    make its public function, which converts Python values to bool."""
    args = ("x", "y")[:arity]

    def infer(*xs):
        check_fixed(name, xs, args)
        shape = xs[0].shape if arity == 1 else broadcast_shape(xs[0].shape, xs[1].shape, name)
        return TensorSpec(shape, D.bool)

    check = DtypeCheck(name, None, 1, fixed=dict.fromkeys(range(arity), D.bool))
    opdef = register(OpDef(name, infer, kernel, expr=expr, check=check))

    if arity == 1:
        def fn(x, name=None):
            try:
                xs = bools(x)
            except (TypeError, ValueError):  # a composite argument (ragged)
                return fallback(fn, (x,), {"name": name}, elementwise=True)
            return bind(opdef, *xs)
    else:
        def fn(x, y, name=None):
            try:
                xs = bools(x, y)
            except (TypeError, ValueError):  # a composite argument (ragged)
                return fallback(fn, (x, y), {"name": name}, elementwise=True)
            return bind(opdef, *xs)

    return opdef, export_function(fn, *names)


LOGICAL_AND, logical_and = _logical_op("LogicalAnd", np.logical_and, 2,
                                       "np.logical_and({0}, {1})", "math.logical_and",
                                       "logical_and")
LOGICAL_OR, logical_or = _logical_op("LogicalOr", np.logical_or, 2, "np.logical_or({0}, {1})",
                                     "math.logical_or", "logical_or")
LOGICAL_NOT, logical_not = _logical_op("LogicalNot", np.logical_not, 1, "np.logical_not({0})",
                                       "math.logical_not", "logical_not")


@tf_export("math.logical_xor")
def logical_xor(x, y, name="LogicalXor"):
    """(x or y) and not (x and y), built from those ops as TF builds it."""
    x, y = bools(x, y)
    return bind(LOGICAL_AND, bind(LOGICAL_OR, x, y), bind(LOGICAL_NOT, bind(LOGICAL_AND, x, y)))


# --- bitwise -------------------------------------------------------------------------------------
def _shift(ufunc):
    """TF clamps shift amounts to [0, bits - 1] (C leaves larger shifts undefined)."""

    def kernel(x, y):
        top = x.dtype.itemsize * 8 - 1
        return ufunc(x, np.clip(y, 0, top).astype(x.dtype, copy=False))

    return kernel


BITWISE_AND, bitwise_and = binary_op("BitwiseAnd", np.bitwise_and, _BITWISE,
                                     "bitwise.bitwise_and", expr="({0} & {1})")
BITWISE_OR, bitwise_or = binary_op("BitwiseOr", np.bitwise_or, _BITWISE, "bitwise.bitwise_or",
                                   expr="({0} | {1})")
BITWISE_XOR, bitwise_xor = binary_op("BitwiseXor", np.bitwise_xor, _BITWISE,
                                     "bitwise.bitwise_xor", expr="({0} ^ {1})")
LEFT_SHIFT, left_shift = binary_op("LeftShift", _shift(np.left_shift), _BITWISE,
                                   "bitwise.left_shift",
                                   doc="x << y; shifts are clamped to [0, bits - 1].")
RIGHT_SHIFT, right_shift = binary_op(
    "RightShift", _shift(np.right_shift), _BITWISE, "bitwise.right_shift",
    doc="x >> y (arithmetic for signed); shifts are clamped to [0, bits-1].")
INVERT, invert = unary_op("Invert", np.invert, _BITWISE, "bitwise.invert", expr="np.invert({0})",
                          doc="~x: flip every bit.")
