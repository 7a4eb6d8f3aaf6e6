"""MirroredStrategy's replicas: they run concurrently eagerly and in turn while traced, print in
replica order, fail as one, trace a nested tf.function per replica; the logical CPU devices a
strategy uses by default."""

import contextlib
import io
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tensortrace as tf

TWO = ["cpu:0", "cpu:1"]


def test_replicas_run_concurrently_eagerly():
    """Replica 0 waits for what replica 1 does: only concurrent replicas both finish."""
    s = tf.distribute.MirroredStrategy(TWO)
    seen = threading.Event()

    def fn():
        if tf.distribute.get_replica_context().replica_id_in_sync_group == 0:
            return tf.constant(seen.wait(timeout=10))
        seen.set()
        return tf.constant(True)

    assert [bool(x) for x in s.experimental_local_results(s.run(fn))] == [True, True]


def test_replica_output_is_written_in_replica_order():
    """Replica 1 prints first in time; the output still has replica 0's line first, as TF's
    replicas (which take turns) print."""
    s = tf.distribute.MirroredStrategy(TWO)
    printed = threading.Event()

    def fn():
        rid = int(tf.distribute.get_replica_context().replica_id_in_sync_group)
        if rid == 0:
            printed.wait(timeout=10)
        print("replica", rid)
        printed.set()
        return rid

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        s.run(fn)
        print("after")
    assert out.getvalue() == "replica 0\nreplica 1\nafter\n"


def test_a_failing_replica_fails_the_run_and_ends_every_thread():
    s = tf.distribute.MirroredStrategy(TWO)
    before = threading.active_count()

    def fn():
        ctx = tf.distribute.get_replica_context()
        if int(ctx.replica_id_in_sync_group) == 1:
            raise KeyError("replica 1")
        return ctx.merge_call(lambda strategy: 1)  # replica 0 waits at the meeting point

    with pytest.raises(KeyError, match="replica 1"):
        s.run(fn)
    assert threading.active_count() == before


def test_nested_function_traces_per_replica_inside_a_traced_run():
    """A tf.function called in each replica of a traced ``run`` reads and writes that replica's
    copy of a mirrored variable (no aggregation: each copy its own update)."""
    s = tf.distribute.MirroredStrategy(TWO)
    with s.scope():
        v = tf.Variable(0.0)

    @tf.function
    def bump(x):
        v.assign_add(x)
        return v.read_value()

    @tf.function
    def step():
        return s.run(lambda: bump(tf.cast(
            tf.distribute.get_replica_context().replica_id_in_sync_group + 1, tf.float32)))

    first = s.experimental_local_results(step())
    second = s.experimental_local_results(step())
    assert [float(x) for x in first] == [1.0, 2.0]
    assert [float(x) for x in second] == [2.0, 4.0]
    assert [float(c.numpy()) for c in v.values] == [2.0, 4.0]
    assert len(bump.experimental_get_concrete_functions()) == 2  # one trace per replica


def test_gradients_in_replicas_are_each_replicas_own():
    s = tf.distribute.MirroredStrategy(TWO)
    with s.scope():
        w = tf.Variable([1.0, 2.0])
    x = tf.distribute.MirroredStrategy(TWO).experimental_distribute_values_from_function(
        lambda ctx: tf.constant([1.0, 1.0]) * float(ctx.replica_id_in_sync_group + 1))

    def fn(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * w * x)
        return tape.gradient(loss, w)

    grads = s.experimental_local_results(s.run(fn, args=(x,)))
    np.testing.assert_allclose(grads[0].numpy(), [2.0, 4.0])
    np.testing.assert_allclose(grads[1].numpy(), [4.0, 8.0])


def _run_script(source):
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(source)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_logical_cpus_are_the_default_devices():
    """TF's MirroredStrategy() uses the logical CPUs (without any: the one CPU)."""
    # this process has no logical CPUs configured (the tests that configure some run apart)
    assert tf.distribute.MirroredStrategy().extended.worker_devices == (
        "/job:localhost/replica:0/task:0/device:CPU:0",)
    out = _run_script("""
        import tensortrace as tf
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        print(tf.config.list_logical_devices("CPU"))
        s = tf.distribute.MirroredStrategy()
        print(s.num_replicas_in_sync, s.extended.worker_devices)
        """)
    assert out == (
        "[LogicalDevice(name='/device:CPU:0', device_type='CPU'), "
        "LogicalDevice(name='/device:CPU:1', device_type='CPU')]\n"
        "2 ('/job:localhost/replica:0/task:0/device:CPU:0', "
        "'/job:localhost/replica:0/task:0/device:CPU:1')\n")


def test_default_strategy_is_unchanged_outside_scopes():
    s = tf.distribute.MirroredStrategy(TWO)
    with s.scope():
        assert tf.distribute.get_strategy() is s
    assert not tf.distribute.has_strategy()
    v = tf.Variable(1.0)
    assert type(v).__name__ == "ResourceVariable"
    assert tf.distribute.get_replica_context().replica_id_in_sync_group == 0
