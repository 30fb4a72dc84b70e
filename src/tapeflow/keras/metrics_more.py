"""More of `keras.metrics` (Keras 3's formulas): F-scores, R2, correlations, Sum, top-k
accuracies, the IoU family, and `serialize` / `deserialize`."""

from __future__ import annotations

import warnings
from typing import Any, Optional

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.ops import array_ops, index_ops, linalg_ops, manip_ops, math_ops, reduce_ops
from tapeflow.keras import backend
from tapeflow.keras.backend import floatx
from tapeflow.keras.losses import squeeze_or_expand_to_same_rank
from tapeflow.keras.metrics import MeanMetricWrapper, Metric


# -- top-k accuracies ------------------------------------------------------------------------
def _top_k_matches(y_true: Tensor, y_pred: Tensor, match: Any) -> Tensor:
    """`match(labels, predictions)` over rows of y_pred flattened to 2-D, shaped like
    y_true, as floatx."""
    shape, rank = backend.dynamic_shape(y_true), y_true.ndim
    if y_pred.ndim > 2:
        y_pred = array_ops.reshape(y_pred, [-1, int(y_pred.shape[-1])])
    if y_true.ndim > 1:
        y_true = array_ops.reshape(y_true, [-1])
    matches = math_ops.cast(match(y_true, y_pred), floatx())
    return array_ops.reshape(matches, shape) if rank > 1 else matches


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Tensor:
    """1.0 where the one-hot label's class is among the `k` largest predictions."""
    y_pred = convert_to_tensor(y_pred)
    y_true = reduce_ops.argmax(math_ops.cast(convert_to_tensor(y_true), y_pred.dtype), axis=-1)
    return _top_k_matches(y_true, y_pred, lambda t, p: manip_ops.in_top_k(
        math_ops.cast(t, _dtypes.int32), p, k))


def sparse_top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5,
                                      from_sorted_ids: bool = False) -> Tensor:
    """1.0 where the integer label is among the `k` largest predictions (or, with
    `from_sorted_ids`, among the first k ids of y_pred's rows)."""
    y_pred = convert_to_tensor(y_pred)
    y_true = math_ops.cast(convert_to_tensor(y_true),
                           y_pred.dtype if from_sorted_ids else _dtypes.int32)
    if from_sorted_ids:
        def match(t: Tensor, p: Tensor) -> Tensor:
            hits = math_ops.equal(array_ops.expand_dims(t, 1), p[:, :k])
            return reduce_ops.reduce_any(hits, axis=1)
    else:
        def match(t: Tensor, p: Tensor) -> Tensor:
            return manip_ops.in_top_k(t, p, k)
    return _top_k_matches(y_true, y_pred, match)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot label's class is among the `k` largest predictions."""

    def __init__(self, k: int = 5, name: str = "top_k_categorical_accuracy",
                 dtype: Any = None) -> None:
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k

    def get_config(self) -> dict:
        """name, dtype, k."""
        return {"name": self.name, "dtype": self.dtype, "k": self.k}


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the `k` largest predictions."""

    def __init__(self, k: int = 5, name: str = "sparse_top_k_categorical_accuracy",
                 dtype: Any = None, from_sorted_ids: bool = False) -> None:
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k,
                         from_sorted_ids=from_sorted_ids)
        self.k = k
        self.from_sorted_ids = from_sorted_ids

    def get_config(self) -> dict:
        """name, dtype, k (and from_sorted_ids when set, as Keras)."""
        config = {"name": self.name, "dtype": self.dtype, "k": self.k}
        if self.from_sorted_ids:
            config["from_sorted_ids"] = True
        return config


# -- correlations ----------------------------------------------------------------------------
def _same_rank(y_true: Any, y_pred: Any) -> tuple:
    y_pred = convert_to_tensor(y_pred)
    y_true = math_ops.cast(convert_to_tensor(y_true), y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def pearson_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    """Pearson's correlation coefficient of y_true and y_pred along `axis`."""
    y_true, y_pred = _same_rank(y_true, y_pred)

    def standardized(x: Tensor) -> Tensor:
        centered = x - reduce_ops.reduce_mean(x, axis=axis, keepdims=True)
        return centered / reduce_ops.reduce_std(centered, axis=axis, keepdims=True)
    return reduce_ops.reduce_mean(standardized(y_true) * standardized(y_pred), axis=axis)


def concordance_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    """Lin's concordance correlation coefficient of y_true and y_pred along `axis`
    (Keras 3's formula, which centres y_true on y_pred's mean in the covariance)."""
    y_true, y_pred = _same_rank(y_true, y_pred)
    true_mean = reduce_ops.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_mean = reduce_ops.reduce_mean(y_pred, axis=axis, keepdims=True)
    true_var = reduce_ops.reduce_variance(y_true - true_mean, axis=axis, keepdims=True)
    pred_var = reduce_ops.reduce_variance(y_pred - pred_mean, axis=axis, keepdims=True)
    covar = (y_true - pred_mean) * (y_pred - pred_mean)
    norm = true_var + pred_var + math_ops.square(true_mean - pred_mean)
    return reduce_ops.reduce_mean(2 * covar / (norm + backend.epsilon()), axis=axis)


class _AxisMeanMetric(MeanMetricWrapper):
    """The mean of a per-sample function of (y_true, y_pred) along `axis`."""

    _fn: Any = None

    def __init__(self, name: str, dtype: Any = None, axis: int = -1) -> None:
        super().__init__(type(self)._fn, name=name, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self) -> dict:
        """name, dtype, axis."""
        return {"name": self.name, "dtype": self.dtype, "axis": self.axis}


class PearsonCorrelation(_AxisMeanMetric):
    """The mean over samples of Pearson's correlation along `axis`."""

    _fn = staticmethod(pearson_correlation)

    def __init__(self, name: str = "pearson_correlation", dtype: Any = None,
                 axis: int = -1) -> None:
        super().__init__(name=name, dtype=dtype, axis=axis)


class ConcordanceCorrelation(_AxisMeanMetric):
    """The mean over samples of the concordance correlation along `axis`."""

    _fn = staticmethod(concordance_correlation)

    def __init__(self, name: str = "concordance_correlation", dtype: Any = None,
                 axis: int = -1) -> None:
        super().__init__(name=name, dtype=dtype, axis=axis)


# -- Sum -------------------------------------------------------------------------------------
class Sum(Metric):
    """The (weighted) sum of the values given to `update_state`."""

    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), name="total")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Adds the (weighted) sum of `values` to the total (per sample first, as Keras)."""
        values = math_ops.cast(convert_to_tensor(values), self._dtype)
        if sample_weight is not None:
            weight = math_ops.cast(convert_to_tensor(sample_weight), self._dtype)
            values, weight = squeeze_or_expand_to_same_rank(values, weight)
            if values.ndim > weight.ndim:
                values = reduce_ops.reduce_sum(values, axis=list(range(weight.ndim, values.ndim)))
            values = values * array_ops.broadcast_to(weight, backend.dynamic_shape(values))
        if values.ndim > 1:
            values = reduce_ops.reduce_sum(values, axis=list(range(1, values.ndim)))
        self.total.assign_add(reduce_ops.reduce_sum(values))

    def result(self) -> Tensor:
        """The total so far."""
        return self.total.value()


# -- F-scores --------------------------------------------------------------------------------
def _check_2d(metric: str, true_shape: tuple, pred_shape: tuple) -> None:
    """Keras's ValueError unless both inputs are (batch_size, output_dim) with output_dim
    known (FBetaScore and R2Score build their state from it)."""
    if len(pred_shape) != 2 or len(true_shape) != 2 or None in (pred_shape[-1],
                                                                true_shape[-1]):
        defined = "" if len(pred_shape) != 2 or len(true_shape) != 2 else \
            ", with output_dim fully defined (not None)"
        raise ValueError(f"{metric} expects 2D inputs with shape (batch_size, output_dim)"
                         f"{defined}. Received input shapes: y_pred.shape={pred_shape} and "
                         f"y_true.shape={true_shape}.")


class FBetaScore(Metric):
    """The F-beta score, (1 + beta^2) P R / (beta^2 P + R), per class (`average=None`) or
    averaged ('micro', 'macro', 'weighted'); predictions above `threshold` are positive, or,
    with no threshold, each row's largest."""

    def __init__(self, average: Optional[str] = None, beta: float = 1.0,
                 threshold: Optional[float] = None, name: str = "fbeta_score",
                 dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError("Invalid `average` argument value. Expected one of: {None, "
                             f"'micro', 'macro', 'weighted'}}. Received: average={average}")
        if not isinstance(beta, float):
            raise ValueError("Invalid `beta` argument value. It should be a Python float. "
                             f"Received: beta={beta} of type '{type(beta)}'")
        if beta <= 0.0:
            raise ValueError(f"Invalid `beta` argument value. It should be > 0. "
                             f"Received: beta={beta}")
        if threshold is not None:
            if not isinstance(threshold, float):
                raise ValueError("Invalid `threshold` argument value. It should be a Python "
                                 f"float. Received: threshold={threshold} of type "
                                 f"'{type(threshold)}'")
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError("Invalid `threshold` argument value. It should verify 0 < "
                                 f"threshold <= 1. Received: threshold={threshold}")
        self.average = average
        self.beta = beta
        self.threshold = threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, true_shape: tuple, pred_shape: tuple) -> None:
        _check_2d("FBetaScore", true_shape, pred_shape)
        shape = () if self.average == "micro" else (pred_shape[-1],)
        for name in ("true_positives", "false_positives", "false_negatives",
                     "intermediate_weights"):
            setattr(self, name, self.add_variable(shape, name=name))
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) TP, FP, FN and label totals per class."""
        y_true = math_ops.cast(convert_to_tensor(y_true), self._dtype)
        y_pred = math_ops.cast(convert_to_tensor(y_pred), self._dtype)
        if not self._built:
            self._build(tuple(y_true.shape), tuple(y_pred.shape))
        if self.threshold is None:
            top = reduce_ops.reduce_max(y_pred, axis=-1, keepdims=True)
            positive = math_ops.logical_and(y_pred >= top, math_ops.abs(y_pred) > 1e-9)
        else:
            positive = y_pred > self.threshold
        y_pred = math_ops.cast(positive, self._dtype)
        weight = None if sample_weight is None else array_ops.expand_dims(
            math_ops.cast(convert_to_tensor(sample_weight), self._dtype), 1)

        def weighted_sum(value: Tensor) -> Tensor:
            return reduce_ops.reduce_sum(value if weight is None else value * weight,
                                         axis=self.axis)
        self.true_positives.assign_add(weighted_sum(y_pred * y_true))
        self.false_positives.assign_add(weighted_sum(y_pred * (1 - y_true)))
        self.false_negatives.assign_add(weighted_sum((1 - y_pred) * y_true))
        self.intermediate_weights.assign_add(weighted_sum(y_true))

    def result(self) -> Tensor:
        """The score per class, or its average."""
        if not self._built:
            raise ValueError("FBetaScore has no state yet: call `update_state` first.")
        tp = self.true_positives.value()
        precision = tp / (tp + self.false_positives.value() + backend.epsilon())
        recall = tp / (tp + self.false_negatives.value() + backend.epsilon())
        beta2 = self.beta ** 2
        score = precision * recall / (beta2 * precision + recall + backend.epsilon()) * (1 + beta2)
        if self.average == "weighted":
            counts = self.intermediate_weights.value()
            weights = counts / (reduce_ops.reduce_sum(counts) + backend.epsilon())
            return reduce_ops.reduce_sum(score * weights)
        if self.average is not None:
            return reduce_ops.reduce_mean(score)
        return score

    def get_config(self) -> dict:
        """name, dtype, average, beta, threshold."""
        return {"name": self.name, "dtype": self.dtype, "average": self.average,
                "beta": self.beta, "threshold": self.threshold}


class F1Score(FBetaScore):
    """The F1 score (F-beta with beta = 1): 2 P R / (P + R)."""

    def __init__(self, average: Optional[str] = None, threshold: Optional[float] = None,
                 name: str = "f1_score", dtype: Any = None) -> None:
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name,
                         dtype=dtype)

    def get_config(self) -> dict:
        """name, dtype, average, threshold."""
        config = super().get_config()
        del config["beta"]
        return config


# -- R2 --------------------------------------------------------------------------------------
class R2Score(Metric):
    """The coefficient of determination, 1 - SS_res / SS_tot, per output column, averaged
    by `class_aggregation`; `num_regressors` > 0 gives the adjusted R2."""

    def __init__(self, class_aggregation: Optional[str] = "uniform_average",
                 num_regressors: int = 0, name: str = "r2_score", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        valid = (None, "uniform_average", "variance_weighted_average")
        if class_aggregation not in valid:
            raise ValueError("Invalid value for argument `class_aggregation`. Expected one "
                             f"of {valid}. Received: class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError("Invalid value for argument `num_regressors`. Expected a value "
                             f">= 0. Received: num_regressors={num_regressors}")
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable((), dtype=floatx(), name="num_samples")
        self._built = False

    def _build(self, true_shape: tuple, pred_shape: tuple) -> None:
        _check_2d("R2Score", true_shape, pred_shape)
        shape = (pred_shape[-1],)
        self.squared_sum = self.add_variable(shape, dtype=floatx(), name="squared_sum")
        self.sum = self.add_variable(shape, dtype=floatx(), name="sum")
        self.total_mse = self.add_variable(shape, dtype=floatx(), name="residual")
        self.count = self.add_variable(shape, dtype=floatx(), name="count")
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) sums of y, y^2, squared residuals and weights."""
        y_true = math_ops.cast(convert_to_tensor(y_true), self._dtype)
        y_pred = math_ops.cast(convert_to_tensor(y_pred), self._dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if not self._built:
            self._build(tuple(y_true.shape), tuple(y_pred.shape))
        weight = math_ops.cast(convert_to_tensor(1 if sample_weight is None else sample_weight),
                               self._dtype)
        if weight.ndim == 1:
            weight = array_ops.expand_dims(weight, 1)
        weight = array_ops.broadcast_to(weight, backend.dynamic_shape(y_true))
        weighted = y_true * weight
        dtype = self.sum.dtype
        for variable, value in ((self.sum, weighted), (self.squared_sum, y_true * weighted),
                                (self.total_mse, math_ops.square(y_true - y_pred) * weight),
                                (self.count, weight)):
            variable.assign_add(math_ops.cast(reduce_ops.reduce_sum(value, axis=0), dtype))
        self.num_samples.assign_add(math_ops.cast(array_ops.size(y_true), dtype))

    def result(self) -> Tensor:
        """The (adjusted) R2 score, per column when class_aggregation is None."""
        total_sum = self.sum.value()
        mean = total_sum / self.count.value()
        total = self.squared_sum.value() - total_sum * mean
        raw = 1 - self.total_mse.value() / total
        raw = math_ops.where(math_ops.is_inf(raw), math_ops.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            score = reduce_ops.reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = reduce_ops.reduce_sum(total * raw) / reduce_ops.reduce_sum(total)
        else:
            score = raw
        if self.num_regressors == 0:
            return score
        return self._adjusted(score)

    def _adjusted(self, score: Tensor) -> Tensor:
        """1 - (1 - R2)(n - 1) / (n - p - 1); R2 itself (with Keras's warning) when there
        are not more samples than regressors + 1."""
        n = self.num_samples.value()
        p = float(self.num_regressors)
        n_value = float(n.numpy()) if hasattr(n, "numpy") else None
        if n_value is not None and p >= n_value - 1:
            warnings.warn("More independent predictors than datapoints in adjusted R2 score. "
                          "Falling back to standard R2 score." if p > n_value - 1 else
                          "Division by zero in Adjusted R2 score. Falling back to standard "
                          "R2 score.", stacklevel=3)
            return score
        n = math_ops.cast(n, _dtypes.float32)
        adjusted = 1.0 - (1.0 - score) * (n - 1.0) / (n - p - 1.0)
        return adjusted if n_value is not None else math_ops.where(n - 1.0 > p, adjusted,
                                                                     score)

    def get_config(self) -> dict:
        """name, dtype, class_aggregation, num_regressors."""
        return {"name": self.name, "dtype": self.dtype,
                "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}


# -- IoU -------------------------------------------------------------------------------------
class _IoUBase(Metric):
    """A (num_classes, num_classes) confusion matrix of class ids, accumulated (rows:
    labels, columns: predictions); out-of-range ids and `ignore_class` are left out."""

    def __init__(self, num_classes: int, name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_true: bool = True,
                 sparse_y_pred: bool = True, axis: int = -1) -> None:
        super().__init__(name=name, dtype=dtype or "int64")
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_variable((num_classes, num_classes),
                                          name="total_confusion_matrix")

    def _class_ids(self, y: Any, sparse: bool) -> Tensor:
        y = convert_to_tensor(y)
        if not sparse:
            y = reduce_ops.argmax(y, axis=self.axis)
        y = math_ops.cast(y, self._dtype)
        return array_ops.reshape(y, [-1]) if y.ndim > 1 else y

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) (label, prediction) pairs to the confusion matrix."""
        y_true = self._class_ids(y_true, self.sparse_y_true)
        y_pred = self._class_ids(y_pred, self.sparse_y_pred)
        if sample_weight is None:
            sample_weight = 1
        elif "float" in str(getattr(sample_weight, "dtype", "")) and self._dtype.is_integer:
            warnings.warn("You are passing weight as `float`, but dtype is `int`. This may "
                          "result in an incorrect weight due to type casting Consider using "
                          "integer weights.", stacklevel=2)
        weight = math_ops.cast(convert_to_tensor(sample_weight), self._dtype)
        if weight.ndim > 1:
            weight = array_ops.reshape(weight, [-1])
        weight = array_ops.broadcast_to(weight, backend.dynamic_shape(y_true))
        n = math_ops.cast(self.num_classes, self._dtype)
        keep = math_ops.logical_and(
            math_ops.logical_and(y_true >= 0, y_true < n),
            math_ops.logical_and(y_pred >= 0, y_pred < n))
        if self.ignore_class is not None:
            keep = math_ops.logical_and(
                keep, math_ops.not_equal(y_true, math_ops.cast(self.ignore_class,
                                                               self._dtype)))
        zeros = math_ops.zeros_like(y_true)
        y_true, y_pred = math_ops.where(keep, y_true, zeros), math_ops.where(keep, y_pred,
                                                                               zeros)
        weight = math_ops.where(keep, weight, math_ops.zeros_like(weight))
        current = index_ops.confusion_matrix(
            math_ops.cast(y_true, _dtypes.int64), math_ops.cast(y_pred, _dtypes.int64),
            self.num_classes, weights=weight, dtype=self._dtype)
        self.total_cm.assign_add(current)


class IoU(_IoUBase):
    """Intersection over union, TP / (TP + FP + FN), averaged over `target_class_ids`
    (classes never seen are left out of the mean)."""

    def __init__(self, num_classes: int, target_class_ids: Any, name: Optional[str] = None,
                 dtype: Any = None, ignore_class: Optional[int] = None,
                 sparse_y_true: bool = True, sparse_y_pred: bool = True,
                 axis: int = -1) -> None:
        super().__init__(num_classes=num_classes, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, "
                             f"which is [0, {num_classes}).")
        self.target_class_ids = list(target_class_ids)

    def result(self) -> Tensor:
        """The mean IoU of the target classes, as float32."""
        cm = self.total_cm.value()
        true_positives = math_ops.cast(linalg_ops.diag_part(cm), self._dtype)
        denominator = (math_ops.cast(reduce_ops.reduce_sum(cm, axis=0), self._dtype)
                       + math_ops.cast(reduce_ops.reduce_sum(cm, axis=1), self._dtype)
                       - true_positives)
        ids = list(self.target_class_ids)
        true_positives = math_ops.cast(array_ops.gather(true_positives, ids), _dtypes.float32)
        denominator = math_ops.cast(array_ops.gather(denominator, ids), _dtypes.float32)
        valid = denominator > 1e-9
        iou = math_ops.where(valid, true_positives / (denominator + backend.epsilon()),
                              math_ops.zeros_like(denominator))
        num_valid = reduce_ops.reduce_sum(math_ops.cast(valid, _dtypes.float32))
        return reduce_ops.reduce_sum(iou, axis=self.axis) / (num_valid + backend.epsilon())

    def get_config(self) -> dict:
        """name, dtype, num_classes, target_class_ids, ignore_class, sparse_y_true,
        sparse_y_pred, axis."""
        return {**super().get_config(), "num_classes": self.num_classes,
                "target_class_ids": self.target_class_ids, "ignore_class": self.ignore_class,
                "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


class BinaryIoU(IoU):
    """IoU of two classes, predictions >= `threshold` being class 1."""

    def __init__(self, target_class_ids: Any = (0, 1), threshold: float = 0.5,
                 name: Optional[str] = None, dtype: Any = None) -> None:
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name,
                         dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Thresholds the predictions, then counts as IoU."""
        y_true = math_ops.cast(convert_to_tensor(y_true), self._dtype)
        y_pred = math_ops.cast(convert_to_tensor(y_pred), _dtypes.float32)
        y_pred = math_ops.cast(y_pred >= self.threshold, self._dtype)
        super().update_state(y_true, y_pred, sample_weight)

    def get_config(self) -> dict:
        """target_class_ids, threshold, name, dtype."""
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold,
                "name": self.name, "dtype": self.dtype}


class MeanIoU(IoU):
    """IoU averaged over all `num_classes` classes."""

    def __init__(self, num_classes: int, name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_true: bool = True,
                 sparse_y_pred: bool = True, axis: int = -1) -> None:
        super().__init__(num_classes=num_classes, target_class_ids=list(range(num_classes)),
                         name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=sparse_y_true, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        """num_classes, name, dtype, ignore_class, sparse_y_true, sparse_y_pred, axis."""
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class OneHotIoU(IoU):
    """IoU of one-hot labels (and, unless `sparse_y_pred`, scores: their argmax)."""

    def __init__(self, num_classes: int, target_class_ids: Any, name: Optional[str] = None,
                 dtype: Any = None, ignore_class: Optional[int] = None,
                 sparse_y_pred: bool = False, axis: int = -1) -> None:
        super().__init__(num_classes=num_classes, target_class_ids=target_class_ids,
                         name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        """num_classes, target_class_ids, name, dtype, ignore_class, sparse_y_pred, axis."""
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                "name": self.name, "dtype": self.dtype, "ignore_class": self.ignore_class,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class OneHotMeanIoU(MeanIoU):
    """MeanIoU of one-hot labels (and, unless `sparse_y_pred`, scores: their argmax)."""

    def __init__(self, num_classes: int, name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_pred: bool = False,
                 axis: int = -1) -> None:
        super().__init__(num_classes=num_classes, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        """num_classes, name, dtype, ignore_class, sparse_y_pred, axis."""
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


# -- serialization ---------------------------------------------------------------------------
def serialize(metric: Any) -> Any:
    """A metric's Keras 3 config ({'module', 'class_name', 'config', 'registered_name'}), or
    a metric function's."""
    from tapeflow.keras.saving.serialization import serialize_keras_object
    return serialize_keras_object(metric)


def deserialize(config: Any, custom_objects: Optional[dict] = None) -> Any:
    """The metric a `serialize` config (or a name such as 'precision') describes."""
    from tapeflow.keras import metrics
    if isinstance(config, str):
        if custom_objects and config in custom_objects:
            return custom_objects[config]
        return metrics.get(config)
    from tapeflow.keras.saving.serialization import deserialize_keras_object
    return deserialize_keras_object(config, custom_objects=custom_objects)


CLASSES = (TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, PearsonCorrelation,
           ConcordanceCorrelation, Sum, FBetaScore, F1Score, R2Score, IoU, BinaryIoU, MeanIoU,
           OneHotIoU, OneHotMeanIoU)
FUNCTIONS = (top_k_categorical_accuracy, sparse_top_k_categorical_accuracy,
             pearson_correlation, concordance_correlation)

__all__ = [obj.__name__ for obj in CLASSES + FUNCTIONS] + ["serialize", "deserialize"]
