"""Python values become tensors as TF 2.21 converts them, and bad ones fail with TF's error.

Eagerly TF converts with its C++ sequence converter (py_seq_tensor.cc): the requested dtype's
converter, else the one of the first element's type, then a Cast where the dtypes are compatible
(so ints wrap: 1000 as int8 is -24). While a function is traced it converts through NumPy
(tensor_util.make_tensor_proto), which refuses ints out of the dtype's range.
"""

import numpy as np
import pytest

import tensortrace as tf

RECTANGULAR = "Can't convert non-rectangular Python sequence to Tensor."
MIXED = "Can't convert Python sequence with mixed types to Tensor."
OUT_OF_RANGE = "Can't convert Python sequence with out-of-range integer to Tensor."
OUT_OF_RANGE_DOUBLE = ("Can't convert Python sequence with a value out of range for a "
                       "double-precision float.")
UNSUPPORTED_NONE = ("Attempt to convert a value (None) with an unsupported type "
                    "(<class 'NoneType'>) to a Tensor.")


def nested(depth):
    value = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("value, dtype, want_dtype, want", [
    (1000, tf.int8, tf.int8, -24),  # converted as int64, then Cast: wraps
    ([1000, -129], tf.int8, tf.int8, [-24, 127]),
    (-10, tf.uint32, tf.uint32, 4294967286),
    (2**63, tf.uint64, tf.uint64, 2**63),
    (2**64 - 1, tf.uint64, tf.uint64, 2**64 - 1),
    (2**31, None, tf.int64, 2**31),
    ([1, 2**40, 2.5], None, tf.float32, [1.0, 2.0**40, 2.5]),  # int32 -> int64 -> float
    (2**64, tf.float32, tf.float32, 2.0**64),
    (2**64, tf.complex128, tf.complex128, 2.0**64),
    ([2.5, 2**200], None, tf.float32, [2.5, np.inf]),  # ints past float32 become inf
    (1e40, tf.float32, tf.float32, np.inf),  # via double, then Cast
    ([2**40, 2.5, 2**64], None, tf.float32, [2.0**40, 2.5, 2.0**64]),
    ([2**40, True], None, tf.int64, [2**40, 1]),
    ([1, True], None, tf.int32, [1, 1]),  # the int converter takes bools...
    ([1.5, True], None, tf.float32, [1.5, 1.0]),
    ([np.float64(1.5), 2], None, tf.float64, [1.5, 2.0]),  # a NumPy double first: float64
    ([2.0, np.float64(1.5)], None, tf.float32, [2.0, 1.5]),
    (True, tf.int32, tf.int32, 1),
    ([[], [1]], None, tf.float32, np.zeros((2, 0))),  # the shape comes from first elements
    ([], tf.int8, tf.int8, np.zeros((0,))),
])
def test_eager_values(value, dtype, want_dtype, want):
    t = tf.constant(value, dtype)
    assert t.dtype == want_dtype
    np.testing.assert_array_equal(t.numpy(), np.array(want, want_dtype.as_numpy_dtype))


@pytest.mark.parametrize("value, dtype, error, message", [
    (2**63, tf.int64, ValueError, OUT_OF_RANGE),
    (2**64, None, ValueError, OUT_OF_RANGE),
    ([1, 2**64], None, ValueError, OUT_OF_RANGE),
    (2**64, tf.int8, ValueError, OUT_OF_RANGE),
    (2**64, tf.bfloat16, ValueError, OUT_OF_RANGE),  # no converter of its own: int64 first
    (10**400, tf.float32, ValueError, OUT_OF_RANGE),  # too big for a double, then for int64
    (10**400, None, ValueError, OUT_OF_RANGE),
    ([1, 2**200, 2.5], None, ValueError, OUT_OF_RANGE),  # the first failing element decides
    ([1, 2**64, "a"], None, ValueError, OUT_OF_RANGE),
    ([1, "a", 2**64], None, ValueError, MIXED),
    (1e40, None, ValueError, OUT_OF_RANGE_DOUBLE),
    ([1.0, -1e39], None, ValueError, OUT_OF_RANGE_DOUBLE),
    ([[1], [1, 2]], None, ValueError, RECTANGULAR),
    ([[1], 2], None, ValueError, RECTANGULAR),
    ([[1, 2], [3]], tf.float32, ValueError, RECTANGULAR),
    ([1, "a"], None, ValueError, MIXED),
    (["a", 1], None, ValueError, MIXED),
    ([1, None], None, ValueError, MIXED),
    ([1, object()], None, ValueError, MIXED),
    ([1, [2]], None, ValueError, MIXED),  # a list where a number belongs
    ([1, 1j], None, ValueError, MIXED),
    ([True, 1], None, ValueError, MIXED),  # ...the bool converter takes no ints
    ([[1, "a"], [1]], None, ValueError, MIXED),  # met before the short row
    (None, None, ValueError, UNSUPPORTED_NONE),
    ([None, 1], None, ValueError, UNSUPPORTED_NONE),  # the first element decides the converter
    (float("nan"), tf.int32, TypeError, "Cannot convert nan to EagerTensor of dtype int32"),
    (float("inf"), tf.uint8, TypeError, "Cannot convert inf to EagerTensor of dtype uint8"),
    ([1, 2.5], tf.int8, TypeError, "Cannot convert [1, 2.5] to EagerTensor of dtype int8"),
    (True, tf.int8, TypeError, "Cannot convert True to EagerTensor of dtype int8"),
    (1j, tf.float32, TypeError, "Cannot convert 1j to EagerTensor of dtype float"),
    ("a", tf.int32, TypeError, "Cannot convert 'a' to EagerTensor of dtype int32"),
    (-1, tf.uint64, OverflowError, "can't convert negative int to unsigned"),
    (2**64, tf.uint64, OverflowError, "int too big to convert"),
])
def test_eager_errors(value, dtype, error, message):
    with pytest.raises(error) as info:
        tf.constant(value, dtype)
    assert str(info.value) == message
    with pytest.raises(error):
        tf.convert_to_tensor(value, dtype)


def test_deep_nesting_is_a_value_error_not_a_recursion_error():
    deep = nested(10_000)
    message = r"^Can't convert a Python sequence nested more than 64 deep to Tensor"
    for convert in (tf.constant, tf.convert_to_tensor, lambda v: tf.add(v, 1),
                    lambda v: tf.constant(2) + v):
        with pytest.raises(ValueError, match=message):
            convert(deep)
    cyclic = []
    cyclic.append(cyclic)
    with pytest.raises(ValueError, match=message):
        tf.constant(cyclic)
    assert tf.constant(nested(64)).shape.rank == 64


def test_operators_convert_python_numbers_like_constants():
    assert (tf.constant(1, tf.uint8) * 300).numpy() == 44  # wraps, as TF's Cast does
    assert (tf.constant(1) + 2**40).numpy() == 1
    with pytest.raises(ValueError, match=f"^{OUT_OF_RANGE}$"):
        tf.constant(1) + 2**64
    with pytest.raises(ValueError, match=f"^{OUT_OF_RANGE}$"):
        tf.constant(1.0) + 10**400
    assert (tf.constant(1.0, tf.float16) - 1e5).numpy() == -np.inf


def test_variable_assign_converts_like_constants():
    v = tf.Variable(3, dtype=tf.uint8)
    v.assign(-1)  # eagerly: int64 -1, Cast to uint8
    assert v.numpy() == 255
    with pytest.raises(TypeError, match=r"^Cannot convert 1.5 to EagerTensor of dtype uint8$"):
        v.assign(1.5)
    assert v.numpy() == 255


@pytest.mark.parametrize("make, error, message", [
    (lambda: tf.constant(1000, tf.int8), OverflowError,
     "Python integer 1000 out of bounds for int8"),
    (lambda: tf.constant([1, -1], tf.uint8), OverflowError,
     "Python integer -1 out of bounds for uint8"),
    (lambda: tf.constant(2**40, tf.int32), OverflowError,
     "Python integer 1099511627776 out of bounds for int32"),
    (lambda: tf.constant(2**63, tf.int64), OverflowError,
     "Python int too large to convert to C long"),
    (lambda: tf.constant(10**400, tf.float32), OverflowError, "int too large to convert to float"),
    (lambda: tf.constant(1, tf.uint8) * 300, OverflowError,
     "Python integer 300 out of bounds for uint8"),
    (lambda: tf.constant([[1], [1, 2]]), ValueError,
     ("setting an array element with a sequence. The requested array has an inhomogeneous shape "
      "after 1 dimensions. The detected shape was (2,) + inhomogeneous part.")),
])
def test_traced_conversion_refuses_like_numpy(make, error, message):
    with pytest.raises(error) as info:
        tf.function(make)()
    last = str(info.value).splitlines()[-1].strip()  # after TF's "in user code:" frames
    assert last in (message, f"{error.__name__}: {message}")


def test_traced_assign_out_of_range_raises_and_leaves_the_variable():
    v = tf.Variable(3, dtype=tf.uint8)
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint8"):
        tf.function(lambda: v.assign(-1))()
    assert v.numpy() == 3
    assert tf.function(lambda: tf.constant(200, tf.uint8))().numpy() == 200
