"""Errors from staged control flow: TensorFlow's types and messages, plus the user's file and
line ("in user code:"); clear errors where TensorFlow fails obscurely (Python lists growing
inside graph loops); Python's own errors where Python values decide."""

import inspect
import re
import traceback

import pytest

import tensortrace as tf


def _line(fn, text):
    """The file line of ``fn``'s first source line containing ``text``."""
    lines, first = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return first + i
    raise AssertionError(f"{text!r} not in {fn.__name__}")


def _raises(error, fn, *args):
    with pytest.raises(error) as info:
        tf.function(fn)(*args)
    return str(info.value)


def _user_code(fn, text):
    """The header AutoGraph puts in front of an error raised at ``text`` in ``fn``."""
    return (f'in user code:\n\n    File "{__file__}", line {_line(fn, text)}, in '
            f'{fn.__name__}  *\n        {text}\n\n')


# --- conditionals -------------------------------------------------------------------------------
def branch_only(x):
    if x > 0:
        y = x
    return y


def test_variable_defined_in_one_branch_names_variable_and_line():
    message = _raises(ValueError, branch_only, tf.constant(1))
    assert message == (_user_code(branch_only, "if x > 0:") +
                       "    ValueError: 'y' must also be initialized in the else branch\n")


def else_defines_other(x):
    if x > 0:
        y = x
    else:
        z = x
    return y, z


def test_each_branch_must_define_the_live_variables():
    message = _raises(ValueError, else_defines_other, tf.constant(1))
    assert message.endswith("ValueError: 'z' must also be initialized in the main branch\n")


def dtype_mismatch(x):
    if x > 0:
        y = x
    else:
        y = 0
    return y


def test_branch_dtypes_must_agree():
    message = _raises(TypeError, dtype_mismatch, tf.constant(1.0))
    assert message.endswith("TypeError: 'y' has dtype float32 in the main branch, but dtype "
                            "int32 in the else branch\n")
    assert tf.function(dtype_mismatch)(tf.constant(-1)).numpy() == 0  # int32 both: fine


def none_in_branch(x):
    if x > 0:
        y = None
    else:
        y = 1
    return y


def test_branch_value_must_not_be_none():
    message = _raises(ValueError, none_in_branch, tf.constant(1))
    assert message.endswith("ValueError: 'y' is None at the end of the main branch.\n")


def structure_mismatch(x):
    if x > 0:
        y = (1, 2)
    else:
        y = 1
    return y


def test_branch_structures_must_agree():
    message = _raises(TypeError, structure_mismatch, tf.constant(1))
    assert "TypeError: 'y' must have the same nested structure in the main and else " \
           "branches" in message


def return_in_one_branch(x):
    if x > 0:
        return x
    x = x * 2


def test_tensor_conditional_return_needs_both_branches():
    message = _raises(ValueError, return_in_one_branch, tf.constant(1))
    assert message.endswith("ValueError: the else branch must also have a return statement.\n")
    assert return_in_one_branch(-1) is None  # Python values: Python semantics
    assert tf.function(return_in_one_branch)(-1) is None


def int_condition(x):
    if x:
        y = 1
    else:
        y = 2
    return y


def test_condition_must_be_a_boolean_scalar():
    message = _raises(ValueError, int_condition, tf.constant(1))
    assert message.endswith(
        'ValueError: condition of if statement expected to be `tf.bool` scalar, got '
        'Tensor("x:0", shape=(), dtype=int32); to use as boolean Tensor, use `tf.cast`; to '
        'check for None, use `is not None`\n')
    message = _raises(ValueError, int_condition, tf.constant([True, False]))
    assert message.endswith(
        'ValueError: condition of if statement expected to be `tf.bool` scalar, got '
        'Tensor("x:0", shape=(2,), dtype=bool); to check for None, use `is not None`\n')
    assert tf.function(int_condition)(tf.constant([True])).numpy() == 1  # one element: fine


def int_while(x):
    while x:
        x -= 1
    return x


def test_while_condition_must_be_boolean():
    message = _raises(ValueError, int_while, tf.constant(3))
    assert re.search(r"ValueError: condition of while loop expected to be `tf.bool` scalar, got "
                     r"Tensor\(\"\w+:0\", shape=\(\), dtype=int32\)", message)


def python_undefined(flag):
    if flag:
        y = 1
    return y


def test_python_condition_leaving_variable_unbound_raises_unbound_local():
    assert tf.function(python_undefined)(True) == 1
    message = _raises(UnboundLocalError, python_undefined, False)
    assert message.endswith("UnboundLocalError: cannot access local variable 'y' where it is "
                            "not associated with a value\n")


# --- loops --------------------------------------------------------------------------------------
def defined_in_loop(n):
    for i in tf.range(n):
        y = i * 2
    return y


def test_variable_defined_only_in_loop_needs_an_iteration():
    assert tf.function(defined_in_loop)(tf.constant(3)).numpy() == 4
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="loop must iterate at least once to initialize y"):
        tf.function(defined_in_loop)(tf.constant(0))


def read_before_defined(n):
    i = 0
    while i < n:
        y = y + 1  # noqa: F821 - read before defined, on purpose
        i += 1
    return y


def test_variable_read_before_defined_in_loop():
    message = _raises(ValueError, read_before_defined, tf.constant(3))
    assert _user_code(read_before_defined, "while i < n:") in message
    assert "ValueError: 'y' must be defined before the loop\n    Note: AutoGraph tried to " \
           "define it automatically, but ran into a UnboundLocalError" in message


def list_in_loop(n):
    out = []
    for i in tf.range(n):
        out.append(i * 2)
    return tf.stack(out)


def test_python_list_growing_in_graph_loop_suggests_tensor_array():
    message = _raises(ValueError, list_in_loop, tf.constant(3))
    append = _line(list_in_loop, "out.append")
    assert _user_code(list_in_loop, "for i in tf.range(n):") in message
    assert (f"ValueError: 'out' is a Python list that grows inside a TensorFlow loop (appended "
            f"at {__file__}:{append}: out.append(i * 2)).") in message
    assert "out = tf.TensorArray(tf.int32, size=0, dynamic_size=True)" in message
    assert "out = out.write(out.size(), value)   # instead of out.append(value)" in message
    assert "out.stack()" in message


def list_in_python_loop(n):
    out = []
    for i in range(n):
        out.append(i * 2)
    return tf.stack(out)


def test_python_list_growing_in_python_loop_is_fine():
    assert tf.function(list_in_python_loop)(3).numpy().tolist() == [0, 2, 4]  # unrolled


def list_in_branch(x):
    out = [x]
    if x > 0:
        out.append(x)
    return out


def test_python_list_growing_in_graph_branch():
    message = _raises(ValueError, list_in_branch, tf.constant(1))
    assert "'out' is a Python list that grows inside a TensorFlow conditional (tf.cond)" in message


def growing_shape(x):
    while tf.reduce_sum(x) < 10:
        x = tf.concat([x, x], 0)
    return x


def invariant_shape(x):
    while tf.reduce_sum(x) < 10:
        tf.autograph.experimental.set_loop_options(shape_invariants=[(x, tf.TensorShape([None]))])
        x = tf.concat([x, x], 0)
    return x


def test_loop_variable_shape_must_not_change_without_invariant():
    message = _raises(ValueError, growing_shape, tf.constant([1]))
    assert message.endswith(
        "ValueError: 'x' has shape (1,) before the loop, but shape (2,) after one iteration. Use "
        "tf.autograph.experimental.set_loop_options to set shape invariants.\n")
    assert tf.function(invariant_shape)(tf.constant([1])).numpy().tolist() == [1] * 16


def changing_dtype(n):
    x = 0
    for i in tf.range(n):
        x = tf.cast(i, tf.float32)
    return x


def test_loop_variable_dtype_must_not_change():
    message = _raises(TypeError, changing_dtype, tf.constant(3))
    assert message.endswith("TypeError: 'x' has dtype int32 before the loop, but dtype float32 "
                            "after one iteration\n")


def python_loop_tensor_break(xs):
    s = 0
    for x in [1, 2, 3]:
        if xs > x:
            break
        s += x
    return s


def test_tensor_break_in_python_loop():
    message = _raises(NotImplementedError, python_loop_tensor_break, tf.constant(2))
    assert "NotImplementedError: break and return statements which depend on a TF condition " \
           "are not supported in Python for loops." in message


def python_while_turns_tensor(n):
    i = 0
    while i < 3:
        i = i + n
    return i


def test_python_while_condition_turning_tensor():
    message = _raises(NotImplementedError, python_while_turns_tensor, tf.constant(1))
    assert "The condition of while loop started as non-Tensor, then changed to Tensor." in message


def return_in_loop_only(n):
    for i in tf.range(n):
        if i > 2:
            return i


def test_return_inside_graph_loop_needs_a_final_return():
    message = _raises(ValueError, return_in_loop_only, tf.constant(5))
    assert "add a `return` at the end of the function" in message


# --- assert -------------------------------------------------------------------------------------
def checked(x):
    assert x > 0, "x must be positive"
    return x + 1


def test_assert_on_tensor_becomes_graph_assertion():
    f = tf.function(checked)
    assert f(tf.constant(1)).numpy() == 2
    assert "Assert" in [op.type for op in f.get_concrete_function(tf.constant(1)).graph
                        .get_operations()]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"assertion failed: \[x must be "
                                                             r"positive\]"):
        f(tf.constant(-1))
    with pytest.raises(AssertionError, match="x must be positive"):
        tf.function(checked)(-1)  # a Python condition: Python's assert


# --- errors from ops point at the user's line ---------------------------------------------------
def bad_op(x):
    if x > 0:
        y = tf.concat([x, x], 0)
    else:
        y = x
    return y


def test_op_errors_name_the_user_line():
    with pytest.raises(ValueError) as info:
        tf.function(bad_op)(tf.constant(1))
    message = str(info.value)
    assert message.startswith("in user code:")
    assert f'File "{__file__}", line {_line(bad_op, "tf.concat")}, in bad_op  *' in message
    frames = [f for f in traceback.extract_tb(info.value.__traceback__)
              if f.filename == __file__]
    assert frames[-1].lineno == _line(bad_op, "tf.concat")
    assert frames[-1].line == "y = tf.concat([x, x], 0)"


def test_errors_are_annotated_once():
    @tf.function
    def outer(x):
        return tf.function(branch_only)(x)

    message = str(pytest.raises(ValueError, outer, tf.constant(1)).value)
    assert message.count("in user code:") == 1
