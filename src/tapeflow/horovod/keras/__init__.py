"""The Horovod-style API for Keras, modelled on `horovod.tensorflow.keras`:
`import tapeflow.horovod.keras as hvd`, then `hvd.DistributedOptimizer(opt)` and the
callbacks in `hvd.callbacks`.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow import horovod as _hvd
from tapeflow.horovod import (  # noqa: F401  (horovod.tensorflow.keras re-exports these)
    Adasum, Average, Compression, Max, Min, Product, Sum, allgather_object, broadcast_object,
    cross_rank, cross_size, init, is_initialized, local_rank, local_size, mpi_built,
    mpi_enabled, mpi_threads_supported, rank, shutdown, size,
)
from tapeflow.horovod.keras import callbacks  # noqa: F401

__all__ = [
    "init", "shutdown", "is_initialized", "rank", "size", "local_rank", "local_size",
    "cross_rank", "cross_size", "Average", "Sum", "Adasum", "Compression",
    "DistributedOptimizer", "broadcast_global_variables", "allreduce", "allgather",
    "broadcast", "broadcast_object", "allgather_object", "callbacks",
]


class _DistributedOptimizer:
    """Mixed into the wrapped optimizer's class: `apply` (which `apply_gradients` and
    `fit` go through) first averages the gradients across ranks in one fused allreduce."""

    def apply(self, grads: Any, trainable_variables: Any = None) -> None:
        grads = list(grads)
        if self._hvd_backward_passes > 1:
            grads = self._hvd_accumulate(grads)
            if grads is None:  # not a communication step: only the step counter moves
                self._iterations.assign_add(np.int64(1))
                return
        if trainable_variables is not None:
            trainable_variables = list(trainable_variables)
        variables = trainable_variables if trainable_variables is not None \
            else self._trainable_variables
        names = [f"gradient of {getattr(v, 'name', i)}" for i, v in enumerate(variables)]
        if self._hvd_sparse_as_dense:
            grads = [_hvd.convert_to_tensor(g) if isinstance(g, _hvd.IndexedSlices) else g
                     for g in grads]
        grads = _hvd._allreduce_list(grads, self._hvd_op, names,
                                     compression=self._hvd_compression)
        super().apply(grads, trainable_variables)

    def _hvd_accumulate(self, grads: list) -> Optional[list]:
        """Sums `backward_passes_per_step` passes locally; the sum (or mean) at the last."""
        sums = self._hvd_sums
        if sums is None:
            sums = [None if g is None else np.array(_hvd.convert_to_tensor(g).numpy())
                    for g in grads]
        else:
            sums = [s if g is None else s + _hvd.convert_to_tensor(g).numpy()
                    for s, g in zip(sums, grads)]
        self._hvd_passes += 1
        if self._hvd_passes < self._hvd_backward_passes:
            self._hvd_sums = sums
            return None
        self._hvd_sums, self._hvd_passes = None, 0
        if self._hvd_average_aggregated:
            sums = [None if s is None else (s / self._hvd_backward_passes).astype(s.dtype)
                    for s in sums]
        return [None if s is None else _hvd.convert_to_tensor(s) for s in sums]


def DistributedOptimizer(optimizer: Any, name: Optional[str] = None, device_dense: str = "",
                         device_sparse: str = "", compression: Any = Compression.none,
                         sparse_as_dense: bool = False, gradient_predivide_factor: float = 1.0,
                         op: int = Average, backward_passes_per_step: int = 1,
                         average_aggregated_gradients: bool = False, num_groups: int = 0,
                         groups: Any = None, process_set: Any = None,
                         scale_local_gradients: bool = True) -> Any:
    """A new optimizer of `optimizer`'s class and config whose updates use the gradients
    averaged (op) across ranks. `backward_passes_per_step=k` sums k passes locally and
    communicates and applies on every k-th (averaged over k if
    `average_aggregated_gradients`)."""
    _hvd._check_op(op)
    if gradient_predivide_factor != 1.0:
        raise NotImplementedError("gradient_predivide_factor is not supported by "
                                  "tapeflow.horovod.keras.DistributedOptimizer")
    if int(backward_passes_per_step) < 1:
        raise ValueError("backward_passes_per_step must be >= 1")
    base = type(optimizer)
    cls = type(base.__name__, (_DistributedOptimizer, base), {})
    wrapped = cls.from_config(optimizer.get_config())
    wrapped._hvd_op = op
    wrapped._hvd_compression = compression
    wrapped._hvd_sparse_as_dense = sparse_as_dense
    wrapped._hvd_backward_passes = int(backward_passes_per_step)
    wrapped._hvd_average_aggregated = average_aggregated_gradients
    wrapped._hvd_sums, wrapped._hvd_passes = None, 0
    return wrapped


def broadcast_global_variables(root_rank: int) -> None:
    """Horovod's TF1 call; in TF2 broadcast the model's and optimizer's variables instead."""
    raise RuntimeError("hvd.broadcast_global_variables() does not support eager execution. "
                       "Please use `hvd.broadcast_variables(<model/optimizer variables>)` "
                       "instead.")


def allreduce(value: Any, name: Optional[str] = None, average: Optional[bool] = None,
              prescale_factor: float = 1.0, postscale_factor: float = 1.0,
              op: Optional[int] = None, compression: Any = Compression.none) -> np.ndarray:
    """The value reduced across ranks (default: averaged), as a NumPy value."""
    return _hvd.allreduce(value, average=average, op=op, name=name,
                          prescale_factor=prescale_factor, postscale_factor=postscale_factor,
                          compression=compression).numpy()


def allgather(value: Any, name: Optional[str] = None) -> np.ndarray:
    """Every rank's value concatenated on axis 0, as a NumPy value."""
    return _hvd.allgather(value, name=name).numpy()


def broadcast(value: Any, root_rank: int, name: Optional[str] = None) -> np.ndarray:
    """Rank `root_rank`'s value, as a NumPy value."""
    return _hvd.broadcast(value, root_rank, name=name).numpy()


def broadcast_variables(variables: Any, root_rank: int) -> None:
    """Assigns rank `root_rank`'s values to the variables on every rank."""
    _hvd.broadcast_variables(variables, root_rank)
