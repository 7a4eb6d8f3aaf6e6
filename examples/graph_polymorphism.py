"""A tf.function builds a new graph for each new input type and reuses it after.

From the "Introduction to graphs and tf.function" guide's Polymorphism section (seeds/002).
"""

import tensorflow as tf


@tf.function
def my_relu(x):
    return tf.maximum(0., x)


# `my_relu` creates new graphs as it observes different input types.
print(my_relu(tf.constant(5.5)))
print(my_relu([1, -1]))
print(my_relu(tf.constant([3., -3.])))

# These two calls do *not* create new graphs.
print(my_relu(tf.constant(-2.5)))  # Input type matches `tf.constant(5.5)`.
print(my_relu(tf.constant([-1., 1.])))  # Input type matches `tf.constant([3., -3.])`.

# There are three `ConcreteFunction`s (one for each graph) in `my_relu`.
# The `ConcreteFunction` also knows the return type and shape!
print(my_relu.pretty_printed_concrete_signatures())
