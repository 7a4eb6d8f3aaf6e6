"""tf.experimental.Optional as a composite tensor, and a Keras-style custom training loop built
on it: a tf.function whose while_loop pulls batches with get_next_as_optional(), differentiates
a CNN traced with a batch of None and applies the gradients, matching the same steps run
eagerly. (TF's printed results for these paths: tests/core/test_kerascore_tf.py.)"""

import numpy as np
import pytest

import tensortrace as tf

O = tf.experimental.Optional


def _weights():
    r = np.random.default_rng(1)
    return [tf.Variable(r.uniform(-.5, .5, s)) for s in
            [(3, 3, 2, 4), (4,), (2, 2, 4, 2), (1, 1, 8, 3), (27, 1)]]


def _model(x, v):
    w1, b1, wd, wp, w2 = v
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w1, 1, "SAME"), b1))
    h = tf.nn.max_pool2d(h, 2, 2, "VALID")
    h = tf.nn.separable_conv2d(h, wd, wp, [1, 1, 1, 1], "SAME")
    h = tf.nn.avg_pool2d(h, 2, 1, "SAME")
    return tf.matmul(tf.reshape(h, [-1, 27]), w2)


def _step(v, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((_model(x, v) - y) ** 2)
    for var, g in zip(v, tape.gradient(loss, v)):
        var.assign_sub(0.1 * g)
    return loss


def _data():
    rng = np.random.default_rng(0)
    return rng.uniform(-1, 1, (10, 6, 6, 2)), rng.uniform(-1, 1, (10, 1))


def test_while_loop_train_step_over_optionals_matches_eager():
    x_all, y_all = _data()
    ds = tf.data.Dataset.from_tensor_slices((x_all, y_all)).batch(4)  # 4, 4, then 2
    traced = _weights()

    @tf.function
    def train(iterator, steps):
        def cond(i, opt, total, count):
            return tf.logical_and(i < steps, opt.has_value())

        def body(i, opt, total, count):
            x, y = opt.get_value()
            loss = _step(traced, x, y)
            # as Keras: no batch is fetched past the last step (an Optional from tf.cond)
            following = tf.cond(i + 1 < steps, iterator.get_next_as_optional, lambda: opt)
            return i + 1, following, total + loss, count + 1

        _, _, total, count = tf.while_loop(
            cond, body, (0, iterator.get_next_as_optional(), tf.constant(0.0, tf.float64), 0))
        return {"loss": total / tf.cast(count, tf.float64), "steps": count}

    iterator = iter(ds)
    first = train(iterator, tf.constant(2))
    second = train(iterator, tf.constant(2))  # one batch left (of 2): the loop stops early
    assert train.experimental_get_tracing_count() == 1
    element = train.get_concrete_function(iterator, tf.constant(2)).graph
    assert any(op.type == "Conv2DBackpropFilter" for op in _all_ops(element))

    eager = _weights()
    losses = [float(_step(eager, x, y)) for x, y in ds]
    assert int(first["steps"]) == 2 and int(second["steps"]) == 1
    np.testing.assert_allclose(float(first["loss"]), np.mean(losses[:2]), rtol=1e-12)
    np.testing.assert_allclose(float(second["loss"]), losses[2], rtol=1e-12)
    for a, b in zip(traced, eager):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)


def _all_ops(graph):
    for op in graph.get_operations():
        yield op
        for value in op.attrs.values():
            if hasattr(value, "get_operations"):
                yield from _all_ops(value)


def test_optional_arguments_key_traces_by_their_spec():
    @tf.function
    def f(opt):
        return tf.cond(opt.has_value(), lambda: opt.get_value() * 2, lambda: tf.constant(0))

    assert int(f(O.from_value(tf.constant(4)))) == 8
    assert int(f(O.from_value(tf.constant(5)))) == 10
    assert int(f(O.empty(tf.TensorSpec([], tf.int32)))) == 0
    assert f.experimental_get_tracing_count() == 1
    assert f(O.from_value(tf.constant([1, 2]))) is not None  # another spec: a second trace
    assert f.experimental_get_tracing_count() == 2


def test_empty_optional_value_raises_when_run():
    @tf.function
    def f():
        return O.empty(tf.TensorSpec([2], tf.float32)).get_value()

    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="The given optional does not have a value."):
        f()


def test_optional_of_composites_and_nested_structures():
    rt = tf.ragged.constant([[1, 2], [3]])
    opt = O.from_value({"r": rt, "t": (tf.constant(1.0),)})
    assert isinstance(opt.element_spec["r"], tf.RaggedTensorSpec)

    @tf.function
    def roundtrip(o):
        return O.from_value(o.get_value())

    value = roundtrip(opt).get_value()
    assert value["r"].to_list() == [[1, 2], [3]] and float(value["t"][0]) == 1.0
    spec = tf.OptionalSpec(tf.TensorSpec([None], tf.int32))
    assert spec == tf.OptionalSpec(tf.TensorSpec([None], tf.int32)) and hash(spec) == hash(
        tf.OptionalSpec(tf.TensorSpec([None], tf.int32)))
    assert spec.is_compatible_with(O.from_value(tf.constant([1, 2, 3])))
    assert not spec.is_compatible_with(O.from_value(tf.constant([1.0])))
