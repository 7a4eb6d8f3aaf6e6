"""Elementwise math ops: kernels against NumPy, infer against kernels, and TF's dtype rules,
edge values, errors and operator semantics pinned against TensorFlow 2.21."""

import importlib
import math
import pkgutil
import warnings

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.graph.ir import Graph
from tensortrace.ops.math.arithmetic import ADD
from tensortrace.ops.math.clip import ClipByValue
from tensortrace.ops.math.compare import (BITWISE_XOR, EQUAL, GREATER_EQUAL, INVERT, IS_NAN,
                                          LEFT_SHIFT, LESS, LOGICAL_AND, LOGICAL_NOT, NOT_EQUAL)
from tensortrace.ops.math.select import Where
from tensortrace.ops.math.transcendental import SIGMOID
from tensortrace.registry import NON_DIFFERENTIABLE, OpDef

from .optable import Case, op_types, rand, run_case

# TF 2.21 runs each eager op as a one-op function and names it first in a kernel's error
_EAGER = r"^\{\{function_node __wrapped__\w+_device_/\S+\}\} "

A, B = rand(2, 3), rand(3)
F64 = rand(2, 3, dtype=np.float64)
F16 = rand(4, dtype=np.float16)
I32, I32B = rand(2, 3, dtype=np.int32), rand(3, dtype=np.int32)
I8, U8 = rand(5, dtype=np.int8), rand(5, dtype=np.uint8)
I64, U16 = rand(4, dtype=np.int64), rand(4, dtype=np.uint16)
C64, C128 = rand(2, 3, dtype=np.complex64), rand(3, dtype=np.complex128)
BOOL, BOOL_B = rand(2, 3, dtype=np.bool_), rand(3, dtype=np.bool_)
EMPTY = np.zeros((0, 3), np.float32)
SCALAR = np.float32(1.25)
POS = rand(2, 3, low=0.1, high=3.0)
UNIT = rand(2, 3, low=-0.9, high=0.9)
NUM = np.array([[7, -7, 7, -7, 0, 9]], np.int32)
DEN = np.array([2, 2, -2, -2, 5, 4], np.int32)
NUM_F = np.array([7.5, -7.5, 7.5, -7.5, -6.0, 6.0], np.float32)
DEN_F = np.array([2.0, 2.0, -2.0, -2.0, 3.0, -3.0], np.float32)
STR, STR_B = np.array([b"a", b"bc"], dtype=object), np.array([[b"x"], [b"y"]], dtype=object)
SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 3e38, -3e38, 1e-30],
                   np.float32)


def _same(fn):
    """A NumPy reference that keeps the first input's dtype."""
    return lambda x, *rest, **kw: np.asarray(fn(x, *rest)).astype(x.dtype)


def _floormod_ref(x, y):
    r = np.fmod(x, y)
    return np.where((r != 0) & ((y < 0) != (r < 0)), r + y, r).astype(x.dtype)


def _truncdiv_ref(x, y):
    if x.dtype.kind == "f":
        return np.trunc(x / y).astype(x.dtype)
    return np.array([[int(a / b) for a, b in zip(row, y)] for row in x], x.dtype)


def _shift_ref(fn):
    return lambda x, y: fn(x, np.clip(y, 0, x.dtype.itemsize * 8 - 1).astype(x.dtype))


def _cast_ref(dtype):
    return lambda x, dtype=None: x.astype(dtype.as_numpy_dtype)


def _sigmoid_ref(x):
    return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype)


def _softplus_ref(x):
    return np.logaddexp(0, x.astype(np.float64)).astype(x.dtype)


_erf = np.vectorize(math.erf)
_erfc = np.vectorize(math.erfc)


_F32_23 = np.arange(6, dtype=np.float32).reshape(2, 3)

CASES = [
    # complex numbers from parts
    Case(tf.complex, (_F32_23, np.float32(2.0)),
         ref=lambda a, b: (a + 1j * b).astype(np.complex64)),
    Case(tf.complex, (_F32_23.astype(np.float64), np.ones((1, 3))), ref=lambda a, b: a + 1j * b),
    # arithmetic
    Case(tf.math.add, (A, B), ref=np.add, id="add-broadcast"),
    Case(tf.math.add, (rand(4, dtype=np.int32), rand(4, dtype=np.int32)), ref=np.add, id="add-i32"),
    Case(tf.math.add, (U16, U16), ref=np.add, id="add-u16"),
    Case(tf.math.add, (EMPTY, np.float32(2)), ref=np.add, id="add-empty"),
    Case(tf.math.add, (STR, STR_B), ref=np.add, id="add-strings"),
    Case(tf.math.subtract, (A, B), ref=np.subtract),
    Case(tf.math.subtract, (SCALAR, C64.real), ref=np.subtract, id="subtract-scalar"),
    Case(tf.math.multiply, (rand(2, 1, dtype=np.float64), rand(1, 3, dtype=np.float64)),
         ref=np.multiply),
    Case(tf.math.multiply, (C64, C64), ref=np.multiply, id="multiply-c64"),
    Case(tf.math.negative, (A,), ref=np.negative),
    Case(tf.math.negative, (I8,), ref=np.negative, id="negative-i8"),
    Case(tf.math.divide, (A, B), ref=np.divide),
    Case(tf.math.divide, (NUM, DEN), ref=lambda x, y: x / y, id="divide-i32-to-f64"),
    Case(tf.math.truediv, (I8, np.int8(2)), ref=lambda x, y: (x / y).astype(np.float32),
         id="truediv-i8-to-f32"),
    Case(tf.math.truediv, (U16, np.uint16(4)), ref=lambda x, y: (x / y).astype(np.float32),
         id="truediv-u16-to-f32"),
    Case(tf.realdiv, (F64, F64 + 3), ref=np.true_divide),
    Case(tf.math.floordiv, (NUM, DEN), ref=np.floor_divide, id="floordiv-i32"),
    Case(tf.math.floordiv, (NUM_F, DEN_F), ref=_same(lambda x, y: np.floor(x / y)),
         id="floordiv-f32"),
    Case(tf.math.floormod, (NUM, DEN), ref=np.mod, id="floormod-i32"),
    Case(tf.math.floormod, (NUM_F, DEN_F), ref=_floormod_ref, id="floormod-f32"),
    Case(tf.math.mod, (U8 + 1, np.uint8(3)), ref=np.mod, id="mod-u8"),
    Case(tf.truncatediv, (NUM, DEN), ref=_truncdiv_ref, id="truncatediv-i32"),
    Case(tf.truncatediv, (NUM_F[None], DEN_F), ref=_truncdiv_ref, id="truncatediv-f32"),
    Case(tf.truncatemod, (NUM, DEN), ref=np.fmod, id="truncatemod-i32"),
    Case(tf.truncatemod, (NUM_F, DEN_F), ref=np.fmod, id="truncatemod-f32"),
    Case(tf.math.pow, (POS, A), ref=np.power),
    Case(tf.math.pow, (I32, np.abs(I32B)), ref=np.power, id="pow-i32"),
    Case(tf.math.square, (U8,), ref=np.square, id="square-u8"),
    Case(tf.math.square, (C128,), ref=np.square, id="square-c128"),
    Case(tf.math.sqrt, (POS,), ref=np.sqrt),
    Case(tf.math.sqrt, (C64,), ref=np.sqrt, rtol=1e-5, id="sqrt-c64"),
    Case(tf.math.rsqrt, (POS,), ref=_same(lambda x: 1 / np.sqrt(x)), rtol=1e-5),
    Case(tf.math.reciprocal, (F64 + 3,), ref=np.reciprocal),
    Case(tf.math.exp, (A,), ref=np.exp, rtol=1e-5),
    Case(tf.math.exp, (EMPTY,), ref=np.exp, id="exp-empty"),
    Case(tf.math.expm1, (F64,), ref=np.expm1),
    Case(tf.math.log, (POS,), ref=np.log, rtol=1e-5),
    Case(tf.math.log1p, (POS,), ref=np.log1p, rtol=1e-5),
    Case(tf.math.squared_difference, (I32, I32B), ref=_same(lambda x, y: (x - y) ** 2)),
    Case(tf.math.squared_difference, (C64, C64[0]),
         ref=_same(lambda x, y: (x - y) * np.conj(x - y)), rtol=1e-5, id="sqdiff-c64"),
    Case(tf.math.maximum, (A, B), ref=np.maximum),
    Case(tf.math.maximum, (U8, np.uint8(3)), ref=np.maximum, id="maximum-u8"),
    Case(tf.math.minimum, (I64, np.int64(0)), ref=np.minimum),
    Case(tf.math.add_n, ([A, A * 2, A + 1],), ref=lambda xs: xs[0] + xs[1] + xs[2]),
    Case(tf.math.add_n, ([I32, I32],), ref=lambda xs: xs[0] + xs[1], id="add_n-i32"),
    Case(tf.math.divide_no_nan, (A, np.array([0, 1, 2], np.float32)),
         ref=_same(lambda x, y: np.where(y == 0, 0, x / np.where(y == 0, 1, y)))),
    Case(tf.math.multiply_no_nan, (A, np.array([0, 1, 2], np.float32)),
         ref=_same(lambda x, y: x * y)),
    Case(tf.math.xlogy, (A, POS), ref=_same(lambda x, y: x * np.log(y)), rtol=1e-5),
    Case(tf.math.xdivy, (A, POS), ref=_same(lambda x, y: x / y), rtol=1e-5),
    Case(tf.math.xlog1py, (A, POS), ref=_same(lambda x, y: x * np.log1p(y)), rtol=1e-5),
    Case(tf.math.scalar_mul, (np.float32(3), A), ref=np.multiply),
    Case(tf.math.reciprocal_no_nan, (A,), ref=np.reciprocal, rtol=1e-5),
    Case(tf.math.abs, (A,), ref=np.abs),
    Case(tf.math.abs, (I8,), ref=np.abs, id="abs-i8"),
    Case(tf.math.abs, (C64,), ref=np.abs, rtol=1e-5, id="abs-c64-is-float32"),
    Case(tf.math.sign, (np.array([-2.0, -0.0, 0.0, 3.0, np.nan], np.float32),), ref=np.sign),
    Case(tf.math.sign, (I32,), ref=np.sign, id="sign-i32"),
    Case(tf.math.sign, (np.array([3 + 4j, 0j, -2j], np.complex64),),
         ref=lambda x: np.array([0.6 + 0.8j, 0, -1j], np.complex64), id="sign-c64"),
    Case(tf.math.real, (C64,), ref=np.real),
    Case(tf.math.real, (I32,), ref=lambda x: x, id="real-of-int"),
    Case(tf.math.imag, (C128,), ref=np.imag),
    Case(tf.math.imag, (A,), ref=np.zeros_like, id="imag-of-float"),
    Case(tf.math.conj, (C64,), ref=np.conj),
    Case(tf.math.angle, (C128,), ref=np.angle),
    Case(tf.math.angle, (A,), ref=_same(lambda x: np.where(x < 0, np.pi, 0.0)), id="angle-f32"),
    # comparisons and logic
    Case(tf.math.equal, (I32, I32B), ref=np.equal),
    Case(tf.math.equal, (STR, np.array(b"a", dtype=object)), ref=lambda x, y: x == y,
         id="equal-strings"),
    Case(tf.math.not_equal, (A, B), ref=np.not_equal),
    Case(tf.math.less, (A, B), ref=np.less),
    Case(tf.math.less_equal, (U8, np.uint8(2)), ref=np.less_equal),
    Case(tf.math.greater, (F16, np.float16(0)), ref=np.greater),
    Case(tf.math.greater_equal, (I64, I64[::-1].copy()), ref=np.greater_equal),
    Case(tf.math.logical_and, (BOOL, BOOL_B), ref=np.logical_and),
    Case(tf.math.logical_or, (BOOL, BOOL_B), ref=np.logical_or),
    Case(tf.math.logical_not, (BOOL,), ref=np.logical_not),
    Case(tf.math.logical_xor, (BOOL, BOOL_B), ref=np.logical_xor),
    Case(tf.bitwise.bitwise_and, (I32, I32B), ref=np.bitwise_and),
    Case(tf.bitwise.bitwise_or, (U8, U8[::-1].copy()), ref=np.bitwise_or),
    Case(tf.bitwise.bitwise_xor, (I64, np.int64(5)), ref=np.bitwise_xor),
    Case(tf.bitwise.invert, (U16,), ref=np.invert),
    Case(tf.bitwise.left_shift, (np.array([1, 1, 1, -8, 3], np.int8),
                                 np.array([1, 7, 8, 1, -1], np.int8)),
         ref=_shift_ref(np.left_shift)),
    Case(tf.bitwise.right_shift, (np.array([-8, 8, -1, 8, 16], np.int8),
                                  np.array([1, 1, 8, 10, -1], np.int8)),
         ref=_shift_ref(np.right_shift)),
    # casts, clipping, selection
    Case(tf.cast, (A,), {"dtype": tf.int32}, ref=_cast_ref(tf.int32)),
    Case(tf.cast, (I32,), {"dtype": tf.float16}, ref=_cast_ref(tf.float16), id="cast-i32-f16"),
    Case(tf.cast, (I32,), {"dtype": tf.bool}, ref=_cast_ref(tf.bool), id="cast-i32-bool"),
    Case(tf.cast, (BOOL,), {"dtype": tf.float64}, ref=_cast_ref(tf.float64), id="cast-bool"),
    Case(tf.cast, (C64,), {"dtype": tf.float32}, ref=lambda x, dtype: x.real, id="cast-c-f"),
    Case(tf.dtypes.cast, (U16,), {"dtype": tf.int8}, ref=_cast_ref(tf.int8), id="cast-wraps"),
    Case(tf.dtypes.saturate_cast, (np.array([-1, 256, 3.7], np.float32),), {"dtype": tf.uint8},
         ref=lambda x, dtype: np.array([0, 255, 3], np.uint8)),
    Case(tf.clip_by_value, (A, np.float32(-1), np.float32(1)),
         ref=lambda t, a, b: np.clip(t, a, b)),
    Case(tf.clip_by_value, (I32, I32B.clip(-9, 0), np.int32(2)),
         ref=lambda t, a, b: np.maximum(np.minimum(t, b), a), id="clip-broadcast-bounds"),
    Case(tf.where, (BOOL,), ref=lambda c: np.argwhere(c), dynamic_shape=True),
    Case(tf.where, (A > 0,), ref=lambda c: np.argwhere(c), dynamic_shape=True, id="where-float"),
    Case(tf.where, (BOOL_B[:, None], A[0], np.float32(0)), ref=np.where, id="where-select"),
    Case(tf.where, (BOOL, STR_B[0].repeat(3).reshape(1, 3), np.array(b"z", dtype=object)),
         ref=lambda c, x, y: np.where(c, x, y), id="where-strings"),
    # rounding and classification
    Case(tf.math.is_nan, (SPECIAL,), ref=np.isnan),
    Case(tf.math.is_inf, (SPECIAL,), ref=np.isinf),
    Case(tf.math.is_finite, (SPECIAL,), ref=np.isfinite),
    Case(tf.math.round, (np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6], np.float32),),
         ref=np.round),
    Case(tf.math.round, (I32,), ref=lambda x: x, id="round-int-is-identity"),
    Case(tf.math.floor, (A,), ref=np.floor),
    Case(tf.math.ceil, (F64,), ref=np.ceil),
    Case(tf.math.rint, (np.array([-2.5, -0.5, 0.5, 1.5, 2.5], np.float64),), ref=np.rint),
    # transcendental
    Case(tf.math.sin, (A,), ref=np.sin, rtol=1e-5),
    Case(tf.math.cos, (F64,), ref=np.cos),
    Case(tf.math.tan, (UNIT,), ref=np.tan, rtol=1e-5),
    Case(tf.math.asin, (UNIT,), ref=np.arcsin, rtol=1e-5),
    Case(tf.math.acos, (UNIT,), ref=np.arccos, rtol=1e-5),
    Case(tf.math.atan, (A,), ref=np.arctan, rtol=1e-5),
    Case(tf.math.atan2, (A, B), ref=np.arctan2, rtol=1e-5),
    Case(tf.math.sinh, (A,), ref=np.sinh, rtol=1e-5),
    Case(tf.math.cosh, (C128,), ref=np.cosh),
    Case(tf.math.tanh, (A,), ref=np.tanh, rtol=1e-5),
    Case(tf.math.asinh, (A,), ref=np.arcsinh, rtol=1e-5),
    Case(tf.math.acosh, (POS + 1,), ref=np.arccosh, rtol=1e-5),
    Case(tf.math.atanh, (UNIT,), ref=np.arctanh, rtol=1e-5),
    Case(tf.math.erf, (rand(50, dtype=np.float64, low=-6, high=6),), ref=_erf, rtol=1e-13,
         atol=1e-15),
    Case(tf.math.erf, (F16,), ref=_same(_erf), rtol=1e-3, id="erf-f16"),
    Case(tf.math.erfc, (rand(50, dtype=np.float64, low=-6, high=26),), ref=_erfc, rtol=1e-12,
         atol=0),
    Case(tf.math.erfc, (A,), ref=_same(_erfc), rtol=1e-6, id="erfc-f32"),
    Case(tf.math.sigmoid, (rand(20, low=-50, high=50),), ref=_sigmoid_ref, rtol=1e-6),
    Case(tf.math.sigmoid, (C64,), ref=_same(lambda x: 1 / (1 + np.exp(-x))), rtol=1e-5,
         id="sigmoid-c64"),
    Case(tf.math.softplus, (rand(20, dtype=np.float64, low=-50, high=50),), ref=_softplus_ref,
         rtol=1e-12, atol=1e-300),
    Case(tf.math.log_sigmoid, (A,), ref=_same(lambda x: -np.logaddexp(0, -x)), rtol=1e-6),
    Case(tf.math.softsign, (A,), ref=_same(lambda x: x / (1 + np.abs(x))), rtol=1e-6),
    # inverses checked through the functions they invert; Bessel functions against NumPy's i0
    # and I1's series
    Case(tf.math.erfinv, (rand(20, dtype=np.float64, low=-0.99, high=0.99),),
         check=lambda out, x: np.testing.assert_allclose(_erf(out.numpy()), x, rtol=1e-12)),
    Case(tf.math.ndtri, (rand(20, dtype=np.float64, low=0.01, high=0.99),),
         check=lambda out, p: np.testing.assert_allclose(
             0.5 * _erfc(-out.numpy() / np.sqrt(2)), p, rtol=1e-12)),
    Case(tf.math.bessel_i0e, (rand(20, dtype=np.float64, low=-8, high=8),),
         ref=lambda x: np.i0(x) * np.exp(-np.abs(x)), rtol=1e-12),
    Case(tf.math.bessel_i1e, (rand(20, dtype=np.float64, low=-8, high=8),),
         ref=lambda x: np.sign(x) * np.exp(-np.abs(x)) * sum(
             (np.abs(x) / 2) ** (2 * k + 1) / (math.factorial(k) * math.factorial(k + 1))
             for k in range(40)), rtol=1e-11),
    Case(tf.math.bessel_i0, (rand(20, dtype=np.float64, low=-8, high=8),), ref=np.i0,
         rtol=1e-12),
    Case(tf.math.bessel_i1, (rand(20, dtype=np.float64, low=-8, high=8),),
         ref=lambda x: np.sign(x) * sum(
             (np.abs(x) / 2) ** (2 * k + 1) / (math.factorial(k) * math.factorial(k + 1))
             for k in range(40)), rtol=1e-11),
    Case(tf.math.invert_permutation, (np.array([3, 4, 0, 2, 1], np.int32),),
         ref=lambda p: np.argsort(p).astype(np.int32)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


def _family_modules(package):
    """The modules of an op family's package (its ops are defined across them)."""
    pkg = importlib.import_module(package)
    return [importlib.import_module(f"{package}.{m.name}")
            for m in pkgutil.iter_modules(pkg.__path__)]


def test_every_op_of_the_family_appears_in_the_table():
    ours = {v.name for module in _family_modules("tensortrace.ops.math")
            for v in vars(module).values() if isinstance(v, OpDef)}
    from .test_tf_sweep import CASES as SWEEP_CASES  # Lgamma, Zeta, ... are tabled there

    seen = set().union(*(op_types(case) for case in CASES + SWEEP_CASES))
    assert ours - seen == set()


# --- values pinned against TensorFlow 2.21 ---------------------------------------------------
def _values(t):
    return np.asarray(t).tolist()


PINNED = [
    (tf.math.softplus, [-20.0, -13.9, -13.0, 0.0, 5.0, 13.9, 14.0, 20.0, 1000.0], tf.float32,
     [2.06115369216775e-09, 9.189812431031896e-07, 2.260326937175705e-06, 0.6931471824645996,
      5.006715297698975, 13.90000057220459, 14.0, 20.0, 1000.0]),
    (tf.math.softplus, [-20.0, -10.0, -5.0, 0.0, 5.0, 10.0, 20.0], tf.float16,
     [0.0, 4.5418739318847656e-05, 0.0067138671875, 0.693359375, 5.0078125, 10.0, 20.0]),
    (tf.math.softplus, [-800.0, -40.0, -30.0, 0.0, 30.0, 40.0, 800.0], tf.float64,
     [0.0, 4.248354255291589e-18, 9.357622968839737e-14, 0.6931471805599453,
      30.000000000000092, 40.0, 800.0]),
    (tf.math.sigmoid, [-1000.0, -20.0, -1.0, 0.0, 1.0, 20.0, 1000.0], tf.float32,
     [0.0, 2.06115369216775e-09, 0.2689414322376251, 0.5, 0.7310585975646973, 1.0, 1.0]),
    (tf.math.erf, [-np.inf, -3.0, -0.5, 0.0, 1e-8, 0.5, 1.9, 2.1, 3.0, np.inf, np.nan],
     tf.float32, [-1.0, -0.9999780058860779, -0.5204998850822449, 0.0, 1.1283790790628245e-08,
                  0.5204998850822449, 0.9927903413772583, 0.9970206618309021,
                  0.9999780058860779, 1.0, np.nan]),
    (tf.math.erf, [-np.inf, -3.0, -0.5, 0.0, 1e-8, 0.5, 1.9, 2.1, 3.0, 6.0, np.inf], tf.float64,
     [np.nan, -0.9999779095030015, -0.5204998778130466, 0.0, 1.1283791670955126e-08,
      0.5204998778130466, 0.9927904292352575, 0.997020533343667, 0.9999779095030014, 1.0,
      np.nan]),
    (tf.math.erfc, [-np.inf, -3.0, -0.5, 0.0, 0.5, 1.9, 2.1, 3.0, 6.0, 26.0, np.inf],
     tf.float64, [2.0, 1.9999779095030015, 1.5204998778130467, 1.0, 0.47950012218695337,
                  0.007209570764742532, 0.0029794666563329837, 2.209049699858544e-05,
                  2.151973671249891e-17, 5.663192408856143e-296, 0.0]),
    (tf.math.log_sigmoid, [-100.0, -1.0, 0.0, 1.0, 13.9], tf.float32,
     [-100.0, -1.31326162815094, -0.6931471824645996, -0.3132616877555847,
      -9.189812999466085e-07]),
    (tf.math.round, [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 2.4, 2.6], tf.float32,
     [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 4.0, 2.0, 3.0]),
    (tf.math.asin, [2.0, 0.5], tf.float32, [np.nan, 0.5235987901687622]),
    (tf.math.acosh, [0.5, 2.0], tf.float32, [np.nan, 1.316957950592041]),
    (tf.math.atanh, [1.0, 2.0, 0.5], tf.float32, [np.inf, np.nan, 0.5493061542510986]),
    (tf.math.log1p, [-1.0, -2.0, 1e-10], tf.float32, [-np.inf, np.nan, 1.000000013351432e-10]),
    (tf.math.expm1, [1e-10, 100.0], tf.float32, [1.000000013351432e-10, np.inf]),
    (tf.math.rsqrt, [0.0, 4.0, -1.0], tf.float32, [np.inf, 0.5, np.nan]),
    (tf.math.reciprocal_no_nan, [0.0, 2.0, -4.0], tf.float32, [0.0, 0.5, -0.25]),
    (tf.math.sign, [-2.0, -0.0, 0.0, 3.0, np.nan], tf.float32, [-1.0, 0.0, 0.0, 1.0, np.nan]),
    (tf.math.angle, [-1.0, 2.0, 0.0, -0.0, np.nan, -np.inf], tf.float32,
     [np.pi, 0.0, 0.0, 0.0, 0.0, np.pi]),
]


@pytest.mark.parametrize("fn, x, dtype, expected", PINNED,
                         ids=[f"{p[0].__name__}-{p[2].name}" for p in PINNED])
def test_unary_values_match_tf(fn, x, dtype, expected):
    out = fn(tf.constant(x, dtype))
    assert out.dtype == dtype
    np.testing.assert_allclose(_values(out), expected, rtol=1e-6 if dtype != tf.float16 else 1e-3,
                               atol=1e-37)


_X = [7.0, -7.0, 7.0, -7.0, 1.0, -1.0, 0.0, np.inf, 1.0, -6.0, 6.0]
_Y = [2.0, 2.0, -2.0, -2.0, 0.0, 0.0, 0.0, 2.0, np.inf, 3.0, -3.0]
_XI, _YI = [7, -7, 7, -7, 0, -2**31], [2, 2, -2, -2, 5, -1]

PINNED_BINARY = [
    (tf.math.floordiv, _X, _Y, [3.0, -4.0, -4.0, 3.0, np.inf, -np.inf, np.nan, np.inf, 0.0,
                                -2.0, -2.0]),
    (tf.math.floormod, _X, _Y, [1.0, 1.0, -1.0, -1.0, np.nan, np.nan, np.nan, np.nan, 1.0, -0.0,
                                0.0]),
    (tf.truncatediv, _X, _Y, [3.0, -3.0, -3.0, 3.0, np.inf, -np.inf, np.nan, np.inf, 0.0, -2.0,
                              -2.0]),
    (tf.truncatemod, _X, _Y, [1.0, -1.0, 1.0, -1.0, np.nan, np.nan, np.nan, np.nan, 1.0, -0.0,
                              0.0]),
    (tf.math.floordiv, _XI, _YI, [3, -4, -4, 3, 0, -2147483648]),
    (tf.math.floormod, _XI, _YI, [1, 1, -1, -1, 0, 0]),
    (tf.truncatediv, _XI, _YI, [3, -3, -3, 3, 0, -2147483648]),
    (tf.truncatemod, _XI, _YI, [1, -1, 1, -1, 0, 0]),
    (tf.math.pow, [2, -3, 0, 2, 7], [10, 3, 0, 40, 1], [1024, -27, 1, 0, 7]),
    (tf.math.pow, [-2.0, 0.0, 2.0, 4.0], [0.5, -1.0, 3.0, -0.5], [np.nan, np.inf, 8.0, 0.5]),
    (tf.math.maximum, [np.nan, 1.0, 2.0], [1.0, np.nan, 1.0], [np.nan, np.nan, 2.0]),
    (tf.math.minimum, [np.nan, 1.0, 2.0], [1.0, np.nan, 1.0], [np.nan, np.nan, 1.0]),
    (tf.math.divide_no_nan, [1.0, 0.0, np.nan, 1.0, -1.0], [0.0, 0.0, 0.0, np.nan, 2.0],
     [0.0, 0.0, 0.0, np.nan, -0.5]),
    (tf.math.multiply_no_nan, [np.inf, np.nan, 1.0, 1.0], [0.0, 0.0, 2.0, np.nan],
     [0.0, 0.0, 2.0, np.nan]),
    (tf.math.xlogy, [0.0, 0.0, 1.0, 2.0, np.nan, 0.0], [0.0, np.nan, 0.0, 3.0, 0.0, -1.0],
     [0.0, 0.0, -np.inf, 2.1972246170043945, np.nan, 0.0]),
    (tf.math.xdivy, [0.0, 0.0, 1.0, 2.0, np.nan], [0.0, np.nan, 0.0, 4.0, 0.0],
     [0.0, 0.0, np.inf, 0.5, np.nan]),
    (tf.math.xlog1py, [0.0, 1.0, 2.0], [-1.0, 1.0, -1.0], [0.0, 0.6931471824645996, -np.inf]),
    (tf.math.atan2, [1.0, -1.0, 0.0, 0.0, 0.0], [0.0, 0.0, -1.0, -0.0, 1.0],
     [1.5707963705062866, -1.5707963705062866, np.pi, np.pi, 0.0]),
]


@pytest.mark.parametrize("fn, x, y, expected", PINNED_BINARY,
                         ids=[p[0].__name__ for p in PINNED_BINARY])
def test_binary_values_match_tf(fn, x, y, expected):
    out = fn(tf.constant(x), tf.constant(y))
    np.testing.assert_allclose(_values(out), expected, rtol=1e-6)
    got, expected = np.asarray(out, np.float64), np.asarray(expected, np.float64)
    signed = ~np.isnan(expected)  # the sign of zeros matters (floormod(-6., 3.) is -0.0)
    assert np.array_equal(np.signbit(got[signed]), np.signbit(expected[signed]))


def test_bit_shifts_clamp_the_shift_amount_like_tf():
    left = tf.bitwise.left_shift
    assert _values(left(tf.constant([255, 1, 3], tf.uint8), tf.constant([1, 8, 200], tf.uint8))) \
        == [254, 128, 128]
    assert _values(left(tf.constant([1, 1, 1]), tf.constant([31, 32, 40]))) == [-2**31] * 3
    assert _values(tf.bitwise.right_shift(tf.constant([16, -16]), tf.constant([-1, -1]))) \
        == [16, -16]
    assert _values(tf.bitwise.right_shift(tf.constant([255, 255], tf.uint8),
                                          tf.constant([8, 9], tf.uint8))) == [1, 1]


def test_squared_difference_of_complex_uses_the_conjugate():
    out = tf.math.squared_difference(tf.constant([1 + 1j, 2 - 1j]), tf.constant([0j, 1j]))
    assert out.dtype == tf.complex128 and _values(out) == [2 + 0j, 8 + 0j]


# --- division dtypes ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype, expected", [
    (tf.int8, tf.float32), (tf.uint8, tf.float32), (tf.int16, tf.float32),
    (tf.uint16, tf.float32), (tf.int32, tf.float64), (tf.uint32, tf.float64),
    (tf.int64, tf.float64), (tf.uint64, tf.float64), (tf.float16, tf.float16),
    (tf.float32, tf.float32), (tf.float64, tf.float64), (tf.complex64, tf.complex64)])
def test_true_division_casts_integers_like_tf(dtype, expected):
    x, y = tf.constant([7, 3], dtype), tf.constant([2, 2], dtype)
    for out in (x / y, tf.math.truediv(x, y), tf.math.divide(x, y)):
        assert out.dtype == expected
        np.testing.assert_allclose(_values(out), [3.5, 1.5])


def test_true_division_graph_casts_then_uses_realdiv():
    g = Graph()
    with g.as_default():
        x = g.placeholder(tf.TensorSpec([2], tf.int32), "x")
        tf.math.divide(x, x)
    assert [op.type for op in g.get_operations()] == ["Placeholder", "Cast", "Cast", "RealDiv"]


def test_division_by_zero():
    out = np.asarray(tf.constant([1, 0, -1]) / 0)
    assert out.dtype == np.float64 and out[0] == np.inf and np.isnan(out[1]) and out[2] == -np.inf
    assert _values(tf.math.divide_no_nan(tf.constant([1, 2]), tf.constant([0, 4]))) == [0.0, 0.5]
    assert tf.math.divide_no_nan(tf.constant([1]), tf.constant([2])).dtype == tf.float64
    assert _values(tf.constant([7, 3], tf.uint32) / tf.constant([2, 0], tf.uint32)) \
        == [3.5, np.inf]
    with pytest.raises(tf.errors.InvalidArgumentError, match=_EAGER + r"Integer division by zero"):
        tf.math.floordiv(tf.constant([1, 2]), tf.constant([0, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        tf.constant([7], tf.uint8) % tf.constant([0], tf.uint8)
    with pytest.raises(tf.errors.InternalError, match="only integer div and mod should have"):
        tf.truncatediv(tf.constant([7]), tf.constant([0]))
    with pytest.raises(tf.errors.InternalError, match=r"\[Op:TruncateMod\]"):
        tf.truncatemod(tf.constant([7]), tf.constant([0]))


def test_division_type_errors():
    with pytest.raises(TypeError, match=r"`x` and `y` must have the same dtype, got tf.int32 "
                                        r"!= tf.float32."):
        tf.constant(1) / 1.5
    with pytest.raises(TypeError, match="must have the same dtype"):
        tf.math.divide(tf.constant(1), tf.constant(2.0))
    with pytest.raises(TypeError, match=r"Invalid dtype tf.bool in __truediv__. Expected one of "
                                        r"\{tf.uint8, tf.int8"):
        tf.constant(True) / tf.constant(True)
    with pytest.raises(TypeError, match="Invalid dtype tf.string in tf.math.divide_no_nan"):
        tf.math.divide_no_nan(tf.constant("a"), tf.constant("b"))
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        1.5 / tf.constant(1)
    assert tf.math.divide(1, 2).dtype == tf.float64
    assert tf.math.divide(1.0, 2).dtype == tf.float32
    assert _values(2 / tf.constant(4)) == 0.5


def test_realdiv_of_integers_has_no_cpu_kernel():
    with pytest.raises(tf.errors.NotFoundError,
                       match=r"Could not find device for node: \{\{node RealDiv\}\} = "
                             r"RealDiv\[T=DT_INT32\]"):
        tf.realdiv(tf.constant([1]), tf.constant([1]))
    with pytest.raises(tf.errors.NotFoundError, match="Reciprocal"):
        tf.math.reciprocal(tf.constant([2]))
    with pytest.raises(tf.errors.NotFoundError, match=r"Rint\[T=DT_HALF\]"):
        tf.math.rint(tf.constant([0.5], tf.float16))


def test_pow_of_integers_to_negative_powers_raises():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=_EAGER + r"Integers to negative integer powers are not allowed "
                                      r"\[Op:Pow\] name: $"):
        tf.constant(2) ** -1
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative integer powers"):
        tf.pow(tf.constant([1, -1], tf.int64), tf.constant([-1, -1], tf.int64))
    assert _values(tf.pow(tf.constant([2]), tf.constant([40]))) == [0]
    assert float(tf.constant(2.0) ** -1) == 0.5
    with pytest.raises(TypeError, match="Cannot convert 0.5 to EagerTensor of dtype int32"):
        tf.pow(2, 0.5)


# --- dtype lists -------------------------------------------------------------------------------
@pytest.mark.parametrize("fn, x, match", [
    (tf.math.sqrt, tf.constant([4]),
     "Value for attr 'T' of int32 is not in the list of allowed values: "),
    (tf.math.negative, tf.constant([1], tf.uint8), "Value for attr 'T' of uint8 is not"),
    (tf.math.negative, tf.constant([True]), "Value for attr 'T' of bool is not"),
    (tf.math.abs, tf.constant([1], tf.uint8), "of uint8 is not in the list of allowed values: "),
    (tf.math.sign, tf.constant([1], tf.uint16), "of uint16 is not"),
    (tf.math.square, tf.constant([True]), "of bool is not"),
    (tf.math.floor, tf.constant([1]), "of int32 is not in the list of allowed values: "),
    (tf.math.is_nan, tf.constant([1]), "of int32 is not"),
    (tf.math.exp, tf.constant([1]), "of int32 is not"),
    (tf.math.softplus, tf.constant([1]), "of int32 is not"),
    (tf.bitwise.invert, tf.constant([1.0]), "of float is not in the list of allowed values: int8"),
    (tf.math.logical_not, tf.constant([1]),
     (r"cannot compute LogicalNot as input #0\(zero-based\) was expected to be a bool tensor "
      r"but is a int32 tensor")),
])
def test_unary_dtype_lists_follow_tf(fn, x, match):
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        fn(x)


def test_allowed_lists_are_in_tf_order():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"allowed values: (bfloat16, )?half, float, double, uint8, uint16, "
                             r"uint32, uint64, int8, int16, int32, int64, complex64, complex128"
                             r"\n\t; NodeDef: \{\{node AddV2\}\}; Op<name=AddV2; signature=x:T, "
                             r"y:T -> z:T; attr=T:type,allowed=\[(DT_BFLOAT16, )?DT_HALF, .*"
                             r"DT_COMPLEX128\]; is_commutative=true; is_aggregate=true> "
                             r"\[Op:AddV2\] name: $"):
        tf.constant([True]) + tf.constant([True])
    g = Graph()
    with g.as_default():
        x = g.placeholder(tf.TensorSpec([2], tf.int32), "x")
        with pytest.raises(TypeError, match=r"Value passed to parameter 'x' has DataType int32 not "
                                            r"in list of allowed values: (bfloat16, )?float16, "
                                            r"float32, float64, complex64, complex128"):
            tf.math.sqrt(x)
        with pytest.raises(TypeError, match=r"Input 'x' of 'LogicalAnd' Op has type int32 that "
                                            r"does not match expected type of bool."):
            tf.math.logical_and(x, x)
        with pytest.raises(TypeError, match=r"Input 'y' of 'Sub' Op has type float32 that does "
                                            r"not match type int32 of argument 'x'."):
            tf.math.subtract(x, g.placeholder(tf.TensorSpec([2]), "y"))


def test_binary_dtype_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32 tensor but is a float"):
        tf.constant(1) + tf.constant(1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="of bool is not"):
        tf.maximum(tf.constant([True]), tf.constant([False]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="of string is not"):
        tf.less(tf.constant(["a"]), tf.constant(["b"]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="of int32 is not"):
        tf.math.xlogy(tf.constant([1]), tf.constant([2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="of uint8 is not"):
        tf.math.squared_difference(tf.constant([1], tf.uint8), tf.constant([4], tf.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError, match="of int32 is not"):
        tf.math.multiply_no_nan(tf.constant([1]), tf.constant([2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes: "
                                                           r"\[2\] vs. \[3\]"):
        tf.add(tf.constant([1, 2]), tf.constant([1, 2, 3]))


def test_python_values_take_the_tensor_dtype_like_tf():
    assert tf.subtract(2, tf.constant(1.5)).dtype == tf.float32
    assert _values(tf.subtract([1, 2], tf.constant([1.5, 2.0]))) == [-0.5, 0.0]
    assert tf.equal(np.array([1.5]), 1).dtype == tf.bool
    with pytest.raises(TypeError, match="Cannot convert 2.5 to EagerTensor of dtype int32"):
        tf.maximum(1, 2.5)
    with pytest.raises(TypeError, match="Cannot convert 2.0 to EagerTensor of dtype int32"):
        tf.pow(2.0, tf.constant(3))
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a int32 tensor"):
        tf.add(1, 2.5)  # tf.add converts y with a dtype hint only
    assert _values(tf.square(3)) == 9 and tf.abs(-3.5).dtype == tf.float32


# --- comparisons and the == operator ---------------------------------------------------------
def test_eq_operator_of_unbroadcastable_shapes_is_a_scalar():
    eq = tf.constant([1, 2]) == tf.constant([1, 2, 3])
    ne = tf.constant([1, 2]) != tf.constant([1, 2, 3])
    assert eq.shape == [] and eq.dtype == tf.bool and not bool(eq) and bool(ne)
    assert (tf.constant([1, 2]) == None) is False  # the operator under test
    assert (tf.constant([1, 2]) != None) is True
    assert _values(tf.constant([[1], [2]]) == tf.constant([1, 2])) == [[True, False],
                                                                         [False, True]]
    assert _values(tf.constant(["a"]) == "a") == [True]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.equal(tf.constant([1, 2]), tf.constant([1, 2, 3]))
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        _ = tf.constant([1, 2]) == 1.5
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype bool"):
        _ = tf.constant(True) == 1


def _graph_shape(fn, *specs):
    g = Graph()
    with g.as_default():
        out = fn(*[g.placeholder(tf.TensorSpec(s), "x") for s in specs])
    return out.shape


@pytest.mark.parametrize("a, b, shape", [
    ([2], [3], []), ([2, 3], [3, 2], []), ([None, 2], [3], []), ([2, 3], [4, None], []),
    ([None], [1], [None]), ([None, 3], [None, 3], [None, 3]), ([2, None], [2, 1], [2, None]),
    ([2, None], [2, 3], None), ([2], [None], None), ([], [None], [None]), (None, [3], None),
    ([2, 1], [3], [2, 3]),
])
def test_eq_operator_shape_inference_follows_tf(a, b, shape):
    assert _graph_shape(lambda x, y: x == y, a, b).dims == shape


def test_graph_equality_attrs():
    g = Graph()
    with g.as_default():
        x = g.placeholder(tf.TensorSpec([2]), "x")
        _ = x == g.placeholder(tf.TensorSpec([2]), "y")
        tf.math.equal(x, x)
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.math.equal(x, g.placeholder(tf.TensorSpec([3]), "y"))
    attrs = [op.attrs for op in g.get_operations() if op.type == "Equal"]
    assert attrs == [{"incompatible_shape_error": False}, {"incompatible_shape_error": True}]


def test_comparison_operators_and_reflection():
    x = tf.constant([1, 2, 3])
    assert _values(x < 2) == [True, False, False]
    assert _values(2 < x) == [False, False, True]
    assert _values(x >= [3, 2, 1]) == [False, True, True]
    assert _values(tf.constant([np.nan]) == float("nan")) == [False]  # noqa: PLW0177
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute Less"):
        _ = x < tf.constant(1.5)


# --- Python operators ----------------------------------------------------------------------------
def test_arithmetic_operators_and_their_reflections():
    x = tf.constant([1.0, 2.0, 4.0])
    assert _values(x + 1) == [2, 3, 5] and _values(1 + x) == [2, 3, 5]
    assert _values(10 - x) == [9, 8, 6] and _values(x - 1) == [0, 1, 3]
    assert _values(2 * x) == [2, 4, 8] and _values(x / 2) == [0.5, 1, 2]
    assert _values(2 / x) == [2, 1, 0.5] and _values(7 // x) == [7, 3, 1]
    assert _values(7 % x) == [0, 1, 3] and _values(x ** 2) == [1, 4, 16]
    assert _values(2 ** x) == [2, 4, 16] and _values(-x) == [-1, -2, -4]
    assert _values(abs(-x)) == [1, 2, 4]
    assert _values(tf.constant(-7.5) // 2.0) == -4 and _values(tf.constant(-7.5) % 2.0) == 0.5
    assert _values(tf.constant(["a"]) + "b") == [b"ab"]
    assert _values("b" + tf.constant(["a"])) == [b"ba"]
    with pytest.raises(TypeError, match="bad operand type for unary"):
        _ = +x  # TF 2.21 tensors have no unary plus


def test_operator_conversions_follow_tf():
    i = tf.constant([3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="AddV2"):
        i + 1.5  # dtype hint: 1.5 stays float32
    for make in (lambda: 1.5 + i, lambda: i - 1.5, lambda: i * [1.5], lambda: i // 1.5,
                 lambda: i ** 1.5, lambda: 1.5 - i):
        with pytest.raises(TypeError, match="Cannot convert"):
            make()
    assert _values(i + np.float64(1.5)) == [4]  # NumPy values are cast, truncating
    assert _values(i * True) == [3] and _values(True - i) == [-2]
    with pytest.raises(ValueError, match="Attempt to convert a value"):
        i + None


def test_python_constant_cache_keeps_types_apart():
    assert _values(tf.constant([3.0]) - 2.0) == [1.0]
    assert _values(tf.constant([3]) - 2) == [1]
    with pytest.raises(TypeError, match="Cannot convert 2.0 to EagerTensor of dtype int32"):
        tf.constant([3]) - 2.0
    assert (tf.constant([3], tf.uint8) + 300).numpy().tolist() == [47]  # TF wraps: 300 -> 44
    assert (tf.constant([1.0], tf.float16) - 1e5).numpy().tolist() == [-np.inf]
    big = tf.constant([1.0]) + 1e300
    assert big.dtype == tf.float32 and np.isinf(big.numpy()[0])


def test_logical_and_bitwise_operators():
    b = tf.constant([True, False])
    assert _values(b & True) == [True, False] and _values(True & b) == [True, False]
    assert _values(b | tf.constant([False, False])) == [True, False]
    assert _values(b ^ True) == [False, True] and _values(~b) == [False, True]
    i = tf.constant([6, 3])
    assert _values(i & 3) == [2, 3] and _values(i | 1) == [7, 3] and _values(i ^ 1) == [7, 2]
    assert _values(~i) == [-7, -4] and _values(~tf.constant([0, 5], tf.uint8)) == [255, 250]
    assert _values(1 & i) == [0, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="of float is not"):
        tf.constant([1.0]) & tf.constant([1.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute LogicalAnd"):
        b & tf.constant([1, 0])


def test_bool_products_go_through_int32():
    b = tf.constant([True, False])
    assert _values(b * tf.constant([True, True])) == [True, False]
    assert (b * 2).dtype == tf.bool and _values(b * 2) == [True, False]
    g = Graph()
    with g.as_default():
        x = g.placeholder(tf.TensorSpec([2], tf.bool), "x")
        assert (x * x).dtype == tf.bool
    assert [op.type for op in g.get_operations()] == ["Placeholder", "Cast", "Cast", "Mul",
                                                      "Cast"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="of bool is not"):
        tf.multiply(b, b)
    with pytest.raises(TypeError, match="Cannot convert 2 to EagerTensor of dtype bool"):
        2 * b


def test_numpy_answers_when_the_tensor_cannot_take_the_value():
    out = tf.constant([True]) / np.float64(1.5)  # TF hands the operation to NumPy
    assert isinstance(out, np.ndarray) and out.tolist() == pytest.approx([2 / 3])


# --- casts -------------------------------------------------------------------------------------
_FLOATS = [1.7, -1.7, 300.5, -129.0, 70000.0, 5e9, -5e9, 1e19, 3e19, np.nan, np.inf, -np.inf]
_CAST_PINS = {  # TF 2.21 on x86, one element at a time
    tf.int32: [1, -1, 300, -129, 70000] + [-2147483648] * 7,
    tf.int64: [1, -1, 300, -129, 70000, 5000000000, -5000000000] + [-2**63] * 5,
    tf.int8: [1, -1, 44, 127, 112] + [0] * 7,
    tf.uint8: [1, 255, 44, 127, 112] + [0] * 7,
    tf.int16: [1, -1, 300, -129, 4464] + [0] * 7,
    tf.uint16: [1, 65535, 300, 65407, 4464] + [0] * 7,
    tf.uint32: [1, 4294967295, 300, 4294967167, 70000, 705032704, 3589934592, 0, 0, 0, 0, 0],
    tf.uint64: [1, 2**64 - 1, 300, 2**64 - 129, 70000, 5000000000, 2**64 - 5000000000,
                10000000000000000000] + [2**63] * 4,
    tf.bool: [True, True, True, True, True, True, True, True, True, True, True, True],
}


@pytest.mark.parametrize("dtype", list(_CAST_PINS), ids=lambda d: d.name)
def test_float_to_int_casts_match_tf(dtype):
    x = tf.constant(_FLOATS, tf.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = tf.cast(x, dtype)
    assert out.dtype == dtype and _values(out) == _CAST_PINS[dtype]


def test_cast_rules():
    assert tf.cast(1.7, tf.int32).numpy() == 1
    assert tf.cast(2**40, tf.int32).numpy() == 0  # converted as int64, then wrapped
    assert _values(tf.cast(tf.constant([0 + 2j, 0j, 1.7 + 1j]), tf.bool)) == [False, False, True]
    assert _values(tf.cast(tf.constant([1.7 + 2j]), tf.int32)) == [1]
    assert _values(tf.cast(tf.constant([0.0, 0.1, np.nan, -0.0]), tf.bool)) == [False, True, True,
                                                                                  False]
    assert _values(tf.cast(tf.constant([70000, 2**40], tf.int64), tf.float16)) == [np.inf] * 2
    assert tf.cast(tf.constant([1]), "float32").dtype == tf.float32
    assert tf.dtypes.cast(tf.constant([1]), np.float64).dtype == tf.float64
    x = tf.constant([1.0])
    assert tf.cast(x, tf.float32) is x
    with pytest.raises(tf.errors.UnimplementedError, match=_EAGER + r"Cast string to int32 is not "
                                                           r"supported \[Op:Cast\]"):
        tf.cast(tf.constant(["1"]), tf.int32)
    with pytest.raises(tf.errors.UnimplementedError, match="Cast bool to string"):
        tf.cast(tf.constant([True]), tf.string)
    g = Graph()
    with g.as_default():
        s = g.placeholder(tf.TensorSpec([2], tf.string), "s")
        assert tf.cast(s, tf.int32).dtype == tf.int32  # TF fails only when it runs
        y = tf.cast(g.placeholder(tf.TensorSpec([2]), "x"), tf.int32)
    assert y.op.attrs == {"SrcT": tf.float32, "DstT": tf.int32, "Truncate": False}


@pytest.mark.parametrize("values, src, dst, expected", [
    ([-1.0, 256.0, 3.7, np.nan, np.inf, -np.inf], tf.float32, tf.uint8, [0, 255, 3, 0, 255, 0]),
    ([3e9, -3e9, 1.5, np.inf], tf.float32, tf.int32, [2147483520, -2147483648, 1, 2147483520]),
    ([-5, 300, 7], tf.int32, tf.uint8, [0, 255, 7]),
    ([1e300, -1e300, 1.0], tf.float64, tf.float32,
     [3.4028234663852886e+38, -3.4028234663852886e+38, 1.0]),
    ([200, 5], tf.uint8, tf.int8, [127, 5]),
    ([1000 + 3j, -1000j, 5.5 + 1j], tf.complex128, tf.int8, [127, 0, 5]),
    ([1e300 + 1e300j, 1 - 2j], tf.complex128, tf.complex64,
     [3.4028234663852886e+38 + 3.4028234663852886e+38j, 1 - 2j]),
    ([1e20, -1e20, 3.5], tf.float32, tf.int64, [-2**63, -2**63, 3]),
])
def test_saturate_cast_matches_tf(values, src, dst, expected):
    out = tf.dtypes.saturate_cast(tf.constant(values, src), dst)
    assert out.dtype == dst and _values(out) == pytest.approx(expected)


def test_saturate_cast_graph_and_errors():
    g = Graph()
    with g.as_default():
        tf.saturate_cast(g.placeholder(tf.TensorSpec([2]), "x"), tf.int32)
    assert [op.type for op in g.get_operations()] == ["Placeholder", "Const", "Const",
                                                      "ClipByValue", "Cast"]
    with pytest.raises(TypeError, match=r"Cannot find minimum value of <dtype: 'bool'> with type "
                                        r"<dtype: 'bool'>."):
        tf.saturate_cast(tf.constant([5]), tf.bool)
    with pytest.raises(tf.errors.NotFoundError, match="ClipByValue"):
        tf.saturate_cast(tf.constant([2**64 - 1], tf.uint64), tf.int64)


# --- clip_by_value, where, add_n ------------------------------------------------------------------
def test_clip_by_value_like_tf():
    x = tf.constant([-3.0, 0.0, 3.0])
    assert _values(tf.clip_by_value(x, 1.0, -1.0)) == [1.0, 1.0, 1.0]
    assert np.isnan(tf.clip_by_value(tf.constant([np.nan]), 0.0, 1.0).numpy()[0])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2, 3\) are incompatible"):
        tf.clip_by_value(x, tf.zeros([2, 3]), 1.0)
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.clip_by_value(tf.constant([1]), -1.5, 1.5)
    g = Graph()
    with g.as_default():
        t = g.placeholder(tf.TensorSpec([None]), "t")
        with pytest.raises(ValueError, match=r"Shapes \(None,\) and \(2, 3\) are incompatible"):
            tf.clip_by_value(t, g.placeholder(tf.TensorSpec([2, 3]), "lo"), 1.0)
        tf.clip_by_value(t, 0.0, 1.0)
    assert [op.type for op in g.get_operations()][-4:] == ["Const", "Minimum", "Const", "Maximum"]


def test_clip_by_value_op_checks_bound_shapes():
    from tensortrace.context import bind

    t = tf.constant([1.0, 5.0])
    assert _values(bind(ClipByValue, t, tf.constant([0.0, 6.0]), tf.constant(3.0))) \
        == [1.0, 6.0]  # min(max) order: the lower bound wins, as in TF
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"must be either of the same shape as input, or a scalar. input "
                             r"shape: \[2\]clip_value_min shape: \[3\]clip_value_max shape: \[\]"):
        bind(ClipByValue, t, tf.constant([0.0, 1.0, 3.0]), tf.constant(3.0))


def test_where_coordinates():
    out = tf.where([[True, False], [True, True]])
    assert out.dtype == tf.int64 and _values(out) == [[0, 0], [1, 0], [1, 1]]
    assert _values(tf.where(tf.constant([np.nan, 0.0, -0.0]))) == [[0]]
    assert tf.where(tf.zeros([0, 3], tf.bool)).shape == [0, 2]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"WhereOp : Unhandled input dimensions: 0 \[Op:Where\]"):
        tf.where(tf.constant(True))
    with pytest.raises(tf.errors.UnimplementedError, match="No WhereOp available for float16"):
        tf.where(tf.constant([0.0, 1.0], tf.float16))
    with pytest.raises(tf.errors.InvalidArgumentError, match="of string is not"):
        tf.where(tf.constant(["a", ""]))
    assert _graph_shape(tf.where, [2, 3]).dims == [None, 2]
    assert _graph_shape(tf.where, None).dims == [None, None]


def test_where_select():
    assert _values(tf.where([True, False], 1.5, 2)) == [1.5, 2.0]
    assert _values(tf.where([True, False], 2, tf.constant([1.0, 2.0]))) == [2.0, 2.0]
    assert tf.where(True, tf.zeros([2, 3]), tf.ones([3])).shape == [2, 3]
    with pytest.raises(ValueError, match="x and y must both be non-None or both be None."):
        tf.where([True], x=[1])
    with pytest.raises(TypeError, match="Cannot convert 2.5 to EagerTensor of dtype int32"):
        tf.where([True, False], 1, 2.5)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"cannot compute SelectV2 as input #0\(zero-based\) was expected to "
                             r"be a bool tensor but is a int32 tensor"):
        tf.where(tf.constant([1, 0]), 1, 2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input #2\(zero-based\) was expected to be a int32 tensor but is a "
                             r"float tensor"):
        tf.where([True], tf.constant([1]), tf.constant([1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"condition \[2\], then \[3\], and else \[\] must be broadcastable"):
        tf.where([True, False], [1, 2, 3], 0)
    g = Graph()
    with g.as_default():
        c = g.placeholder(tf.TensorSpec([2], tf.bool), "c")
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.where(c, g.placeholder(tf.TensorSpec([3]), "x"), 0.0)
        with pytest.raises(TypeError, match="Input 'condition' of 'SelectV2' Op has type int32"):
            tf.where(g.placeholder(tf.TensorSpec([2], tf.int32), "i"), 1, 2)


def test_add_n_like_tf():
    x = tf.constant([1, 2])
    assert tf.add_n([x]) is x
    assert _values(tf.add_n([[1, 2], [3, 4]])) == [4, 6]
    assert _values(tf.add_n(tf.constant([[1, 2], [3, 4]]))) == [4, 6]
    with pytest.raises(ValueError, match="at least one Tensor/IndexedSlices"):
        tf.add_n([])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"must have the same size and shape.  Input 0: \[2\] != input 1: "
                             r"\[\]"):
        tf.add_n([x, tf.constant(1)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="of bool is not"):
        tf.add_n([tf.constant([True])] * 2)
    g = Graph()
    with g.as_default():
        ph = [g.placeholder(tf.TensorSpec(s), "x") for s in ([None, 3], [2, None], [3])]
        assert tf.add_n(ph[:2]).shape == [2, 3]
        with pytest.raises(ValueError, match=r"Shapes must be equal rank, but are 2 and 1"):
            tf.add_n(ph[1:])
        with pytest.raises(TypeError, match=r"Tensors in list passed to 'inputs' of 'AddN' Op "
                                            r"have types \[float32, int32\] that don't all "
                                            r"match."):
            tf.add_n([ph[2], g.placeholder(tf.TensorSpec([3], tf.int32), "i")])


# --- complex parts and composites ----------------------------------------------------------------
def test_complex_parts_of_real_and_other_tensors():
    x = tf.constant([1.0, 2.0])
    assert tf.math.real(x) is x and tf.math.conj(x) is x
    assert tf.math.real(1 + 2j).dtype == tf.float64
    with pytest.raises(TypeError, match="input must be a numeric tensor, but got tensor with "
                                        "dtype <dtype: 'string'>"):
        tf.math.real(tf.constant(["a"]))
    with pytest.raises(TypeError, match="Expected numeric or variant tensor, got dtype tf.bool."):
        tf.math.conj(tf.constant([True]))
    with pytest.raises(TypeError, match="Cannot convert 3.141592653589793 to EagerTensor of "
                                        "dtype int32"):
        tf.math.angle(tf.constant([-1]))
    with pytest.raises(ValueError, match=r"The input scalar must be a 0-D value. Received shape "
                                         r"\(2,\)."):
        tf.math.scalar_mul([1.0, 2.0], tf.constant([1.0, 2.0]))


def test_composites_build_tf_graphs():
    def types(fn, dtype=tf.float32):
        g = Graph()
        with g.as_default():
            fn(g.placeholder(tf.TensorSpec([2], dtype), "x"))
        return [op.type for op in g.get_operations()][1:]

    assert types(tf.math.log_sigmoid) == ["Neg", "Softplus", "Neg"]
    assert types(tf.sign, tf.complex64) == ["ComplexAbs", "Cast", "DivNoNan"]
    assert types(tf.abs, tf.complex128) == ["ComplexAbs"]
    assert types(lambda x: tf.math.logical_xor(x, x), tf.bool) == ["LogicalOr", "LogicalAnd",
                                                                   "LogicalNot", "LogicalAnd"]
    assert types(tf.round, tf.int32) == [] and types(tf.math.real) == []
    assert types(lambda x: tf.cast(x, tf.float32)) == []


# --- namespaces, gradients, warnings -------------------------------------------------------------
def test_public_names():
    assert tf.nn.sigmoid is tf.math.sigmoid is tf.sigmoid
    assert tf.nn.softplus is tf.math.softplus and tf.nn.softsign is tf.math.softsign
    assert tf.nn.tanh is tf.math.tanh is tf.tanh
    assert tf.math.mod is tf.math.floormod
    assert tf.dtypes.cast is tf.cast and tf.dtypes.saturate_cast is tf.saturate_cast
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift",
                 "right_shift"):
        assert callable(getattr(tf.bitwise, name))
    for name in ("truncatediv", "truncatemod", "realdiv", "clip_by_value", "where", "add_n",
                 "scalar_mul", "atan2", "equal", "logical_and", "round", "floor"):
        assert callable(getattr(tf, name))


def test_ops_without_gradients_are_marked():
    for op in (EQUAL, NOT_EQUAL, LESS, GREATER_EQUAL, LOGICAL_AND, LOGICAL_NOT,
               BITWISE_XOR, LEFT_SHIFT, INVERT, IS_NAN, Where):
        assert op.grad is NON_DIFFERENTIABLE
    assert callable(ADD.grad) and callable(SIGMOID.grad)


def test_inf_and_nan_results_raise_no_numpy_warnings():
    x = tf.constant(SPECIAL)
    f64 = tf.constant(SPECIAL.astype(np.float64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn in (tf.exp, tf.math.expm1, tf.math.log, tf.math.log1p, tf.sqrt, tf.math.rsqrt,
                   tf.math.reciprocal, tf.square, tf.sin, tf.cos, tf.tan, tf.asin, tf.acos,
                   tf.sinh, tf.cosh, tf.tanh, tf.asinh, tf.acosh, tf.atanh, tf.math.erf,
                   tf.math.erfc, tf.sigmoid, tf.math.softplus, tf.math.log_sigmoid,
                   tf.math.softsign, tf.round, tf.floor, tf.math.ceil, tf.math.rint, tf.sign,
                   tf.abs, tf.negative, tf.math.is_nan, tf.math.reciprocal_no_nan):
            fn(x)
            fn(f64)
        for fn in (tf.add, tf.subtract, tf.multiply, tf.math.divide, tf.math.floordiv,
                   tf.math.floormod, tf.truncatediv, tf.truncatemod, tf.pow, tf.maximum,
                   tf.minimum, tf.math.squared_difference, tf.math.xlogy, tf.math.xdivy,
                   tf.math.xlog1py, tf.math.divide_no_nan, tf.math.multiply_no_nan, tf.atan2,
                   tf.less, tf.equal):
            fn(x, x[::-1])
        for dtype in (tf.int8, tf.uint8, tf.int32, tf.uint32, tf.int64, tf.uint64, tf.bool,
                      tf.float16):
            tf.cast(x, dtype)
            tf.saturate_cast(x, dtype) if dtype != tf.bool else None
        i = tf.constant([2**31 - 1, -2**31], tf.int32)
        _ = i + i, i * i, -i, abs(i), i // -1, i % -1  # integer overflow wraps quietly
        _ = tf.constant(3e38) * 10.0, tf.constant(np.float32(3e38)) + 3e38
