"""Lowerings of elementwise math: arithmetic, transcendental functions, comparisons, logic,
casts and selects, to ``jax.numpy``/``jax.lax`` with TF's semantics."""

from jax import lax
from jax import numpy as jnp
from jax.scipy import special

from ...dtypes import as_dtype
from ..compiler import lowering, simple


def _integer(x):
    return jnp.issubdtype(jnp.result_type(x), jnp.integer)


def _div(x, y):  # TF's Div: C's truncating division on integers
    return lax.div(x, y) if _integer(x) else jnp.true_divide(x, y)


def _div_no_nan(x, y):
    return jnp.where(y == 0, jnp.zeros_like(x), x / jnp.where(y == 0, jnp.ones_like(y), y))


def _xlogy(x, y):
    return jnp.where(x == 0, jnp.zeros_like(x), x * jnp.log(y))


def _xdivy(x, y):
    return jnp.where(x == 0, jnp.zeros_like(x), x / y)


def _floor_div(x, y):
    return jnp.floor_divide(x, y) if _integer(x) else jnp.floor(x / y)


for _name, _fn in {
    "Add": jnp.add, "AddV2": jnp.add, "Sub": jnp.subtract, "Mul": jnp.multiply,
    "RealDiv": jnp.true_divide, "Div": _div, "FloorDiv": _floor_div, "FloorMod": jnp.mod,
    "TruncateDiv": lax.div, "TruncateMod": lax.rem, "Pow": jnp.power,
    "Maximum": jnp.maximum, "Minimum": jnp.minimum, "SquaredDifference":
        lambda x, y: jnp.square(x - y), "DivNoNan": _div_no_nan, "Xlogy": _xlogy,
    "Xdivy": _xdivy, "MulNoNan": lambda x, y: jnp.where(y == 0, jnp.zeros_like(x), x * y),
    "Atan2": jnp.arctan2,
    "Equal": jnp.equal, "NotEqual": jnp.not_equal, "Less": jnp.less, "LessEqual": jnp.less_equal,
    "Greater": jnp.greater, "GreaterEqual": jnp.greater_equal,
    "LogicalAnd": jnp.logical_and, "LogicalOr": jnp.logical_or,
    "BitwiseAnd": jnp.bitwise_and, "BitwiseOr": jnp.bitwise_or, "BitwiseXor": jnp.bitwise_xor,
    "Neg": jnp.negative, "Abs": jnp.abs, "Sign": jnp.sign, "Square": jnp.square,
    "Sqrt": jnp.sqrt, "Rsqrt": lax.rsqrt, "Exp": jnp.exp, "Expm1": jnp.expm1, "Log": jnp.log,
    "Log1p": jnp.log1p, "Sin": jnp.sin, "Cos": jnp.cos, "Tan": jnp.tan, "Asin": jnp.arcsin,
    "Acos": jnp.arccos, "Atan": jnp.arctan, "Sinh": jnp.sinh, "Cosh": jnp.cosh,
    "Tanh": jnp.tanh, "Asinh": jnp.arcsinh, "Acosh": jnp.arccosh, "Atanh": jnp.arctanh,
    "Sigmoid": lambda x: lax.logistic(x), "Softplus": lambda x: jnp.logaddexp(x, 0),
    "Softsign": lambda x: x / (1 + jnp.abs(x)), "Reciprocal": jnp.reciprocal,
    "Inv": jnp.reciprocal, "Floor": jnp.floor, "Ceil": jnp.ceil, "Round": jnp.round,
    "Rint": jnp.rint, "Erf": special.erf, "Erfc": special.erfc, "Lgamma": special.gammaln,
    "Digamma": special.digamma, "IsNan": jnp.isnan, "IsInf": jnp.isinf,
    "IsFinite": jnp.isfinite, "LogicalNot": jnp.logical_not, "Invert": jnp.invert,
    "Real": jnp.real, "Imag": jnp.imag, "Conj": jnp.conj, "Angle": jnp.angle,
    "ComplexAbs": jnp.abs, "Select": jnp.where, "SelectV2": jnp.where,
    "ClipByValue": lambda t, lo, hi: jnp.minimum(jnp.maximum(t, lo), hi),
}.items():
    simple(_name, _fn)


@lowering("AddN")
def _add_n(op, *xs):
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    return total


@lowering("Cast")
def _cast(op, x, SrcT, DstT, Truncate=False):
    dst = as_dtype(DstT)._np
    if jnp.issubdtype(dst, jnp.integer) and jnp.issubdtype(jnp.result_type(x), jnp.floating):
        x = jnp.trunc(x)  # TF truncates toward zero
    if dst == bool:
        return x != 0
    return x.astype(dst)


@lowering("Complex")
def _complex(op, real, imag, Tout=None):
    return lax.complex(real, imag)
