"""Neural-network ops (`tf.nn`): activations, softmax, cross-entropies, and their rules.

Most activations are composites of math ops and need no rule of their own. The primitives
here are `Relu` (it runs in every training step, so it is one NumPy call and one cheap rule)
and `Softmax`, `LogSoftmax` and the two softmax cross-entropies, which are primitives for
numerical stability: their kernels subtract the maximum before exponentiating, which a
composite's gradient could not reproduce without overflow.
"""

from __future__ import annotations

import builtins
from typing import Any, Optional

import numpy as np

from tapeflow.framework.abstract import (Dims, ShapedArray, broadcast_dims, broadcasting,
                                        dims_text, has_static_shape, same_as_input,
                                        shape_error)
from tapeflow.autodiff.core import Primitive, bind, shape_text
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.convert import cpp_name
from tapeflow.framework.errors import AbortedError, InvalidArgumentError
from tapeflow.framework.ragged_tensor import RaggedTensor
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.exports import tf_export
from tapeflow.framework.dtypes import kind_of
from tapeflow.ops._convert import convert_to_tensor, require
from tapeflow.ops._static import (ensure_shape_prim, read_at_run_time, reads_static,
                                  static_value)
from tapeflow.ops.array_ops import (broadcast_to, concat, expand_dims, gather, one_hot, reshape,
                                    squeeze, transpose)
from tapeflow.ops.array_ops import shape as array_shape
from tapeflow.ops.math_ops import abs as abs_
from tapeflow.ops.math_ops import (cast, conj, exp, log1p, maximum, negative, rsqrt, sigmoid,
                                   softplus, square, squared_difference, stop_gradient, tanh,
                                   where, zeros_like)
from tapeflow.ops.manip_ops import cumsum
from tapeflow.ops.math_ops import equal, not_equal, ones_like
from tapeflow.ops.reduce_ops import reduce_mean, reduce_sum, spread_like

_REAL = "fiu"


# -- shape rules ---------------------------------------------------------------------------------
# Activations keep their input's shape and dtype (`same_as_input`); their grad ops broadcast
# (`broadcasting`: a vectorized jacobian's cotangent has a leading batch axis the features lack).

def _softmax_rule(op_name: str):
    """Softmax and LogSoftmax: the input's shape and dtype; TF refuses a scalar."""
    def rule(x: ShapedArray, axis: int, unranked: bool = False) -> ShapedArray:
        if x.ndim == 0:
            raise shape_error(op_name, (x,), "Shape must be at least rank 1 but is rank 0")
        return ShapedArray(x.shape, x.dtype)
    return rule


def _merged(op_name: str, avals: tuple, a: Dims, b: Dims, broadcast: bool = False) -> Dims:
    """TF's Merge of two static shapes (unknown dims take the other's), or with `broadcast`
    NumPy broadcasting; known dims that conflict raise TF's error."""
    if a is None or b is None:
        return None if broadcast else (b if a is None else a)
    if broadcast:
        try:
            return broadcast_dims(a, b)
        except ValueError:
            pass  # find the conflicting pair below, for the message
    elif len(a) != len(b):
        raise shape_error(op_name, avals,
                           f"Shapes must be equal rank, but are {len(a)} and {len(b)}")
    for x, y in zip(reversed(a), reversed(b)):
        if x is not None and y is not None and x != y and not (broadcast and 1 in (x, y)):
            raise shape_error(op_name, avals, f"Dimensions must be equal, but are {x} and {y}")
    return tuple(y if x is None else x for x, y in zip(a, b))


def _xent_rule(logits: ShapedArray, labels: ShapedArray, axis: int) -> ShapedArray:
    """The loss: logits and labels broadcast (the kernel's NumPy arithmetic), `axis` summed."""
    shape = _merged("SoftmaxCrossEntropyWithLogits", (logits, labels), logits.shape,
                    labels.shape, broadcast=True)
    return ShapedArray(None if shape is None else shape[:axis] + shape[axis + 1:], logits.dtype)


def _sparse_xent_rule(logits: ShapedArray, labels: ShapedArray) -> ShapedArray:
    """The loss is shaped like labels, which are logits' shape without the class axis."""
    op_name, avals = "SparseSoftmaxCrossEntropyWithLogits", (logits, labels)
    if logits.ndim == 0:
        raise shape_error(op_name, avals, "Shape must be at least rank 1 but is rank 0")
    outer = None if logits.shape is None else logits.shape[:-1]
    return ShapedArray(_merged(op_name, avals, outer, labels.shape), logits.dtype)


# -- relu ----------------------------------------------------------------------------------------

_ZEROS: dict = {}   # dtype -> one flat zeros buffer, grown to the largest ReLU input
_SIMD_SIZE = 8192   # elements from which contiguous zeros beat a scalar zero clearly


def _zeros_operand(x: np.ndarray) -> np.ndarray:
    """Zeros to compare `x` with. np.maximum against a contiguous array runs NumPy's SIMD
    loop, against a scalar zero one that takes 2.4x the instructions (NumPy 2.4): so large
    inputs get a view of one flat buffer, calloc'd and never written, whose pages map the
    OS's zero page (it costs no memory)."""
    if x.size < _SIMD_SIZE:
        return np.zeros((), x.dtype)
    flat = _ZEROS.get(x.dtype)
    if flat is None or flat.size < x.size:
        flat = _ZEROS[x.dtype] = np.zeros(x.size, x.dtype)
        flat.flags.writeable = False
    return flat[:x.size].reshape(x.shape)


def _relu_kernel(x: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
    return np.maximum(x, _zeros_operand(x), out=out)


def _relu_grad_kernel(g: np.ndarray, y: np.ndarray, out: Optional[np.ndarray] = None) -> \
        np.ndarray:
    # g * (y > 0), NaN and signed zeros included: g * 0 keeps NaN and g's sign
    return np.multiply(g, y > 0, out=out)


# Compiled programs may hand these kernels a dying input's buffer (graph/compiler.py).
_relu_kernel.fresh_result = _relu_kernel.takes_out = True
_relu_grad_kernel.fresh_result = _relu_grad_kernel.takes_out = True

# ReluGrad is a primitive (as in TensorFlow) so relu's backward pass is one NumPy call; the
# mask is taken from the output: 0 at x == 0. It is linear in g and flat in y: y's cotangent is
# zeros (not None, as TensorFlow's), so a nested tape's second derivative is zeros, not None;
# they are shaped like gg, which keeps the rule batch-safe (a vectorized jacobian's leading axis).
_relu_grad = Primitive("ReluGrad", _relu_grad_kernel, shape_rule=broadcasting,
                       batch_safe=True).defvjp(
    lambda gg, ans, g, y: bind(_relu_grad, (gg, y)), lambda gg, ans, g, y: zeros_like(gg))
_relu_grad.defjvp(lambda tangents, ans, g, y: None if tangents[0] is None
                  else bind(_relu_grad, (tangents[0], y)))
_relu = Primitive("Relu", _relu_kernel, shape_rule=same_as_input, elementwise=True,
                  batch_safe=True).defvjp(lambda g, ans, x: bind(_relu_grad, (g, ans)))
# Inlined where they write into no dying buffer (small arrays, or an input still needed).
_relu.lowering = lambda: "np.maximum({0}, 0)"
_relu_grad.lowering = lambda: "{0} * ({1} > 0)"


@tf_export("nn.relu")
def relu(features: Any, name: Optional[str] = None) -> Tensor:
    """max(features, 0) elementwise; the gradient is 0 at 0."""
    x = convert_to_tensor(features)
    require(x, _REAL, "Relu")
    return bind(_relu, (x,))


# Relu6 and LeakyRelu are primitives with TensorFlow's grad ops, for TensorFlow's numbers:
# relu6(nan) is nan (a `where` would pick 6), and the grad ops' rules give the features
# zeros, so second derivatives are zeros as in TensorFlow (a `where` composite gives None).
def _relu6_kernel(x: np.ndarray) -> np.ndarray:
    return np.minimum(np.maximum(x, np.zeros((), x.dtype)), np.full((), 6, x.dtype))


_relu6_grad = Primitive("Relu6Grad", lambda g, x: g * ((x > 0) & (x < 6)),
                        shape_rule=broadcasting).defvjp(
    lambda gg, ans, g, x: bind(_relu6_grad, (gg, x)), lambda gg, ans, g, x: zeros_like(gg))
_relu6 = Primitive("Relu6", _relu6_kernel, shape_rule=same_as_input).defvjp(
    lambda g, ans, x: bind(_relu6_grad, (g, x)))


# alpha is a float32 attr in TensorFlow: the kernels use T(float32(alpha)), so float64
# features see 0.20000000298023224 for alpha=0.2.
def _leaky_relu_kernel(x: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(x > 0, x, x * x.dtype.type(np.float32(alpha)))


def _leaky_relu_grad_kernel(g: np.ndarray, x: np.ndarray, alpha: float) -> np.ndarray:
    # nan features take alpha, as TF
    return np.where(x > 0, g, g * g.dtype.type(np.float32(alpha)))


_leaky_relu_grad = Primitive("LeakyReluGrad", _leaky_relu_grad_kernel,
                             shape_rule=broadcasting).defvjp(
    lambda gg, ans, g, x, alpha: bind(_leaky_relu_grad, (gg, x), {"alpha": alpha}),
    lambda gg, ans, g, x, alpha: zeros_like(gg))
_leaky_relu = Primitive("LeakyRelu", _leaky_relu_kernel, shape_rule=same_as_input).defvjp(
    lambda g, ans, x, alpha: bind(_leaky_relu_grad, (g, x), {"alpha": alpha}))


@tf_export("nn.relu6")
def relu6(features: Any, name: Optional[str] = None) -> Tensor:
    """min(max(features, 0), 6); the gradient is 1 strictly between 0 and 6, else 0."""
    x = convert_to_tensor(features)
    require(x, _REAL, "Relu6")
    return bind(_relu6, (x,))


# Elu and Selu are primitives with TensorFlow's kernels and grad ops: the forward pass is
# exp(x) - 1 (not expm1: elu(-1e-30) is 0, as TF's), and the grad ops read the *output*, so
# an x < 0 whose output rounds to 0 takes the x >= 0 branch, first and second order, as in TF.
def _elu_kernel(x: np.ndarray) -> np.ndarray:
    one = np.ones((), x.dtype)
    return np.where(x < 0, np.exp(np.minimum(x, 0)) - one, x)  # minimum: no overflow warning


def _elu_grad_kernel(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(y < 0, (y + np.ones((), y.dtype)) * g, g)


def _exponential_unit(name: str, kernel: Any, grad_kernel: Any) -> tuple:
    """An ELU-family activation and its grad op `grad(g, y)`, written in the output y. The
    grad op is linear in g, and its slope in y is g on the exponential side (y < 0), where
    the gradient is an affine function of y; both activations' JVPs are their grad ops."""
    grad = Primitive(name + "Grad", grad_kernel, shape_rule=broadcasting).defvjp(
        lambda gg, ans, g, y: bind(grad, (gg, y)),
        lambda gg, ans, g, y: where(y < 0, gg * g, zeros_like(y)))
    prim = Primitive(name, kernel, shape_rule=same_as_input).defvjp(
        lambda g, ans, x: bind(grad, (g, ans)))
    prim.defjvp(lambda tangents, ans, x: bind(grad, (tangents[0], ans)))
    return prim, grad


_elu, _elu_grad = _exponential_unit("Elu", _elu_kernel, _elu_grad_kernel)

# TensorFlow's constants, rounded to the input dtype by the kernel.
_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_SCALE_ALPHA = 1.7580993408473768599402175208123


def _selu_kernel(x: np.ndarray) -> np.ndarray:
    t = x.dtype.type
    return np.where(x < 0, t(_SELU_SCALE_ALPHA) * (np.exp(np.minimum(x, 0)) - t(1)),
                    t(_SELU_SCALE) * x)


def _selu_grad_kernel(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    t = y.dtype.type
    return np.where(y < 0, g * (y + t(_SELU_SCALE_ALPHA)), g * t(_SELU_SCALE))


_selu, _selu_grad = _exponential_unit("Selu", _selu_kernel, _selu_grad_kernel)


@tf_export("nn.elu")
def elu(features: Any, name: Optional[str] = None) -> Tensor:
    """x where x >= 0, exp(x) - 1 where x < 0."""
    x = convert_to_tensor(features)
    require(x, "f", "Elu")
    return bind(_elu, (x,))


@tf_export("nn.selu")
def selu(features: Any, name: Optional[str] = None) -> Tensor:
    """scale * x where x >= 0, scale * alpha * (exp(x) - 1) where x < 0 (Klambauer et al.)."""
    x = convert_to_tensor(features)
    require(x, "f", "Selu")
    return bind(_selu, (x,))


@tf_export("nn.leaky_relu")
def leaky_relu(features: Any, alpha: float = 0.2, name: Optional[str] = None) -> Tensor:
    """x where x > 0, alpha * x elsewhere. Integer inputs are computed in float32."""
    x = convert_to_tensor(features)
    if x._value.dtype.kind in "iu":
        x = cast(x, _dtypes.float32)
    require(x, "f", "LeakyRelu")
    if isinstance(alpha, np.ndarray):
        alpha = alpha.item()
    return bind(_leaky_relu, (x,), {"alpha": float(alpha)})


@tf_export("nn.gelu")
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


@tf_export("nn.silu", "nn.swish")
def silu(features: Any, beta: Any = 1.0) -> Tensor:
    """x * sigmoid(beta * x) (SiLU, also called swish)."""
    x = convert_to_tensor(features)
    if isinstance(beta, (int, float)) and beta == 1.0:
        return x * sigmoid(x)  # x * 1.0 is x: skip the multiply on the common path
    beta = cast(convert_to_tensor(beta), x.dtype)
    return x * sigmoid(beta * x)


swish = silu


# -- softmax -------------------------------------------------------------------------------------

def _softmax_kernel(x: np.ndarray, axis: int, unranked: bool = False) -> np.ndarray:
    if unranked:   # traced with an unknown rank: the wrapper's checks, made as it runs
        axis = _softmax_axis(x, axis, "Softmax")
    if x.dtype.kind == "V":   # bfloat16: TF computes in float32 and rounds once
        return _softmax_kernel(x.astype(np.float32), axis).astype(x.dtype)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True, initial=-np.inf))  # initial: empty x
    total = np.sum(e, axis=axis, keepdims=True)
    if x.dtype == np.float32 and np.isnan(total).any():  # the rare case: a check on the sums
        return _onednn_softmax(x, axis)
    return e / total


def _onednn_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """float32 softmax of rows holding nan or inf, as TensorFlow's (oneDNN) CPU kernel: the
    row max skips nan and exp(nan) counts as inf, so only nan and inf - inf entries come out
    nan and the rest of the row 0 (float64 and float16 rows are all nan, as NumPy's)."""
    shifted = x - np.fmax.reduce(x, axis=axis, keepdims=True, initial=-np.inf)
    e = np.where(np.isnan(shifted), np.float32(np.inf), np.exp(shifted))
    return e / np.sum(e, axis=axis, keepdims=True)


def _log_softmax_kernel(x: np.ndarray, axis: int, unranked: bool = False) -> np.ndarray:
    if unranked:
        axis = _softmax_axis(x, axis, "LogSoftmax")
    shifted = x - np.max(x, axis=axis, keepdims=True, initial=-np.inf)  # initial: empty x
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _softmax_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: int, unranked: bool = False) -> Tensor:
    return ans * (g - reduce_sum(g * ans, axis=axis, keepdims=True))


def _log_softmax_vjp(g: Tensor, ans: Tensor, x: Tensor, axis: int,
                     unranked: bool = False) -> Tensor:
    return g - reduce_sum(g, axis=axis, keepdims=True) * exp(ans)


# Primitives for numerical stability (the max is subtracted before exp).
_softmax = Primitive("Softmax", _softmax_kernel,
                     shape_rule=_softmax_rule("Softmax")).defvjp(_softmax_vjp)
_log_softmax = Primitive("LogSoftmax", _log_softmax_kernel,
                         shape_rule=_softmax_rule("LogSoftmax")).defvjp(_log_softmax_vjp)


def _softmax_axis(x: Any, axis: Any, op_name: str) -> int:
    """The softmax axis of `x` (a tensor, or the kernel's array), checked as TF does."""
    value = getattr(x, "_value", x)
    rank = value.ndim
    if rank == 0 or (rank > 5 and op_name == "Softmax" and value.dtype == np.float32):
        _softmax_rank_error(x, op_name)
    axis = -1 if axis is None else int(axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"`dim` must be in the range [{-rank}, {rank}) where {rank} "
                                   f"is the number of dimensions in the input. "
                                   f"Received: dim={axis}")
    return axis % rank


def _softmax_rank_error(x: Tensor, op_name: str) -> None:
    """TensorFlow's CPU errors: float32 Softmax runs oneDNN (ranks 1 to 5, AbortedError),
    the other kernels refuse a scalar with InvalidArgumentError."""
    if op_name == "Softmax" and getattr(x, "_value", x).dtype == np.float32:
        raise AbortedError(f"Input dims must be <= 5 and >=1 [Op:{op_name}]")
    raise InvalidArgumentError(f"logits must have >= 1 dimension, got {shape_text(x)} "
                               f"[Op:{op_name}]")


@tf_export("nn.softmax", "math.softmax")
def softmax(logits: Any, axis: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """exp(logits) / sum(exp(logits)) along `axis` (default the last), computed stably."""
    x = convert_to_tensor(logits)
    require(x, "f", "Softmax")
    if x._value.shape is None:   # traced with an unknown rank: the kernel checks the axis
        return bind(_softmax, (x,), {"axis": -1 if axis is None else int(axis), "unranked": True})
    return bind(_softmax, (x,), {"axis": _softmax_axis(x, axis, "Softmax")})


@tf_export("nn.log_softmax", "math.log_softmax")
def log_softmax(logits: Any, axis: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """logits - log(sum(exp(logits))) along `axis` (default the last), computed stably."""
    x = convert_to_tensor(logits)
    require(x, "f", "LogSoftmax")
    if x._value.shape is None:   # traced with an unknown rank: the kernel checks the axis
        return bind(_log_softmax, (x,), {"axis": -1 if axis is None else int(axis),
                                         "unranked": True})
    return bind(_log_softmax, (x,), {"axis": _softmax_axis(x, axis, "LogSoftmax")})


# -- cross-entropies -----------------------------------------------------------------------------

@tf_export("nn.sigmoid_cross_entropy_with_logits")
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
    # TensorFlow's kernel: sum(labels * (log(sum(exp(shifted))) - shifted)), so a zero label
    # on a -inf logit is 0 * inf = nan and an empty class axis gives +0, as in TF.
    if labels.shape != logits.shape:  # only from a trace with unknown dims (eager broadcasts)
        _check_run_time_xent_shapes(logits.shape, labels.shape, axis)
    shifted = logits - np.max(logits, axis=axis, keepdims=True, initial=-np.inf)
    log_sum = np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
    return np.sum(labels * (log_sum - shifted), axis=axis)


def _softmax_xent_vjp(g: Tensor, ans: Tensor, logits: Tensor, labels: Tensor,
                      axis: int) -> tuple:
    g = expand_dims(g, axis) if has_static_shape(g._value) else \
        spread_like(g, logits, (axis,), False)  # broadcast along the classes as the graph runs
    return g * (softmax(logits, axis=axis) - labels), g * negative(log_softmax(logits, axis=axis))


# A primitive for numerical stability: log-softmax inside, softmax - labels as gradient.
_softmax_xent = Primitive("SoftmaxCrossEntropyWithLogits",
                          _softmax_xent_kernel, shape_rule=_xent_rule).defvjp(_softmax_xent_vjp)


@tf_export("nn.softmax_cross_entropy_with_logits")
def softmax_cross_entropy_with_logits(labels: Any, logits: Any, axis: int = -1,
                                      name: Optional[str] = None) -> Tensor:
    """-sum(labels * log_softmax(logits)) along `axis`; gradients flow to both inputs.

    float16 logits are computed in float32 and the loss cast back, as TensorFlow does. Labels
    of another shape go TensorFlow's way: both operands have `axis` moved last and are
    flattened to 2-D, and the two matrices must broadcast."""
    logits = convert_to_tensor(logits)
    require(logits, "f", "SoftmaxCrossEntropyWithLogits")
    out_dtype = logits.dtype
    if out_dtype == _dtypes.float16:
        logits = cast(logits, _dtypes.float32)
    labels = cast(convert_to_tensor(labels, dtype_hint=logits.dtype), logits.dtype)
    axis = _xent_axis(-1 if axis is None else int(axis), logits._value.ndim)
    if labels._value.shape == logits._value.shape:  # unknown dims too: the kernel checks
        loss = bind(_softmax_xent, (logits, labels), {"axis": axis})
    elif has_static_shape(labels._value) and has_static_shape(logits._value):
        loss = _flattened_xent(labels, logits, axis)
    else:
        loss = _xent_of_unknown_dims(labels, logits, axis)
    return cast(loss, out_dtype)


def _xent_of_unknown_dims(labels: Tensor, logits: Tensor, axis: int) -> Tensor:
    """The traced loss where some dims are known only when the graph runs: labels of
    logits' rank go to the kernel, which checks their run-time shapes as TensorFlow's
    flattened op would (the shape rule refuses known dims that cannot broadcast)."""
    if labels._value.shape is None or len(labels._value.shape) != len(logits._value.shape):
        raise NotImplementedError(
            f"softmax_cross_entropy_with_logits: labels of shape {labels.shape} for logits of "
            f"shape {logits.shape}: inside tf.function with dims unknown until the graph "
            f"runs, tapeflow needs labels of the logits' rank")
    return bind(_softmax_xent, (logits, labels), {"axis": axis})


def _check_run_time_xent_shapes(logits: tuple, labels: tuple, axis: int) -> None:
    """TensorFlow's checks of labels and logits flattened to [outer, classes] (class axis
    last), for arrays the kernel gets unlike each other. It pairs the rows of the two
    matrices, which NumPy's broadcasting does too where labels' outer dims are all 1 or
    all logits'; labels that TF would reshape into logits' rows are refused."""
    def flat(shape: tuple) -> tuple:
        outer = shape[:axis] + shape[axis + 1:]
        return int(np.prod(outer, dtype=np.int64)), shape[axis]

    (rows, classes), (label_rows, label_classes) = flat(logits), flat(labels)
    if label_rows not in (rows, 1) and rows != 1 or \
            label_classes not in (classes, 1) and classes != 1:
        raise InvalidArgumentError(
            f"logits and labels must be broadcastable: logits_size=[{rows},{classes}] "
            f"labels_size=[{label_rows},{label_classes}] [Op:SoftmaxCrossEntropyWithLogits]")
    if label_rows > rows:
        raise InvalidArgumentError(f"Input to reshape is a tensor with {label_rows} values, "
                                   f"but the requested shape has {rows} [Op:Reshape]")
    outer = logits[:axis] + logits[axis + 1:]
    label_outer = labels[:axis] + labels[axis + 1:]
    if label_rows != 1 and label_outer != outer:
        raise InvalidArgumentError(
            f"softmax_cross_entropy_with_logits: labels of shape {list(labels)} for logits of "
            f"shape {list(logits)} pair up only as TensorFlow's reshape to [{rows},"
            f"{label_classes}] does, which tapeflow does not follow inside tf.function with "
            f"unknown dims: pass labels shaped like the logits "
            f"[Op:SoftmaxCrossEntropyWithLogits]")


def _xent_axis(axis: int, rank: int) -> int:
    """The class axis, non-negative. TensorFlow moves an axis other than -1 last with
    `range(axis)` and `range(axis + 1, rank)`, so a negative one or one >= rank fails in
    Range; a scalar fails in Slice."""
    if axis != -1 and not 0 <= axis < rank:
        start, limit = (0, axis) if axis < 0 else (axis + 1, rank)
        raise InvalidArgumentError(f"Requires start <= limit when delta > 0: {start}/{limit} "
                                   f"[Op:Range]")
    if rank == 0:
        _scalar_slice_error()
    return axis % rank


def _scalar_slice_error() -> None:
    raise InvalidArgumentError("Expected begin[0] == 0 (got -1) and size[0] == 0 (got 1) when "
                               "input.dim_size(0) == 0 [Op:Slice]")


def _flattened_xent(labels: Tensor, logits: Tensor, axis: int) -> Tensor:
    """The loss for labels shaped unlike logits, as TensorFlow computes it: class axis last,
    both flattened to [outer, classes], broadcast as matrices, the loss reshaped to logits'
    outer shape."""
    rank = logits._value.ndim
    if axis != rank - 1:
        if labels._value.ndim != rank:
            raise InvalidArgumentError(f"transpose expects a vector of size "
                                       f"{labels._value.ndim}. But input(1) is a vector of "
                                       f"size {rank} [Op:Transpose]")
        perm = [i for i in range(rank) if i != axis] + [axis]
        logits, labels = transpose(logits, perm), transpose(labels, perm)
    if labels._value.ndim == 0:
        _scalar_slice_error()
    outer = logits._value.shape[:-1]
    flat = [reshape(t, (int(np.prod(t._value.shape[:-1])), t._value.shape[-1]))
            for t in (logits, labels)]
    shapes = [t._value.shape for t in flat]
    if any(a != b and 1 not in (a, b) for a, b in zip(*shapes)):
        raise InvalidArgumentError(
            f"logits and labels must be broadcastable: logits_size=[{shapes[0][0]},"
            f"{shapes[0][1]}] labels_size=[{shapes[1][0]},{shapes[1][1]}] "
            f"[Op:SoftmaxCrossEntropyWithLogits]")
    both = tuple(b if a == 1 else a for a, b in zip(*shapes))
    cost = bind(_softmax_xent, tuple(broadcast_to(t, both) for t in flat), {"axis": 1})
    if both[0] != int(np.prod(outer)):
        raise InvalidArgumentError(f"Input to reshape is a tensor with {both[0]} values, but "
                                   f"the requested shape has {int(np.prod(outer))} "
                                   f"[Op:Reshape]")
    return reshape(cost, outer)


def _sparse_xent_kernel(logits: np.ndarray, labels: np.ndarray) -> np.ndarray:
    if labels.shape != logits.shape[:-1] or not logits.shape[-1]:
        _check_run_time_sparse_shapes(logits.shape, labels.shape)
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


def _check_run_time_sparse_shapes(logits: tuple, labels: tuple) -> None:
    """TensorFlow's run-time errors where a trace left the shapes unknown (eagerly, the
    wrapper raises first): rank-2 logits are checked by the kernel, others by an
    assert_equal of the shapes before the flattening."""
    if labels != logits[:-1]:
        if len(logits) == 2:
            raise InvalidArgumentError(
                f"logits and labels must have the same first dimension, got logits shape "
                f"{dims_text(logits)} and labels shape {dims_text(labels)} "
                f"[Op:SparseSoftmaxCrossEntropyWithLogits]")
        raise InvalidArgumentError(
            f"assertion failed: [Condition x == y did not hold element-wise:] [x "
            f"(SparseSoftmaxCrossEntropyWithLogits/Shape_1:0) = ] "
            f"[{' '.join(map(str, labels))}] [y (SparseSoftmaxCrossEntropyWithLogits/"
            f"strided_slice:0) = ] [{' '.join(map(str, logits[:-1]))}] [Op:AssertEqual]")
    rows = int(np.prod(labels, dtype=np.int64))
    raise InvalidArgumentError(f"Must have at least one class, but got logits shape "
                               f"[{rows},0] [Op:SparseSoftmaxCrossEntropyWithLogits]")


def _sparse_xent_vjp(g: Tensor, ans: Tensor, logits: Tensor, labels: Tensor) -> tuple:
    if has_static_shape(logits._value):
        target = one_hot(labels, logits._value.shape[-1], dtype=logits.dtype)
        return expand_dims(g, -1) * (softmax(logits) - target), None
    # The depth is known only as the graph runs: one-hot as labels == 0, 1, ..., depth - 1.
    classes = cumsum(ones_like(logits, dtype=labels.dtype), axis=-1) - 1
    target = cast(equal(expand_dims(labels, -1), classes), logits.dtype)
    last = len(logits._value.shape) - 1
    return spread_like(g, logits, (last,), False) * (softmax(logits) - target), None


# A primitive for numerical stability, like the dense one; labels carry no gradient.
_sparse_xent = Primitive("SparseSoftmaxCrossEntropyWithLogits",
                         _sparse_xent_kernel, shape_rule=_sparse_xent_rule).defvjp(_sparse_xent_vjp)


@tf_export("nn.sparse_softmax_cross_entropy_with_logits")
def sparse_softmax_cross_entropy_with_logits(labels: Any = None, logits: Any = None,
                                             name: Optional[str] = None) -> Tensor:
    """-log_softmax(logits)[..., labels]: the cross-entropy against integer class labels
    (shape `logits.shape[:-1]`, values in [0, num_classes))."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    # TF's Python wrapper checks the shapes; then its kernel lookup checks the dtypes.
    if logits._value.ndim == 0 or labels._value.shape != logits._value.shape[:-1]:
        _check_sparse_shapes(labels, logits)
    if labels._value.dtype.kind not in "iu":
        type_name = cpp_name(labels.dtype)
        raise InvalidArgumentError(f"Value for attr 'Tlabels' of {type_name} is not in the list "
                                   f"of allowed values: int32, int64 "
                                   f"[Op:SparseSoftmaxCrossEntropyWithLogits]")
    if kind_of(logits._value.dtype) != "f":
        raise InvalidArgumentError(f"Value for attr 'T' of {cpp_name(logits.dtype)} is not in "
                                   f"the list of allowed values: half, bfloat16, float, double "
                                   f"[Op:SparseSoftmaxCrossEntropyWithLogits]")
    if logits._value.ndim and logits._value.shape[-1] == 0:
        raise InvalidArgumentError(f"Must have at least one class, but got logits shape "
                                   f"[{labels._value.size},0] "
                                   f"[Op:SparseSoftmaxCrossEntropyWithLogits]")
    out_dtype = logits.dtype
    if out_dtype == _dtypes.float16:
        logits = cast(logits, _dtypes.float32)
    return cast(bind(_sparse_xent, (logits, labels)), out_dtype)


def _check_sparse_shapes(labels: Tensor, logits: Tensor) -> None:
    """TensorFlow's static checks where labels' shape is not logits' without the last dim:
    a rank that does not fit and known dims that differ raise; dims unknown until the graph
    runs pass (TF's is_compatible_with), and the kernel checks them."""
    outer, dims = logits._value.shape[:-1], labels._value.shape
    if logits._value.ndim == 0:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={logits}`")
    if len(dims) != len(outer):
        raise ValueError(f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                         f"labels.shape={labels.shape} of rank {len(dims)} and "
                         f"logits.shape={logits.shape} of rank {len(outer) + 1}")
    if any(a is not None and b is not None and a != b for a, b in zip(dims, outer)):
        raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last "
                         f"dimension. Received: labels.shape={labels.shape} and "
                         f"logits.shape={logits.shape}")


# -- normalization, dropout, embeddings (composites) ---------------------------------------------

@tf_export("math.log_sigmoid")
def log_sigmoid(x: Any, name: Optional[str] = None) -> Tensor:
    """log(sigmoid(x)), computed stably as -softplus(-x) (`tf.math.log_sigmoid`; TensorFlow
    has no tf.nn.log_sigmoid)."""
    x = convert_to_tensor(x)
    return negative(softplus(negative(x)))


# A primitive so that the gradient is TensorFlow's g / (1 + |x|)^2: 0 at +-inf, where the
# quotient rule of the composite gives inf / inf = nan.
_softsign = Primitive("Softsign", lambda x: x / (np.abs(x) + np.ones((), x.dtype)),
                      shape_rule=same_as_input).defvjp(
    lambda g, ans, x: g / square(abs_(x) + 1))


@tf_export("nn.softsign", "math.softsign")
def softsign(features: Any, name: Optional[str] = None) -> Tensor:
    """features / (1 + |features|)."""
    x = convert_to_tensor(features)
    require(x, "f", "Softsign")
    return bind(_softsign, (x,))


@tf_export("nn.l2_loss")
def l2_loss(t: Any, name: Optional[str] = None) -> Tensor:
    """sum(t ** 2) / 2."""
    x = convert_to_tensor(t)
    require(x, "f", "L2Loss")
    return reduce_sum(x * x) / 2


@tf_export("nn.bias_add")
def bias_add(value: Any, bias: Any, data_format: Optional[str] = None,
             name: Optional[str] = None) -> Tensor:
    """`value + bias` with the 1-D `bias` along the channel axis: the last one, or axis 1
    for a data_format starting with "NC"."""
    x = convert_to_tensor(value)
    b = convert_to_tensor(bias, dtype_hint=x.dtype)
    channels_first = data_format is not None and data_format.startswith("NC")
    if b._value.ndim != 1:
        raise InvalidArgumentError(f"Biases must be 1D: {shape_text(b)} [Op:BiasAdd]")
    if x._value.ndim < 2:
        raise InvalidArgumentError(f"Input tensor must be at least 2D: {shape_text(x)} "
                                   f"[Op:BiasAdd]")
    axis = 1 if channels_first else -1
    if x._value.shape[axis] != b._value.shape[0]:
        # TensorFlow says "last" for both data formats.
        raise InvalidArgumentError(
            f"Must provide as many biases as the last dimension of the input tensor: "
            f"{shape_text(b)} vs. {shape_text(x)} [Op:BiasAdd]")
    if channels_first:
        b = reshape(b, (-1,) + (1,) * (x._value.ndim - 2))
    return x + b


@tf_export("nn.moments")
def moments(x: Any, axes: Any, shift: Any = None, keepdims: bool = False,
            name: Optional[str] = None) -> tuple:
    """(mean, variance) of `x` over `axes`; the variance treats the mean as a constant
    (stop_gradient), as TensorFlow's moments does. float16 is computed in float32."""
    x = convert_to_tensor(x)
    y = cast(x, _dtypes.float32) if x.dtype == _dtypes.float16 else x
    mean = reduce_mean(y, axes, keepdims=True)
    variance = reduce_mean(_squared_deviation(y, stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    if x.dtype == _dtypes.float16:
        return cast(mean, x.dtype), cast(variance, x.dtype)
    return mean, variance


def _squared_deviation(y: Tensor, mean: Tensor) -> Tensor:
    """|y - mean|^2: TensorFlow's SquaredDifference conjugates complex operands, so a complex
    variance is real and non-negative ((y - m) * conj(y - m), not (y - m)^2)."""
    if y.dtype.is_complex:
        d = y - mean
        return d * conj(d)
    return squared_difference(y, mean)


@tf_export("nn.batch_normalization")
def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any,
                        variance_epsilon: float, name: Optional[str] = None) -> Tensor:
    """(x - mean) * scale / sqrt(variance + epsilon) + offset, in TensorFlow's order of
    operations (offset and scale may be None)."""
    x = convert_to_tensor(x)
    inv = rsqrt(convert_to_tensor(variance, dtype_hint=x.dtype) + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    shift = offset - mean * inv if offset is not None else negative(mean * inv)
    return x * cast(inv, x.dtype) + cast(shift, x.dtype)


@tf_export("nn.l2_normalize", "math.l2_normalize", "linalg.l2_normalize")
def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12,
                 name: Optional[str] = None, dim: Any = None) -> Tensor:
    """x / sqrt(max(sum(x ** 2, axis), epsilon))."""
    x = convert_to_tensor(x)
    axis = dim if axis is None else axis
    square_sum = reduce_sum(x * x, axis, keepdims=True)
    return x * rsqrt(maximum(square_sum, epsilon))


@tf_export("nn.dropout")
@reads_static
def dropout(x: Any, rate: Any, noise_shape: Any = None, seed: Optional[int] = None,
            name: Optional[str] = None) -> Tensor:
    """Zeroes each element with probability `rate` and scales the rest by 1 / (1 - rate).

    `noise_shape` (broadcastable to x's shape, None entries taken from x) shares one keep
    decision across the dimensions where it is 1."""
    from tapeflow.ops.random_ops import uniform  # random_ops builds on the ops above
    return _dropout(x, rate, noise_shape,
                    lambda shape, dtype: uniform(shape, dtype=dtype, seed=seed))


@tf_export("nn.experimental.stateless_dropout")
@reads_static
def stateless_dropout(x: Any, rate: Any, seed: Any, rng_alg: Any = None, noise_shape: Any = None,
                      name: Optional[str] = None) -> Tensor:
    """`tf.nn.dropout` whose keep decisions depend only on `seed` (a pair of integers), as
    TensorFlow draws them."""
    from tapeflow.ops.stateless_random_ops import stateless_uniform   # builds on these ops
    alg = "auto_select" if rng_alg is None else rng_alg
    return _dropout(x, rate, noise_shape, lambda shape, dtype: stateless_uniform(
        shape, seed=seed, dtype=dtype, alg=alg))


def _dropout(x: Any, rate: Any, noise_shape: Any, sample_uniform: Any) -> Tensor:
    is_number = isinstance(rate, (int, float)) and not isinstance(rate, bool)
    if is_number and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). "
                         f"Received: rate={rate}")
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                         f"Received: x_dtype={x.dtype}")
    if is_number and rate == 0:
        return x
    if is_number:
        kept = x * (1 / (1 - rate))
    else:
        rate = cast(convert_to_tensor(rate), x.dtype)
        kept = x / (1 - rate)
    keep_mask = sample_uniform(_noise_shape(x, noise_shape), x.dtype) >= rate
    out = where(keep_mask, kept, 0)
    if read_at_run_time(noise_shape) and x._value.shape is not None:
        # x's static shape, as TF's set_shape gives it (checked as the graph runs)
        out = bind(ensure_shape_prim, (out,), {"shape": x._value.shape, "note": ""})
    return out


def _noise_shape(x: Tensor, noise_shape: Any) -> Any:
    """The shape of dropout's keep decisions: x's, or `noise_shape` with its None entries
    taken from x; one holding a traced tensor is read when the graph runs (as TF's, which
    then broadcasts the decisions over x as it runs)."""
    if noise_shape is None:   # x's shape; where tracing does not know it, as the graph runs
        return x._value.shape if has_static_shape(x._value) else array_shape(x)
    if read_at_run_time(noise_shape):
        return noise_shape
    return tuple(d if n is None else int(n) for n, d in zip(
        _noise_dims(static_value(noise_shape, "dropout: noise_shape")), x._value.shape))


def _noise_dims(noise_shape: Any) -> list:
    if isinstance(noise_shape, TensorLike):
        return [int(d) for d in noise_shape._value.reshape(-1)]
    return list(noise_shape.as_list() if hasattr(noise_shape, "as_list") else noise_shape)


@tf_export("nn.embedding_lookup")
def embedding_lookup(params: Any, ids: Any, max_norm: Optional[float] = None,
                     name: Optional[str] = None) -> Tensor:
    """Rows of `params` at `ids` (a gather on axis 0); with `max_norm`, rows whose L2 norm
    exceeds it are scaled down to it. The gradient with respect to params is a
    `tf.IndexedSlices`, as in TF. Ragged `ids` give a RaggedTensor of their rows."""
    if type(ids) is RaggedTensor:   # the flat ids' rows, in ids' row partition
        flat = ids.flat_values
        if flat.dtype not in (_dtypes.int32, _dtypes.int64):
            raise ValueError(f"The values contained by the inputs have type {flat.dtype} "
                             f"and cannot be processed. All values should be indices, either "
                             f"of type `int32` or `int64`.")
        return ids.with_flat_values(embedding_lookup(params, flat, max_norm))
    if isinstance(params, (list, tuple)):
        params = _div_partitioned(params)
    rows = gather(params, ids)
    if max_norm is None:
        return rows
    from tapeflow.ops.clip_ops import clip_by_norm  # clip_ops builds on this module's layer
    axes = tuple(builtins.range(convert_to_tensor(ids)._value.ndim, rows._value.ndim))
    return clip_by_norm(rows, max_norm, axes=axes)


def _div_partitioned(params: Any) -> Any:
    """A list of tables as TF's "div" partition strategy reads it: id i is row i of their
    concatenation where the first N % P tables have one row more than the others (N rows,
    P tables); other sizes would map ids elsewhere, so they are refused."""
    if len(params) == 1:
        return params[0]
    sizes = [int(convert_to_tensor(p).shape[0]) for p in params]
    per, extra = divmod(sum(sizes), len(sizes))
    layout = [per + 1] * extra + [per] * (len(sizes) - extra)
    if sizes != layout:
        raise InvalidArgumentError(f"embedding_lookup: tapeflow reads a partitioned params "
                                   f"list with TF's 'div' strategy, whose tables of "
                                   f"{sum(sizes)} rows have sizes {layout}; got {sizes}")
    return concat(list(params), axis=0)


@tf_export("math.zero_fraction", "nn.zero_fraction")
def zero_fraction(value: Any, name: Optional[str] = None) -> Tensor:
    """The fraction of `value`'s elements that are zero, as float32 (nan when empty)."""
    x = convert_to_tensor(value)
    nonzero = reduce_sum(cast(not_equal(x, zeros_like(x)), _dtypes.int64))
    size = cast(reduce_sum(ones_like(x, dtype=_dtypes.int64)), _dtypes.int64)
    return cast(size - nonzero, _dtypes.float32) / cast(size, _dtypes.float32)


# -- more losses, activations and moments (composites, in TensorFlow's order of operations) ------

def _same_shape(a: Tensor, b: Tensor, a_name: str, b_name: str) -> None:
    """TF's assert_is_compatible_with of two static shapes, with its message."""
    sa, sb = a._value.shape, b._value.shape
    if sa is None or sb is None:
        return
    if len(sa) != len(sb) or any(x is not None and y is not None and x != y
                                 for x, y in zip(sa, sb)):
        raise ValueError(f"`{a_name}` and `{b_name}` must have the same shape, received "
                         f"({a.shape} vs {b.shape}).")


@tf_export("nn.weighted_cross_entropy_with_logits")
def weighted_cross_entropy_with_logits(labels: Any, logits: Any, pos_weight: Any,
                                       name: Optional[str] = None) -> Tensor:
    """Sigmoid cross-entropy whose positive term is weighted by `pos_weight`:
    (1 - z) x + (1 + (q - 1) z) (log(1 + exp(-|x|)) + max(-x, 0)), TensorFlow's formula."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype_hint=logits.dtype)
    _same_shape(logits, labels, "logits", "labels")
    log_weight = 1 + (convert_to_tensor(pos_weight, dtype_hint=logits.dtype) - 1) * labels
    return (1 - labels) * logits + log_weight * (log1p(exp(negative(abs_(logits))))
                                                  + relu(negative(logits)))


@tf_export("nn.log_poisson_loss")
def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: bool = False,
                     name: Optional[str] = None) -> Tensor:
    """exp(log_input) - log_input * targets; with `compute_full_loss`, plus the Stirling
    approximation of log(targets!) where targets > 1."""
    log_input = convert_to_tensor(log_input)
    targets = convert_to_tensor(targets, dtype_hint=log_input.dtype)
    _same_shape(log_input, targets, "log_input", "targets")
    result = exp(log_input) - log_input * targets
    if compute_full_loss:
        from tapeflow.ops.math_ops import greater_equal, less_equal, log, logical_and
        stirling = targets * log(targets) - targets + 0.5 * log(2 * np.pi * targets)
        zeros = zeros_like(targets)
        small = logical_and(greater_equal(targets, zeros), less_equal(targets, ones_like(targets)))
        result += where(small, zeros, stirling)
    return result


@tf_export("nn.crelu")
def crelu(features: Any, axis: int = -1, name: Optional[str] = None) -> Tensor:
    """relu of [features, -features] concatenated along `axis` (twice the depth)."""
    from tapeflow.ops.array_ops import concat
    x = convert_to_tensor(features)
    return relu(concat([x, negative(x)], axis))


@tf_export("nn.sufficient_statistics")
def sufficient_statistics(x: Any, axes: Any, shift: Any = None, keepdims: bool = False,
                          name: Optional[str] = None) -> tuple:
    """(count, sum(x - shift), sum((x - shift)^2), shift) over `axes`; the count is a
    constant of x's dtype."""
    x = convert_to_tensor(x)
    axes = sorted(set(int(a) for a in np.ravel(axes)))
    shape = x._value.shape
    if shape is not None and all(shape[d] is not None for d in axes):
        counts = convert_to_tensor(int(np.prod([shape[d] for d in axes], dtype=np.int64)),
                                   dtype=x.dtype)
    else:  # known as the graph runs: the product of the reduced dims
        from tapeflow.ops.array_ops import gather, shape as shape_of
        from tapeflow.ops.reduce_ops import reduce_prod
        counts = cast(reduce_prod(gather(shape_of(x), axes)), x.dtype)
    if shift is not None:
        shift = convert_to_tensor(shift, dtype_hint=x.dtype)
        m_ss, v_ss = x - shift, squared_difference(x, shift)
    else:
        m_ss, v_ss = x, square(x)
    return (counts, reduce_sum(m_ss, axes, keepdims=keepdims),
            reduce_sum(v_ss, axes, keepdims=keepdims), shift)


@tf_export("nn.normalize_moments")
def normalize_moments(counts: Any, mean_ss: Any, variance_ss: Any, shift: Any,
                      name: Optional[str] = None) -> tuple:
    """(mean, variance) from sufficient statistics: mean_ss / counts + shift and
    variance_ss / counts - (mean_ss / counts)^2."""
    from tapeflow.ops.math_ops import reciprocal
    mean_ss = convert_to_tensor(mean_ss)
    divisor = reciprocal(convert_to_tensor(counts, dtype_hint=mean_ss.dtype))
    shifted_mean = mean_ss * divisor
    mean = shifted_mean if shift is None else shifted_mean + shift
    variance = convert_to_tensor(variance_ss) * divisor - square(shifted_mean)
    return mean, variance


@tf_export("nn.weighted_moments")
def weighted_moments(x: Any, axes: Any, frequency_weights: Any, keepdims: bool = False,
                     name: Optional[str] = None) -> tuple:
    """(mean, variance) of `x` over `axes` with each element counted `frequency_weights`
    (broadcast to x) times; 0 / 0 gives 0 (divide_no_nan). float16 is computed in float32."""
    from tapeflow.ops.math_ops import divide_no_nan
    x = convert_to_tensor(x)
    weights = convert_to_tensor(frequency_weights)
    out_dtype = x.dtype
    if out_dtype == _dtypes.float16:
        x = cast(x, _dtypes.float32)
    if weights.dtype != x.dtype:
        weights = cast(weights, x.dtype)
    weighted_sum = reduce_sum(weights * x, axes, keepdims=True)
    sum_of_weights = reduce_sum(weights + zeros_like(x), axes, keepdims=True)
    mean = divide_no_nan(weighted_sum, sum_of_weights)
    distsq = reduce_sum(weights * squared_difference(x, mean), axes, keepdims=True)
    variance = divide_no_nan(distsq, sum_of_weights)
    if not keepdims:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    if out_dtype == _dtypes.float16:
        mean, variance = cast(mean, out_dtype), cast(variance, out_dtype)
    return mean, variance


@tf_export("nn.batch_norm_with_global_normalization")
def batch_norm_with_global_normalization(input: Any, mean: Any, variance: Any,  # noqa: A002
                                         beta: Any, gamma: Any, variance_epsilon: float,
                                         scale_after_normalization: bool,
                                         name: Optional[str] = None) -> Tensor:
    """batch_normalization with offset `beta`, and scale `gamma` only when
    `scale_after_normalization`."""
    return batch_normalization(input, mean, variance, beta,
                               gamma if scale_after_normalization else None, variance_epsilon)


@tf_export("nn.local_response_normalization", "nn.lrn")
def local_response_normalization(input: Any, depth_radius: int = 5,  # noqa: A002
                                 bias: float = 1, alpha: float = 1, beta: float = 0.5,
                                 name: Optional[str] = None) -> Tensor:
    """x / (bias + alpha * sum(x^2 over depth_radius channels each side))^beta on a 4-D
    input's last axis, as TF's CPU kernel computes it (beta 1 and 0.5 by division and rsqrt,
    others by exp(-beta log)). A composite of pad and slices, so its gradient is TF's LRNGrad
    (float32, float16 and bfloat16 only, as TF)."""
    from tapeflow.ops.array_ops import slice_tensor
    from tapeflow.ops.manip_ops import pad
    from tapeflow.ops.math_ops import log
    x = convert_to_tensor(input)
    if x.dtype not in (_dtypes.float32, _dtypes.float16, _dtypes.bfloat16):
        raise InvalidArgumentError(f"Value for attr 'T' of {cpp_name(x.dtype)} is not in the "
                                   f"list of allowed values: half, bfloat16, float [Op:LRN]")
    if x._value.ndim != 4:
        raise InvalidArgumentError("in must be 4-dimensional [Op:LRN]")
    r = int(depth_radius)
    depth = x._value.shape[3]
    # TF's attrs are float32; its kernel works in float32 for half inputs too.
    work = cast(x, _dtypes.float32) if x.dtype != _dtypes.float32 else x
    squares = pad(square(work), ((0, 0), (0, 0), (0, 0), (r, r)))
    window = slice_tensor(squares, (Ellipsis, builtins.slice(0, depth)))
    for k in builtins.range(1, 2 * r + 1):
        window = window + slice_tensor(squares, (Ellipsis, builtins.slice(k, k + depth)))
    f32 = np.float32
    multiplier = window * f32(alpha) + f32(bias)
    beta = f32(beta)
    if beta == 1:
        out = work / multiplier
    elif beta == f32(0.5):
        out = work * rsqrt(multiplier)
    else:
        out = work * exp(log(multiplier) * -beta)
    return cast(out, x.dtype)


@tf_export("nn.collapse_repeated")
def collapse_repeated(labels: Any, seq_length: Any, name: Optional[str] = None) -> tuple:
    """Merges runs of a repeated label in each row of `labels` [batch, max_len] (only within
    `seq_length`); returns the left-aligned rows, zero-padded to the longest, and their new
    lengths (in seq_length's dtype). TensorFlow's ops, so it traces."""
    from tapeflow.ops.array_ops import concat, range as range_
    from tapeflow.ops.index_ops import boolean_mask, scatter_nd
    from tapeflow.ops.manip_ops import sequence_mask
    from tapeflow.ops.math_ops import logical_and, not_equal
    from tapeflow.ops.reduce_ops import reduce_max
    labels = convert_to_tensor(labels)
    seq_length = convert_to_tensor(seq_length)
    first = ones_like(labels[:, :1], dtype=_dtypes.bool)
    label_mask = concat([first, not_equal(labels[:, 1:], labels[:, :-1])], axis=1)
    label_mask = logical_and(label_mask, sequence_mask(seq_length, maxlen=labels.shape[1]))
    new_seq_len = reduce_sum(cast(label_mask, _dtypes.int32), axis=1)
    idx_mask = sequence_mask(new_seq_len, maxlen=reduce_max(new_seq_len))
    flat_idx_mask = reshape(idx_mask, [-1])
    idx = range_(builtins.int(np.prod(idx_mask._value.shape)) if has_static_shape(
        idx_mask._value) else reduce_sum(ones_like(flat_idx_mask, dtype=_dtypes.int32)))
    flat = scatter_nd(expand_dims(boolean_mask(idx, flat_idx_mask), 1),
                      boolean_mask(reshape(labels, [-1]), reshape(label_mask, [-1])),
                      reshape(reduce_sum(ones_like(flat_idx_mask, dtype=_dtypes.int32)), [1]))
    return (reshape(flat, [labels.shape[0] if labels.shape[0] is not None else -1,
                           reduce_max(new_seq_len)]),
            cast(new_seq_len, seq_length.dtype))
