"""tf.debugging pinned against TensorFlow 2.21: the asserts' eager messages, their Assert ops and
trace-time failures inside functions, check_numerics and enable_check_numerics."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.errors import InvalidArgumentError
from tensortrace.ops import debugging as D


def _raises(fn, error=InvalidArgumentError):
    with pytest.raises(error) as e:
        fn()
    return str(e.value)


def test_namespaces():
    for name in ("assert_equal", "assert_less", "assert_greater", "assert_rank"):
        assert getattr(tf, name) is getattr(tf.debugging, name)
    for name in ("assert_less_equal", "assert_near", "assert_none_equal", "check_numerics"):
        assert not hasattr(tf, name) and hasattr(tf.debugging, name)


# --- binary asserts, eagerly -------------------------------------------------------------------
def test_assert_equal_eager_message_lists_the_differences():
    assert _raises(lambda: D.assert_equal(tf.constant([1, 2, 3]), [1, 2, 4])) == (
        "Condition x == y did not hold.\nIndices of first 1 different values:\n[[2]]\n"
        "Corresponding x values:\n[3]\nCorresponding y values:\n[4]\n"
        "First 3 elements of x:\n[1 2 3]\nFirst 3 elements of y:\n[1 2 4]")
    assert _raises(lambda: D.assert_equal(1, 2, message="boom")) == (
        "boom\nCondition x == y did not hold.\nFirst 1 elements of x:\n[1]\n"
        "First 1 elements of y:\n[2]")
    assert _raises(lambda: D.assert_equal([[1, 2], [3, 4]], [[1, 5], [6, 4]], summarize=-1)) == (
        "Condition x == y did not hold.\nIndices of first 2 different values:\n[[0 1]\n [1 0]]\n"
        "Corresponding x values:\n[2 3]\nCorresponding y values:\n[5 6]\n"
        "First 4 elements of x:\n[1 2 3 4]\nFirst 4 elements of y:\n[1 5 6 4]")
    assert _raises(lambda: D.assert_equal([1, 2], [[1], [3]], summarize=1)) == (
        "Condition x == y did not hold.\nFirst 1 elements of x:\n[1]\nFirst 1 elements of y:\n[1]")


def test_binary_asserts_pass_and_fail():
    assert D.assert_equal(1, 1) is None
    assert D.assert_equal(tf.zeros([0]), tf.zeros([0])) is None
    assert D.assert_less([1, 2], [2, 3]) is None
    assert "Condition x < y did not hold." in _raises(lambda: D.assert_less([1.0, 2.0],
                                                                            [1.5, 2.0]))
    assert "Condition x != y did not hold." in _raises(lambda: D.assert_none_equal([1, 2],
                                                                                  [1, 3]))
    assert _raises(lambda: D.assert_greater_equal([1, 2], 3)) == (
        "Condition x >= y did not hold.\nFirst 2 elements of x:\n[1 2]\n"
        "First 1 elements of y:\n[3]")
    assert D.assert_greater([2], 1) is None and D.assert_less_equal([1], 1) is None
    assert "cannot compute Equal as input #1(zero-based)" in _raises(
        lambda: D.assert_equal(1, 1.0))
    assert "Incompatible shapes: [2] vs. [3]" in _raises(lambda: D.assert_equal([1, 2],
                                                                                [1, 2, 3]))


def test_unary_asserts():
    assert _raises(lambda: D.assert_negative([1, -2])) == (
        "\nCondition x < 0 did not hold element-wise:\nx (shape=(2,) dtype=int32) = \n"
        "['1', '-2']")
    assert _raises(lambda: D.assert_positive([1.0, 0.0], message="pos")) == (
        "pos.  \nCondition x > 0 did not hold element-wise:\nx (shape=(2,) dtype=float32) = \n"
        "['1.0', '0.0']")
    assert _raises(lambda: D.assert_non_negative([-1, 2, -3, 4], summarize=2)).endswith(
        "\n['-1', '2', '...']")
    # TF's assert_non_positive glues two message lines together
    assert "element-wise:x (shape=(1,)" in _raises(lambda: D.assert_non_positive([1]))
    assert D.assert_positive(tf.constant([], tf.float32)) is None


def test_assert_near():
    assert D.assert_near([1.0, 2.0], [1.0, 2.0000001]) is None
    assert _raises(lambda: D.assert_near([1.0, 2.0], [1.0, 2.1])) == (
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b''\n"
        "b'x and y not equal to tolerance rtol = tf.Tensor(1.1920929e-06, shape=(), "
        "dtype=float32), atol = tf.Tensor(1.1920929e-06, shape=(), dtype=float32)'\n"
        "b'x (shape=(2,) dtype=float32) = '\n1.0, 2.0\nb'y (shape=(2,) dtype=float32) = '\n"
        "1.0, 2.1")
    message = _raises(lambda: D.assert_near(tf.constant([1.0, 2.0], tf.float64), [1.0, 2.1],
                                            rtol=0.01, atol=0.01, message="m"))
    assert "b'm.  '" in message and "rtol = tf.Tensor(0.01, shape=(), dtype=float64)" in message
    assert "not inexact" in _raises(lambda: D.assert_near([1, 2], [1, 2]), ValueError)


# --- rank, type and static asserts ------------------------------------------------------------
def test_rank_asserts():
    assert D.assert_rank([1, 2], 1) is None
    assert _raises(lambda: D.assert_rank([1, 2], 2), ValueError) == (
        "Tensor  must have rank 2.  Received rank 1, shape (2,)")
    assert _raises(lambda: D.assert_rank([1, 2], 2, message="msg"), ValueError).startswith(
        "msg.  Tensor  must have rank 2.")
    assert _raises(lambda: D.assert_rank([1, 2], [2]), ValueError) == "Rank must be a scalar."
    assert _raises(lambda: D.assert_rank([1, 2], tf.constant(2, tf.int64)), TypeError) == (
        "tensor must be of type tf.int32; got tf.int64")
    assert _raises(lambda: D.assert_rank_at_least([1, 2], 2), ValueError) == (
        "Tensor  must have rank at least 2.  Received rank 1, shape (2,)")
    assert D.assert_rank_at_least([1, 2], 0) is None
    assert _raises(lambda: D.assert_rank_in([1, 2], [0, 2]), ValueError) == (
        "Tensor  must have rank in (0, 2).  Received rank 1, shape (2,)")
    assert _raises(lambda: D.assert_scalar([1]), ValueError) == (
        "Expected scalar shape, saw shape: (1,).")
    assert D.assert_scalar(1) is None


def test_type_asserts():
    assert _raises(lambda: D.assert_type(tf.constant(1), tf.float32, message="m"), TypeError) \
        == "m.  tensor must be of type tf.float32; got tf.int32"
    assert D.assert_type(tf.constant(1), tf.int32) is None
    assert D.assert_type(tf.Variable(1.0), tf.float32) is None
    assert _raises(lambda: D.assert_integer(tf.constant(1.0)), TypeError) == (
        "Expected \"x\" to be integer type.  Found: tensor of dtype <dtype: 'float32'>")
    assert D.assert_integer(tf.constant(1)) is None
    assert D.assert_proper_iterable([1]) is None
    for bad in (tf.constant([1]), "ab", np.array([1])):
        assert "to be a \"proper\" iterable" in _raises(lambda b=bad: D.assert_proper_iterable(b),
                                                        TypeError)
    assert "to be iterable.  Found: <class 'int'>" in _raises(
        lambda: D.assert_proper_iterable(3), TypeError)
    assert D.assert_same_float_dtype([tf.constant(1.0), tf.constant(2.0)]) == tf.float32
    assert D.assert_same_float_dtype() == tf.float32
    assert _raises(lambda: D.assert_same_float_dtype([tf.constant(1.0),
                                                      tf.constant(2.0, tf.float64)]),
                   ValueError) == ("tf.Tensor(2.0, shape=(), dtype=float64), type=<dtype: "
                                   "'float64'>, must be of the same type (<dtype: 'float32'>) as "
                                   "tf.Tensor(1.0, shape=(), dtype=float32).")
    assert _raises(lambda: D.assert_same_float_dtype([tf.constant(1)]), ValueError) == (
        "Expected floating point type, got <dtype: 'int32'>.")
    assert [D.is_numeric_tensor(x) for x in (tf.constant(1), tf.constant("a"), 1)] == \
        [True, False, False]


def test_assert_shapes_eagerly():
    x, y, p = tf.zeros([10, 3]), tf.ones([10, 7]), tf.Variable([1.0, 2.0, 3.0])
    assert D.assert_shapes([(x, ("N", "Q")), (y, ("N", "D")), (p, ("Q",)), (1.0, ())]) is None
    assert _raises(lambda: D.assert_shapes([(x, ("N", "D")), (y, ("N", "D"))]), ValueError) == (
        "Specified by tensor shape=(10, 3) dtype=float32 dimension 1.  Tensor shape=(10, 7) "
        "dtype=float32 dimension 1 must have size 3.  Received size 7, shape (10, 7)")
    assert _raises(lambda: D.assert_shapes([(x, ("N",))]), ValueError) == (
        "Tensor  must have rank in (0, 1).  Received rank 2, shape (10, 3)")
    assert "dimension -1 must have size 4" in _raises(
        lambda: D.assert_shapes([(x, ("*", 4))]), ValueError)
    assert "only allowed as the first entry" in _raises(
        lambda: D.assert_shapes([(x, (3, ...))]), ValueError)
    assert "Specified shape must be an iterable" in _raises(
        lambda: D.assert_shapes([(x, 3)]), ValueError)
    assert D.assert_shapes([(x, (..., 3)), (x, (None, ".")), (x, tf.TensorShape([10, 3]))]) \
        is None
    assert D.assert_shapes([(tf.zeros([1]), ())]) is None  # a scalar spec means shape [1]
    assert "must have size 1.  Received size 2" in _raises(
        lambda: D.assert_shapes([(tf.zeros([2]), ())]), ValueError)


# --- inside tf.function ----------------------------------------------------------------------
def test_graph_assert_returns_its_op_and_fails_at_run_time():
    ops = []

    @tf.function
    def f(x):
        ops.append(D.assert_equal(x, 2))
        return x + 1

    assert int(f(tf.constant(2))) == 3
    assert ops[0].type == "Assert"
    message = _raises(lambda: f(tf.constant(3)))
    assert ("assertion failed: [Condition x == y did not hold element-wise:] [x (x:0) = ] [3] "
            "[y (") in message


def test_graph_assert_with_known_values_fails_while_tracing():
    @tf.function
    def f():
        D.assert_equal(tf.constant(1), 2, message="static")
        return 1

    message = _raises(f)  # the user's line is prefixed, and each message line indented
    assert ("static\n    Condition x == y did not hold element-wise:\n    x (Const:0) = \n    1\n"
            "    y (") in message


def test_graph_rank_and_shape_asserts():
    @tf.function
    def rank2(x):
        D.assert_rank(x, 2)
        return x

    assert "Tensor x:0 must have rank 2.  Received rank 1, shape (2,)" in _raises(
        lambda: rank2(tf.zeros([2])), ValueError)
    message = _raises(lambda: rank2.get_concrete_function(tf.TensorSpec(None))(tf.zeros([2])))
    assert "assertion failed: [] [Tensor x:0 must have rank] [2] [Received shape: ] [2]" in message

    @tf.function
    def n_by_3(x):
        D.assert_shapes([(x, ("N", 3))])
        return x

    cf = n_by_3.get_concrete_function(tf.TensorSpec([None, None]))
    assert cf(tf.zeros([2, 3])).shape == (2, 3)
    assert ("[Specified explicitly] [Tensor x:0 dimension] [1] [must have size] [3] "
            "[Received shape: ] [2 4]") in _raises(lambda: cf(tf.zeros([2, 4])))


def test_graph_unary_and_near_asserts_run_without_control_dependencies():
    @tf.function
    def f(x):
        D.assert_negative(x)
        D.assert_near(x, -1.0, atol=10.0)
        return x

    assert float(f(tf.constant([-1.0]))[0]) == -1.0
    assert ("[Condition x < 0 did not hold element-wise:] [x (x:0) = ]"
            in _raises(lambda: f(tf.constant([1.0, -1.0]))))


_EAGER = "{{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/device:CPU:0}} "  # TF 2.21's eager kernel errors


# --- check_numerics --------------------------------------------------------------------------
def test_check_numerics():
    x = tf.constant([1.0, 2.0])
    assert D.check_numerics(x, "msg").numpy().tolist() == [1.0, 2.0]
    assert _raises(lambda: D.check_numerics(tf.constant([1.0, np.nan]), "msg")) == (
        _EAGER + "msg : Tensor had NaN values [Op:CheckNumerics] name: ")
    assert _raises(lambda: D.check_numerics(tf.constant([1.0, np.inf]), "msg")) == (
        _EAGER + "msg : Tensor had Inf values [Op:CheckNumerics] name: ")
    assert _raises(lambda: D.check_numerics(tf.constant([np.nan, -np.inf]), "msg")) == (
        _EAGER + "msg : Tensor had Inf and NaN values [Op:CheckNumerics] name: ")
    assert D.check_numerics(tf.constant([1.0], tf.float16), "m").dtype == tf.float16
    assert "Value for attr 'T' of int32" in _raises(lambda: D.check_numerics([1, 2], "m"))
    assert _raises(lambda: D.assert_all_finite(tf.constant([1.0, np.nan]), "bad")) == (
        _EAGER + "bad : Tensor had NaN values [Op:CheckNumerics] name: ")


def test_check_numerics_in_a_function_is_kept_though_unused():
    @tf.function
    def f(x):
        D.check_numerics(x, "in fn")  # stateful, as in TF: never pruned
        return x * 2.0

    assert float(f(tf.constant([1.0]))[0]) == 2.0
    assert "in fn : Tensor had NaN values" in _raises(lambda: f(tf.constant([np.nan])))


def test_enable_check_numerics():
    @tf.function
    def log(x):
        return tf.math.log(x)

    x = tf.constant([1.0, 0.0])
    D.enable_check_numerics()
    try:
        message = _raises(lambda: 1.0 / x)
        assert message.startswith(  # TF 2.21: the error of the CheckNumericsV2 op run after it
            "{{function_node __wrapped__CheckNumericsV2_device_/job:localhost/replica:0/task:0/"
            "device:CPU:0}} "
            "\n\n!!! Detected Infinity or NaN in output 0 of eagerly-executing op \"RealDiv\" "
            "(# of outputs: 1) !!!\n  dtype: <dtype: 'float32'>\n  shape: (2,)\n"
            "  # of +Inf elements: 1\n\n  Input tensors (2):\n"
            "         0: tf.Tensor(1.0, shape=(), dtype=float32)\n"
            "         1: tf.Tensor([1. 0.], shape=(2,), dtype=float32)\n")
        assert message.endswith("\n : Tensor had +Inf values [Op:CheckNumericsV2] name: ")
        assert "  Input tensor: tf.Tensor([1. 0.], shape=(2,)" in _raises(lambda: tf.math.log(x))
        assert np.isnan(tf.constant([np.nan]).numpy()[0])  # constants are not checked
        assert (tf.constant([1, 0]) // 1).numpy().tolist() == [1, 0]  # nor integers
        assert "of graph op \"Log\"" in _raises(lambda: log(x))
    finally:
        D.disable_check_numerics()
    assert np.isinf((1.0 / x).numpy()[1])
    assert "of graph op \"Log\"" in _raises(lambda: log(x))  # its graph keeps the checks
    assert np.isinf(tf.function(lambda x: tf.math.log(x))(x).numpy()[1])


def test_disabled_check_numerics_leaves_kernels_untouched():
    from tensortrace import registry

    before = {name: op.kernel for name, op in registry.all_ops().items()}
    D.enable_check_numerics()
    D.enable_check_numerics()  # idempotent
    D.disable_check_numerics()
    assert {name: op.kernel for name, op in registry.all_ops().items()} == before
