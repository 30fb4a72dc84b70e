"""`keras.callbacks`: hooks into `fit` / `evaluate` / `predict`, with Keras 3's behaviour.

`CallbackList` dispatches each hook to every callback; `fit` always adds a `History` and,
unless verbose=0, a `ProgbarLogger`.
"""

from __future__ import annotations

import operator
import os
import warnings
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.keras.utils.progbar import Progbar, print_msg


class Callback:
    """Base class of callbacks: override any of the `on_*` hooks.

    `self.model` is the model being trained and `self.params` holds
    {'verbose', 'epochs', 'steps'}.
    """

    def __init__(self) -> None:
        self.params: Optional[dict] = None
        self._model: Any = None

    def set_params(self, params: dict) -> None:
        """Stores the training parameters ({'verbose', 'epochs', 'steps'})."""
        self.params = params

    def set_model(self, model: Any) -> None:
        """Attaches the model the callback observes (`self.model`)."""
        self._model = model

    @property
    def model(self) -> Any:
        """The model being trained, evaluated or used for prediction."""
        return self._model

    def on_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """A backwards-compatible alias of `on_train_batch_begin`."""

    def on_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """A backwards-compatible alias of `on_train_batch_end`."""

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        """Called at the start of each training epoch."""

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        """Called at the end of each epoch with its metrics (validation ones prefixed val_)."""

    def on_train_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """Called before each `fit` batch (calls `on_batch_begin`)."""
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """Called after each `fit` batch with its logs (calls `on_batch_end`)."""
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """Called before each `evaluate` batch."""

    def on_test_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """Called after each `evaluate` batch."""

    def on_predict_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """Called before each `predict` batch."""

    def on_predict_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """Called after each `predict` batch."""

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        """Called when `fit` starts."""

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        """Called when `fit` ends, with the last epoch's logs."""

    def on_test_begin(self, logs: Optional[dict] = None) -> None:
        """Called when `evaluate` starts."""

    def on_test_end(self, logs: Optional[dict] = None) -> None:
        """Called when `evaluate` ends."""

    def on_predict_begin(self, logs: Optional[dict] = None) -> None:
        """Called when `predict` starts."""

    def on_predict_end(self, logs: Optional[dict] = None) -> None:
        """Called when `predict` ends."""


_HOOKS = ("on_batch_begin", "on_batch_end", "on_epoch_begin", "on_epoch_end",
          "on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin",
          "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end",
          "on_train_begin", "on_train_end", "on_test_begin", "on_test_end",
          "on_predict_begin", "on_predict_end")


class CallbackList(Callback):
    """Calls each hook on every callback in order."""

    def __init__(self, callbacks: Optional[Sequence[Callback]] = None,
                 add_history: bool = False, add_progbar: bool = False, model: Any = None,
                 **params: Any) -> None:
        super().__init__()
        self.callbacks = list(callbacks or [])
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self.callbacks.append(History())
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def append(self, callback: Callback) -> None:
        """Adds a callback at the end of the list."""
        self.callbacks.append(callback)

    def set_params(self, params: dict) -> None:
        """Stores `params` and passes them to every callback."""
        self.params = params
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model: Any) -> None:
        """Attaches `model` to the list and to every callback."""
        self._model = model
        for c in self.callbacks:
            c.set_model(model)

    def __iter__(self):
        return iter(self.callbacks)


def _dispatcher(hook: str) -> Callable:
    def dispatch(self: CallbackList, *args: Any, **kwargs: Any) -> None:
        # Keras hands the callbacks a copy of the logs (pythonify_logs): what a callback adds
        # (LearningRateScheduler's 'learning_rate') reaches the later callbacks, not the caller.
        if isinstance(kwargs.get("logs"), dict):
            kwargs["logs"] = dict(kwargs["logs"])
        elif args and isinstance(args[-1], dict):
            args = args[:-1] + (dict(args[-1]),)
        for c in self.callbacks:
            getattr(c, hook)(*args, **kwargs)
    dispatch.__name__ = hook
    dispatch.__doc__ = f"Calls `{hook}` on every callback in the list, in order."
    return dispatch


for _hook in _HOOKS:
    setattr(CallbackList, _hook, _dispatcher(_hook))


class History(Callback):
    """Records each epoch's logs in `history` (name -> list); `fit` returns it."""

    def __init__(self) -> None:
        super().__init__()
        self.history: dict = {}
        self.epoch: list = []

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.epoch = []

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        self.model.history = self


class ProgbarLogger(Callback):
    """Prints "Epoch i/n" and a progress bar per epoch (verbose 1) or one line (verbose 2)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0
        self.progbar: Optional[Progbar] = None
        self.target: Optional[int] = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params: dict) -> None:
        """Reads the verbosity, epoch count and steps per epoch from `params`."""
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else verbose
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._called_in_fit = True  # validation inside fit stays silent

    def on_test_begin(self, logs: Optional[dict] = None) -> None:
        if not self._called_in_fit:
            self._reset_progbar()
            self._maybe_init_progbar()

    def on_predict_begin(self, logs: Optional[dict] = None) -> None:
        self._reset_progbar()
        self._maybe_init_progbar()

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._reset_progbar()
        self._maybe_init_progbar()
        if self.verbose and self.epochs > 1:
            print_msg(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """Advances the progress bar with the batch's metrics."""
        self._update_progbar(batch, logs)

    def on_test_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        if not self._called_in_fit:
            self._update_progbar(batch, logs)

    def on_predict_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        self._update_progbar(batch, None)

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._finalize_progbar(logs)

    def on_test_end(self, logs: Optional[dict] = None) -> None:
        if not self._called_in_fit:
            self._finalize_progbar(logs)

    def on_predict_end(self, logs: Optional[dict] = None) -> None:
        self._finalize_progbar(logs)

    def _reset_progbar(self) -> None:
        self.seen = 0
        self.progbar = None

    def _maybe_init_progbar(self) -> None:
        if self.progbar is None:
            self.progbar = Progbar(target=self.target, verbose=self.verbose, unit_name="step",
                                   stateless_metrics=set())

    def _update_progbar(self, batch: int, logs: Optional[dict]) -> None:
        self._maybe_init_progbar()
        self.seen = batch + 1
        if self.verbose == 1:
            self.progbar.update(self.seen, list((logs or {}).items()), finalize=False)

    def _finalize_progbar(self, logs: Optional[dict]) -> None:
        if self.target is None:
            self.target = self.seen
            self.progbar.target = self.target
        self.progbar.update(self.target, list((logs or {}).items()), finalize=True)


class MonitorCallback(Callback):
    """A callback watching one logged quantity, to be minimized or maximized."""

    def __init__(self, monitor: str = "val_loss", mode: str = "auto", baseline: Any = None,
                 min_delta: float = 0) -> None:
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"{self.__class__.__name__} mode '{mode}' is unknown, fallback to "
                          "auto mode.", stacklevel=2)
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op: Optional[Callable] = None

    def _set_monitor_op(self) -> None:
        if self.mode == "min":
            self.monitor_op = operator.lt
        elif self.mode == "max":
            self.monitor_op = operator.gt
        else:
            name = self.monitor.removeprefix("val_")
            if name == "loss":
                self.monitor_op = operator.lt
            for metric in getattr(self.model, "_compiled_metrics", None) or []:
                if metric.name == name:
                    up = getattr(metric, "_direction", "up") == "up"
                    self.monitor_op = operator.gt if up else operator.lt
            if self.monitor_op is None:
                raise ValueError(
                    f"{self.__class__.__name__} callback received monitor={self.monitor}, but "
                    "Keras isn't able to automatically determine whether that metric should be "
                    "maximized or minimized. Pass `mode='max'` in order to monitor based on "
                    "the highest metric value, or pass `mode='min'` in order to use the lowest "
                    "value.")
        if self.monitor_op is operator.lt:
            self.min_delta *= -1

    def _is_improvement(self, value: float, reference: Optional[float]) -> bool:
        return reference is None or bool(self.monitor_op(value - self.min_delta, reference))


class EarlyStopping(MonitorCallback):
    """Stops training when `monitor` has not improved for `patience` epochs."""

    def __init__(self, monitor: str = "val_loss", min_delta: float = 0, patience: int = 0,
                 verbose: int = 0, mode: str = "auto", baseline: Optional[float] = None,
                 restore_best_weights: bool = False, start_from_epoch: int = 0) -> None:
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights = None
        self.start_from_epoch = start_from_epoch

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print_msg(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print_msg("Restoring model weights from the end of the best epoch: "
                          f"{self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs: Optional[dict]) -> Any:
        """The monitored metric from `logs`, or None (with a warning) if absent."""
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(f"Early stopping conditioned on metric `{self.monitor}` which is not "
                          f"available. Available metrics are: {','.join(list(logs.keys()))}",
                          stacklevel=2)
        return value


class ModelCheckpoint(MonitorCallback):
    """Saves the model's weights every epoch (or every `save_freq` batches), optionally only
    when `monitor` improves. tapeflow saves weights only: the filepath must end in
    '.weights.h5' (written in tapeflow's NumPy format, see `tapeflow.keras.saving`)."""

    def __init__(self, filepath: str, monitor: str = "val_loss", verbose: int = 0,
                 save_best_only: bool = False, save_weights_only: bool = False,
                 mode: str = "auto", save_freq: Any = "epoch",
                 initial_value_threshold: Optional[float] = None) -> None:
        super().__init__(monitor, mode, initial_value_threshold)
        self.verbose = verbose
        self.filepath = os.fspath(filepath)
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self._batches_seen_since_last_saving = 0
        self._current_epoch = 0
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are "
                             "'epoch' or integer values")
        if not self.filepath.endswith(".weights.h5"):
            raise ValueError(
                "tapeflow's ModelCheckpoint saves weights only: the filepath must end in "
                f"`.weights.h5` (Keras weights format). Received: filepath={self.filepath}")

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """Saves every `save_freq` batches when `save_freq` is an int."""
        if self.save_freq == "epoch":
            return
        self._batches_seen_since_last_saving += 1
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            self._save_model(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save_model(epoch, None, logs)

    def _should_save(self, epoch: int, logs: dict, filepath: str) -> bool:
        if not self.save_best_only:
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.",
                          stacklevel=2)
            return True
        if self.monitor_op is None:
            self._set_monitor_op()
        best_str = "None" if self.best is None else f"{self.best:.5f}"
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best_str} to "
                          f"{current:.5f}, saving model to {filepath}")
            self.best = current
            return True
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best_str}")
        return False

    def _save_model(self, epoch: int, batch: Optional[int], logs: Optional[dict]) -> None:
        logs = dict(logs or {})
        try:
            if batch is None or "batch" in logs:
                filepath = self.filepath.format(epoch=epoch + 1, **logs)
            else:
                filepath = self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f"Reason: {e}") from e
        if self._should_save(epoch, logs, filepath):
            dirname = os.path.dirname(filepath)
            if dirname:
                os.makedirs(dirname, exist_ok=True)
            self.model.save_weights(filepath, overwrite=True)
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate at each epoch start to `schedule(epoch, lr)`."""

    def __init__(self, schedule: Callable, verbose: int = 0) -> None:
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        optimizer = self.model.optimizer
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        try:
            learning_rate = self.schedule(epoch, float(np.asarray(optimizer.learning_rate)))
        except TypeError:  # the old one-argument API
            learning_rate = self.schedule(epoch)
        if not isinstance(learning_rate, (float, np.float32, np.float64)):
            raise ValueError("The output of the `schedule` function should be a float. "
                             f"Got: {learning_rate}")
        optimizer.learning_rate = learning_rate
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to "
                      f"{learning_rate}.")

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if logs is not None:
            logs["learning_rate"] = float(np.asarray(self.model.optimizer.learning_rate))


class TerminateOnNaN(Callback):
    """Stops training at the first batch whose loss is NaN or Inf: prints `Batch {i}:
    Invalid loss, terminating training` and sets `model.stop_training` (so the epoch ends and
    `on_train_end` runs), or with `raise_error=True` raises RuntimeError at once."""

    def __init__(self, raise_error: bool = False) -> None:
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is None or not (np.isnan(loss) or np.isinf(loss)):
            return
        if self.raise_error:
            raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss value: "
                               f"{loss}. Terminating training immediately.")
        print_msg(f"Batch {batch}: Invalid loss, terminating training")
        self.model.stop_training = True


class LambdaCallback(Callback):
    """A callback built from functions: `LambdaCallback(on_epoch_end=lambda epoch, logs: ...)`."""

    def __init__(self, **hooks: Callable) -> None:
        super().__init__()
        for name, fn in hooks.items():
            if name not in _HOOKS:
                raise ValueError(f"Unrecognized hook: {name}")
            setattr(self, name, fn)


__all__ = ["Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping",
           "ModelCheckpoint", "LearningRateScheduler", "LambdaCallback", "MonitorCallback",
           "TerminateOnNaN"]
