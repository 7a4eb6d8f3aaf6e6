"""The elementary functions: roots, exponentials and logarithms, trigonometric and hyperbolic
functions and their inverses, and the activations sigmoid, softplus and softsign."""

import numpy as np

from ..._export import tf_export
from ...context import bind
from ...numerics import quiet, quiet2
from .._base import binary, dtypes_named
from ._families import FLOATING, FLOATING_COMPLEX, unary_op
from .arithmetic import NEG
from .operands import as_tensor, same_dtype_operands

_FEATURES = dtypes_named("float16 bfloat16 float32 float64")


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


def _sigmoid(x):
    one = x.dtype.type(1)
    if x.dtype.kind == "c":
        return one / (one + np.exp(-x))
    e = np.exp(-np.abs(x))  # never overflows: the stable form on each side of 0
    return np.where(x >= 0, one / (one + e), e / (one + e))


def _softplus(x):
    # TF's formula: x when large, exp(x) when very negative, else log1p(exp(x)); half
    # precision types are computed in float32.
    dtype = x.dtype
    if dtype.itemsize < 4:
        return _softplus(x.astype(np.float32)).astype(dtype)
    threshold = dtype.type(np.log(np.finfo(dtype).eps) + 2)
    e = np.exp(x)
    return np.where(x > -threshold, x, np.where(x < threshold, e, np.log1p(e)))


def _softsign(x):
    return x / (x.dtype.type(1) + np.abs(x))


SQRT, sqrt = unary_op("Sqrt", quiet(np.sqrt), FLOATING_COMPLEX, "math.sqrt", "sqrt",
                      doc="The square root (NaN for negatives).")
RSQRT, rsqrt = unary_op("Rsqrt", quiet(_rsqrt), FLOATING_COMPLEX, "math.rsqrt",
                        doc="1 / sqrt(x).")
EXP, exp = unary_op("Exp", quiet(np.exp), FLOATING_COMPLEX, "math.exp", "exp", doc="e ** x.")
EXPM1, expm1 = unary_op("Expm1", quiet(np.expm1), FLOATING_COMPLEX, "math.expm1",
                        doc="e ** x - 1, accurate near 0.")
LOG, log = unary_op("Log", quiet(np.log), FLOATING_COMPLEX, "math.log",
                    doc="The natural logarithm.")
LOG1P, log1p = unary_op("Log1p", quiet(np.log1p), FLOATING_COMPLEX, "math.log1p",
                        doc="log(1 + x), accurate near 0.")
SIN, sin = unary_op("Sin", quiet(np.sin), FLOATING_COMPLEX, "math.sin", "sin")
COS, cos = unary_op("Cos", quiet(np.cos), FLOATING_COMPLEX, "math.cos", "cos")
TAN, tan = unary_op("Tan", quiet(np.tan), FLOATING_COMPLEX, "math.tan", "tan")
ASIN, asin = unary_op("Asin", quiet(np.arcsin), FLOATING_COMPLEX, "math.asin", "asin")
ACOS, acos = unary_op("Acos", quiet(np.arccos), FLOATING_COMPLEX, "math.acos", "acos")
ATAN, atan = unary_op("Atan", quiet(np.arctan), FLOATING_COMPLEX, "math.atan", "atan")
SINH, sinh = unary_op("Sinh", quiet(np.sinh), FLOATING_COMPLEX, "math.sinh", "sinh")
COSH, cosh = unary_op("Cosh", quiet(np.cosh), FLOATING_COMPLEX, "math.cosh", "cosh")
TANH, tanh = unary_op("Tanh", quiet(np.tanh), FLOATING_COMPLEX, "math.tanh", "nn.tanh", "tanh")
ASINH, asinh = unary_op("Asinh", quiet(np.arcsinh), FLOATING_COMPLEX, "math.asinh", "asinh")
ACOSH, acosh = unary_op("Acosh", quiet(np.arccosh), FLOATING_COMPLEX, "math.acosh", "acosh")
ATANH, atanh = unary_op("Atanh", quiet(np.arctanh), FLOATING_COMPLEX, "math.atanh", "atanh")
SIGMOID, sigmoid = unary_op("Sigmoid", quiet(_sigmoid), FLOATING_COMPLEX, "math.sigmoid",
                            "nn.sigmoid", "sigmoid",
                            doc="1 / (1 + exp(-x)), computed without overflow.")
SOFTPLUS, softplus = unary_op("Softplus", quiet(_softplus), _FEATURES, "math.softplus",
                              "nn.softplus", arg="features",
                              doc="log(exp(x) + 1), computed without overflow.")
SOFTSIGN, softsign = unary_op("Softsign", quiet(_softsign), _FEATURES, "math.softsign",
                              "nn.softsign", arg="features", doc="x / (1 + |x|).")


@tf_export("math.log_sigmoid")
def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x)."""
    return bind(NEG, bind(SOFTPLUS, bind(NEG, as_tensor(x))))


ATAN2 = binary("Atan2", quiet2(np.arctan2), FLOATING, args=("y", "x"))


@tf_export("math.atan2", "atan2")
def atan2(y, x, name=None):
    """The angle of the point (x, y): arctan(y / x) in the right quadrant."""
    y, x = same_dtype_operands(y, x)
    return bind(ATAN2, y, x)
