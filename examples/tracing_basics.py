"""tf.function traces a Python function once per input signature and reuses the graph.

From the tf.function chapter's first example (seeds/000), graph half; eager_basics.py has the
eager half.
"""

import tensorflow as tf


# Decorate the function with tf.function
@tf.function
def optimized_computation(x, y):
    # Will also print only during tracing
    print(f"Tracing optimized function with inputs: {x}, {y}")
    a = tf.add(x, y)
    b = tf.multiply(a, 2)
    return b


print("\nGraph Execution (tf.function):")
# First call: Traces the function and builds the graph
result1_graph = optimized_computation(tf.constant(1), tf.constant(2))
print(result1_graph)
# Second call (same input types/shapes): Reuses the cached graph
result2_graph = optimized_computation(tf.constant(3), tf.constant(4))
print(result2_graph)
# Third call (different input types - float32): Triggers retracing
result3_graph = optimized_computation(tf.constant(1.0), tf.constant(2.0))
print(result3_graph)
# Fourth call (same as third): Reuses the float32 graph
result4_graph = optimized_computation(tf.constant(3.0), tf.constant(4.0))
print(result4_graph)
