"""Activation layers as Keras 3 defines them: ReLU, LeakyReLU, PReLU, ELU and Softmax (with
a mask)."""

from __future__ import annotations

from typing import Any

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import activations, constraints, initializers, regularizers
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer
from tapeflow.ops import math_ops, reduce_ops

__all__ = ["ReLU", "LeakyReLU", "PReLU", "ELU", "Softmax"]


class _Elementwise(Layer):
    """A weightless layer applied elementwise: built at once, masks pass through."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class ReLU(_Elementwise):
    """`max(x, 0)`, with Keras's `max_value` cap, `negative_slope` below `threshold` and
    `threshold` (values below it are 0 or sloped)."""

    def __init__(self, max_value: Any = None, negative_slope: float = 0.0,
                 threshold: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. "
                             f"Received: max_value={max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be None or a negative "
                             f"value. Received: negative_slope={negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError(f"threshold of a ReLU layer cannot be None or a negative value. "
                             f"Received: threshold={threshold}")
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, \
            threshold

    def call(self, inputs: Any) -> Any:
        return activations.relu(inputs, negative_slope=self.negative_slope,
                                max_value=self.max_value, threshold=self.threshold)

    def get_config(self) -> dict:
        return {**super().get_config(), "max_value": self.max_value,
                "negative_slope": self.negative_slope, "threshold": self.threshold}


class LeakyReLU(_Elementwise):
    """`x` for x >= 0, `negative_slope * x` below (`alpha` is its deprecated name)."""

    def __init__(self, negative_slope: float = 0.3, **kwargs: Any) -> None:
        if "alpha" in kwargs:
            import warnings
            negative_slope = kwargs.pop("alpha")
            warnings.warn("Argument `alpha` is deprecated. Use `negative_slope` instead.",
                          stacklevel=2)
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"The negative_slope value of a Leaky ReLU layer cannot be None "
                             f"or negative value. Expected a float. Received: "
                             f"negative_slope={negative_slope}")
        self.negative_slope = negative_slope

    def call(self, inputs: Any) -> Any:
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self) -> dict:
        return {**super().get_config(), "negative_slope": self.negative_slope}


class ELU(_Elementwise):
    """`x` for x > 0, `alpha * (exp(x) - 1)` below."""

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs: Any) -> Any:
        return activations.elu(inputs, alpha=self.alpha)

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha": self.alpha}


class PReLU(Layer):
    """Leaky ReLU with a learned slope `alpha` per input element (shared along
    `shared_axes`): `relu(x) - alpha * relu(-x)`."""

    def __init__(self, alpha_initializer: Any = "Zeros", alpha_regularizer: Any = None,
                 alpha_constraint: Any = None, shared_axes: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif not isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [shared_axes]
        else:
            self.shared_axes = list(shared_axes)

    def build(self, input_shape: Any) -> None:
        param_shape = list(input_shape[1:])
        for i in self.shared_axes or ():
            param_shape[i - 1] = 1
        self.alpha = self.add_weight(shape=param_shape, name="alpha",
                                     initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        axes = {i: input_shape[i] for i in range(1, len(input_shape))
                if self.shared_axes and i not in self.shared_axes}
        self.input_spec = InputSpec(ndim=len(input_shape), axes=axes)
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        return activations.relu(x) + (-self.alpha * activations.relu(-x))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(),
                "alpha_initializer": initializers.serialize(self.alpha_initializer),
                "alpha_regularizer": regularizers.serialize(self.alpha_regularizer),
                "alpha_constraint": constraints.serialize(self.alpha_constraint),
                "shared_axes": self.shared_axes}


def _large_negative_number(dtype: Any) -> float:
    """The logit Keras's Softmax gives masked positions (-1e9; -3e4 in float16)."""
    return -30000.0 if str(getattr(dtype, "name", dtype)) == "float16" else -1e9


class Softmax(_Elementwise):
    """Softmax over `axis` (an int or a tuple of axes). Where `mask` is False the input
    counts as -1e9 and the output is 0, as Keras 3."""

    def __init__(self, axis: Any = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs: Any, mask: Any = None) -> Any:
        x = convert_to_tensor(inputs)
        if mask is not None:
            mask = _broadcastable_mask(x, convert_to_tensor(mask))
            x = math_ops.where(mask, x, _large_negative_number(x.dtype))
        if isinstance(self.axis, (tuple, list)) and len(self.axis) > 1:
            axis = tuple(self.axis)
            out = math_ops.exp(x - reduce_ops.reduce_logsumexp(x, axis=axis, keepdims=True))
        else:
            axis = self.axis[0] if isinstance(self.axis, (tuple, list)) else self.axis
            out = activations.softmax(x, axis=axis)
        if mask is not None:
            out = math_ops.where(mask, out, math_ops.zeros_like(out))
        return out

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


def _broadcastable_mask(x: Any, mask: Any) -> Any:
    """`mask` as booleans (a number mask: > 0.5) after Keras's broadcastability checks."""
    m_shape, i_shape = mask.shape.as_list(), x.shape.as_list()
    if len(m_shape) > len(i_shape):
        raise ValueError(f"The `mask` must be broadcastable to `inputs` and must not have more "
                         f"dimensions. Received: inputs.shape={x.shape}, "
                         f"mask.shape={mask.shape}")
    for m_dim, i_dim in zip(m_shape[::-1], i_shape[::-1]):
        if m_dim is not None and i_dim is not None and m_dim not in (1, i_dim):
            raise ValueError(f"The `mask` must be broadcastable to `inputs`. Each mask "
                             f"dimension must be 1 or match the corresponding input "
                             f"dimension. Received: inputs.shape={x.shape}, "
                             f"mask.shape={mask.shape}")
    if mask.dtype.name != "bool":
        mask = math_ops.greater(mask, math_ops.cast(0.5, mask.dtype))
    return mask
