"""The Ray communicator's reductions without starting Ray: N = 2, 3, 4 workers as threads, their
messages handed to each other's mailboxes and the object store stood in for by a dict. A large
batch is reduce-scattered (each worker adds up its share of the elements, the others read its
sums) and every worker gets, bit for bit, the parts added in worker order, as a small batch
(every worker adds up everything) and NumPy give; mismatched programs and aborts still raise."""

import itertools
import threading
import time
import weakref

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.distribute import multi_worker, ray_backend


class _Call:
    """A peer's ``deliver.options(...)``: ``remote`` hands the message to its mailbox."""

    def __init__(self, box):
        self.box = box

    def options(self, **_):
        return self

    def remote(self, *args):
        self.box.deliver(*args)


class _Peer:
    def __init__(self, box):
        self.deliver = _Call(box)


class _Store:
    """Ray's put and get: objects kept by reference id; get gives read-only views."""

    def __init__(self):
        self.objects, self.ids, self.lock = {}, itertools.count(), threading.Lock()
        self.puts = 0

    def put(self, value):
        with self.lock:
            ref = next(self.ids)
            self.puts += 1
            self.objects[ref] = _read_only(value)
        return ref

    def get(self, refs):
        return [self.objects[r] for r in refs]


def _read_only(value):
    if isinstance(value, list):
        return [_read_only(v) for v in value]
    if value is None:
        return None
    copy = np.array(value)
    copy.flags.writeable = False
    return copy


@pytest.fixture
def store(monkeypatch):
    fake = _Store()
    monkeypatch.setattr(ray_backend, "ray", fake)
    monkeypatch.setattr(ray_backend, "_SCATTER_WORKERS", 2)
    return fake


def _run(n, fn, boxes=None, link=None):
    """``fn(communicator, rank)`` on ``n`` workers (threads); their results in worker order.
    Messages go to the peers' mailboxes as actor calls would, or through ``link(rank)``'s
    channels into ``boxes``."""
    if boxes is None:
        boxes = [ray_backend._Mailbox() for _ in range(n)]
    peers = [None] * n if link is not None else [_Peer(b) for b in boxes]
    results, failures = [None] * n, []

    def work(rank):
        boxes[rank].start(1)
        comm = ray_backend._RayCommunicator(boxes[rank], 1, peers, rank,
                                            None if link is None else link(rank))
        try:
            results[rank] = fn(comm, rank)
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(e)
            for b in boxes:
                b.abort(1, f"worker {rank} raised {type(e).__name__}")

    threads = [threading.Thread(target=work, args=(r,)) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads)
    return results, failures


def _parts(n, shapes, dtype=np.float32):
    """Each worker's arrays: values whose sums round differently in other orders."""
    rng = np.random.RandomState(0)
    return [[(rng.randn(*s) * 10.0 ** rng.randint(-3, 4, s)).astype(dtype) for s in shapes]
            for _ in range(n)]


def _in_order(parts):
    total = parts[0].copy()
    for p in parts[1:]:
        total = total + p
    return total


SHAPES = [(300, 257), (7,), (0, 3), (1000, 130), (), (5, 2)]  # ~820 KB of float32


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("scatter", [True, False])
def test_batch_all_reduce_adds_in_worker_order_on_every_worker(store, monkeypatch, n, scatter):
    monkeypatch.setattr(ray_backend, "_SCATTER_BYTES", 1 << 16)
    monkeypatch.setattr(ray_backend, "_SCATTER_WORKERS", 2 if scatter else n + 1)
    parts = _parts(n, SHAPES)
    results, failures = _run(n, lambda comm, rank: (comm.batch_all_reduce(parts[rank]),
                                                    dict(comm.stats)))
    assert failures == []
    for i, shape in enumerate(SHAPES):
        want = _in_order([parts[w][i] for w in range(n)])
        for rank in range(n):
            got = results[rank][0][i]
            assert got.shape == shape and got.dtype == np.float32
            assert got.tobytes() == want.tobytes(), (rank, i)
    # reduce-scatter: each worker puts its parts of the others' shares and its sums, once each
    assert store.puts == (n * n if scatter else n)
    stats = results[0][1]
    assert stats["collectives"] == 1 and stats["bytes"] == sum(a.nbytes for a in parts[0])


def test_scattered_sums_are_the_owners_arrays_not_copies(store, monkeypatch):
    monkeypatch.setattr(ray_backend, "_SCATTER_BYTES", 1 << 16)
    parts = _parts(2, [(400, 100), (400, 100)])
    results, failures = _run(2, lambda comm, rank: comm.batch_all_reduce(parts[rank]))
    assert failures == []
    # worker 0 adds up the first array, worker 1 the second: the other reads it from the store
    assert results[0][0].flags.writeable and not results[1][0].flags.writeable
    assert results[1][1].flags.writeable and not results[0][1].flags.writeable


@pytest.mark.parametrize("n", [2, 3])
def test_all_reduce_of_one_large_array_and_integers(store, monkeypatch, n):
    monkeypatch.setattr(ray_backend, "_SCATTER_BYTES", 1 << 12)
    parts = [np.arange(5000, dtype=np.int64).reshape(50, 100) * (w + 1) for w in range(n)]
    results, failures = _run(n, lambda comm, rank: comm.all_reduce(parts[rank]))
    assert failures == []
    for r in results:
        np.testing.assert_array_equal(r, sum(parts))
        assert r.dtype == np.int64


def test_shares_are_contiguous_balanced_and_cut_at_edges_when_near():
    sizes = [4194304, 2048, 4194304, 2048, 20480, 10]  # the bench's MLP
    assert ray_backend._shares(sizes, 2) == [
        [(0, 0, 4194304), (1, 0, 2048)],
        [(2, 0, 4194304), (3, 0, 2048), (4, 0, 20480), (5, 0, 10)]]
    assert ray_backend._shares([1000], 3) == [[(0, 0, 333)], [(0, 333, 666)], [(0, 666, 1000)]]
    for sizes, n in (([10, 0, 1000, 5], 4), ([300000] * 3, 2), ([7, 9, 1], 3)):
        shares = ray_backend._shares(sizes, n)
        covered = [[] for _ in sizes]
        for share in shares:
            for i, s, e in share:
                covered[i].append((s, e))
        for i, size in enumerate(sizes):  # each element once, in order
            spans = sorted(covered[i])
            ends = [0] + [e for _, e in spans]
            assert [s for s, _ in spans] == ends[:-1] and ends[-1] == size


def test_workers_running_different_programs_raise(store, monkeypatch):
    monkeypatch.setattr(ray_backend, "_SCATTER_BYTES", 1 << 12)
    shapes = [[(40, 40)], [(40, 41)]]
    _, failures = _run(2, lambda comm, rank: comm.batch_all_reduce(
        [np.ones(shapes[rank][0], np.float32)]))
    assert failures and isinstance(failures[0], tf.errors.InternalError)
    assert "The workers' collectives do not match" in failures[0].message


def test_collective_batch_reduce_op_in_a_traced_step(store, monkeypatch):
    """The strategy's replica all_reduce packs by dtype into one CollectiveBatchReduce (MEAN:
    divided by the workers), traced; a GraphDef writes it as TF's pack: Concat, CollectiveReduceV2,
    SplitV."""
    monkeypatch.setattr(ray_backend, "_SCATTER_BYTES", 1 << 12)
    values = [[np.full((30, 20), w + 1.5, np.float32), np.arange(3, dtype=np.int32) * (w + 1),
               np.full((50,), w + 0.25, np.float32)] for w in range(2)]
    # one worker at a time joins and traces (the cluster is per process; Python 3.11's ast is
    # not thread-safe); they run the function together
    lock = threading.Lock()

    def worker(comm, rank):
        with lock:
            multi_worker.join_cluster(2, rank, comm)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            multi_worker.leave_cluster()

            @tf.function
            def mean(vs):
                return strategy.run(
                    lambda v: tf.distribute.get_replica_context().all_reduce("MEAN", v),
                    args=(vs,))

            concrete = mean.get_concrete_function([tf.constant(v) for v in values[rank]])
            types = [op.type for op in concrete.graph.get_operations()]
            nodes = [n.op for n in concrete.graph.as_graph_def().node]
            concrete._executable()  # generated and compiled here, not in both threads at once
        return [t.numpy() for t in concrete(*[tf.constant(v) for v in values[rank]])], \
            types, nodes

    results, failures = _run(2, worker)
    assert failures == []
    for got, types, nodes in results:
        np.testing.assert_array_equal(got[0], np.full((30, 20), 2.0, np.float32))
        np.testing.assert_array_equal(got[1], np.int32([0, 1, 3]))  # (0+0)//2, (1+2)//2, (2+4)//2
        np.testing.assert_array_equal(got[2], np.full((50,), 0.75, np.float32))
        assert types.count("CollectiveBatchReduce") == 2  # one pack per dtype
        assert nodes.count("CollectiveReduceV2") == 2 and "ConcatV2" in nodes
        assert "SplitV" in nodes and "CollectiveBatchReduce" not in nodes


@pytest.mark.parametrize("n, puts", [(2, 2), (3, 9)])
def test_two_workers_sum_everything_in_one_round_three_reduce_scatter(store, monkeypatch, n,
                                                                     puts):
    monkeypatch.setattr(ray_backend, "_SCATTER_WORKERS", 3)  # the default (the fixture lowers it)
    parts = _parts(n, [(600, 512)])  # 1.2 MB: over _SCATTER_BYTES
    results, failures = _run(n, lambda comm, rank: comm.batch_all_reduce(parts[rank]))
    assert failures == []
    want = _in_order([p[0] for p in parts]).tobytes()
    assert all(r[0].tobytes() == want for r in results)
    assert store.puts == puts  # one put per worker, or one per peer's share and one of its sums


def test_sums_reuse_the_memory_of_sums_nothing_refers_to_any_more(store):
    parts = _parts(2, [(200, 100), (300, 100)])

    def steps(comm, rank):
        first = comm.batch_all_reduce(parts[rank])
        kept, dropped = first[0], first[1].__array_interface__["data"][0]
        del first
        second = comm.batch_all_reduce([p * 2 for p in parts[rank]])
        return kept, dropped, second

    results, failures = _run(2, steps)
    assert failures == []
    for kept, dropped, second in results:
        assert not np.shares_memory(kept, second[0])  # still held: not written over
        assert second[1].__array_interface__["data"][0] == dropped  # no fresh pages
        assert kept.tobytes() == _in_order([p[0] for p in parts]).tobytes()
        assert second[1].tobytes() == _in_order([p[1] * 2 for p in parts]).tobytes()


# --- the channel transport: each message written once for all, read in place -----------------
class _Channels:
    """Ray's shared-memory channels for ``n`` workers: ``send`` hands every other worker's
    mailbox read-only views of the message's arrays, in buffers of their own. As Ray does, a
    writer writes again only once every reader has given the last message back (its mailbox's
    release) and no view of it is left: else a send fails here (Ray would wait forever). A
    released buffer still alive reads -7, so a result pointing into a channel shows."""

    def __init__(self, n):
        self.boxes = [ray_backend._Mailbox() for _ in range(n)]
        self.writes = [0] * n
        self.last = [[] for _ in range(n)]  # per writer: [weak reference to a buffer, released]

    def link(self, rank):
        channels = self

        class Link:
            def send(self, message, aborted, deadline=None):
                run, seq, sender, meta, (kind, payload) = message
                channels.wait_given_back(sender)
                channels.writes[sender] += 1
                for r, box in enumerate(channels.boxes):
                    if r != sender:
                        buffers, views = _in_buffer(payload)
                        entry = [[weakref.ref(b) for b in buffers], False]
                        channels.last[sender].append(entry)
                        box.deliver(run, seq, sender, meta, (kind, views),
                                    lambda e=entry: _release(e))
                        del buffers, views
        return Link()

    def wait_given_back(self, writer):
        deadline = time.monotonic() + 5
        while any(not released or any(ref() is not None for ref in refs)
                  for refs, released in self.last[writer]):
            assert time.monotonic() < deadline, \
                f"worker {writer}'s last message is not given back: Ray would wait forever"
            time.sleep(0.001)
        self.last[writer] = []


def _release(entry):
    entry[1] = True
    for ref in entry[0]:
        buffer = ref()
        if buffer is not None:
            buffer.fill(-7)


def _in_buffer(value):
    """(the buffers of the arrays in ``value``, ``value`` with read-only views of them)."""
    if isinstance(value, list):
        pairs = [_in_buffer(v) for v in value]
        return [b for bs, _ in pairs for b in bs], [v for _, v in pairs]
    if value is None:
        return [], None
    buffer = np.array(value)
    view = buffer.view()
    view.flags.writeable = False
    return [buffer], view


def _run_linked(n, fn):
    channels = _Channels(n)
    return (*_run(n, fn, channels.boxes, channels.link), channels)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("scatter", [True, False])
def test_through_channels_every_worker_gets_the_sums_in_worker_order(monkeypatch, n, scatter):
    """One write per worker and round (the reduce-scatter's readers take their shares of the
    whole), and no result points into a channel once its collective is done."""
    monkeypatch.setattr(ray_backend, "_SCATTER_BYTES", 1 << 16)
    monkeypatch.setattr(ray_backend, "_SCATTER_WORKERS", 2 if scatter else n + 1)
    parts = _parts(n, SHAPES)

    def collectives(comm, rank):
        sums = comm.batch_all_reduce(parts[rank])
        gathered = comm.all_gather(parts[rank][0])
        sent = comm.broadcast(parts[rank][3] if rank == 1 else None, root=1)
        comm.all_reduce(np.zeros(3, np.float32))  # the readers reuse the last buffers
        return sums, gathered, sent

    results, failures, channels = _run_linked(n, collectives)
    assert failures == []
    for rank, (sums, gathered, sent) in enumerate(results):
        for i, shape in enumerate(SHAPES):
            want = _in_order([parts[w][i] for w in range(n)])
            assert sums[i].shape == shape and sums[i].tobytes() == want.tobytes(), (rank, i)
        for w in range(n):
            np.testing.assert_array_equal(gathered[w], parts[w][0])
        np.testing.assert_array_equal(sent, parts[1][3])
    assert channels.writes == [(5 if scatter else 4)] * n
    assert all(box._releases == {} for box in channels.boxes)  # every message given back


def test_dropped_channel_messages_are_given_back():
    box = ray_backend._Mailbox()
    released = []
    box.start(2)
    box.deliver(1, 0, 1, ("x",), "stale", lambda: released.append("stale"))
    box.deliver(2, 0, 1, ("x",), "used", lambda: released.append("used"))
    box.deliver(3, 0, 1, ("x",), "next run", lambda: released.append("next run"))
    assert released == ["stale"]
    assert box.collect(2, 0, 1, timeout=5) == {1: (("x",), "used")}
    box.done(2, 0)
    assert released == ["stale", "used"]
    box.deliver(2, 1, 1, ("x",), "aborted", lambda: released.append("aborted"))
    box.abort(2, "worker 0 died")
    box.deliver(2, 2, 1, ("x",), "after the abort", lambda: released.append("after"))
    assert released == ["stale", "used", "aborted", "after"]
    box.start(4)  # a run that never came: its messages dropped, given back
    assert released[-1] == "next run" and box._releases == {}
