"""Op-table cases for the unicode, n-gram, segment-join and tf.io ops: each kernel's values
(checked in TF 2.21), and infer against the kernel on placeholders."""

import os
import tempfile

import numpy as np
import pytest

import tensortrace as tf

from ..optable import Case, run_case


def strings(*values, shape=None):
    out = np.empty(len(values), object)
    out[:] = [v.encode() if isinstance(v, str) else v for v in values]
    return out.reshape(shape if shape is not None else (len(values),))


def scalar(value):
    return np.array(value.encode() if isinstance(value, str) else value, dtype=object)


def lit(*expected):
    return lambda *args, **kwargs: expected[0] if len(expected) == 1 else expected


def _raw(op, **attrs):
    """The op record itself, bound on tensors (the public functions reshape around it)."""
    from tensortrace.context import bind
    from tensortrace.registry import get

    return lambda *xs: bind(get(op), *xs, **attrs)


_DIR = tempfile.mkdtemp(prefix="tt-optable-")
_FILE, _INPUT = os.path.join(_DIR, "out.bin"), os.path.join(_DIR, "in.bin")
with open(_INPUT, "wb") as _f:
    _f.write(b"\x00\xffcontents\n")


def _write_then_read(path, contents):
    """WriteFile gives no tensor: the file it wrote, read back, is the case's output."""
    written = tf.io.write_file(path, contents)
    if written is None:
        return tf.io.read_file(path)
    with tf.control_dependencies([written]):
        return tf.io.read_file(path)


CASES = [
    Case(_raw("UnicodeDecode", input_encoding="UTF-8"), (strings("hé", "", "😊"),),
         ref=lit(np.array([0, 2, 2, 3]), np.array([104, 233, 128522], np.int32)),
         dynamic_shape=True, id="UnicodeDecode"),
    Case(_raw("UnicodeDecodeWithOffsets", input_encoding="UTF-8"), (strings("hé", "😊"),),
         ref=lit(np.array([0, 2, 3]), np.array([104, 233, 128522], np.int32),
                 np.array([0, 1, 0])), dynamic_shape=True, id="UnicodeDecodeWithOffsets"),
    Case(tf.strings.unicode_encode, ([[104, 105], [233, 33]], "UTF-8"),
         ref=lit(strings("hi", "é!")), id="UnicodeEncode"),
    Case(tf.strings.unicode_transcode, (strings("hé", "a", shape=(1, 2)), "UTF-8", "UTF-16-BE"),
         ref=lit(strings("hé".encode("utf-16-be"), b"\x00a", shape=(1, 2))),
         id="UnicodeTranscode"),
    Case(tf.strings.unicode_script, (np.array([[72, 1041], [33464, -1]], np.int32),),
         ref=lit(np.array([[25, 8], [17, -1]], np.int32)), id="UnicodeScript"),
    Case(tf.strings.ngrams, (strings("a", "b", "c", "d", "e", "f", shape=(2, 3)), 2),
         ref=lit(strings("a b", "b c", "d e", "e f", shape=(2, 2))), dynamic_shape=True,
         id="StringNGrams"),
    Case(tf.strings.unsorted_segment_join, (strings("a", "b", "c"), np.array([1, 0, 1],
                                            np.int32), np.int32(3)), dict(separator="+"),
         ref=lit(strings("b", "a+c", "")), dynamic_shape=True, id="UnsortedSegmentJoin"),
    Case(tf.io.decode_raw, (strings(b"\x01\x00\x02\x00", b"\x03\x00\x04\x00"), tf.int16),
         ref=lit(np.array([[1, 2], [3, 4]], np.int16)), dynamic_shape=True, id="DecodeRaw"),
    Case(tf.io.decode_raw, (strings(b"\x01\x00\x02", b"\x05"), tf.uint16),
         dict(fixed_length=4, little_endian=False),
         ref=lit(np.array([[256, 512], [1280, 0]], np.uint16)), dynamic_shape=True,
         id="DecodePaddedRaw"),
    Case(tf.io.encode_base64, (strings(b"hello?>", b"\xff\xfe"),), dict(pad=True),
         ref=lit(strings("aGVsbG8_Pg==", "__4=")), id="EncodeBase64"),
    Case(tf.io.decode_base64, (strings("aGVsbG8_Pg", "__4="),),
         ref=lit(strings(b"hello?>", b"\xff\xfe")), id="DecodeBase64"),
    Case(tf.io.serialize_tensor, (np.array([1.0, 2.0], np.float32),),
         ref=lit(scalar(b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\x80?\x00\x00\x00@')),
         id="SerializeTensor"),
    Case(tf.io.parse_tensor, (scalar(b'\x08\x03\x12\x00"\x04\x03\x00\x00\x00'), tf.int32),
         ref=lit(np.int32(3)), dynamic_shape=True, id="ParseTensor"),
    Case(tf.io.decode_csv, (strings("1,2.5,a", "4,,b"), [[0], [1.0], ["x"]]),
         ref=lit([np.array([1, 4], np.int32), np.array([2.5, 1.0], np.float32),
                  strings("a", "b")]), id="DecodeCSV"),
    Case(tf.io.read_file, (scalar(_INPUT),), ref=lit(scalar(b"\x00\xffcontents\n")),
         id="ReadFile"),
    Case(_write_then_read, (scalar(_FILE), scalar(b"\x00bytes")), ref=lit(scalar(b"\x00bytes")),
         id="WriteFile"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)
