"""tf.profiler.experimental: a host-side profiler writing TF's XSpace files for TensorBoard.

While profiling, each op kernel run (eager ops as TF's ``EagerExecute`` events, naming the op),
each tf.function call and each ``Trace`` region is recorded with its thread, start and duration;
``stop`` writes them as ``<logdir>/plugins/profile/<run>/<host>.xplane.pb`` (an XSpace, the
tf-formats extra), as TF's profiler does. Off, it costs nothing: ``start`` puts timed wrappers
on the kernels of the ops registered so far and on tf.function's call, ``stop`` takes them off
(ops first loaded while profiling are not timed).

    >>> tf.profiler.experimental.start("logs")
    >>> with tf.profiler.experimental.Trace("train", step_num=1):
    ...     y = x * x
    >>> tf.profiler.experimental.stop()
"""

import collections
import functools
import os
import socket
import sys
import threading
import time

from . import _protos, errors, registry
from ._export import tf_export
from .context import bind
from .tracing.function import PolymorphicFunction


@tf_export("profiler.experimental.ProfilerOptions")
class ProfilerOptions(collections.namedtuple(
        "ProfilerOptions", ["host_tracer_level", "python_tracer_level", "device_tracer_level",
                            "delay_ms"])):
    """TF's profiling options: the host tracer's level (0 records nothing, 1 user ``Trace``
    regions only, 2 and up also ops and function calls); the others are kept as given."""

    def __new__(cls, host_tracer_level=2, python_tracer_level=0, device_tracer_level=1,
                delay_ms=None):
        return super().__new__(cls, host_tracer_level, python_tracer_level, device_tracer_level,
                               delay_ms)


class _Session:
    """One profiling run: where it goes, its options and the events recorded so far (appends
    from any thread: ``(thread id, name, start ns, end ns, stats)``)."""

    def __init__(self, logdir, options):
        self.logdir, self.options = logdir, options
        self.start_ns, self.start_wall = time.perf_counter_ns(), time.time_ns()
        self.events = []
        self.wrapped = []  # (OpDef, its kernel) put back by stop

    def record(self, name, start, stats=None):
        self.events.append((threading.get_ident(), name, start, time.perf_counter_ns(), stats))


_lock = threading.Lock()
_session = None  # the running _Session, or None
_BIND_CODE = bind.__code__
_plain_call = PolymorphicFunction.__call__


def _timed_kernel(opdef, kernel):
    """``kernel`` recording each run in the session (an eager op's as TF's EagerExecute event;
    a run inside a compiled function under the op's type). A function compiled while profiling
    keeps the wrapper: it only passes through once the session is gone."""

    @functools.wraps(kernel)
    def timed(*arrays, **attrs):
        session = _session
        if session is None:
            return kernel(*arrays, **attrs)
        start = time.perf_counter_ns()
        try:
            return kernel(*arrays, **attrs)
        finally:
            if sys._getframe(1).f_code is _BIND_CODE:
                session.record("EagerExecute", start, {"eager_op": opdef.name, "is_func": 0})
            else:
                session.record(opdef.name, start)

    return timed


def _timed_call(self, *args, **kwargs):
    """tf.function's call, recorded as TF records one (traced or not, the tracing count)."""
    session = _session
    if session is None:
        return _plain_call(self, *args, **kwargs)
    count = self.experimental_get_tracing_count()
    start = time.perf_counter_ns()
    try:
        return _plain_call(self, *args, **kwargs)
    finally:
        traced = self.experimental_get_tracing_count() != count
        session.record(self._name, start, {
            "tf_function_call": "traced-nonXla" if traced else "notTraced-nonXla",
            "tracing_count": self.experimental_get_tracing_count()})


@tf_export("profiler.experimental.start")
def start(logdir, options=None):
    """Start profiling; ``stop`` writes what was recorded under ``logdir``.

    Raises:
        AlreadyExistsError: when a profiler is already running.
    """
    global _session
    levels = (options or ProfilerOptions())._asdict()  # TF's: options must be ProfilerOptions
    with _lock:
        if _session is not None:
            raise errors.AlreadyExistsError(None, None, "Another profiler is running.")
        session = _Session(os.fspath(logdir), ProfilerOptions(**levels))
        if session.options.host_tracer_level >= 2:
            for opdef in list(registry._OPS.values()):  # the ops loaded so far
                session.wrapped.append((opdef, opdef.kernel))
                opdef.kernel = _timed_kernel(opdef, opdef.kernel)
            PolymorphicFunction.__call__ = _timed_call
        _session = session


@tf_export("profiler.experimental.stop")
def stop(save=True):
    """Stop profiling and, with ``save``, write the XSpace of the run.

    Raises:
        UnavailableError: when no profiler is running.
    """
    global _session
    with _lock:
        session = _session
        if session is None:
            raise errors.UnavailableError(
                None, None, "Cannot export profiling results. No profiler is running.")
        _session = None
        PolymorphicFunction.__call__ = _plain_call
        for opdef, kernel in session.wrapped:
            opdef.kernel = kernel
    if save:
        _write(session, time.time_ns())


def _write(session, stop_wall):
    """The session as TF's XSpace file: a ``/host:CPU`` plane, one line per thread (the main
    thread's is ``python``), and the ``Task Environment`` plane with the run's times."""
    space = _protos.XSpace()
    host = socket.gethostname()
    space.hostnames.append(host)
    plane = space.planes.add(id=0, name="/host:CPU")
    names, stat_ids = {}, {}

    def event_id(name):
        if name not in names:
            names[name] = len(names) + 1
            plane.event_metadata[names[name]].id = names[name]
            plane.event_metadata[names[name]].name = name
        return names[name]

    def stat_id(name):
        if name not in stat_ids:
            stat_ids[name] = len(stat_ids) + 1
            plane.stat_metadata[stat_ids[name]].id = stat_ids[name]
            plane.stat_metadata[stat_ids[name]].name = name
        return stat_ids[name]

    lines = {}
    main = threading.main_thread().ident
    for thread, name, begin, end, stats in sorted(session.events, key=lambda e: e[2]):
        line = lines.get(thread)
        if line is None:
            line = lines[thread] = plane.lines.add(
                id=thread, display_id=0, timestamp_ns=session.start_wall,
                name="python" if thread == main else f"python/{thread}")
            line.display_name = line.name
        event = line.events.add(metadata_id=event_id(name),
                                offset_ps=(begin - session.start_ns) * 1000,
                                duration_ps=(end - begin) * 1000)
        for key, value in (stats or {}).items():
            _set_stat(event.stats.add(metadata_id=stat_id(key)), value, stat_id)
    task = space.planes.add(id=1, name="Task Environment")
    task.stat_metadata[1].id, task.stat_metadata[1].name = 1, "profile_start_time"
    task.stat_metadata[2].id, task.stat_metadata[2].name = 2, "profile_stop_time"
    task.stats.add(metadata_id=1, uint64_value=session.start_wall)
    task.stats.add(metadata_id=2, uint64_value=stop_wall)
    run = time.strftime("%Y_%m_%d_%H_%M_%S", time.localtime(stop_wall / 1e9))
    folder = os.path.join(session.logdir, "plugins", "profile", run)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"{host}.xplane.pb"), "wb") as f:
        f.write(space.SerializeToString())


def _set_stat(stat, value, stat_id):
    """A stat's value as TF's TraceMe keeps it: ints, floats, and strings as a reference to a
    stat metadata entry of that name (as TF refers to an eager op's type)."""
    if isinstance(value, bool) or isinstance(value, int):
        stat.int64_value = int(value)
    elif isinstance(value, float):
        stat.double_value = value
    else:
        stat.ref_value = stat_id(str(value))


@tf_export("profiler.experimental.Profile")
class Profile:
    """``with Profile(logdir):``: profiling for the block (``start`` and ``stop``)."""

    def __init__(self, logdir, options=None):
        self._logdir, self._options = logdir, options

    def __enter__(self):
        start(self._logdir, self._options)

    def __exit__(self, typ, value, tb):
        stop()


@tf_export("profiler.experimental.Trace")
class Trace:
    """``with Trace(name, step_num=1):``: a region recorded as one event named ``name`` with
    ``kwargs`` as its stats while a profiler runs (nothing otherwise). A ``step_num`` marks a
    training step, as in TF."""

    def __init__(self, name, **kwargs):
        self._name, self._stats, self._start = name, kwargs, None

    def __enter__(self):
        if _session is not None and _session.options.host_tracer_level >= 1:
            self._start = time.perf_counter_ns()
        return self

    def set_metadata(self, **kwargs):
        """Add stats to the region's event (as TF's ``Trace.set_metadata``)."""
        self._stats.update(kwargs)

    def __exit__(self, typ, value, tb):
        session = _session
        if self._start is not None and session is not None:
            session.record(self._name, self._start, dict(self._stats))
        self._start = None
