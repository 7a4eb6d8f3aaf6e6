"""A tf.function called while another is traced keeps its body's static shapes (set_shape's
refinements too), as TF's call op keeps the function body's; DenseBincount's shape function
(TF 2.21's shapes pinned)."""

import numpy as np

import tensortrace as tf
from tensortrace.context import bind
from tensortrace.registry import get as get_op


def test_a_called_function_keeps_its_set_shape():
    seen = []

    @tf.function
    def inner(x):
        v = tf.py_function(lambda a: a, [x], tf.int32)
        v.set_shape([None, 1])  # what Keras' lookup layers do to a table's result
        return tf.math.bincount(v, minlength=5, maxlength=5, binary_output=True, axis=-1)

    @tf.function
    def outer(x):
        y = inner(x)
        seen.append(y.shape.as_list())
        return y

    out = outer(tf.constant([[1], [3]]))
    assert seen == [[None, None]]  # TF 2.21: a matrix of unknown dims (the rank is kept)
    np.testing.assert_array_equal(out.numpy(), [[0, 1, 0, 0, 0], [0, 0, 0, 1, 0]])


def test_dense_bincount_shapes():
    shapes = {}
    for key, spec in (("unknown", tf.TensorSpec(None, tf.int32)),
                      ("scalar", tf.TensorSpec([], tf.int32)),
                      ("vector", tf.TensorSpec([None], tf.int32)),
                      ("matrix", tf.TensorSpec([None, 3], tf.int32))):
        @tf.function
        def f(x, key=key):
            r = bind(get_op("DenseBincount"), x, tf.constant(5), tf.constant([], tf.float32),
                     binary_output=False)
            shapes[key] = r.shape.as_list() if r.shape.rank is not None else None
            return r

        f.get_concrete_function(spec)
    # TF 2.21: <unknown>, (5,), (5,), (None, 5)
    assert shapes == {"unknown": None, "scalar": [5], "vector": [5], "matrix": [None, 5]}
