"""A graph runs only the ops its outputs need, so an unused failing op raises nothing.

From the "Introduction to graphs and tf.function" guide's "Non-strict execution" section
(seeds/002), graph half; eager_errors.py has the eager half.
"""

import tensorflow as tf


@tf.function
def unused_return_graph(x):
    tf.gather(x, [1])  # unused
    return x


# Only needed operations are run during graph execution. The error is not raised.
print(unused_return_graph(tf.constant([0.0])))
