"""The default ``tf.distribute`` strategy: one replica on this process, what TF uses when no
strategy scope is entered. Code written for strategies (Keras' trainer and optimizers) runs
unchanged on it: ``run`` calls the function, reductions over the one replica give the value back,
``merge_call`` calls its function with the strategy. Multi-replica strategies are not provided.
"""

import contextlib
import enum
import threading

from .. import dtypes, nest
from ..autodiff.custom_gradient import custom_gradient
from ..convert import convert_to_tensor
from .._export import tf_export
from ..ops.array.passthrough import identity
from ..ops.array.ranges import range as range_
from ..ops.array.reshaping import expand_dims, reshape
from ..ops.array.shapes import shape as _shape
from ..ops.indexing.gathering import gather
from ..ops.math.casting import cast
from ..ops.reduce import reduce_sum
from ..ops.sparse.indexed_slices import IndexedSlices

DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


@tf_export("distribute.ReduceOp")
class ReduceOp(enum.Enum):
    """How values of the replicas combine: their sum or their mean."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        """The ReduceOp of a ``tf.VariableAggregation`` (SUM or MEAN)."""
        name = getattr(aggregation, "name", str(aggregation)).upper()
        if name not in ("SUM", "MEAN"):
            raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} "
                             "to`tf.distribute.ReduceOp` type")
        return ReduceOp[name]


def _reduce_op(reduce_op):
    """A ReduceOp, or its name in any case (TF's rule; other values: the enum's ValueError)."""
    return ReduceOp(reduce_op.upper() if isinstance(reduce_op, str) else reduce_op)


@tf_export("distribute.DistributedValues")
class DistributedValues:
    """Base class of values with one component per replica (none on one replica)."""


@tf_export("distribute.DistributedIterator")
class DistributedIterator:
    """Base class of iterators over distributed datasets."""


@tf_export("distribute.DistributedDataset")
class DistributedDataset:
    """Base class of datasets distributed over replicas."""


@tf_export("distribute.InputContext")
class InputContext:
    """What an input function is told about the pipeline it builds: which one of how many, and
    how many replicas consume it."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self):
        return self._num_replicas_in_sync

    @property
    def input_pipeline_id(self):
        return self._input_pipeline_id

    @property
    def num_input_pipelines(self):
        return self._num_input_pipelines

    def get_per_replica_batch_size(self, global_batch_size):
        """The batch each replica gets of ``global_batch_size``."""
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync}")
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self):
        return (f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, "
                f"total: {self._num_input_pipelines})")


class _Mode(threading.local):
    """Per thread: the strategies entered with ``scope()`` (innermost last)."""

    def __init__(self):
        self.scopes = []


_mode = _Mode()


@tf_export("distribute.StrategyExtended")
class StrategyExtended:
    """The strategy's lower-level API (``strategy.extended``): updates, reductions, devices."""

    def __init__(self, container_strategy):
        self._container_strategy_weakref = container_strategy

    def _container_strategy(self):
        return self._container_strategy_weakref

    @property
    def experimental_require_static_shapes(self):
        return False

    @property
    def parameter_devices(self):
        return (DEVICE,)

    @property
    def worker_devices(self):
        return (DEVICE,)

    @property
    def should_checkpoint(self):
        return True

    @property
    def should_save_summary(self):
        return True

    def _use_merge_call(self):
        return True

    def _in_multi_worker_mode(self):
        return False

    def colocate_vars_with(self, colocate_with_variable):
        """A scope placing new variables with another; on one device, nothing to do."""
        return contextlib.nullcontext()

    def variable_created_in_scope(self, v):
        return True

    def value_container(self, value):
        return value

    def non_slot_devices(self, var_list):
        return min(var_list, key=lambda v: v.name)

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """``fn(var, *args, **kwargs)``: the one copy of ``var`` is updated in place."""
        return fn(var, *args, **(kwargs or {}))

    def update_non_slot(self, colocate_with, fn, args=(), kwargs=None, group=True):
        return fn(*args, **(kwargs or {}))

    def reduce_to(self, reduce_op, value, destinations, options=None):
        """The combination of ``value`` over one replica: the value itself."""
        _reduce_op(reduce_op)
        return value

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        _reduce_op(reduce_op)
        return [value for value, _ in value_destination_pairs]

    def broadcast_to(self, tensor, destinations):
        return tensor

    def call_for_each_replica(self, fn, args=(), kwargs=None):
        return fn(*args, **(kwargs or {}))

    def experimental_local_results(self, value):
        return (value,)

    def _local_results(self, value):
        return (value,)


@tf_export("distribute.Strategy")
class Strategy:
    """A distribution strategy; this one (the default) runs everything as the one replica."""

    def __init__(self, extended=None):
        self._extended = extended or StrategyExtended(self)

    @property
    def extended(self):
        return self._extended

    @property
    def num_replicas_in_sync(self):
        return 1

    @contextlib.contextmanager
    def scope(self):
        """Make this the current strategy (``tf.distribute.get_strategy()``) in the block."""
        _mode.scopes.append(self)
        try:
            yield self
        finally:
            _mode.scopes.pop()

    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn(*args, **kwargs)`` on the one replica, with its replica context current."""
        _mode.scopes.append(_ReplicaScope(self))
        try:
            return fn(*args, **(kwargs or {}))
        finally:
            _mode.scopes.pop()

    def reduce(self, reduce_op, value, axis):
        """``value`` combined over the replicas (one: itself); with ``axis``, also summed or
        averaged along that axis of each replica's value."""
        reduce_op = _reduce_op(reduce_op)
        if axis is None:
            return value
        if reduce_op is ReduceOp.SUM:
            return reduce_sum(value, axis)
        numer = reduce_sum(value, axis)
        return numer / cast(_shape(value, out_type="int64")[axis], numer.dtype)

    def experimental_distribute_dataset(self, dataset, options=None):
        """The dataset itself (as TF's default strategy, whatever it is given): its batches go
        to the one replica whole."""
        return dataset

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(tf.distribute.InputContext())``: one pipeline for one replica."""
        return dataset_fn(InputContext())

    def experimental_local_results(self, value):
        """The per-replica parts of ``value``: a tuple of one."""
        return (value,)

    def gather(self, value, axis):
        return value

    def experimental_distribute_values_from_function(self, value_fn):
        return value_fn(ValueContext())

    def __deepcopy__(self, memo):
        return self


@tf_export("distribute.experimental.ValueContext")
class ValueContext:
    """What ``experimental_distribute_values_from_function``'s function is told: which replica
    of how many it makes the value for."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self._replica_id = replica_id_in_sync_group
        self._num_replicas = num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        return self._replica_id

    @property
    def num_replicas_in_sync(self):
        return self._num_replicas

    def __str__(self):
        return (f"tf.distribute.ValueContext(replica id {self._replica_id},  total replicas "
                f"in sync: {self._num_replicas})")


@tf_export("distribute.ReplicaContext")
class ReplicaContext:
    """The replica running the code: id 0 of 1 with the default strategy; in a replica thread
    of a multi-replica strategy, its id and the run whose replicas meet at ``merge_call``."""

    def __init__(self, strategy, replica_id_in_sync_group=0, _run=None):
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group
        self._run = _run

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        if self._run is None:
            return self._replica_id
        return convert_to_tensor(self._replica_id, dtypes.int32)  # TF's: an int32 tensor

    @property
    def devices(self):
        if self._run is None:
            return (DEVICE,)
        return [[self._strategy.extended.worker_devices[self._replica_id]]]

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """``merge_fn(strategy, *args, **kwargs)`` once, in cross-replica context, on the
        replicas' arguments grouped (PerReplica where they differ); each replica gets its
        part of the result."""
        if self._run is not None:
            replica = self._run.replicas[self._replica_id]
            return replica.merge_call(merge_fn, tuple(args), dict(kwargs or {}))
        _mode.scopes.append(_CrossReplicaScope(self._strategy))
        try:
            return merge_fn(self._strategy, *args, **(kwargs or {}))
        finally:
            _mode.scopes.pop()

    def all_reduce(self, reduce_op, value, options=None):
        """``value`` (a structure of tensors) combined over the replicas: one replica's own
        (IndexedSlices come back as they are, as TF's default strategy returns them)."""
        reduce_op = _reduce_op(reduce_op)
        if self._run is None:
            return nest.map_structure(_own_value, value)

        def batch_reduce(*values):
            def merge_fn(strategy, *values):
                return strategy.extended.batch_reduce_to(reduce_op, [(v, v) for v in values])

            return list(self.merge_call(merge_fn, args=values))

        return _differentiable_all_reduce(self, reduce_op, value, batch_reduce)

    def all_gather(self, value, axis, options=None):
        """``value`` (a structure of tensors) of every replica, concatenated along ``axis``
        in replica order."""
        if self._run is None:
            return nest.map_structure(identity, value)

        def batch_gather(*values):
            def merge_fn(strategy, *values):
                return [strategy.extended._gather_to(v, axis) for v in values]

            return list(self.merge_call(merge_fn, args=values))

        return _differentiable_all_gather(self, value, axis, batch_gather)


def _differentiable_all_reduce(ctx, reduce_op, value, batch_reduce):
    """``batch_reduce(*flat)`` of ``value``'s tensors, differentiable as in TF: the gradient of
    an all-reduce is the all-reduce (same op) of the upstream gradients. IndexedSlices are
    reduced without a gradient (TF's rule too)."""
    flat = nest.flatten(value)
    if any(isinstance(v, IndexedSlices) for v in flat):
        return nest.pack_sequence_as(value, batch_reduce(*flat))

    @custom_gradient
    def reduced(*xs):
        return batch_reduce(*xs), lambda *dys: ctx.all_reduce(reduce_op, list(dys))

    return nest.pack_sequence_as(value, _listed(reduced(*flat)))


def _differentiable_all_gather(ctx, value, axis, batch_gather):
    """``batch_gather(*flat)`` of ``value``'s tensors, differentiable as in TF: a replica's
    gradient is its own rows (along ``axis``) of the upstream gradients summed over the
    replicas."""
    flat = nest.flatten(value)
    for v in flat:
        if isinstance(v, IndexedSlices):
            raise NotImplementedError("all_gather does not support IndexedSlices")

    @custom_gradient
    def gathered(*xs):
        def grad(*dys):
            rid = ctx.replica_id_in_sync_group
            grads = []
            for x, dy in zip(xs, dys):
                g = _summed_over_replicas(ctx, dy)
                size = _shape(x)[axis]
                sizes = ctx.all_gather(reshape(size, [1]), axis=0)
                begin = reduce_sum(sizes[:rid])
                grads.append(gather(g, range_(begin, begin + size), axis=axis))
            return grads

        return batch_gather(*xs), grad

    return nest.pack_sequence_as(value, _listed(gathered(*flat)))


def _summed_over_replicas(ctx, value):
    """The replicas' ``value``s added: their all-reduce, or (a shape known only when run: a
    gathered gradient in a trace, which packed reductions cannot size) the sum of their
    all-gather along a new first axis."""
    if value.shape.is_fully_defined():
        return ctx.all_reduce(ReduceOp.SUM, value)
    return reduce_sum(ctx.all_gather(expand_dims(value, 0), axis=0), 0)


def _listed(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


class _ReplicaScope:
    def __init__(self, strategy):
        self.strategy = strategy


class _CrossReplicaScope(_ReplicaScope):
    pass


_default = Strategy()
_default_replica = ReplicaContext(_default)


def _current():
    for entry in reversed(_mode.scopes):
        return entry
    return None


@tf_export("distribute.get_strategy")
def get_strategy():
    """The strategy of the innermost ``scope()``, else the default one."""
    entry = _current()
    if entry is None:
        return _default
    return entry.strategy if isinstance(entry, _ReplicaScope) else entry


@tf_export("distribute.has_strategy")
def has_strategy():
    """Whether a strategy other than the default is current."""
    return get_strategy() is not _default


@tf_export("distribute.in_cross_replica_context")
def in_cross_replica_context():
    """True inside a non-default strategy's ``scope()`` (outside ``run``) or a ``merge_call``."""
    entry = _current()
    if isinstance(entry, _CrossReplicaScope):
        return True
    return entry is not None and not isinstance(entry, _ReplicaScope) and entry is not _default


@tf_export("distribute.get_replica_context")
def get_replica_context():
    """The current ReplicaContext, or None in cross-replica context."""
    if in_cross_replica_context():
        return None
    entry = _current()
    if isinstance(entry, _ReplicaScope) and entry.strategy is not _default:
        own = getattr(entry, "replica_context", None)  # a strategy's own kind of context
        if own is not None:
            return own()
        return ReplicaContext(entry.strategy, getattr(entry, "replica_id", 0),
                              getattr(entry, "run", None))
    return _default_replica


@tf_export("distribute.experimental_set_strategy")
def experimental_set_strategy(strategy):
    """Make ``strategy`` current for this thread until set again (None: the default)."""
    _mode.scopes[:] = [] if strategy is None else [strategy]


def get_cross_replica_context():
    """The current strategy in cross-replica context, else None."""
    return get_strategy() if in_cross_replica_context() else None


def strategy_supports_no_merge_call():
    """Whether the current strategy can update without ``merge_call`` (TF's rule)."""
    if not has_strategy():
        return True
    return not get_strategy().extended._use_merge_call()


def maybe_merge_call(fn, strategy, *args, **kwargs):
    """``fn(strategy, ...)`` directly when no merge is needed, else through ``merge_call``."""
    if strategy_supports_no_merge_call():
        return fn(strategy, *args, **kwargs)
    return get_replica_context().merge_call(fn, args=args, kwargs=kwargs)


def _own_value(value):
    return value if isinstance(value, IndexedSlices) else identity(value)
