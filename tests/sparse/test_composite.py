"""SparseTensor and IndexedSlices as composite tensors: tf.function arguments (traced by spec,
with input_signature too) and results, tf.nest with expand_composites."""

import numpy as np
import pytest

import tensortrace as tf

S = tf.sparse.SparseTensor


def test_function_traces_sparse_arguments_by_spec():
    traces = []

    @tf.function
    def double(st):
        traces.append(st)
        return st * 2

    out = double(S([[0, 3], [2, 4]], [10, 20], [3, 10]))
    assert isinstance(out, S)
    np.testing.assert_array_equal(out.values.numpy(), [20, 40])
    double(S([[1, 1]], [5], [3, 10]))  # same spec: no retrace
    assert len(traces) == 1
    assert str(traces[0].values.dtype) == "<dtype: 'int32'>"
    double(S([[1, 1]], [5.], [3, 10]))  # another dtype: a new trace
    assert len(traces) == 2
    double(S([[1, 1, 0]], [5], [3, 10, 2]))  # another rank: a new trace
    assert len(traces) == 3


def test_function_with_sparse_input_signature():
    total = tf.function(lambda st: tf.sparse.reduce_sum(st, axis=1),
                        input_signature=[tf.SparseTensorSpec([None, 4], tf.float32)])
    out = total(S([[0, 1], [2, 3], [2, 0]], [1., 2., 3.], [3, 4]))
    np.testing.assert_array_equal(out.numpy(), [1., 0., 5.])
    out = total(S([[1, 1]], [7.], [2, 4]))
    np.testing.assert_array_equal(out.numpy(), [0., 7.])
    with pytest.raises(TypeError):
        total(S([[1, 1]], [7], [2, 4]))


def test_function_returns_indexed_slices():
    v = tf.Variable([[1., 2.], [3., 4.]])

    @tf.function
    def grads():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather(v, [1, 1]))
        return tape.gradient(y, v)

    g = grads()
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [1, 1])
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), [[0., 0.], [2., 2.]])


def test_nest_expands_sparse_components():
    st = S([[0, 3], [2, 4]], [10, 20], [3, 10])
    flat = tf.nest.flatten({"a": st, "b": 1}, expand_composites=True)
    assert len(flat) == 4
    np.testing.assert_array_equal(flat[1].numpy(), [10, 20])
    back = tf.nest.pack_sequence_as({"a": st, "b": 1}, flat, expand_composites=True)
    assert isinstance(back["a"], S) and back["a"].shape == st.shape
    spec = st._type_spec
    assert isinstance(spec, tf.TypeSpec)
    assert spec == tf.SparseTensorSpec([3, 10], tf.int32)
    assert spec.is_compatible_with(tf.SparseTensorSpec([None, 10], tf.int32))
    assert not spec.is_compatible_with(tf.SparseTensorSpec([None, 10], tf.float32))
