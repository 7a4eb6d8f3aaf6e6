"""tf.TensorArray accumulates values across the iterations of a graph loop.

From the tf.function guide's "Accumulating values in a loop" section (seeds/001; lost lines
follow TensorFlow's published guide). The guide's input was ``tf.random.uniform``; this script
uses fixed values so its output is deterministic.
"""

import tensorflow as tf

batch_size = 2
seq_len = 3
feature_size = 4


def rnn_step(inp, state):
    return inp + state


@tf.function
def dynamic_rnn(rnn_step, input_data, initial_state):
    # [batch, time, features] -> [time, batch, features]
    input_data = tf.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]

    states = tf.TensorArray(tf.float32, size=max_seq_len)
    state = initial_state
    for i in tf.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return tf.transpose(states.stack(), [1, 0, 2])


input_data = tf.reshape(tf.range(batch_size * seq_len * feature_size, dtype=tf.float32) / 8.0,
                        [batch_size, seq_len, feature_size])
print(repr(dynamic_rnn(rnn_step, input_data, tf.zeros([batch_size, feature_size]))))
