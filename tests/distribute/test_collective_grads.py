"""Gradients through ``ReplicaContext.all_reduce`` and ``all_gather`` in a MirroredStrategy's
replicas (eagerly and traced), ``get_next_as_optional`` on its distributed iterators, and
``tf.data.experimental.SHARD_HINT`` outside a distributed dataset and under the HINT policy on
one worker; the values are TF 2.21's (tests/fixtures/tf/make_distribute_grads.py recorded
them)."""

import json
import os

import numpy as np
import pytest

import tensortrace as tf

FIXTURE = os.path.join(os.path.dirname(__file__), os.pardir, "fixtures", "tf",
                       "distribute_grads", "expected.json")
with open(FIXTURE) as _f:
    EXPECTED = json.load(_f)


def collective_grads(strategy, traced):
    """Per replica: all_reduce SUM and all_gather results, and the gradients of weighted sums
    of all_reduce SUM, all_reduce MEAN, all_gather along axis 0 and along axis 1."""
    def step(x):
        ctx = tf.distribute.get_replica_context()
        rid = tf.cast(ctx.replica_id_in_sync_group, tf.float32)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            s = ctx.all_reduce("SUM", x * x)
            m = ctx.all_reduce("MEAN", x * x)
            g0 = ctx.all_gather(x * x, axis=0)
            g1 = ctx.all_gather(tf.reshape(x, [1, 3]), axis=1)
            weights = tf.constant([1.0, 2.0, 3.0]) * (rid + 1.0)
            loss_s = tf.reduce_sum(s * weights)
            loss_m = tf.reduce_sum(m * weights)
            loss_g0 = tf.reduce_sum(g0 * tf.range(6, dtype=tf.float32) * (rid + 1.0))
            loss_g1 = tf.reduce_sum(g1 * tf.reshape(tf.range(6, dtype=tf.float32), [1, 6])
                                    * (rid + 2.0))
        out = [tape.gradient(loss, x) for loss in (loss_s, loss_m, loss_g0, loss_g1)]
        return [s, g0] + out

    fn = tf.function(step) if traced else step
    x = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([1.0, 2.0, 3.0]) * float(ctx.replica_id_in_sync_group + 1))
    results = strategy.run(fn, args=(x,))
    return [[v.numpy().tolist() for v in strategy.experimental_local_results(r)]
            for r in results]


def optionals(strategy):
    """get_next_as_optional on a distributed iterator, eagerly and in a tf.function."""
    out = {}
    it = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(6).batch(4)))
    seen = []
    for _ in range(3):
        opt = it.get_next_as_optional()
        entry = {"has_value": bool(opt.has_value()), "type": type(opt).__name__}
        if entry["has_value"]:
            v = opt.get_value()
            entry["value_type"] = type(v).__name__
            entry["value"] = [t.numpy().tolist() for t in strategy.experimental_local_results(v)]
        seen.append(entry)
    out["eager"] = seen
    try:
        opt.get_value()
    except tf.errors.InvalidArgumentError as e:
        out["empty_get_value"] = [type(e).__name__, str(e).split("\n")[0]]
    it2 = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(6).batch(4)))

    @tf.function
    def total():
        acc = tf.constant(0, tf.int64)
        for _ in range(3):
            opt = it2.get_next_as_optional()
            if opt.has_value():
                v = opt.get_value()
                acc += strategy.reduce("SUM", strategy.run(tf.reduce_sum, args=(v,)), axis=None)
        return acc

    out["traced_sum"] = int(total())
    out["element_spec"] = repr(it.element_spec)
    return out


def assert_results(got, want):
    """Per result and replica (shapes differ between results), within float32 rounding."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.array(g, float), np.array(w, float), rtol=1e-6)


@pytest.fixture(scope="module")
def mirrored():
    return tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"])


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_gradients_through_all_reduce_and_all_gather(mirrored, traced):
    got = collective_grads(mirrored, traced)
    want = EXPECTED["mirrored"]["grads_traced" if traced else "grads_eager"]
    assert_results(got, want)
    # TF's rule, by hand for replica 0 (x = [1, 2, 3]): the all-reduce of the upstream
    # gradients (weights [1, 2, 3] and [2, 4, 6]) times d(x*x)/dx
    assert got[2][0] == [2 * 1 * 3.0, 2 * 2 * 6.0, 2 * 3 * 9.0]


def test_get_next_as_optional(mirrored):
    got = optionals(mirrored)
    want = EXPECTED["mirrored"]["optionals"]
    assert got["eager"] == want["eager"]
    assert got["traced_sum"] == want["traced_sum"] == 15
    assert got["element_spec"] == want["element_spec"]
    assert got["empty_get_value"][0] == want["empty_get_value"][0]
    assert got["empty_get_value"][1].endswith("The given optional does not have a value. "
                                              "[Op:OptionalGetValue] name: ")


def test_shard_hint_outside_a_distributed_dataset():
    assert tf.data.experimental.SHARD_HINT == EXPECTED["local"]["SHARD_HINT"] == -1
    hint = tf.data.experimental.SHARD_HINT
    dataset = tf.data.Dataset.range(8).shard(hint, hint)  # made; iterating it fails, as TF
    # TF's count: 8 // -1 + (index -1 < 8 % -1)
    assert int(dataset.cardinality()) == EXPECTED["local"]["cardinality"] == -7
    with pytest.raises(tf.errors.FailedPreconditionError) as info:
        next(iter(dataset))
    assert EXPECTED["local"]["iterate_hint"][0] == "FailedPreconditionError"
    assert EXPECTED["local"]["iterate_hint"][1].split("} ", 1)[1] in str(info.value)


def test_hint_sharding_on_one_worker(mirrored):
    """Under AutoShardPolicy.HINT one worker's hint is shard(1, 0): all the data (then split
    over the replicas)."""
    hint = tf.data.experimental.SHARD_HINT
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.HINT
    for name, strategy in (("hint_one_worker", tf.distribute.MultiWorkerMirroredStrategy()),
                           ("hint_mirrored", mirrored)):
        dist = strategy.experimental_distribute_dataset(
            tf.data.Dataset.range(8).shard(hint, hint).batch(4).with_options(options))
        got = [[v.numpy().tolist() for v in strategy.experimental_local_results(e)]
               for e in dist]
        assert got == EXPECTED["local"][name]
