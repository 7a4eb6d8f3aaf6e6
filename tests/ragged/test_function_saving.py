"""Ragged tensors through tf.function and GradientTape (the flat values carry the gradient), and
saved with tf.saved_model (their specs and components in the SavedModel)."""

import tensortrace as tf


def _rt():
    return tf.ragged.constant([[1.0, 2.0], [3.0]])


def test_gradients_through_ragged_ops():  # TF 2.21's values
    rt = _rt()
    with tf.GradientTape() as tape:
        tape.watch(rt)
        y = tf.reduce_sum(rt * rt)
    assert repr(tape.gradient(y, rt)) == "<tf.RaggedTensor [[2.0, 4.0], [6.0]]>"
    with tf.GradientTape() as tape:
        tape.watch(rt)
        y = rt * 3.0
    assert repr(tape.gradient(y, rt)) == "<tf.RaggedTensor [[3.0, 3.0], [3.0]]>"
    with tf.GradientTape() as tape:
        tape.watch(rt)
        y = tf.reduce_sum(tf.reduce_max(rt, axis=1) + tf.reduce_mean(rt, axis=0))
    assert repr(tape.gradient(y, rt)) == "<tf.RaggedTensor [[0.5, 2.0], [1.5]]>"
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        r = tf.RaggedTensor.from_row_splits(v * 1.0, [0, 2, 3])
        y = tf.reduce_sum(tf.reduce_sum(r, axis=1) * tf.constant([1.0, 10.0]))
    assert tape.gradient(y, v).numpy().tolist() == [1.0, 1.0, 10.0]


def test_gradient_inside_function():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x.to_tensor() ** 2)
        return tape.gradient(y, x)

    assert repr(f(_rt())) == "<tf.RaggedTensor [[2.0, 4.0], [6.0]]>"


class _Model(tf.Module):
    @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
    def f(self, x):
        return x * 2.0

    @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
    def g(self, x):
        return tf.reduce_sum(x, axis=1)


def test_saved_model_round_trip(tmp_path):
    tf.saved_model.save(_Model(), str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert repr(loaded.f(_rt())) == "<tf.RaggedTensor [[2.0, 4.0], [6.0]]>"
    assert loaded.g(_rt()).numpy().tolist() == [3.0, 3.0]
    assert str(loaded.f.get_concrete_function(
        tf.RaggedTensorSpec([None, None], tf.float32)).structured_input_signature) == (
        "((RaggedTensorSpec(TensorShape([None, None]), tf.float32, 1, tf.int64),), {})")
