"""Tensors, dtypes, shapes and TF's conversion rules (each pinned against TF 2.21's behaviour)."""

import pickle

import numpy as np
import pytest

import tensortrace as tf


@pytest.mark.parametrize("value,dtype", [
    (1, tf.int32), (1.0, tf.float32), (True, tf.bool), (1j, tf.complex128), ("a", tf.string),
    (b"a", tf.string), (2**40, tf.int64), ([1, 2.0], tf.float32), ([[1, 2], [3, 4]], tf.int32),
    ([], tf.float32), (np.float64(1), tf.float64), (np.int64(1), tf.int64),
    (np.arange(3, dtype=np.uint8), tf.uint8), (np.array(["a"]), tf.string),
])
def test_conversion_infers_tf_dtypes(value, dtype):
    assert tf.constant(value).dtype == dtype


@pytest.mark.parametrize("value,dtype,error,message", [
    (1.5, tf.int32, TypeError, "Cannot convert 1.5 to EagerTensor of dtype int32"),
    (2.0, tf.int32, TypeError, "Cannot convert 2.0 to EagerTensor of dtype int32"),
    (1, tf.bool, TypeError, "Cannot convert 1 to EagerTensor of dtype bool"),
    (1, tf.string, TypeError, "Cannot convert 1 to EagerTensor of dtype string"),
    ([1, "a"], None, ValueError, "Can't convert Python sequence with mixed types to Tensor."),
    ([[1], [2, 3]], None, ValueError, "Can't convert non-rectangular Python sequence to Tensor."),
    (2**70, None, ValueError, "Can't convert Python sequence with out-of-range integer"),
    (None, None, ValueError, "Attempt to convert a value (None) with an unsupported type"),
])
def test_lossy_or_bad_conversions_raise_like_tf(value, dtype, error, message):
    with pytest.raises(error) as info:
        tf.constant(value, dtype=dtype)
    assert message in str(info.value)


def test_out_of_range_ints_wrap_like_tf():
    assert tf.constant(300, dtype=tf.uint8).numpy() == 44
    assert tf.constant(-1, dtype=tf.uint8).numpy() == 255
    assert (tf.constant(1, tf.uint8) + 300).numpy() == 45


def test_constant_shape_argument():
    assert tf.constant(1, shape=[2, 2]).numpy().tolist() == [[1, 1], [1, 1]]
    with pytest.raises(TypeError, match="has 2 elements, but got `shape` \\(4,\\) with 4"):
        tf.constant([1, 2], shape=[4])


def test_python_scalars_take_the_tensor_dtype_and_tensors_never_promote():
    x = tf.constant(1.0)
    assert (x + 1).dtype == tf.float32
    assert (x + np.float64(2.0)).dtype == tf.float32
    assert (tf.constant(1, tf.int64) + 2).dtype == tf.int64
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"cannot compute AddV2 as input #1\(zero-based\) was expected to be "
                             r"a int32 tensor but is a float tensor \[Op:AddV2\]"):
        tf.constant(1) + tf.constant(1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="float tensor but is a double"):
        tf.constant(1.0) + tf.constant(1.0, tf.float64)
    with pytest.raises(TypeError, match="Cannot convert 2.5 to EagerTensor of dtype int32"):
        tf.constant(1) < 2.5


def test_convert_to_tensor_checks_requested_dtype():
    t = tf.constant([1, 2])
    assert tf.convert_to_tensor(t) is t
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32 for Tensor "
                                         "with dtype int32"):
        tf.convert_to_tensor(t, dtype=tf.float32)
    assert tf.convert_to_tensor(1, dtype_hint=tf.float32).dtype == tf.float32
    assert tf.convert_to_tensor(1.5, dtype_hint=tf.int32).dtype == tf.float32
    assert tf.convert_to_tensor([tf.constant(1), tf.constant(2)]).numpy().tolist() == [1, 2]


def test_repr_and_str_formats():
    assert str(tf.constant(2)) == "tf.Tensor(2, shape=(), dtype=int32)"
    assert repr(tf.constant(1.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=1.0>"
    assert repr(tf.constant(2.2)) == ("<tf.Tensor: shape=(), dtype=float32, "
                                      "numpy=2.200000047683716>")
    assert str(tf.constant(2.2)) == "tf.Tensor(2.2, shape=(), dtype=float32)"
    assert repr(tf.constant("a")) == "<tf.Tensor: shape=(), dtype=string, numpy=b'a'>"
    assert str(tf.constant([[1, 2], [3, 4]])) == (
        "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)")
    assert str(tf.constant(["a", "b"])) == "tf.Tensor([b'a' b'b'], shape=(2,), dtype=string)"
    assert repr(tf.constant([True])) == ("<tf.Tensor: shape=(1,), dtype=bool, "
                                         "numpy=array([ True])>")
    assert format(tf.constant(2.256), ".2f") == "2.26"
    assert f"{tf.constant([1, 2])}" == "[1 2]"


def test_python_protocols():
    x, s = tf.constant([1, 2]), tf.constant(3)
    assert len(x) == 2 and [int(v) for v in x] == [1, 2]
    with pytest.raises(TypeError, match="Scalar tensor has no `len\\(\\)`"):
        len(s)
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor."):
        iter(s)
    with pytest.raises(ValueError, match="truth value of an array"):
        bool(x)
    assert bool(tf.constant([1])) and int(tf.constant(2.7)) == 2 and float(s) == 3.0
    assert [1, 2][tf.constant(1)] == 2
    with pytest.raises(TypeError, match="Tensor is unhashable. Instead, use tensor.ref\\(\\)"):
        hash(x)
    assert x.ref() == x.ref() and x.ref().deref() is x and x.ref() != tf.constant([1, 2]).ref()
    assert np.asarray(x).tolist() == [1, 2] and x.numpy().dtype == np.int32
    assert x.device.endswith("CPU:0") and x.ndim == 1 and x.get_shape() == tf.TensorShape([2])
    with pytest.raises(AttributeError, match="Tensor.name is undefined when eager execution"):
        x.name
    assert pickle.loads(pickle.dumps(x)).numpy().tolist() == [1, 2]


def test_numpy_returns_a_copy_and_scalars():
    x = tf.constant([1.0, 2.0])
    x.numpy()[0] = 9.0
    assert x.numpy()[0] == 1.0
    assert type(tf.constant(1.0).numpy()) is np.float32
    assert tf.constant("ab").numpy() == b"ab"


def test_string_tensors_concatenate():
    assert (tf.constant("a") + tf.constant("b")).numpy() == b"ab"
    assert tf.constant("é").numpy() == "é".encode()


def test_indexing_semantics():
    x = tf.constant(np.arange(24).reshape(2, 3, 4))
    np.testing.assert_array_equal(x[1, ::-1, tf.newaxis, -1], np.arange(24).reshape(2, 3, 4)[1, ::-1, None, -1])
    np.testing.assert_array_equal(x[..., 1:3], np.arange(24).reshape(2, 3, 4)[..., 1:3])
    assert x[tf.constant(1), 2, 3].numpy() == 23
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="slice index 5 of dimension 0 out of bounds"):
        tf.constant([1, 2])[5]


class TestDType:
    def test_properties(self):
        assert tf.float32.name == "float32" and tf.float32.is_floating and not tf.float32.is_integer
        assert tf.int8.min == -128 and tf.uint8.max == 255 and tf.float16.max == 65504.0
        assert tf.float32.as_numpy_dtype is np.float32 and tf.float64.size == 8
        assert tf.complex64.real_dtype == tf.float32 and tf.uint16.is_unsigned
        assert tf.bool.is_bool and tf.string.size == 8 and tf.half is tf.float16
        with pytest.raises(TypeError):
            tf.bool.min

    def test_as_dtype(self):
        assert tf.as_dtype("float32") is tf.float32
        assert tf.as_dtype(np.float64) is tf.float64
        assert tf.as_dtype(np.dtype("int64")) is tf.int64
        assert tf.as_dtype(float) is tf.float32 and tf.as_dtype(bool) is tf.bool
        assert tf.as_dtype(1) is tf.float32  # the DataType enum
        for bad in (int, str, complex, "floaty"):
            with pytest.raises(TypeError):
                tf.as_dtype(bad)

    def test_equality_and_printing(self):
        assert tf.float32 == "float32" and tf.float32 == np.float32 and tf.float32 != tf.float64
        assert repr(tf.float32) == "tf.float32" and str(tf.float32) == "<dtype: 'float32'>"
        assert tf.dtypes.float32 is tf.float32 and tf.dtypes.as_dtype("int32") is tf.int32
        assert pickle.loads(pickle.dumps(tf.int16)) is tf.int16


class TestShapes:
    def test_partial_shapes(self):
        s = tf.TensorShape([None, 3])
        assert s.rank == 2 and s[0] is None and s[1] == 3 and s.as_list() == [None, 3]
        assert repr(s) == "TensorShape([None, 3])" and str(s) == "(None, 3)"
        assert str(tf.TensorShape(None)) == "<unknown>" and tf.TensorShape(None).rank is None
        assert str(tf.TensorShape([2])) == "(2,)" and tf.TensorShape([]).num_elements() == 1
        assert s.is_compatible_with([2, 3]) and not s.is_compatible_with([2, 4])
        assert s.merge_with([2, None]).as_list() == [2, 3]
        assert tf.TensorShape([1, 3]).most_specific_compatible_shape([2, 3]).as_list() == [None, 3]
        with pytest.raises(ValueError):
            tf.TensorShape(None).as_list()
        with pytest.raises(ValueError):
            s.merge_with([2, 4])

    def test_tensor_spec(self):
        spec = tf.TensorSpec([None], tf.int32)
        assert repr(spec) == "TensorSpec(shape=(None,), dtype=tf.int32, name=None)"
        assert repr(tf.TensorSpec(None, tf.string)) == (
            "TensorSpec(shape=<unknown>, dtype=tf.string, name=None)")
        assert spec.is_compatible_with(tf.constant([1, 2]))
        assert not spec.is_compatible_with(tf.constant([[1]]))
        assert not spec.is_compatible_with(tf.constant([1.0]))
        assert spec == tf.TensorSpec([None], "int32") and hash(spec) == hash(tf.TensorSpec([None], tf.int32))
        assert tf.TensorSpec.from_tensor(tf.constant([1.0])) == tf.TensorSpec([1], tf.float32)
        assert tf.TensorSpec(()).dtype == tf.float32
