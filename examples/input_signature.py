"""An input_signature gives a tf.function one graph and rejects incompatible arguments.

From the tf.function chapter (seeds/000: specific_function) and the tf.function guide
(seeds/001: next_collatz, with the error types TensorFlow 2.21 raises).
"""

import contextlib
import traceback

import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
def specific_function(x):
    print(f"Tracing specific function with input shape: {x.shape}")
    return x * 2.0


# First call: Traces and creates graph for shape=[None], dtype=float32
result1 = specific_function(tf.constant([1.0, 2.0, 3.0]))
print(result1)
# Second call: Reuses the graph (compatible shape)
result2 = specific_function(tf.constant([4.0, 5.0]))
print(result2)
# Third call: Error! Incompatible dtype (int32 vs float32)
try:
    specific_function(tf.constant([1, 2]))
except TypeError as e:
    print(f"\nError: {e}")
# Fourth call: Error! Incompatible shape (scalar vs vector [None])
try:
    specific_function(tf.constant(1.0))
except (TypeError, ValueError) as e:  # TensorFlow 2.21 raises TypeError here
    print(f"\nError: {e}")


# Some helper code to demonstrate the kinds of errors you might encounter.
@contextlib.contextmanager
def assert_raises(error_class):
    try:
        yield
    except error_class as e:
        print('Caught expected exception \n  {}:'.format(error_class))
        traceback.print_exc(limit=2)
    except Exception as e:
        raise e
    else:
        raise Exception('Expected {} to be raised but no error was raised!'.format(
            error_class))


@tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
def next_collatz(x):
    print("Tracing with", x)
    return tf.where(x % 2 == 0, x // 2, 3 * x + 1)


print(next_collatz(tf.constant([1, 2])))
# We specified a 1-D tensor in the input signature, so this should fail.
with assert_raises(TypeError):  # ValueError in older TensorFlow; 2.21 raises TypeError
    next_collatz(tf.constant([[1, 2], [3, 4]]))

# We specified an int32 dtype in the input signature, so this should fail.
with assert_raises(TypeError):
    next_collatz(tf.constant([1.0, 2.0]))
