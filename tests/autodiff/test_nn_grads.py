"""Gradients of the nn and linalg ops against central finite differences (float64), eagerly and
inside tf.function, to first and (for smooth ops) second order."""

import numpy as np
import pytest

import tensortrace as tf

from .gradcheck import GradCase, check, distinct, rand

P = dict(low=0.3, high=2.0)
I32 = np.int32


def C(fn, *args, **kw):
    return GradCase(fn, args, **kw)


def _spd(x):
    """A symmetric positive definite matrix made from x (so every entry of x matters)."""
    return tf.matmul(x, x, transpose_b=True) + 3.0 * tf.eye(tf.shape(x)[0], dtype=x.dtype)


LABELS = np.eye(4)[[1, 0, 3]]
CASES = [
    C(tf.matmul, rand(2, 3), rand(3, 4), id="matmul"),
    C(lambda a, b: tf.matmul(a, b, transpose_a=True), rand(3, 2), rand(3, 4), id="matmul_ta"),
    C(lambda a, b: tf.matmul(a, b, transpose_b=True), rand(2, 3), rand(4, 3), id="matmul_tb"),
    C(lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True), rand(3, 2), rand(4, 3),
      id="matmul_tab"),
    C(tf.matmul, rand(2, 2, 3), rand(3, 2), id="batch_matmul_broadcast"),
    C(lambda a, b: tf.matmul(a, b, adjoint_a=True, adjoint_b=True), rand(2, 3, 2),
      rand(1, 2, 3), id="batch_matmul_adjoint"),
    C(lambda a, b: tf.tensordot(a, b, [[1], [0]]), rand(2, 3), rand(3, 2), id="tensordot"),
    C(lambda a, b: tf.tensordot(a, b, [[0, 2], [2, 0]]), rand(2, 3, 4), rand(4, 2, 2),
      id="tensordot_axes"),
    C(tf.nn.relu, distinct(2, 3), order=1, id="relu"),
    C(tf.nn.relu6, distinct(2, 3, low=-3, high=8), order=1, id="relu6"),
    C(lambda x: tf.nn.leaky_relu(x, 0.3), distinct(2, 3), order=1, id="leaky_relu"),
    C(tf.nn.elu, distinct(2, 3), order=1, id="elu"),
    C(tf.nn.selu, distinct(2, 3), order=1, id="selu"),
    C(tf.nn.gelu, rand(2, 3), id="gelu"),
    C(lambda x: tf.nn.gelu(x, approximate=True), rand(2, 3), id="gelu_tanh"),
    C(tf.nn.silu, rand(2, 3), id="silu"),
    C(tf.nn.softmax, rand(2, 3), id="softmax"),
    C(lambda x: tf.nn.softmax(x, axis=0), rand(2, 3), id="softmax_axis"),
    C(tf.nn.log_softmax, rand(2, 3), id="log_softmax"),
    C(lambda x, z: tf.nn.softmax_cross_entropy_with_logits(z, x), rand(3, 4), LABELS,
      order=1, id="softmax_xent"),
    C(lambda x: tf.nn.softmax_cross_entropy_with_logits(LABELS, x), rand(3, 4),
      id="softmax_xent_logits"),
    C(lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(np.array([1, 0, 3], I32), x),
      rand(3, 4), id="sparse_softmax_xent"),
    C(lambda x, z: tf.nn.sigmoid_cross_entropy_with_logits(z, x), rand(2, 3),
      rand(2, 3, low=0, high=1), id="sigmoid_xent"),
    C(tf.nn.l2_loss, rand(2, 3), id="l2_loss"),
    C(tf.nn.bias_add, rand(2, 3), rand(3), id="bias_add"),
    C(lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"), rand(2, 3, 2), rand(3),
      id="bias_add_nchw"),
    C(lambda x: tf.nn.moments(x, [0]), rand(3, 2), id="moments"),
    C(lambda x: tf.nn.moments(x, [1], keepdims=True)[1], rand(2, 3), id="moments_keepdims"),
    C(lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3), rand(2, 3),
      rand(3), rand(3, **P), rand(3), rand(3), id="batch_normalization"),
    C(lambda x, m, v: tf.nn.batch_normalization(x, m, v, None, None, 1e-3), rand(2, 3),
      rand(3), rand(3, **P), id="batch_normalization_plain"),
    C(tf.linalg.matrix_transpose, rand(2, 3, 2), id="matrix_transpose"),
    C(tf.linalg.trace, rand(2, 3, 3), id="trace"),
    C(lambda x: tf.linalg.inv(_spd(x)), rand(3, 3), id="inv"),
    C(lambda x: tf.linalg.det(_spd(x)), rand(3, 3), id="det"),
    C(lambda x, b: tf.linalg.solve(_spd(x), b), rand(3, 3), rand(3, 2), id="solve"),
    C(lambda x, b: tf.linalg.solve(_spd(x), b, adjoint=True), rand(3, 3), rand(3, 2),
      id="solve_adjoint"),
    C(lambda x: tf.linalg.cholesky(_spd(x)), rand(3, 3), id="cholesky"),
    C(lambda x: tf.linalg.slogdet(_spd(x))[1], rand(3, 3), id="slogdet"),
    C(lambda x: tf.linalg.eigvalsh(_spd(x)), rand(3, 3), order=1, id="eigvalsh"),
    C(lambda x: tf.linalg.qr(x + 3.0 * tf.eye(3, 2, dtype=x.dtype)), rand(3, 2), order=1,
      id="qr"),
    C(lambda x: tf.linalg.svd(x, compute_uv=False), rand(3, 2), order=1, id="svd"),
    C(lambda x: tf.linalg.band_part(x, 1, 0), rand(3, 3), id="band_part"),
    C(tf.linalg.tensor_diag, rand(3), id="diag"),
    C(tf.linalg.tensor_diag_part, rand(3, 3), id="diag_part"),
    C(lambda x: tf.linalg.diag(x, k=(-1, 0)), rand(2, 2, 3), id="matrix_diag_band"),
    C(lambda x: tf.linalg.diag_part(x, k=(0, 1)), rand(3, 4), id="matrix_diag_part_band"),
    C(lambda x: tf.math.l2_normalize(x, axis=1), rand(2, 3), id="l2_normalize"),
    C(tf.norm, rand(2, 3), id="norm"),
    C(lambda x: tf.norm(x, ord=1, axis=1), distinct(2, 3), order=1, id="norm_1"),
    C(lambda x: tf.norm(x, ord=np.inf, axis=0, keepdims=True), distinct(2, 3), order=1,
      id="norm_inf"),
    C(lambda x: tf.norm(x, ord=3, axis=1), rand(2, 3, **P), id="norm_3"),
    C(lambda x: tf.norm(x, ord="fro", axis=[0, 1]), rand(2, 3), id="norm_fro"),
    C(lambda x: tf.norm(x, ord=1, axis=[1, 2]), distinct(2, 2, 3), order=1, id="norm_matrix_1"),
]


CONV = [
    C(lambda x, w: tf.nn.conv2d(x, w, 1, "VALID"), rand(1, 4, 4, 2), rand(2, 2, 2, 3),
      id="conv2d"),
    C(lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"), rand(2, 5, 4, 2), rand(3, 3, 2, 2),
      id="conv2d_same_strided"),
    C(lambda x, w: tf.nn.conv2d(x, w, 1, "SAME", dilations=2), rand(1, 5, 5, 1),
      rand(2, 2, 1, 2), id="conv2d_dilated"),
    C(lambda x, w: tf.nn.conv2d(x, w, 1, [[0, 0], [1, 0], [0, 2], [0, 0]]),
      rand(1, 3, 3, 2), rand(2, 2, 2, 1), id="conv2d_explicit"),
    C(lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"), rand(1, 3, 3, 2),
      rand(2, 2, 2, 2), id="depthwise_conv2d"),
    C(lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME"), rand(2, 4, 3, 2),
      rand(3, 2, 2, 1), id="depthwise_conv2d_strided"),
    C(lambda x, w: tf.nn.conv2d(x, w, 1, "SAME"), rand(1, 3, 3, 4), rand(2, 2, 2, 4),
      id="conv2d_grouped"),
    C(lambda x, w: tf.nn.conv3d(x, w, [1, 2, 1, 2, 1], "SAME"), rand(1, 3, 2, 3, 2),
      rand(2, 2, 2, 2, 1), id="conv3d_same_strided"),
    C(lambda x, w: tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID"), rand(1, 3, 3, 3, 1),
      rand(2, 2, 2, 1, 2), id="conv3d"),
    C(lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"), distinct(1, 4, 4, 2), order=1,
      id="max_pool"),
    C(lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"), distinct(1, 5, 5, 1), order=1,
      id="max_pool_same"),
    C(lambda x: tf.nn.avg_pool2d(x, 2, 1, "SAME"), rand(1, 3, 3, 2), id="avg_pool_same"),
    C(lambda x: tf.nn.max_pool3d(x, 2, 1, "VALID"), distinct(1, 3, 3, 3, 1), order=1,
      id="max_pool3d"),
    C(lambda x: tf.nn.avg_pool3d(x, 2, 2, "VALID"), rand(1, 4, 2, 2, 1), id="avg_pool3d"),
]


def _grad_of(fn, wrt):
    """The gradient of ``fn(*args)`` with respect to argument ``wrt``, with the cotangent as
    the last argument: a computation made of the gradient ops (Conv2DBackpropFilter ...)."""

    def grad(*args):
        *xs, dy = args
        with tf.GradientTape() as tape:
            tape.watch(xs[wrt])
            y = fn(*xs)
        return tape.gradient(y, xs[wrt], output_gradients=dy)

    return grad


def _grad_grad_of(pool):
    """MaxPoolGrad's gradient with respect to its cotangent: MaxPoolGradGrad."""

    def grad(x, dy, v):
        with tf.GradientTape() as outer:
            outer.watch(dy)
            g = _grad_of(pool, 0)(x, dy)
        return outer.gradient(g, dy, output_gradients=v)

    return grad


_MAX2 = lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME")  # noqa: E731
_MAX3 = lambda x: tf.nn.max_pool3d(x, 2, 1, "VALID")  # noqa: E731
GRAD_OPS = [  # TF's gradient ops, differentiated in turn (second order of the forward ops)
    C(lambda dy, w: tf.nn.conv2d_transpose(dy, w, [1, 5, 4, 2], 2, "SAME"), rand(1, 3, 2, 3),
      rand(3, 3, 2, 3), id="conv2d_backprop_input"),
    C(_grad_of(lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"), 1), rand(1, 5, 4, 2),
      rand(3, 3, 2, 3), rand(1, 3, 2, 3), id="conv2d_backprop_filter"),
    C(lambda dy, w: tf.nn.conv3d_transpose(dy, w, [1, 3, 3, 3, 1], [1, 1, 1, 1, 1], "VALID"),
      rand(1, 2, 2, 2, 2), rand(2, 2, 2, 1, 2), id="conv3d_backprop_input"),
    C(_grad_of(lambda x, w: tf.nn.conv3d(x, w, [1] * 5, "VALID"), 1), rand(1, 3, 3, 3, 1),
      rand(2, 2, 2, 1, 2), rand(1, 2, 2, 2, 2), id="conv3d_backprop_filter"),
    C(_grad_of(lambda x, w: tf.nn.depthwise_conv2d(x, w, [1] * 4, "SAME"), 0), rand(1, 3, 3, 2),
      rand(2, 2, 2, 2), rand(1, 3, 3, 4), id="depthwise_backprop_input"),
    C(_grad_of(lambda x, w: tf.nn.depthwise_conv2d(x, w, [1] * 4, "VALID"), 1),
      rand(1, 3, 3, 2), rand(2, 2, 2, 2), rand(1, 2, 2, 4), id="depthwise_backprop_filter"),
    C(_grad_of(_MAX2, 0), distinct(1, 3, 3, 2), rand(1, 2, 2, 2), order=1,
      id="max_pool_grad"),
    C(_grad_grad_of(_MAX2), distinct(1, 3, 3, 2), rand(1, 2, 2, 2), rand(1, 3, 3, 2), order=1,
      id="max_pool_grad_grad"),
    C(_grad_of(_MAX3, 0), distinct(1, 3, 3, 2, 1), rand(1, 2, 2, 1, 1), order=1,
      id="max_pool3d_grad"),
    C(_grad_grad_of(_MAX3), distinct(1, 3, 3, 2, 1), rand(1, 2, 2, 1, 1), rand(1, 3, 3, 2, 1),
      order=1, id="max_pool3d_grad_grad"),
    C(_grad_of(lambda x: tf.nn.avg_pool2d(x, 2, 1, "SAME"), 0), rand(1, 3, 3, 2),
      rand(1, 3, 3, 2), id="avg_pool_grad"),
    C(_grad_of(lambda x: tf.nn.avg_pool3d(x, 2, 2, "VALID"), 0), rand(1, 4, 2, 2, 1),
      rand(1, 2, 1, 1, 1), id="avg_pool3d_grad"),
]
CASES += CONV + GRAD_OPS
CASES.append(C(lambda x: tf.nn.ctc_loss(labels=np.array([[1, 2], [2, 2]]), logits=x,
                                        label_length=[2, 2], logit_length=[5, 4],
                                        blank_index=0),
               rand(5, 2, 3), order=1, id="ctc_loss"))


def _modes():
    for case in CASES:
        for mode in ("eager", "graph") + (("dynamic",) if case.dynamic else ()):
            yield pytest.param(case, mode, id=f"{case}-{mode}")


@pytest.mark.parametrize("case,mode", list(_modes()))
def test_first_order(case, mode):
    check(case, mode, order=1)


@pytest.mark.parametrize("case", [c for c in CASES if c.order == 2], ids=str)
def test_second_order(case):
    check(case, "eager", order=2)


def test_dropout_gradient_scales_the_kept_elements():
    x = tf.constant(np.arange(1.0, 101.0))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, 0.5, seed=1)
    g = tape.gradient(y, x).numpy()
    kept = y.numpy() != 0
    assert 20 < kept.sum() < 80
    assert np.all(g[kept] == 2.0) and np.all(g[~kept] == 0.0)


def test_softmax_xent_second_order_ignores_the_labels_as_tf_does():
    x = tf.constant(rand(2, 3))
    z = tf.constant(np.eye(3)[[1, 2]])
    with tf.GradientTape() as outer:
        outer.watch([x, z])
        with tf.GradientTape() as inner:
            inner.watch([x, z])
            loss = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(z, x))
        gx = inner.gradient(loss, x)
        total = tf.reduce_sum(gx * x)
    _, gz = outer.gradient(total, [x, z])
    assert gz.numpy().tolist() == [[0.0] * 3] * 2


def test_values_pinned_against_tensorflow():
    x = tf.constant(np.ones((1, 2, 3, 1)))
    with tf.GradientTape() as tape:  # ties in a max pool: the first maximum takes it all
        tape.watch(x)
        y = tf.nn.max_pool2d(x, 2, 1, "VALID")
    assert tape.gradient(y, x).numpy().ravel().tolist() == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    x = tf.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.norm(x, ord=np.inf, axis=[0, 1])
    assert tape.gradient(y, x).numpy().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    x = tf.constant(np.zeros(3))
    with tf.GradientTape() as tape:  # the euclidean norm at 0: nan, as TF's sqrt composition
        tape.watch(x)
        y = tf.norm(x)
    assert np.isnan(tape.gradient(y, x).numpy()).all()
