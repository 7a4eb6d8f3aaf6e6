"""One tf.function, many traces: each new argument type traces a new concrete function.

From the tf.function guide's Tracing section (seeds/001, seeds/003; lost lines follow
TensorFlow's published guide).
"""

import tensorflow as tf


@tf.function
def double(a):
    print("Tracing with", a)
    return a + a


print(double(tf.constant(1)))
print()
print(double(tf.constant(1.1)))
print()
print(double(tf.constant('a')))
print()

# This doesn't print 'Tracing with ...'
print(double(tf.constant("b")))

print(double.pretty_printed_concrete_signatures())


# Separate tf.function objects are guaranteed not to share traces.
def f():
    print('Tracing!')
    tf.print('Executing')


tf.function(f)()
tf.function(f)()
