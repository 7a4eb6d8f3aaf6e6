"""tf.GradientTape's behaviour, pinned against TensorFlow 2.21: watching, persistence,
stop_recording, reset, nested sources and targets, output_gradients, unconnected gradients,
jacobians, higher orders, variables and the errors."""

import logging

import numpy as np
import pytest

import tensortrace as tf


def _values(x):
    return None if x is None else np.asarray(x).tolist()


X = tf.constant(3.0)


def test_gradient_of_a_product():
    with tf.GradientTape() as tape:
        tape.watch(X)
        y = X * X
    g = tape.gradient(y, X)
    assert g.dtype == tf.float32 and g.numpy() == 6.0


def test_non_persistent_tape_refuses_a_second_call():
    with tf.GradientTape() as tape:
        tape.watch(X)
        y = X * X
    tape.gradient(y, X)
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only be used to "
                                           r"compute one set of gradients \(or jacobians\)"):
        tape.gradient(y, X)


def test_persistent_tape_answers_many_calls():
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(X)
        y = X * X
        z = y * X
    assert tape.gradient(y, X).numpy() == 6.0
    assert tape.gradient(z, X).numpy() == 27.0
    assert tape.gradient(z, y).numpy() == 3.0


def test_integer_sources_and_targets_get_none(caplog):
    i = tf.constant(3)
    with caplog.at_level(logging.WARNING, logger="tensortrace"):
        with tf.GradientTape() as tape:
            tape.watch(i)
            y = i * i
    assert "The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.int32" \
        in caplog.text
    assert tape.gradient(y, i) is None
    with tf.GradientTape() as tape:
        tape.watch(X)
        y = tf.cast(X, tf.int32) * 2
    assert tape.gradient(y, X) is None
    with tf.GradientTape() as tape:
        tape.watch(X)
        y = tf.constant(2)
    assert tape.gradient(y, X) is None


def test_cast_through_an_integer_cuts_the_gradient():
    a = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(a)
        y = tf.cast(a, tf.int32)
        z = tf.cast(y, tf.float32)
    assert tape.gradient(z, a) is None and tape.gradient(y, a) is None


def test_nested_sources_keep_their_structure():
    with tf.GradientTape() as tape:
        tape.watch(X)
        y = X * X
    g = tape.gradient(y, {"a": X, "b": [X]})
    assert set(g) == {"a", "b"} and g["a"].numpy() == 6.0 and g["b"][0].numpy() == 6.0


def test_several_targets_add_up():
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(X)
        y = X * X
        z = y * 2
    assert tape.gradient([y, z], X).numpy() == 18.0
    assert tape.gradient([y, y * 2], X).numpy() == 6.0  # y * 2 was not recorded (as TF)


def test_unconnected_gradients():
    z = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(X)
        y = X * X
    assert tape.gradient(y, z) is None
    g = tape.gradient(y, [X, z], unconnected_gradients="zero")
    assert _values(g) == [6.0, 0.0]
    g = tape.gradient(y, [X, z], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert _values(g) == [6.0, 0.0]
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'bogus'"):
        tape.gradient(y, X, unconnected_gradients="bogus")


def test_output_gradients_weight_the_targets():
    for weights in ([tf.constant(2.0)], tf.constant(2.0), [2.0]):
        with tf.GradientTape() as tape:
            tape.watch(X)
            y = X * X
        assert tape.gradient(y, X, output_gradients=weights).numpy() == 12.0


def test_a_tensor_is_its_own_gradient_source():
    with tf.GradientTape() as tape:
        tape.watch(X)
    assert tape.gradient(X, X).numpy() == 1.0


def test_unwatched_tensors_have_no_gradient():
    with tf.GradientTape() as tape:
        y = X * X
    assert tape.gradient(y, X) is None


def test_stop_recording():
    with tf.GradientTape() as tape:
        tape.watch(X)
        y = X * X
        with tape.stop_recording():
            z = y * X
        w = y * 2
    assert tape.gradient([z, w], X).numpy() == 12.0


def test_stop_recording_errors():
    tape = tf.GradientTape()
    with pytest.raises(RuntimeError, match="Trying to stop recording a tape which is not "
                                           "recording."):
        with tape.stop_recording():
            pass
    with tf.GradientTape() as tape:
        with tape.stop_recording():
            with pytest.raises(ValueError, match="Tape is not recording."):
                with tape.stop_recording():
                    pass


def test_reset_forgets_what_was_recorded():
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(X)
        y = X * X
        tape.reset()
        tape.watch(X)
        z = X * X * X
    assert tape.gradient(y, X) is None
    assert tape.gradient(z, X).numpy() == 27.0


def test_reentering_a_tape_keeps_recording():
    with tf.GradientTape() as tape:
        tape.watch(X)
        y = X * X
    with tape:
        z = X * 2
    assert tape.gradient([y, z], X).numpy() == 8.0


def test_gradient_inside_the_tape_block():
    with tf.GradientTape() as tape:
        tape.watch(X)
        y = X * X
        g = tape.gradient(y, X)
    assert g.numpy() == 6.0


def test_errors_for_bad_arguments():
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(X)
        y = X * X
        with pytest.raises(ValueError, match="Passed in object 1.0 of type 'float', not "
                                             "tf.Tensor or tf.Variable or ExtensionType."):
            tape.watch(1.0)
    with pytest.raises(TypeError, match="Argument `target` should be a list or nested structure "
                                        "of Tensors, Variables or CompositeTensors to be "
                                        "differentiated, but received None."):
        tape.gradient(None, X)
    with pytest.raises(TypeError):
        tape.gradient(y, None)
    with pytest.raises(AttributeError):
        tape.gradient(y, [X, 2.0])


def test_second_order_with_nested_tapes():
    with tf.GradientTape() as outer:
        outer.watch(X)
        with tf.GradientTape() as inner:
            inner.watch(X)
            y = X * X * X
        g = inner.gradient(y, X)
    assert g.numpy() == 27.0 and outer.gradient(g, X).numpy() == 18.0


def test_third_order():
    x = tf.constant(0.5, tf.float64)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.sin(x)
            g1 = t1.gradient(y, x)
        g2 = t2.gradient(g1, x)
    g3 = t3.gradient(g2, x)
    assert np.allclose([g1.numpy(), g2.numpy(), g3.numpy()],
                       [np.cos(0.5), -np.sin(0.5), -np.cos(0.5)])


# --- variables ------------------------------------------------------------------------------------
def test_trainable_variables_are_watched_when_read():
    v = tf.Variable(2.0)
    w = tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as tape:
        y = v * w
    assert tape.watched_variables() == (v,)
    assert _values(tape.gradient(y, [v, w])) == [3.0, None]


def test_watch_accessed_variables_false():
    v = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.watched_variables() == () and tape.gradient(y, v) is None
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        y = v * v
    assert tape.watched_variables() == (v,) and tape.gradient(y, v).numpy() == 4.0


def test_gradient_wrt_a_read_taken_afterwards_is_none():
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = v * v
    assert tape.gradient(y, v.value()) is None


def test_a_variable_read_several_times_sums_its_gradients():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * v) + tf.reduce_sum(v)
    assert _values(tape.gradient(y, v)) == [3.0, 5.0]


def test_assign_is_not_differentiable():
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        v.assign(2.0)
        y = v * v
    assert tape.gradient(y, v).numpy() == 4.0


# --- jacobians -----------------------------------------------------------------------------------
def test_jacobian():
    a = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = a * a
    j = tape.jacobian(y, a)
    assert j.shape == (3, 3) and _values(j) == np.diag([2.0, 4.0, 6.0]).tolist()
    with tf.GradientTape() as tape:
        tape.watch(X)
        y = X * X
    j = tape.jacobian(y, X)
    assert j.shape == () and j.numpy() == 6.0


def test_jacobian_of_a_matrix_and_of_a_variable():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = \
            tf.einsum("ij,jk->ik", a, tf.reshape(v, [2, 1]))
    ja, jv = tape.jacobian(y, [a, v])
    assert ja.shape == (2, 1, 2, 2) and jv.shape == (2, 1, 2)
    assert _values(jv) == [[[1.0, 2.0]], [[3.0, 4.0]]]
    assert _values(ja[1, 0]) == [[0.0, 0.0], [1.0, 2.0]]


def test_jacobian_unconnected():
    a, b = tf.constant([1.0, 2.0]), tf.constant(5.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(a)
        y = a * a
    assert tape.jacobian(y, b) is None
    assert _values(tape.jacobian(y, b, unconnected_gradients="zero")) == [0.0, 0.0]


def test_batch_jacobian():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = a * a
    j = tape.batch_jacobian(y, a)
    assert j.shape == (2, 2, 2)
    assert _values(j) == [[[2.0, 0.0], [0.0, 4.0]], [[6.0, 0.0], [0.0, 8.0]]]


def test_batch_jacobian_with_different_inner_shapes():
    a = tf.constant(np.arange(6.0).reshape(2, 3))
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.stack([tf.reduce_sum(a, 1), tf.reduce_prod(a, 1)], axis=1)
    j = tape.batch_jacobian(y, a)
    assert j.shape == (2, 2, 3)
    assert _values(j[1]) == [[1.0, 1.0, 1.0], [20.0, 15.0, 12.0]]


def test_jacobian_inside_a_function():
    @tf.function
    def f(a):
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = tf.sin(a)
        return tape.jacobian(y, a)

    a = np.array([0.1, 0.2])
    assert np.allclose(f(tf.constant(a)).numpy(), np.diag(np.cos(a)))


def test_a_variable_target_differentiates_as_its_handle():
    # TF 2.21 (the guide's "result = v0" example): d(v)/d(v) is ones, not None.
    x = tf.constant(1.0)
    v0, v1 = tf.Variable(2.0), tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        result = v0
    dv0, dv1 = tape.gradient(result, [v0, v1])
    assert dv0.dtype == tf.float32 and dv0.numpy() == 1.0
    assert dv1 is None and tape.gradient(result, x) is None
    with tf.GradientTape() as tape:
        y = v1 * 3.0
    np.testing.assert_array_equal(tape.gradient([v1, y], v1).numpy(), [4.0, 4.0])


def test_an_unwatched_source_gets_no_gradient_through_ops():
    # TF 2.21: only watched tensors collect gradients; a target that is a source gets its seed.
    x, w = tf.constant([[1.0, 2.0]]), tf.constant([[1.0], [2.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.matmul(x, w)
        z = w * 2
    gx, gw = tape.gradient(y, [x, w])
    np.testing.assert_array_equal(gx.numpy(), [[1.0, 2.0]])
    assert gw is None and tape.gradient(z, w) is None
    np.testing.assert_array_equal(tape.gradient(w, w).numpy(), [[1.0], [1.0]])
    np.testing.assert_array_equal(tape.gradient(z, z).numpy(), [[1.0], [1.0]])


def test_batch_jacobian_checks_batch_dims_and_gives_zeros_when_unconnected():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    z = tf.constant([[1.0], [3.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = z * 2
        y2 = tf.cast(x, tf.float64)[:, :1] * 2
    for mode in ("none", "zero"):
        out = g.batch_jacobian(y, x, unconnected_gradients=mode)
        assert out.shape == (2, 1, 2) and out.dtype == tf.float32
        np.testing.assert_array_equal(out.numpy(), np.zeros((2, 1, 2)))
    np.testing.assert_array_equal(g.batch_jacobian(y2, x).numpy(), [[[2.0, 0.0]]] * 2)
    for a, b, text in ((x[:1], x, "((1, 2)) and source shape ((2, 2))"),
                       (x[0], x, "((2,)) and source shape ((2, 2))"),
                       (x, x[0], "((2, 2)) and source shape ((2,))")):
        with pytest.raises(ValueError, match=r"Need first dimension of target shape " +
                           text.replace("(", r"\(").replace(")", r"\)") + " to match."):
            g.batch_jacobian(a, b)


def test_jacobian_of_a_target_of_unknown_size_inside_a_function():
    @tf.function(input_signature=[tf.TensorSpec([None])])
    def jac(x):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
            c = tf.ones_like(x)
        return tape.jacobian(y, x), tape.jacobian(y, c), \
            tape.jacobian(y, c, unconnected_gradients="zero")

    j, none, zero = jac(tf.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(j.numpy(), np.diag([2.0, 4.0, 6.0]))
    assert none is None
    np.testing.assert_array_equal(zero.numpy(), np.zeros((3, 3)))
    j, _, _ = jac(tf.constant([1.0, 2.0]))
    np.testing.assert_array_equal(j.numpy(), np.diag([2.0, 4.0]))


def test_jacobians_without_pfor_need_a_persistent_tape_and_empty_targets_give_none():
    x = tf.constant([[1.0, 2.0]])
    for method, text in (("jacobian", ("the jacobian with eager execution enabled and with  "
                                       "experimental_use_pfor set to False.")),
                         ("batch_jacobian", ("the batch_jacobian with eager execution enabled "
                                             "and  with experimental_use_pfor set to False."))):
        with tf.GradientTape() as g:
            g.watch(x)
            y = x * x
        with pytest.raises(RuntimeError) as info:
            getattr(g, method)(y, x, experimental_use_pfor=False)
        assert str(info.value) == ("GradientTape must be created with persistent=True to "
                                   "compute " + text)
        with tf.GradientTape(persistent=True) as g:
            g.watch(x)
            y = x * x
        want = (1, 2, 1, 2) if method == "jacobian" else (1, 2, 2)
        assert getattr(g, method)(y, x, experimental_use_pfor=False).shape == want
    v = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(v)
        y = tf.zeros([0])
    assert g.jacobian(y, v) is None


def test_gradient_argument_errors_match_tf():
    x = tf.constant(2.0)
    message = "Cannot convert the argument `type_value`: None to a TensorFlow DType."
    for target, sources, error, text in (([x * 2, None], x, TypeError, message),
                                         (x * 2, [x, None], TypeError, message),
                                         (x * 2, 3.0, AttributeError,
                                          "'float' object has no attribute 'dtype'")):
        with tf.GradientTape() as tape:
            tape.watch(x)
        with pytest.raises(error) as info:
            tape.gradient(target, sources)
        assert str(info.value) == text
