"""tf.profiler.experimental: TF's errors for misuse, and the XSpace file a run writes (eager
ops as EagerExecute events naming the op, tf.function calls, Trace regions with their stats),
readable by TF's message definition (tsl's xplane.proto field numbers)."""

import pathlib

import pytest

import tensortrace as tf
from tensortrace import _protos, registry

pytest.importorskip("google.protobuf")
P = tf.profiler.experimental


def _space(logdir):
    files = list(pathlib.Path(logdir).glob("plugins/profile/*/*.xplane.pb"))
    assert len(files) == 1
    space = _protos.XSpace()
    space.ParseFromString(files[0].read_bytes())
    return space


def _events(plane):
    stat = {k: v.name for k, v in plane.stat_metadata.items()}
    out = []
    for line in plane.lines:
        for ev in line.events:
            stats = {stat[s.metadata_id]: (stat[s.ref_value] if s.WhichOneof("value") == "ref_value"
                                           else getattr(s, s.WhichOneof("value")))
                     for s in ev.stats}
            out.append((plane.event_metadata[ev.metadata_id].name, stats, ev.offset_ps,
                        ev.duration_ps))
    return out


def test_misuse_raises_tfs_errors(tmp_path):
    with pytest.raises(tf.errors.UnavailableError,
                       match=r"^Cannot export profiling results. No profiler is running.$"):
        P.stop()
    P.start(str(tmp_path))
    try:
        with pytest.raises(tf.errors.AlreadyExistsError, match=r"^Another profiler is running.$"):
            P.start(str(tmp_path))
    finally:
        P.stop(save=False)
    assert not list(tmp_path.iterdir())  # stop(save=False) writes nothing
    with pytest.raises(AttributeError, match="'int' object has no attribute '_asdict'"):
        P.start(str(tmp_path), options=3)
    assert repr(P.ProfilerOptions()) == ("ProfilerOptions(host_tracer_level=2, "
                                         "python_tracer_level=0, device_tracer_level=1, "
                                         "delay_ms=None)")


def test_run_writes_xspace_of_ops_calls_and_traces(tmp_path):
    x = tf.constant([1.0, 2.0])
    y = x * x + 2  # the ops are loaded before profiling starts
    f = tf.function(lambda v: v * 2.0)
    kernel = registry.get("Mul").kernel
    with P.Profile(str(tmp_path)):
        with P.Trace("train", step_num=3, tag="a"):
            y = x * x + 2
        f(x)
        f(x)
    assert registry.get("Mul").kernel is kernel  # the timing wrappers are gone
    assert y.numpy().tolist() == [3.0, 6.0]
    space = _space(tmp_path)
    host, task = space.planes
    assert (host.name, task.name) == ("/host:CPU", "Task Environment")
    events = _events(host)
    names = [(name, stats) for name, stats, _, _ in events]
    assert ("train", {"step_num": 3, "tag": "a"}) in names
    assert ("EagerExecute", {"eager_op": "Mul", "is_func": 0}) in names
    assert ("EagerExecute", {"eager_op": "AddV2", "is_func": 0}) in names
    calls = [stats for name, stats in names if name == "<lambda>"]
    assert [c["tf_function_call"] for c in calls] == ["traced-nonXla", "notTraced-nonXla"]
    train = next(e for e in events if e[0] == "train")
    mul = next(e for e in events if e[1].get("eager_op") == "Mul")
    assert train[2] <= mul[2] and mul[2] + mul[3] <= train[2] + train[3]  # nested in time
    start, stop = (s.uint64_value for s in task.stats)
    assert 0 < start <= stop


def test_trace_outside_a_run_records_nothing(tmp_path):
    with P.Trace("idle", step_num=1) as t:
        t.set_metadata(k=1)
    P.start(str(tmp_path))
    P.stop()
    assert _events(_space(tmp_path).planes[0]) == []
