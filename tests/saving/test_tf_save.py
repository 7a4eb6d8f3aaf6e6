"""``tf.saved_model.save`` writes TF's format: the files, the MetaGraphDef and object graph TF's
loader reads, a checkpoint aligned with the object graph, and models that reproduce what TF
computed for the same modules (tests/fixtures/tf/make_savedmodels.py); the earlier JSON + npz
format still loads."""

import importlib.util
import json
import os

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import _protos
from tensortrace.checkpoint.bundle import BundleReader
from tensortrace.saving import tf_files
from tensortrace.saving.save import save_json

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures", "tf")
_spec = importlib.util.spec_from_file_location(
    "check_our_savedmodels", os.path.join(FIXTURES, "check_our_savedmodels.py"))
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)
with open(os.path.join(FIXTURES, "savedmodels", "expected.json")) as f:
    TF_RESULTS = json.load(f)["results"]
# the check script's call labels -> the labels TF's fixture script recorded
TF_LABELS = {("loop", "serving_default"): "signature:serving_default",
             ("mlp", "serving_default"): "signature:serving_default",
             ("conv", "serving_default"): "signature:serving_default",
             ("multi", "signature add"): "signature:add",
             ("multi", "signature scaled"): "signature:scaled"}


def _tf_outputs(model, label):
    label = TF_LABELS.get((model, label), label)
    found = [r for r in TF_RESULTS if r["model"] == model and r["call"] == label]
    if label.startswith("variables"):
        found = [r for r in TF_RESULTS if r["model"] == model and r["call"] == "variables"]
        return found[1 if label.endswith("again") else 0]["outputs"]
    (result,) = found
    return result["outputs"]


def _same(got, want):
    if isinstance(want, dict) and set(want) == {"dtype", "value"}:
        assert got["dtype"] == want["dtype"]
        np.testing.assert_allclose(got["value"], want["value"], rtol=1e-6, atol=1e-6)
    elif isinstance(want, dict):
        assert sorted(got) == sorted(want)
        for k in want:
            _same(got[k], want[k])
    else:
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = tmp_path_factory.mktemp("ours")
    paths = {}
    for name, module, signatures in check.build(tf):
        paths[name] = str(root / name)
        tf.saved_model.save(module, paths[name], signatures=signatures)
    return paths


@pytest.mark.parametrize("name", ["mlp", "conv", "loop", "multi"])
def test_our_models_reproduce_what_tf_computed(written, name):
    loaded = tf.saved_model.load(written[name])
    for label, thunk in check.calls(name, loaded):
        _same(check._plain(thunk()), _tf_outputs(name, label))


def test_the_files_and_protos_are_tfs(written):
    path = written["multi"]
    assert sorted(os.listdir(path)) == ["assets", "fingerprint.pb", "saved_model.pb",
                                        "variables"]
    proto = tf_files.read_saved_model(path)
    assert proto.saved_model_schema_version == 1 and len(proto.meta_graphs) == 1
    mg = proto.meta_graphs[0]
    assert list(mg.meta_info_def.tags) == ["serve"]
    assert mg.meta_info_def.tensorflow_version == "2.21.0"
    assert sorted(mg.signature_def) == ["__saved_model_init_op", "add", "scaled"]
    assert mg.signature_def["add"].method_name == "tensorflow/serving/predict"
    assert mg.signature_def["add"].inputs["a"].name == "add_a:0"
    graph = mg.object_graph_def
    root = graph.nodes[0]
    assert [c.local_name for c in root.children] == ["scale", "child", "add", "poly", "scaled",
                                                     "signatures"]  # TF's order
    kinds = [graph.nodes[c.node_id].WhichOneof("kind") for c in root.children]
    assert kinds == ["variable", "user_object", "function", "function", "function",
                     "user_object"]
    assert graph.nodes[root.children[5].node_id].user_object.identifier == "signature_map"
    poly = graph.nodes[root.children[3].node_id].function
    assert len(poly.concrete_functions) == 2
    for name in poly.concrete_functions:
        assert name in {f.signature.name for f in mg.graph_def.library.function}
        assert list(graph.concrete_functions[name].bound_inputs) == [root.children[0].node_id]
    with open(os.path.join(path, "fingerprint.pb"), "rb") as f:
        fingerprint = _protos.parse(_protos.FingerprintDef, f.read(), "fingerprint.pb")
    assert fingerprint.saved_model_checksum and fingerprint.version.producer == 4


def test_the_checkpoint_object_graph_has_the_object_graphs_ids(written):
    path = written["multi"]
    graph = tf_files.read_saved_model(path).meta_graphs[0].object_graph_def
    reader = BundleReader(tf_files.variables_prefix(path))
    assert sorted(reader.keys()) == ["_CHECKPOINTABLE_OBJECT_GRAPH",
                                     "child/offset/.ATTRIBUTES/VARIABLE_VALUE",
                                     "scale/.ATTRIBUTES/VARIABLE_VALUE"]
    ckpt = _protos.parse(_protos.trackable_object_graph_pb2.TrackableObjectGraph,
                         reader.read("_CHECKPOINTABLE_OBJECT_GRAPH").item(), "graph")
    assert len(ckpt.nodes) == len(graph.nodes)
    for saved, entry in zip(graph.nodes, ckpt.nodes):
        assert [(c.node_id, c.local_name) for c in saved.children] == \
            [(c.node_id, c.local_name) for c in entry.children]
    np.testing.assert_array_equal(reader.read("child/offset/.ATTRIBUTES/VARIABLE_VALUE"),
                                  [1.0, 2.0, 3.0])


def test_python_ops_are_refused_naming_op_and_function(tmp_path):
    m = tf.Module()
    m.double = tf.function(lambda x: tf.py_function(lambda a: a * 2, [x], tf.float32),
                           input_signature=[tf.TensorSpec([], tf.float32)])
    with pytest.raises(ValueError, match=r"^Cannot save function '<lambda>' \(__inference_"
                       r"<lambda>_\d+\): op 'EagerPyFunc' \(EagerPyFunc\) cannot be saved"):
        tf.saved_model.save(m, str(tmp_path / "m"))
    assert not os.path.exists(tmp_path / "m")


def test_a_failed_write_keeps_the_old_model(tmp_path, monkeypatch):
    path = str(tmp_path / "m")
    m = tf.Module()
    m.v = tf.Variable(1.0)
    m.f = tf.function(lambda: m.v * 1.0, input_signature=[])
    tf.saved_model.save(m, path)
    m.v.assign(2.0)
    from tensortrace.saving import tf_save

    def failing(prefix, tensors):
        raise OSError("disk full")

    monkeypatch.setattr(tf_save, "write_bundle", failing)
    with pytest.raises(OSError, match="disk full"):
        tf.saved_model.save(m, path)
    monkeypatch.undo()
    assert tf.saved_model.load(path).f().numpy() == 1.0
    assert sorted(os.listdir(tmp_path)) == ["m"]


def test_the_json_format_still_loads(tmp_path):
    m = tf.Module()
    m.v = tf.Variable([1.0, 2.0])
    m.f = tf.function(lambda x: x * m.v, input_signature=[tf.TensorSpec([2], tf.float32)])
    save_json(m, str(tmp_path / "json"))
    assert sorted(os.listdir(tmp_path / "json")) == ["saved_model.json", "variables.npz"]
    loaded = tf.saved_model.load(str(tmp_path / "json"))
    np.testing.assert_array_equal(loaded.f(tf.constant([3.0, 4.0])).numpy(), [3.0, 8.0])
    assert tf.saved_model.contains_saved_model(str(tmp_path / "json"))
