"""The composite-tensor protocol: nest with expand_composites, tf.function arguments and
results traced by spec, gradients through components (values as TF 2.21 prints them)."""

import numpy as np
import pytest

import tensortrace as tf


def _rt():
    return tf.RaggedTensor.from_row_splits([1.0, 2.0, 3.0], [0, 2, 3])


def test_type_spec_protocol():
    spec = _rt()._type_spec
    assert repr(spec) == "RaggedTensorSpec(TensorShape([2, None]), tf.float32, 1, tf.int64)"
    assert [repr(s) for s in spec._component_specs] == [
        "TensorSpec(shape=(None,), dtype=tf.float32, name=None)",
        "TensorSpec(shape=(3,), dtype=tf.int64, name=None)"]
    assert spec.value_type is tf.RaggedTensor
    assert spec.is_compatible_with(_rt())
    assert not spec.is_compatible_with(tf.constant([1.0]))
    wider = spec.most_specific_common_supertype([tf.RaggedTensorSpec([3, None], tf.float32)])
    assert repr(wider) == "RaggedTensorSpec(TensorShape([None, None]), tf.float32, 1, tf.int64)"
    assert spec.most_specific_common_supertype([tf.RaggedTensorSpec([2, None], tf.int32)]) is None
    assert spec.is_subtype_of(wider) and not wider.is_subtype_of(spec)
    assert hash(spec) == hash(tf.RaggedTensorSpec([2, None], tf.float32, 1))
    assert isinstance(tf.TensorSpec([1]), tf.TypeSpec)
    assert tf.type_spec_from_value(_rt()) == spec
    rebuilt = spec._from_components(spec._to_components(_rt()))
    assert rebuilt.to_list() == [[1.0, 2.0], [3.0]]


def test_nest_expand_composites():
    flat = tf.nest.flatten({"a": _rt(), "b": 1}, expand_composites=True)
    assert [np.asarray(x).tolist() if hasattr(x, "numpy") else x for x in flat] == [
        [1.0, 2.0, 3.0], [0, 2, 3], 1]
    assert len(tf.nest.flatten(_rt())) == 1  # not expanded: the composite is a leaf
    packed = tf.nest.pack_sequence_as([_rt()], [tf.constant([4.0, 5.0, 6.0]),
                                                tf.constant([0, 1, 3], tf.int64)],
                                      expand_composites=True)
    assert packed[0].to_list() == [[4.0], [5.0, 6.0]]
    doubled = tf.nest.map_structure(lambda x: x * 2 if x.dtype == tf.float32 else x, _rt(),
                                    expand_composites=True)
    assert doubled.to_list() == [[2.0, 4.0], [6.0]]
    specs = tf.nest.flatten(_rt()._type_spec, expand_composites=True)
    assert [s.dtype for s in specs] == [tf.float32, tf.int64]


def test_function_traces_by_spec():
    f = tf.function(lambda x: x.with_flat_values(x.flat_values * 2))
    cf = f.get_concrete_function(_rt())
    assert str(cf.structured_input_signature) == (
        "((RaggedTensorSpec(TensorShape([2, None]), tf.float32, 1, tf.int64),), {})")
    assert str(cf.structured_outputs) == (
        'tf.RaggedTensor(values=Tensor("Identity:0", shape=(None,), dtype=float32), '
        'row_splits=Tensor("Identity_1:0", shape=(3,), dtype=int64))')
    assert str(cf) == (
        "ConcreteFunction Input Parameters:\n"
        "  x (POSITIONAL_OR_KEYWORD): RaggedTensorSpec(TensorShape([2, None]), tf.float32, 1, "
        "tf.int64)\nOutput Type:\n"
        "  RaggedTensorSpec(TensorShape([2, None]), tf.float32, 1, tf.int64)\n"
        "Captures:\n  None")
    assert f(_rt()).to_list() == [[2.0, 4.0], [6.0]]
    other = tf.RaggedTensor.from_row_splits([5.0, 6.0, 7.0], [0, 1, 3])
    assert f(other).to_list() == [[10.0], [12.0, 14.0]]
    assert f.experimental_get_tracing_count() == 1  # same spec: the cache hit
    f(tf.RaggedTensor.from_row_splits([5.0, 6.0, 7.0], [0, 1, 2, 3]))
    assert f.experimental_get_tracing_count() == 2  # three rows: a new spec


def test_input_signature_of_composite_specs():
    g = tf.function(lambda x: x, input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
    assert g(_rt()).to_list() == [[1.0, 2.0], [3.0]]
    with pytest.raises(TypeError):
        g(tf.RaggedTensor.from_row_splits([1, 2], [0, 2]))


def test_gradient_through_components():
    rt = _rt()
    with tf.GradientTape() as tape:
        tape.watch(rt)
        y = tf.reduce_sum(rt.flat_values * rt.flat_values)
    g = tape.gradient(y, rt)
    assert isinstance(g, tf.RaggedTensor)
    assert g.to_list() == [[2.0, 4.0], [6.0]]
