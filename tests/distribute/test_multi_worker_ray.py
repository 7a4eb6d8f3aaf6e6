"""MultiWorkerMirroredStrategy on Ray: two worker actors train an MLP in a custom loop along one
replica's loss curve, a dead worker fails the run with tf.errors.UnavailableError in bounded
time, the chief's checkpoint restores on one worker, and the workers' shares of a dataset are
TF's (tests/fixtures/tf/make_multi_worker.py recorded them). Every test runs with each transport
of the collectives (Ray's shared-memory channels, Ray's object store). Ray starts once per
module."""

import json
import os
import re
import shutil
import time

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.distribute import RayWorkers

FIXTURE = os.path.join(os.path.dirname(__file__), os.pardir, "fixtures", "tf", "multi_worker",
                       "expected.json")
GLOBAL_BATCH = 16


_group = []  # the module's two workers, started again if a test broke them


@pytest.fixture(scope="module", autouse=True)
def _stop_workers():
    yield
    if _group:
        _group[0].shutdown()


@pytest.fixture(scope="module", params=["channels", "object_store"])
def transport(request):
    yield request.param
    if _group:
        _group.pop().shutdown()


@pytest.fixture
def workers(transport):
    if not _group or _group[0].broken is not None:
        if _group:
            _group[0].shutdown()
        # room for a new group beside a broken one
        _group[:] = [RayWorkers(2, num_cpus=4, transport=transport)]
    assert _group[0].transport == transport
    return _group[0]


# --- the training functions the workers run (module level: the workers import them) ------------
def train_mlp(steps=4):
    """A custom training loop: 2-layer MLP, squared error, SGD; the first layer's gradients
    all-reduced in the replica, the second layer's variables aggregating by SUM."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.RandomState(0)
    x = rng.randn(steps * GLOBAL_BATCH, 8).astype(np.float32)
    y = rng.randn(steps * GLOBAL_BATCH, 1).astype(np.float32)
    dist = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))
    init = np.random.RandomState(strategy.cluster_resolver.task_id or 0)  # the chief's wins
    with strategy.scope():
        w1 = tf.Variable(init.randn(8, 16).astype(np.float32) * 0.3)
        b1 = tf.Variable(np.zeros(16, np.float32))
        w2 = tf.Variable(init.randn(16, 1).astype(np.float32) * 0.3,
                         aggregation=tf.VariableAggregation.SUM)
        b2 = tf.Variable(np.zeros(1, np.float32), aggregation=tf.VariableAggregation.SUM)

    def step(xb, yb):
        with tf.GradientTape() as tape:
            pred = tf.nn.relu(xb @ w1 + b1) @ w2 + b2
            per_example = tf.reduce_sum((pred - yb) ** 2, axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        g1, gb1, g2, gb2 = tape.gradient(loss, [w1, b1, w2, b2])
        g1, gb1 = tf.distribute.get_replica_context().all_reduce("SUM", [g1, gb1])
        w1.assign_sub(0.1 * g1)
        b1.assign_sub(0.1 * gb1)
        w2.assign_sub(0.1 * g2)  # SUM aggregation: the workers' parts add up to the gradient
        b2.assign_sub(0.1 * gb2)
        return loss

    @tf.function
    def train_step(inputs):
        return strategy.reduce("SUM", strategy.run(step, args=inputs), axis=None)

    losses = [float(train_step(batch)) for batch in dist]
    return losses, [v.numpy() for v in (w1, b1, w2, b2)]


def die_at_step_3(marker):
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    task_id = strategy.cluster_resolver.task_id
    try:
        for step in range(10_000):
            if task_id == 1 and step == 3:
                os._exit(1)  # the process dies mid-training
            strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)
    except tf.errors.UnavailableError as e:
        with open(marker, "w") as f:
            f.write(e.message)
        raise


def raise_on_worker_1():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    if strategy.cluster_resolver.task_id == 1:
        raise ValueError("bad input on worker 1")
    return strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)


def cpu_between_collectives():
    """The CPU seconds this worker's process uses while its training thread sleeps between two
    collectives (Ray's channel reads spin while they wait: nobody may wait meanwhile)."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    one = strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)
    start = time.process_time()
    time.sleep(1.0)
    used = time.process_time() - start
    two = strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)
    return used, float(one) + float(two)


def intra_op_threads():
    return tf.config.threading.get_intra_op_parallelism_threads()


def late_worker_1():
    """Worker 1 comes to the collective late; worker 0 waits at most one second."""
    options = tf.distribute.experimental.CommunicationOptions(timeout_seconds=1.0)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    if strategy.cluster_resolver.task_id == 1:
        time.sleep(4)
    return strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)


def gathers():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    i = strategy.cluster_resolver.task_id
    value = tf.reshape(tf.range(6, dtype=tf.float32), [2, 3]) + 10.0 * i
    along0 = strategy.gather(strategy.run(lambda: value), axis=0)
    along1 = strategy.gather(strategy.run(lambda: value), axis=1)

    def in_replica():
        ctx = tf.distribute.get_replica_context()
        slices = tf.IndexedSlices(tf.ones([1, 3]) * (i + 1), tf.constant([i * 2]),
                                  tf.constant([4, 3]))
        return ctx.all_gather(value, axis=0), ctx.all_reduce("SUM", slices)

    gathered, summed = strategy.run(in_replica)
    with strategy.scope():  # a metric's count: each worker adds to its own copy
        count = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                            aggregation=tf.VariableAggregation.SUM)
    strategy.run(lambda: count.assign_add(float(i + 1)))
    local = float(strategy.experimental_local_results(count)[0].numpy())
    return (along0.numpy(), along1.numpy(), gathered.numpy(), type(summed).__name__,
            tf.convert_to_tensor(summed).numpy(), float(count.numpy()), local)


def mismatched_shapes():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    n = 2 + strategy.cluster_resolver.task_id  # worker 0 reduces 2 values, worker 1 three
    return strategy.reduce("SUM", strategy.run(lambda: tf.ones([n])), axis=None)


def train_and_save(directory):
    """TF's multi-worker checkpointing: the chief writes to ``directory``, the others to a
    temporary directory they remove."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    task_id = strategy.cluster_resolver.task_id
    with strategy.scope():
        module = tf.Module()
        module.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], aggregation=tf.VariableAggregation.MEAN)
        module.step = tf.Variable(0, aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)
    for _ in range(3):
        strategy.run(lambda: (module.w.assign_add(tf.ones([2, 2]) * float(task_id + 1)),
                              module.step.assign_add(1)))
    chief = strategy.extended.should_checkpoint
    write_dir = directory if chief else os.path.join(directory, f"workertemp_{task_id}")
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=module), write_dir,
                                         max_to_keep=1)
    manager.save()
    if not chief:
        shutil.rmtree(write_dir)
    return chief, module.w.numpy(), int(module.step.numpy())


def shards_and_reductions(cases):
    """This worker's elements of each (dataset, policy) case, and what it gets of TF's
    reductions (the fixture's records)."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    index = strategy.cluster_resolver.task_id

    def step(x):
        ctx = tf.distribute.get_replica_context()
        s = ctx.all_reduce("SUM", x * tf.cast(ctx.replica_id_in_sync_group + 1, tf.float32))
        m = ctx.all_reduce(tf.distribute.ReduceOp.MEAN, x)
        return s, m, ctx.replica_id_in_sync_group

    s, m, rid = strategy.run(step, args=(tf.constant([1.0, 2.0]) * (index + 1),))
    per = strategy.run(lambda: tf.constant(float(index + 1)))
    with strategy.scope():
        v = tf.Variable(float(index + 10), aggregation=tf.VariableAggregation.MEAN)
    initial = float(v.numpy())
    strategy.run(lambda: v.assign_add(float(index + 1)))
    out = {
        "all_reduce": [s.numpy().tolist(), m.numpy().tolist(), int(rid)],
        "run_result_type": type(s).__name__,
        "reduce_sum": strategy.reduce("SUM", per, axis=None).numpy().tolist(),
        "reduce_mean": strategy.reduce("MEAN", per, axis=None).numpy().tolist(),
        "reduce_sum_axis": strategy.reduce("SUM", strategy.run(
            lambda: tf.constant([1.0, 2.0]) * (index + 1)), axis=0).numpy().tolist(),
        "local_results": len(strategy.experimental_local_results(per)),
        "variable_initial": initial, "variable_type": type(v).__name__,
        "variable_after_mean_assign_add": float(v.numpy()),
        "task_type": strategy.cluster_resolver.task_type, "task_id": index,
        "num_replicas_in_sync": strategy.num_replicas_in_sync,
        "should_checkpoint": strategy.extended.should_checkpoint,
        "worker_devices": list(strategy.extended.worker_devices)}
    for name, policy in cases:
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = \
            getattr(tf.data.experimental.AutoShardPolicy, policy)
        data = {"range16_batch8": tf.data.Dataset.range(16).batch(8),
                "range10_batch4": tf.data.Dataset.range(10).batch(4)}[name]
        dist = strategy.experimental_distribute_dataset(data.with_options(options))
        out[f"{name}/{policy}"] = [[v.numpy().tolist() for v in
                                    strategy.experimental_local_results(x)] for x in dist]
    return out


def reduce_large(steps):
    """All-reduces, gathers and a broadcast of arrays too large for the messages (through the
    object store: put once, read in place; or through the channels), then ``steps`` more
    all-reduces; what this worker got, and its collectives' counts."""
    from tensortrace.distribute.ray_backend import collective_stats
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    index = strategy.cluster_resolver.task_id
    value = tf.constant(np.random.RandomState(index).randn(3, 30000).astype(np.float32))
    with strategy.scope():  # the chief's initial value, broadcast
        v = tf.Variable(np.random.RandomState(index + 7).randn(40000).astype(np.float32))

    @tf.function
    def step(x):
        ctx = tf.distribute.get_replica_context()
        return ctx.all_reduce("SUM", x), ctx.all_reduce("MEAN", x), ctx.all_gather(x, axis=0)

    total, mean, gathered = strategy.run(step, args=(value,))
    for _ in range(steps):
        strategy.run(step, args=(value,))
    return (value.numpy(), total.numpy(), mean.numpy(), gathered.numpy(), v.numpy(),
            collective_stats())


def _store_objects():
    """How many objects Ray's object store holds (Ray's memory summary)."""
    import ray
    from ray._private.internal_api import memory_summary
    text = memory_summary(address=ray.get_runtime_context().gcs_address, stats_only=True)
    return int(re.search(r"Plasma memory usage \d+ MiB, (\d+) objects", text).group(1))


# --- the tests ---------------------------------------------------------------------------------
def test_two_workers_follow_one_replica_with_the_global_batch(workers):
    (losses0, weights0), (losses1, weights1) = workers.run(train_mlp, all_workers=True)
    one_losses, one_weights = train_mlp()  # this process alone: one replica, whole batches
    assert losses0 == losses1
    np.testing.assert_allclose(losses0, one_losses, rtol=1e-5)
    assert losses0[-1] < losses0[0]
    for a, b, one in zip(weights0, weights1, one_weights):
        np.testing.assert_array_equal(a, b)  # the workers' copies stay equal
        np.testing.assert_allclose(a, one, rtol=1e-5, atol=1e-6)


def test_a_worker_error_is_raised_and_the_workers_run_again(workers):
    with pytest.raises(ValueError, match="bad input on worker 1"):
        workers.run(raise_on_worker_1)
    assert workers.run(train_mlp, kwargs={"steps": 1})[0][0] > 0


def test_a_collective_timeout_raises_deadline_exceeded(workers):
    start = time.monotonic()
    with pytest.raises(tf.errors.DeadlineExceededError,
                       match="Collective ops timed out after 1.0 seconds"):
        workers.run(late_worker_1)
    assert time.monotonic() - start < 20
    assert workers.run(train_mlp, kwargs={"steps": 1})[0][0] > 0  # and they run again


def test_no_cpu_is_spent_waiting_while_the_workers_compute(workers):
    for used, total in workers.run(cpu_between_collectives, all_workers=True):
        assert total == 4.0
        assert used < 0.2, used


def test_a_workers_ops_use_the_cpus_ray_reserved_for_it(workers):
    assert workers.run(intra_op_threads, all_workers=True) == [1, 1]


def test_gathers_indexed_slices_and_sync_on_read(workers):
    (a0, a1, g, kind, dense, count, local), other = workers.run(gathers, all_workers=True)
    assert (count, local, other[5], other[6]) == (3.0, 1.0, 3.0, 2.0)  # sync on read: summed
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(a0, np.concatenate([value, value + 10], axis=0))
    np.testing.assert_array_equal(a1, np.concatenate([value, value + 10], axis=1))
    np.testing.assert_array_equal(g, a0)
    assert kind == "IndexedSlices"  # gathered, not densified (TF's all-reduce of slices)
    np.testing.assert_array_equal(dense, [[1, 1, 1], [0, 0, 0], [2, 2, 2], [0, 0, 0]])
    np.testing.assert_array_equal(other[4], dense)


def test_workers_running_different_collectives_get_an_error(workers):
    with pytest.raises(tf.errors.InternalError, match="collectives do not match"):
        workers.run(mismatched_shapes)


def test_chief_checkpoint_restores_on_one_worker(workers, tmp_path):
    (chief, w, step), (other, w1, _) = workers.run(train_and_save, args=(str(tmp_path),),
                                                   all_workers=True)
    assert chief and not other
    np.testing.assert_array_equal(w, w1)
    np.testing.assert_allclose(w, np.array([[1.0, 2.0], [3.0, 4.0]]) + 3 * 1.5)  # MEAN of 1, 2
    assert step == 3
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1.data-00000-of-00001",
                                            "ckpt-1.index"]
    latest = tf.train.latest_checkpoint(str(tmp_path))
    strategy = tf.distribute.MultiWorkerMirroredStrategy()  # one worker: this process
    with strategy.scope():
        restored = tf.Module()
        restored.w = tf.Variable(tf.zeros([2, 2]))
        restored.step = tf.Variable(0)
    tf.train.Checkpoint(model=restored).restore(latest).assert_consumed()
    np.testing.assert_array_equal(restored.w.numpy(), w)
    assert int(restored.step.numpy()) == 3
    plain = tf.Module()  # and with no strategy at all
    plain.w, plain.step = tf.Variable(tf.zeros([2, 2])), tf.Variable(0)
    tf.train.Checkpoint(model=plain).restore(latest).assert_consumed()
    np.testing.assert_array_equal(plain.w.numpy(), w)


def test_workers_get_tfs_shards_and_reductions(workers):
    with open(FIXTURE) as f:
        expected = json.load(f)["workers"]
    cases = [("range16_batch8", "DATA"), ("range10_batch4", "AUTO"), ("range10_batch4", "OFF")]
    got = workers.run(shards_and_reductions, args=(cases,), all_workers=True)
    for index in range(2):
        for key, value in got[index].items():
            if "/" in key:
                assert value == expected[index][key]["elements"], (index, key)
            else:
                assert value == expected[index][key], (index, key)


def test_a_dead_worker_fails_the_run_within_bounded_time(workers, tmp_path):
    marker = str(tmp_path / "survivor.txt")
    start = time.monotonic()
    with pytest.raises(tf.errors.UnavailableError,
                       match=r"Worker 1 of 2 \(task worker:1\) died"):
        workers.run(die_at_step_3, args=(marker,), timeout=120)
    assert time.monotonic() - start < 30
    with pytest.raises(tf.errors.UnavailableError, match="worker 1 died; these workers "
                                                         "cannot run again"):
        workers.run(raise_on_worker_1)
    assert workers.broken == "worker 1 died"
    with open(marker) as f:  # the survivor's collective was aborted, not left waiting
        assert "Collective ops is aborted by: worker 1 died" in f.read()


def test_large_tensors_add_up_bit_for_bit_and_leave_nothing_in_the_store(workers):
    before = _store_objects()
    got = workers.run(reduce_large, args=(40,), all_workers=True)
    (x0, total, mean, gathered, v0, stats), (x1, total1, mean1, gathered1, v1, _) = got
    np.testing.assert_array_equal(total, x0 + x1)  # worker order: bit for bit the same sum
    np.testing.assert_array_equal(total1, total)
    np.testing.assert_array_equal(mean, (x0 + x1) / np.float32(2))
    np.testing.assert_array_equal(mean1, mean)
    np.testing.assert_array_equal(gathered, np.concatenate([x0, x1]))
    np.testing.assert_array_equal(gathered1, gathered)
    np.testing.assert_array_equal(v1, v0)  # the chief's initial value
    assert stats["collectives"] == 1 + 3 * 41 and stats["bytes"] > 41 * 3 * x0.nbytes
    assert stats["put"] > 0 and stats["sum"] > 0
    del got, x0, total, mean, gathered, v0, x1, total1, mean1, gathered1, v1  # Ray's views
    deadline = time.monotonic() + 10  # the object store frees them (asynchronously)
    while _store_objects() > before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _store_objects() <= before
