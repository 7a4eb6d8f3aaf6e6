"""Elementwise math ops (arithmetic, comparisons, logic, bitwise, casts, rounding, transcendental
functions) with their public functions and the Python operators on tensors."""

import builtins
import math as _pymath

import operator

import numpy as np

from ... import dtypes as D
from ... import errors
from ..._export import exports, tf_export
from ...context import bind
from ...context import state as _state
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import NON_DIFFERENTIABLE, DtypeCheck, OpDef, define_op, register
from ...shapes import TensorShape
from ...tensor import EagerTensor, Tensor, TensorSpec
from .._base import ALL, COMPLEX, FLOAT, FLOAT_COMPLEX, REAL, broadcast_shape, check_dtypes
from ...messages import c_name
from ...numerics import EXTOBJ, IGNORE, quiet

_wrap = EagerTensor._wrap
_ND = NON_DIFFERENTIABLE


def _dts(names):
    """DTypes by name (bfloat16 is skipped when ml_dtypes is not installed)."""
    return tuple(d for d in (getattr(D, n) for n in names.split()) if d is not None)


# TF's per-op dtype lists, in its OpDef order (error messages list them so): the allowed list,
# and where narrower the dtypes that have a CPU kernel.
_ADD = _dts("bfloat16 float16 float32 float64 uint8 uint16 uint32 uint64 int8 int16 int32 int64 "
            "complex64 complex128")
_ADD_STRING = _dts("bfloat16 float16 float32 float64 uint8 int8 int16 int32 int64 complex64 "
                   "complex128 string")
_SUB = _dts("bfloat16 float16 float32 float64 uint8 int8 uint16 int16 int32 int64 complex64 "
            "complex128 uint32 uint64")
_MUL = _dts("bfloat16 float16 float32 float64 uint8 int8 uint16 int16 int32 uint32 uint64 int64 "
            "complex64 complex128")  # also RealDiv, FloorDiv, TruncateDiv
_FLOOR_MOD = _dts("int8 int16 int32 int64 uint8 uint16 uint32 uint64 bfloat16 float16 float32 "
                  "float64")
_TRUNCATE_MOD = _dts("int32 int64 bfloat16 float16 float32 float64")
_POW = _dts("bfloat16 float32 float16 float64 int8 int16 int32 int64 complex64 complex128")
_NEG = _dts("bfloat16 float16 float32 float64 int8 int16 int32 int64 complex64 complex128")
_ABS = _dts("bfloat16 float16 float32 float64 int8 int16 int32 int64")
_SQUARE = _dts("bfloat16 float16 float32 float64 int8 int16 int32 int64 uint8 uint16 uint32 "
               "uint64 complex64 complex128")
_FLOAT_COMPLEX = _dts("bfloat16 float16 float32 float64 complex64 complex128")
_FLOAT = _dts("bfloat16 float16 float32 float64")
_SQUARED_DIFFERENCE = _dts("bfloat16 float16 float32 float64 int32 int64 complex64 complex128")
_MAXIMUM = _dts("bfloat16 float16 float32 float64 int8 uint8 int16 uint16 int32 uint32 int64 "
                "uint64")
_DIV_NO_NAN = _dts("float16 float32 bfloat16 float64 complex64 complex128")
_XLOGY = _dts("float16 bfloat16 float32 float64 complex64 complex128")
_COMPARE = _dts("float32 float64 int32 uint8 int16 int8 int64 bfloat16 uint16 float16 uint32 "
                "uint64")
_BITWISE = _dts("int8 int16 int32 int64 uint8 uint16 uint32 uint64")
_FEATURES = _dts("float16 bfloat16 float32 float64")
_ADD_N = _dts("float32 float64 int32 uint8 int16 int8 complex64 int64 bfloat16 uint16 complex128 "
              "float16 uint32 uint64")
_WHERE = _ADD_N + (D.bool,)
_CLIP_KERNELS = _dts("float32 float64 int32 uint8 int16 int8 complex64 int64 bfloat16 uint16 "
                     "complex128 float16")
_I32_I64 = _dts("int32 int64")
_F32_F64 = _dts("float32 float64")
_F16_F32_F64 = _dts("float16 float32 float64")


# --- quiet kernels --------------------------------------------------------------------------------
def _quiet2(ufunc):
    """``quiet`` for a two-input ufunc, without the generic call's packing (the hot path)."""
    if EXTOBJ is None:  # pragma: no cover - NumPy 1.x
        return quiet(ufunc)
    set_state, reset_state = EXTOBJ.set, EXTOBJ.reset

    def run(x, y):
        token = set_state(IGNORE)
        try:
            return ufunc(x, y)
        finally:
            reset_state(token)

    run.__name__ = ufunc.__name__
    return run


# --- eager checks ---------------------------------------------------------------------------------
_DT_ENUM = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}


def _not_found(op_name, dtype):
    """TF's error for a dtype the OpDef allows but no CPU kernel implements."""
    enum = _DT_ENUM.get(dtype.name, dtype.name.upper())
    return errors.NotFoundError(
        None, None, f"Could not find device for node: {{{{node {op_name}}}}} = "
                    f"{op_name}[T=DT_{enum}] [Op:{op_name}]")


def _check(op_name, allowed, kernels=None, same=2):
    """An eager check: the first ``same`` inputs share a dtype from ``allowed`` (else
    InvalidArgumentError) that has a CPU kernel (else NotFoundError)."""
    return DtypeCheck(op_name, allowed, same, kernels=kernels)


def _bool_check(op_name, arity):
    """An eager check for ops whose first ``arity`` inputs must be bool (TF fixes their type)."""

    def check(arrays):
        for i in range(arity):
            if arrays[i].dtype != np.bool_:
                got = c_name(D.from_numpy(arrays[i].dtype))
                raise invalid_argument(
                    f"cannot compute {op_name} as input #{i}(zero-based) was expected to be a "
                    f"bool tensor but is a {got} tensor", op_name)

    return check


def _fixed_type(op_name, tensors, names, dtype=D.bool):
    """Graph-time check of inputs whose dtype the op fixes (TypeError, as TF)."""
    for t, n in zip(tensors, names):
        if t.dtype != dtype:
            raise TypeError(f"Input '{n}' of '{op_name}' Op has type {t.dtype.name} that does "
                            f"not match expected type of {dtype.name}.")


# --- op families ----------------------------------------------------------------------------------
def _unary(name, kernel, allowed, kernels=None, expr=None, out=None, arg="x", grad=None):
    """Register an elementwise one-input op; ``out`` is its output DType when fixed (bool)."""

    def infer(x):
        dtype = check_dtypes(name, (x,), allowed, (arg,))
        return TensorSpec(x.shape, out or dtype)

    return register(OpDef(name, infer, kernel, grad=grad, expr=expr,
                          check=_check(name, allowed, kernels, same=1)))


def _binary(name, kernel, allowed, kernels=None, expr=None, out=None, args=("x", "y"),
            grad=None):
    """Register an elementwise broadcasting two-input op whose inputs share one dtype."""

    def infer(x, y):
        dtype = check_dtypes(name, (x, y), allowed, args)
        return TensorSpec(broadcast_shape(x.shape, y.shape, name), out or dtype)

    return register(OpDef(name, infer, kernel, grad=grad, expr=expr,
                          check=_check(name, allowed, kernels, same=2)))


def _to_real(name, kernel, arg="input"):
    """Register a complex -> real op with TF's ``Tout`` attr (ComplexAbs, Real, Imag, Angle)."""

    def infer(x, Tout):
        check_dtypes(name, (x,), COMPLEX, (arg,))
        return TensorSpec(x.shape, Tout)

    return register(OpDef(name, infer, lambda x, Tout: kernel(x),
                          check=_check(name, COMPLEX, same=1)))


def _logical(name, kernel, arity, expr):
    """Register a logical op: bool inputs (TF fixes their type), broadcasting, bool output."""
    names = ("x", "y")[:arity]

    def infer(*xs):
        _fixed_type(name, xs, names)
        shape = xs[0].shape if arity == 1 else broadcast_shape(xs[0].shape, xs[1].shape, name)
        return TensorSpec(shape, D.bool)

    return register(OpDef(name, infer, kernel, grad=_ND, expr=expr,
                          check=_bool_check(name, arity)))


# --- kernels ------------------------------------------------------------------------------------
def _object_result(out):
    """NumPy returns bare Python objects (bytes) from 0-d object ops; keep them arrays."""
    return out if isinstance(out, (np.ndarray, np.generic)) else np.array(out, dtype=object)


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


def _shift(ufunc):
    """TF clamps shift amounts to [0, bits - 1] (C leaves larger shifts undefined)."""

    def kernel(x, y):
        top = x.dtype.itemsize * 8 - 1
        return ufunc(x, np.clip(y, 0, top).astype(x.dtype, copy=False))

    return kernel


def _sign(x):
    if x.dtype.kind == "c":
        a = np.abs(x)
        return _zero_where(a == 0, x / np.where(a == 0, a.dtype.type(1), a), x)
    return np.sign(x)


def _reciprocal(x):
    return np.true_divide(x.dtype.type(1), x)  # 1 / 0j is inf+nanj, as TF (not nan+nanj)


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


# erf/erfc without SciPy: the positive power series (no cancellation) below |x| = 2 and a
# continued fraction above, accurate to a few ulps in float64; other floats round from it.
_TWO_OVER_SQRT_PI = 2.0 / _pymath.sqrt(_pymath.pi)
_SERIES_CUT = 2.0


def _erf_series(x):
    x2 = x * x
    term = x.copy()
    total = x.copy()
    for k in range(1, 40):
        term *= (2.0 / (2 * k + 1)) * x2
        total += term
    return _TWO_OVER_SQRT_PI * np.exp(-x2) * total


def _erfc_fraction(x):
    """erfc for x >= _SERIES_CUT: exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))."""
    f = x.copy()
    for k in range(60, 0, -1):
        f = x + (0.5 * k) / f
    return np.exp(-x * x) / (_pymath.sqrt(_pymath.pi) * f)


def _erf_parts(x):
    """(erf of the small |x|, erfc of the large |x|, mask of the small ones), in float64."""
    a = np.abs(np.asarray(x, np.float64))
    small = a < _SERIES_CUT
    return _erf_series(np.where(small, a, 0.0)), _erfc_fraction(np.where(small, 4.0, a)), small


def _erf(x):
    series, fraction, small = _erf_parts(x)
    out = np.copysign(np.where(small, series, 1.0 - fraction), x)
    if x.dtype == np.float64:  # TF's double erf gives NaN at +-inf (its float erf gives +-1)
        out = np.where(np.isinf(x), np.nan, out)
    return out.astype(x.dtype)[()]


def _erfc(x):
    series, fraction, small = _erf_parts(x)
    positive = np.where(small, 1.0 - series, fraction)
    return np.where(np.asarray(x) < 0, 2.0 - positive, positive).astype(x.dtype)[()]


# Lanczos approximation (g = 7, n = 9): about 1e-15 relative error in float64.
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)
_LOG_SQRT_2PI = 0.5 * _pymath.log(2 * _pymath.pi)


def _lgamma64(x):
    """log|Gamma(x)| for x >= 0.5 (float64 array), by Lanczos."""
    z = x - 1.0
    acc = np.full_like(z, _LANCZOS[0])
    for k, c in enumerate(_LANCZOS[1:], 1):
        acc += c / (z + k)
    t = z + _LANCZOS_G + 0.5
    return _LOG_SQRT_2PI + (z + 0.5) * np.log(t) - t + np.log(acc)


def _lgamma(x):
    """log|Gamma(x)|, vectorised; inf at the poles (0, -1, -2, ...) and at +-inf, as TF."""
    a = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        left = a < 0.5
        out = _lgamma64(np.where(left, 1.0 - a, a))
        # reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x)
        reflected = np.log(np.pi / np.abs(np.sin(np.pi * a))) - out
        out = np.where(left, reflected, out)
        out = np.where(np.isinf(a) | (left & (a == np.floor(a))), np.inf, out)
        # the Lanczos sum loses accuracy where lgamma crosses 0: Gamma(1) = Gamma(2) = 1
        out = np.where((a == 1.0) | (a == 2.0), 0.0, out)
    return out.astype(x.dtype)[()]


_BERNOULLI_DIGAMMA = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def _digamma(x):
    """The digamma function, vectorised; NaN at the poles and at -inf, as TF."""
    a = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        left = a < 0.5
        z = np.where(left, 1.0 - a, a)
        shift = np.zeros_like(z)
        for _ in range(6):  # psi(z) = psi(z + 1) - 1/z: move z up to where the series converges
            small = z < 6.0
            shift -= np.where(small, 1.0 / z, 0.0)
            z = np.where(small, z + 1.0, z)
        inv2 = 1.0 / (z * z)
        series = np.zeros_like(z)
        for c in _BERNOULLI_DIGAMMA[::-1]:
            series = series * inv2 + c
        out = np.log(z) - 0.5 / z - series * inv2 + shift
        out = np.where(left, out - np.pi / np.tan(np.pi * a), out)
        out = np.where(left & (a == np.floor(a)), np.nan, out)  # poles, -0.0 and -inf
        out = np.where(a == np.inf, np.inf, out)
    return out.astype(x.dtype)[()]


# Cephes' Euler-Maclaurin coefficients for the Hurwitz zeta function (TF's Eigen port).
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def _zeta64(x, q):
    """Hurwitz zeta(x, q) = sum_k (q + k)^-x in float64, vectorised as Cephes computes it."""
    x, q = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(q, np.float64))
    with np.errstate(all="ignore"):
        total = np.power(q, -x)
        a = q.copy()
        b = np.zeros_like(q)
        steps = 0
        while steps < 9 or np.any(a <= 9.0):  # sum directly until q + k > 9
            more = (a <= 9.0) | (steps < 9)
            a = np.where(more, a + 1.0, a)
            b = np.where(more, np.power(a, -x), b)
            total = np.where(more, total + b, total)
            steps += 1
            if steps > 10000:  # pragma: no cover - q below -10000: leave it to the tail
                break
        w = a
        total = total + b * w / (x - 1.0) - 0.5 * b
        fac, k = np.ones_like(q), 0.0
        for c in _ZETA_A:  # the Euler-Maclaurin tail
            fac = fac * (x + k)
            b = b / w
            total = total + fac * b / c
            k += 1.0
            fac = fac * (x + k)
            b = b / w
            k += 1.0
        total = np.where(x == 1.0, np.inf, total)
        total = np.where(x < 1.0, np.nan, total)
        bad_q = q <= 0.0
        total = np.where(bad_q & (q == np.floor(q)), np.inf, total)
        total = np.where(bad_q & (q != np.floor(q)) & (x != np.floor(x)), np.nan, total)
    return total


def _zeta(x, q):
    return _zeta64(x, q).astype(x.dtype)[()]


def _polygamma(a, x):
    """The a-th derivative of digamma: (-1)^(a+1) a! zeta(a + 1, x); NaN for a non-integer or
    negative order."""
    n, z = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        fact = np.exp(_lgamma(n + 1.0))
        sign = np.where(np.mod(n, 2.0) == 0.0, -1.0, 1.0)
        out = sign * fact * _zeta64(n + 1.0, z)
        out = np.where(n == 0.0, _digamma(z), out)
        out = np.where((n != np.floor(n)) | (n < 0.0), np.nan, out)
    return out.astype(x.dtype)[()]


def _equality(ufunc, mismatch):
    """Equal/NotEqual: ``incompatible_shape_error=False`` turns unbroadcastable shapes into a
    scalar ``mismatch`` (what ``==`` returns for tensors of different shapes)."""

    def kernel(x, y, incompatible_shape_error=True):
        try:
            out = ufunc(x, y)
        except ValueError:
            if incompatible_shape_error:
                raise
            return np.bool_(mismatch)
        return out if x.dtype != object else np.asarray(out, dtype=np.bool_)

    return kernel


# Cast: TF casts float -> int with the C conversion of an x86 CPU: truncation toward zero, and
# NaN or out-of-range values give the minimum int of the conversion's width (int32, or int64 for
# 64-bit and uint32 targets); narrower targets then wrap.
_I32_LIMIT, _I64_LIMIT = 2.0 ** 31, 2.0 ** 63


def _float_to_int(x, dst):
    x = np.asarray(x, np.float64)  # exact for every float type TF has
    wide, limit = ((np.int64, _I64_LIMIT) if dst.itemsize == 8 or dst == np.uint32
                   else (np.int32, _I32_LIMIT))
    ok = np.abs(x) < limit  # NaN fails this too
    out = np.where(ok, np.where(ok, x, 0.0).astype(wide), np.iinfo(wide).min)
    if dst == np.uint64:  # values in [2**63, 2**64) convert exactly
        big = (x >= _I64_LIMIT) & (x < 2.0 ** 64)
        return np.where(big, np.where(big, x, 0.0).astype(np.uint64), out.astype(np.uint64))
    return out.astype(dst)


def _cast(x, SrcT, DstT, Truncate=False):
    src, dst = x.dtype, DstT._np
    if src == object or dst == object:
        raise errors.UnimplementedError(
            None, None, f"Cast {c_name(D.from_numpy(src))} to {c_name(DstT)} is not supported")
    if src.kind == "c" and dst.kind != "c":
        x = np.real(x)  # TF discards the imaginary part, even when casting to bool
    if dst == np.bool_:
        return np.not_equal(x, 0)
    if dst.kind in "iu" and x.dtype.kind == "f":
        return _float_to_int(x, dst)[()]
    return x.astype(dst)


def _where_kernel(x):
    if x.ndim == 0:
        raise invalid_argument("WhereOp : Unhandled input dimensions: 0")
    if x.dtype == np.float16:
        raise errors.UnimplementedError(
            None, None, "No WhereOp available for float16/half type on CPU; dying in CPU WhereOp "
                        "to avoid silently creating costly copies from device.")
    return np.argwhere(x).astype(np.int64, copy=False)


def _dims_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _select_kernel(condition, t, e):
    try:
        return np.where(condition, t, e)
    except ValueError:
        raise invalid_argument(
            f"condition {_dims_text(np.shape(condition))}, then {_dims_text(np.shape(t))}, and "
            f"else {_dims_text(np.shape(e))} must be broadcastable") from None


def _clip_kernel(t, clip_value_min, clip_value_max):
    shape = np.shape(t)
    if any(np.ndim(v) and np.shape(v) != shape for v in (clip_value_min, clip_value_max)):
        raise invalid_argument(
            "clip_value_min and clip_value_max must be either of the same shape as input, or a "
            f"scalar. input shape: {_dims_text(shape)}clip_value_min shape: "
            f"{_dims_text(np.shape(clip_value_min))}clip_value_max shape: "
            f"{_dims_text(np.shape(clip_value_max))}")
    return np.maximum(np.minimum(t, clip_value_max), clip_value_min)


def _add_n_kernel(*xs):
    first = np.shape(xs[0])
    for i, a in enumerate(xs[1:], 1):
        if np.shape(a) != first:
            raise invalid_argument(
                "Inputs to operation AddN of type AddN must have the same size and shape.  "
                f"Input 0: {_dims_text(first)} != input {i}: {_dims_text(np.shape(a))}")
    out = np.add(xs[0], xs[1])
    for a in xs[2:]:
        out = np.add(out, a)
    return out


# --- shape rules ----------------------------------------------------------------------------------
def _shape_text(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape.dims) + "]"


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


def _add_n_infer(*xs):
    dtypes = [x.dtype for x in xs]
    if any(d != dtypes[0] for d in dtypes):
        raise TypeError(f"Tensors in list passed to 'inputs' of 'AddN' Op have types "
                        f"[{', '.join(d.name for d in dtypes)}] that don't all match.")
    check_dtypes("AddN", xs[:1], _ADD_N, ("inputs",))
    shape = xs[0].shape
    for x in xs[1:]:
        if not shape.is_compatible_with(x.shape):
            raise ValueError(_merge_error(shape, x.shape))
        shape = shape.merge_with(x.shape)
    return TensorSpec(shape, dtypes[0])


def _merge_error(a, b):
    if a.rank != b.rank:
        return f"Shapes must be equal rank, but are {a.rank} and {b.rank}"
    i, x, y = next((i, x, y) for i, (x, y) in enumerate(zip(a.dims, b.dims))
                   if x is not None and y is not None and x != y)
    return (f"Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are "
            f"{_shape_text(a)} and {_shape_text(b)}.")


# --- registry records -----------------------------------------------------------------------------
# operator.* rather than the ufuncs: same results, but NumPy scalars take their fast path
ADD = _binary("AddV2", _quiet2(operator.add), _ADD, expr="({0} + {1})")
ADD_STRING = _binary("Add", lambda x, y: _object_result(np.add(x, y)), _ADD_STRING)
SUB = _binary("Sub", _quiet2(operator.sub), _SUB, expr="({0} - {1})")
MUL = _binary("Mul", _quiet2(operator.mul), _MUL, expr="({0} * {1})")
REAL_DIV = _binary("RealDiv", _quiet2(operator.truediv), _MUL, kernels=FLOAT_COMPLEX)
FLOOR_DIV = _binary("FloorDiv", quiet(_floor_div), _MUL, kernels=REAL)
FLOOR_MOD = _binary("FloorMod", quiet(_floor_mod), _FLOOR_MOD)
TRUNCATE_DIV = _binary("TruncateDiv", quiet(_truncate_div), _MUL, kernels=REAL)
TRUNCATE_MOD = _binary("TruncateMod", quiet(_truncate_mod), _TRUNCATE_MOD,
                       kernels=_F32_F64 + _I32_I64)
POW = _binary("Pow", quiet(_pow), _POW)
SQUARED_DIFFERENCE = _binary("SquaredDifference", quiet(_squared_difference),
                             _SQUARED_DIFFERENCE)
MAXIMUM = _binary("Maximum", _quiet2(np.maximum), _MAXIMUM)
MINIMUM = _binary("Minimum", _quiet2(np.minimum), _MAXIMUM)
DIV_NO_NAN = _binary("DivNoNan", quiet(_div_no_nan), _DIV_NO_NAN)
MUL_NO_NAN = _binary("MulNoNan", quiet(_mul_no_nan), _FLOAT_COMPLEX)
XLOGY = _binary("Xlogy", quiet(_xlogy), _XLOGY)
XDIVY = _binary("Xdivy", quiet(_xdivy), _XLOGY)
XLOG1PY = _binary("Xlog1py", quiet(_xlog1py), _XLOGY)
NEXT_AFTER = _binary("NextAfter", np.nextafter, _F32_F64, args=("x1", "x2"))
ATAN2 = _binary("Atan2", _quiet2(np.arctan2), _FLOAT, args=("y", "x"))

# Python's comparison operators on NumPy values are the ufuncs, but scalars skip the ufunc call.
LESS = _binary("Less", operator.lt, _COMPARE, out=D.bool, grad=_ND, expr="({0} < {1})")
LESS_EQUAL = _binary("LessEqual", operator.le, _COMPARE, out=D.bool, grad=_ND,
                     expr="({0} <= {1})")
GREATER = _binary("Greater", operator.gt, _COMPARE, out=D.bool, grad=_ND, expr="({0} > {1})")
GREATER_EQUAL = _binary("GreaterEqual", operator.ge, _COMPARE, out=D.bool, grad=_ND,
                        expr="({0} >= {1})")

LOGICAL_AND = _logical("LogicalAnd", np.logical_and, 2, "np.logical_and({0}, {1})")
LOGICAL_OR = _logical("LogicalOr", np.logical_or, 2, "np.logical_or({0}, {1})")
LOGICAL_NOT = _logical("LogicalNot", np.logical_not, 1, "np.logical_not({0})")

BITWISE_AND = _binary("BitwiseAnd", np.bitwise_and, _BITWISE, grad=_ND, expr="({0} & {1})")
BITWISE_OR = _binary("BitwiseOr", np.bitwise_or, _BITWISE, grad=_ND, expr="({0} | {1})")
BITWISE_XOR = _binary("BitwiseXor", np.bitwise_xor, _BITWISE, grad=_ND, expr="({0} ^ {1})")
LEFT_SHIFT = _binary("LeftShift", _shift(np.left_shift), _BITWISE, grad=_ND)
RIGHT_SHIFT = _binary("RightShift", _shift(np.right_shift), _BITWISE, grad=_ND)
INVERT = _unary("Invert", np.invert, _BITWISE, grad=_ND, expr="np.invert({0})")

NEG = _unary("Neg", np.negative, _NEG, expr="(-{0})")
ABS = _unary("Abs", np.abs, _ABS, expr="np.abs({0})")
COMPLEX_ABS = _to_real("ComplexAbs", quiet(np.abs), arg="x")
SIGN = _unary("Sign", quiet(_sign), _NEG)
SQUARE = _unary("Square", quiet(np.square), _SQUARE)
SQRT = _unary("Sqrt", quiet(np.sqrt), _FLOAT_COMPLEX)
RSQRT = _unary("Rsqrt", quiet(_rsqrt), _FLOAT_COMPLEX)
RECIPROCAL = _unary("Reciprocal", quiet(_reciprocal), _NEG, kernels=FLOAT_COMPLEX)
EXP = _unary("Exp", quiet(np.exp), _FLOAT_COMPLEX)
EXPM1 = _unary("Expm1", quiet(np.expm1), _FLOAT_COMPLEX)
LOG = _unary("Log", quiet(np.log), _FLOAT_COMPLEX)
LOG1P = _unary("Log1p", quiet(np.log1p), _FLOAT_COMPLEX)
SIN = _unary("Sin", quiet(np.sin), _FLOAT_COMPLEX)
COS = _unary("Cos", quiet(np.cos), _FLOAT_COMPLEX)
TAN = _unary("Tan", quiet(np.tan), _FLOAT_COMPLEX)
ASIN = _unary("Asin", quiet(np.arcsin), _FLOAT_COMPLEX)
ACOS = _unary("Acos", quiet(np.arccos), _FLOAT_COMPLEX)
ATAN = _unary("Atan", quiet(np.arctan), _FLOAT_COMPLEX)
SINH = _unary("Sinh", quiet(np.sinh), _FLOAT_COMPLEX)
COSH = _unary("Cosh", quiet(np.cosh), _FLOAT_COMPLEX)
TANH = _unary("Tanh", quiet(np.tanh), _FLOAT_COMPLEX)
ASINH = _unary("Asinh", quiet(np.arcsinh), _FLOAT_COMPLEX)
ACOSH = _unary("Acosh", quiet(np.arccosh), _FLOAT_COMPLEX)
ATANH = _unary("Atanh", quiet(np.arctanh), _FLOAT_COMPLEX)
SIGMOID = _unary("Sigmoid", quiet(_sigmoid), _FLOAT_COMPLEX)
ERF = _unary("Erf", quiet(_erf), _FLOAT)
ERFC = _unary("Erfc", quiet(_erfc), _FLOAT)
LGAMMA = _unary("Lgamma", _lgamma, _FLOAT, kernels=_F16_F32_F64)
DIGAMMA = _unary("Digamma", _digamma, _FLOAT, kernels=_F16_F32_F64)
ZETA = _binary("Zeta", _zeta, _F32_F64, args=("x", "q"))
POLYGAMMA = _binary("Polygamma", _polygamma, _F32_F64, args=("a", "x"))
SOFTPLUS = _unary("Softplus", quiet(_softplus), _FEATURES, arg="features")
SOFTSIGN = _unary("Softsign", quiet(_softsign), _FEATURES, arg="features")

IS_NAN = _unary("IsNan", np.isnan, _FLOAT, out=D.bool, grad=_ND, expr="np.isnan({0})")
IS_INF = _unary("IsInf", np.isinf, _FLOAT, out=D.bool, grad=_ND, expr="np.isinf({0})")
IS_FINITE = _unary("IsFinite", np.isfinite, _FLOAT, out=D.bool, grad=_ND,
                   expr="np.isfinite({0})")
ROUND = _unary("Round", lambda x: x.copy() if x.dtype.kind == "i" else np.rint(x), _NEG,
               kernels=FLOAT + _I32_I64)  # TF rounds half to even, as rint does
FLOOR = _unary("Floor", np.floor, _FLOAT, expr="np.floor({0})")
CEIL = _unary("Ceil", np.ceil, _FLOAT, expr="np.ceil({0})")
RINT = _unary("Rint", np.rint, _FLOAT, kernels=_F32_F64, expr="np.rint({0})")

REAL_PART = _to_real("Real", lambda x: np.real(x).copy())  # copies: tensors share no memory
IMAG_PART = _to_real("Imag", lambda x: np.imag(x).copy())
ANGLE = _to_real("Angle", np.angle)
CONJ = _unary("Conj", np.conj, COMPLEX, arg="input")


def _equality_op(name, ufunc, mismatch):
    def infer(x, y, incompatible_shape_error=True):
        check_dtypes(name, (x, y), None)
        shape = (broadcast_shape(x.shape, y.shape, name) if incompatible_shape_error
                 else _lenient_broadcast_shape(x.shape, y.shape))
        return TensorSpec(shape, D.bool)

    return register(OpDef(name, infer, _equality(ufunc, mismatch), grad=_ND,
                          check=_check(name, ALL)))


EQUAL = _equality_op("Equal", np.equal, False)
NOT_EQUAL = _equality_op("NotEqual", np.not_equal, True)


def _cast_infer(x, SrcT, DstT, Truncate=False):
    return TensorSpec(x.shape, DstT)


CAST = register(OpDef("Cast", _cast_infer, quiet(_cast)))


def _where_infer(x):
    check_dtypes("Where", (x,), _WHERE, ("input",))
    return TensorSpec([None, x.shape.rank], D.int64)


WHERE = register(OpDef("Where", _where_infer, _where_kernel, grad=_ND,
                       check=_check("Where", _WHERE, same=1)))


def _select_infer(condition, t, e):
    _fixed_type("SelectV2", (condition,), ("condition",))
    check_dtypes("SelectV2", (t, e), None, ("t", "e"))
    shape = broadcast_shape(broadcast_shape(condition.shape, t.shape, "SelectV2"), e.shape,
                            "SelectV2")
    return TensorSpec(shape, t.dtype)


_SELECT_CONDITION_CHECK = _bool_check("SelectV2", 1)


def _select_check(arrays):
    _SELECT_CONDITION_CHECK(arrays)
    t, e = arrays[1].dtype, arrays[2].dtype
    if e != t:  # TF numbers the inputs after the condition: ``e`` is input #2
        raise invalid_argument(
            f"cannot compute SelectV2 as input #2(zero-based) was expected to be a "
            f"{c_name(D.from_numpy(t))} tensor but is a {c_name(D.from_numpy(e))} tensor",
            "SelectV2")


SELECT_V2 = register(OpDef("SelectV2", _select_infer, _select_kernel, check=_select_check))


def _clip_infer(t, clip_value_min, clip_value_max):
    check_dtypes("ClipByValue", (t, clip_value_min, clip_value_max), _ADD_N,
                 ("t", "clip_value_min", "clip_value_max"))
    return TensorSpec(t.shape, t.dtype)


CLIP_BY_VALUE = register(OpDef("ClipByValue", _clip_infer, quiet(_clip_kernel),
                               check=_check("ClipByValue", _ADD_N, _CLIP_KERNELS, same=3)))
ADD_N = register(OpDef("AddN", _add_n_infer, quiet(_add_n_kernel),
                       check=_check("AddN", _ADD_N, same=1 << 30)))


# --- conversion of arguments --------------------------------------------------------------------
def _tensor_like(value):
    return isinstance(value, Tensor) or hasattr(value, "_as_graph_or_eager_tensor")


def same_dtype_operands(*values):
    """Convert the inputs of an op that share one dtype, as TF's eager fast path does: the first
    tensor's dtype (else the first value's own) is the dtype the other values must take.

    Raises:
        TypeError: when a Python value cannot be represented in that dtype (``1.5`` as int32).
    """
    dtype = next((v.dtype for v in values if _tensor_like(v)), None)
    out = []
    for v in values:
        if _tensor_like(v) or dtype is None:
            v = convert_to_tensor(v)
            dtype = dtype or v.dtype
        else:
            v = convert_to_tensor(v, dtype)
        out.append(v)
    return out


def binary_operands(x, y):
    """Convert the operands of a binary op: a Python value takes the other operand's dtype."""
    x, y = same_dtype_operands(x, y)
    return x, y


def _scalar_table():
    """(Python type, NumPy dtype) -> (NumPy scalar type, low, high): the Python numbers an
    operator can turn into a NumPy scalar directly, without TF's general conversion."""
    table = {}
    for t in (np.float16, np.float32, np.float64):
        hi = float(np.finfo(t).max)
        table[(float, np.dtype(t))] = table[(int, np.dtype(t))] = (t, -hi, hi)
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        info = np.iinfo(t)
        table[(int, np.dtype(t))] = (t, int(info.min), int(info.max))
    return table


_SCALARS = _scalar_table()


_CONSTANTS = {}  # (type, value, NumPy dtype) -> EagerTensor: operands like the 2 in ``x + 2``
_CONSTANTS_LIMIT = 4096


def _operand(value, like):
    """The other operand of an operator on tensor ``like``, converted to ``like``'s dtype (a
    lossy Python value raises TypeError; NumPy values are cast, as TF does)."""
    cls = value.__class__
    if (cls is float or cls is int) and _state.graph is None:
        try:  # the hot path: a Python number next to an eager tensor, usually a repeated one
            key = (cls, value, like._value.dtype)
        except AttributeError:
            return _slow_operand(value, like)
        constant = _CONSTANTS.get(key)
        if constant is not None:
            return constant
        fast = _SCALARS.get((cls, key[2]))
        if fast is not None:
            if fast[1] <= value <= fast[2]:
                constant = _wrap(fast[0](value))
            elif fast[0] in _FLOAT_TYPES and (cls is int or not _pymath.isnan(value)):
                constant = _overflowing_float(value, fast[0])  # 1e5 as float16 is inf, as TF
                if constant is None:
                    return _slow_operand(value, like)
            else:
                return _slow_operand(value, like)
            if len(_CONSTANTS) < _CONSTANTS_LIMIT:  # eager tensors are immutable: share them
                _CONSTANTS[key] = constant
            return constant
    elif isinstance(value, Tensor):
        return value
    return _slow_operand(value, like)


_FLOAT_TYPES = (np.float16, np.float32)


@quiet
def _overflowing_float(value, np_type):
    try:
        return _wrap(np_type(value))
    except OverflowError:  # an int beyond float64: TF's general conversion decides
        return None


def _slow_operand(value, like):
    if hasattr(value, "_as_graph_or_eager_tensor"):
        return convert_to_tensor(value)
    return convert_to_tensor(value, like.dtype)


def _hinted_operand(value, like):
    """As ``_operand``, but a value that cannot take ``like``'s dtype keeps its own (TF's
    ``dtype_hint``: ``int_tensor + 1.5`` then fails in the op, not in the conversion)."""
    if isinstance(value, Tensor):
        return value
    try:
        return _operand(value, like)
    except (TypeError, ValueError):
        return convert_to_tensor(value)


def _convert(x):
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


def _constant_like(value, like):
    return convert_to_tensor(value, like.dtype)


# --- public functions: arithmetic -------------------------------------------------------------
@tf_export("math.add", "add")
def add(x, y, name=None):
    """x + y elementwise, with broadcasting (string tensors concatenate)."""
    x = _convert(x)
    y = _hinted_operand(y, x)
    return bind(ADD_STRING if x.dtype is D.string else ADD, x, y)


def _binary_api(opdef, *names, doc=""):
    """A public function for a binary op: TF's conversion of both operands, then ``bind``."""

    def fn(x, y, name=None):
        x, y = same_dtype_operands(x, y)
        return bind(opdef, x, y)

    fn.__name__ = fn.__qualname__ = names[0].rpartition(".")[2]
    fn.__doc__ = doc
    return tf_export(*names)(fn)


def _unary_api(opdef, *names, doc=""):
    """A public function for a unary op: convert the argument, then ``bind``."""

    def fn(x, name=None):
        return bind(opdef, _convert(x))

    fn.__name__ = fn.__qualname__ = names[0].rpartition(".")[2]
    fn.__doc__ = doc
    return tf_export(*names)(fn)


subtract = _binary_api(SUB, "math.subtract", "subtract", doc="x - y elementwise.")
multiply = _binary_api(MUL, "math.multiply", "multiply", doc="x * y elementwise.")
realdiv = _binary_api(REAL_DIV, "realdiv", doc="x / y for floats (RealDiv).")
floordiv = _binary_api(FLOOR_DIV, "math.floordiv",
                       doc="floor(x / y); integer division by zero raises.")
floormod = _binary_api(FLOOR_MOD, "math.floormod", "math.mod",
                       doc="The remainder of floor division (sign of y).")
mod = floormod
truncatediv = _binary_api(TRUNCATE_DIV, "truncatediv", doc="x / y rounded toward zero.")
truncatemod = _binary_api(TRUNCATE_MOD, "truncatemod",
                          doc="The remainder of truncated division (sign of x).")
pow = _binary_api(POW, "math.pow", "pow", doc="x ** y elementwise.")
squared_difference = _binary_api(SQUARED_DIFFERENCE, "math.squared_difference",
                                 doc="(x - y) * conj(x - y) elementwise.")
maximum = _binary_api(MAXIMUM, "math.maximum", "maximum", doc="max(x, y); NaN propagates.")
minimum = _binary_api(MINIMUM, "math.minimum", "minimum", doc="min(x, y); NaN propagates.")
xlogy = _binary_api(XLOGY, "math.xlogy", doc="0 if x == 0 else x * log(y).")
xdivy = _binary_api(XDIVY, "math.xdivy", doc="0 if x == 0 else x / y.")
xlog1py = _binary_api(XLOG1PY, "math.xlog1py", doc="0 if x == 0 else x * log1p(y).")
zeta = _binary_api(ZETA, "math.zeta", doc="The Hurwitz zeta function sum_k (q + k)^-x.")
polygamma = _binary_api(POLYGAMMA, "math.polygamma",
                        doc="The a-th derivative of digamma at x.")
nextafter = _binary_api(NEXT_AFTER, "math.nextafter",
                        doc="The next representable value after x1 towards x2.")


@tf_export("math.atan2", "atan2")
def atan2(y, x, name=None):
    """The angle of the point (x, y): arctan(y / x) in the right quadrant."""
    y, x = same_dtype_operands(y, x)
    return bind(ATAN2, y, x)


_TRUEDIV_CASTS = {D.uint8: D.float32, D.int8: D.float32, D.uint16: D.float32,
                  D.int16: D.float32, D.uint32: D.float64, D.int32: D.float64,
                  D.uint64: D.float64, D.int64: D.float64}
_TRUEDIV_DTYPES = tuple(_TRUEDIV_CASTS) + FLOAT + COMPLEX
_TRUEDIV_NAMES = ("tf.uint8, tf.int8, tf.uint16, tf.int16, tf.uint32, tf.int32, tf.uint64, "
                  "tf.int64, tf.bfloat16, tf.float16, tf.float32, tf.float64, tf.complex64, "
                  "tf.complex128")


def _division_dtypes(x, y, what):
    """Check x and y for TF's true division; returns the dtype to cast them to (or None)."""
    if x.dtype != y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    if x.dtype not in _TRUEDIV_DTYPES:
        raise TypeError(f"Invalid dtype {x.dtype!r} in {what}. Expected one of "
                        f"{{{_TRUEDIV_NAMES}}}.")
    return _TRUEDIV_CASTS.get(x.dtype)


def _truediv(x, y, opdef=REAL_DIV, what="__truediv__"):
    to = _division_dtypes(x, y, what)
    if to is not None:
        x, y = cast(x, to), cast(y, to)
    return bind(opdef, x, y)


@tf_export("math.truediv", "truediv")
def truediv(x, y, name=None):
    """x / y, casting integers to floats first (int8/16 -> float32, int32/64 -> float64).

    Raises:
        TypeError: if x and y have different dtypes, or a dtype TF cannot divide (bool, string).
    """
    x = _convert(x)
    return _truediv(x, _hinted_operand(y, x))


@tf_export("math.divide", "divide")
def divide(x, y, name=None):
    """x / y with Python's true-division semantics (``truediv``)."""
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x, y.dtype if isinstance(y, Tensor) else None)
    return _truediv(x, _hinted_operand(y, x))


@tf_export("math.divide_no_nan")
def divide_no_nan(x, y, name=None):
    """x / y, but 0 wherever y is 0 (integers are cast as ``truediv`` casts them)."""
    if not isinstance(x, Tensor) and isinstance(y, Tensor):
        x = convert_to_tensor(x, y.dtype)
    x = _convert(x)
    return _truediv(x, _hinted_operand(y, x), DIV_NO_NAN, "tf.math.divide_no_nan")


@tf_export("math.multiply_no_nan")
def multiply_no_nan(x, y, name=None):
    """x * y, but 0 wherever y is 0 (even where x is inf or NaN)."""
    x = _convert(x)
    y = _operand(y, x)
    if x.dtype != y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}")
    return bind(MUL_NO_NAN, x, y)


@tf_export("math.scalar_mul", "scalar_mul")
def scalar_mul(scalar, x, name=None):
    """scalar * x, where ``scalar`` is a 0-d value converted to x's dtype."""
    x = _convert(x)
    scalar = _operand(scalar, x)
    if scalar.shape.rank != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {scalar.shape}.")
    return bind(MUL, scalar, x)


@tf_export("math.add_n", "add_n")
def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of one shape and dtype (no broadcasting).

    Raises:
        ValueError: if ``inputs`` is empty or not a list of tensors.
    """
    if isinstance(inputs, Tensor):
        inputs = list(inputs)
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with "
                         "the same dtype and shape.")
    inputs = [_convert(x) for x in inputs]
    if len(inputs) == 1:
        return inputs[0]
    return bind(ADD_N, *inputs)


@tf_export("math.negative", "negative")
def negative(x, name=None):
    """-x elementwise."""
    return bind(NEG, _convert(x))


@tf_export("math.abs", "abs")
def abs(x, name=None):
    """|x| elementwise; complex input gives its real-valued magnitude (ComplexAbs)."""
    x = _convert(x)
    if x.dtype.is_complex:
        return bind(COMPLEX_ABS, x, Tout=x.dtype.real_dtype)
    return bind(ABS, x)


@tf_export("math.sign", "sign")
def sign(x, name=None):
    """-1, 0 or 1 elementwise; x / |x| (0 at 0) for complex input."""
    x = _convert(x)
    if x.dtype.is_complex:
        magnitude = bind(COMPLEX_ABS, x, Tout=x.dtype.real_dtype)
        return bind(DIV_NO_NAN, x, cast(magnitude, x.dtype))
    return bind(SIGN, x)


@tf_export("math.reciprocal_no_nan")
def reciprocal_no_nan(x, name=None):
    """1 / x, but 0 where x is 0."""
    x = _convert(x)
    return bind(DIV_NO_NAN, _constant_like(1, x), x)


square = _unary_api(SQUARE, "math.square", "square", doc="x * x elementwise.")
sqrt = _unary_api(SQRT, "math.sqrt", "sqrt", doc="The square root (NaN for negatives).")
rsqrt = _unary_api(RSQRT, "math.rsqrt", doc="1 / sqrt(x).")
reciprocal = _unary_api(RECIPROCAL, "math.reciprocal", doc="1 / x.")
exp = _unary_api(EXP, "math.exp", "exp", doc="e ** x.")
expm1 = _unary_api(EXPM1, "math.expm1", doc="e ** x - 1, accurate near 0.")
log = _unary_api(LOG, "math.log", doc="The natural logarithm.")
log1p = _unary_api(LOG1P, "math.log1p", doc="log(1 + x), accurate near 0.")
sin = _unary_api(SIN, "math.sin", "sin")
cos = _unary_api(COS, "math.cos", "cos")
tan = _unary_api(TAN, "math.tan", "tan")
asin = _unary_api(ASIN, "math.asin", "asin")
acos = _unary_api(ACOS, "math.acos", "acos")
atan = _unary_api(ATAN, "math.atan", "atan")
sinh = _unary_api(SINH, "math.sinh", "sinh")
cosh = _unary_api(COSH, "math.cosh", "cosh")
tanh = _unary_api(TANH, "math.tanh", "nn.tanh", "tanh")
asinh = _unary_api(ASINH, "math.asinh", "asinh")
acosh = _unary_api(ACOSH, "math.acosh", "acosh")
atanh = _unary_api(ATANH, "math.atanh", "atanh")
erf = _unary_api(ERF, "math.erf", doc="The Gauss error function.")
erfc = _unary_api(ERFC, "math.erfc", doc="1 - erf(x), accurate for large x.")
lgamma = _unary_api(LGAMMA, "math.lgamma", "lgamma", doc="log|Gamma(x)|.")
digamma = _unary_api(DIGAMMA, "math.digamma", "digamma",
                     doc="The derivative of lgamma (the psi function).")
sigmoid = _unary_api(SIGMOID, "math.sigmoid", "nn.sigmoid", "sigmoid",
                     doc="1 / (1 + exp(-x)), computed without overflow.")
softplus = _unary_api(SOFTPLUS, "math.softplus", "nn.softplus",
                      doc="log(exp(x) + 1), computed without overflow.")
softsign = _unary_api(SOFTSIGN, "math.softsign", "nn.softsign", doc="x / (1 + |x|).")
is_nan = _unary_api(IS_NAN, "math.is_nan")
is_inf = _unary_api(IS_INF, "math.is_inf")
is_finite = _unary_api(IS_FINITE, "math.is_finite")
floor = _unary_api(FLOOR, "math.floor", "floor")
ceil = _unary_api(CEIL, "math.ceil")
rint = _unary_api(RINT, "math.rint", doc="Round half to even.")


@tf_export("math.log_sigmoid")
def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x)."""
    return bind(NEG, bind(SOFTPLUS, bind(NEG, _convert(x))))


@tf_export("math.round", "round")
def round(x, name=None):
    """Round half to even; integer tensors come back unchanged."""
    x = _convert(x)
    return x if x.dtype.is_integer else bind(ROUND, x)


# --- complex parts ------------------------------------------------------------------------------
def _numeric(dtype):
    return dtype.is_integer or dtype.is_floating or dtype.is_complex


def _zeros_like(x):
    zeros_like = exports("").get("zeros_like")  # array ops' own, once that module defines it
    if zeros_like is not None:
        return zeros_like(x)
    return bind(SELECT_V2, convert_to_tensor(False), x, _constant_like(0, x))


@tf_export("math.real")
def real(input, name=None):
    """The real part; real input comes back unchanged."""
    x = _convert(input)
    if x.dtype.is_complex:
        return bind(REAL_PART, x, Tout=x.dtype.real_dtype)
    if _numeric(x.dtype):
        return x
    raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {x.dtype}")


@tf_export("math.imag")
def imag(input, name=None):
    """The imaginary part; zeros for real input."""
    x = _convert(input)
    if x.dtype.is_complex:
        return bind(IMAG_PART, x, Tout=x.dtype.real_dtype)
    return _zeros_like(x)


@tf_export("math.angle")
def angle(input, name=None):
    """The argument of complex input; pi for negative and 0 for other real input."""
    x = _convert(input)
    if x.dtype.is_complex:
        return bind(ANGLE, x, Tout=x.dtype.real_dtype)
    pi = _constant_like(np.pi, x)  # TypeError for integers, as TF
    return bind(SELECT_V2, bind(LESS, x, _constant_like(0, x)), pi, _constant_like(0, x))


@tf_export("math.conj")
def conj(x, name=None):
    """The complex conjugate; real input comes back unchanged."""
    x = _convert(x)
    if x.dtype.is_complex:
        return bind(CONJ, x)
    if x.dtype.is_integer or x.dtype.is_floating:
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")


# --- comparisons and logic ----------------------------------------------------------------------
less = _binary_api(LESS, "math.less", "less", doc="x < y elementwise.")
less_equal = _binary_api(LESS_EQUAL, "math.less_equal", "less_equal", doc="x <= y elementwise.")
greater = _binary_api(GREATER, "math.greater", "greater", doc="x > y elementwise.")
greater_equal = _binary_api(GREATER_EQUAL, "math.greater_equal", "greater_equal",
                            doc="x >= y elementwise.")


@tf_export("math.equal", "equal")
def equal(x, y, name=None):
    """x == y elementwise; shapes that cannot broadcast raise (unlike the ``==`` operator)."""
    x, y = same_dtype_operands(x, y)
    return bind(EQUAL, x, y, incompatible_shape_error=True)


@tf_export("math.not_equal", "not_equal")
def not_equal(x, y, name=None):
    """x != y elementwise; shapes that cannot broadcast raise (unlike the ``!=`` operator)."""
    x, y = same_dtype_operands(x, y)
    return bind(NOT_EQUAL, x, y, incompatible_shape_error=True)


def _bools(*values):
    return [v if isinstance(v, Tensor) else convert_to_tensor(v, D.bool) for v in values]


@tf_export("math.logical_and", "logical_and")
def logical_and(x, y, name=None):
    return bind(LOGICAL_AND, *_bools(x, y))


@tf_export("math.logical_or", "logical_or")
def logical_or(x, y, name=None):
    return bind(LOGICAL_OR, *_bools(x, y))


@tf_export("math.logical_not", "logical_not")
def logical_not(x, name=None):
    return bind(LOGICAL_NOT, *_bools(x))


@tf_export("math.logical_xor")
def logical_xor(x, y, name="LogicalXor"):
    """(x or y) and not (x and y), built from those ops as TF builds it."""
    x, y = _bools(x, y)
    return bind(LOGICAL_AND, bind(LOGICAL_OR, x, y), bind(LOGICAL_NOT, bind(LOGICAL_AND, x, y)))


bitwise_and = _binary_api(BITWISE_AND, "bitwise.bitwise_and")
bitwise_or = _binary_api(BITWISE_OR, "bitwise.bitwise_or")
bitwise_xor = _binary_api(BITWISE_XOR, "bitwise.bitwise_xor")
left_shift = _binary_api(LEFT_SHIFT, "bitwise.left_shift",
                         doc="x << y; shifts are clamped to [0, bits - 1].")
right_shift = _binary_api(RIGHT_SHIFT, "bitwise.right_shift",
                          doc="x >> y (arithmetic for signed); shifts are clamped to [0, bits-1].")
invert = _unary_api(INVERT, "bitwise.invert", doc="~x: flip every bit.")


# --- casts, clipping, selection -------------------------------------------------------------------
@tf_export("cast", "dtypes.cast")
def cast(x, dtype, name=None):
    """``x`` as ``dtype``: floats truncate toward zero, complex drops its imaginary part, and
    anything nonzero is True; a tensor already of ``dtype`` comes back unchanged."""
    dtype = D.as_dtype(dtype)
    x = _convert(x)
    if x.dtype == dtype:
        return x
    return bind(CAST, x, SrcT=x.dtype, DstT=dtype, Truncate=False)


def _limits(in_dtype, out_dtype):
    """TF's clamp bounds for ``saturate_cast``: the narrower range, nudged inside ``out_dtype``
    where the bound itself is not representable in ``in_dtype``."""
    for d in (in_dtype, out_dtype):
        if not (d.is_integer or d.is_floating):
            raise TypeError(f"Cannot find minimum value of {d} with type {d}.")
    np_dtype = in_dtype.as_numpy_dtype
    try:
        promoted = np.promote_types(np_dtype, out_dtype.as_numpy_dtype)
    except TypeError:  # bfloat16
        promoted = float
    with np.errstate(all="ignore"):
        low = np_dtype(np.maximum(in_dtype.min, out_dtype.min))
        if np.array([low, out_dtype.min], dtype=promoted)[0] < out_dtype.min:
            low = np.nextafter(low, np_dtype(0), dtype=np_dtype)
        high = np_dtype(np.minimum(float(in_dtype.max), float(out_dtype.max)))
        pair = np.array([high, out_dtype.max], dtype=promoted)
        if pair[0] > pair[1]:
            high = np.nextafter(high, np_dtype(0), dtype=np_dtype)
    return low, high


@tf_export("saturate_cast", "dtypes.saturate_cast")
def saturate_cast(value, dtype, name=None):
    """Cast with clamping to ``dtype``'s range first (ClipByValue, then Cast)."""
    value = _convert(value)
    dtype = D.as_dtype(dtype)
    in_dtype = value.dtype
    if in_dtype.is_complex:
        if dtype.is_complex:
            real_in, real_out = in_dtype.real_dtype, dtype.real_dtype
            if real_in.min < real_out.min or real_in.max > real_out.max:
                low = convert_to_tensor(builtins.complex(real_out.min, real_out.min), in_dtype)
                high = convert_to_tensor(builtins.complex(real_out.max, real_out.max), in_dtype)
                value = bind(CLIP_BY_VALUE, value, low, high)
            return cast(value, dtype)
        value = real(value)
        in_dtype = in_dtype.real_dtype
    low, high = _limits(in_dtype, dtype.real_dtype)
    value = bind(CLIP_BY_VALUE, value, convert_to_tensor(low, in_dtype),
                 convert_to_tensor(high, in_dtype))
    return cast(value, dtype)


@tf_export("clip_by_value")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clamp ``t`` to [clip_value_min, clip_value_max] (Minimum, then Maximum); the bounds may
    broadcast against ``t`` but not grow it.

    Raises:
        ValueError: if broadcasting the bounds would change ``t``'s shape.
    """
    values = _convert(t)
    t_min = minimum(values, clip_value_max)
    values.shape.assert_is_compatible_with(t_min.shape)
    t_max = maximum(t_min, clip_value_min)
    values.shape.assert_is_compatible_with(t_max.shape)
    return t_max


@tf_export("where")
def where(condition, x=None, y=None, name=None):
    """The int64 coordinates of true (nonzero) elements of ``condition`` (Where), or elementwise
    ``x`` where ``condition`` holds and ``y`` elsewhere, all broadcast (SelectV2).

    Raises:
        ValueError: if only one of ``x`` and ``y`` is given.
    """
    if x is None and y is None:
        return bind(WHERE, _convert_hinted(condition, D.bool))
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    condition, = _bools(condition)
    x, y = same_dtype_operands(x, y)
    return bind(SELECT_V2, condition, x, y)


def _convert_hinted(value, dtype):
    return value if isinstance(value, Tensor) else convert_to_tensor(value, dtype_hint=dtype)


# --- operators ----------------------------------------------------------------------------------
# TF's operator wrapper: when the other value cannot take part (TypeError/ValueError), its own
# reflected operator gets a chance (so ``bool_tensor / np.float64(2)`` is NumPy's answer).
def _reflected_answer(self, other, op_name):
    reflected = getattr(type(other), f"__r{op_name}__", None)
    if reflected is None:
        return NotImplemented
    try:
        return reflected(other, self)
    except (TypeError, ValueError):
        return NotImplemented


def _simple_operator(opdef, op_name):
    """``x <op> y`` and ``y <op> x`` for an op with TF's strict conversion of the other value."""

    def forward(self, other):
        try:
            return bind(opdef, self, _operand(other, self))
        except (TypeError, ValueError):
            out = _reflected_answer(self, other, op_name)
            if out is NotImplemented:
                raise
            return out

    def reflected(self, other):
        return bind(opdef, _operand(other, self), self)

    return forward, reflected


def _add(self, other):
    try:
        other = _operand(other, self)
    except (TypeError, ValueError):  # TF's dtype_hint: the value keeps its own dtype
        other = convert_to_tensor(other)
    try:
        return bind(ADD, self, other)
    except (errors.InvalidArgumentError, TypeError):
        if self.dtype is not D.string:  # strings take the other op; the common path stays lean
            raise
    return bind(ADD_STRING, self, other)


def _add_operator(self, other):
    try:
        return _add(self, other)
    except (TypeError, ValueError):
        out = _reflected_answer(self, other, "add")
        if out is NotImplemented:
            raise
        return out


def _radd_operator(self, other):
    other = _operand(other, self)
    return bind(ADD_STRING if self.dtype is D.string else ADD, other, self)


def _bool_product(x, y):
    """TF multiplies bool tensors through int32 (``*`` only; tf.multiply refuses bool)."""
    x, y = cast(x, D.int32), cast(y, D.int32)
    return cast(bind(MUL, x, y), D.bool)


def _mul_operator(self, other):
    try:
        return bind(MUL, self, _operand(other, self))
    except (errors.InvalidArgumentError, TypeError, ValueError):
        if self.dtype is D.bool or getattr(other, "dtype", None) is D.bool:
            pass  # below, outside this handler
        else:
            out = _reflected_answer(self, other, "mul")
            if out is NotImplemented:
                raise
            return out
    return _bool_product(self, _convert(other))


def _rmul_operator(self, other):
    other = _operand(other, self)
    return _bool_product(other, self) if self.dtype is D.bool else bind(MUL, other, self)


def _truediv_operator(self, other):
    try:
        return _truediv(self, _hinted_operand(other, self))
    except (TypeError, ValueError):
        out = _reflected_answer(self, other, "truediv")
        if out is NotImplemented:
            raise
        return out


def _rtruediv_operator(self, other):
    return _truediv(_operand(other, self), self)


def _logic_operator(logical, bitwise, op_name):
    """``&``/``|``/``^``: the logical op for bool tensors, the bitwise op for integers."""

    def forward(self, other):
        try:
            other = _operand(other, self)
            return logical(self, other) if self.dtype is D.bool else bind(bitwise, self, other)
        except (TypeError, ValueError):
            out = _reflected_answer(self, other, op_name)
            if out is NotImplemented:
                raise
            return out

    def reflected(self, other):
        other = _operand(other, self)
        return logical(other, self) if self.dtype is D.bool else bind(bitwise, other, self)

    return forward, reflected


def _tensor_equals(self, other):
    """``==``: False for None, a scalar False for shapes that cannot broadcast."""
    if other is None:
        return False
    return bind(EQUAL, self, _operand(other, self), incompatible_shape_error=False)


def _tensor_not_equals(self, other):
    if other is None:
        return True
    return bind(NOT_EQUAL, self, _operand(other, self), incompatible_shape_error=False)


def _comparison(opdef):
    return lambda self, other: bind(opdef, self, _operand(other, self))


def _install_operators():
    override = Tensor._override_operator
    for op_name, opdef in (("sub", SUB), ("floordiv", FLOOR_DIV), ("mod", FLOOR_MOD),
                           ("pow", POW)):
        forward, reflected = _simple_operator(opdef, op_name)
        override(f"__{op_name}__", forward)
        override(f"__r{op_name}__", reflected)
    for op_name, logical, bitwise in (
            ("and", lambda x, y: bind(LOGICAL_AND, x, y), BITWISE_AND),
            ("or", lambda x, y: bind(LOGICAL_OR, x, y), BITWISE_OR),
            ("xor", logical_xor, BITWISE_XOR)):
        forward, reflected = _logic_operator(logical, bitwise, op_name)
        override(f"__{op_name}__", forward)
        override(f"__r{op_name}__", reflected)
    override("__add__", _add_operator)
    override("__radd__", _radd_operator)
    override("__mul__", _mul_operator)
    override("__rmul__", _rmul_operator)
    override("__truediv__", _truediv_operator)
    override("__rtruediv__", _rtruediv_operator)
    override("__lt__", _comparison(LESS))
    override("__le__", _comparison(LESS_EQUAL))
    override("__gt__", _comparison(GREATER))
    override("__ge__", _comparison(GREATER_EQUAL))
    override("__eq__", _tensor_equals)
    override("__ne__", _tensor_not_equals)
    override("__neg__", lambda self: bind(NEG, self))
    override("__abs__", abs)
    override("__invert__",
             lambda self: bind(LOGICAL_NOT if self.dtype is D.bool else INVERT, self))
    # No __pos__: TF 2.21 tensors do not support unary plus (TypeError).


_install_operators()


# --- gradients ------------------------------------------------------------------------------------
# Rules are written with the public functions above, so they run eagerly, while tracing, and
# under outer tapes (higher orders). They follow TF's math_grad.py: complex inputs get conjugated
# derivatives, and a gradient TF does not define is None (or a LookupError, as TF raises).
from ...autodiff.grad_util import unbroadcast as _unbroadcast  # noqa: E402


def _zeros(x):
    from ..array import zeros_like

    return zeros_like(x)


def _unary_rule(derivative):
    """A one-input rule from ``derivative(x, y, dy)``: the input, the output, the upstream."""
    return lambda op, dy: derivative(op.inputs[0], op.outputs[0], dy)


def _binary_rule(dx_fn, dy_fn):
    """A broadcasting two-input rule from the partial gradients ``d?_fn(x, y, z, dz)``; an input
    the tape does not need (``op.skip_input_indices``) is not computed."""

    def grad(op, dz):
        x, y = op.inputs
        z = op.outputs[0]
        skip = getattr(op, "skip_input_indices", ())
        gx = None if dx_fn is None or 0 in skip else _unbroadcast(dx_fn(x, y, z, dz), x, y)
        gy = None if dy_fn is None or 1 in skip else _unbroadcast(dy_fn(x, y, z, dz), y, x)
        return gx, gy

    return grad


def _no_gradient(name):
    """TF registers no gradient for ``name``: differentiating through it raises, as in TF."""

    def grad(op, *dys):
        raise LookupError(f"gradient registry has no entry for: {name}")

    return grad


def _one(x):
    return _constant_like(1, x)


def _zero(x):
    """A scalar 0 of x's dtype: ``where(c, g, _zero(g))`` needs no zeros tensor."""
    return _constant_like(0, x)


def _pow_dy(x, y, z, g):
    cx = conj(x)
    zero = _constant_like(0, x)
    mask = not_equal(cx, zero) if x.dtype.is_complex else greater(cx, zero)
    safe_x = where(mask, cx, _one(x))
    log_x = where(mask, log(safe_x), _zeros(x))
    return g * conj(z) * log_x


def _nonzero(x):
    """1 where x != 0 else 0, in x's dtype."""
    return cast(not_equal(x, _constant_like(0, x)), x.dtype)


def _complex(re, im):
    return complex(re, im)


def _angle_grad(x, y, dy):
    return -_complex(dy, _zeros(dy)) * reciprocal(_complex(imag(x), real(x)))


def _complex_abs_grad(x, y, dy):
    return divide_no_nan(_complex(dy, _zeros(dy)) * x, _complex(y, _zeros(y)))


_SQRT_PI = np.sqrt(np.pi)
_UNARY_GRADS = {
    NEG:         lambda x, y, g: -g,
    ABS:         lambda x, y, g: g * sign(x),
    SIGN:        lambda x, y, g: _zeros(x),
    SQUARE:      lambda x, y, g: g * (2 * conj(x)),
    SQRT:        lambda x, y, g: g * 0.5 / conj(y),
    RSQRT:       lambda x, y, g: g * -0.5 * conj(y) * conj(y) * conj(y),
    RECIPROCAL:  lambda x, y, g: -g * conj(y) * conj(y),
    EXP:         lambda x, y, g: g * conj(y),
    EXPM1:       lambda x, y, g: g * exp(conj(x)),
    LOG:         lambda x, y, g: g * reciprocal(conj(x)),
    LOG1P:       lambda x, y, g: g * reciprocal(1 + conj(x)),
    SIN:         lambda x, y, g: g * cos(conj(x)),
    COS:         lambda x, y, g: -g * sin(conj(x)),
    TAN:         lambda x, y, g: square(reciprocal(cos(conj(x)))) * g,
    ASIN:        lambda x, y, g: g * reciprocal(sqrt(_one(x) - square(conj(x)))),
    ACOS:        lambda x, y, g: -g * reciprocal(sqrt(_one(x) - square(conj(x)))),
    ATAN:        lambda x, y, g: g * reciprocal(1 + square(conj(x))),
    SINH:        lambda x, y, g: g * cosh(conj(x)),
    COSH:        lambda x, y, g: g * sinh(conj(x)),
    TANH:        lambda x, y, g: g * (1 - conj(y) * conj(y)),
    ASINH:       lambda x, y, g: g / cosh(conj(y)),
    ACOSH:       lambda x, y, g: g / sinh(conj(y)),
    ATANH:       lambda x, y, g: g * reciprocal(_one(x) - square(conj(x))),
    SIGMOID:     lambda x, y, g: g * (conj(y) * (1 - conj(y))),
    ERF:         lambda x, y, g: g * (2 / _SQRT_PI) * exp(-square(x)),
    ERFC:        lambda x, y, g: g * (-2 / _SQRT_PI) * exp(-square(x)),
    LGAMMA:      lambda x, y, g: g * digamma(conj(x)),
    DIGAMMA:     lambda x, y, g: g * polygamma(_one(x), conj(x)),
    SOFTPLUS:    lambda x, y, g: g * sigmoid(x),
    SOFTSIGN:    lambda x, y, g: g / square(1 + abs(x)),
    CONJ:        lambda x, y, g: conj(g),
    REAL_PART:   lambda x, y, g: _complex(g, _zeros(g)),
    IMAG_PART:   lambda x, y, g: _complex(_zeros(g), g),
    ANGLE:       _angle_grad,
    COMPLEX_ABS: _complex_abs_grad,
    FLOOR:       lambda x, y, g: None,
    CEIL:        lambda x, y, g: None,
    ROUND:       lambda x, y, g: None,
    RINT:        lambda x, y, g: None,
    CAST:        lambda x, y, g: cast(g, x.dtype) if _castable(x.dtype, y.dtype) else None,
}

_BINARY_GRADS = {  # op: (d/dx, d/dy) as functions of (x, y, z = op(x, y), upstream g)
    ADD:          (lambda x, y, z, g: g,                    lambda x, y, z, g: g),
    ADD_STRING:   (lambda x, y, z, g: g,                    lambda x, y, z, g: g),
    SUB:          (lambda x, y, z, g: g,                    lambda x, y, z, g: -g),
    MUL:          (lambda x, y, z, g: g * conj(y),          lambda x, y, z, g: conj(x) * g),
    REAL_DIV:     (lambda x, y, z, g: realdiv(g, conj(y)),
                   lambda x, y, z, g: g * realdiv(realdiv(-conj(x), conj(y)), conj(y))),
    DIV_NO_NAN:   (lambda x, y, z, g: divide_no_nan(g, conj(y)),
                   lambda x, y, z, g: g * divide_no_nan(divide_no_nan(-conj(x), conj(y)),
                                                        conj(y))),
    MUL_NO_NAN:   (lambda x, y, z, g: multiply_no_nan(g, y),
                   lambda x, y, z, g: multiply_no_nan(x, g)),
    FLOOR_MOD:    (lambda x, y, z, g: g,
                   lambda x, y, z, g: g * -floordiv(conj(x), conj(y))),
    POW:          (lambda x, y, z, g: g * conj(y) * pow(conj(x), conj(y) - 1), _pow_dy),
    MAXIMUM:      (lambda x, y, z, g: where(greater_equal(x, y), g, _zero(g)),
                   lambda x, y, z, g: where(greater_equal(x, y), _zero(g), g)),
    MINIMUM:      (lambda x, y, z, g: where(less_equal(x, y), g, _zero(g)),
                   lambda x, y, z, g: where(less_equal(x, y), _zero(g), g)),
    SQUARED_DIFFERENCE: (lambda x, y, z, g: (2 * g) * (x - y),
                         lambda x, y, z, g: -((2 * g) * (x - y))),
    XLOGY:        (lambda x, y, z, g: xlogy(_nonzero(x), y) * g,
                   lambda x, y, z, g: xdivy(x, y) * g),
    XDIVY:        (lambda x, y, z, g: xdivy(_nonzero(x), y) * g,
                   lambda x, y, z, g: xdivy(-x, y * y) * g),
    XLOG1PY:      (lambda x, y, z, g: xlog1py(_nonzero(x), y) * g,
                   lambda x, y, z, g: xdivy(x, y + 1) * g),
    ATAN2:        (lambda y, x, z, g: x * (g / (square(y) + square(x))),
                   lambda y, x, z, g: -y * (g / (square(y) + square(x)))),
    NEXT_AFTER:   (lambda x, y, z, g: g,                    lambda x, y, z, g: _zeros(y)),
    ZETA:         (None,  # as TF: no gradient with respect to x
                   lambda x, q, z, g: g * -x * zeta(x + 1, q)),
    POLYGAMMA:    (None,  # as TF: no gradient with respect to the order
                   lambda a, x, z, g: g * polygamma(a + 1, x)),
    FLOOR_DIV:    (None, None),
    TRUNCATE_DIV: (None, None),
}

_FLOATING_GRAD_TYPES = frozenset(FLOAT + COMPLEX)


def _castable(src, dst):
    """TF's Cast gradient flows only between float and complex types."""
    return src in _FLOATING_GRAD_TYPES and dst in _FLOATING_GRAD_TYPES


def _select_grad(op, g):
    c, x, y = op.inputs
    zero = _zero(g)
    skip = getattr(op, "skip_input_indices", ())
    gx = None if 1 in skip else _unbroadcast(where(c, g, zero), x, c, y)
    gy = None if 2 in skip else _unbroadcast(where(c, zero, g), y, c, x)
    return None, gx, gy


def _clip_grad(op, g):
    x, lo, hi = op.inputs
    zero = _zero(g)
    below, above = less(x, lo), greater(x, hi)
    return (where(logical_or(below, above), zero, g),
            _unbroadcast(where(below, g, zero), lo, x),
            _unbroadcast(where(above, g, zero), hi, x))


def _install_gradients():
    for opdef, derivative in _UNARY_GRADS.items():
        opdef.grad = _unary_rule(derivative)
    for opdef, (dx_fn, dy_fn) in _BINARY_GRADS.items():
        opdef.grad = _binary_rule(dx_fn, dy_fn)
    SELECT_V2.grad = _select_grad
    CLIP_BY_VALUE.grad = _clip_grad
    ADD_N.grad = lambda op, g: [g] * len(op.inputs)
    TRUNCATE_MOD.grad = _no_gradient("TruncateMod")


# --- Complex ------------------------------------------------------------------------------------
_COMPLEX_OF = {D.float32: D.complex64, D.float64: D.complex128}


@define_op("Complex")
class Complex:
    """``real + 1j * imag`` elementwise, with broadcasting."""

    def infer(real, imag, Tout):
        check_dtypes("Complex", (real, imag), (D.float32, D.float64), ("real", "imag"))
        return TensorSpec(broadcast_shape(real.shape, imag.shape, "Complex"), Tout)

    def kernel(real, imag, Tout):
        out = np.empty(np.broadcast_shapes(np.shape(real), np.shape(imag)), Tout._np)
        out.real = real
        out.imag = imag
        return out[()] if out.ndim == 0 else out

    check = DtypeCheck("Complex", (D.float32, D.float64), same=2)

    def grad(op, dz):
        x, y = op.inputs
        return _unbroadcast(real(dz), x, y), _unbroadcast(imag(dz), y, x)


@tf_export("dtypes.complex", "complex")
def complex(real, imag, name=None):
    """The complex tensor ``real + 1j * imag`` (float32 -> complex64, float64 -> complex128).

    Raises:
        TypeError: unless both parts are float32 or both are float64.
    """
    real, imag = convert_to_tensor(real), convert_to_tensor(imag)
    tout = _COMPLEX_OF.get(real.dtype)
    if tout is None or imag.dtype != real.dtype:
        raise TypeError(f"The `real` and `imag` components have incorrect types: "
                        f"{real.dtype.name} {imag.dtype.name}. They must be consistent, and one "
                        f"of [tf.float32, tf.float64]")
    return bind(Complex, real, imag, Tout=tout)


_install_gradients()
