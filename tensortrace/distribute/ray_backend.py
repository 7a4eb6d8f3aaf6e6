"""Training on Ray: N actors, each a worker of one ``MultiWorkerMirroredStrategy`` cluster, run
the same training function; each sends its part of a collective straight to the others (a
tensor through Ray's object store: it is put once, and read by the others without a copy on
one machine) and reduces the parts in worker order.

    def train():
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        ...
        return history

    history = tensortrace.distribute.run_on_ray(train, num_workers=2)   # the chief's result

``RayWorkers`` keeps the actors for several runs (``workers.run(fn)``). Ray is started on this
machine on first use (``ray.init(num_cpus=...)``) unless it is running, or ``address`` (or
``RAY_ADDRESS``) names a cluster. A worker that dies, or whose function raises, aborts the
others' collectives: the run raises (``tf.errors.UnavailableError`` for a dead worker) instead
of waiting."""

import importlib
import itertools
import os
import sys
import threading
import time

import numpy as np

from .. import config, errors
from . import ray_channels
from .multi_worker import join_cluster, leave_cluster

try:
    import resource  # page-fault counts: Unix only
except ImportError:
    resource = None

_EXTRA = "pip install 'tensortrace[ray]'"
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Ray and its exceptions, imported on first use (the optional extra: tf.distribute loads
# without it)
ray = _ray_errors = None


def _require_ray(what):
    global ray, _ray_errors
    if ray is None:
        try:
            ray = importlib.import_module("ray")
        except ImportError:
            raise ImportError(f"{what} needs Ray, an optional dependency of tensortrace: "
                              f"{_EXTRA}") from None
        _ray_errors = importlib.import_module("ray.exceptions")


# --- the mailbox: where the other workers' k-th collectives arrive ----------------------------
class _Mailbox:
    """What the other workers sent this worker for its collectives, by run and sequence number
    (a worker's k-th collective meets the others' k-th: they run the same program), and why a
    run was aborted. Filled by the actor's collective thread (or channel readers), emptied by
    its training thread. A message read in place from a channel comes with ``release``, called
    once the collective is done with it (``done``) or the message is dropped."""

    def __init__(self):
        self._ready = threading.Condition()
        self._run = 0
        self._slots = {}  # (run, seq) -> {rank: (meta, payload)}
        self._errors = {}  # run -> why it was aborted
        self._releases = {}  # (run, seq) -> the release functions of its messages
        self._readers = {}  # rank -> Event: read that worker's channel (a collective waits)

    def start(self, run):
        """Run ``run`` begins: what earlier runs left is dropped (a later run's messages may
        already be here: a faster worker started it)."""
        with self._ready:
            self._run = run
            self._drop(lambda key: key[0] < run)
            for wanted in self._readers.values():
                wanted.clear()
            self._errors = {r: m for r, m in self._errors.items() if r >= run}

    def deliver(self, run, seq, rank, meta, payload, release=None):
        with self._ready:
            if run >= self._run and run not in self._errors:
                self._slots.setdefault((run, seq), {})[rank] = (meta, payload)
                if release is not None:
                    self._releases.setdefault((run, seq), []).append(release)
                if rank in self._readers:
                    self._readers[rank].clear()
                self._ready.notify_all()
            elif release is not None:
                release()

    def abort(self, run, message):
        with self._ready:
            if run >= self._run:
                self._errors.setdefault(run, message)
                self._drop(lambda key: key[0] == run)
                for wanted in self._readers.values():
                    wanted.clear()
                self._ready.notify_all()

    def read_for(self, rank, wanted):
        """Worker ``rank``'s messages come from a channel whose reader reads while ``wanted``
        is set."""
        self._readers[rank] = wanted

    def want(self, run, seq):
        """Collective ``seq`` of run ``run`` waits: the readers of the workers whose message
        is not here yet read."""
        with self._ready:
            here = self._slots.get((run, seq), {})
            for rank, wanted in self._readers.items():
                if rank not in here:
                    wanted.set()

    def error(self, run):
        """Why run ``run`` was aborted, or None."""
        with self._ready:
            return self._errors.get(run)

    def done(self, run, seq):
        """Collective ``seq`` has used its messages: their channels may be written again."""
        with self._ready:
            releases = self._releases.pop((run, seq), ())
        for release in releases:
            release()

    def _drop(self, which):
        self._slots = {k: v for k, v in self._slots.items() if not which(k)}
        for key in [k for k in self._releases if which(k)]:
            for release in self._releases.pop(key):
                release()

    def collect(self, run, seq, count, timeout):
        """The ``count`` other workers' records of collective ``seq`` ({rank: (meta, payload)});
        None after ``timeout`` seconds; a str (why) if the run was aborted."""
        key = (run, seq)
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._ready:
            while True:
                if run in self._errors:
                    return self._errors[run]
                if len(self._slots.get(key, ())) == count:
                    return self._slots.pop(key, {})
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                self._ready.wait(left)


# --- the communicator a worker's strategy uses -------------------------------------------------
_INLINE_BYTES = 64 * 1024  # smaller payloads travel inside the messages, larger in the store
#: Batches at least this large, on at least this many workers, are reduce-scattered: each worker
#: adds up 1/N of the elements and the others read its sums, in two rounds of messages. Else
#: every worker adds up everything, in one round: on 2 workers that costs less CPU time (one put
#: and one round of Ray calls fewer outweigh summing twice the elements; the bench's --ab).
_SCATTER_BYTES = 1 << 20
_SCATTER_WORKERS = 3
_COLLECTIVE_GROUP = "collective"  # the worker actors' concurrency group that takes messages
_TRANSPORTS = ("auto", "channels", "object_store")


def _clock():
    """Wall and CPU (this process's threads, Ray's too) seconds, and minor page faults (fresh
    memory touched; 0 where the OS does not count them)."""
    faults = 0 if resource is None else resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    return time.perf_counter(), time.process_time(), faults


def _nbytes(value):
    if isinstance(value, (list, tuple)):
        return sum(_nbytes(v) for v in value)
    return 0 if value is None else value.nbytes


def _shares(sizes, n):
    """Which elements of the arrays (of ``sizes`` elements, flattened one after another) each
    of ``n`` workers sums: per worker a list of (array index, start, stop), contiguous and about
    1/n of them. A cut moves to an array's edge when one is near: an array cut in two has to be
    copied together from its owners' sums."""
    edges = np.cumsum([0] + list(sizes))
    total = int(edges[-1])
    cuts = [0]
    for k in range(1, n):
        ideal = total * k // n
        near = int(edges[np.argmin(np.abs(edges - ideal))])
        cuts.append(max(cuts[-1], near if abs(near - ideal) * 8 * n <= total else ideal))
    cuts.append(total)
    edges = [int(e) for e in edges]
    return [[(i, max(lo, edges[i]) - edges[i], min(hi, edges[i + 1]) - edges[i])
             for i in range(len(sizes)) if max(lo, edges[i]) < min(hi, edges[i + 1])]
            for lo, hi in itertools.pairwise(cuts)]


class _SumBuffers:
    """Arrays that large sums go into, each used again once nothing else refers to it (the
    tensors made of an earlier step's sums are gone): a training step's sums reuse the last
    step's memory instead of touching fresh pages. At most ``keep`` arrays of each shape."""

    _MIN_BYTES = 1 << 16  # smaller sums are allocated fresh: cheap, and not worth keeping

    def __init__(self, keep=2):
        self._arrays, self._keep = {}, keep

    def get(self, shape, dtype):
        if np.dtype(dtype).itemsize * int(np.prod(shape)) < self._MIN_BYTES:
            return np.empty(shape, dtype)
        kept = self._arrays.setdefault((tuple(shape), np.dtype(dtype)), [])
        for array in kept:
            if sys.getrefcount(array) == _UNUSED:  # only this list refers to it
                return array
        array = np.empty(shape, dtype)
        if len(kept) < self._keep:
            kept.append(array)
        return array


def _refcount_of_unused():
    """What ``getrefcount`` gives, in ``_SumBuffers.get``'s loop, for an array only its list
    refers to (measured: interpreters differ in the references they count)."""
    for array in [np.empty(0)]:
        return sys.getrefcount(array)


_UNUSED = _refcount_of_unused()


def _add_in_order(parts, buffers):
    """``parts`` added elementwise in worker order (every worker's sum has the same bits), into
    an array of ``buffers``."""
    first = np.asarray(parts[0])
    total = buffers.get(first.shape, np.result_type(*parts))
    if len(parts) == 1:
        np.copyto(total, first)
        return total
    np.add(first, parts[1], out=total)
    for part in parts[2:]:
        np.add(total, part, out=total)
    return total


class _RayCommunicator:
    """Collectives of one worker. On one machine (``link``: Ray's shared-memory channels) it
    writes each round's part once into its channel, which the others read in place; else it
    sends its part (a large one as a reference to it in the object store) straight to every
    other worker's mailbox, one message per pair and round. Either way there is no go-between,
    and it reads the others' parts from its mailbox. Reductions add the parts in worker order,
    so every worker gets the same bits; a large batch is reduce-scattered then all-gathered:
    each worker adds up only its share of the elements (reading the others' parts of it), and
    the others read its sums. ``stats`` counts the collectives, their bytes and the wall and
    CPU seconds and page faults of each piece (put: into the object store or the channel;
    exchange: waiting for the others; get: from the object store; sum)."""

    num_workers = property(lambda self: self._n)

    def __init__(self, mailbox, run, peers, rank, link=None):
        self._mailbox, self._run, self._rank, self._n = mailbox, run, rank, len(peers)
        self._link, self._pending = link, None
        self._send = [None if i == rank or link is not None else
                      p.deliver.options(concurrency_group=_COLLECTIVE_GROUP)
                      for i, p in enumerate(peers)]
        self._seq = itertools.count()
        self._buffers = _SumBuffers()
        self.stats = dict.fromkeys(("collectives", "bytes") + tuple(
            k + what for k in ("put", "exchange", "get", "sum")
            for what in ("", "_cpu", "_faults")), 0)

    def _charge(self, piece, since):
        """Add the wall and CPU seconds and the page faults since ``since`` to ``piece``;
        now."""
        now = _clock()
        for i, what in enumerate(("", "_cpu", "_faults")):
            self.stats[piece + what] += now[i] - since[i]
        return now

    def _payload(self, value):
        """What a message carries: ``value`` (arrays, a list of them, or None) when small, else
        its reference in the object store (put once, however many workers read it)."""
        if _nbytes(value) <= _INLINE_BYTES:
            return ("value", value)
        start = _clock()
        ref = ray.put(value)
        self._charge("put", start)
        return ("ref", ref)

    def _round(self, meta, payload, timeout):
        """One round of messages: ``payload`` to every other worker (or ``payload(j)`` to
        worker j: the object store's scatter); the others' values to this one, {rank: value}:
        read-only views, those read from channels valid only until ``_done``."""
        start = _clock()
        seq = next(self._seq)
        if self._link is not None:
            deadline = None if timeout is None else time.monotonic() + timeout
            self._link.send((self._run, seq, self._rank, meta, ("value", payload)),
                            lambda: self._mailbox.error(self._run), deadline)
            start = self._charge("put", start)
        else:
            same = None if callable(payload) else self._payload(payload)
            for j, send in enumerate(self._send):
                if send is not None:
                    send.remote(self._run, seq, self._rank, meta,
                                same if same is not None else self._payload(payload(j)))
        self._pending = seq
        self._mailbox.want(self._run, seq)
        got = self._mailbox.collect(self._run, seq, self._n - 1, timeout)
        if got is None:
            raise errors.DeadlineExceededError(
                None, None, f"Collective ops timed out after {timeout} seconds waiting for the "
                f"other workers ({meta[0]} on worker {self._rank})")
        if isinstance(got, str):
            raise errors.UnavailableError(None, None, f"Collective ops is aborted by: {got}")
        metas = [meta if i == self._rank else got[i][0] for i in range(self._n)]
        if any(m != meta for m in metas):
            got.clear()  # no view of a channel's message may outlive its round
            self._done()
            raise errors.InternalError(None, None, "The workers' collectives do not match: "
                                       f"collective #{seq} is {metas} on workers 0, 1, ...; "
                                       "the workers must run the same program")
        fetched = self._charge("exchange", start)
        refs = [(i, p[1]) for i, (_, p) in got.items() if p[0] == "ref"]
        values = {i: p[1] for i, (_, p) in got.items() if p[0] == "value"}
        if refs:
            try:
                values.update(zip([i for i, _ in refs], ray.get([r for _, r in refs])))
            except _ray_errors.RayError as e:
                raise errors.UnavailableError(
                    None, None, "Collective ops is aborted by: a worker's tensor is lost "
                    f"({type(e).__name__})") from None
            self._charge("get", fetched)
        return values

    def _done(self):
        """The last round's messages are used: the others may write their channels again (once
        the views of them are gone too: Ray waits for those, so none may live on into the
        next round)."""
        self._mailbox.done(self._run, self._pending)

    def _own(self, value):
        """``value`` (another worker's, from ``_round``) as an array that outlives the round."""
        return np.array(value) if self._link is not None else value

    def _count(self, arrays):
        self.stats["collectives"] += 1
        self.stats["bytes"] += _nbytes(arrays)

    def batch_all_reduce(self, arrays, timeout=None):
        """The workers' ``arrays`` (the same shapes and dtypes on every worker) added
        elementwise in worker order: a list of arrays (some of them read-only)."""
        if self._n == 1:  # the whole cluster: its own part is all there is
            return list(arrays)
        arrays = [np.asarray(a) for a in arrays]
        meta = ("all_reduce", tuple((a.dtype.str, a.shape) for a in arrays))
        self._count(arrays)
        if self._n < _SCATTER_WORKERS or _nbytes(arrays) < _SCATTER_BYTES:
            got = self._round(meta, arrays, timeout)
            start = _clock()
            sums = [_add_in_order([a if w == self._rank else got[w][i] for w in range(self._n)],
                                  self._buffers) for i, a in enumerate(arrays)]
            self._done()
            self._charge("sum", start)
            return sums
        flat = [a.reshape(-1) for a in arrays]
        shares = _shares([f.size for f in flat], self._n)
        # reduce-scatter: each worker gets the others' parts of its share (through a channel:
        # every other worker's share in one message, written once for all of them)
        def parts_of(j):
            return [flat[i][s:e] for i, s, e in shares[j]]

        if self._link is not None:
            got = self._round(meta + ("scatter",), [
                None if j == self._rank else parts_of(j) for j in range(self._n)], timeout)
            got = {w: parts[self._rank] for w, parts in got.items()}
        else:
            got = self._round(meta + ("scatter",), parts_of, timeout)
        start = _clock()
        mine = [_add_in_order([flat[i][s:e] if w == self._rank else got[w][k]
                               for w in range(self._n)], self._buffers)
                for k, (i, s, e) in enumerate(shares[self._rank])]
        del got  # Ray gives a channel's buffer back to its writer only once no view of it is left
        self._done()
        self._charge("sum", start)
        # all-gather: each worker reads the others' sums
        got = self._round(meta + ("gather",), mine, timeout)
        got[self._rank] = mine
        pieces = [[] for _ in arrays]  # array index -> [(start, stop, its sum, owner)]
        for w, share in enumerate(shares):
            for (i, s, e), total in zip(share, got[w]):
                pieces[i].append((s, e, total, w))
        out = []
        for a, parts in zip(arrays, pieces):
            if len(parts) == 1:  # summed whole by one worker: its sum as it is
                total, owner = parts[0][2], parts[0][3]
                out.append((total if owner == self._rank else self._own(total)).reshape(a.shape))
                continue
            whole = np.empty(a.size, a.dtype)  # cut between workers (or empty)
            for s, e, total, _ in parts:
                whole[s:e] = total
            out.append(whole.reshape(a.shape))
        self._done()
        return out

    def all_reduce(self, array, timeout=None):
        if self._n == 1:
            return array
        return self.batch_all_reduce([array], timeout)[0]

    def all_gather(self, array, timeout=None):
        if self._n == 1:
            return [array]
        array = np.asarray(array)
        self._count(array)
        got = self._round(("all_gather", array.dtype.str, array.shape[1:]), array, timeout)
        out = [array if w == self._rank else self._own(got[w]) for w in range(self._n)]
        self._done()
        return out

    def broadcast(self, value, root=0, timeout=None):
        if self._n == 1:
            return np.array(value)
        array = np.asarray(value) if self._rank == root else None
        self._count(array)
        got = self._round(("broadcast",), array, timeout)
        out = np.array(array if self._rank == root else got[root])
        self._done()
        return out


_current = []  # the communicator of the training function this worker process runs


def collective_stats():
    """This worker's collectives so far in the running training function: how many, their
    bytes, and the seconds spent putting, exchanging, getting and summing (None outside a
    Ray worker's run)."""
    return dict(_current[0].stats) if _current else None


# --- the worker actors -------------------------------------------------------------------------
class _Worker:
    """One worker process: joins the cluster, runs the training function; its collective
    thread takes the other workers' messages meanwhile."""

    def __init__(self, rank, num_workers, addresses, cpus=None):
        _require_ray("a Ray worker")  # this process's module globals
        self._rank, self._n, self._addresses = rank, num_workers, addresses
        if cpus is not None and not config._SWITCHES["intra_op"]:
            # the CPUs Ray reserved for this worker, not every core of the machine (as Ray
            # sets OMP_NUM_THREADS); the training function may set its own
            config._SWITCHES["intra_op"] = max(1, int(cpus))
        self._mailbox = _Mailbox()
        self._link = None

    def ready(self):
        return os.getpid(), ray.get_runtime_context().get_node_id()

    def open_channel(self, workers, node_ids):
        return ray_channels.open_channel(self._rank, workers, node_ids)

    def connect(self, channels):
        self._link = ray_channels.ChannelLink(self._rank, channels, self._mailbox)

    def disconnect(self):
        if self._link is not None:
            self._link.close()
        self._link = None

    def deliver(self, run, seq, rank, meta, payload):
        self._mailbox.deliver(run, seq, rank, meta, payload)

    def abort(self, run, message):
        self._mailbox.abort(run, message)

    def run(self, fn, args, kwargs, run, peers):
        self._mailbox.start(run)
        communicator = _RayCommunicator(self._mailbox, run, peers, self._rank, self._link)
        join_cluster(self._n, self._rank, communicator, self._addresses)
        _current[:] = [communicator]
        try:
            return fn(*args, **kwargs)
        finally:
            leave_cluster()
            _current[:] = []


def _init_ray(address, num_cpus, needed):
    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address)
    else:
        ray.init(num_cpus=num_cpus if num_cpus is not None else max(os.cpu_count() or 1, needed),
                 include_dashboard=False)


# glibc hands each array over 32 MiB (a gradient pack, its sum) fresh zeroed pages from mmap and
# unmaps them when freed: every training step paid the page faults again. Larger thresholds
# keep such arrays in the heap, whose freed memory the next step reuses.
_MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": str(256 << 20), "MALLOC_TRIM_THRESHOLD_": str(512 << 20)}


def _worker_env(blas_threads, env_vars):
    """The actors' environment: this tensortrace first on the path, BLAS pinned to
    ``blas_threads`` threads (NumPy reads it when it loads), glibc's malloc keeping large
    arrays' memory for reuse (unless this process's environment sets those variables)."""
    paths = [_ROOT] + [p for p in (os.getcwd(), sys.path[0]) if p and os.path.isdir(p)]
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    env = {"PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}
    env.update({k: v for k, v in _MALLOC_ENV.items() if k not in os.environ})
    if blas_threads is not None:
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[name] = str(blas_threads)
    env.update(env_vars or {})
    return env


class RayWorkers:
    """``num_workers`` Ray actors that run training functions as the workers of a
    ``MultiWorkerMirroredStrategy`` (worker 0 is the chief).

    Args:
        num_workers: how many workers (each one replica).
        address: a running Ray cluster (default: ``RAY_ADDRESS``, else Ray on this machine).
        num_cpus: the CPUs of a Ray started here (default: this machine's, at least
            ``num_workers * cpus_per_worker``).
        cpus_per_worker: the CPUs Ray reserves for each worker (and the threads its ops may
            use: ``tf.config.threading.set_intra_op_parallelism_threads``, unless the training
            function sets it).
        blas_threads: the BLAS threads of each worker (None: the library's default).
        env_vars: more environment variables for the workers.
        start_timeout: seconds to wait for the workers to start.
        transport: how collectives travel: ``"channels"`` (Ray's shared-memory channels: one
            copy per message, no Ray task; workers on one machine), ``"object_store"`` (Ray's
            object store and actor calls, anywhere), or ``"auto"``: channels where they can.
    """

    def __init__(self, num_workers=2, *, address=None, num_cpus=None, cpus_per_worker=1,
                 blas_threads=1, env_vars=None, start_timeout=120, transport="auto"):
        _require_ray("tensortrace.distribute.RayWorkers")
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or \
                num_workers < 1:
            raise ValueError(f"`num_workers` must be a positive integer, got {num_workers!r}")
        if transport not in _TRANSPORTS:
            raise ValueError(f"`transport` must be one of {', '.join(map(repr, _TRANSPORTS))}, "
                             f"got {transport!r}")
        self._n = num_workers
        _init_ray(address, num_cpus, num_workers * cpus_per_worker)
        available = ray.cluster_resources().get("CPU", 0)
        if available < num_workers * cpus_per_worker:
            raise ValueError(f"`num_workers`={num_workers} workers of {cpus_per_worker} CPUs "
                             f"need {num_workers * cpus_per_worker} CPUs; the Ray cluster has "
                             f"{available:g}")
        runtime_env = {"env_vars": _worker_env(blas_threads, env_vars)}
        addresses = [f"ray-worker-{i}" for i in range(num_workers)]
        # the collective group's thread takes the other workers' messages while fn runs
        actor = ray.remote(concurrency_groups={_COLLECTIVE_GROUP: 1})(_Worker).options(
            num_cpus=cpus_per_worker, max_restarts=0, runtime_env=runtime_env)
        self._workers = [actor.remote(i, num_workers, addresses, cpus_per_worker)
                         for i in range(num_workers)]
        self._broken = None
        self._runs = 0
        try:
            ready = ray.get([w.ready.remote() for w in self._workers], timeout=start_timeout)
            self.pids = [pid for pid, _ in ready]
            self.transport = self._connect([node for _, node in ready], transport,
                                           start_timeout)
        except (_ray_errors.GetTimeoutError, _ray_errors.RayActorError) as e:
            self.shutdown()
            raise errors.UnavailableError(None, None, f"{num_workers} Ray workers did not start "
                                          f"within {start_timeout} seconds: {e}") from None
        except BaseException:
            self.shutdown()
            raise

    def _connect(self, node_ids, transport, timeout):
        """Give the workers their channels when ``transport`` allows; the transport used."""
        if transport == "object_store" or self._n == 1:
            return "object_store"
        if not ray_channels.available(node_ids):
            if transport == "channels":
                raise ValueError("`transport`='channels' needs every worker on one machine and "
                                 "a Ray with shared-memory channels (ray.experimental.channel)")
            return "object_store"
        try:
            channels = ray.get([w.open_channel.remote(self._workers, node_ids)
                                for w in self._workers], timeout=timeout)
            ray.get([w.connect.remote(channels) for w in self._workers], timeout=timeout)
        except _ray_errors.RayTaskError as e:  # a Ray whose channels differ from 2.60's
            ray.get([w.disconnect.remote() for w in self._workers], timeout=timeout)
            if transport == "channels":
                raise ValueError("`transport`='channels': this Ray's shared-memory channels "
                                 f"failed: {e.as_instanceof_cause()}") from None
            return "object_store"
        return "channels"

    @property
    def num_workers(self):
        return self._n

    @property
    def broken(self):
        """Why these workers cannot run again (a worker died, they were shut down), or None."""
        return self._broken

    def run(self, fn, args=(), kwargs=None, *, timeout=None, all_workers=False):
        """``fn(*args, **kwargs)`` on every worker; the chief's result (``all_workers``: the
        list of all the workers' results). A worker's exception is raised here once every
        worker has stopped; a dead worker gives ``tf.errors.UnavailableError``; ``timeout``
        seconds passed, ``tf.errors.DeadlineExceededError``."""
        if self._broken is not None:
            raise errors.UnavailableError(None, None, f"{self._broken}; these workers cannot "
                                          "run again: start new ones")
        self._runs += 1
        refs = {w.run.remote(fn, tuple(args), dict(kwargs or {}), self._runs, self._workers): i
                for i, w in enumerate(self._workers)}
        results = [None] * self._n
        failure = None
        deadline = None if timeout is None else time.monotonic() + timeout
        while refs:
            wait = 1.0 if deadline is None else max(0.0, min(1.0, deadline - time.monotonic()))
            ready, _ = ray.wait(list(refs), num_returns=1, timeout=wait)
            if not ready:
                if deadline is not None and time.monotonic() >= deadline and failure is None:
                    failure = errors.DeadlineExceededError(
                        None, None, f"The training function did not finish on {len(refs)} of "
                        f"{self._n} workers within {timeout} seconds")
                    self._abort(str(failure.message))
                    self._kill_all("timed out")
                continue
            for ref in ready:
                rank = refs.pop(ref)
                try:
                    results[rank] = ray.get(ref)
                except _ray_errors.RayActorError as e:
                    if failure is None:
                        reason = str(e).strip().splitlines()[0][:300]
                        failure = errors.UnavailableError(
                            None, None, f"Worker {rank} of {self._n} (task worker:{rank}) died "
                            f"while running the training function: {reason}")
                        self._abort(f"worker {rank} died")
                    self._broken = f"worker {rank} died"
                except _ray_errors.RayTaskError as e:
                    if failure is None:
                        failure = e.as_instanceof_cause()
                        self._abort(f"worker {rank} raised {type(e.cause).__name__}: "
                                    f"{str(e.cause).splitlines()[0][:300] if str(e.cause) else ''}")
        if failure is not None:
            raise failure
        return results if all_workers else results[0]

    def _abort(self, message):
        for w in self._workers:  # a dead one's message is lost: nobody waits for it
            try:
                w.abort.options(concurrency_group=_COLLECTIVE_GROUP).remote(self._runs, message)
            except _ray_errors.RayError:
                pass

    def _kill_all(self, why):
        self._broken = f"the workers were stopped: {why}"
        for w in self._workers:
            ray.kill(w)

    def shutdown(self):
        """Stop the workers (Ray itself keeps running)."""
        for handle in self._workers:
            try:
                ray.kill(handle)
            except _ray_errors.RayError:
                pass
        self._workers = []
        self._broken = self._broken or "the workers were shut down"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()


def run_on_ray(fn, num_workers=2, *, args=(), kwargs=None, timeout=None, all_workers=False,
               **worker_options):
    """``fn(*args, **kwargs)`` on ``num_workers`` Ray workers of one
    ``MultiWorkerMirroredStrategy`` cluster; the chief's result (``all_workers``: every
    worker's). ``worker_options`` are ``RayWorkers``' (address, num_cpus, blas_threads...)."""
    with RayWorkers(num_workers, **worker_options) as workers:
        return workers.run(fn, args, kwargs, timeout=timeout, all_workers=all_workers)
