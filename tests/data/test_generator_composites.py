"""Dataset.from_generator with composite specs in ``output_signature`` (SparseTensorSpec,
OptionalSpec): the elements come back as composites, and a mismatch gives TF 2.21's messages."""

import numpy as np
import pytest

import tensortrace as tf


def test_generator_yields_sparse_tensors():
    def gen():
        for i in range(2):
            yield tf.SparseTensor([[0, 1]], [1.0 + i], [2, 4]), tf.ones([2, 3])

    ds = tf.data.Dataset.from_generator(gen, output_signature=(
        tf.SparseTensorSpec([None, 4], tf.float32), tf.TensorSpec([None, 3], tf.float32)))
    assert repr(ds.element_spec) == (
        "(SparseTensorSpec(TensorShape([None, 4]), tf.float32), "
        "TensorSpec(shape=(None, 3), dtype=tf.float32, name=None))")
    got = [(x.indices.numpy().tolist(), x.values.numpy().tolist(), x.dense_shape.numpy().tolist())
           for x, _ in ds]
    assert got == [([[0, 1]], [1.0], [2, 4]), ([[0, 1]], [2.0], [2, 4])]


def test_generator_yields_empty_optionals():
    def gen():
        yield tf.ones([2]), tf.experimental.Optional.empty(None)

    ds = tf.data.Dataset.from_generator(gen, output_signature=(
        tf.TensorSpec([None]), tf.OptionalSpec(None)))
    (value, optional), = list(ds)
    np.testing.assert_array_equal(value.numpy(), [1.0, 1.0])
    assert not bool(optional.has_value())


def _first(spec):
    ds = tf.data.Dataset.from_generator(lambda: [(tf.ones([2]), tf.ones([2]))],
                                        output_signature=(tf.TensorSpec([None]), spec))
    return next(iter(ds))


def test_generator_composite_mismatches_as_tf_words_them():
    dense = "TensorSpec(shape=(None,), dtype=tf.float32, name=None)"
    given = "TensorSpec(shape=(2,), dtype=tf.float32, name=None)"
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _first(tf.OptionalSpec(None))
    assert str(info.value).startswith(
        f"TypeError: `generator` yielded an element of ({given}, {given}) where an element of "
        f"({dense}, OptionalSpec(None,)) was expected.")
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _first(tf.SparseTensorSpec([None], tf.float32))
    assert str(info.value).startswith(
        "TypeError: `generator` yielded an element that did not match the expected structure. "
        f"The expected structure was ({dense}, SparseTensorSpec(TensorShape([None]), "
        "tf.float32)), but the yielded element was (<tf.Tensor: shape=(2,)")
    ds = tf.data.Dataset.from_generator(lambda: [1], output_signature=(
        tf.TensorSpec([None]), tf.TensorSpec([None])))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        next(iter(ds))
    assert str(info.value).startswith(
        "TypeError: `generator` yielded an element that did not match the expected structure. "
        f"The expected structure was ({dense}, {dense}), but the yielded element was 1.")
