"""Looping over Python data unrolls into the graph; looping over a tf.data.Dataset does not.

From the tf.function guide's "Looping over Python data" section (seeds/001; lost lines follow
TensorFlow's published guide). The guide printed node counts, which depend on the graph
builder; this script prints how the counts compare instead.
"""

import tensorflow as tf


def measure_graph_size(f, *args):
    g = f.get_concrete_function(*args).graph
    return len(g.as_graph_def().node)


@tf.function
def train(dataset):
    loss = tf.constant(0)
    for x, y in dataset:
        loss += tf.abs(y - x)  # Some dummy computation.
    return loss


small_data = [(1, 1)] * 3
big_data = [(1, 1)] * 10
small = measure_graph_size(train, small_data)
big = measure_graph_size(train, big_data)
print("Python list: the bigger list makes a bigger graph:", big > small)

small = measure_graph_size(train, tf.data.Dataset.from_generator(
    lambda: small_data, (tf.int32, tf.int32)))
big = measure_graph_size(train, tf.data.Dataset.from_generator(
    lambda: big_data, (tf.int32, tf.int32)))
print("tf.data.Dataset: both graphs have the same size:", big == small)
