"""`Model.compile` / `fit` / `evaluate` / `predict` / `save_weights`: Keras 3's training API.

`Trainer` is a mixin for `keras.Model` (`class Model(Layer, Trainer)`): it needs no
`__init__` of its own and relies only on the model's `__call__(x, training=)`,
`trainable_variables`, `weights` (or `variables`), `get_weights()` and `set_weights()`.

Data: NumPy arrays, tensors, or lists/tuples/dicts of them (multi-input models), a
`tf.data.Dataset`, a Python generator or a `keras.utils.PyDataset`, read through the adapters
of `keras/data_adapters.py` as Keras 3 reads them. Shuffling arrays (`shuffle=True`) takes
TensorFlow's `tf.random.shuffle` permutation, so `keras.utils.set_random_seed(s)` gives
Keras-on-TF's batch order.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.autodiff import GradientTape
from tapeflow.distribute import keras_support as _dist
from tapeflow.framework import nest
from tapeflow.framework.sparse_tensor import SparseTensor
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend
from tapeflow.keras.data_adapters import (EpochIterator, _to_numpy_tree,
                                          class_weight_to_sample_weights,
                                          train_validation_split, unpack_x_y_sample_weight)
from tapeflow.ops import math_ops


def _log_value(value: Any) -> Any:
    """A log value as `fit` reports it: a Python float, or (a vector result such as
    F1Score(average=None)'s) a NumPy array, as Keras keeps it; what is not numeric is kept."""
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001 - Keras keeps what it cannot convert
        return value
    if array.dtype.kind not in "biuf":  # a string tensor becomes NumPy's, as in Keras
        return array if isinstance(value, TensorLike) else value
    return float(array) if array.size == 1 else array


def _pythonify_logs(logs: Any) -> dict:
    """A step's logs as the loops report them (Keras's `pythonify_logs`): keys sorted, nested
    dicts (CompileMetrics' results) flattened into the top level, values `_log_value`."""
    result: dict = {}
    for key, value in sorted(logs.items()):
        if isinstance(value, dict):
            result.update(_pythonify_logs(value))
        else:
            result[key] = _log_value(value)
    return result


def _step_logs(logs: Any, kind: str) -> dict:
    """What a `train_step`/`test_step` returned, as logs: Keras 3 takes the dict as it is (a
    custom step's own keys; a nested dict stays nested until the callbacks flatten it), its
    values converted (`_log_value`); anything else is refused."""
    if logs is None:  # Keras-on-TF fails inside tf.data here; this says why
        raise ValueError(f"`{kind}_step` must return a dict of logs (metric name -> value); "
                         "it returned None.")
    return {key: _step_logs(value, kind) if isinstance(value, dict) else _log_value(value)
            for key, value in logs.items()}  # not a dict: Keras's AttributeError ('items')


def _in_strategy_scope(method: Callable) -> Callable:
    """Runs a loop in the scope of the model's strategy (the one it was compiled under), so
    the variables it creates (built layers, optimizer slots) are mirrored, as in Keras."""
    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        strategy = getattr(self, "_distribute_strategy", None)
        if strategy is None:
            return method(self, *args, **kwargs)
        with strategy.scope():
            return method(self, *args, **kwargs)
    return wrapper


def _as_tensors(data: Any) -> Any:
    """A batch's leaves as tensors (tensors from a dataset and SparseTensors pass through;
    None stays)."""
    if data is None:
        return None
    return nest.map_structure(lambda a: a if a is None or isinstance(a, SparseTensor)
                              else convert_to_tensor(a), data)


# NumPy dtype kinds outside Keras's dtypes (strings, bytes, objects, void, dates): its array
# adapter refuses them by name ('Invalid dtype: str32') before the model is built or called.
_NON_TENSOR_KINDS = "USOVMm"


def _check_array_dtypes(*data: Any) -> None:
    """Keras 3's ValueError for a NumPy array `fit`/`evaluate`/`predict` cannot batch into
    tensors. A 1-D object array of str is the exception Keras makes (it becomes a string
    tensor, which the model's first op refuses, as TF does)."""
    for leaf in nest.flatten(data):
        if isinstance(leaf, np.ndarray) and leaf.dtype.kind in _NON_TENSOR_KINDS and \
                not _is_object_string_vector(leaf):
            raise ValueError(f"Invalid dtype: {leaf.dtype.name}")


def _is_object_string_vector(array: np.ndarray) -> bool:
    return array.dtype.kind == "O" and array.ndim == 1 and \
        all(isinstance(e, str) for e in array)


class CompileMetrics:
    """The `compile_metrics` entry of a compiled model's `metrics`, as Keras 3's: the metrics
    and weighted metrics `compile` was given, as one object."""

    name = "compile_metrics"

    def __init__(self, model: "Trainer") -> None:
        self._model = model

    @property
    def metrics(self) -> list:
        """The metric objects (built by the model's first batch)."""
        return list(self._model._compiled_metrics or [])

    @property
    def variables(self) -> list:
        """The state variables of every metric."""
        return [v for m in self.metrics for v in m.variables]

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Updates every compiled metric on a batch (building them from its shapes first),
        as Keras 3's CompileMetrics: a custom `train_step` may call it through `metrics`."""
        self._model._update_compiled_metrics(y_true, y_pred, sample_weight)

    def result(self) -> dict:
        """Each metric's current result, by its log name."""
        return {name: m.result() for name, m in self._model._logged_compiled_metrics()}

    def reset_state(self) -> None:
        """Zeroes every metric's state."""
        for m in self.metrics:
            m.reset_state()

    def __repr__(self) -> str:
        return "<CompileMetrics name=compile_metrics>"


class DeprecatedCompiledMetric:
    """Keras 3's `model.compiled_metrics`: kept for Keras 2 `train_step`s."""

    def __init__(self, model: "Trainer") -> None:
        self._model = model

    def update_state(self, y: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Warns, then updates every metric of `metrics`; a `Mean` (the loss tracker
        included) takes `y_pred` as its values, as Keras 3 does."""
        from tapeflow.keras import metrics as metrics_module
        warnings.warn("`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\n"
                      "for metric in self.metrics:\n    metric.update_state(y, y_pred)\n```\n",
                      stacklevel=2)
        for metric in self._model.metrics:
            if isinstance(metric, metrics_module.Mean):
                metric.update_state(y_pred, sample_weight=sample_weight)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)


class Trainer:
    """Training methods shared by Keras models (mixed into `keras.Model`)."""

    # What `compile` stores is not tracked as the model's own (its metrics would be listed
    # twice in `metrics`), as Keras 3 compiles without automatic dependency tracking.
    _untracked_attributes = frozenset({
        "_loss_tracker", "_output_loss_trackers", "_metric_ids", "_weighted_metric_ids",
        "_compiled_metrics", "_weighted_metrics", "_compile_args", "_loss_fn"})

    # Class-level defaults, so Layer's __init__ need not know about training state.
    optimizer: Any = None
    loss: Any = None
    compiled: bool = False
    stop_training: bool = False
    history: Any = None
    _loss_fn: Any = None
    _metric_ids: Any = ()
    _compiled_metrics: Any = None
    _metric_log_names: Any = None
    _metric_outputs: Any = None
    _weighted_metrics: Any = ()
    _loss_tracker: Any = None
    run_eagerly: bool = False
    jit_compile: Any = False
    _distribute_strategy: Any = None

    # -- configuration ------------------------------------------------------------------------
    def compile(self, optimizer: Any = "rmsprop", loss: Any = None, loss_weights: Any = None,
                metrics: Any = None, weighted_metrics: Any = None, run_eagerly: bool = False,
                steps_per_execution: int = 1, jit_compile: Any = "auto",
                auto_scale_loss: bool = True) -> None:
        """Configures training: an optimizer (name or instance), a loss (name, function or
        Loss) and metrics (names like 'accuracy', 'mae', functions or Metric instances).

        Unless `run_eagerly=True`, `fit`/`evaluate`/`predict` run their step functions as
        `tf.function`s (traced once per batch signature), as Keras does. `jit_compile` is
        accepted for compatibility; tapeflow has no XLA, the traced graph is its compiler."""
        from tapeflow.keras import losses as losses_module
        from tapeflow.keras import metrics as metrics_module
        from tapeflow.keras import optimizers
        self.optimizer = optimizers.get(optimizer)
        if auto_scale_loss and self.optimizer is not None and \
                getattr(self, "dtype_policy", None) is not None and \
                self.dtype_policy.name == "mixed_float16" and \
                not isinstance(self.optimizer, optimizers.LossScaleOptimizer):
            # Keras 3: float16 gradients underflow without a dynamic loss scale.
            self.optimizer = optimizers.LossScaleOptimizer(self.optimizer,
                                                           name="loss_scale_optimizer")
        self.loss = loss
        self._loss_fn, self._loss_error = self._resolve_loss(losses_module, loss)
        self._loss_weights = self._per_output(loss_weights)
        # One unweighted loss tracker per output ('<output>_loss'), as Keras's CompileLoss.
        self._output_loss_trackers = [
            None if fn is None else metrics_module.Mean(name=f"{name}_loss")
            for fn, name in zip(self._loss_fn, self._flat_output_names())
        ] if isinstance(self._loss_fn, list) and sum(fn is not None for fn in self._loss_fn) > 1 \
            else []
        self._metric_ids = self._per_output(metrics) or []
        if not isinstance(self._metric_ids, list):
            self._metric_ids = list(self._metric_ids)
        self._weighted_metric_ids = list(weighted_metrics or [])
        self._compiled_metrics = None  # built from the first batch's shapes, as Keras does
        self._metric_log_names = None
        self._loss_tracker = metrics_module.Mean(name="loss")
        self.run_eagerly = bool(run_eagerly)
        self.jit_compile = jit_compile
        self._step_functions: dict = {}
        # The strategy in scope: fit/evaluate/predict run under it (Keras keeps the model's).
        self._distribute_strategy = _dist.current_strategy()
        self.compiled = True

    def _flat_output_names(self) -> list:
        """The output layers' names (Keras's `output_names`), or 'output_<i>'."""
        outputs = getattr(self, "outputs", None) or []
        return [t._keras_history[0].name if getattr(t, "_keras_history", None) else
                f"output_{i}" for i, t in enumerate(outputs)]

    def _per_output(self, value: Any) -> Any:
        """A dict keyed by output names (loss, loss_weights, metrics) as a list in output
        order, None where an output has no entry; anything else unchanged."""
        names = self._flat_output_names()
        if isinstance(value, dict) and names and set(value) <= set(names):
            return [value.get(name) for name in names]
        return value

    def _multi_output_metrics(self) -> bool:
        ids = self._metric_ids
        return (len(self._flat_output_names()) > 1 and len(ids) == len(self._flat_output_names())
                and all(m is None or isinstance(m, (list, tuple)) for m in ids))

    def _resolve_loss(self, losses_module: Any, loss: Any) -> tuple:
        """(the loss function(s) for `loss`, None), or (None, the ValueError) for an
        identifier `losses.get` cannot interpret: Keras 3 interprets them when the loss is
        first computed, so `compile(loss="msee")` succeeds and `fit`/`evaluate` raise."""
        loss = self._per_output(loss)
        outputs = len(self._flat_output_names())
        if loss is not None and not isinstance(loss, (list, tuple, dict)) and outputs > 1:
            loss = [loss] * outputs  # Keras 3 applies one loss to each output, then sums
        try:
            return self._make_loss(losses_module, loss), None
        except ValueError as error:
            return None, error

    def _check_loss_interpreted(self) -> None:
        """Raises the ValueError `compile` deferred (see `_resolve_loss`), before a loop
        runs a callback or a step."""
        error = getattr(self, "_loss_error", None)
        if error is not None:
            raise ValueError(*error.args)

    @staticmethod
    def _make_loss(losses_module: Any, loss: Any) -> Any:
        if loss is None:
            return None
        if isinstance(loss, (list, tuple)):
            return [Trainer._make_loss(losses_module, item) for item in loss]
        loss = losses_module.get(loss)
        if isinstance(loss, losses_module.Loss):
            return loss
        return losses_module.LossFunctionWrapper(loss, name=getattr(loss, "__name__", None))

    def _assert_compile_called(self, method_name: str) -> None:
        if not self.compiled:
            raise ValueError(f"You must call `compile()` before calling `{method_name}()`.")

    def _build_metrics(self, y: Any, y_pred: Any) -> None:
        from tapeflow.keras import metrics as metrics_module
        built, names = [], []   # the compiled metrics, and their names in the logs
        if self._multi_output_metrics():
            # metrics=[[...], [...]] or {name: [...]}: each list watches its output, and logs
            # as '<output>_<metric>' (Keras's CompileMetrics).
            self._metric_outputs = []
            for i, (ids, name, yt, yp) in enumerate(zip(
                    self._metric_ids, self._flat_output_names(),
                    self._flatten_y(y), nest.flatten(y_pred))):
                for identifier in ids or []:
                    metric = _get_metric(metrics_module, identifier, yt, yp)
                    built.append(metric)
                    names.append(f"{name}_{metric.name}")
                    self._metric_outputs.append(i)
        else:
            self._metric_outputs = None
            for identifier in self._metric_ids:
                built.append(_get_metric(metrics_module, identifier, y, y_pred))
                names.append(built[-1].name)
        counts: dict = {}
        names = _numbered(names, counts)
        self._weighted_metrics = self._build_weighted_metrics(metrics_module, y, y_pred)
        # Keras's CompileMetrics renames the log keys only; the metric objects keep theirs.
        names += _numbered([f"weighted_{m.name}" if m.name in counts else m.name
                            for m in self._weighted_metrics], counts)
        self._compiled_metrics = built + self._weighted_metrics
        self._metric_log_names = names

    def _build_weighted_metrics(self, metrics_module: Any, y: Any, y_pred: Any) -> list:
        """`weighted_metrics`: updated with the sample weights (`metrics` are not, as Keras
        3); one whose name is taken logs as 'weighted_<name>'."""
        if not self._weighted_metric_ids:
            return []
        if len(self._flat_output_names()) > 1:
            raise NotImplementedError("tapeflow supports `weighted_metrics` for single-output "
                                      "models only.")
        return [_get_metric(metrics_module, identifier, y, y_pred)
                for identifier in self._weighted_metric_ids]

    def _flatten_y(self, y: Any) -> list:
        """Targets as a list in output order (a dict is read by output name)."""
        if isinstance(y, dict):
            return [y.get(name) for name in self._flat_output_names()]
        return nest.flatten(y)

    def _trackers(self) -> list:
        return [self._loss_tracker] + [
            t for t in getattr(self, "_output_loss_trackers", []) if t is not None]

    def _logged_compiled_metrics(self) -> list:
        """(log name, metric) for each compiled metric (once built by a first batch): its
        name as CompileMetrics logs it (`<output>_`, `weighted_`, `_1` for repeats)."""
        return list(zip(self._metric_log_names or (), self._compiled_metrics or ()))

    def _named_metrics(self) -> list:
        """(log name, metric) for each loss tracker and compiled metric: the trackers under
        their own names, then the compiled metrics under their log names."""
        if not self.compiled:
            return []
        return [(m.name, m) for m in self._trackers()] + self._logged_compiled_metrics()

    @property
    def metrics(self) -> list:
        """As Keras 3: the loss tracker, one `CompileMetrics` holding the metrics `compile`
        was given (where it was given any), the per-output loss trackers, then the metrics
        assigned as attributes of the model and of its layers (not of nested models).
        `fit`/`evaluate` reset these each epoch and log their results, so a subclass that
        overrides this property chooses what is reset and logged."""
        metrics = []
        if self.compiled:
            given = bool(self._metric_ids) or bool(self._weighted_metric_ids)
            trackers = self._trackers()   # the loss's, then one per output (Keras's order)
            metrics = trackers[:1] + ([CompileMetrics(self)] if given else []) + trackers[1:]
        metrics += list(self.__dict__.get("_metrics", ()))
        for layer in self._flatten_layers() if hasattr(self, "_flatten_layers") else ():
            if not isinstance(layer, Trainer):
                metrics += list(layer.__dict__.get("_metrics", ()))
        return metrics

    @property
    def metrics_variables(self) -> list:
        """Every metric's state variables, in `metrics`' order (Keras 3)."""
        return [v for m in self.metrics for v in m.variables]

    @property
    def metrics_names(self) -> list:
        """The names of `metrics`, as Keras 3: ['loss', 'compile_metrics']."""
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        """Zeroes the state of every metric in `metrics` (Keras 3)."""
        for m in self.metrics:
            m.reset_state()

    # -- steps --------------------------------------------------------------------------------
    def compute_loss(self, x: Any = None, y: Any = None, y_pred: Any = None,
                     sample_weight: Any = None, training: bool = True) -> Any:
        """The compiled loss of (y, y_pred) plus the model's own `losses` (regularizers)."""
        self._check_loss_interpreted()
        total = None
        if self._loss_fn is not None:
            if isinstance(self._loss_fn, list):
                ys, preds = self._flatten_y(y), nest.flatten(y_pred)
                weights = self._loss_weights or [1.0] * len(self._loss_fn)
                trackers = getattr(self, "_output_loss_trackers", None) or [None] * len(ys)
                for fn, yt, yp, w, tracker in zip(self._loss_fn, ys, preds, weights, trackers):
                    if fn is None:
                        continue
                    term = fn(yt, yp, sample_weight)
                    if tracker is not None:  # Keras records the unweighted loss per output
                        tracker.update_state(term, sample_weight=_batch_size(yp, term.dtype))
                    term = term if w is None else term * w
                    total = term if total is None else total + term
            else:
                total = self._loss_fn(y, y_pred, sample_weight)
        for extra in list(getattr(self, "losses", None) or []):
            total = extra if total is None else total + math_ops.cast(extra, total.dtype)
        if total is None:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        replicas = _dist.num_replicas(self._distribute_strategy)
        if replicas > 1:  # the replicas' gradients are summed: each adds its share of the mean
            total = total / replicas
        return total

    def _compute_loss(self, x: Any = None, y: Any = None, y_pred: Any = None,
                      sample_weight: Any = None, training: bool = True) -> Any:
        """`compute_loss`, passing `training` only to an override that takes it (Keras 3.3
        added the argument; Keras inspects the signature first)."""
        if "training" in inspect.signature(self.compute_loss).parameters:
            return self.compute_loss(x, y, y_pred, sample_weight, training=training)
        return self.compute_loss(x, y, y_pred, sample_weight)

    def compiled_loss(self, y: Any, y_pred: Any, sample_weight: Any = None,
                      regularization_losses: Any = None) -> Any:
        """Deprecated in Keras 3 (a method, which warns): `compute_loss` of (y, y_pred)."""
        warnings.warn("`model.compiled_loss()` is deprecated. Instead, use "
                      "`model.compute_loss(x, y, y_pred, sample_weight, training)`.",
                      stacklevel=2)
        return self.compute_loss(x=None, y=y, y_pred=y_pred, sample_weight=sample_weight)

    @property
    def compiled_metrics(self) -> "DeprecatedCompiledMetric":
        """Deprecated in Keras 3: an object whose `update_state(y, y_pred, sample_weight)`
        warns and updates every metric of `metrics` (a `Mean`, the loss tracker included, on
        `y_pred`, as Keras does)."""
        return DeprecatedCompiledMetric(self)

    def train_step(self, data: Any) -> dict:
        """One optimizer step on a batch `(x, y, sample_weight)`; returns the metric logs."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self._compute_loss(x, y, y_pred, sample_weight, training=True)
            # Keras differentiates the loss times loss_scale_factor (apply divides it back).
            scaled_loss = self.optimizer.scale_loss(loss)
        # Read after the forward pass, as Keras does: an unbuilt model creates its weights there.
        variables = list(self.trainable_variables)
        gradients = tape.gradient(scaled_loss, variables)
        self.optimizer.apply_gradients(zip(gradients, variables))
        self._track_loss(x, loss)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def _step_function(self, kind: str) -> Any:
        """`train_step`/`test_step`/`predict_step`, as a `tf.function` unless the model runs
        eagerly (`run_eagerly=True`, or a layer draws NumPy-seeded randomness, which a trace
        would freeze into a constant)."""
        step = getattr(self, f"{kind}_step")
        if self.run_eagerly:
            return step
        cache = self.__dict__.setdefault("_step_functions", {})
        if kind not in cache:
            from tapeflow.function import function  # keras -> function: loaded on first use
            cache[kind] = function(step)
        return cache[kind]

    def test_step(self, data: Any) -> dict:
        """Updates the metrics on a batch without training; returns the metric logs."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self._compute_loss(x, y, y_pred, sample_weight, training=False)
        self._track_loss(x, loss)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        """The model's outputs for a batch."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    def _track_loss(self, x: Any, loss: Any) -> None:
        """Adds a batch's loss to the loss tracker, weighted by the batch size."""
        batch_size = _batch_size(nest.flatten(x)[0], loss.dtype)
        replicas = _dist.num_replicas(self._distribute_strategy)
        # The tracker records the replica's own mean loss (compute_loss scaled it down).
        self._loss_tracker.update_state(loss * replicas if replicas > 1 else loss,
                                        sample_weight=batch_size)

    def _update_compiled_metrics(self, y: Any, y_pred: Any, sample_weight: Any) -> None:
        """Updates the metrics `compile` was given (built from this batch's shapes first):
        `metrics` ignore the sample weights, `weighted_metrics` use them (Keras 3)."""
        if self._compiled_metrics is None:
            self._build_metrics(y, y_pred)
        if self._metric_outputs is not None:
            ys, preds = self._flatten_y(y), nest.flatten(y_pred)
            for metric, i in zip(self._compiled_metrics, self._metric_outputs):
                metric.update_state(ys[i], preds[i])
        else:
            for metric in self._compiled_metrics[:len(self._compiled_metrics)
                                                  - len(self._weighted_metrics)]:
                metric.update_state(y, y_pred)
        for metric in self._weighted_metrics:
            metric.update_state(y, y_pred, sample_weight=sample_weight)

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> dict:
        """Updates the compiled metrics on a batch and returns the result of every metric in
        `metrics` (tensors: this also runs inside a traced step), as Keras 3."""
        if self.compiled and (self._metric_ids or self._weighted_metric_ids):
            self._update_compiled_metrics(y, y_pred, sample_weight)
        return self._metrics_result()

    def _metrics_result(self) -> dict:
        """`metrics`' results by name, a dict result (CompileMetrics') merged in (Keras 3's
        `get_metrics_result` before conversion)."""
        results: dict = {}
        for metric in self.metrics:
            result = metric.result()
            if isinstance(result, dict):
                results.update(result)
            else:
                results[metric.name] = result
        return results

    def get_metrics_result(self) -> dict:
        """The current value of every metric of `metrics` as a Python float, keys sorted (as
        Keras); over all workers under a multi-worker strategy (every worker gets the same
        logs)."""
        if _dist.communicator_of(self._distribute_strategy) is not None:
            return _dist.synced_metrics_result(self._distribute_strategy,
                                               self._named_metrics())
        return _pythonify_logs(self._metrics_result())

    def _get_metrics_result_or_logs(self, logs: dict) -> dict:
        """The metrics' results where their names are the last step's log keys; otherwise
        the last step's logs (a custom step returning its own keys, or CompileMetrics' dict
        under 'compile_metrics'), as Keras 3."""
        metric_logs = self.get_metrics_result()
        return metric_logs if set(logs) == set(metric_logs) else logs

    # -- loops --------------------------------------------------------------------------------
    def _run_step(self, function: Any, batch: Any, split: Callable, kind: str,
                  batch_dim: Optional[int] = None) -> dict:
        """One step on this worker's share of a global batch, in the strategy's replica
        context (its gradients summed over the workers); the step's logs (`_step_logs`),
        the metrics' results over all workers under a multi-worker strategy. `batch_dim`:
        the size every batch has, where the input promises one."""
        data = _as_tensors(split(batch))
        self._trace_for_every_batch(function, data, batch_dim)
        strategy = self._distribute_strategy
        if strategy is None:
            return _step_logs(function(data), kind)
        logs = _step_logs(strategy.run(function, args=(data,)), kind)
        if _dist.communicator_of(strategy) is not None:
            return self._get_metrics_result_or_logs(logs)
        return logs

    def _trace_for_every_batch(self, function: Any, data: Any,
                               batch_dim: Optional[int]) -> None:
        """Before a traced step's first call: traces it for batches of `batch_dim` rows (None:
        any), as Keras's TF trainer traces its step on the dataset's element spec, once the
        model is built (an unbuilt model builds on the first batch's own shape, as Keras's
        symbolic build does). The last, partial batch then runs the same trace, and a custom
        train_step sees the batch dim Keras shows (`x.shape` is (None, ...))."""
        if not hasattr(function, "get_concrete_function") or \
                function.experimental_get_tracing_count() or not _built(self) or \
                self._distribute_strategy is not None:   # traced in its replica context
            return
        leaves = nest.flatten(data)
        if not leaves or not all(type(t) is Tensor and t.shape.rank for t in leaves):
            return   # composite or scalar inputs: traced as they come
        from tapeflow.function.polymorphic import (TensorSpec,  # loaded with the traced step
                                                   functions_run_eagerly)
        if functions_run_eagerly():   # the step then runs as Python, untraced
            return
        function.get_concrete_function(nest.map_structure(
            lambda t: TensorSpec([batch_dim] + t.shape.as_list()[1:], t.dtype), data))

    @_in_strategy_scope
    def fit(self, x: Any = None, y: Any = None, batch_size: Optional[int] = None,
            epochs: int = 1, verbose: Any = "auto", callbacks: Optional[Sequence] = None,
            validation_split: float = 0.0, validation_data: Any = None, shuffle: bool = True,
            class_weight: Any = None, sample_weight: Any = None, initial_epoch: int = 0,
            steps_per_epoch: Optional[int] = None, validation_steps: Optional[int] = None,
            validation_batch_size: Optional[int] = None, validation_freq: int = 1) -> Any:
        """Trains for `epochs` epochs on arrays, a `tf.data.Dataset`, a generator or a
        `PyDataset`; returns the `History` (`history.history` holds 'loss', the metrics, and
        'val_'-prefixed ones when there is validation data)."""
        self._assert_compile_called("fit")
        epochs = _capped_epochs(epochs)
        self._eval_epoch_iterator = None
        split = _dist.batch_splitter(self._distribute_strategy, x, batch_size)
        x = _dist.unwrap_dataset(x)
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = train_validation_split(
                (x, y, sample_weight), validation_split)
        if validation_data is not None:
            val_x, val_y, val_sw = unpack_x_y_sample_weight(validation_data)
        _check_array_dtypes(x, y, sample_weight)
        epoch_iterator = EpochIterator(x, y, sample_weight, batch_size=batch_size,
                                       steps_per_epoch=steps_per_epoch, shuffle=shuffle,
                                       class_weight=class_weight)
        self._check_loss_interpreted()
        epoch_iterator.reset()
        callback_list = self._callback_list(callbacks, verbose, epochs, epoch_iterator,
                                            add_history=True)
        self.stop_training = False
        train_function = self._step_function("train")
        callback_list.on_train_begin()
        # BackupAndRestore's on_train_begin restores an interrupted run and says where it was.
        initial_epoch = getattr(self, "_initial_epoch", None) or initial_epoch
        training_logs = None
        logs: dict = {}
        try:
            for epoch in range(initial_epoch, epochs):
                self.reset_metrics()
                callback_list.on_epoch_begin(epoch)
                with epoch_iterator.catch_stop_iteration():
                    for step, iterator in epoch_iterator:
                        callback_list.on_train_batch_begin(step)
                        logs = self._run_step(train_function, next(iterator), split,
                                              "train", epoch_iterator.static_batch_size)
                        callback_list.on_train_batch_end(step, logs)
                        if self.stop_training:
                            break
                # The metrics' results, or a custom train_step's own logs (Keras 3).
                epoch_logs = dict(self._get_metrics_result_or_logs(logs))
                if validation_data is not None and (epoch + 1) % validation_freq == 0:
                    if self._eval_epoch_iterator is None:  # made once, as Keras caches it
                        _check_array_dtypes(val_x, val_y, val_sw)
                        self._eval_epoch_iterator = EpochIterator(
                            val_x, val_y, val_sw, batch_size=validation_batch_size or batch_size,
                            steps_per_epoch=validation_steps, shuffle=False)
                    val_logs = self.evaluate(val_x, val_y, sample_weight=val_sw,
                                             batch_size=validation_batch_size or batch_size,
                                             steps=validation_steps, callbacks=callback_list,
                                             return_dict=True, _use_cached_eval_dataset=True)
                    epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
                callback_list.on_epoch_end(epoch, epoch_logs)
                training_logs = epoch_logs
                if self.stop_training:
                    break
        finally:
            self._eval_epoch_iterator = None
        if getattr(self, "optimizer", None) is not None and epochs > 0:
            # With use_ema, the model ends with the moving averages (as Keras's fit).
            self.optimizer.finalize_variable_values(list(self.trainable_variables))
        callback_list.on_train_end(logs=training_logs)
        return self.history

    def _callback_list(self, callbacks: Any, verbose: Any, epochs: int,
                       epoch_iterator: EpochIterator, add_history: bool = False) -> Any:
        from tapeflow.keras import callbacks as callbacks_module
        if isinstance(callbacks, callbacks_module.CallbackList):
            return callbacks
        if not _dist.is_chief(self._distribute_strategy):
            verbose = 0  # only the chief prints progress, as Keras under MultiWorker
        return callbacks_module.CallbackList(callbacks, add_history=add_history,
                                             add_progbar=verbose != 0, model=self,
                                             verbose=verbose, epochs=epochs,
                                             steps=epoch_iterator.num_batches)

    @_in_strategy_scope
    def evaluate(self, x: Any = None, y: Any = None, batch_size: Optional[int] = None,
                 verbose: Any = "auto", sample_weight: Any = None,
                 steps: Optional[int] = None, callbacks: Optional[Sequence] = None,
                 return_dict: bool = False, **kwargs: Any) -> Any:
        """The loss and metrics over the data: a float (loss only), a list [loss, *metrics],
        or a dict with `return_dict=True`."""
        self._assert_compile_called("evaluate")
        use_cached = kwargs.pop("_use_cached_eval_dataset", False)
        if kwargs:
            raise ValueError(f"Arguments not recognized: {kwargs}")
        epoch_iterator = getattr(self, "_eval_epoch_iterator", None) if use_cached else None
        split = _dist.batch_splitter(self._distribute_strategy, x, batch_size)
        x = _dist.unwrap_dataset(x)
        if epoch_iterator is None:
            _check_array_dtypes(x, y, sample_weight)
            epoch_iterator = EpochIterator(x, y, sample_weight, batch_size=batch_size,
                                           steps_per_epoch=steps, shuffle=False)
        self._check_loss_interpreted()
        epoch_iterator.reset()
        callback_list = self._callback_list(callbacks, verbose, 1, epoch_iterator)
        test_function = self._step_function("test")
        self.stop_evaluating = False
        callback_list.on_test_begin()
        logs: dict = {}
        self.reset_metrics()
        with epoch_iterator.catch_stop_iteration():
            for step, iterator in epoch_iterator:
                callback_list.on_test_batch_begin(step)
                logs = self._run_step(test_function, next(iterator), split, "test",
                                      epoch_iterator.static_batch_size)
                callback_list.on_test_batch_end(step, logs)
                if self.stop_evaluating:
                    break
        logs = _pythonify_logs(self._get_metrics_result_or_logs(logs))
        callback_list.on_test_end(logs)
        if return_dict:
            return logs
        return _logs_to_values(self, logs)

    @_in_strategy_scope
    def predict(self, x: Any, batch_size: Optional[int] = None, verbose: Any = "auto",
                steps: Optional[int] = None, callbacks: Optional[Sequence] = None) -> Any:
        """The model's outputs for every sample, batch by batch, as NumPy arrays."""
        split = _dist.batch_splitter(self._distribute_strategy, x, batch_size)
        x = _dist.unwrap_dataset(x)
        _check_array_dtypes(x)
        epoch_iterator = EpochIterator(x, batch_size=batch_size, steps_per_epoch=steps,
                                       shuffle=False)
        strategy = self._distribute_strategy
        callback_list = self._callback_list(callbacks, verbose, 1, epoch_iterator)
        predict_function = self._step_function("predict")
        self.stop_predicting = False
        callback_list.on_predict_begin()
        outputs = []
        with epoch_iterator.catch_stop_iteration():
            for step, iterator in epoch_iterator:
                callback_list.on_predict_batch_begin(step)
                data = _as_tensors(split(next(iterator)))
                self._trace_for_every_batch(predict_function, data,
                                            epoch_iterator.static_batch_size)
                out = predict_function(data) if strategy is None else \
                    strategy.run(predict_function, args=(data,))
                outputs.append(_dist.gather_outputs(strategy, nest.map_structure(np.asarray,
                                                                                 out)))
                callback_list.on_predict_batch_end(step, {"outputs": out})
                if self.stop_predicting:
                    break
        callback_list.on_predict_end()
        if not outputs:
            raise ValueError("Expected input data to be non-empty.")
        return nest.map_structure(lambda *parts: np.concatenate(parts, axis=0), *outputs)

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                       class_weight: Any = None, return_dict: bool = False) -> Any:
        """One optimizer step on one batch; returns the loss (and metrics) of that batch
        alone (the metrics are reset first, as Keras 3)."""
        self._assert_compile_called("train_on_batch")
        if class_weight is not None and sample_weight is not None:
            raise ValueError(f"Arguments `sample_weight` and `class_weight` cannot be specified "
                             f"at the same time. Received: sample_weight={sample_weight}, "
                             f"class_weight={class_weight}")
        sample_weight = self._class_sample_weight(y, sample_weight, class_weight)
        self._check_loss_interpreted()
        self.reset_metrics()  # each call reports its own batch, as Keras 3
        batch = _as_batch((_to_numpy_tree(x), _to_numpy_tree(y), _to_numpy_tree(sample_weight)))
        logs = _pythonify_logs(_step_logs(self._step_function("train")(batch), "train"))
        return logs if return_dict else _logs_to_values(self, logs)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                      return_dict: bool = False) -> Any:
        """The loss (and metrics) on one batch, without training."""
        self._assert_compile_called("test_on_batch")
        self._check_loss_interpreted()
        self.reset_metrics()
        batch = _as_batch((_to_numpy_tree(x), _to_numpy_tree(y), _to_numpy_tree(sample_weight)))
        logs = _pythonify_logs(_step_logs(self._step_function("test")(batch), "test"))
        return logs if return_dict else _logs_to_values(self, logs)

    def predict_on_batch(self, x: Any) -> Any:
        """The model's outputs for one batch, as NumPy."""
        return nest.map_structure(np.array, self.predict_step((_as_tensors(_to_numpy_tree(x)),)))

    @staticmethod
    def _class_sample_weight(y: Any, sample_weight: Any, class_weight: Any) -> Any:
        if class_weight is None:
            return sample_weight
        if sample_weight is not None:
            raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
        return class_weight_to_sample_weights(_to_numpy_tree(y), class_weight)

    # -- weights ------------------------------------------------------------------------------
    def _weights_for_saving(self) -> list:
        weights = getattr(self, "weights", None)
        return list(weights if weights is not None else self.variables)

    def save_weights(self, filepath: str, overwrite: bool = True,
                     max_shard_size: Optional[float] = None) -> None:
        """Writes the model's weights to `filepath` ('*.weights.h5'): HDF5 in Keras 3's layout,
        which real Keras reads, written to a temporary file and renamed into place; with
        `max_shard_size` (GiB), Keras's sharded files ('*.weights.json' and its shards)."""
        from tapeflow.keras import saving
        saving.save_weights(self, filepath, overwrite=overwrite, max_shard_size=max_shard_size)

    def load_weights(self, filepath: str, skip_mismatch: bool = False, **kwargs: Any) -> None:
        """Restores weights from a Keras 3 '*.weights.h5' file (written by Keras or by
        `save_weights`; tapeflow's older npz files too) or a '.keras' file, or Keras 2's
        HDF5 weights ('.h5': in order, or `by_name=True`), checking their shapes as Keras
        does."""
        from tapeflow.keras import saving
        saving.load_weights(self, filepath, skip_mismatch=skip_mismatch, **kwargs)


def _capped_epochs(epochs: int) -> int:
    """`epochs`, at most `keras.config.max_epochs()` when that is set (with Keras's warning)."""
    from tapeflow.keras import config
    cap = config.max_epochs()
    if cap and cap < epochs:
        warnings.warn(f"Limiting epochs to {cap}", stacklevel=3)
        return cap
    return epochs


def _built(model: Any) -> bool:
    """Whether the model and every layer in it have their weights."""
    layers = model._flatten_layers() if hasattr(model, "_flatten_layers") else []
    return bool(getattr(model, "built", False)) and all(
        getattr(layer, "built", True) for layer in layers)


def _batch_size(x: Any, dtype: Any) -> Any:
    """The rows of `x`: an int where known, else a scalar of `dtype` read as the graph runs."""
    rows = backend.dynamic_shape(x)[0]
    return rows if isinstance(rows, int) else math_ops.cast(rows, dtype)


def _as_batch(batch: tuple) -> Any:
    """A batch as Keras hands it to `train_step(data)` (`pack_x_y_sample_weight`): `(x, y)`
    without sample weights, so a user's `x, y = data` unpacks; `x` alone without targets."""
    x, y, sample_weight = (_as_tensors(part) for part in batch)
    if y is None:
        return x if not isinstance(x, (tuple, list)) else (x,)
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def _numbered(names: list, counts: dict) -> list:
    """`names` with the second and later of one name as `name_1`, `name_2`, ... (Keras's
    CompileMetrics logs them so); `counts`: how many of each name came before (updated)."""
    numbered = []
    for name in names:
        seen = counts.get(name, 0)
        counts[name] = seen + 1
        if seen:
            name = f"{name}_{seen}"
            counts[name] = 1
        numbered.append(name)
    return numbered


def _logs_to_values(model: Trainer, logs: dict) -> Any:
    """The logs as a list, in Keras 3's `_flatten_metrics_in_order`: each name of `metrics`
    found in the logs (CompileMetrics gives its metric objects' own names, so a repeated
    metric's value comes twice and a renamed one's not at all), then every other log key,
    sorted."""
    names = []
    for metric in model.metrics:
        names += [m.name for m in metric.metrics] if isinstance(metric, CompileMetrics) \
            else [metric.name]
    values = [logs[name] for name in names if name in logs]
    values += [logs[key] for key in sorted(logs) if key not in names]
    return values[0] if len(values) == 1 else values


def _get_metric(metrics_module: Any, identifier: Any, y_true: Any, y_pred: Any) -> Any:
    """A Metric for a compile() identifier; 'accuracy'/'acc' picks binary, sparse categorical
    or categorical accuracy from the shapes, as Keras does."""
    if str(identifier).lower() in ("accuracy", "acc"):
        y_true, y_pred = nest.flatten(y_true)[0], nest.flatten(y_pred)[0]
        is_binary = y_pred.shape[-1] == 1
        is_sparse = (len(y_true.shape) < len(y_pred.shape)
                     or (y_true.shape[-1] == 1 and y_pred.shape[-1] > 1))
        if is_binary:
            metric = metrics_module.BinaryAccuracy(name=str(identifier))
        elif is_sparse:
            metric = metrics_module.SparseCategoricalAccuracy(name=str(identifier))
        else:
            metric = metrics_module.CategoricalAccuracy(name=str(identifier))
        return metric
    metric = metrics_module.get(identifier)
    if not isinstance(metric, metrics_module.Metric):
        name = identifier if isinstance(identifier, str) else getattr(metric, "__name__", None)
        metric = metrics_module.MeanMetricWrapper(metric, name=name)
    elif isinstance(identifier, str):
        metric.name = identifier
    return metric


__all__ = ["Trainer", "unpack_x_y_sample_weight", "train_validation_split"]
