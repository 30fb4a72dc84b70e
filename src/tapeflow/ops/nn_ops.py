"""Neural-network ops (`tf.nn`): activations, softmax, cross-entropies, and their rules.

Most activations are composites of math ops and need no rule of their own. The primitives
here are `Relu` (it runs in every training step, so it is one NumPy call and one cheap rule)
and `Softmax`, `LogSoftmax` and the two softmax cross-entropies, which are primitives for
numerical stability: their kernels subtract the maximum before exponentiating, which a
composite's gradient could not reproduce without overflow.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind, quiet
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.convert import cpp_name
from tapeflow.framework.errors import AbortedError, InvalidArgumentError
from tapeflow.framework.tensor import Tensor
from tapeflow.ops._convert import convert_to_tensor, require
from tapeflow.ops.array_ops import expand_dims, one_hot
from tapeflow.ops.math_ops import (cast, exp, expm1, log1p, minimum, negative, sigmoid, tanh,
                                   where, zeros_like)
from tapeflow.ops.reduce_ops import reduce_sum

_REAL = "fiu"


# -- relu ----------------------------------------------------------------------------------------

def _relu_kernel(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, np.zeros((), x.dtype))


# The mask is taken from the output: 0 at x == 0, as TensorFlow's ReluGrad.
_relu = Primitive("Relu", _relu_kernel).defvjp(
    lambda g, ans, x: where(ans > 0, g, zeros_like(g)))


def relu(features: Any, name: Optional[str] = None) -> Tensor:
    """max(features, 0) elementwise; the gradient is 0 at 0."""
    x = convert_to_tensor(features)
    require(x, _REAL, "Relu")
    return bind(_relu, (x,))


def relu6(features: Any, name: Optional[str] = None) -> Tensor:
    """min(max(features, 0), 6); the gradient is 1 strictly between 0 and 6, else 0."""
    x = convert_to_tensor(features)
    require(x, _REAL, "Relu6")
    # `where` (not `minimum`) so that the gradient at exactly 6 is 0, as TensorFlow's.
    return where(x < 6, relu(x), 6)


def elu(features: Any, name: Optional[str] = None) -> Tensor:
    """x where x >= 0, exp(x) - 1 where x < 0."""
    x = convert_to_tensor(features)
    require(x, "f", "Elu")
    # expm1 sees min(x, 0), so a large positive x cannot make inf * 0 = nan in the gradient.
    return where(x < 0, expm1(minimum(x, 0)), x)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(features: Any, name: Optional[str] = None) -> Tensor:
    """scale * x where x >= 0, scale * alpha * (exp(x) - 1) where x < 0 (Klambauer et al.)."""
    x = convert_to_tensor(features)
    require(x, "f", "Selu")
    # TensorFlow's kernel computes exp(x) - 1 (not expm1) times scale * alpha.
    negative_part = (exp(minimum(x, 0)) - 1) * (_SELU_SCALE * _SELU_ALPHA)
    return where(x < 0, negative_part, x * _SELU_SCALE)


def leaky_relu(features: Any, alpha: float = 0.2, name: Optional[str] = None) -> Tensor:
    """x where x > 0, alpha * x elsewhere. Integer inputs are computed in float32."""
    x = convert_to_tensor(features)
    if x._value.dtype.kind in "iu":
        x = cast(x, _dtypes.float32)
    require(x, "f", "LeakyRelu")
    if isinstance(alpha, np.ndarray):
        alpha = alpha.item()
    return where(x > 0, x, x * float(alpha))


def gelu(features: Any, approximate: bool = False, name: Optional[str] = None) -> Tensor:
    """The Gaussian error linear unit x * P(X <= x) for X ~ N(0, 1); with `approximate`,
    the tanh approximation. Same formulas as TensorFlow's."""
    x = convert_to_tensor(features)
    if x._value.dtype.kind != "f":
        raise ValueError(f"`features.dtype` must be a floating point tensor."
                         f"Received:features.dtype=<dtype: '{x.dtype.name}'>")
    if approximate:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1.0 + tanh(inner))
    from tapeflow.ops.special_ops import erfc  # special_ops loads SciPy lazily
    return 0.5 * x * erfc(negative(x) * 0.7071067811865476)


def silu(features: Any, beta: Any = 1.0) -> Tensor:
    """x * sigmoid(beta * x) (SiLU, also called swish)."""
    x = convert_to_tensor(features)
    if isinstance(beta, (int, float)) and beta == 1.0:
        return x * sigmoid(x)  # x * 1.0 is x: skip the multiply on the common path
    beta = cast(convert_to_tensor(beta), x.dtype)
    return x * sigmoid(beta * x)


swish = silu


# -- softmax -------------------------------------------------------------------------------------

def _softmax_kernel(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _log_softmax_kernel(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _softmax_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: int) -> Tensor:
    return ans * (g - reduce_sum(g * ans, axis=axis, keepdims=True))


def _log_softmax_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: int) -> Tensor:
    return g - reduce_sum(g, axis=axis, keepdims=True) * exp(ans)


# Primitives for numerical stability (the max is subtracted before exp).
_softmax = Primitive("Softmax", quiet(_softmax_kernel)).defvjp(_softmax_vjp)
_log_softmax = Primitive("LogSoftmax", quiet(_log_softmax_kernel)).defvjp(_log_softmax_vjp)


def _softmax_axis(x: Tensor, axis: Any, op_name: str) -> int:
    rank = x._value.ndim
    if rank == 0:
        raise AbortedError(f"Input dims must be <= 5 and >=1 [Op:{op_name}]")
    axis = -1 if axis is None else int(axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"`dim` must be in the range [{-rank}, {rank}) where {rank} "
                                   f"is the number of dimensions in the input. "
                                   f"Received: dim={axis}")
    return axis % rank


def softmax(logits: Any, axis: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """exp(logits) / sum(exp(logits)) along `axis` (default the last), computed stably."""
    x = convert_to_tensor(logits)
    require(x, "f", "Softmax")
    return bind(_softmax, (x,), {"axis": _softmax_axis(x, axis, "Softmax")})


def log_softmax(logits: Any, axis: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """logits - log(sum(exp(logits))) along `axis` (default the last), computed stably."""
    x = convert_to_tensor(logits)
    require(x, "f", "LogSoftmax")
    return bind(_log_softmax, (x,), {"axis": _softmax_axis(x, axis, "LogSoftmax")})


# -- cross-entropies -----------------------------------------------------------------------------

def sigmoid_cross_entropy_with_logits(labels: Any = None, logits: Any = None,
                                      name: Optional[str] = None) -> Tensor:
    """The elementwise logistic loss -z log(sigmoid(x)) - (1 - z) log(1 - sigmoid(x)),
    computed as max(x, 0) - x z + log(1 + exp(-|x|)) (TensorFlow's stable formula)."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype_hint=logits.dtype)
    if labels._value.shape != logits._value.shape:
        raise ValueError(f"`logits` and `labels` must have the same shape, received "
                         f"({logits.shape} vs {labels.shape}).")
    cond = logits >= 0
    relu_logits = where(cond, logits, zeros_like(logits))
    neg_abs_logits = where(cond, negative(logits), logits)
    return relu_logits - logits * labels + log1p(exp(neg_abs_logits))


def _softmax_xent_kernel(logits: np.ndarray, labels: np.ndarray, axis: int) -> np.ndarray:
    log_probs = _log_softmax_kernel(logits, axis)
    # 0 * -inf (a zero label on a -inf logit) counts as 0, as TensorFlow's kernel.
    terms = np.where(labels == 0, np.zeros((), logits.dtype), labels * log_probs)
    return -np.sum(terms, axis=axis)


def _softmax_xent_vjp(g: Tensor, ans: Tensor, logits: Tensor, labels: Tensor,
                      axis: int) -> tuple:
    g = expand_dims(g, axis)
    return g * (softmax(logits, axis=axis) - labels), g * negative(log_softmax(logits, axis=axis))


# A primitive for numerical stability: log-softmax inside, softmax - labels as gradient.
_softmax_xent = Primitive("SoftmaxCrossEntropyWithLogits",
                          quiet(_softmax_xent_kernel)).defvjp(_softmax_xent_vjp)


def softmax_cross_entropy_with_logits(labels: Any, logits: Any, axis: int = -1,
                                      name: Optional[str] = None) -> Tensor:
    """-sum(labels * log_softmax(logits)) along `axis`; gradients flow to both inputs.

    float16 logits are computed in float32 and the loss cast back, as TensorFlow does."""
    logits = convert_to_tensor(logits)
    require(logits, "f", "SoftmaxCrossEntropyWithLogits")
    out_dtype = logits.dtype
    if out_dtype == _dtypes.float16:
        logits = cast(logits, _dtypes.float32)
    labels = cast(convert_to_tensor(labels, dtype_hint=logits.dtype), logits.dtype)
    axis = _softmax_axis(logits, axis, "SoftmaxCrossEntropyWithLogits")
    shape, label_shape = logits._value.shape, labels._value.shape
    if len(label_shape) != len(shape) or any(a != b and a != 1 for a, b in
                                             zip(label_shape, shape)):
        raise InvalidArgumentError(
            f"logits and labels must be broadcastable: logits_size={_flat2d(shape, axis)} "
            f"labels_size={_flat2d(label_shape, axis)} [Op:SoftmaxCrossEntropyWithLogits]")
    loss = bind(_softmax_xent, (logits, labels), {"axis": axis})
    return cast(loss, out_dtype)


def _flat2d(shape: tuple, axis: int) -> str:
    """A shape as TensorFlow's kernel reports it: outer dimensions flattened, class axis last."""
    if not shape:
        return "[]"
    outer = int(np.prod([d for i, d in enumerate(shape) if i != axis]))
    return f"[{outer},{shape[axis]}]"


def _sparse_xent_kernel(logits: np.ndarray, labels: np.ndarray) -> np.ndarray:
    depth = logits.shape[-1]
    bad = (labels < 0) | (labels >= depth)
    if np.any(bad):
        value = labels[bad].reshape(-1)[0]
        shown = " ".join(str(v) for v in labels.reshape(-1))
        raise InvalidArgumentError(
            f"Received a label value of {value} which is outside the valid range of "
            f"[0, {depth}).  Label values: {shown} [Op:SparseSoftmaxCrossEntropyWithLogits]")
    log_probs = _log_softmax_kernel(logits, -1)
    picked = np.take_along_axis(log_probs, labels[..., None].astype(np.intp), axis=-1)
    return -picked[..., 0]


def _sparse_xent_vjp(g: Tensor, ans: Tensor, logits: Tensor, labels: Tensor) -> tuple:
    target = one_hot(labels, logits._value.shape[-1], dtype=logits.dtype)
    return expand_dims(g, -1) * (softmax(logits) - target), None


# A primitive for numerical stability, like the dense one; labels carry no gradient.
_sparse_xent = Primitive("SparseSoftmaxCrossEntropyWithLogits",
                         quiet(_sparse_xent_kernel)).defvjp(_sparse_xent_vjp)


def sparse_softmax_cross_entropy_with_logits(labels: Any = None, logits: Any = None,
                                             name: Optional[str] = None) -> Tensor:
    """-log_softmax(logits)[..., labels]: the cross-entropy against integer class labels
    (shape `logits.shape[:-1]`, values in [0, num_classes))."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if labels._value.dtype.kind not in "iu":
        type_name = cpp_name(labels.dtype)
        raise InvalidArgumentError(f"Value for attr 'Tlabels' of {type_name} is not in the list "
                                   f"of allowed values: int32, int64 "
                                   f"[Op:SparseSoftmaxCrossEntropyWithLogits]")
    require(logits, "f", "SparseSoftmaxCrossEntropyWithLogits")
    if logits._value.ndim == 0 or labels._value.shape != logits._value.shape[:-1]:
        raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last "
                         f"dimension. Received: labels.shape={labels.shape} and "
                         f"logits.shape={logits.shape}")
    out_dtype = logits.dtype
    if out_dtype == _dtypes.float16:
        logits = cast(logits, _dtypes.float32)
    return cast(bind(_sparse_xent, (logits, labels)), out_dtype)


__all__ = [
    "relu", "relu6", "elu", "selu", "leaky_relu", "gelu", "silu", "swish", "softmax",
    "log_softmax", "sigmoid_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits",
]
