"""``tf.distribute.MultiWorkerMirroredStrategy``: synchronous training over worker processes
that run the same program, one replica per worker (its CPU), each variable mirrored on every
worker.

The workers meet in collective ops (TF's ``CollectiveReduceV2`` and ``CollectiveGatherV2``,
eagerly and in traced functions alike), which hand their tensors to the communicator of the
cluster this process belongs to. A launcher (``ray_backend``: Ray actors) makes each worker
process join its cluster (``join_cluster``) before the training function runs; a process that
joined none is a cluster of one worker, as TF's strategy without ``TF_CONFIG``."""

import enum
import itertools
import json
import os

import numpy as np

from .. import context, dtypes, errors, nest
from .._export import tf_export
from .._logging import logger
from ..convert import convert_to_tensor
from ..graph import tf_composites
from ..ops.array.reshaping import transpose
from ..ops.array.shapes import shape as _shape
from ..ops.math.casting import cast
from ..ops.reduce import reduce_sum
from ..ops.sparse.indexed_slices import IndexedSlices
from ..registry import NON_DIFFERENTIABLE, define_op, never_static
from ..tensor import TensorSpec
from ..tracing import trace as _trace
from ..variables import ResourceVariable, Variable, VariableSynchronization
from . import mirrored as _mirrored
from . import multi_worker_input as _input
from .strategy import (ReduceOp, ReplicaContext, Strategy, ValueContext,
                       _differentiable_all_gather, _differentiable_all_reduce, _mode, _reduce_op,
                       _ReplicaScope, get_strategy)
from .values import Mirrored, MirroredVariable, SyncOnReadVariable, select_replica

_LOCAL_DEVICE = "/device:CPU:0"
_SINGLE_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


# --- communication options ---------------------------------------------------------------------
@tf_export("distribute.experimental.CommunicationImplementation")
class CommunicationImplementation(enum.Enum):
    """Which collective implementation the workers use (all are Ray's object store here)."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


@tf_export("distribute.experimental.CommunicationOptions")
class CommunicationOptions:
    """How collectives run: ``bytes_per_pack`` (0: one pack per dtype), ``timeout_seconds``
    (None: wait as long as the workers live), ``implementation``."""

    def __init__(self, bytes_per_pack=0, timeout_seconds=None,
                 implementation=CommunicationImplementation.AUTO):
        if bytes_per_pack < 0:
            raise ValueError(f"Argument `bytes_per_pack` must be >=0, Received "
                             f"{bytes_per_pack}.")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation

    def merge(self, options):
        """These options with the ones ``options`` sets (not left at their defaults)."""
        if options is None:
            return self
        merged = CommunicationOptions(self.bytes_per_pack, self.timeout_seconds,
                                      self.implementation)
        if options.bytes_per_pack != 0:
            merged.bytes_per_pack = options.bytes_per_pack
        if options.timeout_seconds is not None:
            merged.timeout_seconds = options.timeout_seconds
        if options.implementation is not CommunicationImplementation.AUTO:
            merged.implementation = options.implementation
        return merged



# --- the cluster this process is a worker of ---------------------------------------------------
class _LocalCommunicator:
    """The communicator of a cluster of one worker: every collective is its own value."""

    num_workers = 1

    def all_reduce(self, array, timeout=None):
        return array

    def batch_all_reduce(self, arrays, timeout=None):
        return list(arrays)

    def all_gather(self, array, timeout=None):
        return [array]

    def broadcast(self, value, root=0, timeout=None):
        return value


class _Cluster:
    """Which worker of how many this process is, and how it reaches the others.

    ``communicator`` has ``all_reduce(array, timeout)`` (the workers' arrays added in worker
    order), ``batch_all_reduce(arrays, timeout)`` (the same for a list of arrays),
    ``all_gather(array, timeout)`` (the workers' arrays, in worker order) and
    ``broadcast(value, root, timeout)``; each call is matched with the other workers' calls
    of the same rank in their sequences of collectives (they run the same program)."""

    def __init__(self, num_workers, task_id, communicator, addresses=None):
        self.num_workers = num_workers
        self.task_id = task_id
        self.communicator = communicator
        self.addresses = list(addresses or [])


_joined = []  # the cluster this process joined (at most one)


def join_cluster(num_workers, task_id, communicator, addresses=None):
    """Make this process worker ``task_id`` of ``num_workers`` (a launcher calls this in each
    worker before the training function): strategies made afterwards span the cluster.
    ``addresses`` name the workers in the ``TF_CONFIG`` this sets."""
    addresses = list(addresses or [f"worker-{i}" for i in range(num_workers)])
    _joined[:] = [_Cluster(num_workers, task_id, communicator, addresses)]
    os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": addresses},
                                          "task": {"type": "worker", "index": task_id}})


def leave_cluster():
    """Undo ``join_cluster`` (the worker's training function returned)."""
    _joined[:] = []
    os.environ.pop("TF_CONFIG", None)


def _tf_config():
    text = os.environ.get("TF_CONFIG")
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        raise ValueError(f"TF_CONFIG is not valid JSON: {text!r}") from None


@tf_export("train.ClusterSpec")
class ClusterSpec:
    """The jobs of a cluster and their tasks' addresses (``tf.train.ClusterSpec``)."""

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        self._jobs = {}
        for job, tasks in dict(cluster or {}).items():
            if isinstance(tasks, dict):
                self._jobs[job] = {int(i): a for i, a in tasks.items()}
            else:
                self._jobs[job] = dict(enumerate(tasks))

    @property
    def jobs(self):
        return list(self._jobs)

    def num_tasks(self, job_name):
        return len(self._jobs[job_name])

    def task_indices(self, job_name):
        return sorted(self._jobs[job_name])

    def task_address(self, job_name, task_index):
        return self._jobs[job_name][task_index]

    def job_tasks(self, job_name):
        tasks = self._jobs[job_name]
        return [tasks.get(i) for i in range(max(tasks) + 1)] if tasks else []

    def as_dict(self):
        return {job: [tasks[i] for i in sorted(tasks)] for job, tasks in self._jobs.items()}

    def __bool__(self):
        return bool(self._jobs)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return f"ClusterSpec({self.as_dict()!r})"


@tf_export("distribute.cluster_resolver.TFConfigClusterResolver")
class TFConfigClusterResolver:
    """The cluster, task type and task id ``TF_CONFIG`` describes (the launcher sets it in each
    worker)."""

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        config = _tf_config()
        task = config.get("task", {})
        self._task_type = task_type if task_type is not None else task.get("type")
        self._task_id = task_id if task_id is not None else task.get("index")
        self._rpc_layer = rpc_layer if rpc_layer is not None else config.get("rpc_layer")
        self._environment = environment if environment is not None else \
            config.get("environment")
        self._cluster = config.get("cluster", {})

    task_type = property(lambda self: self._task_type,
                         lambda self, v: setattr(self, "_task_type", v))
    task_id = property(lambda self: self._task_id, lambda self, v: setattr(self, "_task_id", v))
    rpc_layer = property(lambda self: self._rpc_layer,
                         lambda self, v: setattr(self, "_rpc_layer", v))
    environment = property(lambda self: self._environment)

    def cluster_spec(self):
        return ClusterSpec(self._cluster)

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return ""

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return {}


def _workers_named(resolver):
    """How many workers (chief included) the resolver's cluster has."""
    spec = resolver.cluster_spec().as_dict()
    return len(spec.get("chief", [])) + len(spec.get("worker", []))


# --- the collective ops ------------------------------------------------------------------------
_warned = [0]  # eager runs warned about (TF warns the first times)
_communicators = {}  # group key -> the communicator of the strategy that made the group
_group_keys = itertools.count(1)


def _communicator(group_key, op):
    comm = _communicators.get(int(group_key))
    if comm is None:
        raise errors.InternalError(None, None, f"Collective group {int(group_key)} is not "
                                   f"known in this process [Op:{op}]")
    return comm


def _timeout(seconds):
    return None if not seconds else float(seconds)


@define_op("CollectiveReduceV2", stateful=True, static=never_static, grad=NON_DIFFERENTIABLE)
class CollectiveReduceV2:
    """The workers' ``input`` tensors added (``final_op`` Div: then divided by their count)."""

    def infer(input, group_size, group_key, instance_key, merge_op="Add", final_op="Id",
              communication_hint="auto", timeout_seconds=0.0):
        return TensorSpec(input.shape, input.dtype)

    def kernel(input, group_size, group_key, instance_key, merge_op="Add", final_op="Id",
               communication_hint="auto", timeout_seconds=0.0):
        total = _communicator(group_key, "CollectiveReduceV2").all_reduce(
            np.asarray(input), _timeout(timeout_seconds))
        return _final(total, final_op, group_size, np.asarray(input).dtype)


def _final(total, final_op, group_size, dtype):
    if final_op == "Div":
        n = int(group_size)
        total = total / n if total.dtype.kind in "fc" else total // n
    return np.asarray(total, dtype=dtype)


@define_op("CollectiveBatchReduce", stateful=True, static=never_static,
           grad=NON_DIFFERENTIABLE)
class CollectiveBatchReduce:
    """tensortrace's op for a pack of same-dtype tensors: each added over the workers, as TF's
    ConcatV2 -> CollectiveReduceV2 -> SplitV of the pack (a GraphDef holds those), without the
    copies into and out of one packed tensor (the communicator takes the list as it is)."""

    def infer(*inputs, group_size, group_key, instance_key, merge_op="Add", final_op="Id",
              communication_hint="auto", timeout_seconds=0.0):
        return tuple(TensorSpec(t.shape, t.dtype) for t in inputs)

    def kernel(*inputs, group_size, group_key, instance_key, merge_op="Add", final_op="Id",
               communication_hint="auto", timeout_seconds=0.0):
        arrays = [np.asarray(a) for a in inputs]
        totals = _communicator(group_key, "CollectiveBatchReduce").batch_all_reduce(
            arrays, _timeout(timeout_seconds))
        return tuple(_final(t, final_op, group_size, a.dtype) for t, a in zip(totals, arrays))


def _export_batch_reduce(e, op, *inputs, group_size, group_key, instance_key, merge_op="Add",
                         final_op="Id", communication_hint="auto", timeout_seconds=0.0):
    """CollectiveBatchReduce as TF writes a pack's reduction: Reshape each to a vector,
    ConcatV2, CollectiveReduceV2, SplitV, Reshape each back."""
    int32 = dtypes.int32
    flat = [e.one("Reshape", e.ref(t), e.const(np.int32([-1]), int32, f"flat_{i}"))
            for i, t in enumerate(inputs)]
    flat = [(ref, t.dtype) for (ref, _), t in zip(flat, inputs)]
    axis = e.const(np.int32(0), int32, "axis")
    packed = flat[0] if len(flat) == 1 else e.one("ConcatV2", *flat, axis)
    keys = [e.const(np.int32(v), int32, name) for v, name in (
        (group_size, "group_size"), (group_key, "group_key"), (instance_key, "instance_key"))]
    summed = e.one("CollectiveReduceV2", packed, *keys, merge_op=merge_op, final_op=final_op,
                   communication_hint=communication_hint,
                   timeout_seconds=float(timeout_seconds))
    summed = (summed[0], packed[1])
    if len(flat) == 1:
        parts = [summed]
    else:
        sizes = e.const(np.int64([_size(t) for t in inputs]), dtypes.int64, "sizes")
        first = e.node("SplitV", [summed, sizes, axis], num_split=len(flat))[0][0]
        # its one list output: "name" / "name:output:0" in a function; the others follow
        base = first.rsplit(":", 1)[0] if ":" in first else first
        parts = [(first if k == 0 else f"{base}:{k}", packed[1]) for k in range(len(flat))]
    return [e.one("Reshape", part, e.const(np.int32(t.shape.as_list()), int32, f"shape_{i}"))[0]
            for i, (part, t) in enumerate(zip(parts, inputs))]


tf_composites.register("CollectiveBatchReduce", _export_batch_reduce)


@define_op("CollectiveGatherV2", stateful=True, static=never_static,
           grad=NON_DIFFERENTIABLE)
class CollectiveGatherV2:
    """The workers' ``input`` tensors concatenated along their first axis, in worker order."""

    def infer(input, group_size, group_key, instance_key, communication_hint="auto",
              timeout_seconds=0.0):
        dims = input.shape.as_list() if input.shape.rank is not None else None
        return TensorSpec(None if dims is None else [None] + dims[1:], input.dtype)

    def kernel(input, group_size, group_key, instance_key, communication_hint="auto",
               timeout_seconds=0.0):
        parts = _communicator(group_key, "CollectiveGatherV2").all_gather(
            np.asarray(input), _timeout(timeout_seconds))
        return np.concatenate([np.asarray(p) for p in parts], axis=0)


# --- the strategy ------------------------------------------------------------------------------
class _WorkerReplicaScope(_ReplicaScope):
    """The scope entry of ``strategy.run`` on a worker: its one local replica (index 0 of the
    worker's copies), whose context is the worker's replica context."""

    replica_id = 0

    def replica_context(self):
        return _WorkerReplicaContext(self.strategy)


class _WorkerReplicaContext(ReplicaContext):
    """The replica context of a worker's replica: its id is the worker's task id, and its
    reductions are collectives over the workers."""

    def __init__(self, strategy):
        super().__init__(strategy, strategy._cluster.task_id)

    @property
    def replica_id_in_sync_group(self):
        return convert_to_tensor(self._replica_id, dtypes.int32)  # TF's: an int32 tensor

    @property
    def devices(self):
        return tuple(self._strategy.extended.worker_devices)

    def all_reduce(self, reduce_op, value, options=None):
        """``value`` (a structure of tensors) combined over the workers."""
        reduce_op = _reduce_op(reduce_op)

        def batch_reduce(*values):
            return self._strategy._batch_all_reduce(reduce_op, list(values), options)

        return _differentiable_all_reduce(self, reduce_op, value, batch_reduce)

    def all_gather(self, value, axis, options=None):
        """The workers' values concatenated along ``axis``."""
        def batch_gather(*values):
            return [self._strategy._gather(v, axis, options) for v in values]

        return _differentiable_all_gather(self, value, axis, batch_gather)


class _MultiWorkerExtended(_mirrored.MirroredExtended):
    """``strategy.extended`` of a MultiWorkerMirroredStrategy: a MirroredStrategy's with one
    local replica, whose updates, reductions and gathers are collectives over the workers
    (TF's CollectiveAllReduceExtended extends MirroredExtended the same way)."""

    @property
    def should_checkpoint(self):
        return self._container_strategy()._is_chief

    @property
    def should_save_summary(self):
        return self._container_strategy()._is_chief

    @property
    def experimental_between_graph(self):
        return True

    @property
    def experimental_should_init(self):
        return True

    def _in_multi_worker_mode(self):
        return self._container_strategy()._cluster.num_workers > 1

    def reduce_to(self, reduce_op, value, destinations, options=None):
        """``value`` combined over the workers (a Mirrored of this worker's copy)."""
        reduce_op = _reduce_op(reduce_op)
        flat = nest.flatten(value)
        reduced = self._container_strategy()._batch_all_reduce(reduce_op, flat, options)
        return nest.pack_sequence_as(value, [self._mirror(r) for r in reduced])

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        reduce_op = _reduce_op(reduce_op)
        values = [v for v, _ in value_destination_pairs]
        reduced = self._container_strategy()._batch_all_reduce(reduce_op, values, options)
        return [self._mirror(r) for r in reduced]

    def _mirror(self, value):
        if isinstance(value, IndexedSlices):
            return value
        m = Mirrored((value,))
        m._strategy = self._container_strategy()
        return m

    def _gather_to(self, value, axis):
        return self._container_strategy()._gather(value, axis)


@tf_export("distribute.MultiWorkerMirroredStrategy")
class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous training on several workers, one replica each (this process's CPU): TF's
    ``MultiWorkerMirroredStrategy``. The workers are the processes of the cluster this process
    joined (``tensortrace.distribute.run_on_ray`` starts them); without one, this process is
    the only worker."""

    def __init__(self, cluster_resolver=None, communication_options=None):
        if communication_options is None:
            communication_options = CommunicationOptions()
        if not isinstance(communication_options, CommunicationOptions):
            raise ValueError("communication_options must be a "
                             "tf.distribute.experimental.CommunicationOptions, got "
                             f"{communication_options!r}")
        resolver = cluster_resolver if cluster_resolver is not None else \
            TFConfigClusterResolver()
        cluster = _joined[0] if _joined else None
        if cluster is None:
            named = _workers_named(resolver)
            if named > 1:
                raise errors.UnavailableError(
                    None, None, f"The cluster names {named} workers, and this process was not "
                    "started as one of them: tensortrace's workers reach each other through "
                    "Ray; run the training function with tensortrace.distribute.run_on_ray(fn, "
                    f"num_workers={named}) (pip install 'tensortrace[ray]').")
            cluster = _Cluster(1, 0, _LocalCommunicator())
        self._cluster = cluster
        self._cluster_resolver = resolver
        self._options = communication_options
        self._group_key = next(_group_keys)
        self._instance_keys = itertools.count(1)
        _communicators[self._group_key] = cluster.communicator
        if cluster.num_workers > 1 or resolver.task_type is not None:
            devices = (f"/job:{resolver.task_type or 'worker'}/replica:0/task:"
                       f"{cluster.task_id}{_LOCAL_DEVICE}",)
        else:
            devices = (_SINGLE_DEVICE,)
        super().__init__(_MultiWorkerExtended(self, devices))
        if cluster.num_workers > 1:
            logger.info(f"MultiWorkerMirroredStrategy with cluster_spec = "
                        f"{resolver.cluster_spec().as_dict()}, task_type = "
                        f"{resolver.task_type!r}, task_id = {resolver.task_id!r}, "
                        f"num_workers = {cluster.num_workers}, local_devices = {devices}, "
                        f"communication = {self._options.implementation}")
        else:
            logger.info(f"Single-worker MultiWorkerMirroredStrategy with local_devices = "
                        f"{devices}, communication = {self._options.implementation}")

    # --- who this worker is ---------------------------------------------------------------
    @property
    def cluster_resolver(self):
        return self._cluster_resolver

    @property
    def num_replicas_in_sync(self):
        return self._cluster.num_workers

    @property
    def _is_chief(self):
        """Worker 0 is the chief (a cluster with a ``chief`` job: that task)."""
        task_type = self._cluster_resolver.task_type
        if task_type == "chief" or task_type is None:
            return True
        return task_type == "worker" and self._cluster.task_id == 0 and \
            "chief" not in self._cluster_resolver.cluster_spec().jobs

    # --- running ----------------------------------------------------------------------------
    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn`` as this worker's replica, with its part of ``args``/``kwargs`` and its replica
        context current; the other workers run it on theirs."""
        if context.state.graph is not None and _trace.converter is not None and \
                _trace.converts():
            fn = _trace.converter(fn)
        elif context.state.graph is None and _warned[0] < 5:
            _warned[0] += 1
            logger.warning("Using CollectiveAllReduceStrategy eagerly has significant overhead "
                           "currently. We will be working on improving this in the future, but "
                           "for now please wrap `call_for_each_replica` or `experimental_run` "
                           "or `run` inside a tf.function to get the best performance.")
        _mode.scopes.append(_WorkerReplicaScope(self))
        try:
            return fn(*select_replica(0, args), **select_replica(0, kwargs or {}))
        finally:
            _mode.scopes.pop()

    def reduce(self, reduce_op, value, axis):
        """``value`` combined over the workers (and along ``axis`` of each one's value)."""
        reduce_op = _reduce_op(reduce_op)
        value = nest.map_structure(lambda v: self.experimental_local_results(v)[0], value)
        if axis is None:
            return nest.map_structure(lambda v: self._reduce_one(reduce_op, v), value)

        def along(v):
            t = convert_to_tensor(v)
            total = self._reduce_one(ReduceOp.SUM, reduce_sum(t, axis))
            if reduce_op is ReduceOp.SUM:
                return total
            count = self._reduce_one(ReduceOp.SUM, _shape(t, out_type="int64")[axis])
            return total / cast(count, total.dtype)

        return nest.map_structure(along, value)

    def _reduce_one(self, reduce_op, value):
        return self._batch_all_reduce(reduce_op, [value])[0]

    def _collective_args(self):
        return (convert_to_tensor(self._cluster.num_workers, dtypes.int32),
                convert_to_tensor(self._group_key, dtypes.int32),
                convert_to_tensor(next(self._instance_keys), dtypes.int32))

    def _timeout_attr(self, options):
        seconds = self._options.merge(options).timeout_seconds
        return float(seconds or 0.0)

    def _batch_all_reduce(self, reduce_op, values, options=None):
        """The workers' ``values`` combined, one collective per pack of same-dtype tensors
        (``bytes_per_pack``: 0 is one pack); IndexedSlices are gathered."""
        if self._cluster.num_workers == 1:  # one worker: its values are the combination
            return [v if isinstance(v, IndexedSlices) else convert_to_tensor(v) for v in values]
        options = self._options.merge(options)
        out = [None] * len(values)
        packs = {}
        for i, v in enumerate(values):
            if isinstance(v, IndexedSlices):
                out[i] = self._reduce_slices(reduce_op, v)
                continue
            t = convert_to_tensor(v)
            packs.setdefault(t.dtype, []).append((i, t))
        final = "Div" if reduce_op is ReduceOp.MEAN else "Id"
        for members in packs.values():
            for chunk in _chunks(members, options.bytes_per_pack):
                for _, t in chunk:
                    _size(t)  # known shapes only
                summed = context.bind(CollectiveBatchReduce, *[t for _, t in chunk],
                                      group_size=self._cluster.num_workers,
                                      group_key=self._group_key,
                                      instance_key=next(self._instance_keys), merge_op="Add",
                                      final_op=final,
                                      communication_hint=_hint(options),
                                      timeout_seconds=self._timeout_attr(options))
                for (i, _), part in zip(chunk, summed):
                    out[i] = part
        return out

    def _reduce_slices(self, reduce_op, v):
        values = self._gather(v.values, 0)
        indices = self._gather(v.indices, 0)
        if reduce_op is ReduceOp.MEAN:
            values = values / cast(self._cluster.num_workers, values.dtype)
        return IndexedSlices(values, indices, v.dense_shape)

    def _gather(self, value, axis, options=None):
        value = convert_to_tensor(self.experimental_local_results(value)[0])
        options = self._options.merge(options)
        rank = value.shape.rank
        if axis % max(rank or 1, 1) != 0:  # gather along axis 0 of the value moved there
            perm = [axis] + [d for d in range(rank) if d != axis]
            inverse = list(np.argsort(perm))
            from_front = self._gather(transpose(value, perm), 0, options)
            return transpose(from_front, inverse)
        return context.bind(CollectiveGatherV2, value, *self._collective_args(),
                            communication_hint=_hint(options),
                            timeout_seconds=self._timeout_attr(options))

    def gather(self, value, axis):
        """The workers' values concatenated along ``axis``."""
        return nest.map_structure(lambda v: self._gather(v, axis), value)

    def experimental_local_results(self, value):
        return self._extended._local_results(value)

    # --- variables --------------------------------------------------------------------------
    def _make_variable(self, kwargs):
        """A variable made in this strategy's scope: this worker's copy, its initial value the
        chief's (TF broadcasts it), wrapped as a mirrored (or sync-on-read) variable."""
        initial = kwargs.get("initial_value")
        if callable(initial):
            initial = initial()
        if self._cluster.num_workers > 1 and context.state.graph is None and \
                not isinstance(initial, Variable):
            t = convert_to_tensor(initial, dtype=kwargs.get("dtype"))
            chief = self._cluster.communicator.broadcast(t.numpy(), 0)
            initial = convert_to_tensor(chief, dtype=t.dtype)
        kwargs = dict(kwargs, initial_value=initial)
        first = ResourceVariable(**kwargs)
        sync = kwargs.get("synchronization") or VariableSynchronization.AUTO
        on_read = sync is VariableSynchronization.ON_READ
        if on_read and kwargs.get("trainable") is None:
            first._trainable = False  # TF's default for ON_READ variables
        if sync in (VariableSynchronization.AUTO, VariableSynchronization.ON_WRITE):
            first._synchronization = VariableSynchronization.ON_WRITE
        made = (_WorkerSyncOnReadVariable if on_read else MirroredVariable)(self, [first])
        first._tt_mirrored_by = made
        return made

    # --- input ------------------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None):
        """This worker's share of ``dataset``, sharded by its ``auto_shard_policy``."""
        return _input.distribute_dataset(self, dataset, options)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(InputContext)``'s dataset: one input pipeline per worker."""
        return _input.datasets_from_function(self, dataset_fn, options)

    def experimental_distribute_values_from_function(self, value_fn):
        return value_fn(ValueContext(self._cluster.task_id, self.num_replicas_in_sync))


def _hint(options):
    """The ops' ``communication_hint``: the implementation's name, lower case."""
    return str(getattr(options.implementation, "value", options.implementation)).lower()


def _chunks(members, bytes_per_pack):
    """``members`` ((index, tensor) pairs) in packs of at most ``bytes_per_pack`` bytes."""
    if not bytes_per_pack:
        return [members]
    packs, current, size = [], [], 0
    for i, t in members:
        nbytes = _size(t) * t.dtype.size
        if current and size + nbytes > bytes_per_pack:
            packs.append(current)
            current, size = [], 0
        current.append((i, t))
        size += nbytes
    return packs + [current] if current else packs


def _size(t):
    if t.shape.is_fully_defined():
        return int(np.prod(t.shape.as_list(), dtype=np.int64))
    raise errors.InvalidArgumentError(None, None, "MultiWorkerMirroredStrategy reduces tensors "
                                      f"of known shapes only, got shape {t.shape}")


class _WorkerSyncOnReadVariable(SyncOnReadVariable):
    """A sync-on-read variable of a MultiWorkerMirroredStrategy: reads in cross-replica
    context combine the workers' copies."""

    def _combined(self):
        aggregation = self.aggregation.name
        if aggregation == "NONE":
            return super()._combined()
        local = self._values[0].value()
        if aggregation == "ONLY_FIRST_REPLICA":
            chief = self._strategy._cluster.communicator.broadcast(np.asarray(local._value), 0)
            return convert_to_tensor(chief, local.dtype)
        return self._strategy._reduce_one(ReduceOp.from_variable_aggregation(self.aggregation),
                                          local)

    def _update(self, method, value, read_value=True):
        if self.aggregation.name == "SUM" and method == "assign" and \
                _mirrored._current_replica(self._strategy) is None:
            value = cast(convert_to_tensor(value) / self._strategy.num_replicas_in_sync,
                         self.dtype)
            self._values[0].assign(value)
            return self if read_value else None
        return super()._update(method, value, read_value)


# --- variables made in the strategy's scope ----------------------------------------------------
_previous_creator = Variable._creator


def _create_variable(args, kwargs):
    """A tf.Variable made under a MultiWorkerMirroredStrategy: mirrored over the workers;
    other strategies' variables as before."""
    strategy = get_strategy()
    if isinstance(strategy, MultiWorkerMirroredStrategy):
        names = ("initial_value", "trainable", "validate_shape", "caching_device", "name")
        return strategy._make_variable(dict(kwargs, **dict(zip(names, args))))
    return None if _previous_creator is None else _previous_creator(args, kwargs)


Variable._creator = staticmethod(_create_variable)
