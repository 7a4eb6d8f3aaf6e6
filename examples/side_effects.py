"""Python side effects run only while tracing; tf.print and tf.py_function run on every call.

From the tf.function guide's "Side effects in tf.function" section (seeds/001; lost lines follow
TensorFlow's published guide).
"""

import tensorflow as tf


@tf.function
def f(x):
    print("Traced with", x)
    tf.print("Executed with", x)


f(1)
f(1)
f(2)

external_list = []


def side_effect(x):
    print('Python side effect')
    external_list.append(x)


@tf.function
def f(x):
    tf.py_function(side_effect, inp=[x], Tout=[])


f(1)
f(1)
f(1)
# The list append happens all three times!
assert len(external_list) == 3
# The list contains tf.constant(1), not 1, because py_function casts everything to tensors.
assert external_list[0].numpy() == 1
