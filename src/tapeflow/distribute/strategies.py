"""The strategies: `MirroredStrategy`, `OneDeviceStrategy`, `MultiWorkerMirroredStrategy`,
and the `TF_CONFIG` cluster resolver the multi-worker one reads.

tapeflow's only device is the CPU, so each process runs one replica (as TensorFlow on a
CPU-only machine). Workers are the ranks of the MPI job (`mpiexec -n N python train.py`);
`TF_CONFIG`, when set, must describe the same job.
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional, Sequence

from tapeflow.distribute.distribute_lib import Strategy, StrategyExtended


class MirroredExtended(StrategyExtended):
    """`MirroredStrategy.extended`."""


class MirroredStrategy(Strategy):
    """Synchronous training on this machine's replicas: one (the CPU), as TensorFlow
    without GPUs. Variables created in its scope are `MirroredVariable`s."""

    def __init__(self, devices: Optional[Sequence[str]] = None,
                 cross_device_ops: Any = None) -> None:
        if devices is not None and len(list(devices)) > 1:
            raise ValueError(f"tapeflow has one device (the CPU), so a MirroredStrategy has "
                             f"one replica; got devices={list(devices)}. Use "
                             "MultiWorkerMirroredStrategy with `mpiexec -n N` for more.")
        super().__init__(MirroredExtended(self, None))


class OneDeviceExtended(StrategyExtended):
    """`OneDeviceStrategy.extended`."""


class OneDeviceStrategy(Strategy):
    """Everything on one device; variables stay plain `tf.Variable`s."""

    def __init__(self, device: str) -> None:
        self._device = device
        super().__init__(OneDeviceExtended(self, None, mirror_variables=False))


class ClusterSpec:
    """The jobs of a cluster and their task addresses (`tf.train.ClusterSpec`)."""

    def __init__(self, cluster: Any) -> None:
        self._cluster = {job: list(tasks) for job, tasks in dict(cluster or {}).items()}

    def as_dict(self) -> dict:
        """The cluster as {job name: [addresses]}."""
        return {job: list(tasks) for job, tasks in self._cluster.items()}

    def num_tasks(self, job_name: str) -> int:
        """The number of tasks of `job_name`."""
        return len(self._cluster.get(job_name, []))

    @property
    def jobs(self) -> list:
        """The job names."""
        return list(self._cluster)

    def __bool__(self) -> bool:
        return bool(self._cluster)


class TFConfigClusterResolver:
    """The cluster, task type and task index of this process from the `TF_CONFIG`
    environment variable (JSON: {"cluster": {...}, "task": {"type": ..., "index": ...}})."""

    def __init__(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
                 rpc_layer: Optional[str] = None, environment: Optional[str] = None) -> None:
        config = _tf_config()
        task = config.get("task", {}) or {}
        self.task_type = task_type if task_type is not None else task.get("type")
        task_id = task_id if task_id is not None else task.get("index")
        self.task_id = None if task_id is None else int(task_id)
        self.rpc_layer = rpc_layer if rpc_layer is not None else config.get("rpc_layer")
        self.environment = environment if environment is not None else config.get("environment")
        self._cluster_spec = ClusterSpec(config.get("cluster", {}))

    def cluster_spec(self) -> ClusterSpec:
        """The cluster TF_CONFIG describes (empty without TF_CONFIG)."""
        return self._cluster_spec

    def num_accelerators(self, task_type: Any = None, task_id: Any = None,
                         config_proto: Any = None) -> dict:
        """No accelerators: tapeflow runs on the CPU."""
        return {}


def _tf_config() -> dict:
    text = os.environ.get("TF_CONFIG", "")
    if not text.strip():
        return {}
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"TF_CONFIG is not valid JSON: {e}. Received: {text!r}") from e


def _worker_index(resolver: Any) -> tuple:
    """(this task's index among the workers, the number of workers) from the resolver's
    cluster: the chief first, then the workers, as TensorFlow numbers them."""
    spec = resolver.cluster_spec()
    cluster = spec.as_dict() if hasattr(spec, "as_dict") else dict(spec)
    chiefs, workers = len(cluster.get("chief", [])), len(cluster.get("worker", []))
    task_type, task_id = resolver.task_type, int(resolver.task_id or 0)
    if task_type == "chief":
        index = task_id
    elif task_type == "worker":
        index = chiefs + task_id
    else:
        raise ValueError(f"MultiWorkerMirroredStrategy runs chief and worker tasks; this task "
                         f"is {task_type!r} (TF_CONFIG's task type).")
    return index, chiefs + workers


class CollectiveAllReduceExtended(StrategyExtended):
    """`MultiWorkerMirroredStrategy.extended`: the MPI job is the group of workers."""


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous data-parallel training over processes: each MPI rank is a worker with one
    replica; variables are mirrored (rank 0's initial values broadcast at creation) and
    gradients summed with MPI allreduce. `TF_CONFIG` (or `cluster_resolver`), when it names
    a cluster, must agree with the MPI job: its worker count with the job's size, this task's
    index (chief first) with this process's rank."""

    def __init__(self, cluster_resolver: Any = None, communication_options: Any = None) -> None:
        from tapeflow.distribute.distribute_lib import _world
        communicator = _world()
        resolver = cluster_resolver if cluster_resolver is not None else \
            TFConfigClusterResolver()
        if resolver.cluster_spec():
            index, count = _worker_index(resolver)
            if count != communicator.size or index != communicator.rank:
                raise ValueError(
                    f"The cluster ({count} workers; this task {resolver.task_type!r} "
                    f"{resolver.task_id}, worker index {index}) does not match the MPI job "
                    f"(size {communicator.size}, this process rank {communicator.rank}): "
                    f"tapeflow's workers are MPI ranks, so launch with `mpiexec -n {count}` "
                    "and give rank r the task index r (the chief is rank 0).")
        elif communicator.size > 1:  # the MPI job alone describes the cluster
            resolver.task_type = "worker"
            resolver.task_id = communicator.rank
        else:  # one worker and no cluster: TensorFlow's resolver knows no task
            resolver.task_type = resolver.task_id = None
        self._cluster_resolver = resolver
        super().__init__(CollectiveAllReduceExtended(self, communicator))

    @property
    def cluster_resolver(self) -> Any:
        """The resolver: `task_type` and `task_id` of this worker."""
        return self._cluster_resolver


__all__ = ["MirroredStrategy", "OneDeviceStrategy", "MultiWorkerMirroredStrategy",
           "TFConfigClusterResolver", "ClusterSpec"]
