"""`keras.activations`: activation functions, by function and by name ('relu', ...)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from tapeflow.framework.tensor import Tensor
from tapeflow.keras.backend import _TensorAttributes
from tapeflow.ops import array_ops, clip_ops, manip_ops, math_ops, nn_ops, reduce_ops
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


# Keras's `_keras_logits` attribute: cross-entropies of the output are computed from the
# logits, as Keras's.
_LOGITS = _TensorAttributes()


def _with_logits(output: Tensor, logits: Tensor) -> Tensor:
    _LOGITS.set(output, logits)
    return output


def keras_logits(output: Any) -> Any:
    """The logits a Keras sigmoid or softmax activation kept for its `output`, or None."""
    return _LOGITS.get(output)


def sigmoid(x: Any) -> Tensor:
    """Sigmoid activation: 1 / (1 + exp(-x))."""
    x = convert_to_tensor(x)
    return _with_logits(math_ops.sigmoid(x), x)


def tanh(x: Any) -> Tensor:
    """Hyperbolic tangent activation."""
    return math_ops.tanh(x)


def softmax(x: Any, axis: int = -1) -> Tensor:
    """exp(x) / sum(exp(x)) along `axis` (the last by default)."""
    x = convert_to_tensor(x)
    return _with_logits(nn_ops.softmax(x, axis=axis), x)


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


def celu(x: Any, alpha: float = 1.0) -> Tensor:
    """Continuously differentiable ELU: max(x, 0) + alpha * expm1(min(x, 0) / alpha)."""
    x = convert_to_tensor(x)
    return math_ops.maximum(x, 0.0) + alpha * math_ops.expm1(math_ops.minimum(x, 0.0) / alpha)


def glu(x: Any, axis: int = -1) -> Tensor:
    """Gated linear unit: the first half of `axis` times the sigmoid of the second half."""
    x = convert_to_tensor(x)
    if x.shape[axis] % 2 != 0:
        raise ValueError(f"axis size must be divisible by 2. Received: x.shape={x.shape} with "
                         f"axis={axis}")
    x1, x2 = array_ops.split(x, 2, axis=axis)
    return x1 * math_ops.sigmoid(x2)


def hard_shrink(x: Any, threshold: float = 0.5) -> Tensor:
    """x where |x| > threshold, else 0."""
    x = convert_to_tensor(x)
    return math_ops.where(math_ops.abs(x) > threshold, x, math_ops.zeros_like(x))


def soft_shrink(x: Any, threshold: float = 0.5) -> Tensor:
    """x - threshold above threshold, x + threshold below -threshold, else 0."""
    x = convert_to_tensor(x)
    return math_ops.where(x > threshold, x - threshold,
                          math_ops.where(x < -threshold, x + threshold,
                                         math_ops.zeros_like(x)))


def hard_silu(x: Any) -> Tensor:
    """x * hard_sigmoid(x) (also `hard_swish`)."""
    x = convert_to_tensor(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def hard_tanh(x: Any) -> Tensor:
    """x clipped to [-1, 1]."""
    return clip_ops.clip_by_value(convert_to_tensor(x), -1.0, 1.0)


def log_sigmoid(x: Any) -> Tensor:
    """log(sigmoid(x)), computed stably (tf.math.log_sigmoid)."""
    return nn_ops.log_sigmoid(convert_to_tensor(x))


def mish(x: Any) -> Tensor:
    """x * tanh(softplus(x))."""
    x = convert_to_tensor(x)
    return x * math_ops.tanh(math_ops.softplus(x))


def sparse_plus(x: Any) -> Tensor:
    """0 for x <= -1, (x + 1)**2 / 4 for -1 < x < 1, x for x >= 1."""
    x = convert_to_tensor(x)
    return math_ops.where(x <= -1, math_ops.zeros_like(x),
                          math_ops.where(x < 1, 0.25 * math_ops.pow(x + 1, 2), x))


def sparse_sigmoid(x: Any) -> Tensor:
    """0 for x <= -1, (x + 1) / 2 for -1 < x < 1, 1 for x >= 1."""
    x = convert_to_tensor(x)
    zero, one = math_ops.cast(0.0, x.dtype), math_ops.cast(1.0, x.dtype)
    return math_ops.where(x <= -1, zero, math_ops.where(x >= 1, one, 0.5 * (x + 1)))


def sparsemax(x: Any, axis: int = -1) -> Tensor:
    """The Euclidean projection of `x` onto the probability simplex along `axis` (sparse
    probabilities that sum to 1)."""
    logits = convert_to_tensor(x)
    ordered = manip_ops.sort(logits, axis=axis, direction="DESCENDING")
    cumsum = manip_ops.cumsum(ordered, axis=axis)
    r_shape = [1] * logits.shape.rank
    r_shape[axis] = -1
    r = array_ops.reshape(array_ops.range(1, array_ops.shape(logits)[axis] + 1,
                                         dtype=logits.dtype), r_shape)
    support = ordered - (cumsum - 1) / r > 0
    k = reduce_ops.reduce_sum(math_ops.cast(support, logits.dtype), axis=axis, keepdims=True)
    total = reduce_ops.reduce_sum(math_ops.where(support, cumsum, 0.0), axis=axis,
                                  keepdims=True)
    return math_ops.maximum(logits - (total - 1) / k, 0.0)


def squareplus(x: Any, b: float = 4) -> Tensor:
    """(x + sqrt(x**2 + b)) / 2, a smooth ReLU."""
    x = convert_to_tensor(x)
    return (x + math_ops.sqrt(math_ops.square(x) + math_ops.cast(b, x.dtype))) / 2


def tanh_shrink(x: Any) -> Tensor:
    """x - tanh(x)."""
    x = convert_to_tensor(x)
    return x - math_ops.tanh(x)


def threshold(x: Any, threshold: float, default_value: float) -> Tensor:
    """x where x > threshold, else `default_value`."""
    x = convert_to_tensor(x)
    return math_ops.where(x > threshold, x, math_ops.cast(default_value, x.dtype))


_BY_NAME = {f.__name__: f for f in (
    relu, linear, sigmoid, tanh, softmax, log_softmax, elu, selu, softplus, softsign, silu,
    gelu, relu6, leaky_relu, exponential, hard_sigmoid, celu, glu, hard_shrink, soft_shrink,
    hard_silu, hard_tanh, log_sigmoid, mish, sparse_plus, sparse_sigmoid, sparsemax,
    squareplus, tanh_shrink, threshold)}
_BY_NAME["swish"] = silu
_BY_NAME["hard_swish"] = hard_silu


def deserialize(config: Any, custom_objects: Optional[dict] = None) -> Callable:
    """The activation a config names: a builtin's name ('relu'), or a registered or custom
    function's config."""
    from tapeflow.keras.saving.serialization import deserialize_keras_object
    if isinstance(config, str) and config in _BY_NAME and not (custom_objects and
                                                                config in custom_objects):
        return _BY_NAME[config]
    obj = deserialize_keras_object(config, custom_objects=custom_objects)
    if isinstance(obj, str):
        raise ValueError(f"Could not interpret activation function identifier: {config}")
    return obj


def get(identifier: Any) -> Callable:
    """An activation from its name, a config dict or a callable; None means linear."""
    if identifier is None:
        return linear
    if isinstance(identifier, dict):
        return deserialize(identifier)
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


__all__ = sorted(_BY_NAME) + ["deserialize", "get", "serialize"]
