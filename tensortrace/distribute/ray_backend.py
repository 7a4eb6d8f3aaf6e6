"""Training on Ray: N actors, each a worker of one ``MultiWorkerMirroredStrategy`` cluster, run
the same training function; their collectives meet in a coordinator actor and their tensors
travel through Ray's object store.

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

import asyncio
import importlib
import itertools
import os
import sys
import time

import numpy as np

from .. import errors
from .multi_worker import join_cluster, leave_cluster

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


# --- the coordinator: where the workers' k-th collectives meet ---------------------------------
class _Entry:
    def __init__(self, n):
        self.metas, self.payloads = [None] * n, [None] * n
        self.arrived = self.taken = 0
        self.done = asyncio.Event()


class _Coordinator:
    """Each worker hands in its k-th collective (what it is, and its value or a reference to
    it in the object store); when all have, each gets every worker's record back."""

    def __init__(self, num_workers):
        self._n = num_workers
        self._entries = {}
        self._error = None
        self._run = 0  # which run of the workers this is (a late abort of an earlier one: ignored)

    async def exchange(self, seq, rank, meta, payload):
        if self._error is not None:
            return ("error", self._error)
        entry = self._entries.get(seq)
        if entry is None:
            entry = self._entries[seq] = _Entry(self._n)
        entry.metas[rank], entry.payloads[rank] = meta, payload
        entry.arrived += 1
        if entry.arrived == self._n:
            entry.done.set()
        else:
            await entry.done.wait()
        if self._error is not None:
            return ("error", self._error)
        entry.taken += 1
        if entry.taken == self._n:
            del self._entries[seq]
        return ("ok", entry.metas, entry.payloads)

    def abort(self, run, message):
        """Fail every waiting and later collective of run ``run`` with ``message``."""
        if run != self._run:
            return
        self._error = message
        for entry in self._entries.values():
            entry.done.set()

    def reset(self, run):
        self._run = run
        self._error = None
        self._entries.clear()


# --- the communicator a worker's strategy uses -------------------------------------------------
_INLINE_BYTES = 64 * 1024  # smaller arrays travel inside the coordinator's messages


class _RayCommunicator:
    """Collectives of one worker through the coordinator; each worker numbers its collectives,
    and the k-th ones of all workers meet (they run the same program)."""

    num_workers = property(lambda self: self._n)

    def __init__(self, coordinator, rank, num_workers):
        self._coordinator, self._rank, self._n = coordinator, rank, num_workers
        self._seq = itertools.count()

    def _exchange(self, kind, array, timeout):
        meta = (kind,) if kind == "broadcast" else (
            kind, array.dtype.str, array.shape[1:] if kind == "all_gather" else array.shape)
        if array is None or array.nbytes <= _INLINE_BYTES:
            payload = array
        else:
            payload = [ray.put(array)]  # in a list: the coordinator passes the reference on
        seq = next(self._seq)
        ref = self._coordinator.exchange.remote(seq, self._rank, meta, payload)
        try:
            reply = ray.get(ref, timeout=timeout)
        except _ray_errors.GetTimeoutError:
            ray.cancel(ref)
            raise errors.DeadlineExceededError(
                None, None, f"Collective ops timed out after {timeout} seconds waiting for the "
                f"other workers ({kind} on worker {self._rank})") from None
        except _ray_errors.RayError as e:
            raise errors.UnavailableError(None, None, "Collective ops is aborted by: the "
                                          f"coordinator is gone ({type(e).__name__})") from None
        if reply[0] == "error":
            raise errors.UnavailableError(None, None,
                                          f"Collective ops is aborted by: {reply[1]}")
        metas, payloads = reply[1], reply[2]
        if any(m != metas[0] for m in metas):
            raise errors.InternalError(None, None, "The workers' collectives do not match: "
                                       f"collective #{seq} is {metas} on workers 0, 1, ...; "
                                       "the workers must run the same program")
        return payloads

    def _arrays(self, payloads, own):
        """The workers' arrays, in worker order (this worker's own without a copy)."""
        refs = [(i, p[0]) for i, p in enumerate(payloads)
                if i != self._rank and isinstance(p, list)]
        try:
            fetched = dict(zip([i for i, _ in refs], ray.get([r for _, r in refs])))
        except _ray_errors.RayError as e:
            raise errors.UnavailableError(None, None, "Collective ops is aborted by: a worker's "
                                          f"tensor is lost ({type(e).__name__})") from None
        return [own if i == self._rank else fetched.get(i, p) for i, p in enumerate(payloads)]

    def all_reduce(self, array, timeout=None):
        parts = self._arrays(self._exchange("all_reduce", array, timeout), array)
        total = np.add(parts[0], parts[1]) if len(parts) > 1 else np.array(parts[0])
        for part in parts[2:]:
            np.add(total, part, out=total)
        return total

    def all_gather(self, array, timeout=None):
        return self._arrays(self._exchange("all_gather", array, timeout), array)

    def broadcast(self, value, root=0, timeout=None):
        array = np.asarray(value) if self._rank == root else None
        payloads = self._exchange("broadcast", array, timeout)
        return np.array(self._arrays(payloads, array)[root])


# --- the worker actors -------------------------------------------------------------------------
class _Worker:
    """One worker process: joins the cluster, runs the training function."""

    def __init__(self, rank, num_workers, coordinator, addresses):
        _require_ray("a Ray worker")  # this process's module globals
        self._rank, self._n = rank, num_workers
        self._coordinator, self._addresses = coordinator, addresses

    def ready(self):
        return os.getpid()

    def run(self, fn, args, kwargs):
        communicator = _RayCommunicator(self._coordinator, self._rank, self._n)
        join_cluster(self._n, self._rank, communicator, self._addresses)
        try:
            return fn(*args, **kwargs)
        finally:
            leave_cluster()


def _init_ray(address, num_cpus, needed):
    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address)
    else:
        ray.init(num_cpus=num_cpus if num_cpus is not None else max(os.cpu_count() or 1, needed),
                 include_dashboard=False)


def _worker_env(blas_threads, env_vars):
    """The actors' environment: this tensortrace first on the path, BLAS pinned to
    ``blas_threads`` threads (NumPy reads it when it loads)."""
    paths = [_ROOT] + [p for p in (os.getcwd(), sys.path[0]) if p and os.path.isdir(p)]
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    env = {"PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}
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
        cpus_per_worker: the CPUs Ray reserves for each worker.
        blas_threads: the BLAS threads of each worker (None: the library's default).
        env_vars: more environment variables for the workers.
        start_timeout: seconds to wait for the workers to start.
    """

    def __init__(self, num_workers=2, *, address=None, num_cpus=None, cpus_per_worker=1,
                 blas_threads=1, env_vars=None, start_timeout=120):
        _require_ray("tensortrace.distribute.RayWorkers")
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or \
                num_workers < 1:
            raise ValueError(f"`num_workers` must be a positive integer, got {num_workers!r}")
        self._n = num_workers
        _init_ray(address, num_cpus, num_workers * cpus_per_worker)
        available = ray.cluster_resources().get("CPU", 0)
        if available < num_workers * cpus_per_worker:
            raise ValueError(f"`num_workers`={num_workers} workers of {cpus_per_worker} CPUs "
                             f"need {num_workers * cpus_per_worker} CPUs; the Ray cluster has "
                             f"{available:g}")
        runtime_env = {"env_vars": _worker_env(blas_threads, env_vars)}
        self._coordinator = ray.remote(num_cpus=0)(_Coordinator).options(
            max_concurrency=1000, runtime_env=runtime_env).remote(num_workers)
        addresses = [f"ray-worker-{i}" for i in range(num_workers)]
        actor = ray.remote(_Worker).options(num_cpus=cpus_per_worker, max_restarts=0,
                                            runtime_env=runtime_env)
        self._workers = [actor.remote(i, num_workers, self._coordinator, addresses)
                         for i in range(num_workers)]
        self._broken = None
        self._runs = 0
        try:
            self.pids = ray.get([w.ready.remote() for w in self._workers],
                                timeout=start_timeout)
        except (_ray_errors.GetTimeoutError, _ray_errors.RayActorError) as e:
            self.shutdown()
            raise errors.UnavailableError(None, None, f"{num_workers} Ray workers did not start "
                                          f"within {start_timeout} seconds: {e}") from None

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
        ray.get(self._coordinator.reset.remote(self._runs))
        refs = {w.run.remote(fn, tuple(args), dict(kwargs or {})): i
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
        try:
            self._coordinator.abort.remote(self._runs, message)
        except _ray_errors.RayError:
            pass

    def _kill_all(self, why):
        self._broken = f"the workers were stopped: {why}"
        for w in self._workers:
            ray.kill(w)

    def shutdown(self):
        """Stop the workers and their coordinator (Ray itself keeps running)."""
        for handle in self._workers + [self._coordinator]:
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
