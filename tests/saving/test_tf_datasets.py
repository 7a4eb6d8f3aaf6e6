"""tf.data pipelines inside saved functions, both ways: what tensortrace saves holds only TF's
dataset nodes and TF 2.21 runs it to the outputs recorded in tests/fixtures/tf/datasets
(make_datasets.py); the SavedModel TF 2.21 wrote of the same functions (its own ``for`` loops
over datasets as ScanDataset + ReduceDataset) loads and runs here to TF's outputs."""

import json
import os
import shutil

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import _protos, errors
from tensortrace.graph import tf_attrs
from tensortrace.graph.graph_def import ExportError
from tests.saving import dataset_cases as cases

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "fixtures", "tf", "datasets")
TF_MODEL = os.path.join(FIXTURE, "tf_model")
OURS_IN_TF = dict(np.load(os.path.join(FIXTURE, "outputs.npz")))  # TF running our SavedModel
TF_OUT = dict(np.load(os.path.join(FIXTURE, "tf_outputs.npz")))  # TF running its own


def _want(table, name):
    n = sum(1 for k in table if k.startswith(name + "/"))
    return [table[f"{name}/{i}"] for i in range(n)]


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6)


def _call(obj, name):
    return cases.flat(tf, getattr(obj, name)(*[tf.constant(v) for v in cases.args()[name]]))


def _library(path):
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        model = _protos.parse(_protos.SavedModel, f.read(), "SavedModel")
    return model, model.meta_graphs[0].graph_def.library.function


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("datasets") / "model")
    root = cases.module(tf)
    tf.saved_model.save(root, path)
    return root, path


def test_saved_pipelines_are_tf_nodes(saved):
    _, path = saved
    _, library = _library(path)
    functions = {f.signature.name for f in library}
    types = set()
    for f in library:
        for node in f.node_def:
            assert tf_attrs.signature(node.op) is not None or node.op in functions, node.op
            types.add(node.op)
    assert not types & {"PythonDataset", "MakeDatasetIterator"}
    assert {"TensorSliceDataset", "TensorDataset", "RangeDataset", "MapDataset", "FilterDataset",
            "BatchDatasetV2", "RepeatDataset", "TakeDataset", "SkipDataset", "ShuffleDatasetV3",
            "DummySeedGenerator", "PrefetchDataset", "ScanDataset", "TakeWhileDataset",
            "ZipDataset", "ConcatenateDataset", "UnbatchDataset", "AnonymousIteratorV3",
            "MakeIterator", "IteratorGetNextAsOptional"} <= types
    # a dataset function is TF's: marked as one, its captures passed as other_arguments
    maps = [n for f in library for n in f.node_def if n.op == "MapDataset"]
    assert all(n.attr["f"].func.attr["_tf_data_function"].b for n in maps)
    assert any(len(n.attr["Targuments"].list.type) == 1 for n in maps)  # captured_map's k


@pytest.mark.parametrize("name", sorted(cases.args()))
def test_our_saved_pipelines_run_as_in_tf(saved, name):
    root, path = saved
    want = _want(OURS_IN_TF, name)
    _same(_call(root, name), want)  # as traced
    _same(_call(tf.saved_model.load(path), name), want)  # saved, loaded back
    _same(want, _want(TF_OUT, name))  # TF runs our SavedModel as it runs its own


@pytest.fixture(scope="module")
def tf_loaded():
    return tf.saved_model.load(TF_MODEL)


@pytest.mark.parametrize("name", sorted(cases.args()))
def test_tf_written_pipelines_load_and_run(tf_loaded, name):
    _same(_call(tf_loaded, name), _want(TF_OUT, name))


def test_tf_written_model_holds_tf_loops_over_datasets():
    with open(os.path.join(FIXTURE, "tf_ops.json")) as f:
        ops = set(json.load(f))
    # AutoGraph's ``for x in ds`` (with a break: take_while) and ``iter``/``next``
    assert {"ScanDataset", "ReduceDataset", "TakeWhileDataset", "AnonymousIteratorV3",
            "MakeIterator", "IteratorGetNext"} <= ops


def test_unsupported_dataset_refused_at_save_naming_it(tmp_path):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def f(self, x):
            ds = tf.data.Dataset.from_tensor_slices(x).padded_batch(2)
            return ds.reduce(tf.constant(0.0), lambda s, v: s + tf.reduce_sum(v))

    with pytest.raises(ExportError, match="PaddedBatchDataset has no TF dataset op"):
        tf.saved_model.save(M(), str(tmp_path / "m"))
    assert not os.path.exists(tmp_path / "m")


def test_unknown_tf_dataset_op_refused_at_load_naming_it(tmp_path):
    path = str(tmp_path / "m")
    shutil.copytree(TF_MODEL, path)
    model, library = _library(path)
    for f in library:
        for node in f.node_def:
            if node.op == "MapDataset":
                node.op = "ParallelInterleaveDatasetV4"
    with open(os.path.join(path, "saved_model.pb"), "wb") as f:
        f.write(model.SerializeToString())
    with pytest.raises(errors.NotFoundError,
                       match="Op type not registered 'ParallelInterleaveDatasetV4'"):
        tf.saved_model.load(path)


# --- lookup tables filled from a dataset, anonymous tables ------------------------------------
def _tables_out(out):
    return [np.asarray(t).tolist() for t in out]


def test_tf_written_dataset_initializer_and_anonymous_tables_load():
    """TF's SavedModel: a tracked dataset (its ``_variant_tracker`` resource, made by TF's
    dataset ops) that an InitializeTableFromDataset reads, AnonymousHashTable and
    AnonymousMutableHashTable creators."""
    with open(os.path.join(FIXTURE, "tables.json")) as f:
        want = json.load(f)
    _, library = _library(os.path.join(FIXTURE, "tf_tables"))
    types = {n.op for f in library for n in f.node_def}
    assert {"InitializeTableFromDataset", "AnonymousHashTable", "AnonymousMutableHashTable",
            "ZipDataset", "MapDataset"} <= types
    loaded = tf.saved_model.load(os.path.join(FIXTURE, "tf_tables"))
    assert _tables_out(loaded.f(tf.constant(cases.TABLE_KEYS))) == want


def test_our_anonymous_tables_save_as_tf_ops(tmp_path):
    with open(os.path.join(FIXTURE, "tables.json")) as f:
        want = json.load(f)
    with open(os.path.join(FIXTURE, "tables_ours.json")) as f:
        assert json.load(f) == want  # TF ran what tensortrace saved to TF's own outputs
    root = cases.tables_module(tf)
    assert _tables_out(root.f(tf.constant(cases.TABLE_KEYS))) == want
    path = str(tmp_path / "tables")
    tf.saved_model.save(root, path)
    _, library = _library(path)
    types = {n.op for f in library for n in f.node_def}
    assert {"AnonymousHashTable", "AnonymousMutableHashTable"} <= types
    assert _tables_out(tf.saved_model.load(path).f(tf.constant(cases.TABLE_KEYS))) == want


def test_string_tensor_content_decodes():
    """TF writes a dataset graph's string constants as tensor_content (its EncodeStringList:
    the varint lengths, then the bytes); a malformed one is refused."""
    from tensortrace.graph import tensor_proto
    proto = _protos.tensor_pb2.TensorProto(dtype=7)
    proto.tensor_shape.dim.add(size=3)
    proto.tensor_content = bytes([1, 0, 2]) + b"a" + b"bc"
    assert tensor_proto.to_array(proto).tolist() == [b"a", b"", b"bc"]
    proto.tensor_content = bytes([1, 0, 9]) + b"abc"
    with pytest.raises(errors.InvalidArgumentError, match="its lengths say 10"):
        tensor_proto.to_array(proto)
    proto.tensor_content = bytes([0x80, 0x80])
    with pytest.raises(errors.InvalidArgumentError, match="malformed lengths"):
        tensor_proto.to_array(proto)


def test_tf_written_generic_resource_loads():
    """A generic TrackableResource of TF's (its ``_create_resource`` makes a variable by
    VarHandleOp, ``_initialize`` assigns it, ``_destroy_resource`` frees it): the load recreates
    and initializes it, so each load starts from ``_initialize``'s value, as in TF."""
    path = os.path.join(FIXTURE, "tf_resource")
    with open(os.path.join(FIXTURE, "resource.json")) as f:
        want = json.load(f)
    _, library = _library(path)
    types = {n.op for f in library for n in f.node_def}
    assert {"VarHandleOp", "AssignVariableOp", "DestroyResourceOp"} <= types
    for _ in range(2):
        loaded = tf.saved_model.load(path)
        got = [float(loaded.step(tf.constant(2.0))), float(loaded.step(tf.constant(2.0)))]
        assert got == want


def test_our_generic_resource_saves_as_tf_resource_node(tmp_path):
    """tensortrace's generic TrackableResource (TF's raw variable ops) saves as TF's resource
    node with its three functions; TF 2.21 ran it to its own outputs (resource_ours.json), and
    it loads back here the same."""
    with open(os.path.join(FIXTURE, "resource.json")) as f:
        want = json.load(f)
    with open(os.path.join(FIXTURE, "resource_ours.json")) as f:
        assert json.load(f) == want
    root = cases.resource_module(tf)
    assert float(root.step(tf.constant(5.0))) == 40.0  # 5 * (3 + 5)
    path = str(tmp_path / "resource")
    tf.saved_model.save(root, path)
    model, library = _library(path)
    nodes = model.meta_graphs[0].object_graph_def.nodes
    resource = next(n for n in nodes if n.WhichOneof("kind") == "resource")
    assert [c.local_name for c in resource.children] == [
        "_create_resource", "_initialize", "_destroy_resource"]
    creators = [f for f in library if any(n.op == "VarHandleOp" for n in f.node_def)]
    assert len(creators) == 1
    loaded = tf.saved_model.load(path)
    assert [float(loaded.step(tf.constant(2.0))), float(loaded.step(tf.constant(2.0)))] == want


def test_raw_variable_ops_eagerly():
    h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2], shared_name="")
    with pytest.raises(errors.FailedPreconditionError):
        tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32)  # not yet assigned, as TF
    tf.raw_ops.AssignVariableOp(resource=h, value=[1.0, 2.0])
    tf.raw_ops.AssignAddVariableOp(resource=h, value=[0.5, 0.5])
    np.testing.assert_array_equal(tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32),
                                  [1.5, 2.5])
