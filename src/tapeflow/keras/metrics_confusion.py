"""`keras.metrics`' confusion-matrix family: TruePositives ... FalseNegatives, Precision,
Recall and the metrics read off a curve of thresholds (PrecisionAtRecall, RecallAtPrecision,
SensitivityAtSpecificity, SpecificityAtSensitivity), all accumulated by
`update_confusion_matrix`, which AUC shares.

Keras 3 counts in two ways and so does this module: thresholds evenly spread over [0, 1]
are counted by buckets (predictions clipped to [0, 1], so a prediction 1.5 is not above the
threshold 1.0), any other thresholds by comparing every prediction with every threshold.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.ops import array_ops, clip_ops, index_ops, manip_ops, math_ops, reduce_ops
from tapeflow.keras import backend
from tapeflow.keras.backend import floatx
from tapeflow.keras.losses import squeeze_or_expand_to_same_rank
from tapeflow.keras.metrics import Metric

NEG_INF = -1e10  # Keras's threshold when only the top_k predictions count
_KEYS = ("tp", "fp", "tn", "fn")


def _as_list(x: Any) -> list:
    return list(x) if isinstance(x, (list, tuple, np.ndarray)) else [x]


def parse_thresholds(thresholds: Any, default: float = 0.5) -> list:
    """The thresholds as a list (`default` when None), each checked to lie in [0, 1]."""
    if thresholds is None:
        return [default]
    thresholds = _as_list(thresholds)
    invalid = [t for t in thresholds if t is None or t < 0 or t > 1]
    if invalid:
        raise ValueError(f"Threshold values must be in [0, 1]. Received: {invalid}")
    return thresholds


def evenly_distributed(thresholds: Any) -> bool:
    """Whether `thresholds` are i / (n - 1) for i = 0..n-1 (n >= 3), Keras's test for
    counting by buckets."""
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(thresholds, even, atol=backend.epsilon()))


def _filter_top_k(x: Tensor, k: int) -> Tensor:
    """`x` with all but the top `k` values of its last axis set to NEG_INF."""
    _, indices = manip_ops.top_k(x, k)
    mask = reduce_ops.reduce_sum(
        array_ops.one_hot(indices, int(x.shape[-1]), dtype=x.dtype), axis=-2)
    return x * mask + NEG_INF * (1 - mask)


def _reverse_cumsum(x: Tensor, axis: int = 0) -> Tensor:
    return manip_ops.reverse(manip_ops.cumsum(manip_ops.reverse(x, [axis]), axis=axis),
                             [axis])


def update_confusion_matrix(variables: dict, y_true: Any, y_pred: Any, thresholds: Any,
                            top_k: Optional[int] = None, class_id: Optional[int] = None,
                            sample_weight: Any = None, evenly: bool = False,
                            multi_label: bool = False, label_weights: Any = None) -> None:
    """Adds a batch's (weighted) confusion counts at each threshold to `variables`
    ({'tp' | 'fp' | 'tn' | 'fn': Variable}): a prediction above a threshold is a positive.

    `top_k` keeps only the k largest predictions of each row positive, `class_id` looks at
    one column; `evenly` counts by buckets (thresholds i / (n - 1), see the module doc).
    All predictions count as one label, each weighted by its column's `label_weights` where
    given, unless `multi_label`: then each column (label) of 2-D predictions has its own
    counts, `[thresholds, labels]`.
    """
    dtype = next(iter(variables.values())).dtype
    y_true = math_ops.cast(convert_to_tensor(y_true), dtype)
    y_pred = math_ops.cast(convert_to_tensor(y_pred), dtype)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = array_ops.expand_dims(
            math_ops.cast(convert_to_tensor(sample_weight), dtype), -1)
        _, sample_weight = squeeze_or_expand_to_same_rank(y_true, sample_weight,
                                                          expand_rank_1=False)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        if y_pred.ndim == 1:
            raise ValueError("When class_id is provided, y_pred must be a 2D array with shape "
                             "(num_samples, num_classes), found shape: "
                             f"{tuple(y_pred.shape)}")
        y_true = y_true[..., class_id:class_id + 1]
        y_pred = y_pred[..., class_id:class_id + 1]
    if label_weights is not None:
        label_weights = array_ops.broadcast_to(
            math_ops.cast(convert_to_tensor(label_weights), dtype), backend.dynamic_shape(y_pred))
        sample_weight = label_weights if sample_weight is None else \
            sample_weight * label_weights
    # One row of predictions (all of them), or with multi_label one [examples, labels] block.
    rows = (lambda t: array_ops.expand_dims(t, 0)) if multi_label else \
        (lambda t: array_ops.reshape(t, [1, -1]))
    if sample_weight is not None:
        sample_weight = rows(array_ops.broadcast_to(sample_weight, backend.dynamic_shape(y_pred)))
    labels = math_ops.cast(math_ops.cast(rows(y_true), _dtypes.bool), dtype)
    if evenly:
        counts = _bucket_counts(labels, rows(y_pred), sample_weight, thresholds, dtype)
    else:
        counts = _threshold_counts(labels, rows(y_pred), sample_weight, thresholds, dtype)
    for key, variable in variables.items():
        variable.assign_add(counts(key))


def _threshold_counts(labels: Tensor, pred: Tensor, weight: Any, thresholds: Any,
                      dtype: Any) -> Any:
    """Counts by comparing each prediction with each threshold (one row per threshold;
    `[1, examples, labels]` predictions count per label)."""
    if weight is None:
        weight = math_ops.ones_like(labels)
    column = np.asarray(thresholds, np.float64).reshape((-1,) + (1,) * (len(pred.shape) - 1))
    above = math_ops.cast(math_ops.greater(pred, math_ops.cast(column, dtype)), dtype)
    below = 1.0 - above
    cells = {"tp": (above, labels), "fp": (above, 1.0 - labels),
             "tn": (below, 1.0 - labels), "fn": (below, labels)}

    def counts(key: str) -> Tensor:
        predicted, actual = cells[key]
        return reduce_ops.reduce_sum(predicted * actual * weight, axis=1)
    return counts


def _bucket_counts(labels: Tensor, pred: Tensor, weight: Any, thresholds: Any,
                   dtype: Any) -> Any:
    """Counts for thresholds i / (n - 1) (Keras's O(T + N) way): each prediction falls in
    the bucket of the largest threshold it exceeds, and a reversed cumulative sum of the
    buckets gives the counts above each threshold (per label for `[1, examples, labels]`
    predictions)."""
    n = len(thresholds)
    with_epsilon = thresholds[0] < 0.0 or thresholds[-1] > 1.0
    labels, pred = labels[0], clip_ops.clip_by_value(pred[0], 0.0, 1.0)
    weight = 1.0 if weight is None else math_ops.cast(weight[0], dtype)
    true_labels, false_labels = labels * weight, (1.0 - labels) * weight
    bucket = math_ops.ceil(pred * math_ops.cast(n - 1, dtype)) - 1
    if with_epsilon:
        bucket = math_ops.maximum(bucket, 0.0)
    bucket = math_ops.cast(bucket, _dtypes.int32)
    if len(labels.shape) == 2:  # [examples, labels]: label j's buckets are n*j ... n*j + n-1
        num_labels = int(labels.shape[1])
        bucket = bucket + np.arange(num_labels, dtype=np.int32) * n

        def by_bucket(values: Tensor) -> Tensor:
            sums = index_ops.unsorted_segment_sum(values, bucket, n * num_labels)
            return array_ops.transpose(array_ops.reshape(sums, [num_labels, n]))
    else:
        def by_bucket(values: Tensor) -> Tensor:
            return index_ops.unsorted_segment_sum(values, bucket, n)
    tp = _reverse_cumsum(by_bucket(true_labels))
    fp = _reverse_cumsum(by_bucket(false_labels))
    totals = {}

    def counts(key: str) -> Tensor:
        if key == "tp":
            return tp
        if key == "fp":
            return fp
        if key not in totals:
            totals["fn"] = reduce_ops.reduce_sum(true_labels, axis=0) - tp
            totals["tn"] = reduce_ops.reduce_sum(false_labels, axis=0) - fp
        return totals[key]
    return counts


# -- counts at thresholds --------------------------------------------------------------------
class _ConfusionMatrixConditionCount(Metric):
    """The (weighted) count of one confusion-matrix cell at each threshold."""

    _cell = "tp"

    def __init__(self, thresholds: Any = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = parse_thresholds(thresholds, 0.5)
        self._evenly = evenly_distributed(self.thresholds)
        self.accumulator = self.add_variable((len(self.thresholds),), dtype=floatx(),
                                             name="accumulator")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) count at each threshold."""
        update_confusion_matrix({self._cell: self.accumulator}, y_true, y_pred,
                                self.thresholds, sample_weight=sample_weight,
                                evenly=self._evenly)

    def result(self) -> Tensor:
        """The count: a scalar for one threshold, else one per threshold."""
        value = self.accumulator.value()
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict:
        """name, dtype and the thresholds as given."""
        return {**super().get_config(), "thresholds": self.init_thresholds}


class TruePositives(_ConfusionMatrixConditionCount):
    """The (weighted) number of true positives: label true, prediction above a threshold
    (default 0.5; a list gives one count per threshold)."""

    _cell = "tp"


class FalsePositives(_ConfusionMatrixConditionCount):
    """The (weighted) number of false positives: label false, prediction above a threshold
    (default 0.5; a list gives one count per threshold)."""

    _cell = "fp"


class TrueNegatives(_ConfusionMatrixConditionCount):
    """The (weighted) number of true negatives: label false, prediction at or below a
    threshold (default 0.5; a list gives one count per threshold)."""

    _cell = "tn"


class FalseNegatives(_ConfusionMatrixConditionCount):
    """The (weighted) number of false negatives: label true, prediction at or below a
    threshold (default 0.5; a list gives one count per threshold)."""

    _cell = "fn"


class _PrecisionRecall(Metric):
    """TP / (TP + <other>) at each threshold, optionally over the top_k predictions of each
    row or one class_id column."""

    _other = "fp"

    def __init__(self, thresholds: Any = None, top_k: Optional[int] = None,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        self.thresholds = parse_thresholds(thresholds, 0.5 if top_k is None else NEG_INF)
        self._evenly = evenly_distributed(self.thresholds)
        shape = (len(self.thresholds),)
        self.true_positives = self.add_variable(shape, dtype=floatx(), name="true_positives")
        other = "false_positives" if self._other == "fp" else "false_negatives"
        setattr(self, other, self.add_variable(shape, dtype=floatx(), name=other))
        self._other_variable = getattr(self, other)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) true positives and the other count."""
        update_confusion_matrix({"tp": self.true_positives, self._other: self._other_variable},
                                y_true, y_pred, self.thresholds, top_k=self.top_k,
                                class_id=self.class_id, sample_weight=sample_weight,
                                evenly=self._evenly)

    def result(self) -> Tensor:
        """The ratio (0 where nothing was counted): scalar for one threshold."""
        tp = self.true_positives.value()
        value = math_ops.divide_no_nan(tp, tp + self._other_variable.value())
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict:
        """name, dtype, thresholds (as given), top_k, class_id."""
        return {**super().get_config(), "thresholds": self.init_thresholds,
                "top_k": self.top_k, "class_id": self.class_id}


class Precision(_PrecisionRecall):
    """Precision, TP / (TP + FP): predictions above `thresholds` (default 0.5) are positive;
    with `top_k` only each row's k largest, with `class_id` only that column."""

    _other = "fp"


class Recall(_PrecisionRecall):
    """Recall, TP / (TP + FN): predictions above `thresholds` (default 0.5) are positive;
    with `top_k` only each row's k largest, with `class_id` only that column."""

    _other = "fn"


# -- one rate at a constraint on another -----------------------------------------------------
def _rate(numerator: Tensor, other: Tensor) -> Tensor:
    return math_ops.divide_no_nan(numerator, numerator + other)


class _SensitivitySpecificityBase(Metric):
    """Confusion counts at `num_thresholds` thresholds evenly spread over [0, 1]; `result`
    is the best of one rate over the thresholds where another meets `value`."""

    _constraint = "specificity"  # the argument's name, as Keras's config and errors

    def __init__(self, value: float, num_thresholds: int = 200,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        if value < 0 or value > 1:
            raise ValueError(f"Argument `{self._constraint}` must be in the range [0, 1]. "
                             f"Received: {self._constraint}={value}")
        super().__init__(name=name, dtype=dtype)
        if num_thresholds <= 0:
            raise ValueError("Argument `num_thresholds` must be an integer > 0. "
                             f"Received: num_thresholds={num_thresholds}")
        setattr(self, self._constraint, value)
        self.value = value
        self.num_thresholds = num_thresholds
        self.class_id = class_id
        if num_thresholds == 1:
            self.thresholds, self._evenly = [0.5], False
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds, self._evenly = [0.0] + inner + [1.0], True
        shape = (len(self.thresholds),)
        self.true_positives = self.add_variable(shape, dtype=floatx(), name="true_positives")
        self.false_positives = self.add_variable(shape, dtype=floatx(),
                                                 name="false_positives")
        self.true_negatives = self.add_variable(shape, dtype=floatx(), name="true_negatives")
        self.false_negatives = self.add_variable(shape, dtype=floatx(),
                                                 name="false_negatives")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) TP/FP/TN/FN at every threshold."""
        update_confusion_matrix(
            {"tp": self.true_positives, "tn": self.true_negatives,
             "fp": self.false_positives, "fn": self.false_negatives},
            y_true, y_pred, self.thresholds, class_id=self.class_id,
            sample_weight=sample_weight, evenly=self._evenly)

    def _rates(self) -> dict:
        tp, fp = self.true_positives.value(), self.false_positives.value()
        tn, fn = self.true_negatives.value(), self.false_negatives.value()
        return {"sensitivity": _rate(tp, fn), "recall": _rate(tp, fn),
                "specificity": _rate(tn, fp), "precision": _rate(tp, fp)}

    def result(self) -> Tensor:
        """The largest `_target` rate among thresholds whose constrained rate >= value
        (0 when none)."""
        rates = self._rates()
        feasible = math_ops.greater_equal(rates[self._constraint],
                                          math_ops.cast(self.value, rates[self._target].dtype))
        candidates = math_ops.where(feasible, rates[self._target],
                                     math_ops.zeros_like(rates[self._target]))
        return math_ops.maximum(reduce_ops.reduce_max(candidates), 0.0)

    def get_config(self) -> dict:
        """name, dtype, class_id, num_thresholds and the constraint's value."""
        return {**super().get_config(), "class_id": self.class_id,
                "num_thresholds": self.num_thresholds, self._constraint: self.value}


class SensitivityAtSpecificity(_SensitivitySpecificityBase):
    """The best sensitivity (recall) over thresholds where specificity >= `specificity`."""

    _constraint, _target = "specificity", "sensitivity"

    def __init__(self, specificity: float, num_thresholds: int = 200,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(specificity, num_thresholds, class_id, name, dtype)


class SpecificityAtSensitivity(_SensitivitySpecificityBase):
    """The best specificity over thresholds where sensitivity >= `sensitivity`."""

    _constraint, _target = "sensitivity", "specificity"

    def __init__(self, sensitivity: float, num_thresholds: int = 200,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)


class PrecisionAtRecall(_SensitivitySpecificityBase):
    """The best precision over thresholds where recall >= `recall`."""

    _constraint, _target = "recall", "precision"

    def __init__(self, recall: float, num_thresholds: int = 200,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(recall, num_thresholds, class_id, name, dtype)


class RecallAtPrecision(_SensitivitySpecificityBase):
    """The best recall over thresholds where precision >= `precision`."""

    _constraint, _target = "precision", "recall"

    def __init__(self, precision: float, num_thresholds: int = 200,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(precision, num_thresholds, class_id, name, dtype)


CLASSES = (TruePositives, FalsePositives, TrueNegatives, FalseNegatives, Precision, Recall,
           PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity,
           SpecificityAtSensitivity)

__all__ = [cls.__name__ for cls in CLASSES]
