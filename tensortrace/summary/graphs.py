"""Graphs for TensorBoard's Graphs dashboard: ``tf.summary.graph`` writes a graph's GraphDef as
an event's ``graph_def``; ``trace_on``/``trace_export`` collect the graphs of the functions
traced in between and write them as TF does, a ``RunMetadata`` whose ``function_graphs`` hold
each GraphDef (the ``graph_run_metadata_graph`` plugin). tensortrace has no profiler: TF 2.21's
behaviour without one is kept (``profiler=True`` with no ``profiler_outdir`` exports empty run
metadata, then raises UnavailableError), and asking for a profile is UnimplementedError.
"""

import threading

from .. import _protos, errors
from .. import dtypes as D
from .._export import tf_export
from .._logging import logger
from ..context import bind, state as _context_state
from ..convert import constant, convert_to_tensor
from ..graph.ir import Graph
from ..tracing import function as _function
from . import ops as summary_ops
from .summaries import choose_step, summary_scope, write
from .writer import should_record_summaries, state


def _serialize_graph(graph, add_shapes=True):
    """A Graph's or GraphDef's bytes; a Graph with each node's ``_output_shapes`` (TF's
    ``as_graph_def(add_shapes=True)`` for ``tf.summary.graph``)."""
    if isinstance(graph, Graph):
        graph = graph.as_graph_def(add_shapes=add_shapes)
    return graph.SerializeToString()


@tf_export("summary.graph")
def graph(graph_data):
    """Write ``graph_data`` (a ``tf.Graph``, e.g. a concrete function's ``.graph``, or a
    GraphDef) to the default writer, at step 0.

    Returns:
        True when written; False when no default writer is set or recording is off.

    Raises:
        ValueError: inside a ``tf.function``, or for ``graph_data`` of another type.
    """
    if _context_state.graph is not None:
        raise ValueError("graph() cannot be invoked inside a graph context.")
    writer = state.writer
    if writer is None:
        return constant(False)
    if not should_record_summaries():
        return constant(False)
    if not isinstance(graph_data, (Graph, _protos.graph_pb2.GraphDef)):
        raise ValueError("Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. "
                         f"Received graph_data={graph_data} of type "
                         f"{type(graph_data).__name__}.")
    tensor = convert_to_tensor(_serialize_graph(graph_data), D.string)
    bind(summary_ops.WriteGraphSummary, writer._resource, convert_to_tensor(0, D.int64), tensor)
    return constant(True)


# --- tracing --------------------------------------------------------------------------------
class _Trace:
    """An active ``trace_on``: what it records and the functions traced since."""

    def __init__(self, graph, profiler):
        self.graph, self.profiler, self.functions = graph, profiler, []

    def observe(self, concrete):
        if self.graph and not self.profiler:  # TF collects graphs only then
            self.functions.append(concrete.graph)


_lock = threading.Lock()
_current = None


@tf_export("summary.trace_on")
def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Start collecting the graphs of the ``tf.function``s traced from now on, for
    ``trace_export``.

    Raises:
        errors.UnimplementedError: for ``profiler=True`` with a ``profiler_outdir``:
            tensortrace has no profiler.
    """
    global _current
    if _context_state.graph is not None:
        logger.warning("Cannot enable trace inside a tf.function.")
        return
    with _lock:
        if _current is not None:
            logger.warning("Trace already enabled")
            return
        if profiler:
            if profiler_outdir is None:
                logger.warning("No `profiler_outdir` passed to trace_on(). Profiler won't be "
                               "enabled.")
            else:
                raise errors.UnimplementedError(
                    None, None, "tf.summary.trace_on(profiler=True, profiler_outdir=...): "
                    "tensortrace has no profiler.")
        _current = _Trace(graph, profiler)
        _function.trace_observers.append(_current.observe)


def _run_metadata(name, data, step, plugin, default_name):
    metadata = _protos.summary_pb2.SummaryMetadata()
    metadata.plugin_data.plugin_name = plugin
    metadata.plugin_data.content = b"1"
    with summary_scope(name, default_name, [data, step]) as (tag, _):
        tensor = constant(data.SerializeToString(), dtype=D.string)
        return write(tag=tag, tensor=tensor, step=step, metadata=metadata)


@tf_export("summary.trace_export")
def trace_export(name, step=None, profiler_outdir=None):
    """Stop the trace and write the graphs it collected as summary ``name`` (TensorBoard's
    Graphs dashboard shows them).

    Raises:
        ValueError: when no trace is on.
        errors.UnavailableError: for a ``profiler=True`` trace (no profile was taken).
    """
    if step is not None:
        choose_step(step)
    if _context_state.graph is not None:
        logger.warning("Cannot export trace inside a tf.function.")
        return
    with _lock:
        if _current is None:
            raise ValueError("Must enable trace before export through tf.summary.trace_on.")
        trace = _current
    run_metadata = _protos.config_pb2.RunMetadata()
    for func_graph in trace.functions:
        entry = run_metadata.function_graphs.add()
        entry.pre_optimization_graph.ParseFromString(_serialize_graph(func_graph, False))
    if trace.graph and not trace.profiler:
        _run_metadata(name, run_metadata, step, "graph_run_metadata_graph",
                      "graph_run_metadata_graph_summary")
    else:
        _run_metadata(name, run_metadata, step, "graph_run_metadata",
                      "graph_run_metadata_summary")
    if trace.profiler:
        if profiler_outdir:
            logger.warning("Ignoring `profiler_outdir` passed to trace_export(). Please pass it "
                           "to trace_on() instead.")
        raise errors.UnavailableError(None, None, "Cannot export profiling results. No "
                                      "profiler is running.")
    trace_off()


@tf_export("summary.trace_off")
def trace_off():
    """Stop the trace and discard what it collected."""
    global _current
    with _lock:
        trace, _current = _current, None
        if trace is None:
            return
        _function.trace_observers.remove(trace.observe)
    if trace.profiler:
        logger.warning("Error while stopping profiler: Cannot export profiling results. No "
                       "profiler is running.")
