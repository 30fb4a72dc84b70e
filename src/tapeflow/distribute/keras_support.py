"""What Keras's training loops and callbacks do under a strategy: split each global batch
over the workers, sum the metrics' state across them, gather `predict`'s outputs, and give
non-chief workers temporary paths to write checkpoints to (TensorFlow's
`distributed_file_utils`: only the chief's files are kept).
"""

from __future__ import annotations

import os
import shutil
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.distribute import distribute_lib
from tapeflow.distribute.input_lib import (DistributedDataset, DistributedDatasetsFromFunction,
                                           _static_batch_size, batch_length, batch_share)
from tapeflow.framework import nest


def communicator_of(strategy: Any) -> Any:
    """The strategy's group of workers when it has several, else None."""
    if strategy is None or not strategy.extended._in_multi_worker_mode():
        return None
    return strategy.extended._communicator


def num_replicas(strategy: Any) -> int:
    """The replicas in sync (1 without a strategy)."""
    return 1 if strategy is None else strategy.num_replicas_in_sync


def unwrap_dataset(x: Any) -> Any:
    """The dataset a distributed dataset reads (the loops split a DistributedDataset's
    batches again; a dataset from `distribute_datasets_from_function` is this worker's)."""
    if isinstance(x, (DistributedDataset, DistributedDatasetsFromFunction)):
        return x._dataset
    return x


def batch_splitter(strategy: Any, x: Any, batch_size: Optional[int]) -> Callable[[Any], Any]:
    """A function from a global batch to this worker's share of it (identity with one
    worker). The global batch size: `batch_size`, the dataset's, else the first batch's."""
    communicator = communicator_of(strategy)
    if communicator is None or isinstance(x, DistributedDatasetsFromFunction):
        return lambda batch: batch
    global_size = [batch_size or _static_batch_size(unwrap_dataset(x))]

    def split(batch: Any) -> Any:
        if global_size[0] is None:
            global_size[0] = batch_length(batch)
        return batch_share(batch, communicator.rank, communicator.size, global_size[0])
    return split


def synced_metrics_result(strategy: Any, named_metrics: Sequence[tuple]) -> dict:
    """Every (log name, metric)'s result over all workers (its state variables summed across
    them, as Keras's sum-aggregated metric variables), keys sorted; the local state is kept."""
    communicator = communicator_of(strategy)
    variables = [v for _, m in named_metrics for v in m.variables]
    local = [np.array(v._value) for v in variables]
    summed = communicator.allreduce(local, op="sum", names=[v.name for v in variables])
    for variable, value in zip(variables, summed):
        variable.assign(value.astype(variable._value.dtype))
    try:
        logs = {name: float(np.asarray(m.result())) for name, m in named_metrics}
    finally:
        for variable, value in zip(variables, local):
            variable.assign(value)
    return dict(sorted(logs.items()))


def gather_outputs(strategy: Any, outputs: Any) -> Any:
    """`predict`'s outputs of one batch from every worker, in global batch order."""
    communicator = communicator_of(strategy)
    if communicator is None:
        return outputs
    return nest.map_structure(lambda a: communicator.allgather(np.ascontiguousarray(a)),
                              outputs)


def current_strategy(model: Any = None) -> Any:
    """The model's strategy, else the one in scope, else None."""
    strategy = getattr(model, "_distribute_strategy", None)
    if strategy is None and distribute_lib.has_strategy():
        strategy = distribute_lib.get_strategy()
    return strategy


def is_chief(strategy: Any) -> bool:
    """Whether this worker is the chief (rank 0), or training is on one worker."""
    communicator = communicator_of(strategy)
    return communicator is None or communicator.rank == 0


def barrier(strategy: Any) -> None:
    """Waits for every worker (nothing on one)."""
    communicator = communicator_of(strategy)
    if communicator is not None:
        communicator.barrier()


def _temp_dir(dirpath: str, strategy: Any) -> str:
    rank = communicator_of(strategy).rank
    return os.path.join(dirpath, f"workertemp_{rank}")


def write_dirpath(dirpath: str, strategy: Any) -> str:
    """Where this worker writes what belongs in `dirpath`: `dirpath` on the chief, a
    temporary `workertemp_<rank>` folder inside it on the others."""
    if is_chief(strategy):
        return dirpath
    return _temp_dir(dirpath, strategy)


def write_filepath(filepath: str, strategy: Any) -> str:
    """`filepath`, or on a non-chief worker the same name in its temporary folder."""
    dirpath, base = os.path.split(filepath)
    return os.path.join(write_dirpath(dirpath, strategy), base)


def remove_temp_dirpath(dirpath: str, strategy: Any) -> None:
    """Deletes a non-chief worker's temporary folder in `dirpath` (nothing on the chief)."""
    if not is_chief(strategy):
        shutil.rmtree(_temp_dir(dirpath, strategy), ignore_errors=True)


__all__ = ["batch_splitter", "synced_metrics_result", "gather_outputs", "current_strategy",
           "is_chief", "barrier", "write_dirpath", "write_filepath", "remove_temp_dirpath",
           "num_replicas", "communicator_of", "unwrap_dataset"]
