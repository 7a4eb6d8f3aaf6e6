"""Many small eager ops: x to the power 100 by repeated tf.matmul.

From the "Introduction to graphs and tf.function" guide's "Seeing the speed-up" section
(seeds/002), eager half; seeing_the_speedup.py has the graph half. The guide drew x with
tf.random.uniform and printed timings; this script uses a fixed x (a permutation matrix, so the
powers cannot overflow) and prints the result, so its output is deterministic.
"""

import tensorflow as tf

# A permutation matrix (cycles of 3 and 7 entries): its powers are permutation matrices too.
cycle = [1, 2, 0, 4, 5, 6, 7, 8, 9, 3]
x = tf.constant([[1 if j == cycle[i] else 0 for j in range(10)] for i in range(10)])


def power(x, y):
    result = tf.eye(10, dtype=tf.dtypes.int32)
    for _ in range(y):
        result = tf.matmul(x, result)
    return result


print("Eager execution:", power(x, 100))
