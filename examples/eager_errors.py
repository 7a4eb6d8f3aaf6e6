"""Eager execution runs every op, so an unused op that fails still raises.

From the "Introduction to graphs and tf.function" guide's "Non-strict execution" section
(seeds/002), eager half; non_strict_execution.py has the graph half. (The guide's output came
from a GPU, where tf.gather does not check indices; on a CPU it raises.)
"""

import tensorflow as tf


def unused_return_eager(x):
    # Get index 1 will fail when `len(x) == 1`
    tf.gather(x, [1])  # unused
    return x


try:
    print(unused_return_eager(tf.constant([0.0])))
except tf.errors.InvalidArgumentError as e:
    # All operations are run during eager execution so an error is raised.
    print(f'{type(e).__name__}: {e}')
