"""Input under a strategy: `InputContext`, `AutoShardPolicy`, and the distributed datasets.

`experimental_distribute_dataset` treats each batch of the dataset as a global batch and gives
each worker its share, as TensorFlow's rebatching does: the per-replica batch sizes are the
global batch size split as evenly as possible (the first replicas get one more), taken in
order from each batch, so a short last batch may leave the last workers an empty one. With
`AutoShardPolicy.OFF` each worker reads every share of every batch instead.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Optional

import numpy as np

from tapeflow.data.options import AutoShardPolicy
from tapeflow.framework import nest
from tapeflow.framework.tensor_conversion import convert_to_tensor


class InputContext:
    """What a `dataset_fn` of `distribute_datasets_from_function` is told about its input
    pipeline (`tf.distribute.InputContext`)."""

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0,
                 num_replicas_in_sync: int = 1) -> None:
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas over all workers."""
        return self._num_replicas_in_sync

    @property
    def input_pipeline_id(self) -> int:
        """This pipeline's index (the worker's rank)."""
        return self._input_pipeline_id

    @property
    def num_input_pipelines(self) -> int:
        """The number of input pipelines (workers)."""
        return self._num_input_pipelines

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """`global_batch_size` split over the replicas; it must divide evenly."""
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync} ")
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self) -> str:
        return (f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, "
                f"total: {self._num_input_pipelines})")


class ValueContext:
    """What `experimental_distribute_values_from_function`'s function is told."""

    def __init__(self, replica_id_in_sync_group: int = 0, num_replicas_in_sync: int = 1):
        self._replica_id_in_sync_group = replica_id_in_sync_group
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> int:
        """This replica's index."""
        return self._replica_id_in_sync_group

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas."""
        return self._num_replicas_in_sync


def replica_batch_sizes(global_batch_size: int, num_replicas: int) -> list:
    """TensorFlow's per-replica batch sizes of a global batch: even, the first ones one more."""
    base, extra = divmod(int(global_batch_size), num_replicas)
    return [base + 1] * extra + [base] * (num_replicas - extra)


def batch_share(batch: Any, rank: int, size: int, global_batch_size: Optional[int] = None):
    """Worker `rank`'s share of a global batch (a nest of arrays or tensors, batch-major):
    the slice TensorFlow's rebatching gives that replica. `global_batch_size` defaults to this
    batch's size."""
    if size == 1:
        return batch
    length = batch_length(batch)
    if length is None:
        return batch
    sizes = replica_batch_sizes(global_batch_size or length, size)
    start = min(sum(sizes[:rank]), length)
    stop = min(start + sizes[rank], length)
    return nest.map_structure(lambda leaf: leaf if leaf is None else leaf[start:stop], batch)


def batch_length(batch: Any) -> Optional[int]:
    """The leading (batch) dimension of a batch's leaves (None when it has none)."""
    leaves = [leaf for leaf in nest.flatten(batch) if leaf is not None]
    if not leaves:
        return None
    if not np.ndim(_array(leaves[0])):
        raise ValueError("tapeflow's distributed input needs batched elements (a leading batch "
                         "dimension to split over the workers); batch the dataset first.")
    return int(np.shape(_array(leaves[0]))[0])


def _array(leaf: Any) -> Any:
    return getattr(leaf, "_value", leaf)


def _static_batch_size(dataset: Any) -> Optional[int]:
    """The size the dataset batches by, found through the transformations after its last
    `batch` (None when there is none: the first batch's size is used)."""
    from tapeflow.data.dataset_ops import BatchDataset, UnaryDataset
    while isinstance(dataset, UnaryDataset):
        if isinstance(dataset, BatchDataset):
            return dataset._size
        if type(dataset).__name__ in ("MapDataset", "ParallelMapDataset", "FilterDataset",
                                      "UnbatchDataset", "RebatchDataset"):
            return None  # the elements after this are not the batches any more
        dataset = dataset._input
    return None


def _shard_policy(dataset: Any) -> AutoShardPolicy:
    try:
        policy = dataset.options().experimental_distribute.auto_shard_policy
    except AttributeError:
        policy = None
    return AutoShardPolicy.AUTO if policy is None else AutoShardPolicy(int(policy))


class DistributedDataset:
    """A dataset whose global batches each worker iterates its share of."""

    def __init__(self, strategy: Any, dataset: Any) -> None:
        self._strategy = strategy
        self._dataset = dataset
        communicator = strategy.extended._communicator
        self._rank = 0 if communicator is None else communicator.rank
        self._size = 1 if communicator is None else communicator.size
        self._policy = _shard_policy(dataset)
        if self._size > 1 and self._policy in (AutoShardPolicy.FILE, AutoShardPolicy.HINT):
            raise NotImplementedError(
                f"tapeflow shards distributed datasets by data (AutoShardPolicy.DATA, AUTO or "
                f"OFF); AutoShardPolicy.{self._policy.name} is not implemented.")
        self._global_batch_size = _static_batch_size(dataset)

    @property
    def element_spec(self) -> Any:
        """The spec of the elements each worker gets (batch dimension unknown)."""
        return self._dataset.element_spec

    def __iter__(self) -> Iterator:
        size, rank = self._size, self._rank
        if size == 1:
            yield from self._dataset
            return
        global_size = self._global_batch_size
        for batch in self._dataset:
            if global_size is None:
                global_size = batch_length(batch)
            shares = range(size) if self._policy is AutoShardPolicy.OFF else (rank,)
            for r in shares:
                yield _as_tensors(batch_share(batch, r, size, global_size))

    def reduce(self, initial_state: Any, reduce_func: Callable) -> Any:
        """Folds `reduce_func` over this worker's elements."""
        state = initial_state
        for element in self:
            state = reduce_func(state, element)
        return state


class DistributedDatasetsFromFunction:
    """The dataset `dataset_fn(InputContext)` makes for this worker."""

    def __init__(self, strategy: Any, dataset_fn: Callable) -> None:
        communicator = strategy.extended._communicator
        rank = 0 if communicator is None else communicator.rank
        size = 1 if communicator is None else communicator.size
        self._input_context = InputContext(size, rank, strategy.num_replicas_in_sync)
        self._dataset = dataset_fn(self._input_context)

    @property
    def element_spec(self) -> Any:
        """The spec of this worker's dataset's elements."""
        return self._dataset.element_spec

    def __iter__(self) -> Iterator:
        return iter(self._dataset)


def _as_tensors(batch: Any) -> Any:
    return nest.map_structure(lambda x: x if x is None else convert_to_tensor(x), batch)


__all__ = ["AutoShardPolicy", "InputContext", "ValueContext", "DistributedDataset",
           "DistributedDatasetsFromFunction", "batch_share", "replica_batch_sizes"]
