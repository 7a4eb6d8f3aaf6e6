"""The special functions, without SciPy: erf and erfc, lgamma, digamma, the Hurwitz zeta
function and polygamma, each accurate to a few ulps in float64 (other floats round from it)."""

import math as _pymath

import numpy as np

from ...numerics import quiet
from ._families import F16_F32_F64, F32_F64, FLOATING, binary_op, unary_op

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


ERF, erf = unary_op("Erf", quiet(_erf), FLOATING, "math.erf", doc="The Gauss error function.")
ERFC, erfc = unary_op("Erfc", quiet(_erfc), FLOATING, "math.erfc",
                      doc="1 - erf(x), accurate for large x.")


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


LGAMMA, lgamma = unary_op("Lgamma", _lgamma, FLOATING, "math.lgamma", "lgamma",
                          kernels=F16_F32_F64, doc="log|Gamma(x)|.")


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


DIGAMMA, digamma = unary_op("Digamma", _digamma, FLOATING, "math.digamma", "digamma",
                            kernels=F16_F32_F64, doc="The derivative of lgamma (the psi function).")


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


ZETA, zeta = binary_op("Zeta", _zeta, F32_F64, "math.zeta", args=("x", "q"),
                       doc="The Hurwitz zeta function sum_k (q + k)^-x.")


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


POLYGAMMA, polygamma = binary_op("Polygamma", _polygamma, F32_F64, "math.polygamma",
                                 args=("a", "x"), doc="The a-th derivative of digamma at x.")


# ndtri (the standard normal quantile) and erfinv without SciPy: Acklam's rational start
# (1e-9 relative), then Halley steps on erfc in float64; other floats round from it.
_ACKLAM_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_ACKLAM_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
             6.680131188771972e+01, -1.328068155288572e+01)
_ACKLAM_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_ACKLAM_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
             3.754408661907416e+00)
_SQRT2 = _pymath.sqrt(2.0)
_SQRT_2PI = _pymath.sqrt(2.0 * _pymath.pi)


def _poly(coeffs, x):
    out = np.zeros_like(x)
    for c in coeffs:
        out = out * x + c
    return out


def _ndtri64(p):
    """The x with Phi(x) = p, for float64 p: -inf/inf at 0/1, NaN outside [0, 1]."""
    low = np.minimum(p, 1.0 - p)
    tail = np.sqrt(-2.0 * np.log(np.where(low > 0, low, 1.0)))
    tail_x = _poly(_ACKLAM_C, tail) / (_poly(_ACKLAM_D, tail) * tail + 1.0)
    q = p - 0.5
    r = q * q
    mid_x = q * _poly(_ACKLAM_A, r) / (_poly(_ACKLAM_B, r) * r + 1.0)
    x = np.where(low < 0.02425, np.where(p < 0.5, tail_x, -tail_x), mid_x)
    for _ in range(2):  # Halley on Phi(x) - p, Phi from erfc (exact in the tails)
        err = 0.5 * _erfc(-x / _SQRT2) - p
        u = err * _SQRT_2PI * np.exp(0.5 * x * x)
        x = x - u / (1.0 + 0.5 * x * u)
    x = np.where(p == 0.0, -np.inf, np.where(p == 1.0, np.inf, x))
    return np.where((p < 0.0) | (p > 1.0) | np.isnan(p), np.nan, x)


def _ndtri(p):
    return _ndtri64(np.asarray(p, np.float64)).astype(p.dtype)[()]


def _erfinv(x):
    # TF's formula: ndtri(0.5 * x + 0.5) / sqrt(2), the argument rounded in x's own dtype
    # (so a float32 erfinv(1e-10) is 0, as TF gives)
    half = x.dtype.type(0.5)
    p = np.asarray(half * x + half, np.float64)
    return (_ndtri64(p) / _SQRT2).astype(x.dtype)[()]


NDTRI, ndtri = unary_op("Ndtri", quiet(_ndtri), FLOATING, "math.ndtri",
                        doc="The inverse of the standard normal CDF.")
ERFINV, erfinv = unary_op("Erfinv", quiet(_erfinv), FLOATING, "math.erfinv",
                          doc="The inverse of erf: NaN outside [-1, 1].")


def _bessel_i0e64(x):
    """exp(-|x|) I0(x) in float64: NumPy's I0 below 700, the asymptotic series above."""
    a = np.abs(x)
    small = a < 700.0
    direct = np.i0(np.where(small, a, 0.0)) * np.exp(-np.where(small, a, 0.0))
    big = np.where(small, 700.0, a)
    term, total = np.ones_like(big), np.ones_like(big)
    for k in range(1, 8):
        term = term * (2 * k - 1) ** 2 / (8.0 * k * big)
        total = total + term
    return np.where(small, direct, total / np.sqrt(2.0 * _pymath.pi * big))


def _bessel_i0e(x):
    return _bessel_i0e64(np.asarray(x, np.float64)).astype(x.dtype)[()]


BESSEL_I0E, bessel_i0e = unary_op("BesselI0e", quiet(_bessel_i0e), FLOATING, "math.bessel_i0e",
                                  "math.special.bessel_i0e",
                                  doc="exp(-|x|) I0(x), the scaled modified Bessel function.")


def _bessel_i1e64(x):
    """exp(-|x|) I1(x) in float64: the power series below 30, the asymptotic series above."""
    a = np.abs(x)
    small = a < 30.0
    s = np.where(small, a, 0.0)
    term = s / 2.0
    total = term.copy()
    for k in range(1, 60):
        term = term * (s * s / 4.0) / (k * (k + 1))
        total = total + term
    direct = total * np.exp(-s)
    big = np.where(small, 30.0, a)
    term, series = np.ones_like(big), np.ones_like(big)
    for k in range(1, 12):
        term = term * -(4.0 - (2 * k - 1) ** 2) / (8.0 * k * big)
        series = series + term
    return np.copysign(np.where(small, direct, series / np.sqrt(2.0 * _pymath.pi * big)), x)


def _bessel_i1e(x):
    return _bessel_i1e64(np.asarray(x, np.float64)).astype(x.dtype)[()]


BESSEL_I1E, bessel_i1e = unary_op("BesselI1e", quiet(_bessel_i1e), FLOATING, "math.bessel_i1e",
                                  "math.special.bessel_i1e",
                                  doc="exp(-|x|) I1(x), the scaled modified Bessel function.")


def _bessel_i0(x):
    x64 = np.asarray(x, np.float64)
    return (_bessel_i0e64(x64) * np.exp(np.abs(x64))).astype(x.dtype)[()]


def _bessel_i1(x):
    x64 = np.asarray(x, np.float64)
    return (_bessel_i1e64(x64) * np.exp(np.abs(x64))).astype(x.dtype)[()]


BESSEL_I0, bessel_i0 = unary_op("BesselI0", quiet(_bessel_i0), FLOATING, "math.bessel_i0",
                                "math.special.bessel_i0",
                                doc="I0(x), the modified Bessel function of order 0.")
BESSEL_I1, bessel_i1 = unary_op("BesselI1", quiet(_bessel_i1), FLOATING, "math.bessel_i1",
                                "math.special.bessel_i1",
                                doc="I1(x), the modified Bessel function of order 1.")
