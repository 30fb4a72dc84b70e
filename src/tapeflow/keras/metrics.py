"""`keras.metrics`: stateful metrics (update_state / result / reset_state), Keras 3 formulas.

State lives in non-trainable Variables of the metric's dtype (default `floatx()`, as Keras),
updated with `assign_add`, so results accumulate across batches exactly as Keras's do.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras.variables import Variable
from tapeflow.ops import array_ops, math_ops, reduce_ops
from tapeflow.keras import losses as _losses
from tapeflow.keras import backend
from tapeflow.keras.backend import auto_name, floatx
from tapeflow.keras.losses import squeeze_or_expand_to_same_rank

class Metric:
    """Base class of metrics: subclasses create state with `add_variable` and implement
    `update_state(...)` and `result()`; `reset_state()` zeroes the state.

    Calling a metric (`m(y_true, y_pred)`) updates it and returns the new result.
    """

    def __init__(self, dtype: Any = None, name: Optional[str] = None) -> None:
        self.name = name or auto_name(self.__class__.__name__)
        self._dtype = _dtypes.as_dtype(dtype or floatx())
        self._variables: list = []

    @property
    def dtype(self) -> str:
        """The dtype of the metric's state and result, as a name."""
        return self._dtype.name

    @property
    def variables(self) -> list:
        """The metric's state variables."""
        return list(self._variables)

    def add_variable(self, shape: Any, initializer: Any = "zeros", dtype: Any = None,
                     name: Optional[str] = None) -> Variable:
        """A non-trainable state variable filled with zeros (or `initializer`, a number),
        named as Keras 3's: `name`, on the path `<metric name>/<name>`."""
        fill = 0 if initializer in ("zeros", None) else initializer
        dtype = _dtypes.as_dtype(dtype or self._dtype)
        value = np.full(tuple(shape), fill, dtype.as_numpy_dtype)
        with backend.name_scope(self.name.replace("/", ">"), caller=self):
            variable = Variable(value, trainable=False, name=name, dtype=dtype)
        self._variables.append(variable)
        return variable

    def reset_state(self) -> None:
        """Sets every state variable back to zero."""
        for v in self._variables:
            v.assign(np.zeros(tuple(v.shape), v.dtype.as_numpy_dtype))

    def update_state(self, *args: Any, **kwargs: Any) -> None:
        """Accumulates statistics for the metric from a batch."""
        raise NotImplementedError

    def result(self) -> Tensor:
        """The metric's current value, computed from its state."""
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict:
        """The metric's constructor arguments, as a dict."""
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict) -> "Metric":
        """A metric built from the dict `get_config()` returns."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__} name={self.name}>"


def _reduce_to_samplewise(values: Any, sample_weight: Any, dtype: Any) -> tuple:
    """Per-sample values (mean over the non-batch axes) and their weights, as Keras does
    (a Keras mask on `values` zeroes the weights of the masked entries)."""
    mask = _losses._keras_mask(values)
    values = math_ops.cast(convert_to_tensor(values), dtype)
    if sample_weight is not None:
        sample_weight = math_ops.cast(convert_to_tensor(sample_weight), dtype)
        if mask is not None:
            sample_weight = _losses.apply_mask(sample_weight, mask, dtype, "sum")
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        w_ndim, v_ndim = sample_weight.ndim, values.ndim
        if v_ndim > w_ndim:
            values = reduce_ops.reduce_mean(values, axis=list(range(w_ndim, v_ndim)))
        sample_weight = array_ops.broadcast_to(sample_weight, backend.dynamic_shape(values))
        values = values * sample_weight
        if w_ndim > 1:
            sample_weight = reduce_ops.reduce_mean(sample_weight, axis=list(range(1, w_ndim)))
    if values.ndim > 1:
        values = reduce_ops.reduce_mean(values, axis=list(range(1, values.ndim)))
    return values, sample_weight


class Mean(Metric):
    """The (weighted) mean of the values given to `update_state`."""

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), name="total")
        self.count = self.add_variable((), name="count")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Adds the (weighted) sum of `values` to the total, their count to the count."""
        values, sample_weight = _reduce_to_samplewise(values, sample_weight, self._dtype)
        self.total.assign_add(reduce_ops.reduce_sum(values))
        if sample_weight is not None:
            num_samples = reduce_ops.reduce_sum(sample_weight)
        else:
            num_samples = backend.dynamic_shape(values)[0] if values.ndim >= 1 else 1
        self.count.assign_add(math_ops.cast(num_samples, self._dtype))

    def result(self) -> Tensor:
        """The weighted mean so far: total / count (0 when empty)."""
        return math_ops.divide_no_nan(self.total.value(), self.count.value())


class MeanMetricWrapper(Mean):
    """The mean of `fn(y_true, y_pred, **kwargs)` over all samples seen."""

    def __init__(self, fn: Callable, name: Optional[str] = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(name=name or auto_name(type(self).__name__), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the per-example values of `fn(y_true, y_pred)` to the mean (entries a Keras
        mask on `y_pred` hides count with weight 0)."""
        mask = _losses._keras_mask(y_pred)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        sample_weight = _losses.apply_mask(sample_weight, mask, self._dtype, "sum")
        super().update_state(values, sample_weight)

    def get_config(self) -> dict:
        """name, dtype and the function's keyword arguments; a plain MeanMetricWrapper also
        names its function ('fn', serialized), as Keras 3."""
        config = super().get_config()
        if type(self) is MeanMetricWrapper:
            from tapeflow.keras.saving.serialization import serialize_keras_object
            config["fn"] = serialize_keras_object(self._fn)
        return {**config, **self._fn_kwargs}

    @classmethod
    def from_config(cls, config: dict) -> "MeanMetricWrapper":
        """A metric built from `get_config()`'s dict (its 'fn' deserialized)."""
        if "fn" in config:
            from tapeflow.keras.saving.serialization import deserialize_keras_object
            config = {**config, "fn": deserialize_keras_object(config["fn"])}
        return cls(**config)


# -- metric functions ----------------------------------------------------------------------
def accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1.0 where y_true == y_pred, else 0.0."""
    y_pred = convert_to_tensor(y_pred)
    y_true = math_ops.cast(convert_to_tensor(y_true), y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return math_ops.cast(math_ops.equal(y_true, y_pred), floatx())


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Tensor:
    """1.0 where (y_pred > threshold) equals y_true, else 0.0."""
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    y_pred = math_ops.cast(math_ops.greater(y_pred, math_ops.cast(threshold, y_pred.dtype)),
                           y_true.dtype)
    return math_ops.cast(math_ops.equal(y_true, y_pred), floatx())


def _class_matches(y_true: Tensor, y_pred: Any) -> Tensor:
    """1.0 where the integer class y_true equals argmax(y_pred), shaped like y_true."""
    y_pred = convert_to_tensor(y_pred)
    shape = backend.dynamic_shape(y_true)
    squeezed = y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1
    if squeezed:
        y_true = array_ops.squeeze(y_true, axis=[-1])
    predicted = math_ops.cast(reduce_ops.argmax(y_pred, axis=-1), y_true.dtype)
    matches = math_ops.cast(math_ops.equal(y_true, predicted), floatx())
    return array_ops.reshape(matches, shape) if squeezed else matches


def categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1.0 where argmax(y_true) == argmax(y_pred), else 0.0."""
    y_true = reduce_ops.argmax(convert_to_tensor(y_true), axis=-1)
    y_pred = convert_to_tensor(y_pred)
    return _class_matches(math_ops.cast(y_true, y_pred.dtype), y_pred)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1.0 where the integer label y_true == argmax(y_pred), else 0.0."""
    y_pred = convert_to_tensor(y_pred)
    return _class_matches(math_ops.cast(convert_to_tensor(y_true), y_pred.dtype), y_pred)


# -- metric classes ------------------------------------------------------------------------
class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels."""

    def __init__(self, name: str = "accuracy", dtype: Any = None) -> None:
        super().__init__(accuracy, name=name, dtype=dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often thresholded predictions match binary labels."""

    def __init__(self, name: str = "binary_accuracy", dtype: Any = None,
                 threshold: float = 0.5) -> None:
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold


class CategoricalAccuracy(MeanMetricWrapper):
    """How often argmax of predictions matches argmax of one-hot labels."""

    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often argmax of predictions matches integer labels."""

    def __init__(self, name: str = "sparse_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


class MeanSquaredError(MeanMetricWrapper):
    """The mean squared error between labels and predictions."""

    def __init__(self, name: str = "mean_squared_error", dtype: Any = None) -> None:
        super().__init__(_losses.mean_squared_error, name=name, dtype=dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    """The mean absolute error between labels and predictions."""

    def __init__(self, name: str = "mean_absolute_error", dtype: Any = None) -> None:
        super().__init__(_losses.mean_absolute_error, name=name, dtype=dtype)


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """The mean absolute percentage error: 100 * mean(|(y_true - y_pred) / y_true|)."""

    def __init__(self, name: str = "mean_absolute_percentage_error", dtype: Any = None) -> None:
        super().__init__(_losses.mean_absolute_percentage_error, name=name, dtype=dtype)


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    """The mean squared logarithmic error: mean((log(y_pred + 1) - log(y_true + 1)) ** 2)."""

    def __init__(self, name: str = "mean_squared_logarithmic_error", dtype: Any = None) -> None:
        super().__init__(_losses.mean_squared_logarithmic_error, name=name, dtype=dtype)


class RootMeanSquaredError(Mean):
    """sqrt of the (weighted) mean of (y_pred - y_true) ** 2 over every value seen."""

    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's squared errors to the mean."""
        y_true = math_ops.cast(convert_to_tensor(y_true), self._dtype)
        y_pred = math_ops.cast(convert_to_tensor(y_pred), self._dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        super().update_state(math_ops.square(y_pred - y_true), sample_weight)

    def result(self) -> Tensor:
        """sqrt(total / count)."""
        return math_ops.sqrt(super().result())


def _cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    return _losses._cosine(y_true, y_pred, axis)


_cosine_similarity.__name__ = "cosine_similarity"


class CosineSimilarity(MeanMetricWrapper):
    """The mean cosine similarity of labels and predictions along `axis` (1: same
    direction)."""

    def __init__(self, name: str = "cosine_similarity", dtype: Any = None,
                 axis: int = -1) -> None:
        # Keras 3's config leaves `axis` out (a reload computes along -1); this one keeps it.
        super().__init__(_cosine_similarity, name=name, dtype=dtype, axis=axis)
        self.axis = axis


class LogCoshError(MeanMetricWrapper):
    """The mean of log(cosh(y_pred - y_true))."""

    def __init__(self, name: str = "logcosh", dtype: Any = None) -> None:
        super().__init__(_losses.log_cosh, name=name, dtype=dtype)


class Hinge(MeanMetricWrapper):
    """The mean hinge loss max(1 - y_true * y_pred, 0) (0/1 labels taken as -1/1)."""

    def __init__(self, name: str = "hinge", dtype: Any = None) -> None:
        super().__init__(_losses.hinge, name=name, dtype=dtype)


class SquaredHinge(MeanMetricWrapper):
    """The mean squared hinge loss max(1 - y_true * y_pred, 0) ** 2."""

    def __init__(self, name: str = "squared_hinge", dtype: Any = None) -> None:
        super().__init__(_losses.squared_hinge, name=name, dtype=dtype)


class CategoricalHinge(MeanMetricWrapper):
    """The mean categorical hinge loss max(neg - pos + 1, 0)."""

    def __init__(self, name: str = "categorical_hinge", dtype: Any = None) -> None:
        super().__init__(_losses.categorical_hinge, name=name, dtype=dtype)


class KLDivergence(MeanMetricWrapper):
    """The mean Kullback-Leibler divergence sum(y_true * log(y_true / y_pred))."""

    def __init__(self, name: str = "kl_divergence", dtype: Any = None) -> None:
        super().__init__(_losses.kl_divergence, name=name, dtype=dtype)


class Poisson(MeanMetricWrapper):
    """The mean Poisson loss y_pred - y_true * log(y_pred)."""

    def __init__(self, name: str = "poisson", dtype: Any = None) -> None:
        super().__init__(_losses.poisson, name=name, dtype=dtype)


class BinaryCrossentropy(MeanMetricWrapper):
    """The mean binary cross-entropy of labels and probabilities (or logits)."""

    def __init__(self, name: str = "binary_crossentropy", dtype: Any = None,
                 from_logits: bool = False, label_smoothing: float = 0) -> None:
        super().__init__(_losses.binary_crossentropy, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing


class CategoricalCrossentropy(MeanMetricWrapper):
    """The mean categorical cross-entropy of one-hot labels and probabilities (or logits)."""

    def __init__(self, name: str = "categorical_crossentropy", dtype: Any = None,
                 from_logits: bool = False, label_smoothing: float = 0,
                 axis: int = -1) -> None:
        super().__init__(_losses.categorical_crossentropy, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The mean cross-entropy of integer labels and probabilities (or logits)."""

    def __init__(self, name: str = "sparse_categorical_crossentropy", dtype: Any = None,
                 from_logits: bool = False, ignore_class: Optional[int] = None,
                 axis: int = -1) -> None:
        super().__init__(_losses.sparse_categorical_crossentropy, name=name, dtype=dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)
        self.from_logits = from_logits
        self.ignore_class = ignore_class
        self.axis = axis


class AUC(Metric):
    """Area under the ROC (default) or PR curve, from confusion counts at `num_thresholds`
    evenly spaced thresholds (Keras 3's approximation: Riemann sums of the curve).

    All predictions make one curve, each weighted by its label's `label_weights` where
    given; with `multi_label`, each column of 2-D predictions (a label) has its own curve
    and the result is their mean, weighted by `label_weights` where given. `num_labels`
    creates the per-label counts at once; otherwise the first `update_state` does."""

    def __init__(self, num_thresholds: int = 200, curve: str = "ROC",
                 summation_method: str = "interpolation", name: Optional[str] = None,
                 dtype: Any = None, thresholds: Optional[list] = None,
                 multi_label: bool = False, num_labels: Optional[int] = None,
                 label_weights: Any = None, from_logits: bool = False) -> None:
        super().__init__(name=name, dtype=dtype)
        if num_labels and not multi_label:
            raise ValueError("`num_labels` is needed only when `multi_label` is True.")
        self.multi_label, self.num_labels = bool(multi_label), num_labels
        self.label_weights = None if label_weights is None else \
            convert_to_tensor(np.asarray(label_weights, self._dtype.as_numpy_dtype))
        self._given_thresholds = None if thresholds is None else list(thresholds)
        if curve.upper() not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are '
                             '["PR", "ROC"]')
        if summation_method.lower() not in ("interpolation", "majoring", "minoring"):
            raise ValueError(f'Invalid AUC summation method value: "{summation_method}". '
                             'Expected values are ["interpolation", "majoring", "minoring"]')
        if thresholds is not None:
            inner = sorted(thresholds)
            self.num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError("Argument `num_thresholds` must be an integer > 1. "
                                 f"Received: num_thresholds={num_thresholds}")
            self.num_thresholds = num_thresholds
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self._thresholds = np.array([0.0 - backend.epsilon()] + inner +
                                    [1.0 + backend.epsilon()])
        self.curve = curve.upper()
        self.summation_method = summation_method.lower()
        self._from_logits = from_logits
        self._built = False
        if not self.multi_label:
            self._build(None)
        elif num_labels:
            self._build((None, num_labels))

    def _build(self, pred_shape: Optional[tuple]) -> None:
        """The confusion counts: one per threshold, and with `multi_label` one per threshold
        and label (the labels read off the first predictions' shape unless given)."""
        shape = (self.num_thresholds,)
        if self.multi_label:
            if len(pred_shape) != 2:
                raise ValueError(f"`y_pred` must have rank 2 when `multi_label=True`. Found "
                                 f"rank {len(pred_shape)}. Full shape received for `y_pred`: "
                                 f"{pred_shape}")
            shape += (pred_shape[1],)
        for key in ("true_positives", "false_positives", "true_negatives",
                    "false_negatives"):
            setattr(self, key, self.add_variable(shape, name=key))
        self._built = True

    def get_config(self) -> dict:
        """Keras 3's AUC config (the thresholds only where they were given)."""
        config = {**super().get_config(), "num_thresholds": self.num_thresholds,
                  "curve": self.curve, "summation_method": self.summation_method,
                  "multi_label": self.multi_label, "num_labels": self.num_labels,
                  "label_weights": None if self.label_weights is None else
                  self.label_weights.numpy().tolist(), "from_logits": self._from_logits}
        if self._given_thresholds is not None:
            config["thresholds"] = [float(t) for t in self._thresholds[1:-1]]
        return config

    @property
    def thresholds(self) -> list:
        """The thresholds the confusion counts are taken at, in increasing order."""
        return list(self._thresholds)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) TP/FP/TN/FN counts at every threshold."""
        y_pred = math_ops.cast(convert_to_tensor(y_pred), self._dtype)
        if not self._built:
            self._build(tuple(y_pred.shape))
        if self._from_logits:
            y_pred = math_ops.sigmoid(y_pred)
        # With multi_label the label weights average the per-label areas (in `result`).
        _update_confusion_matrix(
            {"tp": self.true_positives, "fp": self.false_positives,
             "tn": self.true_negatives, "fn": self.false_negatives},
            y_true, y_pred, self._thresholds, sample_weight=sample_weight,
            evenly=self._given_thresholds is None, multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights)

    def _label_average(self, terms: Tensor) -> Tensor:
        """The area: the sum of `terms` over thresholds, and with `multi_label` the mean of
        the labels' areas (weighted by `label_weights` where given)."""
        if not self.multi_label:
            return reduce_ops.reduce_sum(terms)
        by_label = reduce_ops.reduce_sum(terms, axis=0)
        if self.label_weights is None:
            return reduce_ops.reduce_mean(by_label)
        return math_ops.divide_no_nan(reduce_ops.reduce_sum(by_label * self.label_weights),
                                      reduce_ops.reduce_sum(self.label_weights))

    def result(self) -> Tensor:
        """The area under the curve from the accumulated confusion counts."""
        tp, fp = self.true_positives.value(), self.false_positives.value()
        tn, fn = self.true_negatives.value(), self.false_negatives.value()
        n = self.num_thresholds
        if self.curve == "ROC":
            x = math_ops.divide_no_nan(fp, fp + tn)
            y = math_ops.divide_no_nan(tp, tp + fn)
        else:
            x = math_ops.divide_no_nan(tp, tp + fn)
            y = math_ops.divide_no_nan(tp, tp + fp)
            if self.summation_method == "interpolation":
                return self._interpolate_pr_auc(tp, fp, fn)
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = math_ops.minimum(y[: n - 1], y[1:])
        else:
            heights = math_ops.maximum(y[: n - 1], y[1:])
        return self._label_average((x[: n - 1] - x[1:]) * heights)

    def _interpolate_pr_auc(self, tp: Tensor, fp: Tensor, fn: Tensor) -> Tensor:
        """Davis & Goadrich's interpolated PR-AUC, as Keras's `interpolate_pr_auc`."""
        n = self.num_thresholds
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        dp = p[: n - 1] - p[1:]
        prec_slope = math_ops.divide_no_nan(dtp, math_ops.maximum(dp, 0.0))
        intercept = tp[1:] - prec_slope * p[1:]
        safe_p_ratio = math_ops.where(
            math_ops.logical_and(p[: n - 1] > 0, p[1:] > 0),
            math_ops.divide_no_nan(p[: n - 1], math_ops.maximum(p[1:], 0.0)),
            math_ops.ones_like(p[1:]))
        pr_auc_increment = math_ops.divide_no_nan(
            prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)),
            math_ops.maximum(tp[1:] + fn[1:], 0.0))
        return self._label_average(pr_auc_increment)


# Metric classes defined elsewhere that `get` finds by name (filled at the end of the file).
_CLASSES: dict = {}


def _objects() -> dict:
    """Keras 3's ALL_OBJECTS_DICT: every Metric class of this module by its name and its
    snake_case name, plus Keras's short aliases ('mse', 'bce', ...)."""
    from tapeflow.keras.backend import to_snake_case
    classes = [v for k, v in globals().items() if isinstance(v, type) and
               issubclass(v, Metric) and not k.startswith("_")]
    objects = {cls.__name__: cls for cls in classes}
    objects.update({to_snake_case(cls.__name__): cls for cls in classes})
    objects.update(_CLASSES)
    objects.update({
        "bce": BinaryCrossentropy, "BCE": BinaryCrossentropy, "mse": MeanSquaredError,
        "MSE": MeanSquaredError, "mae": MeanAbsoluteError, "MAE": MeanAbsoluteError,
        "mape": MeanAbsolutePercentageError, "MAPE": MeanAbsolutePercentageError,
        "msle": MeanSquaredLogarithmicError, "MSLE": MeanSquaredLogarithmicError})
    return objects


def get(identifier: Any) -> Any:
    """A metric from a class name or its snake_case ('AUC', 'mean_squared_error', 'mse':
    a new instance, as Keras 3), a config dict, a function or an instance."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        cls = _objects().get(identifier.get("class_name"))
        if cls is not None:  # a metric class, not the loss of the same name
            return cls.from_config(identifier.get("config", {}))
        from tapeflow.keras.saving.serialization import deserialize_keras_object
        obj = deserialize_keras_object(identifier)
    elif isinstance(identifier, str):
        obj = _objects().get(identifier)
    else:
        obj = identifier
    if isinstance(obj, type):
        return obj()
    if callable(obj):
        return obj
    raise ValueError(f"Could not interpret metric identifier: {identifier}")


# The loss functions keras.metrics exports (tf.keras's legacy aliases included).
binary_crossentropy = _losses.binary_crossentropy
binary_focal_crossentropy = _losses.binary_focal_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
categorical_focal_crossentropy = _losses.categorical_focal_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy
hinge = _losses.hinge
squared_hinge = _losses.squared_hinge
categorical_hinge = _losses.categorical_hinge
huber = _losses.huber
poisson = _losses.poisson
kl_divergence = kld = KLD = kullback_leibler_divergence = _losses.kl_divergence
log_cosh = logcosh = _losses.log_cosh
mean_squared_error = mse = MSE = _losses.mean_squared_error
mean_absolute_error = mae = MAE = _losses.mean_absolute_error
mean_absolute_percentage_error = mape = MAPE = _losses.mean_absolute_percentage_error
mean_squared_logarithmic_error = msle = MSLE = _losses.mean_squared_logarithmic_error

__all__ = [
    "Metric", "Mean", "MeanMetricWrapper", "Accuracy", "BinaryAccuracy", "CategoricalAccuracy",
    "SparseCategoricalAccuracy", "MeanSquaredError", "MeanAbsoluteError", "AUC", "accuracy",
    "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy", "get",
    "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError", "RootMeanSquaredError",
    "CosineSimilarity", "LogCoshError", "Hinge", "SquaredHinge", "CategoricalHinge",
    "KLDivergence", "Poisson", "BinaryCrossentropy", "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy", "binary_crossentropy", "binary_focal_crossentropy",
    "categorical_crossentropy", "categorical_focal_crossentropy",
    "sparse_categorical_crossentropy", "hinge", "squared_hinge", "categorical_hinge", "huber",
    "poisson", "kl_divergence", "kld", "KLD", "kullback_leibler_divergence", "log_cosh",
    "logcosh", "mean_squared_error", "mse", "MSE", "mean_absolute_error", "mae", "MAE",
    "mean_absolute_percentage_error", "mape", "MAPE", "mean_squared_logarithmic_error", "msle",
    "MSLE",
]


# The confusion-matrix family (AUC counts with its `update_confusion_matrix`) and the other
# metrics live in their own files; they are public here, by class name and Keras's snake_case.
from tapeflow.keras import metrics_confusion as _confusion, metrics_more as _more  # noqa: E402
from tapeflow.keras.metrics_confusion import *  # noqa: E402,F401,F403
from tapeflow.keras.metrics_more import *  # noqa: E402,F401,F403
from tapeflow.keras.backend import to_snake_case as _snake  # noqa: E402

_update_confusion_matrix = _confusion.update_confusion_matrix
for _obj in _confusion.CLASSES + _more.CLASSES + _more.FUNCTIONS:
    _obj.__module__ = __name__  # configs name them 'keras.metrics', as Keras does
for _cls in _confusion.CLASSES + _more.CLASSES:
    _CLASSES[_cls.__name__] = _CLASSES[_snake(_cls.__name__)] = _cls  # noqa: F405
__all__ += _confusion.__all__ + _more.__all__
