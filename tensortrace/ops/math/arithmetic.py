"""Arithmetic: the four operations and their integer forms (floor and truncated division), powers,
minimum and maximum, the no-NaN and x*log(y) forms, and the one-input ones (negation, absolute
value, sign, square, reciprocal, rounding)."""

import operator

import numpy as np

from ... import dtypes as D
from ... import errors
from ..._export import tf_export
from ...composite import fallback
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...graph.naming import default_name
from ...numerics import quiet, quiet2
from ...tensor import Tensor
from .._base import COMPLEX, FLOAT, FLOAT_COMPLEX, REAL, binary, dtypes_named, object_result, unary
from ._families import F32_F64, FLOATING, FLOATING_COMPLEX, I32_I64, binary_op, unary_op
from .casting import cast
from .complex_numbers import COMPLEX_ABS
from .operands import as_tensor, constant_like, hinted_operand, operand

# --- add, subtract, multiply ---------------------------------------------------------------------
# operator.* rather than the ufuncs: same results, but NumPy scalars take their fast path. TF's
# allowed lists are in its OpDef order (its error messages list them so).
_ADD = dtypes_named("bfloat16 float16 float32 float64 uint8 uint16 uint32 uint64 int8 int16 int32 "
                    "int64 complex64 complex128")
_ADD_STRING = dtypes_named("bfloat16 float16 float32 float64 uint8 int8 int16 int32 int64 "
                           "complex64 complex128 string")
ADD = binary("AddV2", quiet2(operator.add), _ADD, expr="({0} + {1})")
ADD_STRING = binary("Add", lambda x, y: object_result(np.add(x, y)), _ADD_STRING)


@tf_export("math.add", "add")
def add(x, y, name=None):
    """x + y elementwise, with broadcasting (string tensors concatenate)."""
    try:
        x = as_tensor(x)
        y = hinted_operand(y, x)
    except (TypeError, ValueError):  # a composite argument (ragged) has its own form
        return fallback(add, (x, y), {"name": name}, elementwise=True)
    return bind(ADD_STRING if x.dtype is D.string else ADD, x, y)


SUB, subtract = binary_op(
    "Sub", quiet2(operator.sub),
    dtypes_named("bfloat16 float16 float32 float64 uint8 int8 uint16 int16 int32 int64 complex64 "
                 "complex128 uint32 uint64"),
    "math.subtract", "subtract", expr="({0} - {1})", doc="x - y elementwise.")
_MUL = dtypes_named("bfloat16 float16 float32 float64 uint8 int8 uint16 int16 int32 uint32 uint64 "
                    "int64 complex64 complex128")  # also RealDiv, FloorDiv, TruncateDiv
MUL, multiply = binary_op("Mul", quiet2(operator.mul), _MUL, "math.multiply", "multiply",
                          expr="({0} * {1})", doc="x * y elementwise.")


# --- division ------------------------------------------------------------------------------------
def _nonzero_divisor(y):
    if not np.all(y):
        raise invalid_argument("Integer division by zero")


def _truncated_nonzero_divisor(y):
    if not np.all(y):  # TF's TruncateDiv/TruncateMod report integer division by zero this way
        raise errors.InternalError(None, None, "Unexpected error in binary operator (only "
                                               "integer div and mod should have errors)")


def _floor_div(x, y):
    if x.dtype.kind in "iu":
        _nonzero_divisor(y)
        return np.floor_divide(x, y)
    return np.floor(np.true_divide(x, y))  # TF: floor(x / y); NumPy's divmod rounds otherwise


def _floor_mod(x, y):
    if x.dtype.kind in "iu":
        _nonzero_divisor(y)
        return np.remainder(x, y)
    r = np.fmod(x, y)  # TF: the sign of y, from fmod (so -6 % 3 is -0.0, unlike NumPy)
    return np.where((r != 0) & ((y < 0) != (r < 0)), r + y, r)


def _truncate_div(x, y):
    if x.dtype.kind in "iu":
        _truncated_nonzero_divisor(y)
        q = np.floor_divide(x, y)
        if x.dtype.kind == "i":
            q = q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)
        return q
    return np.trunc(np.true_divide(x, y))


def _truncate_mod(x, y):
    if x.dtype.kind in "iu":
        _truncated_nonzero_divisor(y)
    return np.fmod(x, y)


REAL_DIV, realdiv = binary_op("RealDiv", quiet2(operator.truediv), _MUL, "realdiv",
                              kernels=FLOAT_COMPLEX, doc="x / y for floats (RealDiv).")
FLOOR_DIV, floordiv = binary_op("FloorDiv", quiet(_floor_div), _MUL, "math.floordiv",
                                kernels=REAL, doc="floor(x / y); integer division by zero raises.")
FLOOR_MOD, floormod = binary_op(
    "FloorMod", quiet(_floor_mod),
    dtypes_named("int8 int16 int32 int64 uint8 uint16 uint32 uint64 bfloat16 float16 float32 "
                 "float64"),
    "math.floormod", "math.mod", doc="The remainder of floor division (sign of y).")
mod = floormod
TRUNCATE_DIV, truncatediv = binary_op("TruncateDiv", quiet(_truncate_div), _MUL, "truncatediv",
                                      kernels=REAL, doc="x / y rounded toward zero.")
TRUNCATE_MOD, truncatemod = binary_op(
    "TruncateMod", quiet(_truncate_mod),
    dtypes_named("int32 int64 bfloat16 float16 float32 float64"), "truncatemod",
    kernels=F32_F64 + I32_I64, doc="The remainder of truncated division (sign of x).")

_TRUEDIV_CASTS = {D.uint8: D.float32, D.int8: D.float32, D.uint16: D.float32,
                  D.int16: D.float32, D.uint32: D.float64, D.int32: D.float64,
                  D.uint64: D.float64, D.int64: D.float64}
_TRUEDIV_DTYPES = tuple(_TRUEDIV_CASTS) + FLOAT + COMPLEX
_TRUEDIV_NAMES = ("tf.uint8, tf.int8, tf.uint16, tf.int16, tf.uint32, tf.int32, tf.uint64, "
                  "tf.int64, tf.bfloat16, tf.float16, tf.float32, tf.float64, tf.complex64, "
                  "tf.complex128")


def true_divide(x, y, opdef=REAL_DIV, what="__truediv__"):
    """``opdef`` (x / y) on two tensors with TF's true-division rules: one dtype TF can divide,
    integers cast to floats first (int8/16 -> float32, int32/64 -> float64).

    Raises:
        TypeError: if x and y have different dtypes, or a dtype TF cannot divide (bool, string);
            ``what`` names the caller in the message.
    """
    if x.dtype != y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    if x.dtype not in _TRUEDIV_DTYPES:
        raise TypeError(f"Invalid dtype {x.dtype!r} in {what}. Expected one of "
                        f"{{{_TRUEDIV_NAMES}}}.")
    to = _TRUEDIV_CASTS.get(x.dtype)
    if to is not None:
        x, y = cast(x, to), cast(y, to)
    return bind(opdef, x, y)


@tf_export("math.truediv", "truediv")
def truediv(x, y, name=None):
    """x / y, casting integers to floats first (int8/16 -> float32, int32/64 -> float64).

    Raises:
        TypeError: if x and y have different dtypes, or a dtype TF cannot divide (bool, string).
    """
    try:
        x = as_tensor(x)
        y = hinted_operand(y, x)
    except (TypeError, ValueError):  # a composite argument (ragged) has its own form
        return fallback(truediv, (x, y), {"name": name}, elementwise=True)
    return true_divide(x, y)


@tf_export("math.divide", "divide")
def divide(x, y, name=None):
    """x / y with Python's true-division semantics (``truediv``)."""
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x, y.dtype if isinstance(y, Tensor) else None)
    return true_divide(x, hinted_operand(y, x))


# --- no-NaN forms and x * log(y) -----------------------------------------------------------------
def _zero_where(cond, value, like):
    """``value`` with zeros where ``cond`` holds, in ``like``'s dtype."""
    return np.where(cond, like.dtype.type(0), value)


def _div_no_nan(x, y):
    return _zero_where(y == 0, np.true_divide(x, y), x)


def _mul_no_nan(x, y):
    return _zero_where(y == 0, np.multiply(x, y), x)


def _xlogy(x, y):
    return _zero_where(x == 0, x * np.log(y), x)


def _xdivy(x, y):
    return _zero_where(x == 0, np.true_divide(x, y), x)


def _xlog1py(x, y):
    return _zero_where(x == 0, x * np.log1p(y), x)


DIV_NO_NAN = binary("DivNoNan", quiet(_div_no_nan),
                    dtypes_named("float16 float32 bfloat16 float64 complex64 complex128"))


@tf_export("math.divide_no_nan")
def divide_no_nan(x, y, name=None):
    """x / y, but 0 wherever y is 0 (integers are cast as ``truediv`` casts them)."""
    if not isinstance(x, Tensor) and isinstance(y, Tensor):
        x = convert_to_tensor(x, y.dtype)
    x = as_tensor(x)
    return true_divide(x, hinted_operand(y, x), DIV_NO_NAN, "tf.math.divide_no_nan")


MUL_NO_NAN = binary("MulNoNan", quiet(_mul_no_nan), FLOATING_COMPLEX)


@tf_export("math.multiply_no_nan")
def multiply_no_nan(x, y, name=None):
    """x * y, but 0 wherever y is 0 (even where x is inf or NaN)."""
    x = as_tensor(x)
    y = operand(y, x)
    if x.dtype != y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}")
    return bind(MUL_NO_NAN, x, y)


_XLOGY = dtypes_named("float16 bfloat16 float32 float64 complex64 complex128")
XLOGY, xlogy = binary_op("Xlogy", quiet(_xlogy), _XLOGY, "math.xlogy",
                         doc="0 if x == 0 else x * log(y).")
XDIVY, xdivy = binary_op("Xdivy", quiet(_xdivy), _XLOGY, "math.xdivy",
                         doc="0 if x == 0 else x / y.")
XLOG1PY, xlog1py = binary_op("Xlog1py", quiet(_xlog1py), _XLOGY, "math.xlog1py",
                             doc="0 if x == 0 else x * log1p(y).")


# --- powers, differences, extremes ---------------------------------------------------------------
def _pow(x, y):
    if type(y) is not np.ndarray or y.ndim == 0:  # a scalar exponent, usually a constant
        if x.dtype.kind == "i" and y < 0:
            raise invalid_argument("Integers to negative integer powers are not allowed")
        if y == 2 and x.dtype.kind != "c":
            return x * x  # what np.power computes for 2, without its general path
        return np.power(x, y)
    if x.dtype.kind == "i" and (y < 0).any():
        raise invalid_argument("Integers to negative integer powers are not allowed")
    return np.power(x, y)


def _squared_difference(x, y):
    d = np.subtract(x, y)
    return d * np.conj(d) if d.dtype.kind == "c" else d * d


POW, pow = binary_op("Pow", quiet(_pow), dtypes_named("bfloat16 float32 float16 float64 int8 int16 "
                                                      "int32 int64 complex64 complex128"),
                     "math.pow", "pow", doc="x ** y elementwise.")
SQUARED_DIFFERENCE, squared_difference = binary_op(
    "SquaredDifference", quiet(_squared_difference),
    dtypes_named("bfloat16 float16 float32 float64 int32 int64 complex64 complex128"),
    "math.squared_difference", doc="(x - y) * conj(x - y) elementwise.")
_MAXIMUM = dtypes_named("bfloat16 float16 float32 float64 int8 uint8 int16 uint16 int32 uint32 "
                        "int64 uint64")
MAXIMUM, maximum = binary_op("Maximum", quiet2(np.maximum), _MAXIMUM, "math.maximum", "maximum",
                             doc="max(x, y); NaN propagates.")
MINIMUM, minimum = binary_op("Minimum", quiet2(np.minimum), _MAXIMUM, "math.minimum", "minimum",
                             doc="min(x, y); NaN propagates.")
NEXT_AFTER, nextafter = binary_op("NextAfter", np.nextafter, F32_F64, "math.nextafter",
                                  args=("x1", "x2"),
                                  doc="The next representable value after x1 towards x2.")


@tf_export("math.scalar_mul", "scalar_mul")
def scalar_mul(scalar, x, name=None):
    """scalar * x, where ``scalar`` is a 0-d value converted to x's dtype."""
    x = as_tensor(x)
    scalar = operand(scalar, x)
    if scalar.shape.rank != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {scalar.shape}.")
    return bind(MUL, scalar, x)


# --- one input: sign and magnitude ---------------------------------------------------------------
def _sign(x):
    if x.dtype.kind == "c":
        a = np.abs(x)
        return _zero_where(a == 0, x / np.where(a == 0, a.dtype.type(1), a), x)
    return np.sign(x)


def _reciprocal(x):
    return np.true_divide(x.dtype.type(1), x)  # 1 / 0j is inf+nanj, as TF (not nan+nanj)


_NEG = dtypes_named("bfloat16 float16 float32 float64 int8 int16 int32 int64 complex64 "
                    "complex128")
NEG, negative = unary_op("Neg", np.negative, _NEG, "math.negative", "negative", expr="(-{0})",
                         doc="-x elementwise.")
ABS = unary("Abs", np.abs, dtypes_named("bfloat16 float16 float32 float64 int8 int16 int32 int64"),
            expr="np.abs({0})")


@tf_export("math.abs", "abs")
def abs(x, name=None):
    """|x| elementwise; complex input gives its real-valued magnitude (ComplexAbs)."""
    try:
        x = as_tensor(x)
    except (TypeError, ValueError):  # a composite argument (ragged) has its own form
        return fallback(abs, (x,), {"name": name}, elementwise=True)
    if x.dtype.is_complex:
        return bind(COMPLEX_ABS, x, Tout=x.dtype.real_dtype)
    return bind(ABS, x)


SIGN = unary("Sign", quiet(_sign), _NEG)


@tf_export("math.sign", "sign")
def sign(x, name=None):
    """-1, 0 or 1 elementwise; x / |x| (0 at 0) for complex input."""
    x = as_tensor(x)
    if x.dtype.is_complex:
        magnitude = bind(COMPLEX_ABS, x, Tout=x.dtype.real_dtype)
        return bind(DIV_NO_NAN, x, cast(magnitude, x.dtype))
    return bind(SIGN, x)


SQUARE, square = unary_op(
    "Square", quiet(np.square),
    dtypes_named("bfloat16 float16 float32 float64 int8 int16 int32 int64 uint8 uint16 uint32 "
                 "uint64 complex64 complex128"),
    "math.square", "square", doc="x * x elementwise.")
RECIPROCAL, reciprocal = unary_op("Reciprocal", quiet(_reciprocal), _NEG, "math.reciprocal",
                                  kernels=FLOAT_COMPLEX, doc="1 / x.")


@tf_export("math.reciprocal_no_nan")
def reciprocal_no_nan(x, name=None):
    """1 / x, but 0 where x is 0."""
    x = as_tensor(x)
    return bind(DIV_NO_NAN, constant_like(1, x), x)


# --- rounding: TF rounds half to even, as rint does ----------------------------------------------
ROUND = unary("Round", lambda x: x.copy() if x.dtype.kind == "i" else np.rint(x), _NEG,
              kernels=FLOAT + I32_I64)


@tf_export("math.round", "round")
def round(x, name=None):
    """Round half to even; integer tensors come back unchanged."""
    x = as_tensor(x)
    return x if x.dtype.is_integer else bind(ROUND, x)


FLOOR, floor = unary_op("Floor", np.floor, FLOATING, "math.floor", "floor",
                        expr="np.floor({0})")
CEIL, ceil = unary_op("Ceil", np.ceil, FLOATING, "math.ceil", expr="np.ceil({0})")
RINT, rint = unary_op("Rint", np.rint, FLOATING, "math.rint", kernels=F32_F64,
                      expr="np.rint({0})", doc="Round half to even.")


default_name("Add", add)  # TF's node names: math_ops' scopes, not the op types
default_name("truediv", truediv, divide)
