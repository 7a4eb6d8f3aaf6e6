"""``tf.distribute.CrossDeviceOps`` and the algorithms a MirroredStrategy may be given
(``ReductionToOneDevice``, ``HierarchicalCopyAllReduce``, ``NcclAllReduce``). On one machine's
CPU devices they all add the replicas' values in replica order; the result is on every
destination (a ``Mirrored``)."""

from .. import nest
from .._export import tf_export
from ..convert import convert_to_tensor
from ..ops.array.passthrough import identity
from ..ops.math.casting import cast
from ..tensor import Tensor
from .strategy import DistributedValues, ReduceOp
from .values import Mirrored, PerReplica


def all_reduce(reduce_op, value, strategy=None, copies=None):
    """The sum (or mean) of ``value``'s per-replica parts, one copy per replica (``copies``
    of them if given), as a Mirrored that resolves to the running replica's copy."""
    parts = [convert_to_tensor(v) for v in value.values]
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    if reduce_op is ReduceOp.MEAN:
        total = total / cast(len(parts), total.dtype)
    n = len(parts) if copies is None else copies
    out = Mirrored([total] + [identity(total) for _ in range(n - 1)])  # a copy per device
    out._strategy = strategy
    return out


def _per_replica(value):
    if isinstance(value, DistributedValues):
        return value
    if not isinstance(value, Tensor):
        value = convert_to_tensor(value)
    return PerReplica((value,))


@tf_export("distribute.CrossDeviceOps")
class CrossDeviceOps:
    """How per-replica values are combined across devices (``reduce``, ``batch_reduce``,
    ``broadcast``)."""

    def reduce(self, reduce_op, per_replica_value, destinations, options=None):
        """``per_replica_value``'s parts combined, on the devices of ``destinations``."""
        if reduce_op not in (ReduceOp.SUM, ReduceOp.MEAN):  # TF's check: the enum only
            raise ValueError("`reduce_op` must be Reduce.SUM or Reduce.MEAN.")
        return all_reduce(reduce_op, _per_replica(per_replica_value),
                          copies=_count(destinations))

    def batch_reduce(self, reduce_op, value_destination_pairs, options=None):
        """``reduce`` of each (value, destinations) pair."""
        pairs = list(value_destination_pairs)
        for pair in pairs:
            if not isinstance(pair, tuple):
                raise ValueError("Each element of `value_destination_pairs` should be a tuple.")
            if len(pair) != 2:
                raise ValueError("Each element of `value_destination_pairs` should be a tuple "
                                 "of size 2.")
        return [self.reduce(reduce_op, v, d, options) for v, d in pairs]

    def broadcast(self, tensor, destinations):
        """``tensor`` on every device of ``destinations``."""
        n = _count(destinations)
        return Mirrored([tensor] + [identity(tensor) for _ in range(n - 1)])


def _count(destinations):
    """How many devices ``destinations`` names (a distributed value: one per replica)."""
    values = getattr(destinations, "values", None)
    if isinstance(values, tuple):
        return len(values)
    if isinstance(destinations, (list, tuple)):
        return len(nest.flatten(destinations))
    return 1


@tf_export("distribute.ReductionToOneDevice")
class ReductionToOneDevice(CrossDeviceOps):
    """Reduce on one device, then copy the result to the others (TF's choice on CPUs)."""

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn


class _AllReduce(CrossDeviceOps):
    _algorithm = ""

    def __init__(self, num_packs=1):
        if num_packs < 0:
            raise ValueError(f"{self._algorithm} requires num_packs >= 0, but {num_packs} is "
                             "specified")
        self._num_packs = num_packs


@tf_export("distribute.NcclAllReduce")
class NcclAllReduce(_AllReduce):
    """NCCL's all-reduce on GPUs; on CPU devices the same sums."""

    _algorithm = "NCCL all-reduce"


@tf_export("distribute.HierarchicalCopyAllReduce")
class HierarchicalCopyAllReduce(_AllReduce):
    """Hierarchical copies between GPUs; on CPU devices the same sums."""

    _algorithm = "HierarchicalCopy"
