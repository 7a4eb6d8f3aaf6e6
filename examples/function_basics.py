"""A tf.function is used like an op: call it eagerly, differentiate it, call it from another.

From the tf.function guide's Usage section (seeds/001, seeds/003). The notebook displayed each
result; the script prints its repr.
"""

import tensorflow as tf


@tf.function  # The decorator converts `add` into a `PolymorphicFunction`.
def add(a, b):
    return a + b


print(repr(add(tf.ones([2, 2]), tf.ones([2, 2]))))  # [[2., 2.], [2., 2.]]

v = tf.Variable(1.0)
with tf.GradientTape() as tape:
    result = add(v, 1.0)
print(repr(tape.gradient(result, v)))


@tf.function
def dense_layer(x, w, b):
    return add(tf.matmul(x, w), b)


print(repr(dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2]))))
