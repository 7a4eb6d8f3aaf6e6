"""Top-level utilities pinned against TensorFlow 2.21: graph plumbing, ensure_shape, timestamp,
norm clipping, bitcast, repeat, bincount, matvec, embedding_lookup, confusion_matrix and the
tf.config switches."""

import logging
import time

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.config import get_soft_device_placement, set_soft_device_placement
from tensortrace.context import state
from tensortrace.errors import InvalidArgumentError
from tensortrace.graph.ir import Graph
from tensortrace.ops.core import control_dependencies, group, init_scope, no_op
from tensortrace.ops.debugging import confusion_matrix
from tensortrace.ops.utility.basic import bitcast as tf_bitcast
from tensortrace.ops.utility.basic import (device, ensure_shape, get_logger, get_static_value,
                                           is_tensor, timestamp)
from tensortrace.ops.utility.clipping import (clip_by_global_norm, clip_by_norm, embedding_lookup,
                                              global_norm)
from tensortrace.ops.utility.composites import matvec
from tensortrace.ops.utility.counting import bincount, repeat


def _values(x):
    return x.numpy().tolist()


# --- is_tensor / get_static_value --------------------------------------------------------------
def test_is_tensor():
    assert [is_tensor(x) for x in (tf.constant(1), tf.Variable(1.0), np.array(1), 1,
                                     tf.TensorSpec([1]))] == [True, True, False, False, False]


def test_get_static_value_eagerly():
    v = get_static_value(tf.constant(1))
    assert type(v) is np.int32 and v == 1
    np.testing.assert_array_equal(get_static_value(tf.constant([1, 2])), [1, 2])
    assert get_static_value(tf.Variable(1.0)) is None  # variables may change
    assert get_static_value([1, 2]) == [1, 2]  # non-tensors come back as they are
    assert get_static_value("a") == "a" and get_static_value(None) is None
    assert get_static_value(tf.constant("s")) == b"s"


def test_get_static_value_while_tracing():
    seen = {}

    @tf.function
    def f(x):
        seen["x"] = get_static_value(x)
        seen["shape"] = get_static_value(tf.shape(x))
        return x

    f(tf.constant([1.0, 2.0]))
    assert seen["x"] is None
    np.testing.assert_array_equal(seen["shape"], [2])


# --- no_op, group, control_dependencies, init_scope, device --------------------------------------
def test_plumbing_is_inert_eagerly():
    assert no_op() is None and group(tf.constant(1)) is None and group() is None
    with control_dependencies([tf.constant(1)]) as c:
        assert c is None
    with device("/GPU:0"):
        assert (tf.constant(1.0) + 1).device.endswith("CPU:0")
    for name in ("/cpu:0", "CPU", "", None, 3):
        with device(name):
            pass


def test_device_rejects_functions():
    with pytest.raises(RuntimeError, match="tf.device does not support functions."):
        device(lambda op: "/cpu:0")


def test_group_and_control_dependencies_in_a_graph():
    g = Graph("f")
    with g.as_default():
        x = g.placeholder(tf.TensorSpec([], tf.float32), "x")
        y = x * 2.0
        noop = no_op()
        grouped = group(x, [y])
        with control_dependencies([y]):
            with control_dependencies([noop]):
                inner = tf.identity(x)
            with control_dependencies(None):
                cleared = tf.identity(x)
    assert noop.type == "NoOp" and grouped.type == "NoOp"
    assert [op.name for op in grouped.control_inputs] == ["x", y.op.name]
    assert inner.op.control_inputs == (y.op, noop)  # nested blocks add up
    assert cleared.op.control_inputs == ()


def test_control_dependencies_order_asserts_inside_functions():
    @tf.function
    def f(x):
        with control_dependencies([tf.debugging.assert_positive(x)]):
            return tf.identity(x)

    assert _values(f(tf.constant([1.0]))) == [1.0]
    with pytest.raises(InvalidArgumentError, match="Condition x > 0 did not hold"):
        f(tf.constant([-1.0]))


def test_init_scope_runs_eagerly_inside_a_trace_and_pauses_tapes():
    seen = {}

    @tf.function
    def f(x):
        with init_scope():
            seen["eager"] = tf.executing_eagerly()
            seen["c"] = tf.constant(2.0) * 3
        return x * seen["c"]

    assert float(f(tf.constant(1.0))) == 6.0
    assert seen["eager"] and float(seen["c"]) == 6.0
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with init_scope():
            y = x * x
    assert tape.gradient(y, x) is None
    assert state.graph is None


def test_get_logger():
    assert get_logger() is logging.getLogger("tensortrace")  # where our warnings go


# --- ensure_shape -----------------------------------------------------------------------------
def test_ensure_shape_eager_errors():
    with pytest.raises(InvalidArgumentError) as e:
        ensure_shape(tf.constant([1, 2]), [3])
    assert str(e.value) == ("{{function_node __wrapped__EnsureShape_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
                            "Shape of tensor input [2] is not compatible with expected shape "
                            "[3]. [Op:EnsureShape] name: ")
    with pytest.raises(InvalidArgumentError, match=r"expected shape \[2,\?,1\]"):
        ensure_shape(tf.zeros([2, 2]), [2, None, 1])
    assert ensure_shape(tf.constant([[1, 2]]), tf.TensorShape(None)).shape == (1, 2)
    with pytest.raises(TypeError, match="Failed to convert"):
        ensure_shape(tf.zeros([2]), "a")


def test_ensure_shape_while_tracing_merges_and_checks():
    shapes = []

    @tf.function
    def f(x):
        y = ensure_shape(x, [None, 3])
        shapes.append(y.shape)
        return y

    with pytest.raises(ValueError, match=r"Dimension 1 in both shapes must be equal, but are 3 "
                                         r"and 4. Shapes are \[\?,3\] and \[2,4\]"):
        f(tf.zeros([2, 4]))
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        f(tf.zeros([2]))
    cf = f.get_concrete_function(tf.TensorSpec([None, None]))
    assert shapes[-1] == tf.TensorShape([None, 3])
    assert cf(tf.zeros([2, 3])).shape == (2, 3)
    with pytest.raises(InvalidArgumentError, match=r"\[2,4\] is not compatible with expected "
                                                   r"shape \[\?,3\]"):
        cf(tf.zeros([2, 4]))


# --- timestamp --------------------------------------------------------------------------------
def test_timestamp_is_float64_now_and_runs_on_every_call():
    t = timestamp()
    assert t.dtype == tf.float64 and t.shape == () and abs(float(t) - time.time()) < 5
    f = tf.function(lambda: timestamp())
    a = float(f())
    time.sleep(0.01)
    assert float(f()) > a


# --- clipping ---------------------------------------------------------------------------------
def test_clip_by_norm():
    assert _values(clip_by_norm([3.0, 4.0], 1.0)) == pytest.approx([0.6, 0.8])
    np.testing.assert_allclose(clip_by_norm([[3.0, 4.0], [0.0, 0.1]], 1.0, axes=1).numpy(),
                               [[0.6, 0.8], [0.0, 0.1]], rtol=1e-6)
    assert _values(clip_by_norm([0.0, 0.0], 1.0)) == [0.0, 0.0]
    assert _values(clip_by_norm([3.0, 4.0], -1.0)) == [0.0, 0.0]
    assert _values(clip_by_norm([3.0, 4.0], [1.0, 2.0])) == pytest.approx([0.6, 1.6])
    assert clip_by_norm(tf.constant([3.0, 4.0], tf.float16), 1.0).dtype == tf.float16
    out = clip_by_norm([3.0, np.inf], 1.0).numpy()
    assert out[0] == 0.0 and np.isnan(out[1])
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of int32"):
        clip_by_norm([3, 4], 1)


def test_clip_by_global_norm():
    clipped, norm = clip_by_global_norm([tf.constant([3.0, 4.0]), tf.constant([12.0])], 6.5)
    assert float(norm) == 13.0
    assert [_values(c) for c in clipped] == [[1.5, 2.0], [6.0]]
    clipped, norm = clip_by_global_norm([tf.constant([3.0, 4.0]), None], 1.0)
    assert clipped[1] is None and float(norm) == 5.0
    clipped, norm = clip_by_global_norm([tf.constant([3.0, np.inf])], 1.0)
    assert np.isinf(norm.numpy()) and np.isnan(clipped[0].numpy()).all()
    clipped, norm = clip_by_global_norm([tf.constant([3.0, 4.0], tf.float64)], 1.0)
    assert norm.dtype == tf.float64 and clipped[0].dtype == tf.float64
    clipped, norm = clip_by_global_norm([], 1.0)
    assert clipped == [] and float(norm) == 0.0
    assert float(global_norm([tf.constant([3.0, 4.0])])) == 5.0
    with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
        clip_by_global_norm(tf.constant([3.0, 4.0]), 1.0)
    with pytest.raises(InvalidArgumentError):
        clip_by_global_norm([tf.constant([3.0]), tf.constant([1.0], tf.float64)], 1.0)


# --- bitcast ----------------------------------------------------------------------------------
def test_bitcast_values_and_shapes():
    assert _values(tf_bitcast(tf.constant([1.0, 2.0]), tf.int32)) == [1065353216, 1073741824]
    assert _values(tf_bitcast(tf.constant([1, 2]), tf.uint8)) == [[1, 0, 0, 0], [2, 0, 0, 0]]
    assert _values(tf_bitcast(tf.constant([[1, 2, 3, 4]], tf.uint8), tf.int32)) == [67305985]
    assert _values(tf_bitcast(tf.constant(1.0), tf.int16)) == [0, 16256]
    scalar = tf_bitcast(tf.constant(1.0), tf.int32)
    assert scalar.shape == () and int(scalar) == 1065353216
    assert _values(tf_bitcast(tf.constant([1.0], tf.complex64), tf.float32)) == [[1.0, 0.0]]


def test_bitcast_errors():
    with pytest.raises(InvalidArgumentError) as e:
        tf_bitcast(tf.constant([1, 2, 3], tf.uint8), tf.int32)
    assert str(e.value) == (  # the DataType enums, after TF's eager prefix
        "{{function_node __wrapped__Bitcast_device_/job:localhost/replica:0/task:0/device:CPU:0}} Cannot bitcast from 4 to 3 [Op:Bitcast] name: ")
    with pytest.raises(InvalidArgumentError, match="Value for attr 'type' of bool"):
        tf_bitcast(tf.constant([1]), tf.bool)
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of string"):
        tf_bitcast(tf.constant(["a"]), tf.int32)
    bitcast = tf.function(lambda x: tf_bitcast(x, tf.int32))
    with pytest.raises(ValueError, match="Cannot bitcast from 4 to 3 due to shape. 8 does not "
                                         "match 4"):
        bitcast(tf.constant(np.arange(8, dtype=np.uint8)))
    assert bitcast.get_concrete_function(
        tf.TensorSpec([None, None], tf.uint8)).structured_outputs.shape.as_list() == [None]


# --- repeat -----------------------------------------------------------------------------------
@pytest.mark.parametrize("args,kwargs,expected", [
    (([1, 2, 3], 2), {}, [1, 1, 2, 2, 3, 3]),
    (([1, 2, 3], [1, 0, 2]), {}, [1, 3, 3]),
    (([[1, 2], [3, 4]], 2), {"axis": 1}, [[1, 1, 2, 2], [3, 3, 4, 4]]),
    (([[1, 2], [3, 4]], [2, 1]), {"axis": 0}, [[1, 2], [1, 2], [3, 4]]),
    (([[1, 2], [3, 4]], [2, 1]), {"axis": -1}, [[1, 1, 2], [3, 3, 4]]),
    (([[1, 2], [3, 4]], 2), {}, [1, 1, 2, 2, 3, 3, 4, 4]),
    ((3, 2), {}, [3, 3]),
    (([1, 2], [-1, 2]), {}, [2, 2]),  # negative counts repeat nothing
    (([1, 2], [1]), {}, [1, 2]),  # one count broadcasts
    ((["a", "b"], 2), {}, [b"a", b"a", b"b", b"b"]),
])
def test_repeat(args, kwargs, expected):
    assert _values(repeat(*args, **kwargs)) == expected


def test_repeat_errors_and_static_shapes():
    assert repeat(tf.zeros([0, 2]), 3, axis=1).shape == (0, 6)
    assert repeat([1.0, 2.0], tf.constant([2, 1], tf.int64)).dtype == tf.float32
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        repeat([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="must have rank at most 1"):
        repeat([1, 2], [[1, 2]])
    with pytest.raises(ValueError, match="axis=3 out of bounds: expected -1<=axis<1"):
        repeat([1, 2], 2, axis=3)
    with pytest.raises(TypeError, match="must be of type integer"):
        repeat([1, 2], 2.0)
    shapes = []

    @tf.function
    def f(x, r):
        shapes.append((repeat(x, r).shape, repeat(x, 3).shape))
        return repeat(x, r)

    assert _values(f(tf.constant([1, 2]), tf.constant([2, 3]))) == [1, 1, 2, 2, 2]
    assert shapes[-1] == (tf.TensorShape([None]), tf.TensorShape([6]))


# --- bincount ---------------------------------------------------------------------------------
def test_bincount():
    B = bincount
    assert _values(B([1, 1, 3])) == [0, 2, 0, 1]
    assert B(tf.constant([1, 1, 3], tf.int64)).dtype == tf.int32
    assert _values(B([1, 1, 3], minlength=6)) == [0, 2, 0, 1, 0, 0]
    assert _values(B([1, 1, 3], maxlength=2)) == [0, 2]
    assert _values(B([1, 1, 3], weights=[0.5, 1.0, 2.0])) == [0.0, 1.5, 0.0, 2.0]
    w64 = B([1, 1, 3], weights=tf.constant([1, 2, 3], tf.int64))
    assert w64.dtype == tf.int64 and _values(w64) == [0, 3, 0, 3]
    assert B([1, 1, 3], dtype=tf.float32).dtype == tf.float32
    assert _values(B([1, 1, 3], binary_output=True)) == [0, 1, 0, 1]
    assert _values(B([[1, 1], [0, 3]], axis=-1)) == [[0, 2, 0, 0], [1, 0, 0, 1]]
    assert _values(B([[1, 1], [0, 3]], axis=-1, weights=[[1.0, 2.0], [3.0, 4.0]])) == \
        [[0, 3, 0, 0], [3, 0, 0, 4]]
    assert _values(B([[1, 1], [0, 3]])) == [1, 2, 0, 1]
    assert _values(B(tf.zeros([0], tf.int32))) == []
    assert _values(B(tf.zeros([0], tf.int32), minlength=3)) == [0, 0, 0]
    assert _values(B([1.0, 2.0])) == [0, 1, 1]  # float input is cast to int32
    assert _values(B([1, 5], maxlength=3)) == [0, 1, 0]
    # weights decide the output dtype, whatever `dtype` says
    assert B([1, 2], weights=[1.0, 2.0], dtype=tf.int32).dtype == tf.float32


def test_bincount_errors():
    with pytest.raises(InvalidArgumentError, match="Input arr must be non-negative!"):
        bincount([-1, 2])
    with pytest.raises(ValueError, match="Unsupported value for argument axis=1"):
        bincount([1, 2], axis=1)
    with pytest.raises(ValueError, match="mutually exclusive"):
        bincount([1, 2], weights=[1.0, 2.0], binary_output=True)
    with pytest.raises(InvalidArgumentError, match="`weights` must be the same shape as `arr`"):
        bincount([1, 2], weights=[1.0, 2.0, 3.0])
    with pytest.raises(InvalidArgumentError, match="Value for attr 'Tidx' of uint8"):
        bincount(tf.constant([1, 2], tf.uint8))


# --- matvec, embedding_lookup, confusion_matrix -------------------------------------------------
def test_matvec():
    m = [[1.0, 2.0], [3.0, 4.0]]
    assert _values(matvec(m, [1.0, 1.0])) == [3.0, 7.0]
    assert _values(matvec(m, [1.0, 1.0], transpose_a=True)) == [4.0, 6.0]
    assert matvec(tf.ones([3, 2, 2]), tf.ones([2])).shape == (3, 2)
    assert _values(matvec([[1, 2], [3, 4]], [1, 1])) == [3, 7]
    with pytest.raises(InvalidArgumentError, match="Matrix size-incompatible"):
        matvec(tf.ones([2, 3]), tf.ones([2]))


def test_embedding_lookup():
    params = tf.constant([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    assert _values(embedding_lookup(params, [2, 0])) == [[4, 5], [0, 1]]
    assert embedding_lookup(params, [[2, 0], [1, 1]]).shape == (2, 2, 2)
    assert _values(embedding_lookup(params, 1)) == [2, 3]
    assert _values(embedding_lookup(tf.Variable(params), [2])) == [[4, 5]]
    # sharded params: TF's "div" strategy deals out contiguous blocks of ids
    assert _values(embedding_lookup([params[:2], params[2:]], [0, 1, 2])) == \
        [[0, 1], [2, 3], [4, 5]]
    assert _values(embedding_lookup([params, params], [0, 5])) == [[0, 1], [4, 5]]
    np.testing.assert_allclose(embedding_lookup(params, [2, 0], max_norm=1.0).numpy(),
                               [[0.62469506, 0.78086877], [0.0, 1.0]], rtol=1e-6)
    with pytest.raises(InvalidArgumentError, match=r"indices\[0\] = 3 is not in \[0, 3\)"):
        embedding_lookup(params, [3])
    with pytest.raises(ValueError, match="Length of params is currently 0"):
        embedding_lookup([], [1])


def test_embedding_lookup_gradient_reaches_the_variable():
    v = tf.Variable([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(embedding_lookup(v, [2, 0, 2]))
    assert _values(tf.convert_to_tensor(tape.gradient(y, v))) == [[1, 1], [0, 0], [2, 2]]


def test_confusion_matrix():
    C = confusion_matrix
    m = C([1, 2, 4], [2, 2, 4])
    assert m.dtype == tf.int32 and m.shape == (5, 5)
    assert m.numpy()[1, 2] == 1 and m.numpy()[2, 2] == 1 and m.numpy()[4, 4] == 1
    assert m.numpy().sum() == 3
    assert C([1, 2, 4], [2, 2, 4], num_classes=6).shape == (6, 6)
    assert _values(C([1, 2], [2, 2], weights=tf.constant([1, 2], tf.int64))) == \
        [[0, 0, 0], [0, 0, 1], [0, 0, 2]]
    assert C([1, 2, 4], [2, 2, 4], dtype=tf.float32).dtype == tf.float32
    with pytest.raises(InvalidArgumentError) as e:
        C([1, 2, 4], [2, 2, 4], num_classes=3)
    assert str(e.value).startswith("`labels` out of bound\nCondition x < y did not hold.")
    with pytest.raises(InvalidArgumentError, match="`labels` contains negative values"):
        C([1, -2], [2, 2])


# --- tf.config --------------------------------------------------------------------------------
def test_config_switches_are_recorded():
    assert get_soft_device_placement() is True
    assert tf.config.threading.get_inter_op_parallelism_threads() == 0
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    try:
        set_soft_device_placement(False)
        tf.config.threading.set_inter_op_parallelism_threads(2)
        tf.config.threading.set_intra_op_parallelism_threads(3)
        assert get_soft_device_placement() is False
        assert tf.config.threading.get_inter_op_parallelism_threads() == 2
        assert tf.config.threading.get_intra_op_parallelism_threads() == 3
    finally:
        set_soft_device_placement(True)
        tf.config.threading.set_inter_op_parallelism_threads(0)
        tf.config.threading.set_intra_op_parallelism_threads(0)
    assert tf.config.set_soft_device_placement is set_soft_device_placement
