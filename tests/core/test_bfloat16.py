"""bfloat16, available when ml_dtypes is installed (the "bfloat16" extra; the test extra has it)."""

import ml_dtypes
import numpy as np

import tensortrace as tf


def test_bfloat16_dtype():
    assert tf.bfloat16.name == "bfloat16" and tf.bfloat16.is_floating
    assert tf.bfloat16.as_numpy_dtype is ml_dtypes.bfloat16
    assert tf.as_dtype("bfloat16") is tf.bfloat16 and tf.bfloat16.size == 2
    assert tf.bfloat16.max == float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)


def test_bfloat16_eager_and_traced():
    x = tf.constant([1.5, 2.25], dtype=tf.bfloat16)
    assert str(x) == "tf.Tensor([1.5 2.25], shape=(2,), dtype=bfloat16)"
    assert (x * 2).dtype == tf.bfloat16
    assert tf.cast(x, tf.float32).numpy().tolist() == [1.5, 2.25]
    assert float(tf.reduce_sum(x)) == 3.75
    f = tf.function(lambda a: a + a)
    np.testing.assert_array_equal(f(x).numpy().astype(np.float32), [3.0, 4.5])
