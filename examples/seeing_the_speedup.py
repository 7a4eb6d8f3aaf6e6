"""tf.function runs a graph of many small ops faster than eager execution does.

From the "Introduction to graphs and tf.function" guide's "Seeing the speed-up" section
(seeds/002). The guide drew x with tf.random.uniform and printed timings; this script uses a
fixed x (a permutation matrix, so the powers cannot overflow) and, instead of the timings,
prints whether both ways agree, so its output is deterministic (bench/bench_eager.py times it).
"""

import timeit

import tensorflow as tf

# A permutation matrix (cycles of 3 and 7 entries): its powers are permutation matrices too.
cycle = [1, 2, 0, 4, 5, 6, 7, 8, 9, 3]
x = tf.constant([[1 if j == cycle[i] else 0 for j in range(10)] for i in range(10)])


def power(x, y):
    result = tf.eye(10, dtype=tf.dtypes.int32)
    for _ in range(y):
        result = tf.matmul(x, result)
    return result


eager_seconds = timeit.timeit(lambda: power(x, 100), number=100)

power_as_graph = tf.function(power)
graph_seconds = timeit.timeit(lambda: power_as_graph(x, 100), number=100)

print("Same result:", bool(tf.reduce_all(power(x, 100) == power_as_graph(x, 100))))
