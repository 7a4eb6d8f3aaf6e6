"""The values a multi-replica strategy hands around: ``PerReplica`` (one value per replica, what
``strategy.run`` returns), ``Mirrored`` (the same value on every replica) and
``MirroredVariable`` (one variable per replica kept equal), with TF's printing, and the two
structure walks the strategies use: ``select_replica`` (a replica's part of arguments) and
``regroup`` (the replicas' results as one structure of distributed values)."""

import numpy as np

from .. import composite, nest
from .._export import tf_export
from ..convert import convert_to_tensor
from ..ops.math.casting import cast
from ..tensor import Tensor
from ..variables import Variable
from .strategy import DistributedValues, ReduceOp, _mode, get_replica_context
from .strategy import in_cross_replica_context


def _current_replica(strategy):
    """The replica id of the current replica context of ``strategy``, else None."""
    for entry in reversed(_mode.scopes):
        replica = getattr(entry, "replica_id", None)
        if replica is not None and entry.strategy is strategy:
            return replica
        return None
    return None


class _Distributed(DistributedValues):
    """Values with one component per replica: ``values`` in replica order."""

    _kind = "DistributedValues"

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        return self._values

    def _text(self, show):
        rows = ",\n".join(f"  {i}: {show(v)}" for i, v in enumerate(self._values))
        return f"{self._kind}:{{\n{rows}\n}}"

    def __str__(self):
        return self._text(str)

    def __repr__(self):
        return self._text(repr)


class PerReplicaSpec(composite.TypeSpec):
    """The type of a PerReplica: one spec per replica (TF's ``PerReplicaSpec``)."""

    __slots__ = ("_value_specs",)

    def __init__(self, *value_specs):
        self._value_specs = tuple(value_specs)

    @property
    def value_type(self):
        return PerReplica

    def _serialize(self):
        return self._value_specs

    @classmethod
    def _deserialize(cls, serialization):
        return cls(*serialization)

    @property
    def _component_specs(self):
        return self._value_specs

    def _to_components(self, value):
        return value._values

    def _from_components(self, components):
        return PerReplica(components)

    def __repr__(self):  # TF prints the serialization tuple (one spec: with its comma)
        return f"PerReplicaSpec{self._value_specs!r}"


@tf_export("types.experimental.distributed.PerReplica")
class PerReplica(_Distributed, composite.CompositeTensor):
    """Each replica's own value (what ``strategy.run`` returns when they differ)."""

    _kind = "PerReplica"

    @property
    def _type_spec(self):
        return PerReplicaSpec(*(composite.type_spec_from_value(v) for v in self._values))


@tf_export("types.experimental.distributed.Mirrored")
class Mirrored(_Distributed):
    """The same value on every replica; it acts as the value of the replica running (the
    first one in cross-replica context)."""

    _kind = "Mirrored"
    _strategy = None

    def _get(self):
        replica = _current_replica(self._strategy) if self._strategy is not None else None
        return self._values[replica or 0]

    def _as_graph_or_eager_tensor(self, dtype=None):
        return convert_to_tensor(self._get(), dtype=dtype)

    def __getitem__(self, item):
        return self._get()[item]

    def numpy(self):
        return self._get().numpy()


def _forward(operator):
    def method(self, *args):
        return getattr(self._get(), operator)(*args)

    method.__name__ = operator
    return method


for _op in Tensor.OVERLOADABLE_OPERATORS - {"__eq__", "__ne__", "__getitem__"}:
    setattr(Mirrored, _op, _forward(_op))


_AGGREGATION_MESSAGE = (
    "You must specify an aggregation method to update a {variable_type} in Replica Context. "
    "You can do so by passing an explicit value for argument `aggregation` to tf.Variable(..)."
    "e.g. `tf.Variable(..., aggregation=tf.VariableAggregation.SUM)``tf.VariableAggregation` "
    "lists the possible aggregation methods.This is required because {variable_type} should "
    "always be kept in sync. When updating them or assigning to them in a replica context, we "
    "automatically try to aggregate the values before updating the variable. For this "
    "aggregation, we need to know the aggregation method. Another alternative is to not try "
    "to update such {variable_type} in replica context, but in cross replica context. You can "
    "enter cross replica context by calling `tf.distribute.get_replica_context().merge_call("
    "merge_fn, ..)`.Inside `merge_fn`, you can then update the {variable_type} using "
    "`tf.distribute.StrategyExtended.update()`.")


class MirroredVariable(_Distributed, Variable):
    """One variable per replica, kept equal (created in a MirroredStrategy's scope).

    In a replica it is that replica's copy (reads, gradients and un-aggregated writes go
    there); in cross-replica context reads give the first copy and writes go to every copy.
    A write in a replica with an aggregation (SUM, MEAN, ONLY_FIRST_REPLICA) combines the
    replicas' values first and writes the result to every copy, as TF does."""

    _kind = "MirroredVariable"

    def __init__(self, strategy, values):
        self._values = tuple(values)
        self._strategy = strategy

    def _get(self):
        return self._values[_current_replica(self._strategy) or 0]

    def __getattr__(self, name):  # the replica's copy holds the value, handle and metadata
        if name.startswith("__") or name in ("_values", "_strategy"):
            raise AttributeError(name)
        return getattr(self._get(), name)

    @property
    def _primary(self):
        return self._values[0]

    @property
    def _unique_id(self):
        """The first copy's, in every replica (TF's): optimizers key slots by it."""
        return self._values[0]._unique_id

    @property
    def name(self):
        return self._values[0].name

    @property
    def distribute_strategy(self):
        return self._strategy

    def _dense_var_to_tensor(self, dtype=None, name=None, as_ref=False):
        return self._get()._as_graph_or_eager_tensor(dtype)

    # --- writing: TF's ON_WRITE rules --------------------------------------------------------
    def _update(self, method, value, read_value=True):
        def update_fn(var, value):
            return getattr(var, method)(value, read_value=read_value)

        replica = _current_replica(self._strategy)
        if replica is None:  # cross-replica context: every copy gets the value
            self._strategy.extended.update(self, update_fn, args=(value,))
            return self if read_value else None
        aggregation = self.aggregation.name
        if aggregation == "NONE":  # each replica writes its own copy
            return update_fn(self._get(), value)
        if isinstance(value, DistributedValues):
            raise TypeError("Cannot use DistributedValues to update variables in replica "
                            "context.")

        def merge_fn(strategy, value):
            if aggregation == "MEAN" and not self.dtype.is_floating and \
                    isinstance(value, PerReplica):
                raise ValueError("Cannot update non-float variables with "
                                 "tf.VariableAggregation.MEAN aggregation in replica context. "
                                 "Either change the variable dtype to float or update it in "
                                 "cross-replica context.")
            if aggregation == "ONLY_FIRST_REPLICA":
                combined = strategy.experimental_local_results(value)[0]
            else:
                combined = strategy.extended.reduce_to(ReduceOp[aggregation], value, self)
            strategy.extended.update(self, update_fn, args=(combined,))
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
        return self._text(repr)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        return self


class SyncOnReadVariable(MirroredVariable):
    """One variable per replica, each updated on its own (``synchronization=ON_READ``: metrics'
    counts); in cross-replica context reads combine the copies by the aggregation and writes
    go to every copy (a SUM split evenly over them, so the copies add up to it)."""

    _kind = "SyncOnReadVariable"

    def _combined(self):
        """The copies combined by the aggregation (ONLY_FIRST_REPLICA: the first)."""
        if self.aggregation.name == "ONLY_FIRST_REPLICA":
            return self._values[0].value()
        if self.aggregation.name == "NONE":  # TF's default is its V1 enum's NONE
            raise ValueError("Could not convert from `tf.VariableAggregation` "
                             "VariableAggregation.NONE to`tf.distribute.ReduceOp` type")
        reduce_op = ReduceOp.from_variable_aggregation(self.aggregation)
        parts = [v.value() for v in self._values]
        total = parts[0]
        for part in parts[1:]:
            total = total + part
        if reduce_op is ReduceOp.MEAN:
            total = total / convert_to_tensor(len(parts), total.dtype)
        return total

    def value(self):
        if _current_replica(self._strategy) is None:
            return self._combined()
        return self._get().value()

    def read_value(self):
        return self.value()

    def numpy(self):
        if _current_replica(self._strategy) is None:
            return self._combined().numpy()
        return self._get().numpy()

    def _as_graph_or_eager_tensor(self, dtype=None):
        if _current_replica(self._strategy) is None:
            return convert_to_tensor(self._combined(), dtype=dtype)
        return self._get()._as_graph_or_eager_tensor(dtype)

    def __array__(self, dtype=None, copy=None):
        value = self.numpy()
        return np.asarray(value) if dtype is None else np.asarray(value).astype(dtype)

    def _update(self, method, value, read_value=True):
        if _current_replica(self._strategy) is not None:  # a replica writes its own copy
            return getattr(self._get(), method)(value, read_value=read_value)
        summed = self.aggregation.name == "SUM"
        if summed and method != "assign":
            raise ValueError(f"SyncOnReadVariable does not support `{method}` in cross-replica "
                             "context when aggregation is set to `tf.VariableAggregation.SUM`.")
        if summed:
            value = cast(convert_to_tensor(value) / len(self._values), self.dtype)
        for copy in self._values:
            getattr(copy, method)(value)
        return self if read_value else None


def select_replica(replica_id, structure):
    """Replica ``replica_id``'s part of ``structure``: PerReplica and Mirrored values give
    their component; distributed variables stay whole (a replica resolves them itself)."""
    def part(x):
        if isinstance(x, _Distributed) and not isinstance(x, Variable):
            return x.values[replica_id]
        return x

    return nest.map_structure(part, structure)


def _container(values):
    """The MirroredVariable whose copies ``values`` are, in order, else None."""
    first = values[0]
    owner = getattr(first, "_tt_mirrored_by", None)
    if owner is not None and len(owner.values) == len(values) and all(
            getattr(v, "_tt_mirrored_by", None) is owner for v in values):
        return owner
    return None


def regroup(values, wrap=PerReplica):
    """One structure from the replicas' structures ``values``: leaves that are one object on
    every replica stay that object, copies of one MirroredVariable give it, others become
    ``wrap`` (PerReplica) of the replicas' leaves (TF's ``regroup``)."""
    first = values[0]
    if isinstance(first, (list, tuple)) and not hasattr(first, "_fields"):
        return type(first)(regroup(tuple(v[i] for v in values), wrap)
                           for i in range(len(first)))
    if isinstance(first, tuple):  # a namedtuple
        return type(first)(*(regroup(tuple(v[i] for v in values), wrap)
                             for i in range(len(first))))
    if isinstance(first, dict):
        return type(first)((k, regroup(tuple(v[k] for v in values), wrap)) for k in first)
    if all(v is first for v in values):
        return first
    owner = _container(values)
    if owner is not None:
        return owner
    return wrap(values)


def in_replica_of(strategy):
    """Whether code runs in a replica of ``strategy`` (not in cross-replica context)."""
    return _current_replica(strategy) is not None and not in_cross_replica_context()
