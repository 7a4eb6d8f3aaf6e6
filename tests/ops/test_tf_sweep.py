"""Behaviours found by diffing everyday programs against TensorFlow 2.21, pinned to TF."""

import numpy as np
import pytest

import tensortrace as tf

from .optable import Case, run_case

LGAMMA_X = np.array([0., -1., -2.5, 0.5, 1., 2., 3.5, 10., 100., 1e10, np.inf, -np.inf, np.nan,
                     1e-8, -0.0, 171.5, 1e30], np.float32)  # TF's float32 inputs, widened below
# TF 2.21, float64
LGAMMA_TF = np.array([np.inf, np.inf, -5.6243716498e-02, 5.7236494292e-01, 0., 0., 1.2009736023,
                      1.2801827480e+01, 3.5913420537e+02, 2.2025850929e+11, np.inf, np.inf, np.nan,
                      1.8420680744e+01, np.inf, 7.0914316303e+02, 6.8077553829e+31])
DIGAMMA_TF = np.array([np.nan, np.nan, 1.1031566406, -1.9635100260, -5.7721566490e-01,
                       4.2278433510e-01, 1.1031566406, 2.2517525891, 4.6001618527,
                       2.3025850930e+01, np.inf, np.nan, np.nan, -1.0000000118e+08, np.nan,
                       5.1416649814, 6.9077552805e+01])


def _shape_dtype(shape, dtype):
    def check(out, *args):
        assert out.shape == tuple(shape) and out.dtype == dtype, (out.shape, out.dtype)

    return check


X = np.array([[1., 2.], [3., 4.]], np.float32)
QR_A = np.array([[4., 1., 2.], [1., 3., -1.], [0.5, -2., 1.], [1., 1., 1.]], np.float32)
SPD = np.array([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]], np.float32)
CASES = [
    Case(tf.math.lgamma, (LGAMMA_X,), ref=lambda x: LGAMMA_TF.astype(np.float32),
         rtol=1e-6, id="lgamma-f32"),
    Case(tf.math.lgamma, (LGAMMA_X.astype(np.float64),), ref=lambda x: LGAMMA_TF, rtol=1e-9,
         id="lgamma-f64"),
    Case(tf.math.lgamma, (np.array([2.5], np.float16),),
         ref=lambda x: np.array([0.2847], np.float16), rtol=1e-3, id="lgamma-f16"),
    Case(tf.math.digamma, (LGAMMA_X.astype(np.float64),), ref=lambda x: DIGAMMA_TF, rtol=1e-8,
         id="digamma-f64"),
    Case(tf.math.digamma, (np.zeros((0, 2), np.float32),),
         ref=lambda x: np.zeros((0, 2), np.float32), id="digamma-empty"),
    Case(tf.math.nextafter, (np.array([1., 2.], np.float32), np.array([2., 1.], np.float32)),
         ref=np.nextafter, id="nextafter"),
    Case(tf.math.nextafter, (np.array(1.), np.array([[0.], [2.]])), ref=np.nextafter,
         id="nextafter-broadcast"),
    Case(tf.math.zeta, (np.array([2., 3., 1., 0.5, 2., 4., 2., 2.5, 1.5]),
                        np.array([1., 2., 1., 1., -1.5, 0.3, 0., -1.5, 1e9])),
         ref=lambda x, q: np.array([1.644934066848, 2.020569031596e-01, np.inf, np.nan,
                                    9.379246644989, 1.238569607758e+02, np.inf, np.nan,
                                    6.324555321918e-05]), rtol=1e-10, id="zeta"),
    Case(tf.math.polygamma, (np.array([0., 1., 2., 3., 1.5, -1., 1., 1., 2.]),
                             np.array([1., 2., 0.5, 3.3, 1., 1., -1.5, 0., 1e-3])),
         ref=lambda a, x: np.array([-5.772156649015e-01, 6.449340668482e-01, -1.682879664423e+01,
                                    8.584966733688e-02, np.nan, np.nan, 9.379246644989, np.inf,
                                    -2.000000002398e+09]), rtol=1e-10, id="polygamma"),
    Case(tf.math.polygamma, (np.float32(1.), np.array([0.5, 2.], np.float32)),
         ref=lambda a, x: np.array([4.934802, 0.6449341], np.float32), id="polygamma-f32"),
    Case(tf.math.cumulative_logsumexp, (X,), {"axis": 1, "exclusive": True},
         ref=lambda x, **k: np.array([[-np.inf, 1.], [-np.inf, 3.]], np.float32),
         id="cumulative_logsumexp-exclusive"),
    Case(tf.math.cumulative_logsumexp, (np.array([1., 2., 3.], np.float32),), {"reverse": True},
         ref=lambda x, **k: np.array([3.4076061, 3.3132617, 3.], np.float32),
         id="cumulative_logsumexp-reverse"),
    Case(tf.math.cumulative_logsumexp, (np.array([-1000., 0.]),),
         ref=lambda x: np.array([-1000., 0.]), id="cumulative_logsumexp-no-underflow"),
    Case(tf.histogram_fixed_width, (np.array([1., 2., 9., -5., 100., 10., 0.], np.float32),
                                    np.array([0., 10.], np.float32)), {"nbins": 5},
         ref=lambda v, r, **k: np.array([3, 1, 0, 0, 3], np.int32), id="histogram_fixed_width"),
    Case(tf.histogram_fixed_width, (np.array([1, 5, 9], np.int32), np.array([0, 10], np.int32)),
         {"nbins": 3, "dtype": tf.int64}, ref=lambda v, r, **k: np.array([1, 1, 1], np.int64),
         id="histogram_fixed_width-int"),
    Case(tf.strings.format, ("a={} b={}", [np.array([1, 2], np.int32), np.float32(1.5)]),
         ref=lambda t, v: np.array(b"a=[1 2] b=1.5", dtype=object), id="strings.format"),
    Case(tf.strings.bytes_split, (np.array("hé".encode(), dtype=object),),
         ref=lambda s: np.array([b"h", b"\xc3", b"\xa9"], dtype=object), dynamic_shape=True,
         id="bytes_split"),
    Case(tf.strings.bytes_split, (np.array(b"", dtype=object),),
         ref=lambda s: np.array([], dtype=object), dynamic_shape=True, id="bytes_split-empty"),
    Case(tf.linalg.slogdet, (SPD,), ref=lambda a: (np.float32(1.), np.float32(3.0582375)),
         rtol=1e-6, id="slogdet"),
    Case(tf.linalg.slogdet, (np.stack([SPD, -SPD]).astype(np.float64),),
         ref=lambda a: np.linalg.slogdet(a), rtol=1e-12, id="slogdet-batch"),
    Case(tf.linalg.eigvalsh, (SPD,), ref=lambda a: np.linalg.eigvalsh(a).astype(np.float32),
         rtol=1e-5, id="eigvalsh"),
    Case(lambda a: tf.abs(tf.linalg.eigh(a)[1]), (np.stack([SPD, 2 * SPD]),),
         ref=lambda a: np.abs(np.linalg.eigh(a)[1]), rtol=1e-5, atol=1e-6, id="eigh-vectors"),
    Case(tf.linalg.qr, (QR_A,), ref=lambda a: np.linalg.qr(a), rtol=1e-5, atol=1e-6, id="qr"),
    Case(tf.linalg.qr, (QR_A,), {"full_matrices": True},
         ref=lambda a, **k: np.linalg.qr(a, mode="complete"), rtol=1e-5, atol=1e-6,
         id="qr-full"),
    Case(tf.linalg.qr, (np.stack([QR_A.T, 2 * QR_A.T]).astype(np.float64),),
         ref=lambda a: np.linalg.qr(a), rtol=1e-10, atol=1e-12, id="qr-wide-batch"),
    Case(tf.reverse_sequence, (np.arange(12).reshape(2, 6).astype(np.int32),
                               np.array([3, 6], np.int32)), {"seq_axis": 1, "batch_axis": 0},
         ref=lambda x, n, **k: np.array([[2, 1, 0, 3, 4, 5], [11, 10, 9, 8, 7, 6]], np.int32),
         id="reverse_sequence"),
    Case(tf.reverse_sequence, (np.arange(24).reshape(4, 2, 3).astype(np.float32),
                               np.array([2, 0], np.int64)), {"seq_axis": 0, "batch_axis": 1},
         ref=lambda x, n, **k: np.array([[[6, 7, 8], [3, 4, 5]], [[0, 1, 2], [9, 10, 11]],
                                         [[12, 13, 14], [15, 16, 17]],
                                         [[18, 19, 20], [21, 22, 23]]], np.float32),
         id="reverse_sequence-batch-after-seq"),
    Case(tf.random.gamma, ([3], np.array([1., 2.], np.float32)),
         check=_shape_dtype([3, 2], tf.float32), id="gamma"),
    Case(tf.random.poisson, ([2], np.float32(1.)), {"dtype": tf.int64},
         check=_shape_dtype([2], tf.int64), id="poisson"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_case(case):
    run_case(case)


def test_range_float_is_start_plus_i_delta():
    # TF 2.21 computes start + i * delta in the output dtype, not a running sum
    np.testing.assert_array_equal(tf.range(1, 2, 0.3).numpy(),
                                  np.array([1., 1.3, 1.6, 1.9000001], np.float32))
    np.testing.assert_array_equal(
        tf.range(0, 1, 0.1, dtype=tf.float16).numpy(),
        np.array([0., 0.1, 0.2, 0.2998, 0.4, 0.5, 0.5996, 0.6997, 0.8, 0.9], np.float16))
    np.testing.assert_array_equal(tf.range(0., 1., 0.1, dtype=tf.float64).numpy(),
                                  np.arange(10) * 0.1)


def test_lgamma_gradient_is_digamma():
    x = tf.constant([3.])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.lgamma(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.9227843], rtol=1e-6)


def test_lgamma_dtypes():
    with pytest.raises(tf.errors.NotFoundError):
        tf.math.lgamma(tf.constant([1.], tf.bfloat16))
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of int32"):
        tf.math.lgamma(tf.constant([1]))


def test_cumulative_logsumexp_gradient_and_dtypes():
    x = tf.constant([1., 2., 3.])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.cumulative_logsumexp(x) * [1., -2., 3.]
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.73220885, -0.72793174, 1.9957225],
                               rtol=1e-5)
    out = tf.math.cumulative_logsumexp(tf.constant([1, 2], tf.bfloat16))
    assert out.dtype == tf.bfloat16 and out.numpy().astype(np.float32).tolist() == [1, 2.3125]
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of int32"):
        tf.math.cumulative_logsumexp(tf.constant([1, 2]))


def test_nextafter_dtypes():
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of half"):
        tf.math.nextafter(tf.constant([1.], tf.float16), tf.constant([2.], tf.float16))


def test_in_top_k():
    out = tf.math.in_top_k(targets=[1, 0], predictions=[[0.1, 0.9], [0.5, 0.5]], k=1)
    assert out.dtype == tf.bool and out.numpy().tolist() == [True, True]  # ties count as in
    assert tf.math.in_top_k([2], [[1., 2., 3.]], 2).numpy().tolist() == [True]
    assert tf.math.in_top_k([0], [[1., 2., 3.]], 2).numpy().tolist() == [False]
    # an out-of-range target or a non-finite prediction in the row: False
    assert tf.math.in_top_k([5, 0], [[1., 2.], [np.nan, 1.]], 2).numpy().tolist() == [False, False]
    f = tf.function(lambda t, p: tf.math.in_top_k(t, p, 1))
    cf = f.get_concrete_function(tf.TensorSpec([None], tf.int32), tf.TensorSpec([None, 4]))
    assert cf.outputs[0].shape.as_list() == [None]


def test_polyval():
    out = tf.math.polyval([1, 2, 3], 2)
    assert out.dtype == tf.int32 and out.numpy() == 11
    out = tf.math.polyval([tf.constant([1., 2.]), tf.constant(1.)], tf.constant(3.))
    assert out.numpy().tolist() == [4., 7.]
    out = tf.math.polyval([], 2.)
    assert out.dtype == tf.float32 and out.numpy() == 0.


def test_weighted_cross_entropy_with_logits():
    out = tf.nn.weighted_cross_entropy_with_logits(tf.constant([1., 0.]), tf.constant([0.5, -1.]),
                                                   2.)
    np.testing.assert_allclose(out.numpy(), [0.948154, 0.31326175], rtol=1e-6)
    out = tf.nn.weighted_cross_entropy_with_logits(
        labels=tf.constant([[1., 0.]]), logits=tf.constant([[0.5, -1.]]),
        pos_weight=tf.constant([2., 3.]))
    assert out.shape == (1, 2)
    np.testing.assert_allclose(out.numpy(), [[0.948154, 0.31326175]], rtol=1e-6)


def test_random_gamma_and_poisson():
    tf.random.set_seed(0)
    assert tf.random.gamma([2], 1., 2., dtype=tf.float64).dtype == tf.float64
    assert tf.random.gamma([], [[1.]]).shape == (1, 1)
    assert tf.random.poisson([3], [1., 2.]).shape == (3, 2)
    assert tf.random.poisson([2], tf.constant(3, tf.int32)).dtype == tf.float32
    assert float(tf.reduce_mean(tf.random.gamma([10000], 3.))) > 2.8
    assert bool(tf.reduce_min(tf.random.gamma([100], 1e-3)) > 0)  # clipped to the smallest normal
    f = tf.function(lambda a: (tf.random.gamma([5], a), tf.random.poisson([5], a)))
    cf = f.get_concrete_function(tf.TensorSpec([None, 2]))
    assert [o.shape.as_list() for o in cf.outputs] == [[5, None, 2], [5, None, 2]]
    with pytest.raises(ValueError, match="not inexact"):
        tf.random.gamma([2], 1, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'dtype' of uint8"):
        tf.random.poisson([2], 1., dtype=tf.uint8)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'R' of string"):
        tf.random.poisson([2], "a")


def _a(*shape):
    return tf.constant((np.arange(np.prod(shape)) % 7 - 3).reshape(shape).astype(np.float32))


def test_conv_transpose_values_match_tf():
    out = tf.nn.conv2d_transpose(_a(1, 2, 2, 1), _a(3, 3, 2, 1), [1, 4, 4, 2], 2)
    assert out.shape == (1, 4, 4, 2)
    assert out.numpy()[0, ..., 0].tolist() == [[9, 3, 3, 2], [-9, 6, -6, 4], [-3, 10, -2, 6],
                                               [-3, 2, 0, 0]]
    out = tf.nn.conv2d_transpose(_a(1, 2, 3, 2), _a(2, 2, 1, 2), [1, 5, 7, 1], 2, "VALID")
    assert out.numpy()[0, ..., 0].tolist() == [
        [13, 3, 3, 1, -7, -1, 0], [-7, -3, -1, -3, 5, -3, 0], [-3, -3, 8, 2, -2, 0, 0],
        [-3, 18, -4, -3, 2, -3, 0], [0, 0, 0, 0, 0, 0, 0]]
    out = tf.nn.conv1d_transpose(_a(1, 3, 1), _a(3, 1, 1), [1, 6, 1], 2)
    assert out.numpy().ravel().tolist() == [9, 6, 9, 4, 5, 2]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Conv2DCustomBackpropInputOp only supports NHWC\."):  # TF's CPU
        tf.nn.conv2d_transpose(_a(1, 2, 2, 2), _a(2, 2, 1, 2), [1, 1, 4, 4], 2,
                               data_format="NCHW")
    out = tf.nn.conv2d_transpose(_a(1, 3, 3, 1), _a(2, 2, 1, 1), [1, 3, 3, 1], 1, "SAME",
                                 dilations=2)
    assert out.numpy().ravel().tolist() == [-3, -6, -2, 11, 1, 6, -1, -2, 0]


def test_conv_transpose_gradient_and_graph_shape():
    x, w = _a(1, 2, 2, 1), _a(3, 3, 2, 1)
    with tf.GradientTape() as tape:
        tape.watch([x, w])
        y = tf.reduce_sum(tf.nn.conv2d_transpose(x, w, [1, 4, 4, 2], 2) ** 2)
    gx, gw = tape.gradient(y, [x, w])
    assert gx.numpy().ravel().tolist() == [-352, -196, -58, 38]
    assert gw.numpy().ravel().tolist() == [-60, -14, -46, -12, -14, 28, 84, -72, -56, -28, 36,
                                           -16, 26, 74, -84, -52, 12, 48]
    f = tf.function(lambda v: tf.nn.conv2d_transpose(v, tf.ones([3, 3, 4, 3]), [2, 10, 10, 4], 2))
    cf = f.get_concrete_function(tf.TensorSpec([2, 5, 5, 3]))
    assert cf.outputs[0].shape.as_list() == [2, 10, 10, 4]
    out = tf.nn.conv3d_transpose(tf.ones([1, 2, 3, 3, 2]), tf.ones([2, 2, 2, 3, 2]),
                                 [1, 4, 6, 6, 3], [1, 2, 2, 2, 1])
    assert out.shape == (1, 4, 6, 6, 3) and float(tf.reduce_sum(out)) == 2 * 18 * 8 * 3


def test_conv_transpose_size_mismatch():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Size of out_backprop doesn't match"):
        tf.nn.conv2d_transpose(tf.ones([2, 5, 5, 3]), tf.ones([3, 3, 4, 3]), [2, 12, 12, 4], 2)


@pytest.mark.parametrize("dtype, message", [
    (tf.float32, r"In\[0\] ndims must be >= 2"),  # TF's oneDNN kernel
    (tf.float64, r"In\[0\] and In\[1\] has different ndims: \[2\] vs. \[2,1\]"),
    (tf.int32, r"In\[0\] and In\[1\] has different ndims: \[2\] vs. \[2,1\]"),
])
def test_matmul_rank_mismatch_message(dtype, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        tf.matmul(tf.ones([2], dtype), tf.ones([2, 1], dtype))


def test_compat_dimension_helpers():
    shape = tf.TensorShape([None, 3])
    assert tf.compat.dimension_value(shape[0]) is None
    assert tf.compat.dimension_value(5) == 5
    assert tf.compat.dimension_at_index(shape, 1) == 3
    assert tf.compat.dimension_at_index(tf.TensorShape(None), 0) is None


def test_histogram_fixed_width_extras():
    out = tf.histogram_fixed_width_bins([1., 2., 9., -5., 100.], [0., 10.], nbins=5)
    assert out.dtype == tf.int32 and out.numpy().tolist() == [0, 1, 4, 0, 4]
    assert tf.histogram_fixed_width([[0.1, 0.35], [0.9, 1.]], [0., 1.]).shape == (100,)
    f = tf.function(lambda v, n: tf.histogram_fixed_width(v, [0., 1.], n))
    cf = f.get_concrete_function(tf.TensorSpec([None]), tf.TensorSpec([], tf.int32))
    assert cf.outputs[0].shape.as_list() == [None]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"but got '\[1, 0\]'"):
        tf.histogram_fixed_width([1.], [1., 0.], 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="nbins should be a positive number"):
        tf.histogram_fixed_width([1.], [0., 1.], 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must not contain NaN"):
        tf.histogram_fixed_width([np.nan], [0., 1.], 2)


def test_dtype_from_enum_and_is_numeric():
    assert tf.dtypes.DType(1) == tf.float32 and tf.dtypes.DType(7) == tf.string
    with pytest.raises(TypeError, match="1000 does not correspond to a valid"):
        tf.dtypes.DType(1000)
    numeric = [d.is_numeric for d in (tf.float32, tf.bool, tf.string, tf.int8, tf.complex64,
                                      tf.uint64, tf.float16)]
    assert numeric == [True, False, False, True, True, True, True]


def test_cross_entropy_of_a_sure_class_is_positive_zero():
    # TF's kernels compute log(sum(exp)) - logit: +0.0, which prints as "0." (not "-0.")
    out = tf.nn.softmax_cross_entropy_with_logits(labels=[[0., 1.]], logits=[[1., 2.]], axis=0)
    assert np.signbit(out.numpy()).tolist() == [False, False]
    out = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0], logits=[[1.]])
    assert np.signbit(out.numpy()).tolist() == [False]


def test_compute_average_loss_and_scale_regularization_loss():
    assert float(tf.nn.compute_average_loss([1., 2., 3.])) == 2.0
    assert float(tf.nn.compute_average_loss([1., 2., 3.], global_batch_size=4)) == 1.5
    out = tf.nn.compute_average_loss([[1., 2.], [3., 4.]], sample_weight=[1., 0.],
                                     global_batch_size=2)
    assert float(out) == 1.5
    assert float(tf.nn.compute_average_loss([[1., 2.], [3., 4.]], sample_weight=2.)) == 10.0
    out = tf.nn.compute_average_loss([1, 2])
    assert out.dtype == tf.float64 and float(out) == 1.5
    assert float(tf.nn.compute_average_loss([1., 2.], global_batch_size=0)) == 0.0  # div_no_nan
    with pytest.raises(ValueError, match="Expected a tensor with at least rank 1"):
        tf.nn.compute_average_loss(2.)
    with pytest.raises(TypeError, match="global_batch_size must be an integer"):
        tf.nn.compute_average_loss([1., 2.], global_batch_size=2.5)
    assert float(tf.nn.scale_regularization_loss([1., tf.constant(2.)])) == 3.0
    assert float(tf.nn.scale_regularization_loss(2.)) == 2.0


def test_separable_atrous_pool_lrn_match_tf():
    out = tf.nn.separable_conv2d(_a(1, 4, 4, 2), _a(3, 3, 2, 2), _a(1, 1, 4, 3), [1, 1, 1, 1],
                                 "SAME")
    assert out.numpy().ravel()[:8].tolist() == [-5, -11, -3, 34, -34, -46, -4, -19]
    out = tf.nn.separable_conv2d(_a(1, 5, 5, 2), _a(3, 3, 2, 1), _a(1, 1, 2, 3), [1, 2, 2, 1],
                                 "VALID")
    assert out.shape == (1, 2, 2, 3)
    out = tf.nn.separable_conv2d(_a(1, 5, 5, 2), _a(3, 3, 2, 1), _a(1, 1, 2, 3), [1, 1, 1, 1],
                                 "VALID", dilations=[2, 2])
    assert out.numpy().ravel().tolist() == [-57, -21, 15]
    out = tf.nn.atrous_conv2d(_a(1, 5, 5, 1), _a(3, 3, 1, 2), 2, "SAME")
    assert out.numpy().ravel()[:6].tolist() == [4, 2, -2, 0, -10, 7]
    assert tf.nn.pool(_a(1, 4, 4, 1), [2, 2], "MAX", strides=[2, 2]).numpy().ravel().tolist() == \
        [2, 3, 3, 1]
    out = tf.nn.pool(_a(1, 4, 4, 1), [2, 2], "AVG", strides=[2, 2], padding="SAME")
    assert out.numpy().ravel().tolist() == [-0.5, -0.25, 0.5, -1.0]
    assert tf.nn.pool(_a(1, 5, 1), [2], "AVG").numpy().ravel().tolist() == [-2.5, -1.5, -0.5, 0.5]
    out = tf.nn.local_response_normalization(_a(1, 1, 2, 5), depth_radius=2)
    np.testing.assert_allclose(out.numpy().ravel(), [
        -0.7745966911315918, -0.5163977742195129, -0.25, 0.0, 0.5773502588272095,
        0.4170288145542145, 0.5773502588272095, -0.5669466853141785, -0.40824827551841736,
        -0.25819888710975647], rtol=1e-6)
    out = tf.nn.local_response_normalization(_a(1, 1, 1, 4), depth_radius=1, bias=2., alpha=0.5,
                                             beta=0.75)
    np.testing.assert_allclose(out.numpy().ravel(), [-0.6026387810707092, -0.38490018248558044,
                                                     -0.3236611783504486, 0.0], rtol=1e-6)


def _grads(fn, *args):
    args = [tf.constant(a) for a in args]
    with tf.GradientTape() as tape:
        tape.watch(args)
        y = fn(*args)
    return tape.gradient(y, args)


def test_special_function_gradients_match_tf():
    (g,) = _grads(tf.math.digamma, np.array([0.7, 2.5, -0.5], np.float32))
    np.testing.assert_allclose(g.numpy(), [2.8340485, 0.49035773, 8.934802], rtol=1e-5)
    x, q = np.array([2., 3.], np.float32), np.array([1.5, 2.], np.float32)
    gx, gq = _grads(tf.math.zeta, x, q)
    assert gx is None  # TF has no gradient with respect to x
    np.testing.assert_allclose(gq.numpy(), [-0.8287967, -0.2469697], rtol=1e-5)
    ga, gz = _grads(tf.math.polygamma, x, q)
    assert ga is None
    np.testing.assert_allclose(gz.numpy(), [1.409091, -0.88626623], rtol=1e-5)
    g1, g2 = _grads(tf.math.nextafter, x, q)
    assert g1.numpy().tolist() == [1., 1.] and g2.numpy().tolist() == [0., 0.]


def test_strings_format():
    out = tf.strings.format("x={} y={}", (tf.constant([1, 2]), tf.constant(1.5)))
    assert out.dtype == tf.string and out.shape == () and out.numpy() == b"x=[1 2] y=1.5"
    assert tf.strings.format("{}", tf.range(20)).numpy() == b"[0 1 2 ... 17 18 19]"
    assert tf.strings.format("{}", tf.range(20), summarize=2).numpy() == b"[0 1 ... 18 19]"
    assert tf.strings.format("a{}b", [tf.constant("s")]).numpy() == b'a"s"b'
    assert tf.strings.format("{}", tf.constant([[1.5, 2.], [3., 4.]])).numpy() == \
        b"[[1.5 2]\n [3 4]]"
    assert tf.strings.format("{} {}", (1, "x")).numpy() == b'1 "x"'
    assert tf.strings.format("{x}", [1], placeholder="{x}").numpy() == b"1"
    with pytest.raises(ValueError, match="The template expects 2 tensors, but the inputs only"):
        tf.strings.format("{} {}", [1])
    f = tf.function(lambda v: tf.strings.format("v={}", v))
    assert f(tf.constant([1, 2])).numpy() == b"v=[1 2]"
    assert f.get_concrete_function(tf.TensorSpec([None], tf.int32)).outputs[0].shape == ()


def _out_shape(fn, *specs):
    return tf.function(fn).get_concrete_function(*specs).outputs[0].shape.as_list()


def test_shape_maths_on_partly_known_shapes_folds_as_in_tf():
    spec = tf.TensorSpec([None, 3, 2])
    assert _out_shape(lambda x: tf.reshape(x, [-1, tf.shape(x)[1] * tf.shape(x)[2]]), spec) == \
        [None, 6]
    spec = tf.TensorSpec([None, 3])
    assert _out_shape(lambda x: x[:, :tf.shape(x)[1] - 1], spec) == [None, 2]
    assert _out_shape(lambda x: tf.slice(x, [0, 0], [tf.shape(x)[0], 2]), spec) == [None, 2]
    assert _out_shape(lambda x: tf.random.uniform(tf.shape(x)), spec) == [None, 3]
    assert _out_shape(lambda x: tf.random.normal([tf.shape(x)[0], 4]), spec) == [None, 4]
    assert _out_shape(lambda x: tf.ones([tf.shape(x)[0], 5]), spec) == [None, 5]
    assert _out_shape(lambda x: tf.one_hot(tf.argmax(x, -1), tf.shape(x)[-1]), spec) == [None, 3]
    # the unknown dimension stays unknown, and the value is still computed when run
    f = tf.function(lambda x: tf.reshape(x, [tf.shape(x)[0] * 2, -1]))
    assert f.get_concrete_function(tf.TensorSpec([None, 4])).outputs[0].shape.as_list() == \
        [None, None]
    assert f(tf.ones([3, 4])).shape == (6, 2)


def test_bytes_split_of_higher_ranks_is_ragged_in_tf():
    assert tf.strings.bytes_split(tf.constant("Duck")).numpy().tolist() == [b"D", b"u", b"c", b"k"]
    with pytest.raises(NotImplementedError, match="RaggedTensor"):
        tf.strings.bytes_split(["ab"])


def test_constant_of_a_tensor_does_not_cast():
    with pytest.raises(TypeError, match=r"Expected tensor \[1 2\] with dtype tf.float32, but got "
                                        r"dtype tf.int32."):
        tf.constant(tf.constant([1, 2]), dtype=tf.float32)
    assert tf.constant(tf.constant([1, 2]), dtype=tf.int32).numpy().tolist() == [1, 2]


def test_constant_overflowing_float_is_inf_without_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tf.constant(1e40, dtype=tf.float32).numpy() == np.inf


def test_linalg_eigh_slogdet_logdet_set_diag_gradients_match_tf():
    a = tf.constant(SPD)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(a)
        e, _ = tf.linalg.eigh(a)
        by_eigenvalues = tf.reduce_sum(e * [1., 2., 3.])
        log_abs_det = tf.linalg.slogdet(a).log_abs_determinant
        log_det = tf.linalg.logdet(a)
        squares = tf.reduce_sum(tf.linalg.eigvalsh(a) ** 2)
    np.testing.assert_allclose(tape.gradient(by_eigenvalues, a).numpy(), [
        [2.63966, 0., 0.], [0.88188, 2.25676, 0.], [0.81025, 0.09196, 1.10358]], atol=2e-5)
    inverse = [[0.27994, -0.08924, -0.06106], [-0.08924, 0.36402, -0.01409],
               [-0.06106, -0.01409, 0.51667]]
    np.testing.assert_allclose(tape.gradient(log_abs_det, a).numpy(), inverse, atol=2e-5)
    np.testing.assert_allclose(tape.gradient(log_det, a).numpy(), inverse, atol=2e-5)
    np.testing.assert_allclose(tape.gradient(squares, a).numpy(),
                               [[8., 0., 0.], [4., 6., 0.], [2., 0.8, 4.]], atol=2e-5)
    d = tf.constant([1., 2., 3.])
    with tf.GradientTape() as tape:
        tape.watch(d)
        y = tf.reduce_sum(tf.linalg.set_diag(a, d) * tf.reshape(tf.range(9.), [3, 3]))
    assert tape.gradient(y, d).numpy().tolist() == [0., 4., 8.]
    sign, value = tf.linalg.slogdet(a)
    assert float(sign) == 1.0 and abs(float(value) - 3.0582375) < 1e-5
    f = tf.function(lambda x: tf.linalg.eigh(x))
    outputs = f.get_concrete_function(tf.TensorSpec([None, 4, 4])).outputs
    shapes = [o.shape.as_list() for o in outputs]
    assert shapes == [[None, 4], [None, 4, 4]]
    out = tf.linalg.set_diag(tf.ones([2, 2, 3]), [[1., 2.], [3., 4.]])
    assert out.numpy().tolist() == [[[1, 1, 1], [1, 2, 1]], [[3, 1, 1], [1, 4, 1]]]


def test_cross_triangular_solve_lstsq_match_tf():
    out = tf.linalg.cross(tf.constant([[1., 2., 3.], [4., 5., 6.]]),
                          tf.constant([[7., 8., 9.], [1., 0., 0.]]))
    assert out.numpy().tolist() == [[-6., 12., -6.], [0., 6., -5.]]
    out = tf.linalg.triangular_solve([[2., 0.], [1., 1.]], [[2.], [3.]])
    assert out.numpy().tolist() == [[1.], [2.]]
    out = tf.linalg.triangular_solve([[2., 5.], [1., 1.]], [[2.], [3.]], lower=False)
    assert out.numpy().tolist() == [[-6.5], [3.]]
    np.testing.assert_allclose(tf.linalg.lstsq([[4., 1.], [1., 3.]], [[1.], [2.]]).numpy(),
                               [[0.09090912], [0.6363636]], rtol=1e-5)
    np.testing.assert_allclose(tf.linalg.lstsq(tf.constant([[1., 2., 3.]]), [[1.]]).numpy(),
                               [[0.07142857], [0.14285713], [0.2142857]], rtol=1e-5)
    x = tf.constant([[2., 0.], [1., 1.]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.linalg.triangular_solve(x, [[2.], [3.]]) * [[1.], [2.]])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[0.5, 0.], [-2., -4.]], rtol=1e-6)


def test_as_dtype_strings_are_tf_names_only():
    assert tf.as_dtype("float") == tf.float32  # TF's C name, not NumPy's float64
    assert tf.cast([1], "float").dtype == tf.float32
    assert tf.as_dtype("half") == tf.float16 and tf.as_dtype("double") == tf.float64
    for name in ("int", "f4", "complex", "long"):
        with pytest.raises(TypeError, match=f"Cannot convert the argument `type_value`: "
                                            f"'{name}' to a TensorFlow DType."):
            tf.as_dtype(name)


def test_stack_of_ragged_lists_packs_and_reports_shapes():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"values\[0\].shape = \[1\] != values\[1\].shape = \[2\]"):
        tf.stack([[1], [2, 3]])


def test_gather_nd_batch_error_names_the_batch_position():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[1\] = \[1, 1\] does not index into param shape "
                             r"\[2,1,2\]"):
        tf.gather_nd([[[1, 2]], [[3, 4]]], [[0], [1]], batch_dims=1)


@pytest.mark.parametrize("rows, r_row, expected", [
    (slice(None), [-4.272, -1.63858, -1.9897],
     [[10.779, 1.405, 0.128], [-0.718, 7.969, 4.293], [-6.14, -1.711, 11.681],
      [-2.828, 1.266, 6.356]]),
    (slice(0, 3), [-4.15331, -1.44463, -1.80579],
     [[8.351, 2.43, 4.], [1.652, 4.956, -2.], [-1.109, -5.351, 2.]]),
])
def test_qr_values_and_gradient_match_tf(rows, r_row, expected):
    x = tf.constant(QR_A[rows])
    with tf.GradientTape() as tape:
        tape.watch(x)
        q, r = tf.linalg.qr(x)
        weights = tf.reshape(tf.range(tf.size(q), dtype=tf.float32), tf.shape(q))
        y = tf.reduce_sum(q * weights) + tf.reduce_sum(r ** 2)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected, atol=2e-3)
    np.testing.assert_allclose(r.numpy()[0], r_row, rtol=1e-4)  # TF's signs (Householder)


def test_qr_wide_gradient_and_graph_shapes():
    x = tf.constant(QR_A.T)
    with tf.GradientTape() as tape:
        tape.watch(x)
        q, r = tf.linalg.qr(x)
        weights = tf.reshape(tf.range(tf.size(q), dtype=tf.float32), tf.shape(q))
        y = tf.reduce_sum(q * weights) + tf.reduce_sum(r ** 2)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [
        [9.045, 3.124, 1., 2.], [2.077, 5.037, -4., 2.], [1.871, -3.766, 2., 2.]], atol=2e-3)
    f = tf.function(lambda v: tf.linalg.qr(v))
    outputs = f.get_concrete_function(tf.TensorSpec([None, 5, 3])).outputs
    assert [o.shape.as_list() for o in outputs] == [[None, 5, 3], [None, 3, 3]]


def test_random_uniform_bfloat16():
    x = tf.random.uniform([1000], dtype=tf.bfloat16)
    values = x.numpy().astype(np.float32)
    assert x.dtype == tf.bfloat16 and values.min() >= 0 and values.max() < 1
    assert len(np.unique(values)) > 50  # 7 mantissa bits: k / 128
    assert np.all(values * 128 == np.floor(values * 128))


@pytest.mark.parametrize("pool", [tf.nn.max_pool2d, tf.nn.avg_pool2d])
def test_pool_rank_error_of_float32_is_onednn_message(pool):
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input must be 4 or 5-dimensional"):
        pool(tf.ones([1, 5, 5]), 2, 2, "VALID")


def test_reverse_sequence_errors_and_gradient():
    x = tf.reshape(tf.range(12), [2, 6])
    for lengths, message in [([7, 1], r"seq_lens\(0\) > input.dims\(1\)"),
                             ([1], r"Length of seq_lengths != input.dims\(0\), \(1 vs. 2\)"),
                             ([-1, 1], r"seq_lens\(0\) < 0")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            tf.reverse_sequence(x, lengths, 1, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="batch_dim == seq_dim == 1"):
        tf.reverse_sequence(x, [1, 1], 1, 1)
    v = tf.constant(np.arange(6.).reshape(2, 3))
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = tf.reduce_sum(tf.reverse_sequence(v, [2, 3], 1, 0) * [[1., 2., 3.]])
    assert tape.gradient(y, v).numpy().tolist() == [[2., 1., 3.], [3., 2., 1.]]


def test_small_composites_match_tf():
    d = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
    out = tf.math.unsorted_segment_mean(d, [0, 0, 2], 4)
    assert out.numpy().tolist() == [[2., 3.], [0., 0.], [5., 6.], [0., 0.]]
    np.testing.assert_allclose(tf.math.unsorted_segment_sqrt_n(d, [0, 0, 2], 3).numpy(),
                               [[2.828427, 4.242641], [0., 0.], [5., 6.]], rtol=1e-6)
    out = tf.math.unsorted_segment_mean([1, 2, 3], [1, 1, 0], 2)
    assert out.dtype == tf.float64 and out.numpy().tolist() == [3., 1.5]
    assert float(tf.math.zero_fraction([0., 1., 0., 2.])) == 0.5
    assert np.isnan(float(tf.math.zero_fraction(tf.zeros([0]))))
    assert tf.nn.crelu([[-1., 2.]]).numpy().tolist() == [[0., 2., 1., 0.]]
    unit, n = tf.linalg.normalize([3., 4.])
    np.testing.assert_allclose(unit.numpy(), [0.6, 0.8], rtol=1e-6)
    assert n.numpy().tolist() == [5.]
    assert tf.linalg.normalize([[3., 4.], [0., 1.]], axis=1)[1].numpy().tolist() == [[5.], [1.]]
    np.testing.assert_allclose(tf.nn.log_poisson_loss([0., 1., 3.], [0.5, 0., -1.]).numpy(),
                               [1.6487212, 1., 3.3678794], rtol=1e-6)
    out = tf.nn.log_poisson_loss([0., 1., 3.], [0.5, 0., -1.], compute_full_loss=True)
    np.testing.assert_allclose(out.numpy(), [1.6487212, 1., 5.131961], rtol=1e-6)
    x = tf.reshape(tf.range(16.), [1, 4, 4, 1])
    assert tf.nn.space_to_depth(x, 2)[0].numpy().tolist() == [
        [[0., 1., 4., 5.], [2., 3., 6., 7.]], [[8., 9., 12., 13.], [10., 11., 14., 15.]]]
    assert tf.nn.depth_to_space(tf.reshape(tf.range(8.), [1, 1, 1, 8]), 2)[0].numpy().tolist() \
        == [[[0., 1.], [2., 3.]], [[4., 5.], [6., 7.]]]
    f = tf.function(lambda v: tf.nn.space_to_depth(v, 2))
    assert f.get_concrete_function(tf.TensorSpec([None, 4, 6, 3])).outputs[0].shape.as_list() \
        == [None, 2, 3, 12]


def test_string_as_numpy_dtype_is_object():
    assert tf.string.as_numpy_dtype is object
    assert tf.float32.as_numpy_dtype is np.float32
