"""Eager execution: every call of a plain Python function runs its Python code and its ops.

From the tf.function chapter's first example (seeds/000), eager half; tracing_basics.py has the
tf.function half.
"""

import tensorflow as tf


# Define a simple Python function
def simple_computation(x, y):
    print(f"Tracing with inputs: {x}, {y}")  # This will print only during tracing
    a = tf.add(x, y)
    b = tf.multiply(a, 2)
    return b


# Eager execution (each call runs Python)
print("Eager Execution:")
result1_eager = simple_computation(tf.constant(1), tf.constant(2))
print(result1_eager)
result2_eager = simple_computation(tf.constant(3), tf.constant(4))
print(result2_eager)
