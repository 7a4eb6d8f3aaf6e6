"""Python arguments are part of the trace key; tensor arguments of one type share a trace.

From the tf.function guide's "Python or Tensor args?" section (seeds/001; lost lines follow
TensorFlow's published guide).
"""

import tensorflow as tf


def train_one_step():
    pass


@tf.function
def train(num_steps):
    print("Tracing with num_steps = {}".format(num_steps))
    for _ in tf.range(num_steps):
        train_one_step()


train(num_steps=10)
train(num_steps=20)

train(num_steps=tf.constant(10))
train(num_steps=tf.constant(20))
