"""Loading SavedModels written by TF 2.21 (tests/fixtures/tf/make_savedmodels.py): every call
reproduces the outputs TF recorded; variables restore from TF's checkpoint and update as in TF."""

import json
import os
import shutil

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import errors
from tensortrace.saving import tf_files
from tensortrace.saving.format import FormatError

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf", "savedmodels")
with open(os.path.join(FIXTURES, "expected.json")) as f:
    EXPECTED = json.load(f)["results"]


def _array(doc):
    return np.array(doc["value"], dtype=doc["dtype"])


def _check(got, want):
    if isinstance(want, list):  # a tuple of outputs
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _check(g, w)
        return
    if "dtype" in want and "value" in want and len(want) == 2:
        got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
        np.testing.assert_allclose(got, _array(want), rtol=1e-6, atol=1e-6)
        assert got.dtype == np.dtype(want["dtype"])
        return
    assert isinstance(got, dict) and sorted(got) == sorted(want)
    for k in want:
        _check(got[k], want[k])


def _call(model, entry):
    kwargs = {k: _array(v) for k, v in entry["inputs"].items()}
    call = entry["call"]
    if call.startswith("signature:"):
        return model.signatures[call.split(":", 1)[1]](**kwargs)
    if call == "variables":
        return {"total": model.total, "steps": model.steps}
    if call == "__call__":
        return model(*kwargs.values())
    name, _, extra = call.partition(" ")
    fn = getattr(model, name)
    if extra:  # "power=3": a Python argument of the trace
        key, value = extra.split("=")
        return fn(*kwargs.values(), **{key: int(value)})
    return fn(*kwargs.values())


@pytest.mark.parametrize("name", ["mlp", "conv", "loop", "multi"])
def test_tf_models_reproduce_tfs_outputs(name):
    model = tf.saved_model.load(os.path.join(FIXTURES, name))
    entries = [e for e in EXPECTED if e["model"] == name]
    assert entries
    for entry in entries:  # in TF's order: the loop's variables change as they did in TF
        _check(_call(model, entry), entry["outputs"])


def test_object_graph_is_rebuilt():
    model = tf.saved_model.load(os.path.join(FIXTURES, "multi"))
    assert isinstance(model.scale, tf.Variable) and model.scale.numpy() == 2.0
    np.testing.assert_array_equal(model.child.offset.numpy(), [1.0, 2.0, 3.0])
    assert sorted(model.signatures) == ["add", "scaled"]
    assert len(model.poly.concrete_functions) == 2
    sig = model.signatures["add"]
    assert sig.structured_input_signature == ((), {
        "a": tf.TensorSpec([3], tf.float32, "a"), "b": tf.TensorSpec([3], tf.float32, "b")})
    model.scale.assign(3.0)  # the functions read the restored variable
    np.testing.assert_allclose(model.scaled(np.ones((1, 3), np.float32))[0].numpy(), [[3, 3, 3]])
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        model.poly(np.zeros([5], np.float32))


def test_tags_are_checked_as_tf_checks_them():
    path = os.path.join(FIXTURES, "mlp")
    assert tf.saved_model.load(path, tags=["serve"]) is not None
    assert tf.saved_model.load(path, tags="serve") is not None
    with pytest.raises(ValueError, match=r"Got an incompatible argument to `tags`: \['train'\]"):
        tf.saved_model.load(path, tags=["train"])


def test_contains_saved_model_sees_tf_format():
    assert tf.saved_model.contains_saved_model(os.path.join(FIXTURES, "conv"))
    assert not tf.saved_model.contains_saved_model(FIXTURES)


def _copy(tmp_path, name="multi"):
    path = tmp_path / name
    shutil.copytree(os.path.join(FIXTURES, name), path)
    return path


def test_an_op_tensortrace_lacks_fails_at_load_naming_it(tmp_path):
    path = _copy(tmp_path)
    proto = tf_files.read_saved_model(path)
    for fdef in proto.meta_graphs[0].graph_def.library.function:
        if fdef.signature.name == "__inference_add_846":
            for node in fdef.node_def:
                if node.op == "AddV2":
                    node.op = "MyCustomAdd"
    (path / "saved_model.pb").write_bytes(proto.SerializeToString())
    with pytest.raises(errors.NotFoundError, match="Op type not registered 'MyCustomAdd'.*"
                       "__inference_add_846"):
        tf.saved_model.load(path)


def test_missing_and_mismatched_files_are_clean_errors(tmp_path):
    path = _copy(tmp_path)
    os.remove(path / "variables" / "variables.index")
    with pytest.raises(OSError, match="variables"):
        tf.saved_model.load(path)
    path = _copy(tmp_path / "b")
    (path / "saved_model.pb").write_bytes(b"\x12\x7fjunk")  # a truncated meta graph
    with pytest.raises(OSError, match="Cannot parse file"):
        tf.saved_model.load(path)
    path = _copy(tmp_path / "c")
    proto = tf_files.read_saved_model(path)
    proto.meta_graphs[0].object_graph_def.nodes[1].variable.dtype = tf.int32.as_datatype_enum
    (path / "saved_model.pb").write_bytes(proto.SerializeToString())
    with pytest.raises(FormatError, match="variable 'scale' is declared int32"):
        tf.saved_model.load(path)
