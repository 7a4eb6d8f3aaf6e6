"""TF-NumPy's elementwise functions: arithmetic with NumPy's type promotion (bool operands
take the logical op, as NumPy's ufuncs do), unary functions that compute integers in the default
float type, comparisons, logic, bitwise ops, rounding and complex parts."""

import numbers

import numpy as np

from .. import dtypes as D
from ..convert import convert_to_tensor
from ..ops.array.broadcasting import broadcast_dynamic_shape, broadcast_to
from ..ops.array.creation import fill, ones_like
from ..ops.array.shapes import shape as _shape
from ..ops.control_flow.loops import while_loop
from ..ops.math import arithmetic as A, compare as C, transcendental as T
from ..ops.math.casting import cast
from ..ops.math.clip import clip_by_value
from ..ops.math.complex_numbers import angle as _angle, conj as _conj, imag as _imag, real as _real
from ..ops.math.select import where
from ..ops.nn.activations import relu
from ..ops.reduce import reduce_all, reduce_any
from ..tensor import Tensor
from . import _lattice
from ._core import (array, asarray, config, float_type, is_inexact, promote, promote_binary,
                    result_type)


def _bin_op(fn, a, b, promote_args=True):
    a, b = promote_binary(a, b) if promote_args else (array(a), array(b))
    return fn(a, b)


def _bool_or(bool_fn, fn):
    """NumPy's ufunc on bools: ``add`` is ``or``, ``multiply`` is ``and`` ..."""
    return lambda x1, x2: bool_fn(x1, x2) if x1.dtype is D.bool else fn(x1, x2)


def add(x1, x2):
    return _bin_op(_bool_or(C.logical_or, A.add), x1, x2)


def subtract(x1, x2):
    return _bin_op(A.subtract, x1, x2)


def multiply(x1, x2):
    return _bin_op(_bool_or(C.logical_and, A.multiply), x1, x2)


def true_divide(x1, x2):
    def f(x1, x2):
        if x1.dtype is D.bool:
            x1, x2 = cast(x1, float_type()), cast(x2, float_type())
        return A.truediv(x1, x2)

    return _bin_op(f, x1, x2)


divide = true_divide


def _through_int8(fn):
    def f(x1, x2):
        if x1.dtype is D.bool:
            x1, x2 = cast(x1, D.int8), cast(x2, D.int8)
        return fn(x1, x2)

    return f


def floor_divide(x1, x2):
    return _bin_op(_through_int8(A.floordiv), x1, x2)


def mod(x1, x2):
    return _bin_op(_through_int8(A.floormod), x1, x2)


remainder = mod


def divmod(x1, x2):  # noqa: A001 - NumPy's name
    return floor_divide(x1, x2), mod(x1, x2)


def maximum(x1, x2):
    if (isinstance(x2, numbers.Real) and not isinstance(x2, bool) and x2 == 0
            and isinstance(x1, Tensor) and x1.dtype is not D.bool):
        return relu(asarray(x1))  # TF's shortcut: its gradient at 0 is relu's
    return _bin_op(_bool_or(C.logical_or, A.maximum), x1, x2)


def minimum(x1, x2):
    return _bin_op(_bool_or(C.logical_and, A.minimum), x1, x2)


def clip(a, a_min, a_max):
    if a_min is None and a_max is None:
        raise ValueError("Not more than one of `a_min` and `a_max` may be `None`.")
    if a_min is None:
        return minimum(a, a_max)
    if a_max is None:
        return maximum(a, a_min)
    a, a_min, a_max = promote(a, a_min, a_max)
    shape = broadcast_dynamic_shape(broadcast_dynamic_shape(_shape(a), _shape(a_min)),
                                    _shape(a_max))
    return clip_by_value(*[broadcast_to(t, shape) for t in (a, a_min, a_max)])


def power(x1, x2):
    return _bin_op(A.pow, x1, x2)


float_power = power


def arctan2(x1, x2):
    return _bin_op(T.atan2, x1, x2)


def nextafter(x1, x2):
    return _bin_op(A.nextafter, x1, x2)


def heaviside(x1, x2):
    def f(x1, x2):
        zero, one = convert_to_tensor(0, x2.dtype), convert_to_tensor(1, x2.dtype)
        return where(x1 < 0, zero, where(x1 > 0, one, x2))

    y = _bin_op(f, x1, x2)
    return y if is_inexact(y.dtype) else cast(y, float_type())


def hypot(x1, x2):
    return sqrt(square(x1) + square(x2))


def _floats(x1, x2):
    """Both operands in their promoted float type (NumPy's logaddexp of ints is a float)."""
    x1, x2 = promote_binary(x1, x2)
    if not is_inexact(x1.dtype):
        dtype = float_type()
        if config.mode in ("safe", "all"):  # TF's: the ints meet its exp's weak float32
            dtype = _lattice.promote((x1.dtype, False), (D.float32, True), config.mode)[0]
        x1, x2 = cast(x1, dtype), cast(x2, dtype)
    return x1, x2


def logaddexp(x1, x2):
    x1, x2 = _floats(x1, x2)
    amax = maximum(x1, x2)
    delta = x1 - x2
    return where(isnan(delta), x1 + x2, amax + log1p(exp(-abs(delta))))


def logaddexp2(x1, x2):
    x1, x2 = _floats(x1, x2)
    amax = maximum(x1, x2)
    delta = x1 - x2
    return where(isnan(delta), x1 + x2, amax + log1p(exp2(-abs(delta))) / np.log(2))


def _gcd(x1, x2):
    if not (x1.dtype.is_integer and x2.dtype.is_integer):
        raise ValueError("Arguments to gcd must be integers.")
    shape = broadcast_dynamic_shape(_shape(x1), _shape(x2))
    x1, x2 = broadcast_to(x1, shape), broadcast_to(x2, shape)
    zero, one = convert_to_tensor(0, x2.dtype), convert_to_tensor(1, x2.dtype)

    def body(a, b):  # Euclid's step on every pair whose remainder is not yet 0
        safe = where(b != 0, b, one)
        a, b = where(b != 0, b, a), where(b != 0, A.floormod(a, safe), zero)
        return where(a < b, b, a), where(a < b, a, b)

    value, _ = while_loop(lambda _, b: reduce_any(b != 0), body, (A.abs(x1), A.abs(x2)))
    return value


def gcd(x1, x2):
    return _bin_op(_gcd, x1, x2)


def lcm(x1, x2):
    def f(x1, x2):
        d = _gcd(x1, x2)
        zero = convert_to_tensor(0, d.dtype)
        safe = where(C.equal(d, 0), convert_to_tensor(1, d.dtype), d)
        return where(C.equal(d, 0), zero, A.abs(x1) * (A.abs(x2) // safe))

    return _bin_op(f, x1, x2)


def _bitwise(fn):
    def f(x1, x2):
        is_bool = x1.dtype is D.bool
        if is_bool:
            x1, x2 = cast(x1, D.int8), cast(x2, D.int8)
        r = fn(x1, x2)
        return cast(r, D.bool) if is_bool else r

    return lambda x1, x2: _bin_op(f, x1, x2)


bitwise_and = _bitwise(C.bitwise_and)
bitwise_or = _bitwise(C.bitwise_or)
bitwise_xor = _bitwise(C.bitwise_xor)


def bitwise_not(x):
    return _scalar(lambda x: C.logical_not(x) if x.dtype is D.bool else C.invert(x), x)


# --- unary --------------------------------------------------------------------------------------
def _scalar(fn, x, promote_to_float=False):
    """``fn(x)`` elementwise; integer and bool inputs computed in the default float type when
    ``promote_to_float``."""
    x = asarray(x)
    if promote_to_float and not is_inexact(x.dtype):
        x = cast(x, float_type())
    return fn(x)


def _float_fn(fn):
    return lambda x: _scalar(fn, x, True)


log, exp, sqrt = _float_fn(T.log), _float_fn(T.exp), _float_fn(T.sqrt)
sin, cos, tan = _float_fn(T.sin), _float_fn(T.cos), _float_fn(T.tan)
sinh, cosh, tanh = _float_fn(T.sinh), _float_fn(T.cosh), _float_fn(T.tanh)
arcsin, arccos, arctan = _float_fn(T.asin), _float_fn(T.acos), _float_fn(T.atan)
arcsinh, arccosh, arctanh = _float_fn(T.asinh), _float_fn(T.acosh), _float_fn(T.atanh)
ceil, floor = _float_fn(A.ceil), _float_fn(A.floor)
expm1, log1p = _float_fn(T.expm1), _float_fn(T.log1p)


def abs(x):  # noqa: A001
    return _scalar(A.abs, x)


absolute = fabs = abs


def conj(x):
    return _scalar(_conj, x)


conjugate = conj


def negative(x):
    return _scalar(A.negative, x)


def positive(x):
    return _scalar(lambda x: x, x)


def reciprocal(x):
    return _scalar(A.reciprocal, x)


def square(x):
    return _scalar(A.square, x)


def sign(x):
    return _scalar(A.sign, x)


def signbit(x):
    return _scalar(lambda x: fill(_shape(x), False) if x.dtype is D.bool else x < 0, x)


def deg2rad(x):
    return _scalar(lambda x: x * (np.pi / 180.0), x, True)


def rad2deg(x):
    return x * (180.0 / np.pi)


def angle(z, deg=False):
    def f(x):
        if x.dtype.is_floating:
            return where(x < 0, np.pi, 0)
        return _angle(x)

    y = _scalar(f, z, True)
    return rad2deg(y) if deg else y


def cbrt(x):
    def f(x):
        rt = A.abs(x) ** (1.0 / 3)
        return where(x < 0, -rt, rt)

    return _scalar(f, x, True)


def exp2(x):
    return _scalar(lambda x: 2 ** x, x, True)


def fix(x):
    return _scalar(lambda x: where(x < 0, A.ceil(x), A.floor(x)), x, True)


def log2(x):
    return log(x) / np.log(2)


def log10(x):
    return log(x) / np.log(10)


def sinc(x):
    def f(x):
        pi_x = x * np.pi
        return where(x == 0, ones_like(x), T.sin(pi_x) / pi_x)

    return _scalar(f, x, True)


def around(a, decimals=0):
    """``tnp.around``: round half to even at ``decimals`` places, computed in a float type and
    cast back to ``a``'s dtype."""
    a = asarray(a)
    dtype = a.dtype
    factor = 10.0 ** decimals
    if not is_inexact(dtype):
        a = cast(a, float_type())
    factor = cast(factor, a.dtype)
    return cast(A.divide(A.round(A.multiply(a, factor)), factor), dtype)


round = around  # noqa: A001


def isnan(x):
    return _scalar(C.is_nan, x, True)


def isfinite(x):
    return _scalar(C.is_finite, x, True)


def isinf(x):
    x = asarray(x)
    return _scalar(C.is_inf, x, True) if x.dtype.is_floating else False


def isneginf(x):
    x = asarray(x)
    return C.equal(x, convert_to_tensor(-np.inf, x.dtype)) if x.dtype.is_floating else False


def isposinf(x):
    x = asarray(x)
    return C.equal(x, convert_to_tensor(np.inf, x.dtype)) if x.dtype.is_floating else False


def real(val):
    return _real(asarray(val))


def imag(val):
    val = asarray(val)
    return _imag(val) if val.dtype.is_complex else _imag(cast(val, float_type())) \
        if not val.dtype.is_floating else _imag(val)


def iscomplex(x):
    return imag(x) != 0


def isreal(x):
    return imag(x) == 0


def iscomplexobj(x):
    return array(x).dtype.is_complex


def isrealobj(x):
    return not iscomplexobj(x)


# --- comparisons and logic ----------------------------------------------------------------------
def _comparison(fn, x1, x2, bool_to_int=False):
    dtype = result_type(x1, x2)
    x1, x2 = array(x1, dtype=dtype), array(x2, dtype=dtype)
    if bool_to_int and x1.dtype is D.bool:
        x1, x2 = cast(x1, D.int32), cast(x2, D.int32)
    return fn(x1, x2)


def equal(x1, x2):
    return _comparison(C.equal, x1, x2)


def not_equal(x1, x2):
    return _comparison(C.not_equal, x1, x2)


def greater(x1, x2):
    return _comparison(C.greater, x1, x2, True)


def greater_equal(x1, x2):
    return _comparison(C.greater_equal, x1, x2, True)


def less(x1, x2):
    return _comparison(C.less, x1, x2, True)


def less_equal(x1, x2):
    return _comparison(C.less_equal, x1, x2, True)


def array_equal(a1, a2):
    def f(x1, x2):
        if x1.shape.as_list() != x2.shape.as_list():
            return convert_to_tensor(False)
        return reduce_all(C.equal(x1, x2))

    return _comparison(f, a1, a2)


def _logical(fn):
    return lambda x1, x2: fn(array(x1, dtype=np.bool_), array(x2, dtype=np.bool_))


logical_and, logical_or = _logical(C.logical_and), _logical(C.logical_or)
logical_xor = _logical(C.logical_xor)


def logical_not(x):
    return C.logical_not(array(x, dtype=np.bool_))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    def f(a, b):
        if is_inexact(a.dtype):
            real_dtype = {D.complex64: D.float32, D.complex128: D.float64}.get(a.dtype, a.dtype)
            rtol_ = convert_to_tensor(rtol, real_dtype)
            atol_ = convert_to_tensor(atol, real_dtype)
            result = C.less_equal(A.abs(a - b), atol_ + rtol_ * A.abs(b))
            if equal_nan:
                result = C.logical_or(result, C.logical_and(C.is_nan(a), C.is_nan(b)))
            return result
        return C.equal(a, b)

    return _bin_op(f, a, b)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return reduce_all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
