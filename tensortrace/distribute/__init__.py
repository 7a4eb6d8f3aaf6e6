"""``tf.distribute`` (this package is the namespace): the default strategy, its replica context
and the types code written for strategies checks values against. One replica only."""

from .strategy import (DistributedDataset, DistributedIterator,  # noqa: F401
                       DistributedValues, InputContext, ReduceOp, ReplicaContext, Strategy,
                       StrategyExtended, experimental_set_strategy, get_replica_context,
                       get_strategy, has_strategy, in_cross_replica_context)
from .unprovided import (MirroredStrategy, MultiWorkerMirroredStrategy,  # noqa: F401
                         OneDeviceStrategy, ParameterServerStrategy, TPUStrategy)
