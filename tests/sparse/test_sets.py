"""tf.sets: intersection, union, difference and size over dense tensors and SparseTensors, with
TF 2.21's results, shapes and errors (recorded from TF on the same inputs); and tf.shape, tf.size
and tf.rank of a SparseTensor."""

import numpy as np
import pytest

import tensortrace as tf


def parts(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


A = [[[1, 2], [3, 3]], [[4, 1], [5, 6]]]
B = [[[1, 5, 2], [7, 3, 3]], [[1, 1, 1], [6, 6, 5]]]


def test_dense_sets():
    a, b = tf.constant(A), tf.constant(B)
    assert parts(tf.sets.intersection(a, b)) == (
        [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]], [1, 2, 3, 1, 5, 6],
        [2, 2, 2])
    assert parts(tf.sets.union(a, b)) == (
        [[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 0, 1], [1, 1, 0],
         [1, 1, 1]], [1, 2, 5, 3, 7, 1, 4, 5, 6], [2, 2, 3])
    assert parts(tf.sets.difference(a, b)) == ([[1, 0, 0]], [4], [2, 2, 1])
    assert parts(tf.sets.difference(a, b, aminusb=False)) == (
        [[0, 0, 0], [0, 1, 0]], [5, 7], [2, 2, 1])
    assert parts(tf.sets.intersection(tf.constant([["a", "b"]]), tf.constant([["b", "c"]]))) == \
        ([[0, 0]], [b"b"], [1, 1])
    assert parts(tf.sets.intersection([[1]], [[2]])) == ([], [], [1, 0])
    assert tf.sets.intersection(a, b).shape == (2, 2, 2)


def test_sparse_and_mixed_sets():
    sa = tf.sparse.from_dense(tf.constant([[1, 0, 2], [0, 0, 0], [3, 4, 0]]))
    sb = tf.sparse.from_dense(tf.constant([[2, 0, 0], [5, 0, 0], [4, 0, 0]]))
    assert parts(tf.sets.intersection(sa, sb)) == ([[0, 0], [2, 0]], [2, 4], [3, 1])
    assert parts(tf.sets.union(sa, sb)) == (
        [[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]], [1, 2, 5, 3, 4], [3, 2])
    assert parts(tf.sets.difference(sa, sb)) == ([[0, 0], [2, 0]], [1, 3], [3, 1])
    dense = tf.constant([[2, 9], [5, 5], [4, 4]])
    assert parts(tf.sets.intersection(dense, sa)) == ([[0, 0], [2, 0]], [2, 4], [3, 1])
    assert parts(tf.sets.intersection(sa, dense)) == ([[0, 0], [2, 0]], [2, 4], [3, 1])
    assert parts(tf.sets.difference(sa, dense)) == ([[0, 0], [2, 0]], [1, 3], [3, 1])
    size = tf.sets.size(sa)
    assert size.dtype == tf.int32 and size.numpy().tolist() == [2, 0, 2]
    three = tf.SparseTensor([[0, 0, 0], [0, 1, 1]], [1, 1], [2, 3, 3])
    assert tf.sets.size(three).numpy().tolist() == [[1, 1, 0], [0, 0, 0]]
    x1 = tf.SparseTensor([[0, 1], [1, 2]], [1, 1], [2, 3])
    x2 = tf.SparseTensor([[0, 1], [1, 0]], [1, 1], [2, 3])
    both = tf.sets.intersection(tf.sparse.expand_dims(x1, -1), tf.sparse.expand_dims(x2, -1))
    assert parts(both) == ([[0, 1, 0]], [1], [2, 3, 1])


def test_traced_shapes():
    seen = []

    @tf.function
    def inter(a, b):
        r = tf.sets.intersection(a, b)
        seen.append((r.shape, r.indices.shape, r.values.shape, r.dense_shape.shape))
        return r

    inter.get_concrete_function(tf.TensorSpec([None, None, 2], tf.int32),
                                tf.TensorSpec([None, None, 3], tf.int32))
    assert seen == [((None, None, None), (None, 3), (None,), (3,))]


def test_set_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shape \[2\] has rank 1 < 2"):
        tf.sets.intersection(tf.constant([1, 2]), tf.constant([2]))
    with pytest.raises(TypeError, match="'a' has invalid dtype `<dtype: 'float32'>` not in "
                                        "supported dtypes"):
        tf.sets.intersection(tf.constant([[1.0, 2]]), tf.constant([[2.0]]))
    with pytest.raises(TypeError, match="Types don't match, <dtype: 'int32'> vs "
                                        "<dtype: 'int64'>."):
        tf.sets.intersection(tf.constant([[1, 2]]), tf.constant([[2]], tf.int64))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Mismatched shapes \[1\] vs \[2\]"):
        tf.sets.intersection(tf.constant([[1, 2]]), tf.constant([[2], [3]]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Mismatched shapes \[1\] vs \[1,1\]"):
        tf.sets.intersection(tf.constant([[1, 2]]), tf.constant([[[2]]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Mismatched shapes \[2\] vs \[1\]"):
        tf.sets.intersection(tf.SparseTensor([[0, 0]], [1], [2, 3]),
                             tf.SparseTensor([[0, 0]], [1], [1, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = \[0,0\] is out of "
                                                             "order"):
        tf.sets.intersection(tf.SparseTensor([[0, 1], [0, 0]], [1, 2], [1, 3]),
                             tf.SparseTensor([[0, 0]], [1], [1, 3]))
    with pytest.raises(TypeError, match=r"Expected `SparseTensor`, got tf.Tensor\(\[\[1\]\], "
                                        r"shape=\(1, 1\), dtype=int32\)."):
        tf.sets.size(tf.constant([[1]]))
    np.testing.assert_array_equal(  # unvalidated order is taken as it comes
        tf.sets.size(tf.SparseTensor([[0, 1], [0, 0]], [1, 2], [1, 3]),
                     validate_indices=False).numpy(), [2])


def test_shape_size_rank_of_sparse_tensors():
    """tf.shape/size/rank of a SparseTensor come from its dense_shape (TF's array_ops)."""
    st = tf.SparseTensor([[0, 1]], [1.0], [2, 4])
    shape = tf.shape(st, out_type=tf.int64)
    assert shape.dtype == tf.int64 and shape.numpy().tolist() == [2, 4]
    size = tf.size(st, out_type=tf.int64)
    assert size.dtype == tf.int64 and int(size) == 8
    traced = tf.function(lambda s: (tf.shape(s), tf.size(s), tf.rank(s)))(st)
    assert [t.dtype for t in traced] == [tf.int32] * 3
    assert [t.numpy().tolist() for t in traced] == [[2, 4], 8, 2]
