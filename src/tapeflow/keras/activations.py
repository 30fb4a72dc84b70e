"""`keras.activations`: activation functions, by function and by name ('relu', ...)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from tapeflow.framework.tensor import Tensor
from tapeflow.ops import clip_ops, math_ops, nn_ops
from tapeflow.ops._convert import convert_to_tensor


def relu(x: Any, negative_slope: float = 0.0, max_value: Optional[float] = None,
         threshold: float = 0.0) -> Tensor:
    """max(x, 0), with Keras's optional negative slope, cap and threshold.

    The same sequence of ops as Keras 3's `ReLU.static_call`, for its numbers at nan, -0.0
    and the kinks (e.g. a threshold maps nan to 0, a plain negative slope is leaky_relu)."""
    x = convert_to_tensor(x)
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return nn_ops.relu(x)
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return nn_ops.leaky_relu(x, alpha=negative_slope)
        negative_part = nn_ops.relu(-x + threshold if threshold != 0 else -x)
    clip_max = max_value is not None
    if threshold != 0:
        x = math_ops.where(math_ops.greater(x, math_ops.cast(threshold, x.dtype)), x, 0)
    elif max_value == 6:
        x = nn_ops.relu6(x)
        clip_max = False
    else:
        x = nn_ops.relu(x)
    if clip_max:
        x = clip_ops.clip_by_value(x, math_ops.cast(0.0, x.dtype),
                                   math_ops.cast(max_value, x.dtype))
    if negative_slope != 0.0:
        x = x - negative_slope * negative_part
    return x


def linear(x: Any) -> Tensor:
    """The identity."""
    return convert_to_tensor(x)


def sigmoid(x: Any) -> Tensor:
    """Sigmoid activation: 1 / (1 + exp(-x))."""
    return math_ops.sigmoid(x)


def tanh(x: Any) -> Tensor:
    """Hyperbolic tangent activation."""
    return math_ops.tanh(x)


def softmax(x: Any, axis: int = -1) -> Tensor:
    """exp(x) / sum(exp(x)) along `axis` (the last by default)."""
    return nn_ops.softmax(x, axis=axis)


def log_softmax(x: Any, axis: int = -1) -> Tensor:
    """Log-softmax activation: x - log(sum(exp(x))) along `axis`."""
    return nn_ops.log_softmax(x, axis=axis)


def elu(x: Any, alpha: float = 1.0) -> Tensor:
    """Exponential linear unit: x if x > 0 else alpha * (exp(x) - 1)."""
    y = nn_ops.elu(x)
    return y if alpha == 1.0 else math_ops.where(math_ops.greater(x, 0.0), y, alpha * y)


def selu(x: Any) -> Tensor:
    """Scaled ELU: scale * elu(x, alpha), with SELU's fixed alpha and scale."""
    return nn_ops.selu(x)


def softplus(x: Any) -> Tensor:
    """Softplus activation: log(exp(x) + 1)."""
    return math_ops.softplus(x)


def softsign(x: Any) -> Tensor:
    """Softsign activation: x / (abs(x) + 1) (tf.nn.softsign, with its gradient)."""
    return nn_ops.softsign(x)


def silu(x: Any) -> Tensor:
    """x * sigmoid(x)."""
    return nn_ops.silu(x)


swish = silu


def gelu(x: Any, approximate: bool = False) -> Tensor:
    """Gaussian error linear unit; the tanh approximation if `approximate`."""
    return nn_ops.gelu(x, approximate=approximate)


def relu6(x: Any) -> Tensor:
    """ReLU capped at 6: min(max(x, 0), 6)."""
    return nn_ops.relu6(x)


def leaky_relu(x: Any, negative_slope: float = 0.2) -> Tensor:
    """Leaky ReLU: x if x >= 0 else negative_slope * x."""
    return nn_ops.leaky_relu(x, alpha=negative_slope)


def exponential(x: Any) -> Tensor:
    """Exponential activation: exp(x)."""
    return math_ops.exp(x)


def hard_sigmoid(x: Any) -> Tensor:
    """relu6(x + 3) / 6, Keras 3's definition."""
    return nn_ops.relu6(convert_to_tensor(x) + 3.0) / 6.0


_BY_NAME = {f.__name__: f for f in (relu, linear, sigmoid, tanh, softmax, log_softmax, elu,
                                     selu, softplus, softsign, silu, gelu, relu6, leaky_relu,
                                     exponential, hard_sigmoid)}
_BY_NAME["swish"] = silu


def get(identifier: Any) -> Callable:
    """An activation from its name or a callable; None means linear."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Could not interpret activation function identifier: "
                             f"{identifier}")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier}")


def serialize(activation: Callable) -> str:
    """The name of an activation function (e.g. 'relu'), as stored in configs."""
    return getattr(activation, "__name__", str(activation))


__all__ = sorted(_BY_NAME) + ["get", "serialize"]
