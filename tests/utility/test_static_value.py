"""tf.get_static_value while tracing evaluates TF's fixed list of ops only (tensor_util's
constant_value); values TF 2.21 gives are pinned here. Shape maths tracing knows stays usable
by ops (a branch capturing an outer value known while tracing)."""

import numpy as np

import tensortrace as tf
from tensortrace.ops.utility.basic import get_static_value

CAPTURED_SMALL = tf.constant(3)
CAPTURED_BIG = tf.constant(np.arange(200, dtype=np.int32))  # over TF's 128-element Const limit


def _traced(build):
    """``{name: (value, partial value)}`` of the tensors ``build(x)`` makes while tracing."""
    seen = {}

    @tf.function
    def f(x):
        for key, t in build(x).items():
            seen[key] = (get_static_value(t), get_static_value(t, partial=True))
        return x

    f.get_concrete_function(tf.TensorSpec([None, 3]))
    return seen


def _assert_same(got, want):
    assert (got is None) == (want is None), (got, want)
    if want is not None:
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


def test_arithmetic_and_select_are_not_evaluated():
    # TF 2.21: SelectV2, AddV2 and Reshape/StridedSlice of constants give None
    seen = _traced(lambda x: {
        "where": tf.where(tf.constant(1) >= 0, 1, tf.rank(x) + 1),
        "rank_plus": tf.rank(x) + 0, "add": tf.constant([1, 2, 3]) + 1,
        "reshape": tf.reshape(tf.constant([1, 2, 3]), [3, 1]),
        "slice": tf.constant([1, 2, 3])[1],
        "check_numerics": tf.debugging.check_numerics(tf.constant(1.0), "m"),
        "stack_axis1": tf.stack([tf.constant([1, 2])] * 2, axis=1),
        "captured_big": tf.identity(CAPTURED_BIG),
        "shape_unknown": tf.shape(x), "size_unknown": tf.size(x)})
    for key, (value, partial) in seen.items():
        assert value is None and partial is None, key


def test_the_ops_tf_evaluates():
    c = [1, 2, 3]
    seen = _traced(lambda x: {
        "rank": tf.rank(x), "shape": tf.shape(tf.zeros([2, 3])), "range": tf.range(0, 5, 2),
        "cast": tf.cast(tf.constant(c), tf.float32), "concat": tf.concat([c, c], 0),
        "stack": tf.stack([tf.constant(c)] * 2), "unstack": tf.unstack(tf.constant(c))[1],
        "split": tf.split(tf.constant(c), 3)[2], "fill": tf.fill([2], 3),
        "equal": tf.equal(c, tf.constant(c)), "not_equal": tf.not_equal(tf.constant(c), 2),
        "stop": tf.stop_gradient(tf.constant(c)), "identity": tf.identity(tf.constant(c)),
        "captured_small": tf.identity(CAPTURED_SMALL)})
    want = {"rank": np.array(2, np.int32), "shape": np.array([2, 3], np.int32),
            "range": np.array([0, 2, 4], np.int32), "cast": np.array(c, np.float32),
            "concat": np.array(c + c, np.int32), "stack": np.array([c, c], np.int32),
            "unstack": np.int32(2), "split": np.array([3], np.int32),
            "fill": np.array([3, 3], np.int32), "equal": np.array([True] * 3),
            "not_equal": np.array([True, False, True]), "stop": np.array(c, np.int32),
            "identity": np.array(c, np.int32), "captured_small": np.array(3, np.int32)}
    for key, (value, partial) in seen.items():
        _assert_same(value, want[key])
        _assert_same(partial, want[key])


def test_partial_pack():
    seen = _traced(lambda x: {"pack": tf.stack([tf.constant(1), tf.shape(x)[0]])})
    value, partial = seen["pack"]
    assert value is None  # TF 2.21: None, and array([array(1), None], dtype=object) if partial
    assert partial.dtype == object and partial.tolist() == [np.array(1, np.int32), None]


def test_a_branch_uses_an_outer_value_known_while_tracing():
    # Keras' associative_scan: an axis TF cannot give statically, used in a branch as an axis
    seen = {}

    @tf.function
    def f(x):
        axis = tf.where(tf.constant(0) >= 0, 0, tf.rank(x))
        seen["axis"] = get_static_value(axis)
        return tf.cond(tf.size(x) > 0, lambda: tf.expand_dims(x, axis + 1),
                       lambda: tf.expand_dims(x * 0, axis + 1))

    out = f(tf.constant([[1.0, 2.0]]))
    assert seen["axis"] is None
    np.testing.assert_array_equal(out.numpy(), np.array([[[1.0, 2.0]]]))
