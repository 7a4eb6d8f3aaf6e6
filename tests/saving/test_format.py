"""The document's value encoding (every attr kind round-trips exactly, as strict JSON, with no
Python objects) and the graph verifier run on every loaded graph."""

import collections
import json

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import dtypes as D
from tensortrace.graph.ir import Graph
from tensortrace.graph.verify import GraphVerificationError, verify
from tensortrace.saving import format as F
from tensortrace.variables import VariableSpec

Pair = collections.namedtuple("Pair", "a b")


def roundtrip(value):
    arrays = F.ArrayWriter()
    doc = json.loads(json.dumps(F.encode(value, arrays), allow_nan=False))
    return F.decode(doc, F.ArrayReader(dict(arrays.npz))), arrays.npz


def same(a, b):
    if isinstance(a, (np.ndarray, np.generic)):
        return type(a) is type(b) and a.dtype == b.dtype and np.shape(a) == np.shape(b) and \
            np.asarray(a).tobytes() == np.asarray(b).tobytes() if a.dtype != object else \
            type(a) is type(b) and a.shape == b.shape and a.tolist() == b.tolist()
    if isinstance(a, float):
        return type(b) is float and (a == b or (np.isnan(a) and np.isnan(b))) and \
            np.copysign(1, a) == np.copysign(1, b)
    if isinstance(a, (list, tuple)):
        return type(a).__name__ == type(b).__name__ and len(a) == len(b) and \
            all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


VALUES = [
    None, True, False, 0, -7, 2**80, 1.5, -0.0, float("nan"), float("inf"), float("-inf"),
    "text", "", b"\x00bytes\xff", 3 + 4j, [1, [2, "x"]], (1, (2,), ()), {"k": 1, 2: "v", (1, 2): 3},
    Pair(1, (2.0, None)), tf.float32, tf.string, tf.resource, tf.TensorShape(None),
    tf.TensorShape([None, 3]), tf.TensorShape([]), tf.TensorSpec([None], tf.int64, "x"),
    VariableSpec([2], tf.float32),
    np.float32(1.25), np.int64(-3), np.bool_(True), np.complex128(1 - 2j), np.uint8(250),
    np.float16(0.1), np.bytes_(b"scalar"),
    np.arange(6, dtype=np.int32).reshape(2, 3), np.array([np.nan, -0.0, np.inf]),
    np.zeros((0, 4), np.float32), np.array(7, np.int16), np.array([True, False]),
    np.array([1 + 2j], np.complex64), np.array([b"a", b"", b"tail\x00"], dtype=object),
    np.array(b"zero-d", dtype=object), np.array(["unicode"]), np.array([b"fixed"]),
]


@pytest.mark.parametrize("value", VALUES, ids=[repr(v)[:40] for v in VALUES])
def test_values_round_trip_exactly_as_strict_json(value):
    back, _ = roundtrip(value)
    assert same(value, back), (value, back)


def test_namedtuples_come_back_as_namedtuples_of_the_same_name_and_fields():
    back, _ = roundtrip(Pair(1, 2))
    assert type(back).__name__ == "Pair" and back._fields == ("a", "b") and back == (1, 2)


def test_bfloat16_arrays_round_trip_or_need_ml_dtypes():
    if D.bfloat16 is None:  # the dtype exists only with ml_dtypes; loading one says so
        with pytest.raises(F.FormatError, match="ml_dtypes is not installed"):
            F.decode({"array": {"dtype": "bfloat16", "shape": [], "b64": "wD8="}},
                     F.ArrayReader({}))
        return
    value = np.array([1.5, -2.0, np.inf], D.bfloat16._np)
    for arr in (value, np.repeat(value, 100)):
        back, _ = roundtrip(arr)
        assert back.dtype == arr.dtype and back.tobytes() == arr.tobytes()


def test_small_arrays_are_inline_and_large_ones_go_to_the_npz():
    _, npz = roundtrip(np.ones(16, np.float32))  # 64 bytes
    assert npz == {}
    back, npz = roundtrip(np.ones(17, np.float32))
    assert list(npz) == ["a0"] and back.shape == (17,)
    back, npz = roundtrip(np.array([b"x" * 100, b"y"], dtype=object))
    assert sorted(npz) == ["a0.data", "a0.offsets"] and back.tolist() == [b"x" * 100, b"y"]
    assert all(arr.dtype != object for arr in npz.values())  # loadable without pickle


@pytest.mark.parametrize("value", [print, lambda: 1, object(), {1, 2}, slice(1),
                                   np.array([1, "mixed"], dtype=object)])
def test_values_without_an_encoding_are_refused(value):
    with pytest.raises(F.UnsaveableError):
        F.encode(value, F.ArrayWriter())


@pytest.mark.parametrize("doc,message", [
    ({"tuple": 1}, "tuple: expected list"),
    ({"float": "1e400"}, "invalid float"),
    ({"a": 1, "b": 2}, "expected an encoded value"),
    ({"dict": [[[1], 2]]}, "unhashable dict key"),
    ({"shape": [-1]}, "invalid dimension -1"),
    ({"array": {"dtype": "<f4", "shape": [2], "npz": "a9"}}, "array 'a9' is missing"),
    ({"scalar": {"dtype": "<f4", "shape": [1], "b64": "AACAPw=="}}, "a scalar must have shape"),
    ({"bytes": "!!"}, "invalid base64"),
    ({"object": "os.system"}, "unknown value kind 'object'"),
])
def test_malformed_encodings_are_format_errors(doc, message):
    with pytest.raises(F.FormatError, match=message):
        F.decode(doc, F.ArrayReader({}))


# --- the verifier ---------------------------------------------------------------------------------
def _traced():
    f = tf.function(lambda x: tf.cond(x > 0, lambda: x * 2.0, lambda: -x) + 1.0)
    return f.get_concrete_function(tf.TensorSpec([], tf.float32)).graph


def test_traced_graphs_verify():
    graph = _traced()
    assert verify(graph) is graph


def test_verifier_rejects_wrong_output_specs():
    graph = _traced()
    op = next(op for op in graph.get_operations() if op.type == "AddV2")
    op.outputs[0]._dtype = tf.int32
    with pytest.raises(GraphVerificationError,
                       match="has dtype int32, its shape rule gives float32"):
        verify(graph)


def test_verifier_rejects_inputs_defined_later_or_elsewhere():
    graph = _traced()
    ops = graph._ops
    add = next(op for op in ops if op.type == "AddV2")
    ops.remove(add)
    ops.insert(1, add)
    with pytest.raises(GraphVerificationError, match="which is not defined earlier in this graph"):
        verify(graph)
    other = Graph("other")
    with other.as_default():
        stranger = other.placeholder(tf.TensorSpec([], tf.float32), "stranger")
    graph = _traced()
    graph.outputs = [stranger]
    with pytest.raises(GraphVerificationError, match="output 'stranger:0' is not a tensor"):
        verify(graph)


def test_verifier_checks_sub_graphs_and_names():
    graph = _traced()
    branch_op = next(op for op in graph.get_operations() if "If" in op.type)
    branch = branch_op.attrs["then_branch"]
    mul = next(op for op in branch.get_operations() if op.type == "Mul")
    mul.outputs[0]._shape = tf.TensorShape([3])
    with pytest.raises(GraphVerificationError, match="output 'mul:0' of Mul has shape"):
        verify(graph)
    graph = _traced()
    ops = graph.get_operations()
    ops[-1].name = ops[0].name
    with pytest.raises(GraphVerificationError, match="two ops are named 'x'"):
        verify(graph)
