"""Variables in tf.function: created once on the first call, never on later calls.

From the tf.function guide's variables section (seeds/001; lost lines follow TensorFlow's
published guide).
"""

import contextlib
import traceback

import tensorflow as tf


# Some helper code to demonstrate the kinds of errors you might encounter.
@contextlib.contextmanager
def assert_raises(error_class):
    try:
        yield
    except error_class as e:
        print('Caught expected exception \n  {}:'.format(error_class))
        traceback.print_exc(limit=2)
    except Exception as e:
        raise e
    else:
        raise Exception('Expected {} to be raised but no error was raised!'.format(
            error_class))


@tf.function
def f(x):
    v = tf.Variable(1.0)
    return v


with assert_raises(ValueError):
    f(1.0)

# Non-ambiguous code is ok, though.
v = tf.Variable(1.0)


@tf.function
def f(x):
    return v.assign_add(x)


print(f(1.0))  # 2.0
print(f(2.0))  # 4.0


# Variables can be created inside a tf.function when they are created on the first call only.
class C:
    pass


obj = C()
obj.v = None


@tf.function
def g(x):
    if obj.v is None:
        obj.v = tf.Variable(1.0)
    return obj.v.assign_add(x)


print(g(1.0))  # 2.0
print(g(2.0))  # 4.0

# Variable initializers can depend on function arguments and on values of other variables.
state = []


@tf.function
def fn(x):
    if not state:
        state.append(tf.Variable(2.0 * x))
        state.append(tf.Variable(state[0] * 3.0))
    return state[0] * x * state[1]


print(fn(tf.constant(1.0)))
print(fn(tf.constant(3.0)))
