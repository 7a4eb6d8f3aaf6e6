"""The Ray launcher's collective pieces without starting Ray: a worker's mailbox (messages of a
run that a faster worker already began are kept, earlier runs' dropped, an abort or a timeout
ends the wait), and a cluster of one worker does no collective work at all."""

import threading
import time

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.distribute import multi_worker, ray_backend


def test_mailbox_collects_the_other_workers_records_of_one_collective():
    box = ray_backend._Mailbox()
    box.start(1)
    box.deliver(1, 0, 2, ("all_reduce",), "from 2")
    box.deliver(1, 1, 1, ("all_reduce",), "next one")
    later = threading.Timer(0.05, box.deliver, (1, 0, 1, ("all_reduce",), "from 1"))
    later.start()
    assert box.collect(1, 0, 2, timeout=5) == {1: (("all_reduce",), "from 1"),
                                               2: (("all_reduce",), "from 2")}
    assert box.collect(1, 1, 1, timeout=5) == {1: (("all_reduce",), "next one")}
    assert box.collect(1, 7, 0, timeout=5) == {}  # a cluster of one waits for nobody


def test_mailbox_keeps_a_later_run_and_drops_earlier_ones():
    box = ray_backend._Mailbox()
    box.start(1)
    box.deliver(1, 5, 1, ("x",), "stale")  # an aborted run's late message
    box.deliver(2, 0, 1, ("x",), "early")  # the other worker began run 2 first
    box.abort(1, "worker 1 died")
    box.start(2)
    box.deliver(1, 0, 1, ("x",), "too late")
    assert box.collect(2, 0, 1, timeout=5) == {1: (("x",), "early")}
    assert box._slots == {} and box._errors == {}


def test_mailbox_wait_ends_on_abort_or_timeout():
    box = ray_backend._Mailbox()
    box.start(3)
    start = time.monotonic()
    assert box.collect(3, 0, 1, timeout=0.1) is None
    assert time.monotonic() - start < 2
    threading.Timer(0.05, box.abort, (3, "worker 0 died")).start()
    assert box.collect(3, 1, 1, timeout=None) == "worker 0 died"
    assert box.collect(3, 2, 1, timeout=None) == "worker 0 died"  # and every later one


@pytest.fixture
def one_worker_cluster():
    communicator = ray_backend._RayCommunicator(ray_backend._Mailbox(), 1, [None], 0)
    multi_worker.join_cluster(1, 0, communicator)
    yield communicator
    multi_worker.leave_cluster()


def test_one_ray_worker_does_no_collective_work(one_worker_cluster):
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    grads = [tf.constant(np.arange(40000, dtype=np.float32)), tf.constant([1.0, 2.0])]

    @tf.function
    def all_reduce(values):
        return strategy.run(
            lambda v: tf.distribute.get_replica_context().all_reduce("SUM", v), args=(values,))

    with strategy.scope():
        v = tf.Variable(np.ones(30000, np.float32))
    out = all_reduce(grads)
    total = strategy.reduce("SUM", strategy.run(lambda: v * 2.0), axis=None)
    assert one_worker_cluster.stats["collectives"] == 0
    assert np.shares_memory(out[0]._value, grads[0]._value)  # not even a copy
    np.testing.assert_array_equal(total.numpy(), np.full(30000, 2.0, np.float32))
    np.testing.assert_array_equal(one_worker_cluster.all_reduce(np.ones(3)), np.ones(3))


def test_worker_env_keeps_large_arrays_in_the_heap(monkeypatch):
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "1000")
    env = ray_backend._worker_env(1, {"X": "1"})
    assert env["MALLOC_MMAP_THRESHOLD_"] == str(256 << 20)
    assert "MALLOC_TRIM_THRESHOLD_" not in env  # this process's own setting is inherited
    assert env["OMP_NUM_THREADS"] == env["OPENBLAS_NUM_THREADS"] == "1" and env["X"] == "1"


def test_ray_workers_name_a_bad_transport_before_starting_anything():
    with pytest.raises(ValueError, match="`transport` must be one of 'auto', 'channels', "
                                         "'object_store', got 'nccl'"):
        ray_backend.RayWorkers(2, transport="nccl")


def test_channels_only_between_workers_of_one_machine():
    from tensortrace.distribute import ray_channels
    assert ray_channels.available(["node-a", "node-a"])
    assert not ray_channels.available(["node-a", "node-b"])
    assert not ray_channels.available(["node-a"])  # one worker has nobody to talk to


def test_mailbox_wants_a_channel_read_only_while_a_collective_waits_for_it():
    box = ray_backend._Mailbox()
    reader1, reader2 = threading.Event(), threading.Event()
    box.read_for(1, reader1)
    box.read_for(2, reader2)
    box.start(1)
    box.deliver(1, 0, 2, ("x",), "early", lambda: None)  # worker 2 wrote before we wanted it
    box.want(1, 0)
    assert reader1.is_set() and not reader2.is_set()
    box.deliver(0, 9, 1, ("x",), "stale", lambda: None)  # an old run's: still wanted
    assert reader1.is_set()
    box.deliver(1, 0, 1, ("x",), "here", lambda: None)
    assert not reader1.is_set()
    box.want(1, 1)
    box.abort(1, "worker 2 died")  # nobody waits any more
    assert not reader1.is_set() and not reader2.is_set()
