"""Advancing a Python iterator is a side effect: it happens once, while tracing.

From the tf.function guide's "Beware of Python state" section (seeds/001; lost lines follow
TensorFlow's published guide).
"""

import tensorflow as tf

external_var = tf.Variable(0)


@tf.function
def buggy_consume_next(iterator):
    external_var.assign_add(next(iterator))
    tf.print("Value of external_var:", external_var)


iterator = iter([0, 1, 2, 3])
buggy_consume_next(iterator)
# This reuses the first value from the iterator, rather than consuming the next value.
buggy_consume_next(iterator)
buggy_consume_next(iterator)
