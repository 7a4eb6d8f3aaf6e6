"""Ops tensortrace fuses (tf.norm, l2_normalize, matrix_transpose, dropout with a noise shape,
searchsorted of any rank, parse_example, parse_sequence_example) save as the ops TF's Python API
composes: every node of the SavedModel is one TF 2.21 builds, TF 2.21 loads the model and
computes the values recorded in tests/fixtures/tf/lowerings (make_lowerings.py), and tensortrace
loads it back to the same."""

import json
import os

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import _protos
from tensortrace.graph import tf_attrs
from tests.saving import lowering_cases as cases

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "fixtures", "tf", "lowerings")
TF_OUT = dict(np.load(os.path.join(FIXTURE, "outputs.npz"), allow_pickle=True))
with open(os.path.join(FIXTURE, "ops.json")) as f:
    TF_OPS = json.load(f)
# our fused op types: none of them may reach the SavedModel
FUSED = {"Norm", "L2Normalize", "MatrixTranspose", "Dropout", "Moments", "Gelu",
         "HistogramSummaryBuckets"}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("lowerings") / "model")
    tf.random.set_seed(None)  # as TF recorded it: no global seed (dropout's op seed alone)
    root = cases.module(tf)
    tf.saved_model.save(root, path)
    return root, path


def _tf_outputs(name):
    n = sum(1 for k in TF_OUT if k.startswith(name + "/"))
    return [TF_OUT[f"{name}/{i}"] for i in range(n)]


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        if w.dtype == object or w.dtype.kind == "S":
            assert np.asarray(g, object).tolist() == np.asarray(w, object).tolist()
        else:
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=2e-6)


def test_every_node_is_a_tf_node(saved):
    _, path = saved
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        model = _protos.parse(_protos.SavedModel, f.read(), "SavedModel")
    library = model.meta_graphs[0].graph_def.library.function
    functions = {f.signature.name for f in library}
    types = set()
    for f in library:
        for node in f.node_def:
            assert tf_attrs.signature(node.op) is not None or node.op in functions, \
                f"{f.signature.name}: {node.op} is not a TF op"
            types.add(node.op)
    assert not types & FUSED
    # what TF's loader saw in each function holds the ops TF's API composes
    assert {"Rank", "Range", "Sqrt"} <= set(TF_OPS["norm_all_unknown_rank"])
    assert {"Svd", "Transpose"} <= set(TF_OPS["norm_matrix_2"])
    assert "ComplexAbs" in TF_OPS["norm_complex"]
    assert "ParseExampleV2" in TF_OPS["parse_single_example"]
    assert "ParseSequenceExampleV2" in TF_OPS["parse_sequence_example"]
    assert {"Pack", "ConcatV2"} <= set(TF_OPS["matrix_transpose_unknown_rank"])
    assert "Svd" in TF_OPS["norm_matrix_2_unknown_rank"]
    assert {"OneHot", "LinSpace", "SelectV2"} <= set(TF_OPS["histogram_buckets"])
    assert {"FFT", "RFFT", "IRFFT", "Erfinv", "Ndtri", "BesselI0e", "BesselI1e",
            "InvertPermutation", "Lu", "DenseToDenseSetOperation", "SetSize"} <= \
        set(TF_OPS["tf_named_ops"])


def test_every_registered_op_saves_under_a_tf_name():
    """Each op of the registry is a TF op (tf_ops.json holds TF 2.21's signature of it) or has
    an expansion into TF's ops: none reaches a SavedModel under a name TF does not know."""
    import tensortrace.saving.tf_datasets  # noqa: F401 - registers the pipelines' expansion
    from tensortrace import registry
    from tensortrace.graph import tf_composites
    ours_only = sorted(name for name in registry.all_ops()
                       if tf_attrs.signature(name) is None and not tf_composites.has_rule(name))
    assert ours_only == []


def test_op_without_tf_form_refused_by_strict_export(monkeypatch):
    from tensortrace.graph.graph_def import ExportError, graph_to_function_def, graph_to_graph_def

    known = tf_attrs.signature
    monkeypatch.setattr(tf_attrs, "signature", lambda t: None if t == "Sin" else known(t))
    graph = tf.function(lambda x: tf.sin(x)).get_concrete_function(
        tf.TensorSpec([2], tf.float32)).graph  # as if TF had no Sin
    with pytest.raises(ExportError, match=r"op 'Sin' \(Sin\) has no TF op of that type"):
        graph_to_function_def(graph, "f")
    lenient = graph_to_graph_def(graph)  # the display form keeps it under its own name
    assert "Sin" in [n.op for n in lenient.node]


def test_index_axis0_writes_tf_strided_slice():
    """The optimizer's x[i] op writes TF's StridedSlice (shrinking axis 0) and reads back."""
    from tensortrace.executor.compiled import compile_graph
    from tensortrace.graph.function_def import function_def_to_graph
    from tensortrace.graph.graph_def import graph_to_function_def
    from tensortrace.graph.ir import Graph
    from tensortrace.tensor import TensorSpec

    g = Graph("g")
    x = g.placeholder(TensorSpec([3, 2], tf.float32), "x")
    i = g.placeholder(TensorSpec([], tf.int32), "i")
    y = g.add_op("IndexAxis0", (x, i), {}, (TensorSpec([2], tf.float32),), name="at").outputs[0]
    g.inputs, g.outputs, g.structured_outputs = [x, i], [y], [y]
    fdef, _ = graph_to_function_def(g, "f")
    assert "StridedSlice" in {n.op for n in fdef.node_def}
    assert "IndexAxis0" not in {n.op for n in fdef.node_def}
    run = compile_graph(function_def_to_graph(fdef), "f")
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    for k in (0, 2, -1):
        np.testing.assert_array_equal(np.asarray(run(a, np.int32(k))[0]), a[k])


@pytest.mark.parametrize("name", sorted(cases.args()))
def test_values_equal_tf_and_tensortrace(saved, name):
    root, path = saved
    values = [tf.constant(v) for v in cases.args()[name]]
    want = _tf_outputs(name)
    _same(cases.flat(tf, getattr(root, name)(*values)), want)  # as traced
    loaded = tf.saved_model.load(path)
    _same(cases.flat(tf, getattr(loaded, name)(*values)), want)  # as saved, loaded back


def test_fused_ops_under_control_dependencies():
    """An expansion waits on the op's control inputs; what waits on a fused op waits on a NoOp
    of its name (TF's graph has no node of our op type)."""
    from tensortrace.graph.graph_def import graph_to_function_def
    from tests.graph.test_tf_registry import check_library

    @tf.function
    def f(x):
        a = tf.nn.dropout(x, 0.5, seed=1)
        with tf.control_dependencies([a]):
            return tf.norm(x) + 1.0

    fdef, nested = graph_to_function_def(
        f.get_concrete_function(tf.TensorSpec([3], tf.float32)).graph, "f")
    check_library([fdef, *nested])
    nodes = {n.name: n for n in fdef.node_def}
    waits = {n.name: [i[1:] for i in n.input if i.startswith("^")] for n in fdef.node_def}
    assert all(dep in nodes for deps in waits.values() for dep in deps)
    assert nodes["Dropout"].op == "NoOp" and waits["Dropout"] == ["Dropout/SelectV2"]
    assert all("Dropout" in waits[name] for name in nodes if name.startswith("Norm/"))


def test_function_capturing_a_summary_writer_refused_as_tf(tmp_path):
    """tf.summary.histogram in a saved function: the buckets are TF ops, but the function
    captures the writer's resource, which no object of the model owns: TF's KeyError."""

    class M(tf.Module):
        def __init__(self):
            self.w = tf.summary.create_file_writer(str(tmp_path / "logs"))

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def hist(self, x):
            with self.w.as_default():
                tf.summary.histogram("h", x, step=1)
            return x

    with pytest.raises(KeyError, match="captures tensor .* which is unsupported or not "
                                       "reachable from root"):
        tf.saved_model.save(M(), str(tmp_path / "m"))
    assert not os.path.exists(tmp_path / "m")
