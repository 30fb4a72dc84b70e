"""`keras.losses`: loss classes and functions with Keras 3's formulas and reductions.

A loss class computes per-example values with its function (`mean_squared_error`, ...), then
weights them by `sample_weight` and reduces them: 'sum_over_batch_size' (the default: the sum
divided by the number of values), 'sum', 'mean', 'mean_with_sample_weight', or None/'none'.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable, Optional

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend
from tapeflow.keras._registry import serialize_keras_object
from tapeflow.keras.activations import keras_logits
from tapeflow.ops import array_ops, clip_ops, math_ops, nn_ops, reduce_ops

_REDUCTIONS = ("sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight")


def _tensor(x: Any, dtype: Any = None) -> Tensor:
    x = convert_to_tensor(x)
    return x if dtype is None or x.dtype == dtype else math_ops.cast(x, dtype)


def squeeze_or_expand_to_same_rank(x1: Tensor, x2: Tensor, expand_rank_1: bool = True) -> tuple:
    """Makes ranks equal when they differ by a trailing dimension of size 1 (as Keras)."""
    r1, r2 = x1.ndim, x2.ndim
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = array_ops.expand_dims(x2, -1)
        else:
            x1 = array_ops.squeeze(x1, axis=[-1])
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = array_ops.expand_dims(x1, -1)
        else:
            x2 = array_ops.squeeze(x2, axis=[-1])
    return x1, x2


def _standardize_reduction(reduction: Any) -> Any:
    if reduction not in _REDUCTIONS:
        raise ValueError("Invalid value for argument `reduction`. Expected one of "
                         f"{set(_REDUCTIONS)}. Received: reduction={reduction}")
    return reduction


def _keras_mask(x: Any) -> Any:
    from tapeflow.keras.layers.layer import get_keras_mask
    return get_keras_mask(x)


def _set_keras_mask(x: Tensor, mask: Any) -> None:
    from tapeflow.keras.layers.layer import set_keras_mask
    set_keras_mask(x, mask)


def apply_mask(sample_weight: Any, mask: Any, dtype: Any, reduction: Any) -> Any:
    """`sample_weight` times a Keras mask. For the mean reductions the kept entries weigh
    total/valid, so the mean is over the unmasked entries only (as Keras)."""
    if mask is None:
        return sample_weight
    mask = convert_to_tensor(mask)
    if reduction in ("mean", "sum_over_batch_size"):
        total = math_ops.cast(array_ops.size(mask), dtype)
        valid = reduce_ops.reduce_sum(math_ops.cast(mask, dtype))  # may be 0
        weight = math_ops.divide_no_nan(total, valid)
        float_mask = math_ops.where(math_ops.cast(mask, _dtypes.bool), weight,
                                    math_ops.zeros_like(weight))
    else:
        float_mask = math_ops.cast(mask, dtype)
    if sample_weight is None:
        return float_mask
    sample_weight = _tensor(sample_weight, dtype)
    float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
    return sample_weight * float_mask


def reduce_weighted_values(values: Any, sample_weight: Any = None,
                           reduction: Any = "sum_over_batch_size", dtype: Any = None,
                           mask: Any = None) -> Tensor:
    """Weights `values` by `sample_weight` (broadcast as Keras does) and by a Keras `mask`
    (see `apply_mask`), then reduces them."""
    reduction = _standardize_reduction(reduction)
    values = _tensor(values, dtype)
    if mask is not None:
        sample_weight = apply_mask(sample_weight, mask, values.dtype, reduction)
    if sample_weight is not None:
        sample_weight = _tensor(sample_weight, values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    if reduction in (None, "none") or values.ndim == 0 or tuple(values.shape) == (0,):
        return values
    loss = reduce_ops.reduce_sum(values)
    if reduction == "sum":
        return loss
    if reduction == "mean_with_sample_weight" and sample_weight is not None:
        divisor = math_ops.cast(reduce_ops.reduce_sum(sample_weight), loss.dtype)
        return math_ops.divide_no_nan(loss, divisor)
    count = values.shape.num_elements()
    if count is None:  # traced with unknown dims: the count is known when the graph runs
        return math_ops.divide_no_nan(loss, math_ops.cast(array_ops.size(values), loss.dtype))
    # A known count other than 0 makes divide_no_nan a plain division (one op, not five).
    return loss / float(count) if count else math_ops.divide_no_nan(loss, 0.0)


def _auto_name(class_name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z][a-z])", "_", class_name).lower()


class Loss:
    """Base class of losses: subclasses implement `call(y_true, y_pred)` returning
    per-example values; `__call__` weights and reduces them.

    Args:
      name: the loss's name (snake_case of the class name by default).
      reduction: 'sum_over_batch_size' (default), 'sum', 'mean', 'mean_with_sample_weight',
        or None/'none' for per-example values.
      dtype: the computation dtype (float32 by default).
    """

    def __init__(self, name: Optional[str] = None, reduction: Any = "sum_over_batch_size",
                 dtype: Any = None) -> None:
        self.name = name or _auto_name(self.__class__.__name__)
        self.reduction = _standardize_reduction(reduction)
        self._dtype = _dtypes.as_dtype(dtype or "float32")

    @property
    def dtype(self) -> str:
        """The dtype the loss computes in, as a name ('float32' by default)."""
        return self._dtype.name

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Tensor:
        in_mask = _keras_mask(y_pred)
        y_pred = _tensor(y_pred, self._dtype) if not _has_logits(y_pred) else y_pred
        y_true = _tensor(y_true, self._dtype)
        losses = self.call(y_true, y_pred)
        return reduce_weighted_values(losses, sample_weight, self.reduction, self._dtype,
                                      mask=_merge_masks(in_mask, _keras_mask(losses)))

    def call(self, y_true: Tensor, y_pred: Tensor) -> Tensor:
        """The per-example losses of (y_true, y_pred), before reduction."""
        raise NotImplementedError

    def get_config(self) -> dict:
        """The loss's constructor arguments, as a dict."""
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config: dict) -> "Loss":
        """A loss built from the dict `get_config()` returns."""
        return cls(**config)


def _merge_masks(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return b if a is None else a
    return math_ops.logical_and(math_ops.cast(a, _dtypes.bool), math_ops.cast(b, _dtypes.bool))


class LossFunctionWrapper(Loss):
    """A Loss whose `call` is a function `fn(y_true, y_pred, **kwargs)`."""

    def __init__(self, fn: Callable, reduction: Any = "sum_over_batch_size",
                 name: Optional[str] = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true: Tensor, y_pred: Tensor) -> Tensor:
        """The per-example losses: `fn(y_true, y_pred, **kwargs)`, after a trailing axis of
        size 1 is squeezed or added to make the ranks equal (as Keras 3's wrapper does)."""
        if isinstance(y_true, Tensor) and isinstance(y_pred, Tensor):
            y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}


# -- functions ---------------------------------------------------------------------------
def _prepare(y_true: Any, y_pred: Any) -> tuple:
    y_pred = convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def mean_squared_error(y_true: Any, y_pred: Any) -> Tensor:
    """mean((y_true - y_pred) ** 2, axis=-1)."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return reduce_ops.reduce_mean(math_ops.square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Tensor:
    """mean(|y_true - y_pred|, axis=-1)."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return reduce_ops.reduce_mean(math_ops.abs(y_true - y_pred), axis=-1)


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Tensor:
    """mean over the last axis of 0.5 e**2 where |e| <= delta, else delta |e| - 0.5 delta**2."""
    y_true, y_pred = _prepare(y_true, y_pred)
    delta = _tensor(delta, y_pred.dtype)
    error = y_pred - y_true
    abs_error = math_ops.abs(error)
    quadratic = 0.5 * math_ops.square(error)
    linear = delta * abs_error - 0.5 * math_ops.square(delta)
    return reduce_ops.reduce_mean(math_ops.where(abs_error <= delta, quadratic, linear), axis=-1)


def _has_logits(output: Any) -> bool:
    return keras_logits(output) is not None


def _ops_nn() -> Any:
    """keras.ops.nn, whose cross-entropies the losses use (as Keras's losses call ops): one
    definition of the shape checks, the clipping and the reading of a softmax's or sigmoid's
    logits. Imported on use: keras.ops imports keras.layers, which imports this module."""
    from tapeflow.keras.ops import nn
    return nn


def _check_same_shape(target: Tensor, output: Tensor) -> None:
    _ops_nn()._check_same_shape(target, output)


def _clip(x: Tensor) -> Tensor:
    return _ops_nn()._clip_probs(x)


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                        label_smoothing: float = 0.0, axis: int = -1) -> Tensor:
    """Binary cross-entropy averaged over `axis` (probabilities clipped to [1e-7, 1-1e-7])."""
    y_pred = y_pred if _has_logits(y_pred) else convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return reduce_ops.reduce_mean(_ops_nn()._binary_crossentropy(y_true, y_pred, from_logits),
                                  axis=axis)


def categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                             label_smoothing: float = 0.0, axis: int = -1) -> Tensor:
    """-sum(y_true * log(y_pred), axis) with y_pred renormalized and clipped, or softmax
    cross-entropy of logits."""
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type "
                         f"{type(axis)}")
    y_pred = y_pred if _has_logits(y_pred) else convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    if label_smoothing:
        num_classes = y_true.shape[-1]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    return _ops_nn()._categorical_crossentropy(y_true, y_pred, from_logits, axis)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                                    ignore_class: Optional[int] = None,
                                    axis: int = -1) -> Tensor:
    """Categorical cross-entropy with integer class labels."""
    y_pred = y_pred if _has_logits(y_pred) else convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    if axis not in (-1, y_pred.ndim - 1):
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = array_ops.squeeze(y_true, axis=[-1])
    labels = math_ops.cast(y_true, _dtypes.int64)
    if ignore_class is not None:
        valid = math_ops.not_equal(labels, ignore_class)
        labels = math_ops.where(valid, labels, math_ops.zeros_like(labels))
    result = _ops_nn()._sparse_categorical_crossentropy(labels, y_pred, from_logits, axis)
    if ignore_class is not None:
        result = math_ops.where(valid, result, math_ops.zeros_like(result))
        _set_keras_mask(result, valid)  # the mean is over the kept entries (Keras)
    return result


def _eps(dtype: Any) -> Tensor:
    return math_ops.cast(backend.epsilon(), dtype)


def _pred_true(y_true: Any, y_pred: Any) -> tuple:
    """y_pred as a tensor, y_true cast to its dtype (no rank change)."""
    y_pred = convert_to_tensor(y_pred)
    return _tensor(y_true, y_pred.dtype), y_pred


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Tensor:
    """100 * mean(|(y_true - y_pred) / max(|y_true|, 1e-7)|, axis=-1)."""
    y_true, y_pred = _prepare(y_true, y_pred)
    diff = math_ops.abs((y_true - y_pred) / math_ops.maximum(math_ops.abs(y_true),
                                                             _eps(y_pred.dtype)))
    return 100.0 * reduce_ops.reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Tensor:
    """mean((log(max(y_pred, 1e-7) + 1) - log(max(y_true, 1e-7) + 1)) ** 2, axis=-1)."""
    y_true, y_pred = _prepare(y_true, y_pred)
    eps = _eps(y_pred.dtype)
    first_log = math_ops.log(math_ops.maximum(y_pred, eps) + 1.0)
    second_log = math_ops.log(math_ops.maximum(y_true, eps) + 1.0)
    return reduce_ops.reduce_mean(math_ops.square(first_log - second_log), axis=-1)


def _l2_normalize(x: Tensor, axis: Any) -> Tensor:
    """x * min(rsqrt(sum(x**2)), 1/epsilon) along `axis` (Keras's `ops.normalize`)."""
    if x.ndim == 0:
        x = array_ops.expand_dims(x, 0)
    square_sum = reduce_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True)
    return x * math_ops.minimum(math_ops.rsqrt(square_sum), 1.0 / backend.epsilon())


def _cosine(y_true: Any, y_pred: Any, axis: Any) -> Tensor:
    y_true, y_pred = _prepare(y_true, y_pred)
    return reduce_ops.reduce_sum(_l2_normalize(y_true, axis) * _l2_normalize(y_pred, axis),
                                 axis=axis)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    """-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis): -1 for equal directions,
    0 when either is a zero vector."""
    return -_cosine(y_true, y_pred, axis)


def log_cosh(y_true: Any, y_pred: Any) -> Tensor:
    """mean(log(cosh(y_pred - y_true)), axis=-1), computed as x + softplus(-2x) - log(2)."""
    y_true, y_pred = _prepare(y_true, y_pred)
    error = y_pred - y_true
    log2 = math_ops.cast(_LOG2, y_pred.dtype)
    return reduce_ops.reduce_mean(error + math_ops.softplus(error * -2.0) - log2, axis=-1)


_LOG2 = float(np.float32(np.log(2.0)))  # Keras takes log(2) in float32


def _hinge_labels(y_true: Tensor) -> Tensor:
    """0/1 labels as -1/1 (when every label is 0 or 1), others unchanged."""
    is_binary = reduce_ops.reduce_all(math_ops.logical_or(math_ops.equal(y_true, 0.0),
                                                          math_ops.equal(y_true, 1.0)))
    return math_ops.where(is_binary, 2.0 * y_true - 1.0, y_true)


def hinge(y_true: Any, y_pred: Any) -> Tensor:
    """mean(max(1 - y_true * y_pred, 0), axis=-1); 0/1 labels are taken as -1/1."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    margin = 1.0 - _hinge_labels(y_true) * y_pred
    return reduce_ops.reduce_mean(math_ops.maximum(margin, 0.0), axis=-1)


def squared_hinge(y_true: Any, y_pred: Any) -> Tensor:
    """mean(max(1 - y_true * y_pred, 0) ** 2, axis=-1); 0/1 labels are taken as -1/1."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    margin = 1.0 - _hinge_labels(y_true) * y_pred
    return reduce_ops.reduce_mean(math_ops.square(math_ops.maximum(margin, 0.0)), axis=-1)


def categorical_hinge(y_true: Any, y_pred: Any) -> Tensor:
    """max(neg - pos + 1, 0) with pos = sum(y_true * y_pred), neg = max((1 - y_true) *
    y_pred) over the last axis."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    pos = reduce_ops.reduce_sum(y_true * y_pred, axis=-1)
    neg = reduce_ops.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return math_ops.maximum(neg - pos + 1.0, math_ops.cast(0.0, y_pred.dtype))


def kl_divergence(y_true: Any, y_pred: Any) -> Tensor:
    """sum(y_true * log(y_true / y_pred), axis=-1), both clipped to [1e-7, 1]."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = clip_ops.clip_by_value(y_true, backend.epsilon(), 1.0)
    y_pred = clip_ops.clip_by_value(y_pred, backend.epsilon(), 1.0)
    return reduce_ops.reduce_sum(y_true * math_ops.log(y_true / y_pred), axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Tensor:
    """mean(y_pred - y_true * log(y_pred + 1e-7), axis=-1)."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    return reduce_ops.reduce_mean(y_pred - y_true * math_ops.log(y_pred + _eps(y_pred.dtype)),
                                  axis=-1)


def binary_focal_crossentropy(y_true: Any, y_pred: Any, apply_class_balancing: bool = False,
                              alpha: float = 0.25, gamma: float = 2.0,
                              from_logits: bool = False, label_smoothing: float = 0.0,
                              axis: int = -1) -> Tensor:
    """Binary cross-entropy times the focal factor (1 - p_t) ** gamma (p_t: the probability
    of the true class), optionally times alpha / 1 - alpha for class 1 / 0; mean over `axis`.
    With logits (`from_logits=True`) the cross-entropy is computed from them stably."""
    logits = y_pred if from_logits else keras_logits(y_pred)
    y_pred = convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    _check_same_shape(y_true, y_pred)
    if logits is not None:
        y_pred = math_ops.sigmoid(logits)
        bce = nn_ops.sigmoid_cross_entropy_with_logits(labels=y_true, logits=logits)
    else:
        clipped = _clip(y_pred)
        bce = -(y_true * math_ops.log(clipped) + (1 - y_true) * math_ops.log(1 - clipped))
    p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)
    focal_bce = math_ops.pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal_bce = (y_true * alpha + (1 - y_true) * (1 - alpha)) * focal_bce
    return reduce_ops.reduce_mean(focal_bce, axis=axis)


def categorical_focal_crossentropy(y_true: Any, y_pred: Any, alpha: Any = 0.25,
                                   gamma: float = 2.0, from_logits: bool = False,
                                   label_smoothing: float = 0.0, axis: int = -1) -> Tensor:
    """sum(alpha * (1 - p) ** gamma * -y_true * log(p), axis) with p the predictions
    renormalized over `axis` and clipped to [1e-7, 1 - 1e-7] (softmax of logits first);
    `alpha` a number or one weight per class."""
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type "
                         f"{type(axis)}")
    y_pred = convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    if y_pred.shape[-1] == 1:
        warnings.warn("In loss categorical_focal_crossentropy, expected y_pred.shape to be "
                      "(batch_size, num_classes) with num_classes > 1. Received: "
                      f"y_pred.shape={y_pred.shape}. Consider using 'binary_crossentropy' if "
                      "you only have 2 classes.", SyntaxWarning, stacklevel=2)
    if label_smoothing:
        num_classes = y_true.shape[-1]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    if from_logits:
        y_pred = nn_ops.softmax(y_pred, axis=axis)
    output = y_pred / reduce_ops.reduce_sum(y_pred, axis=axis, keepdims=True)
    output = clip_ops.clip_by_value(output, backend.epsilon(), 1.0 - backend.epsilon())
    cce = -y_true * math_ops.log(output)
    weight = math_ops.pow(1.0 - output, gamma) * _tensor(alpha, output.dtype)
    return reduce_ops.reduce_sum(weight * cce, axis=axis)


def ctc(y_true: Any, y_pred: Any) -> Tensor:
    """The CTC loss of integer labels [batch, max_length] (0 is the blank and padding) and
    logits [batch, frames, classes], every frame counted."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    if y_true.ndim != 2:
        raise ValueError("Targets `y_true` are expected to be a tensor of shape `(batch_size, "
                         f"max_length)` in integer format. Received: y_true.shape={y_true.shape}")
    if y_pred.ndim != 3:
        raise ValueError("Logits `y_pred` are expected to be a tensor of shape `(batch_size, "
                         f"max_length, num_classes)`. Received: y_pred.shape={y_pred.shape}")
    from tapeflow.ops.ctc_ops import ctc_loss
    labels = math_ops.cast(y_true, _dtypes.int32)
    shape = array_ops.shape(y_pred)
    logit_length = array_ops.fill(shape[:1], shape[1])
    label_length = reduce_ops.reduce_sum(math_ops.cast(math_ops.not_equal(labels, 0),
                                                       _dtypes.int32), axis=-1)
    dtype = y_pred.dtype
    if dtype == _dtypes.float64:  # Keras computes in float32 and casts back
        y_pred = math_ops.cast(y_pred, _dtypes.float32)
    loss = ctc_loss(labels=labels, logits=y_pred, label_length=label_length,
                    logit_length=logit_length, blank_index=0, logits_time_major=False)
    return loss if loss.dtype == dtype else math_ops.cast(loss, dtype)


def dice(y_true: Any, y_pred: Any, axis: Any = None) -> Tensor:
    """1 - 2 sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + 1e-7) over `axis` (all
    axes by default)."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    intersection = reduce_ops.reduce_sum(y_true * y_pred, axis=axis)
    total = reduce_ops.reduce_sum(y_true, axis=axis) + reduce_ops.reduce_sum(y_pred, axis=axis)
    return 1 - 2.0 * intersection / (total + backend.epsilon())


def tversky(y_true: Any, y_pred: Any, alpha: float = 0.5, beta: float = 0.5,
            axis: Any = None) -> Tensor:
    """1 - TP / (TP + alpha FP + beta FN + 1e-7) over `axis`, with TP = sum(y_true y_pred),
    FP = sum((1 - y_pred) y_true), FN = sum(y_pred (1 - y_true)) (Keras's naming)."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    intersection = reduce_ops.reduce_sum(y_true * y_pred, axis=axis)
    fp = reduce_ops.reduce_sum((1 - y_pred) * y_true, axis=axis)
    fn = reduce_ops.reduce_sum(y_pred * (1 - y_true), axis=axis)
    return 1 - intersection / (intersection + fp * alpha + fn * beta + backend.epsilon())


def _pos_neg_masks(query: Tensor, key: Tensor, remove_diagonal: bool) -> tuple:
    """Pairs with equal labels (minus the diagonal) and pairs with different labels."""
    query, key = array_ops.reshape(query, [-1, 1]), array_ops.reshape(key, [-1, 1])
    positive = math_ops.equal(query, array_ops.transpose(key))
    negative = math_ops.logical_not(positive)
    if remove_diagonal:
        from tapeflow.ops.linalg_ops import eye
        n, m = array_ops.size(query), array_ops.size(key)
        positive = math_ops.logical_and(
            positive, math_ops.logical_not(math_ops.cast(eye(n, m), _dtypes.bool)))
    return positive, negative


def circle(y_true: Any, y_pred: Any, ref_labels: Any = None, ref_embeddings: Any = None,
           remove_diagonal: bool = True, gamma: float = 80, margin: float = 0.4) -> Tensor:
    """The Circle loss of integer labels and L2-normalized embeddings (Sun et al., 2020):
    softplus(logsumexp(positive terms) + logsumexp(negative terms)) per row. Rows with a
    zero loss are masked out of the mean, as Keras does."""
    y_pred = convert_to_tensor(y_pred)
    y_true = math_ops.cast(convert_to_tensor(y_true), _dtypes.int32)
    ref_embeddings = y_pred if ref_embeddings is None else convert_to_tensor(ref_embeddings)
    ref_labels = y_true if ref_labels is None else math_ops.cast(
        convert_to_tensor(ref_labels), _dtypes.int32)
    distances = 1 - math_ops.matmul(y_pred, array_ops.transpose(ref_embeddings))
    distances = math_ops.maximum(distances, 0.0)
    positive, negative = _pos_neg_masks(y_true, ref_labels, remove_diagonal)
    zero = math_ops.zeros_like(distances)
    pos_weights = math_ops.maximum((margin + distances) * math_ops.cast(positive, zero.dtype),
                                   0.0)
    neg_weights = math_ops.maximum((1 + margin - distances)
                                   * math_ops.cast(negative, zero.dtype), 0.0)
    pos_terms = -1 * gamma * pos_weights * (margin - distances)
    neg_terms = gamma * neg_weights * ((1 - margin) - distances)
    minus_inf = zero - np.inf
    p_loss = reduce_ops.reduce_logsumexp(math_ops.where(positive, pos_terms, minus_inf), axis=1)
    n_loss = reduce_ops.reduce_logsumexp(math_ops.where(negative, neg_terms, minus_inf), axis=1)
    loss = math_ops.softplus(p_loss + n_loss)
    _set_keras_mask(loss, loss > 0)
    return loss


def categorical_generalized_cross_entropy(y_true: Any, y_pred: Any, q: float) -> Tensor:
    """(1 - p ** q) / q with p the predicted probability of the integer class y_true."""
    y_pred = convert_to_tensor(y_pred)
    labels = math_ops.cast(convert_to_tensor(y_true), _dtypes.int64)
    one_hot = math_ops.cast(array_ops.one_hot(labels, y_pred.shape[-1]), y_pred.dtype)
    p = reduce_ops.reduce_sum(y_pred * one_hot, axis=-1)
    return (1 - math_ops.pow(p, q)) / q


# -- classes -----------------------------------------------------------------------------
class MeanSquaredError(LossFunctionWrapper):
    """Mean of squares of errors between labels and predictions."""

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str = "mean_squared_error",
                 dtype: Any = None) -> None:
        super().__init__(mean_squared_error, name=name, reduction=reduction, dtype=dtype)


class MeanAbsoluteError(LossFunctionWrapper):
    """Mean of absolute errors between labels and predictions."""

    def __init__(self, reduction: Any = "sum_over_batch_size",
                 name: str = "mean_absolute_error", dtype: Any = None) -> None:
        super().__init__(mean_absolute_error, name=name, reduction=reduction, dtype=dtype)


class Huber(LossFunctionWrapper):
    """The Huber loss: quadratic for small errors, linear beyond `delta`."""

    def __init__(self, delta: float = 1.0, reduction: Any = "sum_over_batch_size",
                 name: str = "huber_loss", dtype: Any = None) -> None:
        super().__init__(huber, name=name, reduction=reduction, dtype=dtype, delta=delta)


class BinaryCrossentropy(LossFunctionWrapper):
    """Cross-entropy for 0/1 labels and probabilities (or logits with `from_logits=True`)."""

    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1,
                 reduction: Any = "sum_over_batch_size", name: str = "binary_crossentropy",
                 dtype: Any = None) -> None:
        super().__init__(binary_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class CategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy for one-hot labels and class probabilities (or logits)."""

    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1,
                 reduction: Any = "sum_over_batch_size", name: str = "categorical_crossentropy",
                 dtype: Any = None) -> None:
        super().__init__(categorical_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy for integer labels and class probabilities (or logits)."""

    def __init__(self, from_logits: bool = False, ignore_class: Optional[int] = None,
                 reduction: Any = "sum_over_batch_size", axis: int = -1,
                 name: str = "sparse_categorical_crossentropy", dtype: Any = None) -> None:
        # `axis` other than the last raises when the loss is computed, as on Keras's
        # TensorFlow backend; Keras's config leaves it out.
        super().__init__(sparse_categorical_crossentropy, name=name, reduction=reduction,
                         dtype=dtype, from_logits=from_logits, ignore_class=ignore_class,
                         axis=axis)
        self.from_logits = from_logits
        self.ignore_class = ignore_class

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Tensor:
        # Labels stay integers: converting them to the float dtype would be lossy.
        in_mask = _keras_mask(y_pred)
        y_pred = y_pred if _has_logits(y_pred) else _tensor(y_pred, self._dtype)
        losses = self.call(convert_to_tensor(y_true), y_pred)
        return reduce_weighted_values(losses, sample_weight, self.reduction, self._dtype,
                                      mask=_merge_masks(in_mask, _keras_mask(losses)))

    def get_config(self) -> dict:
        """As Keras 3.15's: the base loss's keys, `from_logits` and `ignore_class` (no axis)."""
        config = super().get_config()
        config.pop("axis", None)
        return config


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """100 * mean(|(y_true - y_pred) / y_true|) (the divisor at least 1e-7)."""

    def __init__(self, reduction: Any = "sum_over_batch_size",
                 name: str = "mean_absolute_percentage_error", dtype: Any = None) -> None:
        super().__init__(mean_absolute_percentage_error, name=name, reduction=reduction,
                         dtype=dtype)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    """mean((log(y_pred + 1) - log(y_true + 1)) ** 2), values below 1e-7 raised to it."""

    def __init__(self, reduction: Any = "sum_over_batch_size",
                 name: str = "mean_squared_logarithmic_error", dtype: Any = None) -> None:
        super().__init__(mean_squared_logarithmic_error, name=name, reduction=reduction,
                         dtype=dtype)


class CosineSimilarity(LossFunctionWrapper):
    """The negated cosine similarity along `axis`: -1 for equal directions, 0 orthogonal."""

    def __init__(self, axis: int = -1, reduction: Any = "sum_over_batch_size",
                 name: str = "cosine_similarity", dtype: Any = None) -> None:
        # Keras 3's config leaves `axis` out (a reload computes along -1); this one keeps it.
        super().__init__(cosine_similarity, name=name, reduction=reduction, dtype=dtype,
                         axis=axis)
        self.axis = axis


class LogCosh(LossFunctionWrapper):
    """mean(log(cosh(y_pred - y_true))): like MSE for small errors, like MAE for large."""

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str = "log_cosh",
                 dtype: Any = None) -> None:
        super().__init__(log_cosh, name=name, reduction=reduction, dtype=dtype)


class Hinge(LossFunctionWrapper):
    """mean(max(1 - y_true * y_pred, 0)) for -1/1 labels (0/1 labels are converted)."""

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str = "hinge",
                 dtype: Any = None) -> None:
        super().__init__(hinge, name=name, reduction=reduction, dtype=dtype)


class SquaredHinge(LossFunctionWrapper):
    """mean(max(1 - y_true * y_pred, 0) ** 2) for -1/1 labels (0/1 labels are converted)."""

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str = "squared_hinge",
                 dtype: Any = None) -> None:
        super().__init__(squared_hinge, name=name, reduction=reduction, dtype=dtype)


class CategoricalHinge(LossFunctionWrapper):
    """max(neg - pos + 1, 0): pos the score of the true class, neg the best other score."""

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str = "categorical_hinge",
                 dtype: Any = None) -> None:
        super().__init__(categorical_hinge, name=name, reduction=reduction, dtype=dtype)


class KLDivergence(LossFunctionWrapper):
    """The Kullback-Leibler divergence sum(y_true * log(y_true / y_pred)), both clipped to
    [1e-7, 1]."""

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str = "kl_divergence",
                 dtype: Any = None) -> None:
        super().__init__(kl_divergence, name=name, reduction=reduction, dtype=dtype)


class Poisson(LossFunctionWrapper):
    """mean(y_pred - y_true * log(y_pred + 1e-7))."""

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str = "poisson",
                 dtype: Any = None) -> None:
        super().__init__(poisson, name=name, reduction=reduction, dtype=dtype)


class BinaryFocalCrossentropy(LossFunctionWrapper):
    """Binary cross-entropy down-weighting easy examples by (1 - p_t) ** gamma (Lin et al.,
    2018), optionally class-balanced by `alpha`."""

    def __init__(self, apply_class_balancing: bool = False, alpha: float = 0.25,
                 gamma: float = 2.0, from_logits: bool = False, label_smoothing: float = 0.0,
                 axis: int = -1, reduction: Any = "sum_over_batch_size",
                 name: str = "binary_focal_crossentropy", dtype: Any = None) -> None:
        super().__init__(binary_focal_crossentropy, name=name, reduction=reduction,
                         dtype=dtype, apply_class_balancing=apply_class_balancing, alpha=alpha,
                         gamma=gamma, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.apply_class_balancing = apply_class_balancing
        self.alpha = alpha
        self.gamma = gamma
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    """Categorical cross-entropy weighted by alpha * (1 - p) ** gamma (Lin et al., 2018)."""

    def __init__(self, alpha: Any = 0.25, gamma: float = 2.0, from_logits: bool = False,
                 label_smoothing: float = 0.0, axis: int = -1,
                 reduction: Any = "sum_over_batch_size",
                 name: str = "categorical_focal_crossentropy", dtype: Any = None) -> None:
        super().__init__(categorical_focal_crossentropy, name=name, reduction=reduction,
                         dtype=dtype, alpha=alpha, gamma=gamma, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.alpha = alpha
        self.gamma = gamma
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class CTC(LossFunctionWrapper):
    """The CTC loss of integer label sequences (0: blank/padding) and per-frame logits."""

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str = "ctc",
                 dtype: Any = None) -> None:
        super().__init__(ctc, name=name, reduction=reduction, dtype=dtype)


class Dice(LossFunctionWrapper):
    """1 - 2 sum(y_true * y_pred) / (sum(y_true) + sum(y_pred)) over `axis` (all by
    default)."""

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str = "dice",
                 axis: Any = None, dtype: Any = None) -> None:
        super().__init__(dice, name=name, reduction=reduction, dtype=dtype, axis=axis)
        self.axis = axis


class Tversky(LossFunctionWrapper):
    """The Tversky loss: Dice with false positives and negatives weighed by `alpha` and
    `beta` (Salehi et al., 2017)."""

    def __init__(self, alpha: float = 0.5, beta: float = 0.5,
                 reduction: Any = "sum_over_batch_size", name: str = "tversky",
                 axis: Any = None, dtype: Any = None) -> None:
        super().__init__(tversky, name=name, reduction=reduction, dtype=dtype, alpha=alpha,
                         beta=beta, axis=axis)
        self.alpha = alpha
        self.beta = beta
        self.axis = axis


class Circle(LossFunctionWrapper):
    """The Circle loss between integer labels and L2-normalized embeddings (metric
    learning; Sun et al., 2020)."""

    def __init__(self, gamma: float = 80.0, margin: float = 0.4, remove_diagonal: bool = True,
                 reduction: Any = "sum_over_batch_size", name: str = "circle",
                 dtype: Any = None) -> None:
        super().__init__(circle, name=name, reduction=reduction, dtype=dtype, gamma=gamma,
                         margin=margin, remove_diagonal=remove_diagonal)
        self.gamma = gamma
        self.margin = margin
        self.remove_diagonal = remove_diagonal


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    """The noise-robust Generalized Cross Entropy (1 - p ** q) / q of integer labels, `q` in
    (0, 1) (Zhang & Sabuncu, 2018)."""

    def __init__(self, q: float = 0.5, reduction: Any = "sum_over_batch_size",
                 name: str = "categorical_generalized_cross_entropy", dtype: Any = None) -> None:
        if not 0 < q < 1:
            raise ValueError("q must be in the interval (0, 1)")
        super().__init__(categorical_generalized_cross_entropy, name=name, reduction=reduction,
                         dtype=dtype, q=q)
        self.q = q


class Reduction:
    """The legacy reduction keys (`tf.keras.losses.Reduction`, Keras 3's
    `keras._legacy.losses.Reduction`)."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls) -> tuple:
        """The keys: ('auto', 'none', 'sum', 'sum_over_batch_size')."""
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key: Any) -> None:
        """Raises ValueError unless `key` is one of `all()`."""
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


# Keras's aliases.
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh

# Keras 3's ALL_OBJECTS_DICT: `get` / `deserialize` find these by name.
_FUNCTIONS = {fn.__name__: fn for fn in (
    mean_squared_error, mean_absolute_error, mean_absolute_percentage_error,
    mean_squared_logarithmic_error, cosine_similarity, log_cosh, huber, hinge, squared_hinge,
    categorical_hinge, kl_divergence, poisson, binary_crossentropy, binary_focal_crossentropy,
    categorical_crossentropy, categorical_focal_crossentropy, sparse_categorical_crossentropy,
    dice, tversky, circle, ctc)}
_FUNCTIONS.update({"bce": binary_crossentropy, "BCE": binary_crossentropy,
                   "kld": kl_divergence, "KLD": kl_divergence, "mae": mean_absolute_error,
                   "MAE": mean_absolute_error, "mse": mean_squared_error,
                   "MSE": mean_squared_error, "mape": mean_absolute_percentage_error,
                   "MAPE": mean_absolute_percentage_error,
                   "msle": mean_squared_logarithmic_error,
                   "MSLE": mean_squared_logarithmic_error})
_CLASSES = {cls.__name__: cls for cls in (
    MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError, CosineSimilarity, LogCosh, Huber, Hinge, SquaredHinge,
    CategoricalHinge, KLDivergence, Poisson, BinaryCrossentropy, BinaryFocalCrossentropy,
    CategoricalCrossentropy, CategoricalFocalCrossentropy, SparseCategoricalCrossentropy,
    Dice, Tversky, Circle, CTC)}


def serialize(loss: Any) -> Any:
    """A loss's name (functions) or `{'class_name', 'config'}` (classes)."""
    if isinstance(loss, Loss):
        return serialize_keras_object(loss)
    return getattr(loss, "__name__", loss)


def deserialize(name: Any, custom_objects: Optional[dict] = None) -> Any:
    """The loss function or object described by `serialize`'s output (`name`: a config dict
    or a name, as Keras calls it)."""
    config = name
    custom_objects = custom_objects or {}
    if isinstance(config, dict):
        name = config["class_name"]
        cls = custom_objects.get(name) or _CLASSES.get(name)
        if cls is None:
            raise ValueError(f"Could not interpret loss identifier: {config}")
        return cls.from_config(config.get("config", {}))
    if config in custom_objects:
        return custom_objects[config]
    if config in _FUNCTIONS:
        return _FUNCTIONS[config]
    if config in _CLASSES:
        return _CLASSES[config]()
    raise ValueError(f"Could not interpret loss identifier: {config}")


def get(identifier: Any) -> Any:
    """A loss from a name ('mse', 'categorical_crossentropy', 'MeanSquaredError'), a config
    dict, a function or a Loss instance."""
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss identifier: {identifier}")


__all__ = [
    "Loss", "LossFunctionWrapper", "Reduction", "MeanSquaredError", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError", "CosineSimilarity", "LogCosh",
    "Huber", "Hinge", "SquaredHinge", "CategoricalHinge", "KLDivergence", "Poisson",
    "BinaryCrossentropy", "BinaryFocalCrossentropy", "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy", "SparseCategoricalCrossentropy", "CTC", "Dice", "Tversky",
    "Circle", "CategoricalGeneralizedCrossEntropy",
    "mean_squared_error", "mean_absolute_error", "mean_absolute_percentage_error",
    "mean_squared_logarithmic_error", "cosine_similarity", "log_cosh", "huber", "hinge",
    "squared_hinge", "categorical_hinge", "kl_divergence", "poisson", "binary_crossentropy",
    "binary_focal_crossentropy", "categorical_crossentropy", "categorical_focal_crossentropy",
    "sparse_categorical_crossentropy", "ctc", "dice", "tversky", "circle",
    "categorical_generalized_cross_entropy", "mse", "mae", "mape", "msle", "kld", "logcosh",
    "kullback_leibler_divergence", "MSE", "MAE", "MAPE", "MSLE", "KLD",
    "get", "serialize", "deserialize", "reduce_weighted_values", "apply_mask",
]
