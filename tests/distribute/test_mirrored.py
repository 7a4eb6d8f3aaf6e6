"""MirroredStrategy's replicas: they take turns as TF's do (state one builds lazily is what the
next sees), print in replica order, fail as one, trace a nested tf.function per replica; the
logical CPU devices a strategy uses by default."""

import contextlib
import io
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import tensortrace as tf

TWO = ["cpu:0", "cpu:1"]


def test_replicas_take_turns_eagerly_as_tfs_do():
    """Replica 0 runs to its meeting point before replica 1 starts, then the same after the
    merge (TF's replica threads take turns)."""
    s = tf.distribute.MirroredStrategy(TWO)
    events = []

    def fn():
        rid = int(tf.distribute.get_replica_context().replica_id_in_sync_group)
        events.append(("before", rid))
        tf.distribute.get_replica_context().merge_call(lambda strategy: None)
        events.append(("after", rid))
        return rid

    s.run(fn)
    assert events == [("before", 0), ("before", 1), ("after", 0), ("after", 1)]


def test_state_a_replica_builds_lazily_is_what_the_next_replica_sees():
    """A layer or optimizer that makes its variables on first use (Keras' ``built``): replica 0
    builds, replica 1 finds it built and uses the same variable, as under TF. Replicas running
    at the same time both built, or failed to find the variable replica 0 had yet to make."""
    s = tf.distribute.MirroredStrategy(TWO)

    class Lazy:
        built, builds = False, 0

        def __call__(self):
            if not self.built:
                self.builds += 1
                time.sleep(0.02)  # a slow build: the window in which the other replica looked
                self.v = tf.Variable(2.0)
                self.built = True
            return self.v.read_value()

    lazy = Lazy()
    for _ in range(3):
        assert [float(x) for x in s.experimental_local_results(s.run(lazy))] == [2.0, 2.0]
    assert lazy.builds == 1
    assert [float(x) for x in s.experimental_local_results(lazy.v)] == [2.0, 2.0]


def test_replica_output_is_written_in_replica_order():
    s = tf.distribute.MirroredStrategy(TWO)

    def fn():
        rid = int(tf.distribute.get_replica_context().replica_id_in_sync_group)
        print("replica", rid)
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
