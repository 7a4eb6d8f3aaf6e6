"""Running a function once per replica (``strategy.run`` of a multi-replica strategy): one
thread per replica, with ``merge_call`` as the meeting point where the replicas' arguments are
grouped and the merge function runs once, in the calling thread, in cross-replica context.

The replicas take turns in replica order between meeting points, as TF's replica threads do,
eagerly and while traced: Python state a replica changes (a layer's ``built`` flag, an
optimizer's slots made on first use) is what the next replica sees, as in TF. While a function
is traced the graph records which replica made each op (``graph._replica_of``), and the
executor runs each replica's ops between meeting points as a part of their own on a thread
(``executor/replica_groups.py``): that is where replicas run concurrently. A generator shared by
the replicas (made outside the strategy) is drawn from in replica order, so each
replica gets TF's numbers."""

import threading
import weakref

from .. import context
from .._logging import logger
from ..summary import writer as _summary
from ..tracing import function as _function
from ..tracing import trace as _trace
from ..tracing.function import PolymorphicFunction
from .strategy import _CrossReplicaScope, _mode, _ReplicaScope
from .values import Mirrored, regroup, select_replica


class ReplicaScope(_ReplicaScope):
    """The scope entry of a replica thread: its strategy, id and run."""

    def __init__(self, strategy, replica_id, run):
        super().__init__(strategy)
        self.replica_id = replica_id
        self.run = run


class UpdateScope(_CrossReplicaScope):
    """Cross-replica context while ``extended.update`` writes replica ``replica_id``'s copy:
    reads of a mirrored variable there give that copy, as in TF's update context."""

    def __init__(self, strategy, replica_id):
        super().__init__(strategy)
        self.replica_id = replica_id


_NESTED_MERGE_CALL = (
    "`merge_call` called while defining a new graph or a tf.function. This can often happen if "
    "the function `fn` passed to `strategy.run()` contains a nested `@tf.function`, and the "
    "nested `@tf.function` contains a synchronization point, such as aggregating gradients "
    "(e.g, optimizer.apply_gradients), or if the function `fn` uses a control flow statement "
    "which contains a synchronization point in the body. Such behaviors are not yet supported. "
    "Instead, please avoid nested `tf.function`s or control flow statements that may "
    "potentially cross a synchronization boundary, for example, wrap the `fn` passed to "
    "`strategy.run` or the entire `strategy.run` inside a `tf.function` or move the control "
    "flow out of `fn`. If you are subclassing a `tf.keras.Model`, please avoid decorating "
    "overridden methods `test_step` and `train_step` in `tf.function`.")


class _Stop(Exception):
    """Raised in the replicas still waiting when another replica failed."""


class _Replica(threading.Thread):
    def __init__(self, run, index, fn, args, kwargs):
        super().__init__(name=f"replica_{index}", daemon=True)
        self.run_state, self.index = run, index
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.result = self.error = None
        self.done = False
        self.merge = None  # (merge_fn, args, kwargs) while waiting at a merge_call
        self.merge_result = None
        self.go = threading.Event()
        self.paused = threading.Event()

    def run(self):
        run = self.run_state
        context.state.graph = run.graph
        _summary.state.writer, _summary.state.step, _summary.state.is_recording = run.summary
        _mode.scopes[:] = run.scopes + [ReplicaScope(run.strategy, self.index, run)]
        self.go.wait()
        self.go.clear()
        try:
            self.result = self.fn(*self.args, **self.kwargs)
        except _Stop:
            pass
        except BaseException as e:  # noqa: B902 - handed to the caller's thread
            self.error = e
        finally:
            self.done = True
            self.paused.set()

    def merge_call(self, merge_fn, args, kwargs):
        """Wait here until every replica has arrived; the merge runs in the caller's thread.
        From a graph other than the run's (a nested tf.function, a control-flow body) the
        merge function could not use the replicas' tensors: TF's RuntimeError."""
        if context.state.graph is not self.run_state.graph:
            raise RuntimeError(_NESTED_MERGE_CALL)
        self.merge = (merge_fn, args, kwargs)
        self.paused.set()
        self.go.wait()
        self.go.clear()
        if self.run_state.stopped:
            raise _Stop()
        result, self.merge_result, self.merge = self.merge_result, None, None
        return result


class _Run:
    """One ``strategy.run``: the replica threads and what they share."""

    def __init__(self, strategy):
        self.strategy = strategy
        self.graph = context.state.graph
        self.summary = (_summary.state.writer, _summary.state.step, _summary.state.is_recording)
        self.scopes = [s for s in _mode.scopes if not isinstance(s, _ReplicaScope)]
        self.stopped = False
        self.turns = {}  # generator id -> [replica whose turn it is]
        self.created = []  # the variables replica 0 made, in order (the others share them)
        self.creations = [0] * strategy.num_replicas_in_sync
        self.turn_lock = threading.Condition()
        self.replicas = []

    def step(self):
        """Let each replica in turn run to its next meeting point (or its end)."""
        graph = self.graph
        ops = [] if graph is None else graph._ops
        replica_of = {} if graph is None else graph.__dict__.setdefault("_replica_of", {})
        for r in self.replicas:
            first = len(ops)
            r.go.set()
            r.paused.wait()
            r.paused.clear()
            # the ops this replica's turn added are its own: the executor may run them
            # beside the other replicas' (executor/replica_groups.py)
            replica_of.update((op.name, r.index) for op in ops[first:])

    def shared_variable(self, index, make):
        """Replica ``index``'s next new variable: replica 0 makes it (``make()``), the others
        get the one replica 0 made at the same point (TF's shared variable creator)."""
        with self.turn_lock:
            k = self.creations[index]
            self.creations[index] += 1
            if index == 0:
                self.created.append(make())
                self.turn_lock.notify_all()
                return self.created[k]
            while len(self.created) <= k:
                first = self.replicas[0]
                if first.done or first.merge or self.stopped:
                    raise RuntimeError("Replica 0 did not create the variable replica "
                                       f"{index} creates: replicas must create the same "
                                       "variables in the same order.")
                self.turn_lock.wait(0.05)
            return self.created[k]

    def shared_turn(self, key, index):
        """A context in which replica ``index`` draws from the shared generator ``key``: the
        replicas draw in replica order, round after round (TF's sequential replicas)."""
        return _Turn(self, key, index)


class _Turn:
    def __init__(self, run, key, index):
        self.run, self.key, self.index = run, key, index

    def __enter__(self):
        run = self.run
        with run.turn_lock:
            turn = run.turns.setdefault(self.key, [0])
            while turn[0] != self.index and not run.stopped and not self._skippable(turn):
                run.turn_lock.wait(0.05)

    def _skippable(self, turn):
        """Replicas before this one that have finished give up their turn."""
        replicas = self.run.replicas
        while turn[0] != self.index and (replicas[turn[0]].done or replicas[turn[0]].merge):
            turn[0] = (turn[0] + 1) % len(replicas)
        return turn[0] == self.index

    def __exit__(self, *exc):
        run = self.run
        with run.turn_lock:
            turn = run.turns[self.key]
            turn[0] = (self.index + 1) % len(run.replicas)
            run.turn_lock.notify_all()


class _InReplica(PolymorphicFunction):
    """A tf.function as one replica sees it: traces of its own (TF keys traces by the device,
    so each replica's trace reads and writes that replica's copies of mirrored variables);
    the Python function and tracing count of the function it stands for."""

    _tracing_count = property(lambda self: self._main._tracing_count,
                              lambda self, n: setattr(self._main, "_tracing_count", n))

    def __repr__(self):
        return repr(self._main)


_hook = {"runs": 0, "previous": None, "lock": threading.Lock()}


def _stand_in(pf):
    """The tf.function a replica thread calls instead of ``pf`` (its replica's traces)."""
    run, index = current_run()
    if run is None:
        previous = _hook["previous"]
        return None if previous is None else previous(pf)
    if isinstance(pf, _InReplica) or not pf._eager_python:
        return None
    key = (id(run.strategy), index)
    with pf._lock:
        table = pf.__dict__.setdefault("_tt_replicas", {})
        entry = table.get(key)
        if entry is None or entry[0]() is not run.strategy:
            shadow = pf._shadow(_InReplica, ("_tt_replicas", "_save_contexts"))
            shadow._lock = threading.RLock()  # replicas trace side by side
            entry = table[key] = (weakref.ref(run.strategy), shadow)
    return entry[1]


def _install_hook():
    with _hook["lock"]:
        _hook["runs"] += 1
        if _hook["runs"] == 1:
            _hook["previous"] = _function.context_function[0]
            _function.context_function[0] = _stand_in


def _remove_hook():
    with _hook["lock"]:
        _hook["runs"] -= 1
        if _hook["runs"] == 0:
            if _function.context_function[0] is _stand_in:
                _function.context_function[0] = _hook["previous"]
            _hook["previous"] = None


_warned = [0]


def call_for_each_replica(strategy, fn, args, kwargs):
    """``fn`` once per replica of ``strategy`` with the replica's part of the arguments; the
    results regrouped (PerReplica where they differ)."""
    tracing = context.state.graph is not None
    if not tracing and _warned[0] < 5:
        _warned[0] += 1
        logger.warning(f"Using {type(strategy).__name__} eagerly has significant overhead "
                       "currently. We will be working on improving this in the future, but for "
                       "now please wrap `call_for_each_replica` or `experimental_run` or `run` "
                       "inside a tf.function to get the best performance.")
    if tracing and _trace.converter is not None and _trace.converts():
        fn = _trace.converter(fn)
    run = _Run(strategy)
    n = strategy.num_replicas_in_sync
    run.replicas = [_Replica(run, i, fn, select_replica(i, args), select_replica(i, kwargs))
                    for i in range(n)]
    _install_hook()
    for r in run.replicas:
        r.start()
    try:
        while True:
            run.step()
            failed = [r.error for r in run.replicas if r.error is not None]
            if failed:
                raise failed[0]
            done = [r.done for r in run.replicas]
            if all(done):
                break
            if any(done):
                raise RuntimeError("Some replicas made a different number of "
                                   "replica_context().merge_call() calls.")
            _merge(run)
    finally:
        run.stopped = True
        for r in run.replicas:
            r.go.set()
        for r in run.replicas:
            r.join()
        _remove_hook()
    return regroup(tuple(r.result for r in run.replicas))


def _merge(run):
    """Run the replicas' merge function once on their grouped arguments; each replica gets
    its part of the result."""
    replicas = run.replicas
    merge_fn = replicas[0].merge[0]
    args = regroup(tuple(r.merge[1] for r in replicas))
    kwargs = regroup(tuple(r.merge[2] for r in replicas))
    _mode.scopes.append(_CrossReplicaScope(run.strategy))
    try:
        result = merge_fn(run.strategy, *args, **kwargs)
    finally:
        _mode.scopes.pop()
    for r in replicas:
        r.merge_result = select_replica(r.index, result)


def mirrored(strategy, values):
    """A Mirrored of ``values`` that resolves to the running replica's value."""
    m = Mirrored(values)
    m._strategy = strategy
    return m


def current_run():
    """The run and replica id of the calling replica thread, else (None, None)."""
    for entry in reversed(_mode.scopes):
        if isinstance(entry, ReplicaScope):
            return entry.run, entry.replica_id
        return None, None
    return None, None
