"""Gradients of the elementwise math ops, after TF's math_grad.py: complex inputs get conjugated
derivatives, and a gradient TF does not define is None (or raises, as TF's missing one does)."""

import numpy as np

from ...ops._base import COMPLEX, FLOAT
from ...ops.array.creation import ones_like, zeros_like
from ...ops.math.arithmetic import (abs, divide_no_nan, floordiv, multiply_no_nan, pow, realdiv,
                                    reciprocal, sign, square, xdivy, xlog1py, xlogy)
from ...ops.math.casting import cast
from ...ops.math.compare import greater, greater_equal, less, less_equal, logical_or, not_equal
from ...ops.math.complex_numbers import complex, conj, imag, real
from ...ops.math.operands import constant_like
from ...ops.math.select import where
from ...ops.math.special import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, digamma,
                                 polygamma, zeta)
from ...ops.math.transcendental import cos, cosh, exp, log, sigmoid, sin, sinh, sqrt
from ..grad_util import no_gradient, not_differentiable, register_gradients, skip, unbroadcast


def _one(x):
    return constant_like(1, x)


def _zero(x):
    """A scalar 0 of x's dtype: ``where(c, dy, _zero(dy))`` needs no zeros tensor."""
    return constant_like(0, x)


def _nonzero(x):
    """1 where x != 0 else 0, in x's dtype."""
    return cast(not_equal(x, _zero(x)), x.dtype)


def _as_complex(x):
    return complex(x, zeros_like(x))


def _pow_wrt_exponent(x, y, z, dy):
    cx = conj(x)
    zero = _zero(x)
    mask = not_equal(cx, zero) if x.dtype.is_complex else greater(cx, zero)
    safe_x = where(mask, cx, _one(x))
    log_x = where(mask, log(safe_x), zeros_like(x))
    return dy * conj(z) * log_x


_FLOATING_GRAD_TYPES = frozenset(FLOAT + COMPLEX)


def _castable(src, dst):
    """TF's Cast gradient flows only between float and complex types."""
    return src in _FLOATING_GRAD_TYPES and dst in _FLOATING_GRAD_TYPES


_SQRT_PI = np.sqrt(np.pi)
_UNARY = {  # op: its input's gradient from (x, y = op(x), upstream dy)
    "Neg":        lambda x, y, dy: -dy,
    "Abs":        lambda x, y, dy: dy * sign(x),
    "Sign":       lambda x, y, dy: zeros_like(x),
    "Square":     lambda x, y, dy: dy * (2 * conj(x)),
    "Sqrt":       lambda x, y, dy: dy * 0.5 / conj(y),
    "Rsqrt":      lambda x, y, dy: dy * -0.5 * conj(y) * conj(y) * conj(y),
    "Reciprocal": lambda x, y, dy: -dy * conj(y) * conj(y),
    "Exp":        lambda x, y, dy: dy * conj(y),
    "Expm1":      lambda x, y, dy: dy * exp(conj(x)),
    "Log":        lambda x, y, dy: dy * reciprocal(conj(x)),
    "Log1p":      lambda x, y, dy: dy * reciprocal(1 + conj(x)),
    "Sin":        lambda x, y, dy: dy * cos(conj(x)),
    "Cos":        lambda x, y, dy: -dy * sin(conj(x)),
    "Tan":        lambda x, y, dy: square(reciprocal(cos(conj(x)))) * dy,
    "Asin":       lambda x, y, dy: dy * reciprocal(sqrt(_one(x) - square(conj(x)))),
    "Acos":       lambda x, y, dy: -dy * reciprocal(sqrt(_one(x) - square(conj(x)))),
    "Atan":       lambda x, y, dy: dy * reciprocal(1 + square(conj(x))),
    "Sinh":       lambda x, y, dy: dy * cosh(conj(x)),
    "Cosh":       lambda x, y, dy: dy * sinh(conj(x)),
    "Tanh":       lambda x, y, dy: dy * (1 - conj(y) * conj(y)),
    "Asinh":      lambda x, y, dy: dy / cosh(conj(y)),
    "Acosh":      lambda x, y, dy: dy / sinh(conj(y)),
    "Atanh":      lambda x, y, dy: dy * reciprocal(_one(x) - square(conj(x))),
    "Sigmoid":    lambda x, y, dy: dy * (conj(y) * (1 - conj(y))),
    "Erf":        lambda x, y, dy: dy * (2 / _SQRT_PI) * exp(-square(x)),
    "Erfc":       lambda x, y, dy: dy * (-2 / _SQRT_PI) * exp(-square(x)),
    "Erfinv":     lambda x, y, dy: dy * (_SQRT_PI / 2) * exp(square(y)),
    "Ndtri":      lambda x, y, dy: dy * np.sqrt(2 * np.pi) * exp(square(y) / 2),
    "BesselI0e":  lambda x, y, dy: dy * (bessel_i1e(x) - sign(x) * y),
    "BesselI1e":  lambda x, y, dy: dy * (_i1e_prime(x, y)),
    "BesselI0":   lambda x, y, dy: dy * bessel_i1(x),
    "BesselI1":   lambda x, y, dy: dy * _i1_prime(x, y),
    "Lgamma":     lambda x, y, dy: dy * digamma(conj(x)),
    "Digamma":    lambda x, y, dy: dy * polygamma(_one(x), conj(x)),
    "Softplus":   lambda x, y, dy: dy * sigmoid(x),
    "Softsign":   lambda x, y, dy: dy / square(1 + abs(x)),
    "Conj":       lambda x, y, dy: conj(dy),
    "Real":       lambda x, y, dy: _as_complex(dy),
    "Imag":       lambda x, y, dy: complex(zeros_like(dy), dy),
    "Angle":      lambda x, y, dy: -_as_complex(dy) * reciprocal(complex(imag(x), real(x))),
    "ComplexAbs": lambda x, y, dy: divide_no_nan(_as_complex(dy) * x, _as_complex(y)),
    "Floor":      lambda x, y, dy: None,
    "Ceil":       lambda x, y, dy: None,
    "Round":      lambda x, y, dy: None,
    "Rint":       lambda x, y, dy: None,
    "Cast":       lambda x, y, dy: cast(dy, x.dtype) if _castable(x.dtype, y.dtype) else None,
}

_BINARY = {  # op: (x's gradient, y's gradient) from (x, y, z = op(x, y), upstream dy)
    "AddV2":        (lambda x, y, z, dy: dy,                 lambda x, y, z, dy: dy),
    "Add":          (lambda x, y, z, dy: dy,                 lambda x, y, z, dy: dy),
    "Sub":          (lambda x, y, z, dy: dy,                 lambda x, y, z, dy: -dy),
    "Mul":          (lambda x, y, z, dy: dy * conj(y),       lambda x, y, z, dy: conj(x) * dy),
    "RealDiv":      (lambda x, y, z, dy: realdiv(dy, conj(y)),
                     lambda x, y, z, dy: dy * realdiv(realdiv(-conj(x), conj(y)), conj(y))),
    "DivNoNan":     (lambda x, y, z, dy: divide_no_nan(dy, conj(y)),
                     lambda x, y, z, dy: dy * divide_no_nan(divide_no_nan(-conj(x), conj(y)),
                                                            conj(y))),
    "MulNoNan":     (lambda x, y, z, dy: multiply_no_nan(dy, y),
                     lambda x, y, z, dy: multiply_no_nan(x, dy)),
    "FloorMod":     (lambda x, y, z, dy: dy,
                     lambda x, y, z, dy: dy * -floordiv(conj(x), conj(y))),
    "Pow":          (lambda x, y, z, dy: dy * conj(y) * pow(conj(x), conj(y) - 1),
                     _pow_wrt_exponent),
    "Maximum":      (lambda x, y, z, dy: where(greater_equal(x, y), dy, _zero(dy)),
                     lambda x, y, z, dy: where(greater_equal(x, y), _zero(dy), dy)),
    "Minimum":      (lambda x, y, z, dy: where(less_equal(x, y), dy, _zero(dy)),
                     lambda x, y, z, dy: where(less_equal(x, y), _zero(dy), dy)),
    "SquaredDifference": (lambda x, y, z, dy: (2 * dy) * (x - y),
                          lambda x, y, z, dy: -((2 * dy) * (x - y))),
    "Xlogy":        (lambda x, y, z, dy: xlogy(_nonzero(x), y) * dy,
                     lambda x, y, z, dy: xdivy(x, y) * dy),
    "Xdivy":        (lambda x, y, z, dy: xdivy(_nonzero(x), y) * dy,
                     lambda x, y, z, dy: xdivy(-x, y * y) * dy),
    "Xlog1py":      (lambda x, y, z, dy: xlog1py(_nonzero(x), y) * dy,
                     lambda x, y, z, dy: xdivy(x, y + 1) * dy),
    "Atan2":        (lambda y, x, z, dy: x * (dy / (square(y) + square(x))),
                     lambda y, x, z, dy: -y * (dy / (square(y) + square(x)))),
    "NextAfter":    (lambda x, y, z, dy: dy,                 lambda x, y, z, dy: zeros_like(y)),
    "Zeta":         (None,  # as TF: no gradient with respect to x
                     lambda x, q, z, dy: dy * -x * zeta(x + 1, q)),
    "Polygamma":    (None,  # as TF: no gradient with respect to the order
                     lambda a, x, z, dy: dy * polygamma(a + 1, x)),
    "Complex":      (lambda x, y, z, dy: real(dy),           lambda x, y, z, dy: imag(dy)),
    "FloorDiv":     (None, None),
    "TruncateDiv":  (None, None),
}


def _i1e_prime(x, y):
    """d/dx of i1e: i0e(x) - y * (sign(x) + 1/x), with its limit 1/2 at 0 (TF's rule)."""
    safe = where(x == 0, ones_like(x), x)
    return where(x == 0, 0.5 * ones_like(x), bessel_i0e(x) - y * (sign(x) + reciprocal(safe)))


def _i1_prime(x, y):
    """d/dx of i1: i0(x) - y / x, and 1 at 0 (TF's rule imputes 1 there, not the limit 1/2)."""
    safe = where(x == 0, ones_like(x), x)
    return where(x == 0, ones_like(x), bessel_i0(x) - y / safe)


def _unary_rule(derivative):
    return lambda op, dy: derivative(op.inputs[0], op.outputs[0], dy)


def _binary_rule(wrt_x, wrt_y):
    """A broadcasting two-input rule from the partial gradients; an input the tape does not need
    (``op.skip_input_indices``) is not computed."""

    def rule(op, dy):
        x, y = op.inputs
        z = op.outputs[0]
        gx = None if wrt_x is None or skip(op, 0) else unbroadcast(wrt_x(x, y, z, dy), x, y)
        gy = None if wrt_y is None or skip(op, 1) else unbroadcast(wrt_y(x, y, z, dy), y, x)
        return gx, gy

    return rule


def _select_grad(op, dy):
    c, x, y = op.inputs
    zero = _zero(dy)
    gx = None if skip(op, 1) else unbroadcast(where(c, dy, zero), x, c, y)
    gy = None if skip(op, 2) else unbroadcast(where(c, zero, dy), y, c, x)
    return None, gx, gy


def _clip_grad(op, dy):
    x, lo, hi = op.inputs
    zero = _zero(dy)
    below, above = less(x, lo), greater(x, hi)
    return (where(logical_or(below, above), zero, dy),
            unbroadcast(where(below, dy, zero), lo, x),
            unbroadcast(where(above, dy, zero), hi, x))


register_gradients({name: _unary_rule(f) for name, f in _UNARY.items()})
register_gradients({name: _binary_rule(*fs) for name, fs in _BINARY.items()})
register_gradients({
    "SelectV2":    _select_grad,
    "ClipByValue": _clip_grad,
    "AddN":        lambda op, dy: [dy] * len(op.inputs),
    "TruncateMod": no_gradient,  # none in TF either
})
not_differentiable("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual",
                   "LogicalAnd", "LogicalOr", "LogicalNot", "BitwiseAnd", "BitwiseOr",
                   "BitwiseXor", "LeftShift", "RightShift", "Invert", "IsNan", "IsInf",
                   "IsFinite", "Where")
