"""Ragged elements in tf.data: slices of a RaggedTensor, batch/unbatch, map, ragged_batch and
the deprecated dense_to_ragged_batch, pinned to TF 2.21's element specs and values."""

import re

import pytest

import tensortrace as tf


def _rt():
    return tf.ragged.constant([[1, 2], [3], [4, 5, 6], []])


def test_slices_batch_unbatch():
    ds = tf.data.Dataset.from_tensor_slices(_rt())
    assert repr(ds.element_spec) == "RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64)"
    assert [x.numpy().tolist() for x in ds] == [[1, 2], [3], [4, 5, 6], []]
    batched = ds.batch(2)
    assert repr(batched.element_spec) == (
        "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)")
    assert [repr(x) for x in batched] == ["<tf.RaggedTensor [[1, 2], [3]]>",
                                         "<tf.RaggedTensor [[4, 5, 6], []]>"]
    assert [x.numpy().tolist() for x in batched.unbatch()] == [[1, 2], [3], [4, 5, 6], []]
    assert batched.unbatch().element_spec == ds.element_spec
    d = tf.data.Dataset.from_tensor_slices({"a": _rt(), "b": [1, 2, 3, 4]})
    assert str(d.element_spec) == (
        "{'a': RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64), "
        "'b': TensorSpec(shape=(), dtype=tf.int32, name=None)}")
    first, second = list(d.batch(3))
    assert first["a"].to_list() == [[1, 2], [3], [4, 5, 6]] and second["a"].to_list() == [[]]
    assert second["b"].numpy().tolist() == [4]
    r3 = tf.ragged.constant([[[1], [2, 3]], [[4]]])
    sliced = tf.data.Dataset.from_tensor_slices(r3)
    assert [x.to_list() for x in sliced] == [[[1], [2, 3]], [[4]]]
    assert repr(sliced.element_spec) == (
        "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)")
    whole = tf.data.Dataset.from_tensors(_rt())
    assert repr(whole.element_spec) == (
        "RaggedTensorSpec(TensorShape([4, None]), tf.int32, 1, tf.int64)")
    assert [x.to_list() for x in whole] == [[[1, 2], [3], [4, 5, 6], []]]


def test_map_on_ragged_elements():
    ds = tf.data.Dataset.from_tensor_slices(_rt())
    assert [x.numpy().tolist() for x in ds.map(lambda x: x * 2)] == [[2, 4], [6], [8, 10, 12], []]
    m = ds.batch(2).map(lambda x: x + 1)
    assert repr(m.element_spec) == (
        "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)")
    assert [x.to_list() for x in m] == [[[2, 3], [4]], [[5, 6, 7], []]]


def test_ragged_batch():
    ranges = tf.data.Dataset.range(4).map(lambda x: tf.range(x))
    batched = ranges.ragged_batch(2)
    assert repr(batched.element_spec) == (
        "RaggedTensorSpec(TensorShape([None, None]), tf.int64, 1, tf.int64)")
    assert [repr(x) for x in batched] == ["<tf.RaggedTensor [[], [0]]>",
                                         "<tf.RaggedTensor [[0, 1], [0, 1, 2]]>"]
    old = ranges.apply(tf.data.experimental.dense_to_ragged_batch(2))
    assert [x.to_list() for x in old] == [[[], [0]], [[0, 1], [0, 1, 2]]]
    dropped = tf.data.Dataset.from_tensor_slices(_rt()).ragged_batch(3, drop_remainder=True)
    assert [x.to_list() for x in dropped] == [[[1, 2], [3], [4, 5, 6]]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(
            "Cannot add tensor to the batch: number of elements does not match. Shapes are: "
            "[tensor]: [1], [batch]: [0]")):
        list(ranges.batch(2))
