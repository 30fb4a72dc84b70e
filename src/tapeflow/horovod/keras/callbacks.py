"""Horovod's Keras callbacks (`horovod.tensorflow.keras.callbacks`)."""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import numpy as np

from tapeflow import horovod as _hvd
from tapeflow.keras.callbacks import Callback

__all__ = ["BroadcastGlobalVariablesCallback", "MetricAverageCallback",
           "LearningRateScheduleCallback", "LearningRateWarmupCallback"]


class BroadcastGlobalVariablesCallback(Callback):
    """Makes every rank start from rank `root_rank`'s weights (random initialization or a
    restored checkpoint).

    The model's variables are broadcast when training begins (if it is built), and, as
    Horovod does, the model's and the optimizer's after the first batch (the optimizer makes
    its variables in the first step).
    """

    def __init__(self, root_rank: int, device: str = "") -> None:
        super().__init__()
        self.root_rank = root_rank
        self.device = device
        self.broadcast_done = False

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        if not self.broadcast_done and getattr(self.model, "built", False):
            _hvd.broadcast_variables(self.model.variables, self.root_rank)

    def on_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        if self.broadcast_done:
            return
        _hvd.broadcast_variables(self.model.variables, self.root_rank)
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None:
            _hvd.broadcast_variables(optimizer.variables, self.root_rank)
        self.broadcast_done = True


class MetricAverageCallback(Callback):
    """Replaces each epoch's metrics by their average over the ranks (in sorted name order,
    so every rank reduces the same list). Put it before callbacks that read the metrics."""

    def __init__(self, device: str = "") -> None:
        super().__init__()
        self.device = device

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if not logs:
            return
        keys = sorted(logs)
        values = [np.asarray(logs[k], dtype=np.float64) for k in keys]
        averaged = _hvd._world().allreduce(values, op="mean", names=keys)
        for k, v in zip(keys, averaged):
            logs[k] = float(v)


def _get_lr(optimizer: Any) -> float:
    return float(np.asarray(optimizer.learning_rate))


class LearningRateScheduleCallback(Callback):
    """Sets the learning rate to `initial_lr * multiplier(epoch)` between `start_epoch` and
    `end_epoch` (a constant multiplier: once per epoch; a function: per batch unless
    `staircase`), correcting SGD's momentum by new_lr / old_lr for that batch."""

    def __init__(self, initial_lr: float, multiplier: Union[float, Callable],
                 start_epoch: int = 0, end_epoch: Optional[int] = None,
                 staircase: bool = True, momentum_correction: bool = True,
                 steps_per_epoch: Optional[int] = None) -> None:
        super().__init__()
        if initial_lr is None:
            raise ValueError("Parameter `initial_lr` is required")
        self.initial_lr = initial_lr
        self.start_epoch = start_epoch
        self.end_epoch = end_epoch
        self.staircase = staircase
        self.momentum_correction = momentum_correction
        self.steps_per_epoch = steps_per_epoch
        self.restore_momentum = None
        self.current_epoch = None
        if callable(multiplier):
            self.multiplier = multiplier
        else:
            self.staircase = True
            self.multiplier = lambda epoch: multiplier

    def _adjust_learning_rate(self, epoch: float) -> None:
        optimizer = self.model.optimizer
        old_lr = _get_lr(optimizer)
        new_lr = self.initial_lr * self.multiplier(epoch)
        optimizer.learning_rate = new_lr
        if self.momentum_correction and getattr(optimizer, "momentum", None) and old_lr:
            self.restore_momentum = optimizer.momentum
            optimizer.momentum = self.restore_momentum * new_lr / old_lr

    def _restore_momentum_if_needed(self) -> None:
        if self.restore_momentum:
            self.model.optimizer.momentum = self.restore_momentum
            self.restore_momentum = None

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        if not self.staircase and not self.steps_per_epoch:
            steps = (self.params or {}).get("steps")
            if not steps:
                raise ValueError("Could not autodetect the number of steps per epoch. Please "
                                 "specify the steps_per_epoch parameter to the "
                                 f"{type(self).__name__}().")
            self.steps_per_epoch = steps

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self.current_epoch = epoch

    def on_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        if self.current_epoch < self.start_epoch or (
                self.end_epoch is not None and self.current_epoch >= self.end_epoch):
            return
        if self.staircase and batch == 0:
            self._adjust_learning_rate(self.current_epoch)
        elif not self.staircase:
            self._adjust_learning_rate(self.current_epoch + float(batch) / self.steps_per_epoch)

    def on_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        self._restore_momentum_if_needed()

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if logs is not None:
            logs["lr"] = _get_lr(self.model.optimizer)


class LearningRateWarmupCallback(LearningRateScheduleCallback):
    """Ramps the learning rate from `initial_lr / size()` to `initial_lr` over
    `warmup_epochs` epochs, per batch (Goyal et al., "Accurate, Large Minibatch SGD")."""

    def __init__(self, initial_lr: float, warmup_epochs: int = 5,
                 momentum_correction: bool = True, steps_per_epoch: Optional[int] = None,
                 verbose: int = 0) -> None:
        def multiplier(epoch: float) -> float:
            # Shifted by one batch so each epoch ends on a round value, as Horovod does.
            epoch += 1.0 / self.steps_per_epoch
            n = _hvd.size()
            return 1.0 / n * (epoch * (n - 1) / warmup_epochs + 1)

        super().__init__(initial_lr, multiplier, start_epoch=0, end_epoch=warmup_epochs,
                         staircase=False, momentum_correction=momentum_correction,
                         steps_per_epoch=steps_per_epoch)
        self.verbose = verbose

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        super().on_epoch_end(epoch, logs)
        if epoch == self.end_epoch - 1 and self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: finished gradual learning rate warmup to "
                  f"{_get_lr(self.model.optimizer):g}.")
