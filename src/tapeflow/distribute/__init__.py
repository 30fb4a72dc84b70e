"""tf.distribute: training across replicas and processes (MPI is the transport between
processes, see tapeflow.distribute.collective).

One replica per process: `MirroredStrategy` and `OneDeviceStrategy` run one (the CPU, as
TensorFlow without accelerators); `MultiWorkerMirroredStrategy` one per MPI rank.
"""

import types as _types

from tapeflow.distribute.distribute_lib import (ReduceOp, ReplicaContext, Strategy,
                                                StrategyExtended, get_cross_replica_context,
                                                get_replica_context, get_strategy,
                                                has_strategy, in_cross_replica_context)
from tapeflow.distribute.input_lib import InputContext
from tapeflow.distribute.strategies import (MirroredStrategy, MultiWorkerMirroredStrategy,
                                            OneDeviceStrategy, TFConfigClusterResolver)
from tapeflow.distribute.values import DistributedValues

cluster_resolver = _types.ModuleType(f"{__name__}.cluster_resolver",
                                     "`tf.distribute.cluster_resolver`.")
cluster_resolver.TFConfigClusterResolver = TFConfigClusterResolver
experimental = _types.ModuleType(f"{__name__}.experimental", "`tf.distribute.experimental`.")
experimental.MultiWorkerMirroredStrategy = MultiWorkerMirroredStrategy

__all__ = ["ReduceOp", "ReplicaContext", "Strategy", "StrategyExtended", "InputContext",
           "MirroredStrategy", "MultiWorkerMirroredStrategy", "OneDeviceStrategy",
           "DistributedValues", "get_strategy", "has_strategy", "in_cross_replica_context",
           "get_replica_context", "get_cross_replica_context", "cluster_resolver",
           "experimental"]
