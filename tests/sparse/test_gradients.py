"""Gradients of the sparse ops (TF's sparse_grad.py rules) against central finite differences,
and the IndexedSlices gradient of a gather (TF's rule for axis 0)."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.context import bind
from tensortrace.ops.sparse.arithmetic import SparseDenseCwiseAdd

S = tf.sparse.SparseTensor
RNG = np.random.default_rng(7)
IDX = [[0, 1], [1, 0], [2, 3]]
VALS = RNG.normal(size=3)
WEIGHTS = RNG.normal(size=(3, 4))


def _cwise_add(a, b):
    """SparseDenseCwiseAdd (only TF's softmax gradient uses it): a + dense(b) at a's entries."""
    values = bind(SparseDenseCwiseAdd, a.indices, a.values, a.dense_shape,
                  tf.sparse.to_dense(b))
    return S(a.indices, values, a.dense_shape)


def numeric(f, x, eps=1e-6):
    x = np.array(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def analytic(f, *xs):
    ts = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return [g.numpy() for g in tape.gradient(y, ts)]


def check(f, *xs):
    grads = analytic(f, *xs)
    for k, (x, g) in enumerate(zip(xs, grads)):
        def one(v, k=k):
            args = [tf.constant(a) for a in xs]
            args[k] = tf.constant(v)
            return f(*args).numpy()
        np.testing.assert_allclose(g, numeric(one, x), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("adjoint_a,adjoint_b", [(False, False), (True, False), (False, True),
                                                 (True, True)])
def test_sparse_dense_matmul_values_and_dense(adjoint_a, adjoint_b):
    indices, shape = ([[0, 1], [1, 0], [3, 2]], [4, 3]) if adjoint_a else (IDX, [3, 4])
    b = RNG.normal(size=(2, 4) if adjoint_b else (4, 2))
    w = RNG.normal(size=(3, 2))

    def f(v, dense):
        out = tf.sparse.sparse_dense_matmul(S(indices, v, shape), dense, adjoint_a=adjoint_a,
                                            adjoint_b=adjoint_b)
        return tf.reduce_sum(out * w)

    check(f, VALS, b)


def _weighted(make):
    def f(v):
        out = make(v)
        dense = tf.sparse.to_dense(out) if isinstance(out, S) else out
        return tf.reduce_sum(dense * np.resize(WEIGHTS, dense.shape))
    return f


@pytest.mark.parametrize("name,make", [
    ("reduce_sum", lambda v: tf.sparse.reduce_sum(S(IDX, v, [3, 4]), axis=0)),
    ("reduce_sum_keepdims", lambda v: tf.sparse.reduce_sum(S(IDX, v, [3, 4]), 1, keepdims=True)),
    ("reduce_sum_all", lambda v: tf.sparse.reduce_sum(S(IDX, v, [3, 4]))),
    ("to_dense", lambda v: S(IDX, v, [3, 4])),
    ("add", lambda v: tf.sparse.add(S(IDX, v, [3, 4]), S([[0, 1], [2, 2]], [1., 2.], [3, 4]))),
    ("add_dense", lambda v: tf.sparse.add(S(IDX, v, [3, 4]), tf.ones([3, 4], tf.float64))),
    ("reorder", lambda v: tf.sparse.reorder(S([[2, 3], [0, 1], [1, 0]], v, [3, 4]))),
    ("slice", lambda v: tf.sparse.slice(S(IDX, v, [3, 4]), [1, 0], [2, 4])),
    ("softmax", lambda v: tf.sparse.softmax(S([[0, 0], [0, 1], [2, 3]], v, [3, 4]))),
    ("mul", lambda v: S(IDX, v, [3, 4]) * tf.constant([1.5, -2., 0.5, 3.], tf.float64)),
    ("div", lambda v: S(IDX, v, [3, 4]) / tf.constant([[1.5], [-2.], [0.5]], tf.float64)),
    ("fill_empty_rows", lambda v: tf.sparse.fill_empty_rows(
        S([[0, 1], [2, 0], [2, 3]], v, [4, 4]), tf.constant(0.5, tf.float64))[0]),
])
def test_values_gradient(name, make):
    check(_weighted(make), VALS)


@pytest.mark.parametrize("fn", [tf.sparse.segment_sum, tf.sparse.segment_mean,
                                tf.sparse.segment_sqrt_n])
@pytest.mark.parametrize("num_segments", [None, 4])
def test_segment_reductions_gradient(fn, num_segments):
    w = RNG.normal(size=(4 if num_segments else 3, 2))

    def f(data):
        out = fn(data, [2, 0, 2, 1], [0, 0, 2, 2], num_segments=num_segments)
        return tf.reduce_sum(out * w)

    check(f, RNG.normal(size=(3, 2)))


@pytest.mark.parametrize("divide", [False, True])
def test_cwise_dense_operand_gradient(divide):
    def f(d):
        st = S(IDX, tf.constant(VALS), [3, 4])
        out = st / d if divide else st * d
        return tf.reduce_sum(out.values * tf.constant([1., 2., 3.], tf.float64))

    check(f, RNG.normal(size=4) + 3)


def test_fill_empty_rows_default_value_gradient():
    def f(default):
        out, _ = tf.sparse.fill_empty_rows(S([[1, 0]], tf.constant([2.], tf.float64), [3, 2]),
                                           default)
        return tf.reduce_sum(out.values * tf.constant([1., 2., 3.], tf.float64))

    check(f, np.float64(0.25))


@pytest.mark.parametrize("op,name", [(tf.sparse.maximum, "SparseSparseMaximum"),
                                     (tf.sparse.minimum, "SparseSparseMinimum"),
                                     (_cwise_add, "SparseDenseCwiseAdd")])
def test_ops_without_gradient_raise_as_in_tf(op, name):
    v = tf.constant([1., 2.])
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = op(S([[0, 0], [1, 1]], v, [2, 2]), S([[0, 1]], [3.], [2, 2]))
        total = tf.reduce_sum(y.values)
    with pytest.raises(NotImplementedError, match=f"Gradient for {name} is not implemented."):
        tape.gradient(total, v)


@pytest.mark.parametrize("op", [
    lambda st: tf.sparse.reduce_max(st, axis=1),
    lambda st: tf.sparse.reduce_max(st, axis=1, output_is_sparse=True).values,
    lambda st: tf.sparse.reduce_sum(st, axis=1, output_is_sparse=True).values,
    lambda st: tf.sparse.split(sp_input=st, num_split=2, axis=1)[0].values,
])
def test_ops_tf_gives_no_gradient_raise_lookup_error(op):
    v = tf.constant([1., 2.])
    with tf.GradientTape() as tape:
        tape.watch(v)
        total = tf.reduce_sum(op(S([[0, 0], [1, 1]], v, [2, 2])))
    with pytest.raises(LookupError, match="gradient registry has no entry for: Sparse"):
        tape.gradient(total, v)


def test_gradient_wrt_sparse_source_is_sparse():
    st = S(IDX, tf.constant([1., 2., 3.]), [3, 4])
    with tf.GradientTape() as tape:
        tape.watch(st)
        y = tf.reduce_sum(tf.sparse.to_dense(st) * 2.)
    g = tape.gradient(y, st)
    assert isinstance(g, S)
    np.testing.assert_array_equal(g.values.numpy(), [2., 2., 2.])
    np.testing.assert_array_equal(g.indices.numpy(), IDX)


# --- IndexedSlices gradients ---------------------------------------------------------------------
def test_gather_gradient_matches_finite_differences_densified():
    x = RNG.normal(size=(4, 3))
    w = RNG.normal(size=(5, 3))

    def f(p):
        return tf.reduce_sum(tf.gather(p, [3, 0, 3, 1, 0]) * w)

    t = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = f(t)
    g = tape.gradient(y, t)
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [3, 0, 3, 1, 0])
    np.testing.assert_allclose(tf.convert_to_tensor(g).numpy(),
                               numeric(lambda v: f(tf.constant(v)).numpy(), x), rtol=1e-6)


def test_optimizer_style_scatter_sub_with_indexed_slices():
    v = tf.Variable([[1., 2.], [3., 4.], [5., 6.]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.embedding_lookup(v, [2, 0, 2]) ** 2)
    g = tape.gradient(loss, v)
    v.scatter_sub(tf.IndexedSlices(0.1 * g.values, g.indices))
    # rows 2 (twice) and 0: w -= 0.1 * 2w per lookup
    np.testing.assert_allclose(v.numpy(), [[0.8, 1.6], [3., 4.], [3., 3.6]], rtol=1e-6)


def test_gather_gradient_inside_tf_function_and_second_order():
    v = tf.Variable([[1., 2.], [3., 4.], [5., 6.]])

    @tf.function
    def grads():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather(v, [0, 2, 0]) ** 2)
        return tape.gradient(y, v)

    g = grads()
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_allclose(g.values.numpy(), [[2., 4.], [10., 12.], [2., 4.]])
    x = tf.constant([[1., 2.], [3., 4.]])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.gather(x, [1, 1]) ** 3)
        first = tf.convert_to_tensor(inner.gradient(y, x))
        total = tf.reduce_sum(first)
    second = outer.gradient(total, x)  # through the densifying segment sum: a gather again
    assert isinstance(second, tf.IndexedSlices)
    np.testing.assert_allclose(tf.convert_to_tensor(second).numpy(), [[0., 0.], [36., 48.]])
