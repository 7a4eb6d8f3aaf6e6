"""MultiWorkerMirroredStrategy on two Ray workers: gradients through the replica context's
all_reduce and all_gather, get_next_as_optional on distributed iterators and
AutoShardPolicy.HINT sharding give each worker TF 2.21's values
(tests/fixtures/tf/make_distribute_grads.py recorded them with two TF worker processes). One Ray
start for the module; both workers run one function."""

import json
import os

import pytest

import tensortrace as tf
from tensortrace.distribute import RayWorkers

from .test_collective_grads import assert_results, collective_grads, optionals

FIXTURE = os.path.join(os.path.dirname(__file__), os.pardir, "fixtures", "tf",
                       "distribute_grads", "expected.json")
with open(FIXTURE) as _f:
    EXPECTED = json.load(_f)


def hint_cases():
    hint = tf.data.experimental.SHARD_HINT
    return {
        "hint_before_batch": lambda: tf.data.Dataset.range(16).shard(hint, hint).batch(4),
        "hint_after_batch": lambda: tf.data.Dataset.range(16).batch(4).shard(hint, hint),
        "no_hint": lambda: tf.data.Dataset.range(16).batch(4),
    }


def worker_records():
    """What the fixture's workers recorded, from this worker."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    out = {"grads_eager": collective_grads(strategy, False),
           "grads_traced": collective_grads(strategy, True),
           "optionals": optionals(strategy)}
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.HINT
    for name, make in hint_cases().items():
        dist = strategy.experimental_distribute_dataset(make().with_options(options))
        out[name] = [[v.numpy().tolist() for v in strategy.experimental_local_results(e)]
                     for e in dist]
    return out


@pytest.fixture(scope="module")
def records():
    with RayWorkers(2, num_cpus=2) as workers:
        return workers.run(worker_records, all_workers=True, timeout=120)


@pytest.mark.parametrize("worker", [0, 1])
@pytest.mark.parametrize("key", ["grads_eager", "grads_traced"])
def test_gradients_through_collectives(records, worker, key):
    assert_results(records[worker][key], EXPECTED[f"worker{worker}"][key])


@pytest.mark.parametrize("worker", [0, 1])
def test_get_next_as_optional(records, worker):
    got, want = records[worker]["optionals"], EXPECTED[f"worker{worker}"]["optionals"]
    assert got["eager"] == want["eager"]
    assert got["traced_sum"] == want["traced_sum"]
    assert got["element_spec"] == want["element_spec"]
    assert got["empty_get_value"][0] == want["empty_get_value"][0]


@pytest.mark.parametrize("worker", [0, 1])
@pytest.mark.parametrize("case", ["hint_before_batch", "hint_after_batch", "no_hint"])
def test_hint_sharding(records, worker, case):
    assert records[worker][case] == EXPECTED[f"worker{worker}"][case]
