"""Elementwise math ops, their public functions, and the Python operators on tensors."""

from . import arithmetic, casting, clip, compare, complex_numbers, operands  # noqa: F401
from . import operators, select, special, transcendental  # noqa: F401

# The names other modules import from ``ops.math``, for now (the lead points them at the
# submodules).
from .operands import (  # noqa: F401
    binary_operands, same_dtype_operands,
)
from .casting import (  # noqa: F401
    Cast as CAST, cast,
)
from .compare import (  # noqa: F401
    BITWISE_AND, BITWISE_OR, BITWISE_XOR, EQUAL, GREATER, GREATER_EQUAL, INVERT, IS_FINITE, IS_INF,
    IS_NAN, LEFT_SHIFT, LESS, LESS_EQUAL, LOGICAL_AND, LOGICAL_NOT, LOGICAL_OR, NOT_EQUAL,
    RIGHT_SHIFT, bitwise_and, bitwise_or, bitwise_xor, equal, greater, greater_equal, invert,
    is_finite, is_inf, is_nan, left_shift, less, less_equal, logical_and, logical_not, logical_or,
    logical_xor, not_equal, right_shift,
)
from .special import (  # noqa: F401
    DIGAMMA, ERF, ERFC, LGAMMA, POLYGAMMA, ZETA, _erf, _erfc, digamma, erf, erfc, lgamma,
    polygamma, zeta,
)
from .select import (  # noqa: F401
    SelectV2 as SELECT_V2, Where as WHERE, where,
)
from .complex_numbers import (  # noqa: F401
    ANGLE, COMPLEX_ABS, CONJ, Complex, IMAG_PART, REAL_PART, angle, complex, conj, imag, real,
)
from .arithmetic import (  # noqa: F401
    ABS, ADD, ADD_STRING, CEIL, DIV_NO_NAN, FLOOR, FLOOR_DIV, FLOOR_MOD, MAXIMUM, MINIMUM, MUL,
    MUL_NO_NAN, NEG, NEXT_AFTER, POW, REAL_DIV, RECIPROCAL, RINT, ROUND, SIGN, SQUARE,
    SQUARED_DIFFERENCE, SUB, TRUNCATE_DIV, TRUNCATE_MOD, XDIVY, XLOG1PY, XLOGY, abs, add, ceil,
    divide, divide_no_nan, floor, floordiv, floormod, maximum, minimum, mod, multiply,
    multiply_no_nan, negative, nextafter, pow, realdiv, reciprocal, reciprocal_no_nan, rint, round,
    scalar_mul, sign, square, squared_difference, subtract, truediv, truncatediv, truncatemod,
    xdivy, xlog1py, xlogy,
)
from .transcendental import (  # noqa: F401
    ACOS, ACOSH, ASIN, ASINH, ATAN, ATAN2, ATANH, COS, COSH, EXP, EXPM1, LOG, LOG1P, RSQRT,
    SIGMOID, SIN, SINH, SOFTPLUS, SOFTSIGN, SQRT, TAN, TANH, _sigmoid, acos, acosh, asin, asinh,
    atan, atan2, atanh, cos, cosh, exp, expm1, log, log1p, log_sigmoid, rsqrt, sigmoid, sin, sinh,
    softplus, softsign, sqrt, tan, tanh,
)
from .clip import (  # noqa: F401
    AddN as ADD_N, ClipByValue as CLIP_BY_VALUE, add_n, clip_by_value, saturate_cast,
)
