"""``tf.distribute.experimental.CentralStorageStrategy``: the replicas compute as a
MirroredStrategy's do, but each variable lives once, on the parameter device. With several
replicas a variable made in its scope is an ``AggregatingVariable``: replicas' writes to it
are combined by its aggregation and applied once."""

from .._export import tf_export
from ..variables import ResourceVariable, Variable
from .mirrored import MirroredExtended, MirroredStrategy, _canonical
from .strategy import DistributedValues, ReduceOp, get_replica_context
from .values import _AGGREGATION_MESSAGE, _current_replica

_CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


class _CentralExtended(MirroredExtended):
    def __init__(self, container_strategy, devices, parameter_device):
        super().__init__(container_strategy, devices)
        self._parameter_device = parameter_device

    @property
    def worker_devices(self):
        return list(self._devices)  # a list, as TF's

    @property
    def parameter_devices(self):
        return (self._parameter_device,)

    def _local_results(self, value):
        if isinstance(value, AggregatingVariable):
            return (value._v,)
        return super()._local_results(value)

    def update(self, var, fn, args=(), kwargs=None, group=True):
        if isinstance(var, AggregatingVariable):
            var = var._v
        return super().update(var, fn, args, kwargs, group)


@tf_export("distribute.experimental.CentralStorageStrategy")
class CentralStorageStrategy(MirroredStrategy):
    """Variables on one device, computation replicated on ``compute_devices`` (this machine's
    GPUs, else its first CPU)."""

    def __init__(self, compute_devices=None, parameter_device=None):
        if compute_devices:
            devices = tuple(_canonical(d) for d in compute_devices)
            parameter = parameter_device or "/device:CPU:0"
        else:
            devices = (_CPU0,)
            parameter = parameter_device or _CPU0
        self._setup(_CentralExtended(self, devices, parameter))

    def _make_variable(self, kwargs):
        """One variable; with several replicas wrapped so replicas' writes aggregate."""
        v = ResourceVariable(**kwargs)
        return v if self.num_replicas_in_sync == 1 else AggregatingVariable(self, v)


class AggregatingVariable(Variable):
    """A variable the replicas share (TF's ``AggregatingVariable``): reads are the variable's;
    a write in a replica needs an aggregation, combines the replicas' values and applies once."""

    def __init__(self, strategy, v):
        self._strategy = strategy
        self._v = v

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_strategy", "_v"):
            raise AttributeError(name)
        return getattr(self._v, name)

    @property
    def name(self):
        return self._v.name

    def _update(self, method, value, read_value):
        if _current_replica(self._strategy) is None:
            return getattr(self._v, method)(value, read_value=read_value)
        aggregation = self.aggregation.name
        if aggregation == "NONE":
            raise ValueError(_AGGREGATION_MESSAGE.format(variable_type="AggregatingVariable"))

        def merge_fn(strategy, value):
            if aggregation == "ONLY_FIRST_REPLICA":
                combined = strategy.experimental_local_results(value)[0]
            elif isinstance(value, DistributedValues):
                combined = strategy.extended.reduce_to(ReduceOp[aggregation], value, self)
                combined = combined.values[0]
            else:
                combined = strategy.extended.reduce_to(ReduceOp[aggregation], value, self)
            getattr(self._v, method)(combined)
            return self

        get_replica_context().merge_call(merge_fn, args=(value,))
        return self if read_value else None

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._update("assign", value, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._update("assign_add", delta, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._update("assign_sub", delta, read_value)

    def __repr__(self):
        return repr(self._v)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        return self
