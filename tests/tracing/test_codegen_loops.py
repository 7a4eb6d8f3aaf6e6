"""Compiled loops: While/If inline into the generated code, and a TensorArray a loop only
writes is accumulated in place, with TF's values and errors."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.executor import compiled


def _code(f, *specs):
    return f.get_concrete_function(*specs).code


def rnn(input_data, initial_state):
    input_data = tf.transpose(input_data, [1, 0, 2])
    n = input_data.shape[0]
    states = tf.TensorArray(tf.float32, size=n)
    state = initial_state
    for i in tf.range(n):
        state = input_data[i] + state
        states = states.write(i, state)
    return tf.transpose(states.stack(), [1, 0, 2])


def test_written_only_tensor_array_is_accumulated_in_place():
    f = tf.function(rnn)
    code = _code(f, tf.TensorSpec([2, 5, 3]), tf.TensorSpec([2, 3]))
    assert "while True:" in code and "accumulator[" in code and "TensorListSetItem" not in code
    x = np.random.default_rng(0).random((2, 5, 3)).astype(np.float32)
    s = np.zeros((2, 3), np.float32)
    np.testing.assert_allclose(f(tf.constant(x), tf.constant(s)).numpy(),
                               np.cumsum(x, axis=1), rtol=1e-6)


def test_in_place_accumulation_matches_the_interpreter(monkeypatch):
    x = tf.constant(np.arange(12.0, dtype=np.float32).reshape(2, 3, 2))
    s = tf.ones([2, 2])
    expected = tf.function(rnn)(x, s).numpy()
    monkeypatch.setattr(compiled, "default_executor", "interpreter")
    np.testing.assert_array_equal(tf.function(rnn)(x, s).numpy(), expected)


def test_the_list_before_the_loop_keeps_its_values():
    @tf.function
    def f(n):
        before = tf.TensorArray(tf.int32, size=3).write(0, 7)
        ta = before
        for i in tf.range(n):
            ta = ta.write(i, i * 10)
        return before.stack(), ta.stack()

    old, new = f(tf.constant(3))
    assert old.numpy().tolist() == [7, 0, 0] and new.numpy().tolist() == [0, 10, 20]


def test_zero_iterations_and_out_of_range_writes():
    @tf.function
    def f(start, n):
        ta = tf.TensorArray(tf.float32, size=2)
        i = start
        while i < n:
            ta = ta.write(i, tf.cast(i, tf.float32))
            i += 1
        return ta.stack()

    assert f(tf.constant(0), tf.constant(0)).numpy().tolist() == [0.0, 0.0]
    assert f(tf.constant(0), tf.constant(2)).numpy().tolist() == [0.0, 1.0]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Trying to modify element 2 in a list with 2 elements"):
        f(tf.constant(0), tf.constant(3))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Trying to modify element -1 in a list with 2 elements"):
        f(tf.constant(-1), tf.constant(1))


def test_a_list_the_loop_also_reads_is_not_accumulated():
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.float32, size=4).write(0, 1.0)
        for i in tf.range(1, n):
            ta = ta.write(i, ta.read(i - 1) * 2.0)
        return ta.stack()

    assert "accumulator" not in _code(f, tf.TensorSpec([], tf.int32))
    assert f(tf.constant(4)).numpy().tolist() == [1.0, 2.0, 4.0, 8.0]
