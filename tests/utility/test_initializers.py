"""The top-level initializers pinned against TensorFlow 2.21."""

import pytest

import tensortrace as tf
from tensortrace import initializers as I


def test_zeros_and_ones():
    z = I.Zeros()([2, 2])
    assert z.dtype == tf.float32 and z.numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert I.Zeros()([2], tf.int32).dtype == tf.int32
    assert I.Zeros()([2], tf.bool).numpy().tolist() == [False, False]
    assert I.Zeros()(shape=[2], dtype=tf.complex64).dtype == tf.complex64
    assert I.Ones()((2,), "float64").numpy().tolist() == [1.0, 1.0]
    assert I.Ones()(tf.constant([2])).numpy().tolist() == [1.0, 1.0]
    assert I.Ones()([2], partition_shape=[1]).shape == (1,)
    with pytest.raises(ValueError, match="expected to be numeric or boolean. Received "
                                         "<dtype: 'string'>"):
        I.Zeros()([2], tf.string)
    with pytest.raises(TypeError, match="Keyword argument should be one of \\['partition_shape', "
                                        "'partition_offset'\\]. Received: foo"):
        I.Ones()([2], foo=1)
    assert I.Zeros().get_config() == {} and type(I.Zeros()).__name__ == "Zeros"


def test_constant():
    assert I.Constant(3)([2]).numpy().tolist() == [3, 3]
    assert I.Constant([1, 2, 3, 4])([2, 2]).numpy().tolist() == [[1, 2], [3, 4]]
    assert I.Constant(1).get_config() == {"value": 1}
    assert I.Constant.from_config({"value": 2})([1]).numpy().tolist() == [2]
    with pytest.raises(TypeError, match="Cannot convert 3.0 to EagerTensor of dtype int32"):
        I.Constant(3.0)([2], tf.int32)
    with pytest.raises(TypeError, match="has 2 elements, but got `shape` \\(3,\\) with 3"):
        I.Constant([1, 2])([3])
    for bad in (None, tf.constant(1)):
        with pytest.raises(TypeError, match="Invalid type for initial value"):
            I.Constant(bad)
    with pytest.raises(ValueError, match="Constant initializer doesn't support partition"):
        I.Constant([1, 2])([2], partition_shape=[1])


def test_random_initializers():
    a, b = I.RandomNormal(seed=1)([2]), I.RandomNormal(seed=1)([2])
    assert a.numpy().tolist() == b.numpy().tolist()  # seeded: stateless, the same values
    unseeded = I.RandomNormal()
    assert unseeded([2]).numpy().tolist() != unseeded([2]).numpy().tolist()
    assert I.RandomNormal()([2], tf.float16).dtype == tf.float16
    assert I.RandomNormal(1.0, 2.0, 3).get_config() == {"mean": 1.0, "stddev": 2.0, "seed": 3}
    with pytest.raises(ValueError, match="expected to be floating point. Received: <dtype: "
                                         "'int32'>"):
        I.RandomNormal()([2], tf.int32)
    ints = I.RandomUniform(0, 10, seed=1)([50], tf.int32).numpy()
    assert ints.dtype.name == "int32" and ints.min() >= 0 and ints.max() < 10
    floats = I.RandomUniform()([100]).numpy()
    assert floats.min() >= -0.05 and floats.max() < 0.05
    assert I.RandomUniform().get_config() == {"minval": -0.05, "maxval": 0.05, "seed": None}
    with pytest.raises(ValueError, match="Received <dtype: 'bool'>"):
        I.RandomUniform()([3], tf.bool)


def test_initializers_feed_variables():
    assert tf.Variable(I.Zeros()([2])).numpy().tolist() == [0.0, 0.0]
    assert tf.Variable(lambda: I.Ones()([2])).numpy().tolist() == [1.0, 1.0]
