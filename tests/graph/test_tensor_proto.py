"""TensorProto encodings, pinned to what TF 2.21's make_tensor_proto / make_ndarray give."""

import numpy as np
import pytest

from tensortrace import _protos, dtypes, errors
from tensortrace.graph import tensor_proto as tp
from tensortrace.shapes import TensorShape


def _proto(dtype, dims, **fields):
    p = _protos.tensor_pb2.TensorProto(dtype=dtype, **fields)
    for d in dims:
        p.tensor_shape.dim.add(size=d)
    return p


@pytest.mark.parametrize("value, field, stored", [
    (np.float32(1.5), "float_val", [1.5]),
    (np.float16(2), "half_val", [16384]),  # the bit pattern of 2.0 in float16
    (np.array([True, False]), "bool_val", [True, False]),
    (np.array(3, np.int64), "int64_val", [3]),
    (np.array(5, np.uint64), "uint64_val", [5]),
    (np.array(7, np.uint32), "uint32_val", [7]),
    (np.array(-3, np.int8), "int_val", [-3]),
    (np.array([1 + 2j], np.complex64), "scomplex_val", [1, 2]),
    (np.array(1 + 2j), "dcomplex_val", [1, 2]),
    (np.array([b"ab", b"c"]), "string_val", [b"ab", b"c"]),
    (["a", "bc"], "string_val", [b"a", b"bc"]),
])
def test_typed_value_fields(value, field, stored):
    p = tp.to_proto(value)
    assert list(getattr(p, field)) == stored and not p.tensor_content
    back = tp.to_array(p)
    want = np.asarray(value)
    assert back.shape == want.shape
    if want.dtype.kind in "SU":
        assert back.dtype == object and back.tolist() == [v.encode() if isinstance(v, str) else v
                                                          for v in want.tolist()]
    else:
        assert back.dtype == want.dtype and np.array_equal(back, want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int16,
                                   np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_numeric_arrays_use_tensor_content(dtype):
    arr = np.arange(6, dtype=dtype).reshape(2, 3)
    p = tp.to_proto(arr)
    assert p.tensor_content == arr.tobytes() and [d.size for d in p.tensor_shape.dim] == [2, 3]
    back = tp.to_array(p)
    assert back.dtype == arr.dtype and np.array_equal(back, arr)


def test_tf_bytes_for_float32_and_int32_content():
    # TF 2.21: make_tensor_proto(np.arange(3, dtype=np.float32)).tensor_content
    assert tp.to_proto(np.arange(3, dtype=np.float32)).tensor_content == \
        b"\x00\x00\x00\x00\x00\x00\x80?\x00\x00\x00@"
    assert tp.to_proto(np.array([1, 1], np.int32)).tensor_content == b"\x01\0\0\0\x01\0\0\0"


def test_bfloat16_in_content_and_half_val():
    bf16 = dtypes.bfloat16
    if bf16 is None:
        pytest.skip("the bfloat16 extra (ml_dtypes) is not installed")
    p = tp.to_proto([1.0, 2.0], dtype=bf16)
    assert p.dtype == 14 and p.tensor_content == b"\x80?\x00@"  # TF's bytes
    assert tp.to_array(p).astype(np.float32).tolist() == [1.0, 2.0]
    q = tp.to_proto(1.5, dtype=bf16)
    assert list(q.half_val) == [16320] and float(tp.to_array(q)) == 1.5


def test_python_values_take_tf_default_dtypes():
    assert tp.to_proto(1.0).dtype == 1 and tp.to_proto(3).dtype == 3
    assert tp.to_proto(np.float64(1.0)).dtype == 2


def test_broadcast_form_and_padding_with_the_last_value():
    p = tp.to_proto(1.0, shape=[2, 3])
    assert list(p.float_val) == [1.0] and not p.tensor_content  # TF's compact form
    assert tp.to_array(p).tolist() == [[1.0] * 3] * 2
    assert tp.to_array(_proto(1, [4], float_val=[1, 2])).tolist() == [1, 2, 2, 2]
    assert tp.to_array(_proto(7, [3], string_val=[b"a"])).tolist() == [b"a"] * 3
    assert tp.to_array(_proto(1, [3])).tolist() == [0, 0, 0]
    assert tp.to_array(_proto(8, [2], scomplex_val=[1, 2, 3, 4])).tolist() == [1 + 2j, 3 + 4j]
    with pytest.raises(ValueError, match="Too many elements provided. Takes at most 2, but got 3"):
        tp.to_proto([1, 2, 3], shape=[2])


def test_empty_and_bad_protos():
    assert tp.to_array(tp.to_proto(np.zeros((2, 0), np.float32))).shape == (2, 0)
    with pytest.raises(errors.InvalidArgumentError, match="tensor_content holds 3 bytes"):
        tp.to_array(_proto(1, [2], tensor_content=b"abc"))
    with pytest.raises(TypeError, match="Unsupported tensor type: DT_RESOURCE"):
        tp.to_array(_proto(20, []))
    with pytest.raises(TypeError, match="Unsupported tensor type: DT_QINT8"):
        tp.to_array(_proto(11, []))
    with pytest.raises(TypeError, match="resource tensors hold handles"):
        tp.to_proto(1.0, dtype=dtypes.resource)
    with pytest.raises(TypeError, match="Failed to convert elements"):
        tp.to_proto([1, b"x"])


def test_shapes_and_dtypes():
    p = tp.shape_proto([None, 3])
    assert [d.size for d in p.dim] == [-1, 3] and not p.unknown_rank
    assert tp.shape_from_proto(p) == TensorShape([None, 3])
    assert tp.shape_proto(None).unknown_rank and tp.shape_from_proto(tp.shape_proto(None)).rank \
        is None
    assert tp.shape_from_proto(tp.shape_proto([])) == TensorShape([])
    with pytest.raises(ValueError, match=r"Shape \[2,-3\] has dimensions with values below -1"):
        bad = _protos.tensor_shape_pb2.TensorShapeProto()
        bad.dim.add(size=2)
        bad.dim.add(size=-3)
        tp.shape_from_proto(bad)
    assert tp.dtype_enum(dtypes.float32) == 1 and tp.dtype_enum(dtypes.float16) == 19
    assert tp.dtype_from_enum(20) is dtypes.resource and tp.dtype_from_enum(9) is dtypes.int64
    with pytest.raises(TypeError, match="DT_QINT8"):
        tp.dtype_from_enum(11)
    with pytest.raises(TypeError, match="101"):
        tp.dtype_from_enum(101)  # a reference type
