"""``tf.distribute`` (this package is the namespace): the default strategy, its replica context
and the types code written for strategies checks values against; MirroredStrategy,
OneDeviceStrategy and CentralStorageStrategy on this machine's (logical) devices;
MultiWorkerMirroredStrategy over worker processes, which ``run_on_ray`` starts as Ray actors
(Ray, an optional extra, is imported when they start)."""

from .strategy import (DistributedDataset, DistributedIterator,  # noqa: F401
                       DistributedValues, InputContext, ReduceOp, ReplicaContext, Strategy,
                       StrategyExtended, ValueContext, experimental_set_strategy,
                       get_replica_context, get_strategy, has_strategy,
                       in_cross_replica_context)
from .central_storage import CentralStorageStrategy  # noqa: F401
from .cross_device_ops import (CrossDeviceOps, HierarchicalCopyAllReduce,  # noqa: F401
                               NcclAllReduce, ReductionToOneDevice)
from .mirrored import MirroredStrategy, OneDeviceStrategy  # noqa: F401
from .multi_worker import (ClusterSpec, CommunicationImplementation,  # noqa: F401
                           CommunicationOptions, MultiWorkerMirroredStrategy,
                           TFConfigClusterResolver)
from .ray_backend import RayWorkers, run_on_ray  # noqa: F401
from .unprovided import ParameterServerStrategy, TPUStrategy  # noqa: F401
