"""AutoGraph turns a ``while`` on a tensor condition into a graph loop; to_code shows how.

From the tf.function guide's AutoGraph section (seeds/001; lost lines follow TensorFlow's
published guide). The guide started from ``tf.random.uniform([5])``; this script starts from
fixed values so its output is deterministic, and prints a summary of the generated code (whose
exact text is an implementation detail) instead of the code itself.
"""

import tensorflow as tf


# Simple loop
@tf.function
def f(x):
    while tf.reduce_sum(x) > 1:
        tf.print(x)
        x = tf.tanh(x)
    return x


print(repr(f(tf.constant([0.35, 0.15, 0.8, 0.4, 0.95]))))

# If you're curious you can inspect the code autograph generates.
code = tf.autograph.to_code(f.python_function)
print(code.splitlines()[0])
print("uses ag__.while_stmt:", "ag__.while_stmt" in code)
