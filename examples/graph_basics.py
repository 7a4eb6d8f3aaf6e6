"""tf.function turns a Python function, and every function it calls, into a graph.

From the "Introduction to graphs and tf.function" guide (seeds/002). The notebook displayed the
last value; the script prints it.
"""

import tensorflow as tf


# Define a Python function.
def a_regular_function(x, y, b):
    x = tf.matmul(x, y)
    x = x + b
    return x


# The Python type of `a_function_that_uses_a_graph` will now be a
# `PolymorphicFunction`.
a_function_that_uses_a_graph = tf.function(a_regular_function)

# Make some tensors.
x1 = tf.constant([[1.0, 2.0]])
y1 = tf.constant([[2.0], [3.0]])
b1 = tf.constant(4.0)

orig_value = a_regular_function(x1, y1, b1).numpy()
# Call a `tf.function` like a Python function.
tf_function_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
assert (orig_value == tf_function_value)


def inner_function(x, y, b):
    x = tf.matmul(x, y)
    x = x + b
    return x


# Using the `tf.function` decorator makes `outer_function` into a
# `PolymorphicFunction`.
@tf.function
def outer_function(x):
    y = tf.constant([[2.0], [3.0]])
    b = tf.constant(4.0)

    return inner_function(x, y, b)


# Note that the callable will create a graph that
# includes `inner_function` as well as `outer_function`.
print(repr(outer_function(tf.constant([[1.0, 2.0]])).numpy()))
