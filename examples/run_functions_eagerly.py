"""tf.config.run_functions_eagerly runs a tf.function's Python on every call, like eager code.

From the "Introduction to graphs and tf.function" guide's "Graph execution vs. eager execution"
section (seeds/002). The guide drew y_true and y_pred with tf.random.uniform; this script uses
the values the guide printed so its output is deterministic.
"""

import tensorflow as tf


@tf.function
def get_MSE(y_true, y_pred):
    sq_diff = tf.pow(y_true - y_pred, 2)
    return tf.reduce_mean(sq_diff)


y_true = tf.constant([1, 4, 3, 1, 3])
y_pred = tf.constant([0, 3, 8, 0, 6])
print(y_true)
print(y_pred)

print(repr(get_MSE(y_true, y_pred)))

tf.config.run_functions_eagerly(True)
print(repr(get_MSE(y_true, y_pred)))
# Don't forget to set it back when you are done.
tf.config.run_functions_eagerly(False)


@tf.function
def get_MSE(y_true, y_pred):
    print("Calculating MSE!")
    sq_diff = tf.pow(y_true - y_pred, 2)
    return tf.reduce_mean(sq_diff)


error = get_MSE(y_true, y_pred)
error = get_MSE(y_true, y_pred)
error = get_MSE(y_true, y_pred)

# Now, globally set everything to run eagerly to force eager execution.
tf.config.run_functions_eagerly(True)

# Observe what is printed below.
error = get_MSE(y_true, y_pred)
error = get_MSE(y_true, y_pred)
error = get_MSE(y_true, y_pred)

tf.config.run_functions_eagerly(False)
