"""Reductions, arg-reductions and scans: kernels against NumPy, infer against kernels, and the
edge cases and errors pinned against TensorFlow 2.21."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.graph.ir import Graph

from .optable import Case, rand, run_case

F = rand(2, 3, 4)
F64 = rand(3, 5, dtype=np.float64)
I = rand(3, 4, dtype=np.int32)
I8 = rand(4, 3, dtype=np.int8)
U8 = rand(5, dtype=np.uint8)
C = rand(2, 3, dtype=np.complex64)
B = rand(3, 4, dtype=np.bool_)
EMPTY = np.zeros((0, 3), np.float32)


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _np(fn):
    """A NumPy reference taking TF's argument names, keeping the input dtype."""

    def ref(x, axis=None, keepdims=False):
        return np.asarray(fn(x, axis=_np_axis(axis), keepdims=keepdims)).astype(x.dtype)

    return ref


def _int_mean(x, axis=None, keepdims=False):
    total = np.sum(x, axis=_np_axis(axis), dtype=np.int64, keepdims=keepdims)
    n = x.size // max(total.size, 1) if x.size else 0
    return (np.sign(total) * (np.abs(total) // n)).astype(x.dtype)


def _cumulative(fn, identity):
    def ref(x, axis=0, exclusive=False, reverse=False):
        y = np.flip(x, axis) if reverse else x
        out = fn(y, axis=axis, dtype=x.dtype)
        if exclusive:
            out = np.moveaxis(out, axis, 0)
            out = np.concatenate([np.full((1,) + out.shape[1:], identity, x.dtype), out[:-1]])
            out = np.moveaxis(out, 0, axis)
        return np.flip(out, axis) if reverse else out

    return ref


def _logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=_np_axis(axis), keepdims=True)
    out = np.log(np.sum(np.exp(x - m), axis=_np_axis(axis), keepdims=True)) + m
    return (out if keepdims else np.squeeze(out, _np_axis(axis))).astype(x.dtype)


CASES = [
    Case(tf.reduce_sum, (F,), ref=_np(np.sum), id="sum-all"),
    Case(tf.reduce_sum, (F,), {"axis": 1}, ref=_np(np.sum), id="sum-axis1"),
    Case(tf.reduce_sum, (F,), {"axis": [0, -1]}, ref=_np(np.sum), id="sum-axes-neg"),
    Case(tf.reduce_sum, (F,), {"axis": -1, "keepdims": True}, ref=_np(np.sum), id="sum-keep"),
    Case(tf.reduce_sum, (F,), {"keepdims": True}, ref=_np(np.sum), id="sum-all-keep"),
    Case(tf.reduce_sum, (F,), {"axis": []}, ref=lambda x, axis: x, id="sum-no-axes"),
    Case(tf.math.reduce_sum, (I8,), {"axis": 0}, ref=_np(np.sum), id="sum-int8-wraps"),
    Case(tf.reduce_sum, (C,), {"axis": 1}, ref=_np(np.sum), id="sum-complex"),
    Case(tf.reduce_sum, (EMPTY,), {"axis": 0}, ref=_np(np.sum), id="sum-empty"),
    Case(tf.reduce_sum, (np.float32(3.0),), ref=_np(np.sum), id="sum-scalar"),
    Case(tf.reduce_mean, (F,), {"axis": [1, 2]}, ref=_np(np.mean), id="mean"),
    Case(tf.reduce_mean, (F64,), ref=_np(np.mean), id="mean-f64"),
    Case(tf.reduce_mean, (I,), {"axis": 1}, ref=_int_mean, id="mean-int-truncates"),
    Case(tf.reduce_mean, (I8,), {"axis": 0, "keepdims": True}, ref=_int_mean, id="mean-int8"),
    Case(tf.math.reduce_mean, (C,), ref=_np(np.mean), rtol=1e-5, id="mean-complex"),
    Case(tf.reduce_max, (F,), {"axis": 2}, ref=_np(np.max), id="max"),
    Case(tf.reduce_max, (I,), ref=_np(np.max), id="max-int"),
    Case(tf.reduce_max, (EMPTY,), ref=lambda x: np.float32(-np.inf), id="max-empty"),
    Case(tf.reduce_min, (U8,), {"axis": -1}, ref=_np(np.min), id="min-uint8"),
    Case(tf.reduce_min, (EMPTY,), {"axis": 0},
         ref=lambda x, axis: np.full(3, np.inf, np.float32), id="min-empty"),
    Case(tf.reduce_prod, (F64,), {"axis": 0}, ref=_np(np.prod), id="prod"),
    Case(tf.reduce_prod, (EMPTY,), {"axis": 0}, ref=_np(np.prod), id="prod-empty"),
    Case(tf.reduce_any, (B,), {"axis": 1}, ref=_np(np.any), id="any"),
    Case(tf.reduce_all, (B,), {"axis": 0, "keepdims": True}, ref=_np(np.all), id="all"),
    Case(tf.reduce_all, (np.zeros(0, bool),), ref=lambda x: np.bool_(True), id="all-empty"),
    Case(tf.math.reduce_euclidean_norm, (F,), {"axis": 1},
         ref=lambda x, axis: np.sqrt(np.sum(x * x, axis)), rtol=1e-5, id="euclidean-norm"),
    Case(tf.math.reduce_euclidean_norm, (np.array([[1, 2, 3], [4, 5, 7]], np.int32),), {"axis": 1},
         ref=lambda x, axis: np.array([3, 9], np.int32), id="euclidean-norm-int-truncates"),
    Case(tf.math.reduce_euclidean_norm, (np.array([3 + 4j, 0], np.complex64),),
         ref=lambda x: np.complex64(5), id="euclidean-norm-complex"),
    Case(tf.argmax, (F,), ref=lambda x: np.argmax(x, 0), id="argmax-default-axis0"),
    Case(tf.math.argmax, (I,), {"axis": -1, "output_type": tf.int32},
         ref=lambda x, axis, output_type: np.argmax(x, axis).astype(np.int32), id="argmax-i32"),
    Case(tf.argmax, (B,), {"axis": 1}, ref=lambda x, axis: np.argmax(x, axis), id="argmax-bool"),
    Case(tf.argmin, (F64,), {"axis": 1}, ref=lambda x, axis: np.argmin(x, axis), id="argmin"),
    Case(tf.math.argmin, (EMPTY,), {"axis": 1}, ref=lambda x, axis: np.zeros(0, np.int64),
         id="argmin-empty-other-axis"),
    Case(tf.cumsum, (F,), {"axis": 1}, ref=_cumulative(np.cumsum, 0), id="cumsum"),
    Case(tf.math.cumsum, (I,), {"axis": -1, "exclusive": True, "reverse": True},
         ref=_cumulative(np.cumsum, 0), id="cumsum-exclusive-reverse"),
    Case(tf.cumsum, (I8,), ref=_cumulative(np.cumsum, 0), id="cumsum-int8-wraps"),
    Case(tf.math.cumprod, (F64,), {"axis": 1, "exclusive": True},
         ref=_cumulative(np.cumprod, 1), id="cumprod-exclusive"),
    Case(tf.math.cumprod, (F64,), {"axis": 0, "reverse": True},
         ref=_cumulative(np.cumprod, 1), id="cumprod-reverse"),
    Case(tf.reduce_logsumexp, (F,), {"axis": 1}, ref=_logsumexp, rtol=1e-5, id="logsumexp"),
    Case(tf.math.reduce_logsumexp, (F64,), {"keepdims": True}, ref=_logsumexp, id="logsumexp-all"),
    Case(tf.math.reduce_variance, (F,), {"axis": [0, 2]},
         ref=lambda x, axis: np.var(x, axis=tuple(axis)), rtol=1e-5, id="variance"),
    Case(tf.math.reduce_variance, (C,), ref=lambda x: np.float32(np.var(x)), rtol=1e-5,
         id="variance-complex-is-real"),
    Case(tf.math.reduce_std, (F64,), {"axis": 1, "keepdims": True},
         ref=lambda x, axis, keepdims: np.std(x, axis=axis, keepdims=True), id="std"),
    Case(tf.math.count_nonzero, (I,), {"axis": 1},
         ref=lambda x, axis: np.count_nonzero(x, axis).astype(np.int64), id="count-nonzero"),
    Case(tf.math.count_nonzero, (B,), {"keepdims": True, "dtype": tf.int32},
         ref=lambda x, keepdims, dtype: np.array([[x.sum()]], np.int32), id="count-nonzero-bool"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


# --- values TF computes in its own way ------------------------------------------------------------
def test_integer_mean_truncates_toward_zero_and_does_not_overflow():
    assert tf.reduce_mean(tf.constant([-3, 0])).numpy() == -1
    assert tf.reduce_mean(tf.constant([255, 255], tf.uint8)).numpy() == 255
    assert tf.reduce_mean(tf.constant([2**31 - 1, 2**31 - 1])).numpy() == 2**31 - 1
    assert tf.reduce_mean(tf.zeros([0], tf.int32)).numpy() == 0


def test_empty_reductions_give_identities():
    assert np.isnan(tf.reduce_mean(tf.zeros([0, 3])).numpy())
    assert tf.reduce_max(tf.zeros([0, 3], tf.int32), 0).numpy().tolist() == [-2**31] * 3
    assert tf.reduce_min(tf.zeros([0], tf.uint8)).numpy() == 255
    assert not tf.reduce_any(tf.zeros([0], tf.bool)).numpy()
    assert tf.math.reduce_euclidean_norm(tf.zeros([0, 3])).numpy() == 0.0
    assert tf.reduce_logsumexp(tf.zeros([0, 3])).numpy() == -np.inf


def test_nan_propagates_through_max_but_argmax_never_picks_it():
    assert np.isnan(tf.reduce_max(tf.constant([1.0, np.nan, 3.0])).numpy())
    assert tf.argmax(tf.constant([np.nan, 1.0, 3.0])).numpy() == 2
    assert tf.argmax(tf.constant([1.0, 5.0, np.nan, 3.0])).numpy() == 1
    assert tf.argmin(tf.constant([np.nan, 1.0, 3.0])).numpy() == 1
    assert tf.argmax(tf.constant([np.nan, np.nan])).numpy() == 0
    got = tf.argmax(tf.constant([[np.nan, 1.0], [2.0, np.nan]]), 1).numpy()
    assert got.tolist() == [1, 0]


def test_euclidean_norm_of_small_ints_wraps_like_tf():
    assert tf.math.reduce_euclidean_norm(tf.constant([200, 200], tf.uint8)).numpy() == 11
    assert tf.math.reduce_euclidean_norm(tf.constant([100, 100], tf.int8)).numpy() == 5


def test_logsumexp_handles_infinities():
    assert tf.reduce_logsumexp(tf.constant([-np.inf, -np.inf])).numpy() == -np.inf
    assert tf.reduce_logsumexp(tf.constant([np.inf, 1.0])).numpy() == np.inf
    big = tf.reduce_logsumexp(tf.constant([1000.0, 1000.0])).numpy()
    assert np.isclose(big, 1000.0 + np.log(2.0))


def test_reduce_accepts_python_lists_tuples_and_tensor_axes():
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert tf.reduce_sum([1, 2, 3]).numpy() == 6
    assert tf.reduce_sum(x, (0, 1), keepdims=True).numpy().tolist() == [[21.0]]
    assert tf.reduce_sum(x, tf.constant([1])).numpy().tolist() == [6.0, 15.0]
    assert tf.reduce_sum(x, tf.constant(1, tf.int64)).numpy().tolist() == [6.0, 15.0]
    assert tf.reduce_sum(x, keepdims=None).shape == []
    assert tf.argmax(x, None).numpy().tolist() == [1, 1, 1]


def test_variance_and_std_of_complex128_are_float64():
    x = tf.constant([1j, 2.0])
    assert tf.math.reduce_variance(x).dtype == tf.float64
    assert tf.math.reduce_variance(x).numpy() == 1.25
    assert np.isclose(tf.math.reduce_std(x).numpy(), 1.118033988749895)
    assert tf.math.reduce_euclidean_norm(tf.constant([3 + 4j, 0])).numpy() == 5


def test_count_nonzero_of_strings_counts_non_empty():
    assert tf.math.count_nonzero(tf.constant(["", "a"])).numpy() == 1
    assert tf.math.count_nonzero([1, 0, 2]).numpy() == 2


# --- eager errors ------------------------------------------------------------------------------
def _raises(exc, match, fn):
    with pytest.raises(exc, match=match):
        fn()


X = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


@pytest.mark.parametrize("fn, match", [
    (lambda: tf.reduce_sum(X, 2),
     r"Invalid reduction dimension \(2 for input with 2 dimension\(s\) \[Op:Sum\]"),
    (lambda: tf.reduce_sum(X, -3), r"Invalid reduction dimension \(-3 for input"),
    (lambda: tf.reduce_sum(tf.constant(3.0), 0), r"\(0 for input with 0 dimension"),
    (lambda: tf.reduce_sum(X, [1, -1]),
     r"Axes contains duplicate dimension: 1 \[Op:Sum\]"),
    (lambda: tf.reduce_sum(tf.constant([True])),
     r"Value for attr 'T' of bool is not in the list of allowed values: float, double"),
    (lambda: tf.reduce_mean(tf.constant([True])), r"attr 'T' of bool .* \[Op:Mean\]"),
    (lambda: tf.reduce_max(tf.constant([1j])), r"attr 'T' of complex128 is not in the list"),
    (lambda: tf.reduce_any(X),
     (r"cannot compute Any as input #0\(zero-based\) was expected to be a bool tensor but is a "
     r"float tensor \[Op:Any\]")),
    (lambda: tf.reduce_all(tf.constant([1])), r"expected to be a bool tensor but is a int32"),
    (lambda: tf.argmax(tf.zeros([0, 3]), 0), r"Reduction axis 0 is empty in shape \[0,3\]"),
    (lambda: tf.argmax(X, 2), r"Expected dimension in the range \[-2, 2\), but got 2"),
    (lambda: tf.argmax(tf.constant(1.0)), r"Expected dimension in the range \[0, 0\)"),
    (lambda: tf.argmin(X, 1, output_type=tf.int16),
     r"Value for attr 'output_type' of int16 is not in the list of allowed values: int32, int64"),
    (lambda: tf.argmax(tf.constant([1j])), r"attr 'T' of complex128"),
    (lambda: tf.cumsum(X, 2), r"ScanOp: Expected scan axis in the range \[-2, 2\), but got 2"),
    (lambda: tf.cumsum(tf.constant([True])), r"attr 'T' of bool .* \[Op:Cumsum\]"),
])
def test_eager_errors_are_invalid_argument(fn, match):
    _raises(tf.errors.InvalidArgumentError, match, fn)


def test_argmax_takes_one_int_axis_and_supports_int16_output():
    _raises(TypeError, "axis must be int or Tensor with integer datatype",
            lambda: tf.argmax(X, [1]))
    assert tf.argmax(X, 1, output_type=tf.int16).dtype == tf.int16
    _raises(TypeError, "Cannot convert 1.0 to EagerTensor of dtype int32",
            lambda: tf.reduce_sum(X, 1.0))


@pytest.mark.parametrize("fn", [tf.math.reduce_variance, tf.math.reduce_std])
def test_variance_and_std_refuse_integers(fn):
    _raises(TypeError, r"Input must be either real or complex. Received integer type "
            r"<dtype: 'int32'>.", lambda: fn(tf.constant([1, 2])))


def test_logsumexp_of_ints_fails_in_is_finite_like_tf():
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.reduce_logsumexp(tf.constant([1, 2]))


# --- graph behaviour ---------------------------------------------------------------------------
def _trace(fn, *specs):
    g = Graph()
    with g.as_default():
        return fn(*[g.placeholder(s, f"x{i}") for i, s in enumerate(specs)])


S = tf.TensorSpec


@pytest.mark.parametrize("fn, spec, shape", [
    (lambda x: tf.reduce_sum(x, 1), S([None, 3]), [None]),
    (lambda x: tf.reduce_sum(x, 1, keepdims=True), S([None, 3]), [None, 1]),
    (lambda x: tf.reduce_sum(x), S(None), []),
    (lambda x: tf.reduce_sum(x, keepdims=True), S(None), None),
    (lambda x: tf.reduce_sum(x, keepdims=True), S([None, 3]), [1, 1]),
    (lambda x: tf.reduce_mean(x, 1), S(None), None),
    (lambda x: tf.reduce_sum(x, [0, 0]), S([None, 3]), [3]),  # TF's shape fn allows duplicates
    (lambda x: tf.argmax(x, 1), S(None), None),
    (lambda x: tf.argmax(x, -1), S([None, 3, 4]), [None, 3]),
    (lambda x: tf.cumsum(x, 1), S([None, 3]), [None, 3]),
    (lambda x: tf.reduce_logsumexp(x, 1), S([None, 3]), [None]),
    (lambda x: tf.math.reduce_variance(x, 0), S([None, 3]), [3]),
    (lambda x: tf.math.count_nonzero(x, 1), S([None, 3]), [None]),
])
def test_graph_shapes_with_unknown_dims(fn, spec, shape):
    out = _trace(fn, spec)
    assert out.shape == tf.TensorShape(shape)


@pytest.mark.parametrize("fn, spec, exc, match", [
    (lambda x: tf.reduce_sum(x, 2), S([None, 3]), ValueError,
     "Invalid reduction dimension 2 for input with 2 dimensions."),
    (lambda x: tf.reduce_sum(x, -3), S([None, 3]), ValueError,
     "Invalid reduction dimension -3 for input with 2 dimensions."),
    (lambda x: tf.reduce_sum(x), S([3], tf.bool), TypeError,
     "Value passed to parameter 'input' has DataType bool not in list of allowed values"),
    (lambda x: tf.reduce_any(x), S([3]), TypeError,
     "Input 'input' of 'Any' Op has type float32 that does not match expected type of bool."),
    (lambda x: tf.argmax(x, 2), S([None, 3]), ValueError,
     r"Dimension \(2\) must be in the range \[-2, 2\), where 2 is the number of dimensions"),
    (lambda x: tf.argmin(x, 1, output_type=tf.int16), S([None, 3]), TypeError,
     ("Value passed to parameter 'output_type' has DataType int16 not in list of allowed "
     "values: int32, int64")),
    (lambda x: tf.reduce_max(x), S([3], tf.complex64), TypeError, "DataType complex64 not in"),
    (lambda x: tf.math.reduce_variance(x), S([3], tf.int32), TypeError,
     "Input must be either real or complex"),
])
def test_graph_errors(fn, spec, exc, match):
    with pytest.raises(exc, match=match):
        _trace(fn, spec)


def test_symbolic_axis_must_be_known_when_tracing():
    with pytest.raises(TypeError, match="must be known when the function is traced"):
        _trace(lambda x, a: tf.reduce_sum(x, a), S([2, 3]), S([], tf.int32))


def test_reductions_of_known_values_are_known_when_tracing():
    out = _trace(lambda: tf.reduce_sum(tf.constant([1, 2, 3])))
    assert out.static == 6
