"""``tf.distribute.MirroredStrategy`` and ``OneDeviceStrategy`` on this machine's logical CPUs
(``tf.config.set_logical_device_configuration`` carves them out).

A MirroredStrategy keeps one copy of each variable made in its scope per replica
(``MirroredVariable``), runs ``strategy.run``'s function once per replica (``replicas``),
reduces per-replica values and splits each global batch of a dataset over the replicas, as
TF 2.21 does; a OneDeviceStrategy is one replica on one device."""

import re
import weakref
from copy import copy as _shallow_copy

import numpy as np

from .. import config, context, errors, nest
from .._export import tf_export
from .._logging import logger
from ..convert import convert_to_tensor
from ..data.optional import Optional
from ..data.selection import SHARD_HINT, _ShardDataset
from ..graph.ir import SymbolicTensor
from ..ops.array.joining import concat
from ..ops.array.shapes import shape as _shape
from ..ops.control_flow.conditionals import cond
from ..ops.math.arithmetic import minimum
from ..ops.math.compare import logical_and
from ..ops.math.casting import cast
from ..ops.reduce import reduce_sum
from ..ops.utility import composites as _composites
from ..random_generator import _strategy_hooks
from ..shapes import TensorShape
from ..tensor import Tensor, TensorSpec
from ..tracing.function import PolymorphicFunction
from ..variables import ResourceVariable, Variable, VariableSynchronization
from . import replicas
from .cross_device_ops import all_reduce
from .strategy import (DistributedDataset, DistributedIterator, DistributedValues,
                       InputContext, ReduceOp, Strategy, StrategyExtended, ValueContext, _mode,
                       _reduce_op, get_strategy, has_strategy, in_cross_replica_context)
from .values import (Mirrored, MirroredVariable, PerReplica, PerReplicaSpec, SyncOnReadVariable,
                     _current_replica, select_replica)

_PREFIX = "/job:localhost/replica:0/task:0"
_DEVICE = re.compile(r"^(?:/job:localhost)?(?:/replica:0)?(?:/task:0)?/?(?:device:)?"
                     r"([A-Za-z_]+):(\d+)$")


def _canonical(device):
    """TF's full name of a device string (``"cpu:1"`` -> ``/job:localhost/.../device:CPU:1``)."""
    if not isinstance(device, str):
        device = getattr(device, "name", str(device))
    m = _DEVICE.match(device.strip())
    if m is None:
        raise ValueError(f"Unknown attribute '{device.strip('/').split(':')[0]}' is "
                         f"encountered while parsing the device spec: '{device}'.")
    return f"{_PREFIX}/device:{m.group(1).upper()}:{m.group(2)}"


def _local_devices():
    """The devices a MirroredStrategy without ``devices`` uses: TF's, the logical CPUs when
    there is no GPU."""
    return tuple(_canonical(d.name) for d in config.list_logical_devices("CPU"))


class MirroredExtended(StrategyExtended):
    """``strategy.extended`` of a MirroredStrategy: updates, reductions, devices."""

    def __init__(self, container_strategy, devices):
        super().__init__(container_strategy)
        self._devices = tuple(devices)

    @property
    def worker_devices(self):
        return self._devices

    @property
    def parameter_devices(self):
        return self._devices

    def value_container(self, value):
        return getattr(value, "_tt_mirrored_by", None) or value

    def colocate_vars_with(self, colocate_with_variable):
        return super().colocate_vars_with(colocate_with_variable)

    def call_for_each_replica(self, fn, args=(), kwargs=None):
        return self._container_strategy().run(fn, args, kwargs)

    def experimental_local_results(self, value):
        return self._local_results(value)

    def _local_results(self, value):
        if isinstance(value, (DistributedValues, MirroredVariable)):
            return value.values
        return (value,)

    # --- updates ----------------------------------------------------------------------------
    def update(self, var, fn, args=(), kwargs=None, group=True):
        """``fn(copy, *args, **kwargs)`` on each copy of a mirrored ``var`` (with that
        replica's part of the arguments); the results as a Mirrored."""
        kwargs = kwargs or {}
        strategy = self._container_strategy()
        copies = var.values if isinstance(var, MirroredVariable) else (var,)
        results = []
        for i, copy in enumerate(copies):
            _mode.scopes.append(replicas.UpdateScope(strategy, i))
            try:
                out = fn(copy, *select_replica(i, args), **select_replica(i, kwargs))
            finally:
                _mode.scopes.pop()
            results.append(nest.map_structure(_as_value, out))
        if len(results) == 1:
            return results[0]
        return nest.map_structure(lambda *parts: replicas.mirrored(strategy, parts), *results)

    def update_non_slot(self, colocate_with, fn, args=(), kwargs=None, group=True):
        return fn(*args, **(kwargs or {}))

    # --- reductions -------------------------------------------------------------------------
    def reduce_to(self, reduce_op, value, destinations, options=None):
        """``value`` combined over the replicas, on every replica (a Mirrored)."""
        reduce_op = _reduce_op(reduce_op)
        return nest.map_structure(lambda v: self._reduce_one(reduce_op, v), value)

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        reduce_op = _reduce_op(reduce_op)
        if all(isinstance(v, Tensor) for v, _ in value_destination_pairs):
            # TF's cross-device ops take a plain tensor as a one-replica PerReplica and return
            # it as it is (whatever the op), where reduce_to refuses to SUM it.
            return [v for v, _ in value_destination_pairs]
        return [self._reduce_one(reduce_op, v) for v, _ in value_destination_pairs]

    def _reduce_one(self, reduce_op, value):
        n = len(self._devices)
        if not isinstance(value, DistributedValues):  # one value on every replica
            if not isinstance(value, Tensor) and np.all(np.asarray(value) == 0):
                return np.zeros(np.shape(value), dtype=np.asarray(value).dtype)
            if reduce_op is ReduceOp.MEAN:
                return value
            if n != 1:
                raise ValueError(f"A non-DistributedValues value {value!s} cannot be reduced "
                                 f"with the given reduce op {reduce_op}.")
            return value
        return all_reduce(reduce_op, value, self._container_strategy())

    def broadcast_to(self, tensor, destinations):
        return tensor

    def _gather_to(self, value, axis):
        if not isinstance(value, DistributedValues):
            return value
        return concat([convert_to_tensor(v) for v in value.values], axis)


def _as_value(x):
    """An update's result as TF's update returns it in eager mode: a variable's value."""
    return x.value() if isinstance(x, Variable) else x


@tf_export("distribute.MirroredStrategy")
class MirroredStrategy(Strategy):
    """Synchronous training on this machine's devices: one replica per device, variables
    mirrored on each (``tf.distribute.MirroredStrategy``)."""

    def __init__(self, devices=None, cross_device_ops=None):
        if isinstance(devices, str):
            devices = [devices]  # TF parses the string itself, as one device
        devices = tuple(_canonical(d) for d in devices) if devices else _local_devices()
        if len(set(devices)) != len(devices):
            raise AssertionError(f"No duplicates allowed in `devices` argument: {devices}")
        self._setup(MirroredExtended(self, devices))
        self._cross_device_ops = cross_device_ops
        logger.info(f"Using MirroredStrategy with devices {devices!r}")

    def _setup(self, extended):
        Strategy.__init__(self, extended)
        self._fn_cache = weakref.WeakKeyDictionary()

    def _make_variable(self, kwargs):
        """A variable made in this strategy's scope: one copy per replica."""
        return _mirrored_variable(self, kwargs)

    @property
    def num_replicas_in_sync(self):
        return len(self._extended.worker_devices)

    @property
    def cluster_resolver(self):
        return None

    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn`` once per replica, each with its part of ``args``/``kwargs`` (PerReplica
        values give their component) and its replica context current; the results regrouped:
        PerReplica where the replicas' values differ. A ``tf.function`` runs as one function
        over all the replicas, as in TF."""
        kwargs = kwargs or {}
        if isinstance(fn, PolymorphicFunction):
            wrapped = self._fn_cache.get(fn)
            if wrapped is None:
                def per_replica(*a, **k):
                    return replicas.call_for_each_replica(self, fn._python_function, a, k)

                wrapped = PolymorphicFunction(
                    per_replica, name=fn._name, input_signature=fn._flat_signature,
                    autograph=fn._autograph, jit_compile=fn._jit_compile,
                    reduce_retracing=fn._reduce_retracing)
                self._fn_cache[fn] = wrapped
            return wrapped(*args, **kwargs)
        return replicas.call_for_each_replica(self, fn, args, kwargs)

    def reduce(self, reduce_op, value, axis):
        """``value`` combined over the replicas (and along ``axis`` of each replica's value),
        as one tensor."""
        reduce_op = _reduce_op(reduce_op)
        if axis is None:
            return self._local_first(self._extended.reduce_to(reduce_op, value, None))
        parts = self.experimental_local_results(value)
        sums = [reduce_sum(convert_to_tensor(p), axis) for p in parts]
        total = sums[0]
        for s in sums[1:]:
            total = total + s
        if reduce_op is ReduceOp.SUM:
            return total
        counts = [_shape(convert_to_tensor(p), out_type="int64")[axis] for p in parts]
        count = counts[0]
        for c in counts[1:]:
            count = count + c
        return total / cast(count, total.dtype)

    @staticmethod
    def _local_first(value):
        return nest.map_structure(lambda v: v.values[0] if isinstance(v, Mirrored) else v, value)

    def experimental_local_results(self, value):
        """The replicas' parts of ``value`` (a tuple; a plain value: a tuple of one)."""
        return self._extended._local_results(value)

    def gather(self, value, axis):
        """The replicas' parts of ``value`` concatenated along ``axis``."""
        return nest.map_structure(lambda v: self._extended._gather_to(v, axis), value)

    def experimental_distribute_dataset(self, dataset, options=None):
        """The dataset with each batch split over the replicas (TF's rebatching: each replica
        takes ``ceil(batch / replicas)`` rows in turn, the last ones what remains); under the
        ``HINT`` auto-shard policy, ``shard(SHARD_HINT, ...)`` is the one worker's shard."""
        if _shard_policy(dataset) == 3:  # AutoShardPolicy.HINT
            dataset = _hint_sharded(dataset, 1, 0)
        return _SplitDataset(self, dataset)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(InputContext)``'s dataset, its consecutive elements going to the
        replicas in turn (one input pipeline on this machine)."""
        ctx = InputContext(1, 0, self.num_replicas_in_sync)
        return _PerReplicaDataset(self, dataset_fn(ctx))

    def experimental_distribute_values_from_function(self, value_fn):
        values = [value_fn(ValueContext(i, self.num_replicas_in_sync))
                  for i in range(self.num_replicas_in_sync)]
        return replicas.regroup(tuple(values))




@tf_export("distribute.OneDeviceStrategy")
class OneDeviceStrategy(Strategy):
    """Everything on one device, as one replica (``tf.distribute.OneDeviceStrategy``):
    variables are plain ones, ``run`` calls the function, reductions give the value."""

    def __init__(self, device):
        self._device = _canonical(device)
        super().__init__(_OneDeviceExtended(self, self._device))


class _OneDeviceExtended(StrategyExtended):
    def __init__(self, container_strategy, device):
        super().__init__(container_strategy)
        self._device = device

    @property
    def worker_devices(self):
        return (self._device,)

    @property
    def parameter_devices(self):
        return (self._device,)


# --- variables made in a MirroredStrategy's scope ----------------------------------------------
def _create_variable(args, kwargs):
    """A tf.Variable made in a MirroredStrategy's scope: a MirroredVariable (one copy per
    replica, the later ones named ``<name>/replica_<i>``); in a replica, replica 0's variable
    made at the same point; None (a plain variable) elsewhere."""
    strategy = get_strategy()
    if not isinstance(strategy, MirroredStrategy):
        return None
    names = ("initial_value", "trainable", "validate_shape", "caching_device", "name")
    kwargs = dict(kwargs, **dict(zip(names, args)))
    run, index = replicas.current_run()
    if run is not None and run.strategy is strategy:
        return run.shared_variable(index, lambda: strategy._make_variable(kwargs))
    if not in_cross_replica_context():
        return None
    return strategy._make_variable(kwargs)


def _mirrored_variable(strategy, kwargs):
    initial = kwargs.get("initial_value")
    if callable(initial):
        kwargs["initial_value"] = initial()
    first = ResourceVariable(**kwargs)  # its checks first; then the strategy's
    if getattr(kwargs.get("aggregation"), "name", None) == "MEAN" and \
            not first.dtype.is_floating:
        raise ValueError("creating distributed tf.Variable with aggregation=MEAN and a "
                         "non-floating dtype is not supported, please use a different "
                         "aggregation or dtype")
    sync = kwargs.get("synchronization") or VariableSynchronization.AUTO
    on_read = sync is VariableSynchronization.ON_READ
    if on_read and kwargs.get("trainable") is None:
        first._trainable = False  # TF's default for ON_READ variables
    if sync in (VariableSynchronization.AUTO, VariableSynchronization.ON_WRITE):
        first._synchronization = VariableSynchronization.ON_WRITE
    copies = [first]
    for i in range(1, strategy.num_replicas_in_sync):
        if first._array is None:  # initialized in a graph: each copy by its own op
            copy = ResourceVariable(**dict(kwargs, name=f"{first._name}/replica_{i}"))
        else:
            copy = object.__new__(type(first))
            copy.__dict__.update(first.__dict__)
            copy.__dict__.pop("_tt_uid", None)
            copy._name = f"{first._name}/replica_{i}"
            copy._handle = type(first._handle)._wrap(copy)
            copy._lock = type(first._lock)()
            copy._array = first._array.copy()
        copies.append(copy)
    mirrored = (SyncOnReadVariable if on_read else MirroredVariable)(strategy, copies)
    for c in copies:
        c._tt_mirrored_by = mirrored
        # TF puts the container on each copy's handle; Keras' optimizers look there only for
        # CompositeTensor variables (TF's are, ours not), else on the copy itself: both.
        c._handle._distributed_container = c._distributed_container = weakref.ref(mirrored)
    return mirrored


Variable._creator = staticmethod(_create_variable)


# --- tf.random.Generator under a strategy ------------------------------------------------------
def _generator_strategy():
    return get_strategy() if isinstance(get_strategy(), MirroredStrategy) else None


def _generator_replica(strategy):
    """The replica id a generator made under ``strategy`` hashes into its key, else None."""
    return _current_replica(strategy)


def _shared_draw(generator):
    """A turn for a replica drawing from a generator the replicas share."""
    run, index = replicas.current_run()
    if run is None or generator._distribution_strategy is not None:
        return None
    return run.shared_turn(id(generator), index)


def _generator_update(generator, update_fn):
    """In cross-replica context, a draw advances every copy of a mirrored generator state
    (TF's ``extended.update``); the first copy's result. None elsewhere."""
    strategy = generator._distribution_strategy
    if strategy is None or _current_replica(strategy) is not None:
        return None
    return strategy.extended.update(generator.state, update_fn).values[0]


_strategy_hooks.update(current=_generator_strategy, replica_id=_generator_replica,
                       turn=_shared_draw, update=_generator_update)


def _replicas_in_sync(name):
    """The replicas a loss is averaged over (TF's check: not in cross-replica context)."""
    if has_strategy() and in_cross_replica_context():
        raise RuntimeError(f"You are calling `{name}` in cross replica context, while it was "
                           "expected to be called in replica context.")
    return get_strategy().num_replicas_in_sync


_composites.replicas_in_sync[0] = _replicas_in_sync


# --- distributed datasets ----------------------------------------------------------------------
def _split(value, n):
    """``value``'s rows in ``n`` consecutive parts of ``ceil(rows / n)`` (the last ones what
    remains, possibly none); inside a trace with the rows unknown, as graph ops."""
    t = convert_to_tensor(value)
    if t.shape.rank == 0:
        raise IndexError("list index out of range")
    if t.shape[0] is not None:
        rows = int(t.shape[0])
    elif isinstance(t, SymbolicTensor):
        rows = _shape(t)[0]
    else:
        rows = int(t.numpy().shape[0])
    k = -(-rows // n)
    return [t[minimum(i * k, rows):minimum((i + 1) * k, rows)] for i in range(n)]


def _shard_policy(dataset):
    """The dataset's ``auto_shard_policy`` option as a number (None: not set)."""
    policy = getattr(dataset.options().experimental_distribute, "auto_shard_policy", None)
    return None if policy is None else int(policy)


def _hint_sharded(dataset, n, w):
    """``dataset`` with each ``shard(SHARD_HINT, ...)`` in it made ``shard(n, w)``."""
    if isinstance(dataset, _ShardDataset) and dataset._shards == SHARD_HINT:
        return _hint_sharded(dataset._input, n, w).shard(n, w)
    sharded = dataset
    for child in dataset._inputs:
        below = _hint_sharded(child, n, w)
        if below is not child:
            sharded = _replaced(sharded, child, below)
    return sharded


def _replaced(node, old, new):
    """A copy of dataset ``node`` reading ``new`` where it read ``old``."""
    clone = _shallow_copy(node)
    for key, value in vars(node).items():
        if value is old:
            setattr(clone, key, new)
        elif isinstance(value, (tuple, list)) and any(v is old for v in value):
            setattr(clone, key, type(value)(new if v is old else v for v in value))
    return clone


def _unbatched_spec(spec):
    if isinstance(spec, TensorSpec):
        return TensorSpec(TensorShape([None]).concatenate(spec.shape[1:]), spec.dtype)
    return spec


def _tf_class(name, doc):
    """A base class with the name and module of TF's distributed dataset class ``name``:
    libraries built on TF (Keras' data adapters) recognise those by their bases' names."""
    namespace = {"__slots__": (), "__doc__": doc,
                 "__module__": "tensorflow.python.distribute.input_lib"}
    return type(name, (DistributedDataset,), namespace)


_TFDistributedDataset = _tf_class("DistributedDataset", "What experimental_distribute_dataset "
                                                        "makes, by TF's class name.")
_TFDatasetsFromFunction = _tf_class("DistributedDatasetsFromFunction",
                                    "What distribute_datasets_from_function makes, by TF's name.")


class _SplitDataset(_TFDistributedDataset):
    """A dataset whose batches are split over the replicas: elements are PerReplica."""

    def __init__(self, strategy, dataset):
        self._strategy = strategy
        self._dataset = dataset
        self._check(dataset.element_spec)

    @staticmethod
    def _check(element_spec):
        """TF reads each component's batch dimension when it rebatches: scalars have none."""
        for spec in nest.flatten(element_spec):
            if getattr(spec, "shape", None) is not None and spec.shape.rank == 0:
                raise IndexError("list index out of range")

    _per_replica = False  # one element split over the replicas, not one element each

    def __iter__(self):
        return _Iterator(self, iter(self._dataset))

    def _for_loop(self, body, loop_vars, extra_test=None):
        """``for x in dist_dataset`` inside a trace: the dataset's graph loop, each element
        (or each replica's) made PerReplica."""
        return _Iterator(self, iter(self._dataset))._for_loop(body, loop_vars, extra_test)

    def _wraps(self):
        """TF wraps elements in PerReplica unless one device of one worker takes them all."""
        return (self._strategy.num_replicas_in_sync > 1
                or self._strategy.extended._in_multi_worker_mode())

    def _group(self, elements):
        """The PerReplica structure of ``elements`` (one per replica, or one to split)."""
        if not self._wraps():
            return elements[0]
        n = self._strategy.num_replicas_in_sync
        if self._per_replica:
            flat = [nest.flatten(e) for e in elements]
            return nest.pack_sequence_as(elements[0], [PerReplica(p) for p in zip(*flat)])
        element = elements[0]
        flat = [_split(v, n) for v in nest.flatten(element)]
        return nest.pack_sequence_as(element, [PerReplica(p) for p in flat])

    @property
    def element_spec(self):
        n = self._strategy.num_replicas_in_sync
        if not self._wraps():
            return nest.map_structure(_unbatched_spec, self._dataset.element_spec)
        return nest.map_structure(
            lambda s: PerReplicaSpec(*([_unbatched_spec(s)] * n)), self._dataset.element_spec)

    def __repr__(self):
        return f"<tensortrace.distribute.DistributedDataset object at {hex(id(self))}>"

    @property
    def cardinality(self):
        """The input dataset's cardinality (a NumPy int64) when eager, as TF reads it when it
        builds the distributed dataset; UNKNOWN (-2) inside a trace."""
        n = self._dataset.cardinality()
        return n.numpy() if hasattr(n, "numpy") and context.executing_eagerly() else np.int64(-2)


class _PerReplicaDataset(_SplitDataset, _TFDatasetsFromFunction):
    """A dataset whose consecutive elements go to the replicas in turn."""

    _per_replica = True

    @staticmethod
    def _check(element_spec):
        pass

    @property
    def element_spec(self):
        n = self._strategy.num_replicas_in_sync
        if not self._wraps():
            return self._dataset.element_spec
        return nest.map_structure(lambda s: PerReplicaSpec(*([s] * n)),
                                  self._dataset.element_spec)


class _Iterator(DistributedIterator):
    """An iterator over a distributed dataset: eagerly, or inside a trace (``next(it)`` and
    ``for x in it`` there fetch at run time, as the dataset's own iterator does)."""

    def __init__(self, dataset, iterator):
        self._dataset, self._iterator = dataset, iterator

    def __iter__(self):
        return self

    def _count(self):
        return self._dataset._strategy.num_replicas_in_sync if self._dataset._per_replica else 1

    def __next__(self):
        return self._dataset._group([next(self._iterator) for _ in range(self._count())])

    def get_next(self):
        return next(self)

    def get_next_as_optional(self):
        """The next element (PerReplica values) as a ``tf.experimental.Optional``, empty at the
        end; inside a trace, decided when the function runs (TF's DistributedIterator)."""
        if context.state.graph is None:
            try:
                return Optional.from_value(next(self))
            except (StopIteration, errors.OutOfRangeError):
                return Optional.empty(self.element_spec)
        count = self._count()
        parts = [self._iterator.get_next_as_optional() for _ in range(count)]
        has_value = parts[0].has_value()
        for part in parts[1:]:
            has_value = logical_and(has_value, part.has_value())

        def value():
            return Optional.from_value(self._dataset._group([p.get_value() for p in parts]))

        return cond(has_value, value, lambda: Optional.empty(self.element_spec))

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def _for_loop(self, body, loop_vars, extra_test=None):
        count = self._count()

        def grouped(elements, *values):
            return body(self._dataset._group(elements if count > 1 else (elements,)), *values)

        return self._iterator._for_loop(grouped, loop_vars, extra_test, count=count)
