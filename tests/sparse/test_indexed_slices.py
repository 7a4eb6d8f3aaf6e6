"""tf.IndexedSlices beyond the TF-recorded cases: the traced conversion's memory warning, the
eager-only attributes, and aggregation of IndexedSlices gradients inside a tf.function."""

import warnings

import numpy as np
import pytest

import tensortrace as tf


def test_traced_conversion_of_a_huge_dense_shape_warns_as_tf():
    def densify():
        s = tf.IndexedSlices(tf.constant([[1.]]), tf.constant([0]),
                             tf.constant([100000000, 1]))
        return tf.convert_to_tensor(s)

    with pytest.warns(UserWarning, match="Converting sparse IndexedSlices to a dense Tensor "
                                         "with 100000000 elements. This may consume a large "
                                         "amount of memory."):
        tf.function(densify).get_concrete_function()  # traced only: nothing is allocated


def test_small_or_eager_conversions_do_not_warn():
    s = tf.IndexedSlices(tf.constant([[1.], [2.]]), tf.constant([0, 0]), tf.constant([3, 1]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dense = tf.function(lambda: tf.convert_to_tensor(s))()
    np.testing.assert_array_equal(dense.numpy(), [[3.], [0.], [0.]])


def test_eager_attributes():
    s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([1]), tf.constant([3, 2]))
    assert s.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert s.consumers() == []
    with pytest.raises(AttributeError, match="Tensor.name is undefined when eager execution "
                                             "is enabled."):
        s.name


def test_aggregated_slices_inside_a_function_stay_sparse():
    v = tf.Variable([[1., 2.], [3., 4.], [5., 6.]])

    @tf.function
    def grads():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather(v, [2])) + tf.reduce_sum(tf.gather(v, [0, 2]) * 3.)
        return tape.gradient(y, v)

    g = grads()
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [2, 0, 2])
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(),
                                  [[3., 3.], [0., 0.], [4., 4.]])
