"""`keras.losses`: loss classes and functions with Keras 3's formulas and reductions.

A loss class computes per-example values with its function (`mean_squared_error`, ...), then
weights them by `sample_weight` and reduces them: 'sum_over_batch_size' (the default: the sum
divided by the number of values), 'sum', 'mean', 'mean_with_sample_weight', or None/'none'.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable, Optional

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras._registry import serialize_keras_object
from tapeflow.ops import array_ops, math_ops, nn_ops, reduce_ops

EPSILON = 1e-7  # keras.backend.epsilon()
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


def reduce_weighted_values(values: Any, sample_weight: Any = None,
                           reduction: Any = "sum_over_batch_size", dtype: Any = None) -> Tensor:
    """Weights `values` by `sample_weight` (broadcast as Keras does) and reduces them."""
    reduction = _standardize_reduction(reduction)
    values = _tensor(values, dtype)
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
        y_pred = _tensor(y_pred, self._dtype) if not _has_logits(y_pred) else y_pred
        y_true = _tensor(y_true, self._dtype)
        losses = self.call(y_true, y_pred)
        return reduce_weighted_values(losses, sample_weight, self.reduction, self._dtype)

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
    return getattr(output, "_keras_logits", None) is not None


def _get_logits(output: Tensor, from_logits: bool, kind: str, fn_name: str) -> tuple:
    """Uses the logits a Keras softmax/sigmoid activation attached to its output, as Keras
    does, so the loss is computed stably from logits."""
    logits = getattr(output, "_keras_logits", None)
    if logits is None:
        return output, from_logits
    if from_logits:
        warnings.warn(f'"`{fn_name}` received `from_logits=True`, but the `output` argument '
                      f"was produced by a {kind} activation and thus does not represent "
                      "logits. Was this intended?", stacklevel=3)
    return logits, True


def _check_same_shape(target: Tensor, output: Tensor) -> None:
    if target.ndim != output.ndim:
        raise ValueError("Arguments `target` and `output` must have the same rank (ndim). "
                         f"Received: target.shape={target.shape}, output.shape={output.shape}")
    if tuple(target.shape) != tuple(output.shape):
        raise ValueError("Arguments `target` and `output` must have the same shape. "
                         f"Received: target.shape={target.shape}, output.shape={output.shape}")


def _clip(x: Tensor) -> Tensor:
    return math_ops.minimum(math_ops.maximum(x, EPSILON), 1.0 - EPSILON)


def _binary_crossentropy_elementwise(target: Tensor, output: Tensor, from_logits: bool) -> Tensor:
    _check_same_shape(target, output)
    output, from_logits = _get_logits(output, from_logits, "Sigmoid", "binary_crossentropy")
    if from_logits:
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = _clip(output)
    return -(target * math_ops.log(output) + (1 - target) * math_ops.log(1 - output))


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                        label_smoothing: float = 0.0, axis: int = -1) -> Tensor:
    """Binary cross-entropy averaged over `axis` (probabilities clipped to [1e-7, 1-1e-7])."""
    y_pred = y_pred if _has_logits(y_pred) else convert_to_tensor(y_pred)
    y_true = _tensor(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return reduce_ops.reduce_mean(_binary_crossentropy_elementwise(y_true, y_pred, from_logits),
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
    if y_true.ndim < 1:
        raise ValueError("Arguments `target` and `output` must be at least rank 1. Received: "
                         f"target.shape={y_true.shape}, output.shape={y_pred.shape}")
    _check_same_shape(y_true, y_pred)
    output, from_logits = _get_logits(y_pred, from_logits, "Softmax", "categorical_crossentropy")
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(labels=y_true, logits=output, axis=axis)
    output = output / reduce_ops.reduce_sum(output, axis=axis, keepdims=True)
    return -reduce_ops.reduce_sum(y_true * math_ops.log(_clip(output)), axis=axis)


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
    output, from_logits = _get_logits(y_pred, from_logits, "Softmax",
                                      "sparse_categorical_crossentropy")
    labels = math_ops.cast(y_true, _dtypes.int64)
    if ignore_class is not None:
        valid = math_ops.not_equal(labels, ignore_class)
        labels = math_ops.where(valid, labels, math_ops.zeros_like(labels))
    if labels.ndim != output.ndim - 1:
        raise ValueError("Argument `output` must have rank (ndim) `target.ndim - 1`. "
                         f"Received: target.shape={labels.shape}, output.shape={output.shape}")
    if tuple(labels.shape) != tuple(output.shape[:-1]):
        raise ValueError("Arguments `target` and `output` must have the same shape up until "
                         f"the last dimension: target.shape={labels.shape}, "
                         f"output.shape={output.shape}")
    if not from_logits:
        output = math_ops.log(_clip(output))
    result = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=output)
    if ignore_class is not None:
        result = math_ops.where(valid, result, math_ops.zeros_like(result))
    return result


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
                 reduction: Any = "sum_over_batch_size",
                 name: str = "sparse_categorical_crossentropy", dtype: Any = None) -> None:
        super().__init__(sparse_categorical_crossentropy, name=name, reduction=reduction,
                         dtype=dtype, from_logits=from_logits, ignore_class=ignore_class)
        self.from_logits = from_logits
        self.ignore_class = ignore_class

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Tensor:
        # Labels stay integers: converting them to the float dtype would be lossy.
        y_pred = y_pred if _has_logits(y_pred) else _tensor(y_pred, self._dtype)
        losses = self.call(convert_to_tensor(y_true), y_pred)
        return reduce_weighted_values(losses, sample_weight, self.reduction, self._dtype)


# Keras's aliases.
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error

_FUNCTIONS = {
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error,
    "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error,
    "huber": huber, "binary_crossentropy": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
}
_CLASSES = {cls.__name__: cls for cls in (
    MeanSquaredError, MeanAbsoluteError, Huber, BinaryCrossentropy, CategoricalCrossentropy,
    SparseCategoricalCrossentropy)}


def serialize(loss: Any) -> Any:
    """A loss's name (functions) or `{'class_name', 'config'}` (classes)."""
    if isinstance(loss, Loss):
        return serialize_keras_object(loss)
    return getattr(loss, "__name__", loss)


def deserialize(config: Any, custom_objects: Optional[dict] = None) -> Any:
    """The loss function or object described by `serialize`'s output."""
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
    "Loss", "LossFunctionWrapper", "MeanSquaredError", "MeanAbsoluteError", "Huber",
    "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy",
    "mean_squared_error", "mean_absolute_error", "huber", "binary_crossentropy",
    "categorical_crossentropy", "sparse_categorical_crossentropy", "mse", "mae", "MSE", "MAE",
    "get", "serialize", "deserialize", "reduce_weighted_values",
]
