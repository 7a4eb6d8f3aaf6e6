"""tf.nn.embedding_lookup_sparse and tf.nn.safe_embedding_lookup_sparse: the values, dtypes,
shapes, gradients and errors TF 2.21 gives (recorded from TF on the same inputs)."""

import numpy as np
import pytest

import tensortrace as tf

P = np.arange(12, dtype=np.float32).reshape(4, 3)


def _ids():
    return tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 3]],
                           tf.constant([1, 3, 0, 1], tf.int64), [3, 4])


def _weights():
    return tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 3]], [2.0, 0.5, 1.0, 3.0], [3, 4])


def _bad_ids():
    """An id < 0, a weight < 0, and rows 1 and 3 empty."""
    return (tf.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 3]],
                            tf.constant([1, -1, 0, 2], tf.int64), [4, 4]),
            tf.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 3]], [2.0, 0.5, -1.0, 3.0], [4, 4]))


WEIGHTED = {
    "sum": [[10.5, 13.0, 15.5], [0.0, 1.0, 2.0], [9.0, 12.0, 15.0]],
    "mean": [[4.2, 5.2, 6.2], [0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
    "sqrtn": [[5.09324836730957, 6.305926322937012, 7.518604755401611], [0.0, 1.0, 2.0],
              [3.0, 4.0, 5.0]],
}
UNWEIGHTED = {
    "sum": [[12.0, 14.0, 16.0], [0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
    "mean": [[6.0, 7.0, 8.0], [0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
    "sqrtn": [[8.485280990600586, 9.899495124816895, 11.313708305358887], [0.0, 1.0, 2.0],
              [3.0, 4.0, 5.0]],
}


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_embedding_lookup_sparse_combiners(combiner):
    out = tf.nn.embedding_lookup_sparse(P, _ids(), _weights(), combiner=combiner)
    np.testing.assert_allclose(out.numpy(), WEIGHTED[combiner], rtol=1e-6)
    out = tf.nn.embedding_lookup_sparse(P, _ids(), None, combiner=combiner)
    np.testing.assert_allclose(out.numpy(), UNWEIGHTED[combiner], rtol=1e-6)


def test_embedding_lookup_sparse_shards_ragged_max_norm_dtypes():
    out = tf.nn.embedding_lookup_sparse([P[:2], P[2:]], _ids(), _weights(), combiner="sum")
    np.testing.assert_allclose(out.numpy(), WEIGHTED["sum"])
    ragged = tf.ragged.constant([[1, 3], [0], [1]], dtype=tf.int64)
    out = tf.nn.embedding_lookup_sparse(P, ragged, None, combiner="sum")
    np.testing.assert_allclose(out.numpy(), UNWEIGHTED["sum"])
    out = tf.nn.embedding_lookup_sparse(P, _ids(), _weights(), combiner="mean", max_norm=2.0)
    np.testing.assert_allclose(out.numpy(), [
        [0.8859792947769165, 1.1352708339691162, 1.384562373161316],
        [0.0, 0.8944271802902222, 1.7888543605804443],
        [0.8485281467437744, 1.1313709020614624, 1.4142135381698608]], rtol=1e-6)
    half = tf.constant(P, tf.float16)
    assert tf.nn.embedding_lookup_sparse(half, _ids(), _weights()).dtype == tf.float16
    int32_ids = tf.SparseTensor([[0, 0], [1, 0]], tf.constant([1, 3], tf.int32), [2, 4])
    out = tf.nn.embedding_lookup_sparse(P, int32_ids, None)  # the default combiner is mean
    np.testing.assert_array_equal(out.numpy(), [[3.0, 4.0, 5.0], [9.0, 10.0, 11.0]])


def test_embedding_lookup_sparse_errors():
    with pytest.raises(ValueError, match="combiner must be one of 'mean', 'sqrtn' or 'sum', "
                                         "got max"):
        tf.nn.embedding_lookup_sparse(P, _ids(), _weights(), combiner="max")
    with pytest.raises(TypeError, match="sp_ids must be SparseTensor, got"):
        tf.nn.embedding_lookup_sparse(P, tf.constant([[1]]), None)
    with pytest.raises(TypeError, match="sp_weights must be either None or SparseTensor,got"):
        tf.nn.embedding_lookup_sparse(P, _ids(), tf.constant([[1.0]]))
    with pytest.raises(ValueError, match=r"Missing embedding_weights \[\]\."):
        tf.nn.safe_embedding_lookup_sparse([], _ids())


SAFE_WEIGHTED = {
    "sum": [[6.0, 8.0, 10.0], [0.0, 0.0, 0.0], [18.0, 20.0, 22.0], [0.0, 0.0, 0.0]],
    "mean": [[3.0, 4.0, 5.0], [0.0, 0.0, 0.0], [6.0, 7.0, 8.0], [0.0, 0.0, 0.0]],
    "sqrtn": [[3.0, 4.0, 5.0], [0.0, 0.0, 0.0], [6.0, 7.0, 8.0], [0.0, 0.0, 0.0]],
}
SAFE_DEFAULT_ID = {
    "sum": [[3.0, 4.0, 5.0], [9.0, 10.0, 11.0], [6.0, 8.0, 10.0], [9.0, 10.0, 11.0]],
    "mean": [[3.0, 4.0, 5.0], [9.0, 10.0, 11.0], [3.0, 4.0, 5.0], [9.0, 10.0, 11.0]],
    "sqrtn": [[3.0, 4.0, 5.0], [9.0, 10.0, 11.0],
              [4.242640495300293, 5.656854152679443, 7.071067810058594], [9.0, 10.0, 11.0]],
}


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_safe_embedding_lookup_sparse_prunes_and_fills(combiner):
    ids, weights = _bad_ids()
    out = tf.nn.safe_embedding_lookup_sparse(P, ids, weights, combiner=combiner)
    np.testing.assert_allclose(out.numpy(), SAFE_WEIGHTED[combiner], rtol=1e-6)
    out = tf.nn.safe_embedding_lookup_sparse(P, ids, None, combiner=combiner, default_id=3)
    np.testing.assert_allclose(out.numpy(), SAFE_DEFAULT_ID[combiner], rtol=1e-6)


def test_safe_embedding_lookup_sparse_higher_rank_gradient_and_function():
    ids = tf.SparseTensor([[0, 0, 0], [0, 1, 1], [1, 1, 0]], tf.constant([1, 2, 3], tf.int64),
                          [2, 2, 2])
    out = tf.nn.safe_embedding_lookup_sparse(P, ids)
    expected = [[[3.0, 4.0, 5.0], [6.0, 7.0, 8.0]], [[0.0, 0.0, 0.0], [9.0, 10.0, 11.0]]]
    np.testing.assert_array_equal(out.numpy(), expected)
    traced = tf.function(lambda p: tf.nn.safe_embedding_lookup_sparse(p, ids))
    np.testing.assert_array_equal(traced(tf.constant(P)).numpy(), expected)
    table = tf.Variable(P)
    bad, weights = _bad_ids()
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(tf.nn.safe_embedding_lookup_sparse(table, bad, weights))
    grad = tf.convert_to_tensor(tape.gradient(total, table))
    np.testing.assert_allclose(grad.numpy(), [[0.0] * 3, [1.0] * 3, [1.0] * 3, [0.0] * 3])
