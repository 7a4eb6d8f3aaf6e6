"""Traced ``strategy.run``: each replica's ops run as a part of their own on a thread between
the replicas' meeting points, with the values, gradients, errors and output order of running
them in order."""

import contextlib
import logging
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.executor import replica_groups

TWO = ["cpu:0", "cpu:1"]


@pytest.fixture(autouse=True)
def _quiet():
    tf.get_logger().setLevel(logging.ERROR)


@contextlib.contextmanager
def _min_work(n):
    """Groups of any size run on threads (0), or none does (a huge number): in order."""
    saved = replica_groups.MIN_PART_WORK
    replica_groups.MIN_PART_WORK = n
    try:
        yield
    finally:
        replica_groups.MIN_PART_WORK = saved


CONCURRENT, IN_ORDER = 0, 1 << 62


def _mlp(seed=0, width=16, batch=4):
    """A two-layer MLP training step under a 2-replica MirroredStrategy: (train, x, variables)."""
    rng = np.random.default_rng(seed)
    s = tf.distribute.MirroredStrategy(TWO)
    with s.scope():
        v0 = tf.Variable(rng.normal(size=(width, width)).astype(np.float32))
        v1 = tf.Variable(rng.normal(size=(width, 1)).astype(np.float32))
    data = [rng.normal(size=(batch, width)).astype(np.float32) for _ in range(2)]
    x = s.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(data[ctx.replica_id_in_sync_group]))

    def replica_step(x):
        with tf.GradientTape() as tape:
            y = tf.matmul(tf.nn.relu(tf.matmul(x, v0)), v1)
            loss = tf.reduce_mean(y * y)
        grads = tape.gradient(loss, [v0, v1])
        grads = tf.distribute.get_replica_context().all_reduce("sum", grads)
        v0.assign_sub(0.01 * grads[0])
        v1.assign_sub(0.01 * grads[1])
        return loss

    @tf.function
    def train(x):
        return s.run(replica_step, args=(x,))

    return s, train, x, (v0, v1), data


def _values(s, result):
    return [t.numpy() for t in s.experimental_local_results(result)]


def _train_twice(min_work):
    with _min_work(min_work):
        s, train, x, (v0, v1), data = _mlp()
        losses = [_values(s, train(x)) for _ in range(2)]
        code = train.get_concrete_function(x).code
    return losses, [c.numpy() for c in v0.values + v1.values], code, data


def test_training_step_runs_replicas_as_parts_with_the_in_order_values():
    losses, weights, code, data = _train_twice(CONCURRENT)
    losses_seq, weights_seq, code_seq, _ = _train_twice(IN_ORDER)
    assert code.count("_parts((replica_0") == 2  # the forward/backward, then the updates
    assert "_parts(" not in code_seq
    for a, b in zip(losses + weights, losses_seq + weights_seq):
        np.testing.assert_array_equal(a, b)  # bit for bit
    # and the values are right: the first losses against NumPy
    rng = np.random.default_rng(0)
    w0 = rng.normal(size=(16, 16)).astype(np.float32)
    w1 = rng.normal(size=(16, 1)).astype(np.float32)
    for x, loss in zip(data, losses[0]):
        y = np.maximum(x @ w0, 0) @ w1
        np.testing.assert_allclose(loss, np.mean(y * y), rtol=1e-5)
    # the copies of each variable got the one all-reduced update
    np.testing.assert_array_equal(weights[0], weights[1])
    np.testing.assert_array_equal(weights[2], weights[3])


def test_parts_run_at_the_same_time(monkeypatch):
    """Each replica's part waits for the other's at a barrier: only parts on two threads
    both get through."""
    barrier = threading.Barrier(2, timeout=20)
    threads = []
    original = replica_groups.run_parts

    def meeting(part):
        def run():
            threads.append(threading.get_ident())
            barrier.wait()
            return part()
        return run

    monkeypatch.setattr(replica_groups, "run_parts",
                        lambda parts: original([meeting(p) for p in parts]))
    saved = tf.config.threading.get_intra_op_parallelism_threads()
    tf.config.threading.set_intra_op_parallelism_threads(2)
    try:
        with _min_work(CONCURRENT):
            s = tf.distribute.MirroredStrategy(TWO)
            x = s.experimental_distribute_values_from_function(
                lambda ctx: tf.constant([1.0, 2.0]) * float(ctx.replica_id_in_sync_group + 1))
            f = tf.function(lambda x: s.run(lambda x: tf.reduce_sum(x * x), args=(x,)))
            assert [float(v) for v in _values(s, f(x))] == [5.0, 20.0]
    finally:
        tf.config.threading.set_intra_op_parallelism_threads(saved)
    assert len(set(threads)) == 2


def test_a_value_both_replicas_read_runs_before_the_parts():
    """Both replicas scale their input by the same captured tensor: common subexpression
    elimination leaves one op (replica 0's), which runs before the parts."""
    shared = tf.constant(np.arange(4.0, dtype=np.float32))
    with _min_work(CONCURRENT):
        s = tf.distribute.MirroredStrategy(TWO)
        x = s.experimental_distribute_values_from_function(
            lambda ctx: tf.fill([4], float(ctx.replica_id_in_sync_group + 1)))
        f = tf.function(lambda x: s.run(lambda x: tf.reduce_sum((shared * 2.0) * x), args=(x,)))
        assert [float(v) for v in _values(s, f(x))] == [12.0, 24.0]
        code = f.get_concrete_function(x).code
    assert code.count("_parts(") == 1
    before = code[:code.index("def replica_0")]
    assert "mul = " in before  # shared * 2.0, once, before the parts


def test_a_variable_both_replicas_write_keeps_replica_order():
    """A plain variable (made outside the strategy) that both replicas update: their updates
    and reads stay in replica order, so replica 1 reads replica 0's update."""
    v = tf.Variable(0.0)
    with _min_work(CONCURRENT):
        s = tf.distribute.MirroredStrategy(TWO)

        def fn():
            rid = tf.distribute.get_replica_context().replica_id_in_sync_group
            return v.assign_add(tf.cast(rid + 1, tf.float32) * 10.0)

        f = tf.function(lambda: s.run(fn))
        assert [float(x) for x in _values(s, f())] == [10.0, 30.0]
        assert "_parts(" not in f.get_concrete_function().code


def test_printing_replicas_print_in_replica_order(capsys):
    """tf.print is ordered for the whole program: it ends a group."""
    with _min_work(CONCURRENT):
        s = tf.distribute.MirroredStrategy(TWO)

        def fn():
            rid = tf.distribute.get_replica_context().replica_id_in_sync_group
            big = tf.fill([64], tf.cast(rid, tf.float32))
            tf.print("replica", rid, output_stream=sys.stdout)
            return tf.reduce_sum(big)

        f = tf.function(lambda: s.run(fn))
        for _ in range(3):
            f()
        code = f.get_concrete_function().code
    assert capsys.readouterr().out == "replica 0\nreplica 1\n" * 3
    prints = [line for line in code.splitlines() if "PrintV2" in line]
    assert len(prints) == 2 and all(line.startswith(" " * 8 + "_k") for line in prints)


def test_gradients_through_the_traced_run():
    """A tape in each replica inside the function, and a tape around the call of the
    function: both give the gradients of running the replicas in order."""
    results = {}
    for mode in (CONCURRENT, IN_ORDER):
        with _min_work(mode):
            s = tf.distribute.MirroredStrategy(TWO)
            w = tf.Variable(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
            x = s.experimental_distribute_values_from_function(
                lambda ctx: tf.fill([2, 3], float(ctx.replica_id_in_sync_group + 1)))

            def loss(x):
                return tf.reduce_sum(tf.tanh(tf.matmul(x, w)) ** 2)

            def replica_grad(x):
                with tf.GradientTape() as tape:
                    value = loss(x)
                return tape.gradient(value, w)

            inside = tf.function(
                lambda x: s.reduce("SUM", s.run(replica_grad, args=(x,)), axis=None))
            f = tf.function(lambda x: s.reduce("SUM", s.run(loss, args=(x,)), axis=None))
            with tf.GradientTape() as tape:
                total = f(x)
            results[mode] = (inside(x).numpy(), tape.gradient(total, w).numpy())
            assert "_parts(" in inside.get_concrete_function(x).code or mode
            assert "_parts(" in f.get_concrete_function(x).code or mode
    expected = 0
    wv = np.linspace(-1, 1, 12, dtype=np.float64).reshape(3, 4)
    for k in (1.0, 2.0):
        xv = np.full((2, 3), k)
        t = np.tanh(xv @ wv)
        expected = expected + xv.T @ (2 * t * (1 - t * t))
    for got in results[CONCURRENT] + results[IN_ORDER]:
        np.testing.assert_allclose(got, expected, rtol=1e-5)
    for a, b in zip(results[CONCURRENT], results[IN_ORDER]):
        np.testing.assert_array_equal(a, b)


def test_retracing_and_graph_export_are_unchanged():
    with _min_work(CONCURRENT):
        s, train, x, _, _ = _mlp(seed=1)
        train(x)
        train(x)
        assert train.experimental_get_tracing_count() == 1
        graph = train.get_concrete_function(x).graph
        names = [node.name for node in graph.as_graph_def().node]
    with _min_work(IN_ORDER):
        s, train_seq, x, _, _ = _mlp(seed=1)
        names_seq = [node.name for node in
                     train_seq.get_concrete_function(x).graph.as_graph_def().node]
    assert names == names_seq and "MatMul_5" in names


def test_a_saved_function_runs_its_replicas_the_same_after_loading(tmp_path):
    with _min_work(CONCURRENT):
        s = tf.distribute.MirroredStrategy(TWO)
        with s.scope():
            m = tf.Module()
            m.w = tf.Variable(np.arange(16.0, dtype=np.float32).reshape(4, 4))

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
        def f(x):
            def replica(x):  # a loop inside a part
                y, _ = tf.while_loop(lambda y, i: i < 2,
                                     lambda y, i: (tf.matmul(y, m.w) / 10.0, i + 1),
                                     (x, tf.constant(0)))
                return tf.reduce_sum(y)
            return s.reduce("SUM", s.run(replica, args=(x,)), axis=None)

        m.f = f
        x = tf.ones([2, 4])
        w = m.w.numpy() / 10
        np.testing.assert_allclose(float(m.f(x)), 2 * 2 * np.sum(np.ones(4) @ w @ w), rtol=1e-6)
        assert "_parts((" in m.f.get_concrete_function().code
        tf.saved_model.save(m, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert float(loaded.f(x)) == float(m.f(x))


def test_a_failing_replica_raises_tfs_error_and_leaves_no_thread_running():
    """Replica 1 gathers out of range: TF's InvalidArgumentError naming its node, from the
    part on the other thread; both replicas failing give replica 0's error (the in-order one);
    afterwards the function runs again, and the process ends (no part is left running: the
    pool's threads are joined at exit)."""
    script = textwrap.dedent("""
        import logging, threading
        import numpy as np
        import tensortrace as tf
        from tensortrace.executor import replica_groups
        tf.get_logger().setLevel(logging.ERROR)
        replica_groups.MIN_PART_WORK = 0
        tf.config.threading.set_intra_op_parallelism_threads(2)
        s = tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
        params = tf.constant(np.arange(8.0, dtype=np.float32))

        @tf.function
        def f(i):
            return s.run(lambda i: tf.reduce_sum(tf.gather(params * 2.0, i)), args=(i,))

        def ids(bad):
            def replica_ids(ctx):
                rid = ctx.replica_id_in_sync_group
                return tf.constant([rid, bad[rid]])
            return s.experimental_distribute_values_from_function(replica_ids)

        for bad in ([0, 9], [10, 9]):
            try:
                f(ids(bad))
            except tf.errors.InvalidArgumentError as e:
                lines = str(e).splitlines()
                print(type(e).__name__, "|", lines[-2], "|", lines[-1].split()[1])
        print("_parts((" in f.get_concrete_function(ids([0, 0])).code)
        print([float(v) for v in s.experimental_local_results(f(ids([1, 2])))])
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines == [
        "InvalidArgumentError | indices[1] = 9 is not in [0, 8) | GatherV2_1}}]]",
        "InvalidArgumentError | indices[1] = 10 is not in [0, 8) | GatherV2}}]]",
        "True", "[2.0, 6.0]"]
