"""Few expensive ops (a convolution) gain little from tf.function.

From the tf.function guide's Usage section (seeds/001, seeds/003). The guide printed timings;
this script prints whether both calls agree instead, so its output is deterministic. It needs
Keras (tensortrace's ``keras`` extra): without it, ``python -m tensortrace`` stops at the Conv2D
line with an ImportError naming the extra.
"""

import timeit

import tensorflow as tf

conv_layer = tf.keras.layers.Conv2D(100, 3)


@tf.function
def conv_fn(image):
    return conv_layer(image)


image = tf.zeros([1, 200, 200, 100])
# Warm up
conv_layer(image)
conv_fn(image)
eager_seconds = timeit.timeit(lambda: conv_layer(image), number=10)
function_seconds = timeit.timeit(lambda: conv_fn(image), number=10)
# Timings vary run to run: print what they are computed on and that both ways agree.
print("Eager conv:", conv_layer(image).shape)
print("Function conv:", conv_fn(image).shape)
print("Same result:", bool(tf.reduce_all(conv_layer(image) == conv_fn(image))))
print("Note how there's not much difference in performance for convolutions")
