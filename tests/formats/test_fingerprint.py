"""SavedModel ``fingerprint.pb`` as TF computes it: FarmHash Fingerprint64 of C++'s
deterministic serialization of the model, its regularized graph, signatures and concrete
functions, and of the checkpoint index (checked against the files TF 2.21 wrote)."""

import os
import pathlib

import pytest

import tensortrace as tf
from tensortrace import _protos

SAVED = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tf" / "savedmodels"


def _read(path, cls, name):
    with open(path, "rb") as f:
        return _protos.parse(cls, f.read(), name)


@pytest.mark.parametrize("name", ["mlp", "conv", "loop", "multi"])
def test_tf_models_fingerprint_as_tf(name):
    d = SAVED / name
    want = _read(d / "fingerprint.pb", _protos.FingerprintDef, "fingerprint.pb")
    model = _read(d / "saved_model.pb", _protos.SavedModel, "saved_model.pb")
    index = (d / "variables" / "variables.index").read_bytes()
    got = _protos.saved_model_fingerprint(model, index)
    want.ClearField("uuid")  # random per save
    assert got == want


def test_canonical_bytes_sorts_map_keys_as_cpp():
    """C++ sorts a key before its extensions ("a" < "a_1"); upb's deterministic order puts it
    after them (TF's files, written by upb, hash differently from their C++ bytes)."""
    fn = _protos.function_pb2.FunctionDef()
    fn.control_ret["a_1"] = "y"
    fn.control_ret["a"] = "x"
    fn.resource_arg_unique_id[0] = 0
    assert _protos.canonical_bytes(fn) == (b"\x32\x06\x0a\x01a\x12\x01x"  # field 6 {"a": "x"}
                                           b"\x32\x08\x0a\x03a_1\x12\x01y"
                                           b"\x42\x04\x08\x00\x10\x00")  # field 8 {0: 0}


def test_our_save_writes_tf_fingerprint(tmp_path):
    m = tf.Module()
    m.v = tf.Variable([1.0, 2.0])
    m.f = tf.function(lambda x: x * m.v, input_signature=[tf.TensorSpec([2], tf.float32)])
    path = str(tmp_path / "m")
    tf.saved_model.save(m, path)
    fp = _read(os.path.join(path, "fingerprint.pb"), _protos.FingerprintDef, "fingerprint.pb")
    model = _read(os.path.join(path, "saved_model.pb"), _protos.SavedModel, "saved_model.pb")
    index = pathlib.Path(path, "variables", "variables.index").read_bytes()
    want = _protos.saved_model_fingerprint(model, index)
    assert fp.version.producer == 4 and len(fp.uuid) > 10
    fp.ClearField("uuid")
    assert fp == want and fp.checkpoint_hash and fp.saved_object_graph_hash
