"""tf.Variable and tf.Module, eagerly and inside functions."""

import pytest

import tensortrace as tf


def test_variable_basics():
    v = tf.Variable(1.0)
    assert repr(v) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"
    assert v.name == "Variable:0" and v.dtype == tf.float32 and v.shape == tf.TensorShape([])
    assert v.trainable and v.numpy() == 1.0 and v.read_value().numpy() == 1.0
    assert tf.Variable(1.0, name="w").name == "w:0"
    assert not tf.Variable(1, trainable=False).trainable
    v.assign(3.0)
    v.assign_add(2.0)
    v.assign_sub(1.0)
    assert v.numpy() == 4.0
    assert (v + 1).numpy() == 5.0 and (2 * v).numpy() == 8.0 and (v @ tf.ones([1, 1]) if False else True)
    assert tf.matmul(tf.Variable([[1.0, 2.0]]), tf.ones([2, 1])).numpy().tolist() == [[3.0]]
    with pytest.raises(TypeError, match="Variable is unhashable"):
        hash(v)
    assert v.ref().deref() is v


def test_reads_are_snapshots():
    v = tf.Variable([1.0, 2.0])
    before = v.read_value()
    v.assign([5.0, 6.0])
    assert before.numpy().tolist() == [1.0, 2.0]


def test_assign_checks_shape_and_dtype():
    v = tf.Variable(1.0)
    with pytest.raises(ValueError, match="Shape mismatch"):
        v.assign([1.0, 2.0])
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.Variable(1).assign(1.5)


def test_variable_from_callable_and_dtype():
    v = tf.Variable(lambda: tf.zeros([2, 3]), dtype=tf.float32)
    assert v.shape == tf.TensorShape([2, 3])
    assert tf.Variable([1, 2], dtype=tf.float64).dtype == tf.float64


def test_functions_read_variables_by_reference_and_write_them():
    v = tf.Variable(0)

    @tf.function
    def bump(k):
        v.assign_add(k)
        return v.read_value()

    assert bump(tf.constant(2)).numpy() == 2
    assert bump(tf.constant(3)).numpy() == 5
    v.assign(10)
    assert bump(tf.constant(1)).numpy() == 11
    assert bump.experimental_get_tracing_count() == 1


def test_variables_as_function_arguments_share_a_trace():
    @tf.function
    def scale(var, k):
        var.assign(var * k)
        return var.read_value()

    a, b = tf.Variable(2.0), tf.Variable(3.0)
    assert scale(a, tf.constant(2.0)).numpy() == 4.0
    assert scale(b, tf.constant(2.0)).numpy() == 6.0
    assert (a.numpy(), b.numpy()) == (4.0, 6.0)
    assert scale.experimental_get_tracing_count() == 1


def test_module_tracks_variables_and_submodules():
    class Dense(tf.Module):
        def __init__(self, n, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable(tf.ones([n, n]), name="w")
                self.b = tf.Variable(tf.zeros([n]), name="b", trainable=False)

        @tf.function
        def __call__(self, x):
            return tf.matmul(x, self.w) + self.b

    class MLP(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(2, name="d1"), Dense(2, name="d2")]

    m = MLP()
    assert m.name == "mlp"
    assert len(m.variables) == 4 and len(m.trainable_variables) == 2
    assert len(m.non_trainable_variables) == 2 and len(m.submodules) == 2
    assert m.layers[0].w.name == "d1/w:0"
    x = tf.ones([1, 2])
    for layer in m.layers:
        x = layer(x)
    assert x.numpy().tolist() == [[4.0, 4.0]]
    with pytest.raises(ValueError):
        tf.Module(name="bad name")


def test_creating_variables_in_a_function_only_on_first_trace():
    class Counter(tf.Module):
        def __init__(self):
            super().__init__()
            self.count = None

        @tf.function
        def __call__(self):
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)

    c = Counter()
    assert [int(c()) for _ in range(3)] == [1, 2, 3]
