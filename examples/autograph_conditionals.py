"""AutoGraph turns ``if`` on a tensor into tf.cond, and ``for`` over tf.range into a while loop.

From the tf.function chapter (seeds/000: conditional_function) and the tf.function guide
(seeds/001: fizzbuzz, whose lost lines follow TensorFlow's published guide).
"""

import tensorflow as tf


@tf.function
def conditional_function(x):
    if tf.reduce_sum(x) > 0:
        # This branch uses tf.abs
        return tf.abs(x)
    else:
        # This branch uses tf.square
        return tf.square(x)


# Call with positive sum
print(conditional_function(tf.constant([1, 2, -1])))
# Call with negative sum
print(conditional_function(tf.constant([-1, -2, 1])))


@tf.function
def fizzbuzz(n):
    for i in tf.range(1, n + 1):
        print('Tracing for loop')
        if i % 15 == 0:
            print('Tracing fizzbuzz branch')
            tf.print('fizzbuzz')
        elif i % 3 == 0:
            print('Tracing fizz branch')
            tf.print('fizz')
        elif i % 5 == 0:
            print('Tracing buzz branch')
            tf.print('buzz')
        else:
            print('Tracing default branch')
            tf.print(i)


fizzbuzz(tf.constant(5))
fizzbuzz(tf.constant(20))
