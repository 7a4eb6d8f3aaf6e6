"""tf.RaggedTensor: constructors, validation errors, accessors, conversions, printing and
indexing, pinned to what TF 2.21 prints and raises."""

import re

import numpy as np
import pytest

import tensortrace as tf

R = tf.RaggedTensor
E = tf.errors.InvalidArgumentError


def test_repr_and_str_as_tf():
    rt = R.from_row_splits([1, 2, 3, 4], [0, 2, 4])
    assert repr(rt) == "<tf.RaggedTensor [[1, 2],\n [3, 4]]>" == str(rt)
    assert repr(tf.ragged.constant([[[1, 2], [3]], [[4]]])) == (
        "<tf.RaggedTensor [[[1, 2], [3]], [[4]]]>")
    assert repr(tf.ragged.constant([[b"a"], []])) == "<tf.RaggedTensor [[b'a'], []]>"
    assert repr(tf.ragged.constant([[1.5, 2.0], [3.0]])) == "<tf.RaggedTensor [[1.5, 2.0], [3.0]]>"
    assert repr(tf.ragged.constant([[True], [False, True]])) == (
        "<tf.RaggedTensor [[True], [False, True]]>")

    @tf.function
    def f(x):
        f.text = str(x)
        return x

    f(rt)
    assert f.text == ('tf.RaggedTensor(values=Tensor("x:0", shape=(None,), dtype=int32), '
                      'row_splits=Tensor("x_1:0", shape=(3,), dtype=int64))')


def test_constructors():
    assert R.from_row_lengths([1, 2, 3], [2, 0, 1]).to_list() == [[1, 2], [], [3]]
    assert R.from_value_rowids([1, 2, 3], [0, 0, 2], nrows=4).to_list() == [[1, 2], [], [3], []]
    assert R.from_row_starts([1, 2, 3], [0, 2]).to_list() == [[1, 2], [3]]
    assert R.from_row_limits([1, 2, 3], [1, 3]).to_list() == [[1], [2, 3]]
    u = R.from_uniform_row_length([1, 2, 3, 4], 2)
    assert u.shape == [2, 2] and u.to_list() == [[1, 2], [3, 4]]
    nested = R.from_nested_row_splits([1, 2, 3, 4], [[0, 2, 3], [0, 2, 3, 4]])
    assert nested.to_list() == [[[1, 2], [3]], [[4]]] and nested.shape.as_list() == [2, None, None]
    assert R.from_nested_row_lengths([1, 2, 3], [[1, 1], [2, 1]]).to_list() == [[[1, 2]], [[3]]]
    assert R.from_nested_value_rowids([1, 2, 3], [[0, 1], [0, 0, 1]]).to_list() == [
        [[1, 2]], [[3]]]
    assert R.from_tensor([[1, 2, 0], [3, 0, 0]], padding=0).to_list() == [[1, 2], [3]]
    assert R.from_tensor([[1, 2, 0], [3, 0, 0]], lengths=[1, 3]).to_list() == [[1], [3, 0, 0]]
    assert R.from_tensor([[[1, 2], [3, 0]], [[5, 0], [0, 0]]], padding=0,
                         ragged_rank=2).to_list() == [[[1, 2], [3]], [[5], []]]
    dense = R.from_tensor([[1, 2], [3, 4]])
    assert dense.shape == [2, 2] and dense.row_splits.numpy().tolist() == [0, 2, 4]


@pytest.mark.parametrize("args, error, text", [
    (([1, 2, 3], [0, 2, 1]), E, "Arguments to from_row_splits do not form a valid RaggedTensor:"
     "monotonic.  \nCondition x >= 0 did not hold element-wise:\nx (shape=(2,) dtype=int64) = "
     "\n['2', '-1']"),
    (([1, 2, 3], [1, 2, 3]), E, "Arguments to from_row_splits do not form a valid RaggedTensor:"
     "zero\nCondition x == y did not hold.\nFirst 1 elements of x:\n[1]\nFirst 1 elements of y:"
     "\n[0]"),
    (([1, 2, 3], [0, 2, 4]), E, "Arguments to _from_row_partition do not form a valid "
     "RaggedTensor\nCondition x == y did not hold.\nFirst 1 elements of x:\n[4]\nFirst 1 "
     "elements of y:\n[3]"),
    (([1, 2, 3], []), ValueError, "row_splits tensor may not be empty."),
    (([1, 2, 3], [[0, 3]]), ValueError, "Shape (1, 2) must have rank 1"),
])
def test_row_splits_errors(args, error, text):
    with pytest.raises(error, match="^" + re.escape(text) + "$"):
        R.from_row_splits(*args)


def test_other_constructor_errors():
    with pytest.raises(E, match=re.escape(
            "Arguments to from_value_rowids do not form a valid RowPartition.  \nCondition x >= "
            "0 did not hold element-wise:\nx (shape=(2,) dtype=int64) = \n['2', '-1']")):
        R.from_value_rowids([1, 2, 3], [0, 2, 1])
    with pytest.raises(E, match=re.escape(
            "Arguments to from_row_lengths do not form a valid RowPartition.  \nCondition x >= 0"
            " did not hold element-wise:\nx (shape=(2,) dtype=int64) = \n['-1', '4']")):
        R.from_row_lengths([1, 2, 3], [-1, 4])
    with pytest.raises(ValueError, match=re.escape(
            "Expected nrows >= value_rowids[-1] + 1; got nrows=1, value_rowids[-1]=1")):
        R.from_value_rowids([1, 2, 3], [0, 1, 1], 1)
    with pytest.raises(ValueError, match=re.escape(
            "uniform_row_length=2 times nrows=1 must equal nvals=3")):
        R.from_uniform_row_length([1, 2, 3], 2)
    with pytest.raises(E, match="^Arguments to from_row_starts do not form a valid RaggedTensor"):
        R.from_row_starts([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="RaggedTensor constructor is private"):
        R([1], [0, 1])


def test_accessors():
    rt = tf.ragged.constant([[1, 2], [3]])
    assert rt.shape.as_list() == [2, None] and rt.dtype == tf.int32 and rt.ragged_rank == 1
    assert rt.row_splits.numpy().tolist() == [0, 2, 3]
    assert rt.row_lengths().numpy().tolist() == [2, 1]
    assert rt.row_starts().numpy().tolist() == [0, 2]
    assert rt.row_limits().numpy().tolist() == [2, 3]
    assert rt.value_rowids().numpy().tolist() == [0, 0, 1]
    assert int(rt.nrows()) == 2 and rt.nrows().dtype == tf.int64
    assert rt.bounding_shape().numpy().tolist() == [2, 2]
    r3 = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    assert r3.values.to_list() == [[1, 2], [3], [4]]
    assert r3.flat_values.numpy().tolist() == [1, 2, 3, 4]
    assert [s.numpy().tolist() for s in r3.nested_row_splits] == [[0, 2, 3], [0, 2, 3, 4]]
    assert r3.merge_dims(1, 2).to_list() == [[1, 2, 3], [4]]
    assert r3.merge_dims(0, 1).to_list() == [[1, 2], [3], [4]]
    assert r3.merge_dims(0, 2).numpy().tolist() == [1, 2, 3, 4]
    assert r3.with_flat_values(r3.flat_values * 10).to_list() == [[[10, 20], [30]], [[40]]]
    assert rt.with_row_splits_dtype(tf.int32).row_splits.dtype == tf.int32


def test_to_tensor_and_numpy():
    rt = R.from_row_splits([1, 2, 3, 4], [0, 2, 4])
    np.testing.assert_array_equal(rt.to_tensor().numpy(), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(rt.to_tensor(default_value=9, shape=[3, 3]).numpy(),
                                  [[1, 2, 9], [3, 4, 9], [9, 9, 9]])
    r3 = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    np.testing.assert_array_equal(r3.to_tensor().numpy(), [[[1, 2], [3, 0]], [[4, 0], [0, 0]]])
    assert rt.numpy().tolist() == [[1, 2], [3, 4]]
    ragged = r3.numpy()
    assert ragged.dtype == object and [r.tolist() for r in ragged[0]] == [[1, 2], [3]]


def test_getitem_as_tf():
    rt = tf.ragged.constant([["a", "b", "c"], ["d", "e"], ["f"], ["g"]])
    assert rt[0].numpy().tolist() == [b"a", b"b", b"c"]
    assert rt[:3].to_list() == [[b"a", b"b", b"c"], [b"d", b"e"], [b"f"]]
    assert rt[3, 0].numpy() == b"g"
    rt = tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]], [[7]], [[8, 9], [10]]])
    assert rt[1].to_list() == [[5], [], [6]]
    assert rt[3, 0].numpy().tolist() == [8, 9]
    assert rt[:, 1:3].to_list() == [[[4]], [[], [6]], [], [[10]]]
    assert rt[:, -1:].to_list() == [[[4]], [[6]], [[7]], [[10]]]
    assert rt[::2].to_list() == [[[1, 2, 3], [4]], [[7]]]
    assert rt[:, ::-1].to_list() == [[[4], [1, 2, 3]], [[6], [], [5]], [[7]], [[10], [8, 9]]]
    assert rt[..., :1].to_list() == [[[1], [4]], [[5], [], [6]], [[7]], [[8], [10]]]
    assert rt[tf.newaxis].shape.as_list() == [1, 4, None, None]
    assert rt[:, tf.newaxis].shape.as_list() == [4, 1, None, None]
    with pytest.raises(ValueError, match="^Cannot index into an inner ragged dimension.$"):
        rt[:, 0]
    with pytest.raises(IndexError, match="^Row key 5 out of bounds$"):
        rt[5]
    u = R.from_uniform_row_length(tf.range(6), 3)
    assert u[:, 1].numpy().tolist() == [1, 4] and u[:, -1].numpy().tolist() == [2, 5]
    assert u[1:].to_list() == [[3, 4, 5]]


def test_ragged_namespace_functions():
    assert tf.ragged.constant([[], []]).dtype == tf.float32
    assert tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1).shape.as_list() == [
        2, None, 2]
    with pytest.raises(ValueError, match="all scalar values must have the same nesting depth"):
        tf.ragged.constant([[1, [2]]])
    assert tf.ragged.range([3, 0, 2]).to_list() == [[0, 1, 2], [], [0, 1]]
    assert tf.ragged.range([0, 5], [4, 9], 2).to_list() == [[0, 2], [5, 7]]
    assert tf.ragged.range([1.0, 2.0], [2.0, 3.5], 0.5).to_list() == [[1.0, 1.5],
                                                                     [2.0, 2.5, 3.0]]
    rt = tf.ragged.constant([[1, 2, 3], [4], [5, 6]])
    assert tf.ragged.stack([rt, rt]).to_list() == [[[1, 2, 3], [4], [5, 6]]] * 2
    assert tf.ragged.stack([rt, rt], axis=1).to_list() == [
        [[1, 2, 3], [1, 2, 3]], [[4], [4]], [[5, 6], [5, 6]]]
    mask = tf.ragged.constant([[True, False, True], [False], [True, True]])
    assert tf.ragged.boolean_mask(rt, mask).to_list() == [[1, 3], [], [5, 6]]
    assert tf.ragged.boolean_mask([[1, 2], [3, 4]], [[True, False], [False, True]]).to_list() == [
        [1], [4]]
    assert tf.ragged.boolean_mask(rt, [True, False, True]).to_list() == [[1, 2, 3], [5, 6]]
    assert tf.ragged.map_flat_values(tf.ones_like, rt).to_list() == [[1, 1, 1], [1], [1, 1]]
    assert tf.ragged.row_splits_to_segment_ids([0, 2, 2, 3]).numpy().tolist() == [0, 0, 2]
    assert tf.ragged.segment_ids_to_row_splits([0, 0, 2]).numpy().tolist() == [0, 2, 2, 3]


def test_sparse_conversions():  # TF 2.21's values and errors
    st = tf.ragged.constant([[[1, 2], [3]], [[4]]]).to_sparse()
    assert st.indices.numpy().tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0]]
    assert st.values.numpy().tolist() == [1, 2, 3, 4] and st.dense_shape.numpy().tolist() == [
        2, 2, 2]
    inner = R.from_row_splits([[1, 2], [3, 4], [5, 6]], [0, 2, 3]).to_sparse()
    assert inner.indices.numpy().tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1],
                                              [1, 0, 0], [1, 0, 1]]
    sparse = tf.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], [1, 2, 3], [4, 3])
    assert repr(R.from_sparse(sparse)) == "<tf.RaggedTensor [[1, 2], [], [3], []]>"
    with pytest.raises(E, match=re.escape(
            "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
            "b'SparseTensor is not right-ragged'\nb'SparseTensor.indices ='\n0, 1")):
        R.from_sparse(tf.sparse.SparseTensor([[0, 1]], [1], [2, 3]))
    with pytest.raises(ValueError, match=r"^rank\(st_input\) must be 2.$"):
        R.from_sparse(tf.sparse.SparseTensor([[0, 1, 1]], [1], [2, 3, 3]))
