"""MultiWorkerMirroredStrategy without Ray: one worker (TF's strategy without TF_CONFIG), the
communication options, and each worker's share of a dataset by AutoShardPolicy, as TF 2.21
gave them (tests/fixtures/tf/make_multi_worker.py), for a process made worker 0 or 1 of two."""

import builtins
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.distribute import multi_worker

FIXTURE = os.path.join(os.path.dirname(__file__), os.pardir, "fixtures", "tf", "multi_worker",
                       "expected.json")
with open(FIXTURE) as f:
    EXPECTED = json.load(f)


class _PeerInStep:
    """A communicator for tests of one worker's dataset sharding: the only collective is the
    all-reduce counting the workers with a batch left each step (TF's), answered as if the peer
    were at the same point (the sum is this worker's count: whether it goes on)."""

    def all_reduce(self, array, timeout=None):
        assert array.dtype == np.int64 and array.size == 1, "only the has-value count"
        return array

    def batch_all_reduce(self, arrays, timeout=None):
        return [self.all_reduce(a) for a in arrays]

    def __getattr__(self, name):
        raise AssertionError(f"unexpected collective {name}")


@pytest.fixture
def as_worker():
    """Make this process worker ``task_id`` of ``num_workers`` (no collectives but the
    has-value count)."""
    def join(task_id, num_workers=2):
        multi_worker.join_cluster(num_workers, task_id, _PeerInStep())
        return tf.distribute.MultiWorkerMirroredStrategy()

    yield join
    multi_worker.leave_cluster()


def test_one_worker_is_tfs_strategy_without_tf_config():
    single = EXPECTED["single"]
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    resolver = strategy.cluster_resolver
    assert (resolver.task_type, resolver.task_id) == (single["task_type"], single["task_id"])
    assert strategy.num_replicas_in_sync == single["num_replicas_in_sync"]
    assert list(strategy.extended.worker_devices) == single["worker_devices"]
    assert strategy.extended.should_checkpoint is single["should_checkpoint"]
    assert isinstance(strategy, tf.distribute.MirroredStrategy) is single["isinstance_mirrored"]
    with strategy.scope():
        v = tf.Variable(1.0, aggregation=tf.VariableAggregation.MEAN)
    assert type(v).__name__ == single["variable_type"]

    def step(x):
        ctx = tf.distribute.get_replica_context()
        v.assign_add(x)
        return ctx.all_reduce("SUM", x * 2.0), ctx.replica_id_in_sync_group

    total, replica = strategy.run(step, args=(tf.constant(3.0),))
    assert (float(total), int(replica), float(v.numpy())) == (6.0, 0, 4.0)
    assert replica.dtype == tf.int32
    assert float(strategy.reduce("MEAN", tf.constant([1.0, 2.0]), axis=0)) == 1.5
    traced = tf.function(lambda x: strategy.run(step, args=(x,)))
    assert float(traced(tf.constant(1.0))[0]) == 2.0
    assert float(v.numpy()) == 5.0


def test_communication_options():
    single = EXPECTED["single"]
    names = [i.name for i in tf.distribute.experimental.CommunicationImplementation]
    assert names == single["implementations"]
    kind, message = single["bad_bytes_per_pack"]
    with pytest.raises(getattr(builtins, kind), match=re.escape(message)):
        tf.distribute.experimental.CommunicationOptions(bytes_per_pack=-1)
    options = tf.distribute.experimental.CommunicationOptions(
        bytes_per_pack=1024, timeout_seconds=5.0,
        implementation=tf.distribute.experimental.CommunicationImplementation.RING)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    assert strategy.num_replicas_in_sync == 1
    with pytest.raises(ValueError, match="communication_options must be"):
        tf.distribute.MultiWorkerMirroredStrategy(communication_options="ring")


def test_a_tf_config_cluster_without_a_launcher_is_refused(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({
        "cluster": {"worker": ["host1:2222", "host2:2222"]}, "task": {"type": "worker",
                                                                      "index": 0}}))
    with pytest.raises(tf.errors.UnavailableError, match=r"run_on_ray\(fn, num_workers=2\)"):
        tf.distribute.MultiWorkerMirroredStrategy()


def test_cluster_resolver_reads_tf_config_of_the_worker(as_worker):
    strategy = as_worker(1)
    resolver = strategy.cluster_resolver
    assert (resolver.task_type, resolver.task_id) == ("worker", 1)
    assert resolver.cluster_spec().as_dict() == {"worker": ["worker-0", "worker-1"]}
    assert strategy.num_replicas_in_sync == 2
    assert strategy.extended.worker_devices == ("/job:worker/replica:0/task:1/device:CPU:0",)
    assert not strategy.extended.should_checkpoint
    assert as_worker(0).extended.should_checkpoint


def _write_files(tmp_path):
    files = []
    for i in range(4):
        path = tmp_path / f"f{i}.txt"
        path.write_text("".join(f"f{i}-{j}\n" for j in range(3)))
        files.append(str(path))
    return files


def _datasets(files):
    return {
        "range16_batch8": lambda: tf.data.Dataset.range(16).batch(8),
        "range10_batch4": lambda: tf.data.Dataset.range(10).batch(4),
        "files4_batch2": lambda: tf.data.TextLineDataset(files).batch(2),
        # TF's list_files(shuffle=False) gives the names sorted, as here
        "list_files_batch2": lambda: tf.data.Dataset.from_tensor_slices(files).interleave(
            tf.data.TextLineDataset, cycle_length=1).batch(2),
        "files1_batch2": lambda: tf.data.TextLineDataset(files[:1]).batch(2),
    }


def _plain(value):
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


CASES = sorted(k for k in EXPECTED["workers"][0] if "/" in k)


@pytest.mark.parametrize("case", CASES)
def test_workers_get_tfs_shards(case, as_worker, tmp_path):
    name, policy = case.split("/")
    make = _datasets(_write_files(tmp_path))[name]
    for index in range(2):
        expected = EXPECTED["workers"][index][case]
        strategy = as_worker(index)
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = \
            getattr(tf.data.experimental.AutoShardPolicy, policy)
        dist = strategy.experimental_distribute_dataset(make().with_options(options))
        if "error" in expected:
            if expected["error"] == "UnavailableError":  # the peer's failure reached it
                continue
            with pytest.raises(getattr(tf.errors, expected["error"])) as info:
                list(dist)
            text = expected["message"].split("}} ")[1]  # TF's text, after its node's name
            if "unshardable" in text:  # TF follows it with a link to its debug proto
                text = text.split(": ")[0] + ": "
            assert info.value.message.startswith(text)
            continue
        got = [[_plain(v.numpy().tolist()) for v in strategy.experimental_local_results(x)]
               for x in dist]
        assert got == expected["elements"], index
        assert {type(x).__name__ for x in dist} == set(expected["types"])


def test_datasets_from_function_get_the_workers_input_context(as_worker):
    for index in range(2):
        expected = EXPECTED["workers"][index]
        strategy = as_worker(index)
        contexts = []

        def dataset_fn(ctx):
            contexts.append([ctx.num_input_pipelines, ctx.input_pipeline_id,
                             ctx.num_replicas_in_sync, ctx.get_per_replica_batch_size(8),
                             str(ctx)])
            return tf.data.Dataset.range(8).shard(ctx.num_input_pipelines,
                                                  ctx.input_pipeline_id).batch(2)

        elements = list(strategy.distribute_datasets_from_function(dataset_fn))
        assert contexts == expected["input_contexts"]
        assert type(elements[0]).__name__ == expected["from_function_type"]
        assert [[v.numpy().tolist() for v in strategy.experimental_local_results(x)]
                for x in elements] == expected["from_function"]


def test_the_core_does_not_import_ray():
    code = ("import sys, tensortrace as tf; s = tf.distribute.MultiWorkerMirroredStrategy(); "
            "import tensortrace.distribute as d; d.run_on_ray; print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=os.path.dirname(os.path.dirname(tf.__file__)))
    assert out.stdout.strip() == "False", out.stderr


def test_a_missing_ray_names_the_extra(monkeypatch):
    from tensortrace.distribute import ray_backend
    monkeypatch.setattr(ray_backend, "ray", None)
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'tensortrace\[ray\]'"):
        ray_backend.RayWorkers(2)


class _NoCollectives:
    def __getattr__(self, name):
        raise AssertionError(f"unexpected collective {name}")


def _first_steps(strategy, dataset, steps):
    it = iter(strategy.experimental_distribute_dataset(dataset))
    return [[v.numpy().tolist() for v in strategy.experimental_local_results(next(it))]
            for _ in range(steps)]


def test_an_infinite_dataset_counts_no_workers_with_batches(as_worker):
    """TF's input_lib: over an infinite dataset there is no last partial batch, so no step
    all-reduces how many workers have one (eagerly, traced, and through get_next_as_optional)."""
    data = tf.data.Dataset.range(12).batch(4)
    strategy = as_worker(1)
    want = _first_steps(strategy, data.repeat(2), 5)  # the has-value count allowed here
    multi_worker.leave_cluster()
    multi_worker.join_cluster(2, 1, _NoCollectives())
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    assert _first_steps(strategy, data.repeat(), 5) == want
    it = iter(strategy.experimental_distribute_dataset(data.repeat()))

    @tf.function
    def two_steps():
        local = strategy.experimental_local_results
        first = it.get_next()
        second = it.get_next_as_optional()
        return local(first)[0], second.has_value(), local(second.get_value())[0]

    first, has, second = two_steps()
    assert [first.numpy().tolist(), bool(has), second.numpy().tolist()] == \
        [want[0][0], True, want[1][0]]
