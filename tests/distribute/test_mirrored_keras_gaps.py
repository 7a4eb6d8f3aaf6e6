"""What Keras' optimizers need of MirroredStrategy, as TF 2.21 gives it: batch reductions of a
value the replicas share, and a mirrored variable reachable (and keyed) from each of its copies.
Values printed by TF 2.21 with two logical CPUs."""

import numpy as np
import pytest

import tensortrace as tf

TWO = ["cpu:0", "cpu:1"]


def test_batch_reduce_to_returns_a_plain_tensor_as_it_is():
    """TF takes a plain tensor as a one-value PerReplica: SUM gives it back unchanged, where
    reduce_to refuses to SUM a value every replica has."""
    s = tf.distribute.MirroredStrategy(TWO)
    t = tf.constant([1.0, 2.0])
    out = s.extended.batch_reduce_to("SUM", [(t, t)])
    assert len(out) == 1 and out[0] is t
    with pytest.raises(ValueError, match=r"A non-DistributedValues value tf.Tensor\(\[1. 2.\], "
                       r"shape=\(2,\), dtype=float32\) cannot be reduced with the given reduce "
                       r"op ReduceOp.SUM."):
        s.extended.reduce_to("SUM", t, t)


def test_replica_all_reduce_of_a_shared_tensor_is_that_tensor():
    """Keras' optimizer all-reduces the gradients it is given; a tensor both replicas share
    comes back as it is in each (TF: [[1, 1], [1, 1]] per replica, not doubled)."""
    s = tf.distribute.MirroredStrategy(TWO)
    g = tf.constant([[1.0, 1.0], [1.0, 1.0]])
    out = s.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", [g]))
    for part in s.experimental_local_results(out[0]):
        np.testing.assert_array_equal(part.numpy(), [[1.0, 1.0], [1.0, 1.0]])
    # replicas' own tensors still add up
    own = s.run(lambda: tf.distribute.get_replica_context().all_reduce(
        "SUM", [tf.constant([1.0, 6.0])]))
    for part in s.experimental_local_results(own[0]):
        np.testing.assert_array_equal(part.numpy(), [2.0, 12.0])


def test_each_copy_leads_to_its_mirrored_variable():
    """TF: each copy's handle holds a weak reference to the MirroredVariable; the variable's
    ``_unique_id`` is its first copy's in every replica (optimizer slots are keyed by it)."""
    s = tf.distribute.MirroredStrategy(TWO)
    with s.scope():
        v = tf.Variable([1.0, 2.0])
    assert [c.handle._distributed_container() is v for c in v.values] == [True, True]
    assert [c._distributed_container() is v for c in v.values] == [True, True]
    assert v._unique_id == v.values[0]._unique_id != v.values[1]._unique_id
    same = s.run(lambda: tf.constant(v._unique_id == v.values[0]._unique_id))
    assert [bool(x) for x in s.experimental_local_results(same)] == [True, True]

    def update(strategy):
        seen = []

        def fn(c):
            seen.append((c._distributed_container() is v, c is v.values[0], c is v.values[1]))
            return c.assign_add([1.0, 1.0])

        strategy.extended.update(v, fn, group=False)
        return seen

    seen = s.run(lambda: tf.distribute.get_replica_context().merge_call(update))
    assert seen == [(True, True, False), (True, False, True)]
    np.testing.assert_array_equal(v.values[1].numpy(), [2.0, 3.0])
