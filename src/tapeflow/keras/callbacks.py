"""`keras.callbacks`: hooks into `fit` / `evaluate` / `predict`, with Keras 3's behaviour.

`CallbackList` dispatches each hook to every callback; `fit` always adds a `History` and,
unless verbose=0, a `ProgbarLogger`.
"""

from __future__ import annotations

import operator
import os
import time
import warnings
from collections.abc import Iterable
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


def pythonify_logs(logs: Optional[dict]) -> dict:
    """Keras's copy of the logs for the callbacks: keys sorted, nested dicts flattened,
    values made Python floats where `float` takes them. What a callback adds
    (LearningRateScheduler's 'learning_rate') reaches the later callbacks, not the caller."""
    result: dict = {}
    for key, value in sorted((logs or {}).items()):
        if isinstance(value, dict):
            result.update(pythonify_logs(value))
            continue
        try:
            value = float(value)
        except Exception:  # noqa: BLE001 - Keras keeps whatever float() refuses
            pass
        result[key] = value
    return result


def _dispatcher(hook: str) -> Callable:
    # Called as Keras's CallbackList calls them: epoch hooks (epoch, logs), batch hooks
    # (batch, logs=logs), begin/end hooks (logs), logs always a dict.
    if "batch" in hook:
        def dispatch(self: CallbackList, batch: int, logs: Optional[dict] = None) -> None:
            logs = pythonify_logs(logs)
            for c in self.callbacks:
                getattr(c, hook)(batch, logs=logs)
    elif "epoch" in hook:
        def dispatch(self: CallbackList, epoch: int, logs: Optional[dict] = None) -> None:
            logs = pythonify_logs(logs)
            for c in self.callbacks:
                getattr(c, hook)(epoch, logs)
    else:
        def dispatch(self: CallbackList, logs: Optional[dict] = None) -> None:
            logs = pythonify_logs(logs)
            for c in self.callbacks:
                getattr(c, hook)(logs)
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
            for logged, metric in getattr(self.model, "_logged_compiled_metrics", list)():
                if logged == name:
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
    """Saves the model every epoch (or every `save_freq` batches), optionally only when
    `monitor` improves: the whole model (`model.save`, a '.keras' file) or, with
    `save_weights_only=True`, its weights (`save_weights`, a '.weights.h5' file), as Keras 3
    (which also takes '.h5' for the model)."""

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
        if save_weights_only and not self.filepath.endswith(".weights.h5"):
            raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the "
                             "filepath provided must end in `.weights.h5` (Keras weights "
                             f"format). Received: filepath={self.filepath}")
        if not save_weights_only and not self.filepath.endswith((".keras", ".h5")):
            raise ValueError("The filepath provided must end in `.keras` (Keras model "
                             f"format). Received: filepath={self.filepath}")

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
            # Under a multi-worker strategy the others write to a temporary folder and delete
            # it: only the chief's file is kept (as Keras's distributed_file_utils).
            from tapeflow.distribute import keras_support as dist
            strategy = dist.current_strategy(self.model)
            write_path = dist.write_filepath(filepath, strategy)
            dirname = os.path.dirname(write_path)
            if dirname:
                os.makedirs(dirname, exist_ok=True)
            if self.save_weights_only:
                self.model.save_weights(write_path, overwrite=True)
            else:
                self.model.save(write_path, overwrite=True)
            dist.remove_temp_dirpath(os.path.dirname(filepath), strategy)
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
    """A callback built from functions: `LambdaCallback(on_epoch_end=lambda epoch, logs: ...)`.

    The six training hooks are named parameters (a None one keeps the no-op method); any
    other keyword becomes an attribute as given (`on_predict_end=...`, as Keras 3.15)."""

    def __init__(self, on_epoch_begin: Optional[Callable] = None,
                 on_epoch_end: Optional[Callable] = None,
                 on_train_begin: Optional[Callable] = None,
                 on_train_end: Optional[Callable] = None,
                 on_train_batch_begin: Optional[Callable] = None,
                 on_train_batch_end: Optional[Callable] = None, **kwargs: Any) -> None:
        super().__init__()
        self.__dict__.update(kwargs)
        hooks = {"on_epoch_begin": on_epoch_begin, "on_epoch_end": on_epoch_end,
                 "on_train_begin": on_train_begin, "on_train_end": on_train_end,
                 "on_train_batch_begin": on_train_batch_begin,
                 "on_train_batch_end": on_train_batch_end}
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)



class ReduceLROnPlateau(MonitorCallback):
    """Multiplies the learning rate by `factor` when `monitor` has not improved for
    `patience` epochs (then waits `cooldown` epochs), down to `min_lr`; logs it as
    'learning_rate'."""

    def __init__(self, monitor: str = "val_loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 0, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0.0, **kwargs: Any) -> None:
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0. "
                             f"Received factor={factor}")
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0

    def _reset(self) -> None:
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._reset()

    def in_cooldown(self) -> bool:
        """Whether the callback is waiting out its cooldown after a reduction."""
        return self.cooldown_counter > 0

    def _reduce_lr(self, epoch: int) -> bool:
        optimizer = self.model.optimizer
        old_lr = float(np.asarray(optimizer.learning_rate))
        if old_lr <= np.float32(self.min_lr):
            return False
        new_lr = max(old_lr * self.factor, self.min_lr)
        optimizer.learning_rate = new_lr
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to "
                      f"{new_lr}.")
        return True

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = logs if logs is not None else {}
        logs["learning_rate"] = float(np.asarray(self.model.optimizer.learning_rate))
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn("Learning rate reduction is conditioned on metric "
                          f"`{self.monitor}` which is not available. Available metrics are: "
                          f"{','.join(list(logs.keys()))}.", stacklevel=2)
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience and self._reduce_lr(epoch):
                self.cooldown_counter = self.cooldown
                self.wait = 0


class CSVLogger(Callback):
    """Writes each epoch's logs to a CSV file: an 'epoch' column, then the log names sorted
    (with 'val_' columns added when the first epoch has none), 'NA' where a value is missing;
    `append=True` continues an existing file without repeating its header."""

    def __init__(self, filename: str, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer: Any = None
        self.keys: Optional[list] = None
        self.append_header = True
        self.csv_file: Any = None

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        else:
            mode = "w"
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode)  # noqa: SIM115 - closed on_train_end
        self.writer = None
        self.keys = None

    @staticmethod
    def _cell(value: Any) -> Any:
        if isinstance(value, str):
            return value
        if isinstance(value, Iterable) and not (isinstance(value, np.ndarray)
                                                and value.ndim == 0):
            return f'"[{", ".join(map(str, value))}]"'
        return value

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        import collections
        import csv
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs.keys())
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys.extend([f"val_{k}" for k in self.keys])
        if not self.writer:
            class CustomDialect(csv.excel):
                delimiter = self.sep
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                         dialect=CustomDialect)
            if self.append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((key, self._cell(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None


class BackupAndRestore(Callback):
    """Backs up the model and optimizer at each epoch end (or every `save_freq` batches) in
    `backup_dir`, and restores them when `fit` starts again after an interruption, so training
    resumes at the epoch after the last backup; the backup is deleted when `fit` ends
    (`delete_checkpoint`). Keras 3 writes `latest.weights.h5`; tapeflow writes a
    `tf.train.Checkpoint` of the model and optimizer (`latest.index` and
    `latest.data-00000-of-00001`, TensorFlow's checkpoint format) next to Keras's
    `training_metadata.json`."""

    def __init__(self, backup_dir: str, save_freq: Any = "epoch",
                 double_checkpoint: bool = False, delete_checkpoint: bool = True) -> None:
        super().__init__()
        self.save_freq = save_freq
        self.double_checkpoint = double_checkpoint
        self.delete_checkpoint = delete_checkpoint
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0
        self._current_epoch = 0
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        self.backup_dir = os.fspath(backup_dir)
        self._weights_prefix = os.path.join(self.backup_dir, "latest")
        self._weights_path = self._weights_prefix + ".index"
        self._weights_data_path = self._weights_prefix + ".data-00000-of-00001"
        self._training_metadata_path = os.path.join(self.backup_dir, "training_metadata.json")
        self._prev_weights_path = f"{self._weights_path}.bkp"
        self._prev_weights_data_path = f"{self._weights_data_path}.bkp"
        self._prev_training_metadata_path = f"{self._training_metadata_path}.bkp"
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError("Invalid value for argument `save_freq`. Received: "
                             f"save_freq={save_freq}. Expected either 'epoch' or an integer "
                             "value.")

    def _checkpoint(self) -> Any:
        from tapeflow.train import Checkpoint
        objects = {"model": self.model}
        if self.model.optimizer is not None:
            objects["optimizer"] = self.model.optimizer
        return Checkpoint(**objects)

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        import shutil
        from tapeflow.distribute import keras_support as dist
        try:
            self._load_model()  # every worker reads the chief's backup
        except (OSError, ValueError) as e:  # a damaged latest backup: fall back to the .bkp
            if not os.path.exists(self._prev_weights_path):
                raise e
            shutil.copy(self._prev_weights_data_path, self._weights_data_path)
            shutil.copy(self._prev_weights_path, self._weights_path)
            if os.path.exists(self._prev_training_metadata_path):
                shutil.copy(self._prev_training_metadata_path, self._training_metadata_path)
            elif os.path.exists(self._training_metadata_path):
                os.remove(self._training_metadata_path)
            self._load_model()
        dist.barrier(dist.current_strategy(self.model))  # all read before the chief writes

    def _load_model(self) -> None:
        import json
        if not getattr(self.model, "built", True):
            raise ValueError("To use the BackupAndRestore callback, you model must be built "
                             f"before you call `fit()`. Model {self.model} is unbuilt. You can "
                             "build it beforehand by calling it on a batch of data.")
        if os.path.exists(self._weights_path):
            optimizer = self.model.optimizer
            if optimizer is not None and not optimizer.built:
                optimizer.build(self.model.trainable_variables)
            self._checkpoint().read(self._weights_prefix)
        if os.path.exists(self._training_metadata_path):
            with open(self._training_metadata_path) as f:
                self.model._initial_epoch = json.loads(f.read())["epoch"]

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._current_epoch = epoch + 1
        self._last_batch_seen = 0
        if self.save_freq == "epoch":
            self._save_model()

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """Backs up every `save_freq` batches when `save_freq` is an int."""
        if self._should_save_on_batch(batch):
            self._save_model()

    def _save_model(self) -> None:
        # Under a multi-worker strategy every worker saves (a checkpoint makes variables, on
        # all workers alike), the others into a temporary folder they delete: the chief's
        # backup is kept, and all restore from it (as Keras's worker training state).
        from tapeflow.distribute import keras_support as dist
        strategy = dist.current_strategy(self.model)
        self._write_backup(dist.write_dirpath(self.backup_dir, strategy))
        dist.remove_temp_dirpath(self.backup_dir, strategy)
        # No worker goes on (and may fail) before the chief's backup is complete.
        dist.barrier(strategy)

    def _write_backup(self, dirpath: str) -> None:
        import json
        import shutil

        def at(path: str) -> str:
            return os.path.join(dirpath, os.path.basename(path))
        weights, metadata = at(self._weights_path), at(self._training_metadata_path)
        os.makedirs(dirpath, exist_ok=True)
        if self.double_checkpoint and os.path.exists(weights):
            shutil.copy(at(self._weights_data_path), at(self._prev_weights_data_path))
            shutil.copy(weights, at(self._prev_weights_path))
        if self.double_checkpoint and os.path.exists(metadata):
            shutil.copy(metadata, at(self._prev_training_metadata_path))
        self._checkpoint().write(at(self._weights_prefix))
        with open(metadata, "w") as f:
            f.write(json.dumps({"epoch": self._current_epoch, "batch": self._last_batch_seen}))

    def _should_save_on_batch(self, batch: int) -> bool:
        if self.save_freq == "epoch":
            return False
        if batch <= self._last_batch_seen:  # a new epoch
            add_batches = batch + 1
        else:
            add_batches = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add_batches
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        import shutil
        from tapeflow.distribute import keras_support as dist
        if not dist.is_chief(dist.current_strategy(self.model)):
            return  # the chief owns the backup
        if self.delete_checkpoint and os.path.exists(self.backup_dir):
            shutil.rmtree(self.backup_dir)


class TensorBoard(Callback):
    """Logs to TensorBoard as Keras 3: per-epoch scalars (`epoch_loss`, `epoch_<metric>`,
    `epoch_learning_rate`) in `log_dir/train` and the validation ones (without 'val_') in
    `log_dir/validation`; with `update_freq='batch'` or N, `batch_<metric>` every N batches;
    weight histograms (`<weight path>/histogram`) every `histogram_freq` epochs;
    `evaluation_<metric>_vs_iterations` after each evaluation. `write_graph` writes the
    model's JSON (Keras's 'keras' tag) when the model has `to_json`; tapeflow has no TF graph
    to write, so the train-step graph is not written. Profiling (`profile_batch`) and
    embeddings are not available. Needs the tensorboard extra."""

    def __init__(self, log_dir: str = "logs", histogram_freq: int = 0, write_graph: bool = True,
                 write_images: bool = False, write_steps_per_second: bool = False,
                 update_freq: Any = "epoch", profile_batch: Any = 0, embeddings_freq: int = 0,
                 embeddings_metadata: Any = None) -> None:
        super().__init__()
        if profile_batch:
            raise ValueError("Profiling is not available in tapeflow. Received: "
                             f"profile_batch={profile_batch} (must be 0)")
        if embeddings_freq:
            raise NotImplementedError("tapeflow's TensorBoard callback does not log embeddings "
                                      f"(embeddings_freq={embeddings_freq}).")
        self.log_dir = str(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._global_train_batch = 0
        self._global_test_batch = 0
        self._previous_epoch_iterations = 0
        self._batch_start_time = 0.0
        self._epoch_start_time = 0.0
        self._writers: dict = {}
        self._prev_summary_state: list = []

    @property
    def summary(self) -> Any:
        """The `tf.summary` module the callback writes with."""
        from tapeflow import summary
        return summary

    def set_model(self, model: Any) -> None:
        """Attaches the model and opens fresh writers (writing the model's JSON)."""
        self._model = model
        self._train_dir = os.path.join(self.log_dir, "train")
        self._val_dir = os.path.join(self.log_dir, "validation")
        self._writers = {}
        if self.write_graph:
            self._write_keras_model_summary()

    @property
    def _train_writer(self) -> Any:
        if "train" not in self._writers:
            self._writers["train"] = self.summary.create_file_writer(self._train_dir)
        return self._writers["train"]

    @property
    def _val_writer(self) -> Any:
        if "val" not in self._writers:
            self._writers["val"] = self.summary.create_file_writer(self._val_dir)
        return self._writers["val"]

    def _write_keras_model_summary(self) -> None:
        with self._train_writer.as_default():
            if type(self.model).__name__ not in ("Functional", "Sequential"):
                return
            try:
                json_string = self.model.to_json()
            except Exception as exc:  # noqa: BLE001 - Keras warns on any failure
                warnings.warn(f"Model failed to serialize as JSON. Ignoring... {exc}",
                              stacklevel=2)
                return
            from tensorboard.compat.proto.summary_pb2 import SummaryMetadata
            metadata = SummaryMetadata()
            metadata.plugin_data.plugin_name = "graph_keras_model"
            metadata.plugin_data.content = b"1"
            self.summary.write("keras", json_string, step=0, metadata=metadata)

    def _push_writer(self, writer: Any, step: int) -> None:
        if self.update_freq == "epoch":
            return
        contexts = (writer.as_default(step),
                    self.summary.record_if(lambda: step % self.update_freq == 0))
        self._prev_summary_state.append(contexts)
        contexts[0].__enter__()
        contexts[1].__enter__()

    def _pop_writer(self) -> None:
        if self.update_freq == "epoch" or not self._prev_summary_state:
            return
        contexts = self._prev_summary_state.pop()
        contexts[1].__exit__(None, None, None)
        contexts[0].__exit__(None, None, None)

    def _close_writers(self) -> None:
        for writer in self._writers.values():
            writer.close()

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0
        self._push_writer(self._train_writer, self._global_train_batch)

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        self._pop_writer()
        self._close_writers()

    def on_test_begin(self, logs: Optional[dict] = None) -> None:
        self._push_writer(self._val_writer, self._global_test_batch)

    def on_test_end(self, logs: Optional[dict] = None) -> None:
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "iterations"):
            with self._val_writer.as_default():
                for name, value in (logs or {}).items():
                    self.summary.scalar(f"evaluation_{name}_vs_iterations", value,
                                        step=optimizer.iterations)
        self._pop_writer()

    def on_train_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        self._global_train_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._train_writer, self._global_train_batch)
        if self.write_steps_per_second:
            self._batch_start_time = time.time()

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """Writes `batch_<metric>` (when a writer was pushed by `update_freq`)."""
        if self.write_steps_per_second:
            self.summary.scalar("batch_steps_per_second",
                                1.0 / (time.time() - self._batch_start_time),
                                step=self._global_train_batch)
        if isinstance(logs, dict):
            for name, value in logs.items():
                self.summary.scalar(f"batch_{name}", value, step=self._global_train_batch)

    def on_test_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        self._global_test_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._val_writer, self._global_test_batch)

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.write_steps_per_second:
            self._previous_epoch_iterations = float(np.asarray(self.model.optimizer.iterations))
            self._epoch_start_time = time.time()

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    def _collect_learning_rate(self, logs: dict) -> dict:
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "learning_rate"):
            logs["learning_rate"] = float(np.asarray(optimizer.learning_rate))
        return logs

    def _log_epoch_metrics(self, epoch: int, logs: Optional[dict]) -> None:
        if not logs:
            return
        train_logs = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val_logs = {k: v for k, v in logs.items() if k.startswith("val_")}
        train_logs = self._collect_learning_rate(train_logs)
        if self.write_steps_per_second:
            iterations = float(np.asarray(self.model.optimizer.iterations))
            train_logs["steps_per_second"] = float(np.float32(
                (iterations - self._previous_epoch_iterations)
                / (time.time() - self._epoch_start_time)))
        if train_logs:
            with self._train_writer.as_default():
                for name, value in train_logs.items():
                    self.summary.scalar(f"epoch_{name}", value, step=epoch)
        if val_logs:
            with self._val_writer.as_default():
                for name, value in val_logs.items():
                    self.summary.scalar(f"epoch_{name[4:]}", value, step=epoch)

    def _log_weights(self, epoch: int) -> None:
        with self._train_writer.as_default():
            for layer in self.model.layers:
                for weight in layer.weights:
                    name = getattr(weight, "path", weight.name).replace(":", "_")
                    self.summary.histogram(f"{name}/histogram", weight, step=epoch)
                    if self.write_images:
                        self._log_weight_as_image(weight, f"{name}/image", epoch)
            self._train_writer.flush()

    def _log_weight_as_image(self, weight: Any, name: str, epoch: int) -> None:
        """A weight as Keras draws it: a bias as a row, a kernel (wider side along x), a
        channels-last conv kernel as one image per output channel."""
        image = np.squeeze(np.asarray(weight))
        if image.ndim == 1:
            image = image.reshape(1, image.shape[0], 1, 1)
        elif image.ndim == 2:
            if image.shape[0] > image.shape[1]:
                image = image.T
            image = image.reshape(1, image.shape[0], image.shape[1], 1)
        elif image.ndim == 3:
            image = np.transpose(image, [2, 0, 1])[..., None]
        if image.ndim == 4 and image.shape[-1] in (1, 3, 4):
            self.summary.image(name, image, step=epoch)


class SwapEMAWeights(Callback):
    """Swaps the model's weights with the optimizer's moving averages (`use_ema=True`) for
    `evaluate` and `predict`, and back afterwards; with `swap_on_epoch=True` also at the end
    of each epoch (so later callbacks, e.g. ModelCheckpoint, see the averages) and back at
    the start of the next. The swap is in place, by addition and subtraction, as Keras's
    TensorFlow backend does it (so the values round as they do there)."""

    def __init__(self, swap_on_epoch: bool = False) -> None:
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _ema_optimizers(self) -> list:
        optimizer = self.model.optimizer
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)
        inner = getattr(optimizer, "optimizers", None)
        if inner is not None:
            chosen = [o for o in inner if getattr(o, "use_ema", False)]
            if not chosen:
                raise ValueError(
                    "SwapEMAWeights must be used when at least one inner optimizer has "
                    "`use_ema=True` set. Received a MultiOptimizer with all inner "
                    "optimizers having `use_ema=False`.")
        else:
            chosen = [optimizer]
        for o in chosen:
            if not hasattr(o, "_model_variables_moving_average"):
                raise ValueError("SwapEMAWeights must be used when `use_ema=True` is set on "
                                 f"the optimizer. Received: use_ema={o.use_ema}")
        return chosen

    def _swap_variables(self) -> None:
        for optimizer in self._ema_optimizers():
            for var, average in zip(optimizer._trainable_variables,
                                    optimizer._model_variables_moving_average):
                var.assign_add(average)
                average.assign(var - average)
                var.assign(var - average)

    def _finalize_ema_values(self) -> None:
        for optimizer in self._ema_optimizers():
            for var, average in zip(optimizer._trainable_variables,
                                    optimizer._model_variables_moving_average):
                average.assign(var)

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.swap_on_epoch and self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True
            # `fit` ends with `finalize_variable_values` (model <- averages): the averages,
            # swapped out into the model here, must hold the EMA values again by then.
            if epoch == self.params["epochs"] - 1:
                self._finalize_ema_values()

    def on_test_begin(self, logs: Optional[dict] = None) -> None:
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True

    def on_test_end(self, logs: Optional[dict] = None) -> None:
        if self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

    def on_predict_begin(self, logs: Optional[dict] = None) -> None:
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True

    def on_predict_end(self, logs: Optional[dict] = None) -> None:
        # Keras 3.15 tests `not` here, so after `predict` the averages stay in the model
        # (until the next `evaluate` ends); kept, so the weights are Keras's.
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

__all__ = ["Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping",
           "ModelCheckpoint", "LearningRateScheduler", "LambdaCallback", "MonitorCallback",
           "TerminateOnNaN", "ReduceLROnPlateau", "CSVLogger", "BackupAndRestore",
           "TensorBoard", "SwapEMAWeights"]
