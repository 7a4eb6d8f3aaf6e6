"""Graphs for TensorBoard: ``tf.summary.graph`` (an event's ``graph_def``) and
``trace_on``/``trace_export`` (a RunMetadata of the functions traced in between), read back
with TensorBoard's EventAccumulator; TF 2.21's warnings and errors."""

import logging

import numpy as np
import pytest
from tensorboard.compat.proto import config_pb2

import tensortrace as tf
from tensortrace import _protos
from tensortrace.summary import graphs as summary_graphs
from tensortrace.summary import writer as summary_writer

from .readers import accumulator, events, tensors


@pytest.fixture(autouse=True)
def _fresh_state():
    summary_writer.state.__init__()
    summary_graphs.trace_off()
    yield
    summary_writer.state.__init__()
    summary_graphs.trace_off()


@tf.function
def dense(x, w):
    return tf.nn.relu(tf.matmul(x, w))


X = tf.ones([2, 2])


def _run_metadata(acc, tag):
    ((step, value),) = tensors(acc, tag)
    return step, config_pb2.RunMetadata.FromString(value.item())


def test_graph_writes_the_graph_def(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    graph = dense.get_concrete_function(X, X).graph
    with w.as_default():
        assert tf.summary.graph(graph.as_graph_def()).numpy()  # a GraphDef as it is
        assert tf.summary.graph(graph).numpy()  # a Graph with _output_shapes
    graph_def = accumulator(str(tmp_path)).Graph()
    assert [(n.name, n.op) for n in graph_def.node] == [
        ("x", "Placeholder"), ("w", "Placeholder"), ("MatMul", "MatMul"), ("Relu", "Relu"),
        ("Identity", "Identity")]
    assert list(graph_def.node[2].input) == ["x", "w"]
    matmul_shapes = graph_def.node[2].attr["_output_shapes"].list.shape  # TF's add_shapes
    assert [[d.size for d in s.dim] for s in matmul_shapes] == [[2, 2]]
    written = [e for e in events(str(tmp_path)) if e.HasField("graph_def")]
    assert [e.step for e in written] == [0, 0]
    assert written[0].graph_def == graph.as_graph_def().SerializeToString()


def test_graph_when_not_recording_and_bad_input(tmp_path):
    graph = dense.get_concrete_function(X, X).graph
    assert not tf.summary.graph(graph).numpy()  # no default writer
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        with tf.summary.record_if(False):
            assert not tf.summary.graph(graph).numpy()
        with pytest.raises(ValueError, match=r"^Argument 'graph_data' is not tf.Graph or "
                           r"tf.compat.v1.GraphDef. Received graph_data=3 of type int.$"):
            tf.summary.graph(3)

        @tf.function
        def inside():
            tf.summary.graph(graph)

        with pytest.raises(ValueError, match="graph\\(\\) cannot be invoked inside a graph "
                                             "context."):
            inside()
    assert len(events(str(tmp_path))) == 1


def test_trace_export_writes_the_functions_traced_while_on(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    dense(X, X)  # traced before trace_on: not collected, as in TF

    @tf.function
    def step_fn(x):
        with w.as_default(step=1):
            tf.summary.scalar("total", tf.reduce_sum(x))
        return x + 1

    tf.summary.trace_on(graph=True, profiler=False)
    dense(X, X)
    step_fn(X)
    step_fn(X)  # a cache hit: traced once
    with w.as_default():
        assert tf.summary.trace_export("my_trace", step=3) is None
    acc = accumulator(str(tmp_path))
    assert acc.SummaryMetadata("my_trace").plugin_data.plugin_name == "graph_run_metadata_graph"
    assert acc.SummaryMetadata("my_trace").plugin_data.content == b"1"
    step, run_metadata = _run_metadata(acc, "my_trace")
    assert step == 3 and len(run_metadata.function_graphs) == 1
    nodes = run_metadata.function_graphs[0].pre_optimization_graph.node
    ops = [n.op for n in nodes]
    assert ops.count("WriteSummary") == 1 and ops.count("FlushSummaryWriter") == 1
    assert ops[0] == "Placeholder" and "Sum" in ops and ops[-2:] == ["AddV2", "Identity"]
    write = nodes[ops.index("WriteSummary")]
    assert len(write.input) == 5  # writer, step, tensor, tag, metadata
    assert [float(v) for _, v in tensors(acc, "total")] == [4.0, 4.0]
    with pytest.raises(ValueError, match="^Must enable trace before export through "
                                         "tf.summary.trace_on.$"):
        tf.summary.trace_export("again", step=0)  # the export turned tracing off


def test_trace_off_discards(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on()

    @tf.function
    def f(x):
        return x * 2

    f(X)
    tf.summary.trace_off()
    tf.summary.trace_on()
    with w.as_default():
        tf.summary.trace_export("empty", step=0)
    assert len(_run_metadata(accumulator(str(tmp_path)), "empty")[1].function_graphs) == 0


def _warnings(caplog):
    return [f"{r.levelname}:{r.name}:{r.getMessage()}" for r in caplog.records]


def test_trace_warnings(caplog):
    caplog.set_level(logging.WARNING, logger="tensortrace")
    tf.summary.trace_on()
    tf.summary.trace_on()

    @tf.function
    def f():
        tf.summary.trace_on()
        tf.summary.trace_export("x", step=0)
        return 1

    f()
    assert _warnings(caplog) == [
        "WARNING:tensortrace:Trace already enabled",
        "WARNING:tensortrace:Cannot enable trace inside a tf.function.",
        "WARNING:tensortrace:Cannot export trace inside a tf.function."]


def test_profiler_without_outdir_is_tfs(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="tensortrace")
    w = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on(graph=True, profiler=True)
    dense(X, X)
    with w.as_default():
        with pytest.raises(tf.errors.UnavailableError,
                           match="^Cannot export profiling results. No profiler is running.$"):
            tf.summary.trace_export("prof", step=0, profiler_outdir=str(tmp_path))
    acc = accumulator(str(tmp_path))
    assert acc.SummaryMetadata("prof").plugin_data.plugin_name == "graph_run_metadata"
    assert _run_metadata(acc, "prof")[1] == config_pb2.RunMetadata()  # nothing collected
    tf.summary.trace_off()
    assert _warnings(caplog) == [
        "WARNING:tensortrace:No `profiler_outdir` passed to trace_on(). Profiler won't be "
        "enabled.",
        "WARNING:tensortrace:Ignoring `profiler_outdir` passed to trace_export(). Please pass it "
        "to trace_on() instead.",
        "WARNING:tensortrace:Error while stopping profiler: Cannot export profiling results. No "
        "profiler is running."]


def test_profiling_is_unimplemented(tmp_path):
    with pytest.raises(tf.errors.UnimplementedError, match="no profiler"):
        tf.summary.trace_on(profiler=True, profiler_outdir=str(tmp_path))
    with pytest.raises(ValueError, match="Must enable trace"):
        tf.summary.trace_export("x")


def test_raw_summary_protos(tmp_path):
    summary = _protos.summary_pb2.Summary()
    summary.value.add(tag="raw", simple_value=1.25)
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        assert tf.summary.experimental.write_raw_pb(
            [summary.SerializeToString()] * 2, step=4).numpy()
        with pytest.raises(tf.errors.DataLossError):
            tf.summary.experimental.write_raw_pb(b"\xff\xff", step=1)
    acc = accumulator(str(tmp_path))
    assert [(s.step, s.value) for s in acc.Scalars("raw")] == [(4, 1.25), (4, 1.25)]
    np.testing.assert_array_equal(len(events(str(tmp_path))), 3)
