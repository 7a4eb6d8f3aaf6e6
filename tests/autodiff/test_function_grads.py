"""Gradients through tf.function: an eager tape around a call (the call is one record whose
backward graph is traced once), a tape inside a function (gradients become graph ops), and a
tf.Module trained both ways to the same loss curve."""

import numpy as np
import pytest

import tensortrace as tf


def test_the_guide_example_add_of_a_variable():
    @tf.function
    def add(a, b):
        return a + b

    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        result = add(v, 1.0)
    g = tape.gradient(result, v)
    assert g.dtype == tf.float32 and g.numpy() == 1.0


def test_eager_tape_around_a_call_with_several_outputs_and_a_captured_variable():
    w = tf.Variable([1.0, 2.0])

    @tf.function
    def f(x):
        return tf.reduce_sum(x * w), x * x, tf.shape(x)

    x = tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        s, sq, n = f(x)
    assert tape.gradient(s, x).numpy().tolist() == [1.0, 2.0]
    assert tape.gradient(s, w).numpy().tolist() == [3.0, 4.0]
    assert tape.gradient(sq, x).numpy().tolist() == [6.0, 8.0]
    assert tape.gradient([s, sq], [x, w])[0].numpy().tolist() == [7.0, 10.0]
    assert tape.gradient(n, x) is None


def test_the_backward_graph_is_traced_once_per_concrete_function():
    @tf.function
    def f(x):
        return tf.sin(x) * x

    concrete = None
    for value in (1.0, 2.0, 3.0):
        x = tf.constant(value)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
        assert np.isclose(g.numpy(), np.cos(value) * value + np.sin(value))
        concrete = concrete or f.get_concrete_function(x)
        assert concrete is f.get_concrete_function(x)
    assert f.experimental_get_tracing_count() == 1
    assert concrete._backward is not None


def test_second_order_through_a_function_call():
    @tf.function
    def cube(x):
        return x * x * x

    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        g = inner.gradient(y, x)
    assert g.numpy() == 12.0 and outer.gradient(g, x).numpy() == 12.0


def test_nested_functions_under_a_tape():
    @tf.function
    def inner(x):
        return x * x

    @tf.function
    def outer(x):
        return inner(x) + tf.exp(x)

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    assert np.isclose(tape.gradient(y, x).numpy(), 2.0 + np.e)


def test_tape_inside_a_function():
    v = tf.Variable(3.0)

    @tf.function
    def grads(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x * v
        return tape.gradient(y, [x, v])

    gx, gv = grads(tf.constant(2.0))
    assert gx.numpy() == 12.0 and gv.numpy() == 4.0
    ops = {op.type for op in grads.get_concrete_function(tf.constant(2.0)).graph
           .get_operations()}
    assert "Mul" in ops and "ReadVariableOp" in ops


def test_second_order_inside_a_function_with_unknown_dims():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float64)])
    def hessian_diag(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(tf.sin(x) * x)
            g = inner.gradient(y, x)
        return outer.gradient(g, x)

    x = np.array([0.1, 0.5, 1.0])
    assert np.allclose(hessian_diag(tf.constant(x)).numpy(), 2 * np.cos(x) - x * np.sin(x))


def test_assign_inside_a_function_reads_the_new_value():
    v = tf.Variable(1.0)

    @tf.function
    def f():
        with tf.GradientTape() as tape:
            v.assign(2.0)
            y = v * v
        return tape.gradient(y, v)

    assert f().numpy() == 4.0


# --- training -------------------------------------------------------------------------------------
class MLP(tf.Module):
    def __init__(self, sizes, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.ws = [tf.Variable(rng.normal(0, 0.5, (a, b)).astype(np.float32))
                   for a, b in zip(sizes[:-1], sizes[1:])]
        self.bs = [tf.Variable(np.zeros(b, np.float32)) for b in sizes[1:]]

    def __call__(self, x):
        for i, (w, b) in enumerate(zip(self.ws, self.bs)):
            x = tf.einsum("ij,jk->ik", x, w) + b
            if i < len(self.ws) - 1:
                x = tf.maximum(x, 0.0)
        return x


def train_step(model, x, y, lr=0.1):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    for v, g in zip(model.trainable_variables, grads):
        v.assign_sub(lr * g)
    return loss


def test_a_module_trains_to_the_same_loss_curve_eagerly_and_as_a_function():
    rng = np.random.default_rng(1)
    x = tf.constant(rng.normal(size=(16, 4)).astype(np.float32))
    y = tf.constant(rng.normal(size=(16, 1)).astype(np.float32))
    eager_model, graph_model = MLP([4, 8, 8, 1]), MLP([4, 8, 8, 1])
    step = tf.function(train_step)
    eager = [float(train_step(eager_model, x, y)) for _ in range(30)]
    graph = [float(step(graph_model, x, y)) for _ in range(30)]
    assert step.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
    assert eager[-1] < 0.6 * eager[0]
    for a, b in zip(eager_model.trainable_variables, graph_model.trainable_variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-6)


def test_a_train_step_with_unknown_batch_size():
    model = MLP([3, 4, 1], seed=2)
    step = tf.function(lambda x, y: train_step(model, x, y), input_signature=[
        tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([None, 1], tf.float32)])
    reference = MLP([3, 4, 1], seed=2)
    rng = np.random.default_rng(3)
    for n in (5, 7, 5):
        x = tf.constant(rng.normal(size=(n, 3)).astype(np.float32))
        y = tf.constant(rng.normal(size=(n, 1)).astype(np.float32))
        assert np.isclose(float(step(x, y)), float(train_step(reference, x, y)), rtol=1e-5)
    assert step.experimental_get_tracing_count() == 1


# --- tf.gradients / tf.hessians / tf.recompute_grad (values pinned against TF 2.21) --------------
def test_tf_gradients_inside_a_function():
    @tf.function
    def f(x, z):
        y = x * x
        return (tf.gradients(y, x), tf.gradients(y, [x, z]),
                tf.gradients(y, [x, z], unconnected_gradients="zero"),
                tf.gradients([y, y * 2], x, grad_ys=[tf.constant(1.0), tf.constant(2.0)]),
                tf.gradients(tf.stop_gradient(y) * x + y, x, stop_gradients=[y]))

    one, two, zero, weighted, stopped = f(tf.constant(3.0), tf.constant(1.0))
    assert [float(g) for g in one] == [6.0]
    assert float(two[0]) == 6.0 and two[1] is None
    assert [float(g) for g in zero] == [6.0, 0.0]
    assert [float(g) for g in weighted] == [30.0]
    assert [float(g) for g in stopped] == [9.0]  # y is a stop: only the first term counts
    with pytest.raises(RuntimeError, match="tf.gradients is not supported when eager execution "
                                           "is enabled. Use tf.GradientTape instead."):
        tf.gradients(tf.constant(1.0), tf.constant(1.0))


def test_tf_gradients_through_variables_custom_gradients_and_hessians():
    v = tf.Variable([1.0, 2.0])

    @tf.custom_gradient
    def doubled_grad(x):
        return x * 1.0, lambda dy: dy * 2.0

    @tf.function
    def f(x):
        loss = tf.reduce_sum(v * doubled_grad(x))
        return tf.gradients(loss, [v, x]), tf.hessians(tf.reduce_sum(x ** 3), x)

    (gv, gx), (h,) = f(tf.constant([3.0, 4.0]))
    np.testing.assert_array_equal(gv.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(gx.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(h.numpy(), [[18.0, 0.0], [0.0, 24.0]])


def test_recompute_grad_keeps_values_and_gradients():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.recompute_grad(lambda t: t * t * t)(x)
    assert float(y) == 8.0 and float(tape.gradient(y, x)) == 12.0
