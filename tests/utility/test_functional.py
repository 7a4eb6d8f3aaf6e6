"""map_fn, scan, foldl, foldr and vectorized_map pinned against TensorFlow 2.21, eagerly and
inside tf.function, with gradients through both."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.errors import InvalidArgumentError, OutOfRangeError
from tensortrace.ops import functional as F


def _v(x):
    return tf.nest.map_structure(lambda t: t.numpy().tolist(), x)


def _both(fn):
    """Run ``fn`` eagerly and traced; both must agree (returns the eager result)."""
    eager = _v(fn())
    assert _v(tf.function(fn)()) == eager
    return eager


# --- map_fn ----------------------------------------------------------------------------------
def test_map_fn_values():
    assert _both(lambda: F.map_fn(lambda x: x * 2, tf.constant([1, 2, 3]))) == [2, 4, 6]
    assert _both(lambda: F.map_fn(lambda x: x[0] + x[1],
                                  (tf.constant([1, 2]), tf.constant([10, 20])),
                                  fn_output_signature=tf.int32)) == [11, 22]
    assert _both(lambda: F.map_fn(lambda x: tf.cast(x, tf.float32), tf.constant([1, 2]),
                                  fn_output_signature=tf.TensorSpec([], tf.float32))) == [1, 2]
    assert _both(lambda: F.map_fn(lambda x: (x, tf.cast(x, tf.float32)), tf.constant([1, 2]),
                                  fn_output_signature=(tf.int32, tf.float32))) == \
        ([1, 2], [1.0, 2.0])
    assert _both(lambda: F.map_fn(lambda x: {"a": x["a"] + 1}, {"a": tf.constant([1, 2])})) == \
        {"a": [2, 3]}
    assert _both(lambda: F.map_fn(lambda x: x * 2, tf.constant([[1, 2], [3, 4]]))) == \
        [[2, 4], [6, 8]]
    assert _both(lambda: F.map_fn(lambda x: 1, tf.constant([1, 2]))) == [1, 1]
    assert F.map_fn(lambda x: x * 2, tf.constant([1.0, 2.0]), dtype=tf.float32).dtype == \
        tf.float32
    empty = F.map_fn(lambda x: x, tf.zeros([0, 2]))
    assert empty.shape == (0,) and empty.dtype == tf.float32  # TF forgets the element shape


def test_map_fn_errors():
    with pytest.raises(ValueError, match="must be 1\\+ dimensional Tensors, not scalars"):
        F.map_fn(lambda x: x, tf.constant(1))
    with pytest.raises(ValueError, match="must be 1\\+ dimensional Tensors, not scalars"):
        F.map_fn(lambda x: x, [1, 2, 3])  # a list is a structure of scalars
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        F.map_fn(lambda x: (x, x * 2), tf.constant([1, 2]))
    with pytest.raises(InvalidArgumentError, match="TensorArray dtype is int32 but Op is trying "
                                                   "to write dtype float32"):
        F.map_fn(lambda x: tf.cast(x, tf.float32), tf.constant([1, 2]))
    with pytest.raises(ValueError, match="Dimensions 1 and 2 are not compatible"):
        F.map_fn(lambda x: x, (tf.constant([1]), tf.constant([1, 2])))
    with pytest.raises(ValueError, match="which does not contain any Tensors"):
        F.map_fn(lambda x: x, [])
    with pytest.raises(ValueError, match="Incompatible shape for value"):
        F.map_fn(lambda x: tf.range(x), tf.constant([1, 2]))
    with pytest.raises(AttributeError):
        F.map_fn(3, tf.constant([1, 2]))


def test_map_fn_traced_is_one_loop_with_the_static_length():
    shapes = []

    @tf.function
    def f(x):
        y = F.map_fn(lambda v: v * 2.0, x)
        shapes.append(y.shape)
        return y

    f(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    cf = f.get_concrete_function(tf.TensorSpec([None, 2]))
    assert shapes == [tf.TensorShape([2, 2]), tf.TensorShape([None, 2])]
    types = [op.type for op in cf.graph.get_operations()]
    assert types.count("StatelessWhile") + types.count("While") == 1
    assert _v(cf(tf.constant([[1.0, 2.0]]))) == [[2.0, 4.0]]


# --- scan / fold -----------------------------------------------------------------------------
def test_scan():
    x = tf.constant([1, 2, 3, 4])
    assert _both(lambda: F.scan(lambda a, v: a + v, x)) == [1, 3, 6, 10]
    assert _both(lambda: F.scan(lambda a, v: a + v, x, initializer=10)) == [11, 13, 16, 20]
    assert _both(lambda: F.scan(lambda a, v: a + v, x, reverse=True)) == [10, 9, 7, 4]
    assert _both(lambda: F.scan(lambda a, v: (a[0] + v, a[1] * v), tf.constant([1, 2, 3]),
                                initializer=(0, 1))) == ([1, 3, 6], [1, 2, 6])
    assert _both(lambda: F.scan(lambda a, v: a + v[0] * v[1],
                                (tf.constant([1, 2]), tf.constant([3, 4])),
                                initializer=tf.constant(0))) == [3, 11]
    assert _v(F.scan(lambda a, v: a + v, tf.zeros([0]), initializer=0.0)) == []
    with pytest.raises(OutOfRangeError, match="Tried to read from index 0 but array size is: 0"):
        F.scan(lambda a, v: a + v, tf.zeros([0]))
    with pytest.raises(InvalidArgumentError, match="cannot compute AddV2"):
        F.scan(lambda a, v: a + v, tf.constant([1.0, 2.0]), initializer=0)


def test_folds():
    x = tf.constant([1, 2, 3])
    assert _both(lambda: F.foldl(lambda a, v: a + v, x)) == 6
    assert _both(lambda: F.foldl(lambda a, v: a - v, x, initializer=10)) == 4
    assert _both(lambda: F.foldr(lambda a, v: a - v, x)) == 0
    assert _both(lambda: F.foldr(lambda a, v: a * 10 + v, x, initializer=0)) == 321
    assert _both(lambda: F.foldl(lambda a, v: (a[0] + v, a[1] + 1), tf.constant([1.0, 2.0]),
                                 initializer=(0.0, 0))) == (3.0, 2)
    assert _both(lambda: F.foldl(lambda a, v: a + v[0] * v[1],
                                 (tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])),
                                 initializer=0.0)) == 11.0
    with pytest.raises(OutOfRangeError):
        F.foldl(lambda a, v: a + v, tf.zeros([0]))


# --- vectorized_map --------------------------------------------------------------------------
def test_vectorized_map():
    assert _both(lambda: F.vectorized_map(lambda x: x * 2, tf.constant([1, 2, 3]))) == [2, 4, 6]
    assert _both(lambda: F.vectorized_map(tf.reduce_sum, tf.constant([[1, 2], [3, 4]]))) == [3, 7]
    assert _both(lambda: F.vectorized_map(lambda x: (x[0] + x[1], x[0]),
                                          (tf.constant([1, 2]), tf.constant([3, 4])))) == \
        ([4, 6], [1, 2])
    assert _both(lambda: F.vectorized_map(lambda x: tf.constant(1.0), tf.zeros([3]))) == \
        [1.0, 1.0, 1.0]
    assert _both(lambda: F.vectorized_map(lambda x: tf.cast(x, tf.float32) / 2,
                                          tf.constant([1, 2]))) == [0.5, 1.0]
    assert F.vectorized_map(lambda x: x, tf.zeros([0, 2])).shape == (0, 2)
    with pytest.raises(IndexError):
        F.vectorized_map(lambda x: x, tf.constant(1))


# --- gradients -------------------------------------------------------------------------------
@pytest.mark.parametrize("traced", [False, True])
def test_gradients_flow_through_the_loops(traced):
    x = tf.constant([1.0, 2.0, 3.0])
    wrap = tf.function if traced else (lambda f: f)
    cases = [
        (wrap(lambda x: tf.reduce_sum(F.map_fn(lambda v: v * v, x))), [2.0, 4.0, 6.0]),
        (wrap(lambda x: tf.reduce_sum(F.scan(lambda a, v: a * v, x))), [9.0, 4.0, 2.0]),
        (wrap(lambda x: F.foldl(lambda a, v: a * v, x)), [6.0, 3.0, 2.0]),
        (wrap(lambda x: F.foldr(lambda a, v: a + v * v, x, initializer=0.0)), [2.0, 4.0, 6.0]),
        (wrap(lambda x: tf.reduce_sum(F.vectorized_map(lambda v: v * 3.0, x))), [3.0, 3.0, 3.0]),
    ]
    for fn, expected in cases:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected)
