"""Where tensortrace matched TF 2.21 only loosely: variable equality and hashing, the version
names, the variable's class and a symbolic tensor's ``numpy`` (each pinned to TF's behaviour)."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tensortrace as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# --- Variable == / != : elementwise, as TF's Variable.__eq__ (Equal, incompatible shapes ok) ---
def test_variable_equality_is_elementwise():
    v = tf.Variable([1.0, 2.0, 3.0])
    eq, ne = v == [1.0, 0.0, 3.0], v != [1.0, 0.0, 3.0]
    assert isinstance(eq, tf.Tensor) and eq.dtype == tf.bool
    np.testing.assert_array_equal(eq.numpy(), [True, False, True])
    np.testing.assert_array_equal(ne.numpy(), [False, True, False])
    np.testing.assert_array_equal((v == 2.0).numpy(), [False, True, False])  # broadcasts
    np.testing.assert_array_equal((v == v).numpy(), [True, True, True])
    np.testing.assert_array_equal((v == tf.Variable([3.0, 2.0, 1.0])).numpy(),
                                  [False, True, False])
    np.testing.assert_array_equal(([1.0, 0.0, 3.0] == v).numpy(), [True, False, True])


def test_variable_equality_of_shapes_that_cannot_broadcast_is_a_false_scalar():
    v = tf.Variable([1.0, 2.0])
    eq, ne = v == [1.0, 2.0, 3.0], v != [1.0, 2.0, 3.0]
    assert eq.shape == () and eq.numpy() is np.False_
    assert ne.shape == () and ne.numpy() is np.True_


def test_variable_equality_does_not_special_case_none():
    # TF's Variable.__eq__ converts ``other`` (a tensor's == returns False for None instead)
    with pytest.raises(ValueError, match=re.escape("Attempt to convert a value (None)")):
        tf.Variable(1.0) == None  # noqa: E711
    assert (tf.constant(1.0) == None) is False  # noqa: E711


def test_variable_equality_inside_a_function_is_elementwise():
    v = tf.Variable([1, 2, 3])

    @tf.function
    def f(x):
        return v == x, v != x

    eq, ne = f(tf.constant([1, 0, 3]))
    np.testing.assert_array_equal(eq.numpy(), [True, False, True])
    np.testing.assert_array_equal(ne.numpy(), [False, True, False])


def test_a_convergence_test_on_a_variable_converges():
    v, target = tf.Variable(0), tf.constant(5)
    steps = 0
    while not bool(v == target):  # was Python False for ever: identity, not value
        v.assign_add(1)
        steps += 1
    assert steps == 5


def test_variables_are_unhashable_and_ref_keys_them():
    x, y, z = tf.Variable(5), tf.Variable(10), tf.Variable(10)
    with pytest.raises(TypeError, match=re.escape(
            "Variable is unhashable. Instead, use variable.ref() as the key. (Variable: "
            "<tf.Variable 'Variable:0' shape=() dtype=int32, numpy=5>)")):
        {x}
    refs = {x.ref(): "five", y.ref(): "ten", z.ref(): "ten"}
    assert len(refs) == 3 and refs[y.ref()] == "ten" and x.ref() in refs
    assert x.ref().deref() is x and y.ref() != z.ref()


def test_optimizer_module_and_tape_still_tell_variables_apart():
    # equal values, distinct variables: collections and tapes key them by identity
    a, b = tf.Variable(1.0), tf.Variable(1.0)

    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.ws = [a, b, a]

    found = M().trainable_variables
    assert len(found) == 2 and found[0] is a and found[1] is b
    with tf.GradientTape() as tape:
        y = 2.0 * a + 3.0 * b
    ga, gb = tape.gradient(y, [a, b])
    assert (float(ga), float(gb)) == (2.0, 3.0)


# --- tf.__version__: the TF version followed -----------------------------------------------
def test_version_is_the_tensorflow_version_followed():
    assert tf.__version__ == tf.version.VERSION == "2.21.0"
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        own = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
    assert tf.version.TENSORTRACE_VERSION == own
    assert "version" in dir(tf) and "VERSION" in dir(tf.version)


def test_command_line_version_is_tensortraces_own():
    out = subprocess.run([sys.executable, "-m", "tensortrace", "--version"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == f"tensortrace {tf.version.TENSORTRACE_VERSION}"


# --- a variable is a ResourceVariable ------------------------------------------------------
def test_variable_class_is_resource_variable():
    v = tf.Variable(1.0)
    assert type(v).__name__ == "ResourceVariable"
    assert isinstance(v, tf.Variable) and issubclass(type(v), tf.Variable)
    assert repr(v) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"
    assert type(v.assign(2.0)).__name__ == "_UnreadVariable"

    @tf.function
    def f(w):
        return type(w).__name__

    assert f(v).numpy() == b"ResourceVariable"


# --- numpy() on a symbolic tensor ----------------------------------------------------------
def test_numpy_of_a_symbolic_tensor_is_an_attribute_error():
    @tf.function
    def g(t):
        try:
            t.numpy()
            return "no error"
        except AttributeError as e:
            return f"{type(t).__name__}: {e}"

    assert (g(tf.constant([1.0, 2.0])).numpy().decode()
            == "SymbolicTensor: 'SymbolicTensor' object has no attribute 'numpy'")


# --- tf.py_function: TF's error mapping, the decorator form, gradients through the body ------
@pytest.mark.parametrize("exc,error", [
    (ValueError("boom"), tf.errors.InvalidArgumentError),
    (TypeError("boom"), tf.errors.InvalidArgumentError),
    (StopIteration("boom"), tf.errors.OutOfRangeError),
    (MemoryError("boom"), tf.errors.ResourceExhaustedError),
    (NotImplementedError("boom"), tf.errors.UnimplementedError),
    (RuntimeError("boom"), tf.errors.UnknownError),
    (KeyError("boom"), tf.errors.UnknownError),
])
def test_py_function_maps_python_exceptions_as_tfs_kernel(exc, error):
    def body(x):
        raise exc

    name = type(exc).__name__
    with pytest.raises(error) as info:  # eagerly: class and text, traceback, the op tag
        tf.py_function(body, [1.0], tf.float32)
    assert type(info.value) is error
    message = info.value.message
    assert message.startswith(  # TF 2.21: the eager op runs as a one-op function, named first
        "{{function_node __wrapped__EagerPyFunc_Tin_1_Tout_1_device_/job:localhost/replica:0/"
        f"task:0/device:CPU:0}}}} {name}: {exc}\nTraceback (most recent call last):\n\n")
    assert message.endswith(f"{name}: {exc}\n\n [Op:EagerPyFunc] name: ")

    @tf.function
    def f(x):
        return tf.py_function(body, [x], tf.float32)

    with pytest.raises(error) as info:
        f(tf.constant(1.0))
    assert type(info.value) is error and f"\n{name}: {exc}\n" in info.value.message


def test_a_tf_error_inside_py_function_is_unknown():
    with pytest.raises(tf.errors.UnknownError) as info:
        tf.py_function(lambda x: x[5], [tf.constant([1.0])], tf.float32)
    assert info.value.message.startswith(  # TF 2.21's text
        "{{function_node __wrapped__EagerPyFunc_Tin_1_Tout_1_device_/job:localhost/replica:0/task:0"
        "/device:CPU:0}} InvalidArgumentError: {{function_node __wrapped__StridedSlice_device_/job:"
        "localhost/replica:0/task:0/device:CPU:0}} slice index 5 of dimension 0 out of bounds. "
        "[Op:StridedSlice] name: strided_slice/")


def test_py_function_as_a_decorator():
    runs = []

    @tf.py_function(Tout=tf.float32)
    def py_log_huber(x, m):
        runs.append(1)
        if tf.abs(x) <= m:
            return x ** 2
        return m ** 2 * (1 - 2 * tf.math.log(m) + tf.math.log(x ** 2))

    x, m = tf.constant(1.0), tf.constant(2.0)
    assert py_log_huber(x, m).numpy() == 1.0 and py_log_huber.__name__ == "py_log_huber"

    @tf.function
    def tf_wrapper(x):
        return py_log_huber(x, tf.constant(2.0))

    assert tf_wrapper(x).numpy() == 1.0 and tf_wrapper(x).numpy() == 1.0
    assert len(runs) == 3  # every call runs the body
    np.testing.assert_allclose(py_log_huber(tf.constant(3.0), m).numpy(),
                               4 * (1 - 2 * np.log(2) + np.log(9)), rtol=1e-6)


def test_py_function_takes_a_single_tensor_as_inp():
    assert tf.py_function(lambda x: x * 2, tf.constant(3.0), tf.float32).numpy() == 6.0


def test_gradient_through_py_function_is_the_bodys():
    runs = []

    def body(x, y):
        runs.append(1)
        return tf.sin(x) * y

    x, y = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = tf.py_function(body, [x * 1.0, y], tf.float32)
    gx, gy = tape.gradient(z, [x, y])
    np.testing.assert_allclose([gx.numpy(), gy.numpy()], [np.cos(2.0) * 3.0, np.sin(2.0)],
                               rtol=1e-6)
    assert len(runs) == 1  # the body ran once: its tape was kept for the gradient

    @tf.function
    def g(x):  # a gradient built in a trace: runs the body's gradient at each call
        with tf.GradientTape() as tape:
            tape.watch(x)
            out = tf.py_function(lambda t: tf.sin(t) * t, [x], tf.float32)
        return tape.gradient(out, x)

    for v in (2.0, 1.0):
        np.testing.assert_allclose(g(tf.constant(v)).numpy(), np.cos(v) * v + np.sin(v),
                                   rtol=1e-6)


def test_gradient_of_a_py_function_output_not_depending_on_an_input_is_zero():
    x, n = tf.constant(2.0), tf.constant(4.0)
    with tf.GradientTape() as tape:
        tape.watch([x, n])
        z = tf.py_function(lambda a, b: a * 3.0, [x, n], tf.float32)
    gx, gn = tape.gradient(z, [x, n])
    assert gx.numpy() == 3.0 and gn.numpy() == 0.0


# --- tf.function arguments -----------------------------------------------------------------
class _Unhashable:
    """Neither weakly referable (slots) nor hashable (__eq__ without __hash__)."""

    __slots__ = ()

    def __eq__(self, other):
        return True


@pytest.mark.parametrize("value", [_Unhashable(), bytearray(b"a"), [1, bytearray(b"a")]])
def test_an_argument_neither_weakly_referable_nor_hashable_is_a_type_error(value):
    @tf.function
    def f(x, s):
        return x

    with pytest.raises(TypeError, match=re.escape(
            "Could not generate a generic TraceType for ")) as info:
        f(tf.constant(1.0), value)
    assert str(info.value).endswith(
        ".Please verify that it is immutable/hashable. Otherwise, consider implementing the "
        "Tracing Protocol for it.")


def test_weakly_referable_or_hashable_arguments_are_accepted():
    class Unhashable:  # weakly referable: TF matches it by identity
        def __eq__(self, other):
            return True

    @tf.function
    def f(x, s):
        return x + 1.0

    for value in ({1}, Unhashable(), frozenset([1]), (1, "a")):
        assert f(tf.constant(1.0), value).numpy() == 2.0


def test_concrete_function_converts_python_numbers_for_tensor_spec_inputs():
    # TF's TensorSpec.cast converts a Python value to the spec's dtype
    @tf.function
    def f(x):
        return x * 2.0

    g = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    for value in (3, 3.0):
        out = g(value)
        assert out.dtype == tf.float32 and out.numpy() == 6.0


def test_py_function_returning_a_variable_is_tfs_runtime_error():
    v = tf.Variable(1.0)
    with pytest.raises(tf.errors.UnknownError) as info:
        tf.py_function(lambda: v, [], tf.float32)
    assert info.value.message.startswith(
        "{{function_node __wrapped__EagerPyFunc_Tin_0_Tout_1_device_/job:localhost/replica:0/task:0"
        "/device:CPU:0}} RuntimeError: Attempting to return a variable from an eagerly executed py_func. Only "
        "numeric data structures like Tensors or NumPy arrays should be returned; to return the "
        "value of a variable, make sure to obtain the Tensor backing it by calling "
        "`.read_value()` on the variable in question: ")
    assert "\nTraceback (most recent call last):\n" in info.value.message
    assert tf.py_function(lambda: v.read_value(), [], tf.float32).numpy() == 1.0
