"""An iterator passed to a tf.function is traced by its IteratorSpec, as TF 2.21 does: a new
iterator of the same element spec reuses the trace (Keras passes one per epoch), the function
advances whichever iterator the call passes. Expected values printed by TF 2.21."""

import numpy as np

import tensortrace as tf


def _traced_next():
    traces = []

    @tf.function
    def step(it):
        traces.append(1)
        return next(it)
    return step, traces


def test_iterators_of_one_spec_share_a_trace_and_advance_independently():
    step, traces = _traced_next()
    ds = tf.data.Dataset.range(5)
    a, b = iter(ds), iter(ds)
    assert [int(step(a)), int(step(b)), int(step(a))] == [0, 0, 1]  # TF: 0 0 1
    assert len(traces) == 1 and step.experimental_get_tracing_count() == 1
    assert int(next(a)) == 2  # the eager iterator sees what the function consumed


def test_a_new_element_spec_traces_again():
    step, traces = _traced_next()
    step(iter(tf.data.Dataset.range(5)))
    np.testing.assert_array_equal(step(iter(tf.data.Dataset.range(5).batch(2))).numpy(), [0, 1])
    assert step.experimental_get_tracing_count() == 2
    assert step.pretty_printed_concrete_signatures().splitlines()[1] == (
        "  it (POSITIONAL_OR_KEYWORD): IteratorSpec(TensorSpec(shape=(), dtype=tf.int64, "
        "name=None),)")


def test_for_loop_over_an_iterator_argument():
    @tf.function
    def total(it):
        s = tf.constant(0, tf.int64)
        for x in it:
            s += x
        return s
    ds = tf.data.Dataset.range(5)
    assert int(total(iter(ds))) == 10
    assert int(total(iter(ds.map(lambda x: x * 2)))) == 20
    assert total.experimental_get_tracing_count() == 1


def test_iterator_spec_as_tf_prints_it():
    spec = tf.data.IteratorSpec(tf.TensorSpec([None], tf.int32))
    assert repr(spec) == "IteratorSpec(TensorSpec(shape=(None,), dtype=tf.int32, name=None),)"
    it = iter(tf.data.Dataset.range(3))
    assert it._type_spec == tf.data.IteratorSpec(tf.TensorSpec([], tf.int64))
    assert it._type_spec.element_spec == tf.TensorSpec([], tf.int64)
