"""Summary writers and the per-thread recording state of ``tf.summary``.

``create_file_writer`` opens an event file as TF 2's C++ writer does: named
``events.out.tfevents.<seconds>.<host>.<pid>.<n><suffix>`` (``.v2`` by default), starting with
the ``brain.Event:2`` version event, each event one TFRecord (length, masked CRC32C of the
length, data, masked CRC32C of the data). Events are queued and written when more than
``max_queue`` wait or ``flush_millis`` passed since the last flush, on ``flush()``, when an
``as_default()`` block ends, on ``close()`` and when the file is no longer referenced. The
protocol buffers are the ``tf-formats`` extra's (``_protos``). The writer's resource tensor
holds its ``EventFile``, so a traced function captures the writer and writes on every call.
"""

import abc
import contextlib
import errno
import itertools
import os
import socket
import struct
import threading
import time
import weakref

import numpy as np

from .. import _protos, errors
from .. import dtypes as D
from .._export import tf_export
from ..context import bind, state as _context_state
from ..convert import constant, convert_to_tensor
from ..ops.core import init_scope, no_op
from ..ops.math.compare import logical_and
from ..tensor import EagerTensor, Tensor, static_value
from . import ops as summary_ops


class _State(threading.local):
    """TF's ``_summary_state``: the default writer, step and recording condition, per thread."""

    def __init__(self):
        super().__init__()
        self.writer = None
        self.step = None
        self.is_recording = None


state = _State()


# --- the event file ---------------------------------------------------------------------------
class _Records:
    """The open file and the queue of serialized events not yet written (kept apart from
    ``EventFile`` so that a finalizer can flush it when the EventFile is gone)."""

    def __init__(self, file):
        self.file, self.queue, self.lock = file, [], threading.Lock()

    def write_record(self, data):
        header = struct.pack("<Q", len(data))
        self.file.write(header + struct.pack("<I", _protos.masked_crc32c(header)) + data +
                        struct.pack("<I", _protos.masked_crc32c(data)))

    def flush(self):
        with self.lock:
            if self.file.closed:
                return
            for data in self.queue:
                self.write_record(data)
            self.queue.clear()
            self.file.flush()

    def close(self):
        self.flush()
        self.file.close()


class EventFile:
    """TF's ``SummaryFileWriter`` resource: one event file and its queue. Also the run-time value
    of the writer's ``resource`` tensor."""

    dtype = D.resource
    shape = ()
    ndim = 0
    size = 1
    _files_opened = itertools.count()  # the process-wide writer number in TF's file names

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        event = _protos.event_pb2.Event(file_version="brain.Event:2")  # needs the extra: first
        event.source_metadata.writer = "tensorflow.core.util.events_writer"
        try:
            os.makedirs(logdir, exist_ok=True)
            self.number = next(self._files_opened)
            name = "events.out.tfevents.%010d.%s.%d.%d%s" % (
                time.time(), socket.gethostname(), os.getpid(), self.number, filename_suffix)
            self.path = os.path.join(logdir, name)
            file = open(self.path, "wb")
        except OSError as e:
            raise _io_error(e) from None
        self._records = _Records(file)
        self._max_queue, self._flush_secs = max_queue, flush_millis / 1000.0
        event.wall_time = time.time()
        self._records.write_record(event.SerializeToString())
        file.flush()
        self._last_flush = time.monotonic()
        weakref.finalize(self, self._records.close)

    def __repr__(self):
        return f"<EventFile {self.path!r}>"

    @property
    def closed(self):
        return self._records.file.closed

    def write_event(self, event):
        """Queue ``event`` (stamped with the wall time); write the queue when it is full or
        ``flush_millis`` passed since the last write (TF's SummaryFileWriter::WriteEvent)."""
        if self.closed:  # TF deleted the resource when the writer closed
            raise errors.NotFoundError(
                None, None, f"Resource localhost/_AnonymousVar{self.number}/"
                "N10tensorflow22SummaryWriterInterfaceE does not exist.")
        event.wall_time = time.time()
        records = self._records
        with records.lock:
            records.queue.append(event.SerializeToString())
            full = len(records.queue) > self._max_queue
        if full or time.monotonic() - self._last_flush > self._flush_secs:
            self.flush()

    def write_tensor(self, step, array, tag, serialized_metadata):
        """One tensor summary value, as TF writes it: strings in ``string_val``, numbers as raw
        little-endian ``tensor_content`` (scalars too)."""
        event = _protos.event_pb2.Event(step=step)
        value = event.summary.value.add(tag=tag.decode("utf-8", "replace"))
        _fill_tensor_proto(value.tensor, array)
        if serialized_metadata:
            try:
                value.metadata.ParseFromString(serialized_metadata)
            except Exception:  # TF ignores metadata that does not parse (ParseFromString false)
                value.ClearField("metadata")
        self.write_event(event)

    def write_graph(self, step, serialized_graph_def):
        self.write_event(_protos.event_pb2.Event(step=step, graph_def=serialized_graph_def))

    def write_raw_summary(self, step, serialized_summary):
        summary = _protos.parse(_protos.summary_pb2.Summary, serialized_summary,
                                "the serialized Summary proto")
        event = _protos.event_pb2.Event(step=step)
        event.summary.CopyFrom(summary)
        self.write_event(event)

    def flush(self):
        self._records.flush()
        self._last_flush = time.monotonic()

    def close(self):
        self._records.close()


def _fill_tensor_proto(proto, array):
    dtype = D.from_numpy(array.dtype)
    proto.dtype = dtype.as_datatype_enum
    proto.tensor_shape.SetInParent()  # present for scalars too, as TF writes it
    for d in array.shape:
        proto.tensor_shape.dim.add(size=d)
    if dtype is D.string:
        proto.string_val.extend(v.encode("utf-8") if isinstance(v, str) else bytes(v)
                                for v in array.reshape(-1))
    else:
        proto.tensor_content = np.ascontiguousarray(
            array, dtype=array.dtype.newbyteorder("<")).tobytes()


def _io_error(e):
    """TF's error for a log directory it cannot create or write in."""
    if e.errno in (errno.EEXIST, errno.ENOTDIR):  # a file where a directory should be
        return errors.FailedPreconditionError(None, None,
                                              "Not a directory [Op:CreateSummaryFileWriter]")
    kind = {errno.ENOENT: errors.NotFoundError, errno.EACCES: errors.PermissionDeniedError,
            errno.EPERM: errors.PermissionDeniedError}.get(e.errno, errors.UnknownError)
    return kind(None, None, f"{e.filename}; {e.strerror} [Op:CreateSummaryFileWriter]")


# --- writers ------------------------------------------------------------------------------------
class _SummaryContextManager:
    """``SummaryWriter.as_default()``: the writer (and step) while inside; flushes on exit."""

    def __init__(self, writer, step=None):
        self._writer, self._step = writer, step
        self._old_writer = self._old_step = None

    def __enter__(self):
        self._old_writer = state.writer
        state.writer = self._writer
        if self._step is not None:
            self._old_step = state.step
            state.step = self._step
        return self._writer

    def __exit__(self, *exc):
        state.writer.flush()
        state.writer = self._old_writer
        if self._step is not None:
            state.step = self._old_step
        return False


@tf_export("summary.SummaryWriter")
class SummaryWriter(metaclass=abc.ABCMeta):
    """Interface representing a stateful summary writer object."""

    def set_as_default(self, step=None):
        """Make this the default writer of the current thread (and ``step`` the default step
        when given)."""
        self.as_default(step).__enter__()

    def as_default(self, step=None):
        """A context manager making this the default writer (and ``step`` the default step when
        given); restores the previous ones and flushes on exit."""
        return _SummaryContextManager(self, step)

    def init(self):
        """Initializes the summary writer."""
        raise NotImplementedError()

    def flush(self):
        """Flushes any buffered data."""
        raise NotImplementedError()

    def close(self):
        """Flushes and closes the summary writer."""
        raise NotImplementedError()


class _ResourceSummaryWriter(SummaryWriter):
    """A writer whose state is a resource (an ``EventFile``): its ops work eagerly and in
    traced functions alike."""

    def __init__(self, event_file):
        self._resource = EagerTensor._wrap(event_file)
        self._closed = False

    def _closed_eagerly(self):
        return self._closed and _context_state.graph is None

    def set_as_default(self, step=None):
        if self._closed_eagerly():
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")
        super().set_as_default(step)

    def as_default(self, step=None):
        if self._closed_eagerly():
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")
        return super().as_default(step)

    def init(self):
        if self._closed_eagerly():
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")
        return None  # the file was created with the writer (TF's init op, run eagerly)

    def flush(self):
        if self._closed_eagerly():
            return None
        return _op_result(bind(summary_ops.FlushSummaryWriter, self._resource))

    def close(self):
        if self._closed_eagerly():
            return None
        try:
            self.flush()
            return _op_result(bind(summary_ops.CloseSummaryWriter, self._resource))
        finally:
            if _context_state.graph is None:
                self._closed = True


def _op_result(op):
    return None if op == () else op  # eagerly None; the Operation in a graph, as TF


class _NoopSummaryWriter(SummaryWriter):
    """A summary writer that does nothing, for create_noop_writer()."""

    def set_as_default(self, step=None):
        pass

    @contextlib.contextmanager
    def as_default(self, step=None):
        yield

    def init(self):
        pass

    def flush(self):
        pass

    def close(self):
        pass


def _check_writer_args(inside_function, **kwargs):
    for arg_name, arg in kwargs.items():
        if isinstance(arg, Tensor) and not isinstance(arg, EagerTensor):
            if inside_function:
                raise ValueError(
                    f"Invalid graph Tensor argument '{arg_name}={arg}' to create_file_writer() "
                    "inside an @tf.function. The create call will be lifted into the outer "
                    "eager execution context, so it cannot consume graph tensors defined inside "
                    "the function body.")
            raise ValueError(f"Invalid graph Tensor argument '{arg_name}={arg}' to eagerly "
                             "executed create_file_writer().")


def _value(arg, dtype, default):
    return default if arg is None else convert_to_tensor(arg, dtype=dtype).numpy()


@tf_export("summary.create_file_writer")
def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None, experimental_trackable=False, experimental_mesh=None):
    """A summary writer writing TF 2 event files into ``logdir`` (created if missing).

    ``max_queue`` (10) events are kept before a write, at most ``flush_millis`` (120000) apart;
    ``filename_suffix`` ends the file name (``.v2``). Inside a ``tf.function`` the writer is
    created eagerly (TF lifts it out of the function).

    Raises:
        ValueError: for a None ``logdir`` or a graph tensor argument.
        NotImplementedError: for an ``experimental_mesh`` (tensortrace has no DTensor).
    """
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    if experimental_mesh is not None:
        raise NotImplementedError("create_file_writer(experimental_mesh=...): tensortrace has "
                                  "no DTensor meshes.")
    inside_function = _context_state.graph is not None
    with init_scope():
        _check_writer_args(inside_function, logdir=logdir, max_queue=max_queue,
                           flush_millis=flush_millis, filename_suffix=filename_suffix)
        logdir = convert_to_tensor(logdir, dtype=D.string).numpy()
        max_queue = int(_value(max_queue, D.int32, 10))
        flush_millis = int(_value(flush_millis, D.int32, 2 * 60 * 1000))
        suffix = _value(filename_suffix, D.string, b".v2")
        event_file = EventFile(os.fsdecode(logdir), max_queue, flush_millis,
                               os.fsdecode(suffix))
        # experimental_trackable only makes TF's writer a SavedModel-tracked resource; the
        # writer behaves the same either way
        return _ResourceSummaryWriter(event_file)


@tf_export("summary.create_noop_writer")
def create_noop_writer():
    """Returns a summary writer that does nothing."""
    return _NoopSummaryWriter()


# --- the recording state ------------------------------------------------------------------------
@tf_export("summary.record_if")
@contextlib.contextmanager
def record_if(condition):
    """Record summaries inside only when ``condition`` (a Python bool, a bool tensor, or a
    callable giving one, called each time a summary is written) holds."""
    old = state.is_recording
    try:
        state.is_recording = condition
        yield
    finally:
        state.is_recording = old


def should_record(default_state=True):
    """The bool tensor saying whether a summary written now is recorded."""
    if state.writer is None:
        return constant(False)
    condition = state.is_recording
    if not callable(condition) and condition is not None:
        known = static_value(condition)
        if known is not None and not known:
            return constant(False)
    if callable(condition):
        condition = condition()
    if condition is None:
        condition = default_state
    return logical_and(True, condition)


@tf_export("summary.should_record_summaries")
def should_record_summaries():
    """A bool tensor: True when a default writer is set and the ``record_if`` condition (True
    by default) holds."""
    return should_record(default_state=True)


@tf_export("summary.experimental.get_step")
def get_step():
    """The default step of the current thread (``set_step``'s), or None."""
    return state.step


@tf_export("summary.experimental.set_step")
def set_step(step):
    """Set the default step of the current thread: a number, a tensor or a ``tf.Variable``
    (read each time a summary is written), or None to unset it."""
    state.step = step


@tf_export("summary.flush")
def flush(writer=None, name=None):
    """Flush ``writer`` (the default writer when None).

    Raises:
        ValueError: when ``writer`` is not a SummaryWriter.
    """
    del name  # unused, as in TF
    if writer is None:
        writer = state.writer
        if writer is None:
            return no_op()
    if isinstance(writer, SummaryWriter):
        return writer.flush()
    raise ValueError("Invalid argument to flush(): %r" % (writer,))
