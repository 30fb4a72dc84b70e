"""Records Keras 3.15's answers for `keras.ops`'s core/math names and `keras.ops.nn` into
tests/keras/ops/fixtures/keras_ops_core_nn.npz, which tests/keras/ops/test_keras_ops_core.py and
test_keras_ops_nn.py replay on tapeflow.keras.ops (run with a Python that has Keras 3.15 and
TensorFlow 2.21):

  TF_CPP_MIN_LOG_LEVEL=3 python tools/record_keras_ops_core_nn.py

The npz holds every input and output array (`a0`, `a1`, ...) and, as JSON text, `__cases__`
(a list of {"id", "op", "args", "kwargs", and "result" or "error": [class name, words its
message holds]}) and `__signatures__` ({name: parameter names} of both namespaces). Arrays are
encoded as {"nd": key}, tuples as {"tuple": [...]}, a callable as {"fn": name} of the table
FNS below, which the tests define again over tapeflow.keras.ops.
"""

from __future__ import annotations

import inspect
import json
import os
from typing import Any

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "ops", "fixtures",
                   "keras_ops_core_nn.npz")
RNG = np.random.default_rng(20261207)


def fns(ops: Any) -> dict:
    """The callables the control-flow cases pass, written over `ops` (Keras's or tapeflow's):
    the tests define the same table."""
    return {
        "const_one": lambda: ops.convert_to_tensor(1.5),
        "const_two": lambda: ops.convert_to_tensor(-2.5),
        "add": lambda a, b: a + b,
        "mul": lambda a, b: a * b,
        "max": lambda a, b: ops.maximum(a, b),
        "square": lambda x: x * x,
        "sum_rows": lambda x: ops.sum(x, axis=-1),
        "pair": lambda x: (x[0] * 2.0, x[1] + 1.0),
        "scan_cumsum": lambda c, x: (c + x, c * 2.0),
        "scan_pair": lambda c, x: ((c[0] + x, c[1] * x), (c[0] - x, c[1])),
        "scan_no_xs": lambda c, x: (c * 2.0, c + 1.0),
        "lt_ten": lambda i, x: i < 10,
        "step": lambda i, x: (i + 1, x * 1.5),
        "lt_five": lambda x: x < 5.0,
        "inc": lambda x: x + 1.0,
        "fori_body": lambda i, x: x + ops.cast(i, "float32") * 0.5,
        "neg": lambda x: -x,
        "double": lambda x: x * 2.0,
        "add3": lambda x, y: x + y * 3.0,
        "sub3": lambda x, y: x - y * 3.0,
    }


def arr(shape: Any, dtype: str = "float32", lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    """A seeded array: uniform in [lo, hi) for floats, integers in [lo, hi) otherwise."""
    if dtype.startswith("float"):
        return RNG.uniform(lo, hi, size=shape).astype(dtype)
    if dtype == "bool":
        return RNG.integers(0, 2, size=shape).astype(bool)
    return RNG.integers(int(lo), int(hi), size=shape).astype(dtype)


def probs(shape: Any, dtype: str = "float32") -> np.ndarray:
    """Rows that sum to 1 along the last axis."""
    x = RNG.uniform(0.05, 1.0, size=shape)
    return (x / x.sum(axis=-1, keepdims=True)).astype(dtype)


def onehot(labels: np.ndarray, n: int, dtype: str = "float32") -> np.ndarray:
    return np.eye(n, dtype=dtype)[labels]


class Fn:
    """A callable argument: its name in FNS."""

    def __init__(self, name: str):
        self.name = name


class T:
    """An array argument passed as a tensor (some Keras ops read `.shape.as_list()`)."""

    def __init__(self, a: np.ndarray):
        self.a = a


CASES: list = []
ANY = "*"   # an `error` that records whatever happens, a result or an error's class


def case(op: str, *args: Any, error: Any = None, **kwargs: Any) -> None:
    """A call of keras.ops.<op>; `error` is the words its message must hold when it fails."""
    CASES.append((op, args, kwargs, error))


def record_cases() -> None:  # noqa: C901 - one table
    f32, f64, i32 = "float32", "float64", "int32"
    # ---- nn: activations
    for name in ["relu", "relu6", "sigmoid", "softplus", "softsign", "silu", "swish",
                 "log_sigmoid", "selu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
                 "tanh_shrink", "sparse_plus", "sparse_sigmoid", "gelu", "elu", "celu",
                 "leaky_relu", "squareplus", "soft_shrink", "hard_shrink"]:
        case(name, arr((3, 4), f32, -4, 4))
        case(name, arr((2, 3), f64, -4, 4))
        case(name, np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 3.0], f32))
    for name in ["relu", "relu6", "hard_tanh", "sigmoid", "softplus", "silu"]:
        case(name, arr((5,), i32, -8, 8), error=ANY)
    case("relu", [[-1.0, 2.0], [3.0, -4.0]])
    case("gelu", arr((3, 4), f32, -4, 4), approximate=False)
    case("gelu", arr((3, 4), f64, -4, 4), approximate=True)
    case("elu", arr((3, 4), f32, -4, 4), alpha=0.5)
    case("celu", arr((3, 4), f32, -4, 4), alpha=2.0)
    case("leaky_relu", arr((3, 4), f32, -4, 4), negative_slope=0.1)
    case("squareplus", arr((3, 4), f32, -4, 4), b=1)
    case("soft_shrink", arr((3, 4), f32, -2, 2), threshold=1.0)
    case("hard_shrink", arr((3, 4), f32, -2, 2), threshold=1.0)
    case("threshold", arr((3, 4), f32, -2, 2), 0.5, -1.0)
    case("threshold", arr((3, 4), f64, -2, 2), 0.0, 7.0)
    case("glu", arr((3, 4), f32))
    case("glu", arr((4, 3), f64), axis=0)
    case("glu", arr((3, 5), f32), error="divisible by 2")
    for name in ["softmax", "log_softmax", "sparsemax"]:
        case(name, arr((3, 4), f32, -3, 3))
        case(name, arr((3, 4), f64, -3, 3), axis=0)
        case(name, arr((2, 3, 4), f32, -3, 3), axis=1)
    case("softmax", arr((2, 3, 4), f32, -3, 3), axis=(1, 2))
    case("log_softmax", arr((2, 3, 4), f32, -3, 3), axis=(0, 2))
    case("softmax", arr((2, 3), f32, -3, 3), axis=None)
    case("log_softmax", arr((2, 3), f32, -3, 3), axis=None)
    # ---- nn: one-hot, crossentropies, moments, normalization
    case("one_hot", np.array([0, 2, 1, 3], i32), 4)
    case("one_hot", np.array([[0, 2], [1, -1]], i32), 3, axis=0)
    case("one_hot", np.array([1, 0, 4], "int64"), 5, dtype="int32")
    case("one_hot", np.array([1, 0, 2], i32), 3, dtype="bool")
    case("one_hot", [2, 0], 3, dtype="float64")
    case("multi_hot", np.array([[0, 2], [1, 3]], i32), 4)
    case("multi_hot", np.array([0, 2, 2], i32), 4, dtype="int32")
    case("multi_hot", np.array([[0, 2], [1, 1]], i32), 3, dtype="bool")
    case("multi_hot", np.array([[0, 2]], i32), error="num_classes")
    labels = RNG.integers(0, 4, size=(5,))
    case("categorical_crossentropy", onehot(labels, 4), probs((5, 4)))
    case("categorical_crossentropy", onehot(labels, 4, f64), arr((5, 4), f64), from_logits=True)
    case("categorical_crossentropy", onehot(labels, 4).T.copy(), probs((5, 4)).T.copy(), axis=0)
    case("categorical_crossentropy", onehot(labels, 4), arr((5, 4)), from_logits=True, axis=-1)
    case("categorical_crossentropy", onehot(labels, 4), probs((5, 3)), error="same shape")
    case("categorical_crossentropy", onehot(labels, 4), probs((5, 2, 4)), error="same rank")
    case("sparse_categorical_crossentropy", labels.astype(i32), probs((5, 4)))
    case("sparse_categorical_crossentropy", labels.astype("int64"), arr((5, 4), f64),
         from_logits=True)
    case("sparse_categorical_crossentropy", labels.reshape(5, 1).astype(i32), arr((5, 4)),
         from_logits=True)
    case("sparse_categorical_crossentropy", labels.astype(i32), probs((5, 4)), axis=0,
         error="Only axis=-1")
    case("sparse_categorical_crossentropy", labels[:4].astype(i32), probs((5, 4)),
         error="same shape")
    case("binary_crossentropy", arr((4, 3), f32, 0, 1).round(), arr((4, 3), f32, 0.01, 0.99))
    case("binary_crossentropy", arr((4, 3), f64, 0, 1).round(), arr((4, 3), f64, -3, 3),
         from_logits=True)
    case("binary_crossentropy", arr((4, 3), f32, 0, 1), arr((4, 2), f32, 0.1, 0.9),
         error="same shape")
    case("moments", arr((4, 3), f32), [0])
    case("moments", arr((2, 3, 4), f64), [0, 2], keepdims=True)
    case("moments", arr((2, 3, 4), f32), (1,), synchronized=True)
    case("moments", arr((5,), f32), -1)
    case("batch_normalization", arr((4, 3)), arr((3,)), arr((3,), f32, 0.5, 2), -1)
    case("batch_normalization", arr((4, 3, 2)), arr((3,)), arr((3,), f32, 0.5, 2), 1,
         offset=arr((3,)), scale=arr((3,)), epsilon=0.01)
    case("batch_normalization", arr((4, 3), f64), arr((3,), f64), arr((3,), f64, 0.5, 2), -1,
         offset=arr((3,), f64), scale=arr((3,), f64))
    case("layer_normalization", arr((3, 4)))
    case("layer_normalization", arr((3, 4), f64), gamma=arr((4,), f64), beta=arr((4,), f64))
    case("layer_normalization", arr((2, 3, 4)), gamma=arr((3, 4)), beta=arr((3, 4)),
         axis=[1, 2], epsilon=1e-5)
    case("layer_normalization", arr((2, 3, 4)), gamma=arr((3,)), axis=1)
    case("rms_normalization", arr((3, 4)))
    case("rms_normalization", arr((3, 4), f64), scale=arr((4,), f64))
    case("rms_normalization", arr((2, 3, 4)), scale=arr((3, 4)), axis=(1, 2), epsilon=1e-4)
    case("normalize", arr((3, 4)))
    case("normalize", arr((3, 4), f64), axis=0)
    case("normalize", arr((3, 4)), order=1)
    case("normalize", arr((3, 4)), order=3, axis=-1, epsilon=1e-3)
    case("normalize", arr((6,)), order=1, axis=None)
    case("normalize", arr((3, 4)), order=0, error="order")
    case("normalize", np.zeros((2, 3), f32))
    case("psnr", arr((2, 4, 4, 1), f32, 0, 1), arr((2, 4, 4, 1), f32, 0, 1), 1.0)
    case("psnr", arr((4, 4), f64, 0, 255), arr((4, 4), f64, 0, 255), 255.0)
    case("psnr", arr((4, 4), f32), arr((4, 3), f32), 1.0, error="must match")
    case("polar", arr((3,), f32, 0, 2), arr((3,), f32, -3, 3))
    case("polar", arr((2, 2), f64, 0, 2), arr((2, 2), f64, -3, 3))
    # ---- nn: attention
    q, k, v = arr((2, 3, 2, 4)), arr((2, 5, 2, 4)), arr((2, 5, 2, 4))
    case("dot_product_attention", q, k, v)
    case("dot_product_attention", q, k, v, scale=0.3)
    case("dot_product_attention", q, k, v, bias=arr((2, 2, 3, 5)))
    case("dot_product_attention", q, k, v, mask=arr((2, 2, 3, 5), "bool"))
    case("dot_product_attention", arr((1, 4, 2, 3)), arr((1, 4, 2, 3)), arr((1, 4, 2, 3)),
         is_causal=True)
    case("dot_product_attention", arr((1, 4, 4, 3)), arr((1, 4, 2, 3)), arr((1, 4, 2, 3)))
    case("dot_product_attention", arr((1, 4, 2, 3), f64), arr((1, 4, 2, 3), f64),
         arr((1, 4, 2, 3), f64), is_causal=True, scale=0.5)
    case("dot_product_attention", arr((4, 2, 3)), arr((4, 2, 3)), arr((4, 2, 3)),
         error="only supports 4D")
    case("dot_product_attention", q, k, v, flash_attention=True, error="Flash attention")
    # ---- nn: convolutions
    x1, x2, x3 = arr((2, 7, 3)), arr((2, 6, 5, 3)), arr((1, 4, 5, 4, 2))
    case("conv", x1, arr((3, 3, 4)))
    case("conv", x1, arr((3, 3, 4)), strides=2, padding="same")
    case("conv", x1, arr((2, 3, 4)), dilation_rate=2, padding="causal", error="padding")
    case("conv", x1, arr((2, 3, 4)), dilation_rate=2)
    case("conv", x2, arr((3, 2, 3, 4)))
    case("conv", x2, arr((3, 3, 3, 2)), strides=(2, 1), padding="same")
    case("conv", x2, arr((2, 2, 3, 2)), dilation_rate=(2, 1))
    case("conv", arr((2, 6, 5, 3), f64), arr((3, 3, 3, 2), f64), padding="SAME")
    case("conv", x2.transpose(0, 3, 1, 2).copy(), arr((3, 2, 3, 4)), data_format="channels_first")
    case("conv", x3, arr((2, 2, 2, 2, 3)))
    case("conv", x3, arr((3, 3, 3, 2, 3)), strides=2, padding="same")
    case("conv", x2, arr((2, 2, 3, 2)), strides=2, dilation_rate=2, error=ANY)
    # not recorded: conv of a (1, 2, 2, 3) input with a 3x3 kernel, which TF 2.21's CPU
    # kernel answers with a (1, 2, 2, 3) tensor instead of Keras's "empty output" ValueError
    case("conv", arr((2, 5, 5, 4)), arr((3, 3, 2, 6)), padding="same")   # 2 groups
    case("conv", arr((2, 5, 5, 4)), arr((3, 3, 3, 6)), error="is not a multiple")
    case("depthwise_conv", x2, arr((3, 3, 2, 2)), error="input channels")
    case("separable_conv", x2, arr((3, 3, 2, 1)), arr((1, 1, 2, 2)), error="input channels")
    case("conv_transpose", x2, arr((3, 3, 4, 2)), error="input channels")
    case("depthwise_conv", x2, arr((3, 3, 3, 2)))
    case("depthwise_conv", x2, arr((3, 3, 3, 1)), strides=2, padding="same")
    case("depthwise_conv", x1, arr((3, 3, 2)), padding="same")
    case("depthwise_conv", x2, arr((2, 2, 3, 1)), dilation_rate=2)
    case("depthwise_conv", x2, arr((2, 2, 3, 1)), strides=2, dilation_rate=2, padding="same")
    case("depthwise_conv", x2.transpose(0, 3, 1, 2).copy(), arr((2, 2, 3, 2)),
         data_format="channels_first")
    case("separable_conv", x2, arr((3, 3, 3, 2)), arr((1, 1, 6, 4)))
    case("separable_conv", x2, arr((3, 3, 3, 1)), arr((1, 1, 3, 2)), strides=2, padding="same")
    case("separable_conv", x1, arr((3, 3, 2)), arr((1, 6, 5)))
    case("conv_transpose", x1, arr((3, 4, 3)))
    case("conv_transpose", x1, arr((3, 4, 3)), strides=2, padding="same")
    case("conv_transpose", x2, arr((3, 3, 4, 3)))
    case("conv_transpose", x2, arr((3, 3, 4, 3)), strides=2, padding="same")
    case("conv_transpose", x2, arr((3, 3, 4, 3)), strides=2, output_padding=1)
    case("conv_transpose", x2, arr((2, 2, 4, 3)), dilation_rate=2)
    case("conv_transpose", x2.transpose(0, 3, 1, 2).copy(), arr((3, 3, 4, 3)), strides=2,
         data_format="channels_first")
    case("conv_transpose", x3, arr((2, 2, 2, 3, 2)), strides=2)
    # ---- nn: pooling
    for name in ["max_pool", "average_pool"]:
        case(name, x1, 2)
        case(name, x1, 3, strides=2, padding="same")
        case(name, x2, (2, 2))
        case(name, x2, 3, strides=(2, 1), padding="same")
        # a tensor: TF 2.21's tf.nn.max_pool returns float32 for a float64 NumPy array
        # once it has pooled a float32 one
        case(name, T(arr((2, 6, 5, 3), f64)), 2, strides=1)
        case(name, x2.transpose(0, 3, 1, 2).copy(), 2, data_format="channels_first")
        case(name, x3, 2)
    for name in ["adaptive_max_pool", "adaptive_average_pool"]:
        case(name, T(arr((2, 7, 3))), 3, data_format="channels_last")
        case(name, T(arr((2, 3, 7))), 3)
        case(name, T(arr((2, 3, 7, 5))), (3, 2))
        case(name, T(arr((2, 7, 5, 3))), 4, data_format="channels_last")
        case(name, T(arr((1, 2, 5, 4, 6))), (2, 3, 4))
        case(name, T(arr((2, 3, 8, 6), f64)), 4)
    # ---- nn: space/depth, fold/unfold
    case("depth_to_space", arr((2, 2, 3, 8)), 2)
    case("depth_to_space", arr((2, 8, 2, 3)), 2, data_format="channels_first")
    case("depth_to_space", arr((2, 2, 3, 8)), 1, error="at least 2")
    case("space_to_depth", arr((2, 4, 6, 3)), 2)
    case("space_to_depth", arr((2, 3, 4, 6)), 2, data_format="channels_first")
    case("unfold", arr((2, 3, 5, 4)), 2)
    case("unfold", arr((1, 2, 6, 6)), (3, 2), dilation=(1, 2), padding=1, stride=2)
    case("unfold", arr((2, 5, 4)), 2, error="4D tensor")
    case("fold", arr((2, 12, 12)), (4, 5), 2)
    case("fold", arr((1, 18, 9)), 5, 3, padding=1, stride=2)
    case("fold", arr((2, 12, 12, 1)), (4, 5), 2, error="3D tensor")
    # ---- nn: ctc
    logits = arr((2, 6, 4), f32, -2, 2)
    case("ctc_loss", np.array([[1, 2, 0], [3, 3, 1]], i32), logits, np.array([2, 3], i32),
         np.array([6, 5], i32))
    case("ctc_loss", np.array([[1, 2], [3, 1]], i32), arr((2, 5, 4), f64), np.array([2, 2], i32),
         np.array([5, 5], i32), mask_index=0)
    case("ctc_decode", logits, np.array([6, 4], i32))
    case("ctc_decode", logits, np.array([6, 6], i32), merge_repeated=False)
    case("ctc_decode", logits, np.array([6, 5], i32), strategy="beam_search", beam_width=4,
         top_paths=2)
    case("ctc_decode", logits, np.array([6, 5], i32), strategy="nope", error="Invalid strategy")
    # ---- core: conversion, shape, dtype
    case("convert_to_tensor", arr((2, 3)))
    case("convert_to_tensor", [[1, 2], [3, 4]])
    case("convert_to_tensor", [1.5, 2.5], dtype="float64")
    case("convert_to_tensor", np.array([1.7, -2.2], f32), dtype="int32")
    case("convert_to_tensor", 3)
    case("convert_to_tensor", [0, 2], dtype="bool")
    case("convert_to_numpy", arr((2, 3)))
    case("convert_to_numpy", [1, 2, 3])
    case("cast", arr((2, 3), f32, -5, 5), "int32")
    case("cast", arr((4,), i32, -5, 5), "float64")
    case("cast", arr((4,), i32, -2, 2), "bool")
    case("cast", arr((4,)), "float16")
    case("saturate_cast", np.array([-300.0, -1.5, 0.0, 100.2, 300.0], f32), "uint8")
    case("saturate_cast", np.array([-40000, 5, 70000], i32), "int16")
    case("saturate_cast", np.array([1e10, -1e10, 3.5], f64), "int32")
    case("saturate_cast", np.array([1e39, -3.0], f64), "float32")
    case("shape", arr((2, 3, 4)))
    case("shape", 3.0)
    case("shape", [[1, 2, 3]])
    case("dtype", arr((2,), f64))
    case("dtype", [1, 2], error=ANY)
    case("is_tensor", arr((2,)))
    case("is_tensor", [1, 2])
    # ---- core: math
    for name in ["erf", "erfc", "rsqrt"]:
        case(name, arr((3, 4), f32, 0.1, 3))
        case(name, arr((5,), f64, 0.1, 3))
    for name in ["erf", "erfc", "erfinv", "rsqrt", "logsumexp", "logdet", "softmax",
                 "log_softmax", "gelu", "elu", "selu", "softsign", "log_sigmoid", "sparsemax"]:
        case(name, arr((2, 2), i32, 1, 5), error=ANY)   # ints: refused or kept, as Keras
    case("erf", arr((5,), f32, -3, 3))
    case("erfc", arr((5,), f32, -3, 3))
    case("erfinv", arr((3, 4), f32, -0.99, 0.99))
    case("erfinv", arr((5,), f64, -0.99, 0.99))
    case("logsumexp", arr((3, 4)))
    case("logsumexp", arr((3, 4), f64), axis=0)
    case("logsumexp", arr((2, 3, 4)), axis=(0, 2), keepdims=True)
    case("logsumexp", arr((2, 3)), axis=-1, keepdims=True)
    case("logdet", (lambda a: a @ a.T + 3 * np.eye(3, dtype=f32))(arr((3, 3))))
    case("logdet", (lambda a: a @ np.swapaxes(a, -1, -2) + 2 * np.eye(3))(arr((2, 3, 3), f64)))
    case("cdist", arr((4, 3)), arr((5, 3)))
    case("cdist", arr((2, 4, 3), f64), arr((2, 5, 3), f64))
    case("cdist", arr((4,)), arr((5, 4)), error="rank >= 2")
    case("cdist", arr((4, 3)), arr((5, 2)), error="must match")
    case("top_k", arr((3, 6)), 2)
    case("top_k", arr((6,), f64), 3, sorted=True)
    case("top_k", arr((2, 5), i32, -9, 9), 5)
    case("in_top_k", np.array([0, 2, 1], i32), arr((3, 4)), 2)
    case("in_top_k", np.array([3, 1], "int64"), arr((2, 4)), 1)
    for name in ["segment_sum", "segment_max", "segment_min", "segment_prod"]:
        case(name, arr((6, 2)), np.array([0, 0, 1, 2, 2, 2], i32))
        case(name, arr((5,), f64), np.array([2, 0, 2, 1, 0], i32), num_segments=4)
        case(name, arr((4, 3), i32, -5, 5), np.array([0, 1, 1, 3], i32), sorted=True)
        case(name, arr((4,)), np.array([0, 1, 1, 2], i32), num_segments=3, sorted=True,
             error="num_segments")
        case(name, arr((4,)), np.array([[0, 1], [1, 2]], i32), error="1-D vector")
    case("segment_sum", arr((5,)), np.array([3, 3, 1, 1, 0], i32), error=ANY)
    case("segment_sum", arr((5,)), np.array([2, 2, 1, 1, 0], i32))
    case("extract_sequences", arr((10,)), 4, 2)
    case("extract_sequences", arr((2, 9), f64), 3, 3)
    case("fft", (arr((4, 6)), arr((4, 6))))
    case("fft", (arr((5,), f64), arr((5,), f64)))
    case("fft", (arr((4,)), arr((5,))), error="same shape")
    case("fft2", (arr((2, 4, 6)), arr((2, 4, 6))))
    case("ifft2", (arr((3, 4)), arr((3, 4))))
    case("ifft2", (arr((2, 3, 4), f64), arr((2, 3, 4), f64)))
    case("rfft", arr((3, 8)))
    case("rfft", arr((7,), f64), fft_length=10)
    case("irfft", (arr((3, 5)), arr((3, 5))))
    case("irfft", (arr((6,), f64), arr((6,), f64)), fft_length=8)
    case("stft", arr((2, 32)), 8, 4, 8)
    case("stft", arr((40,), f64), 6, 3, 8, window="hamming", center=False)
    case("stft", arr((32,)), 8, 4, 16, window=None)
    case("stft", arr((32,)), 8, 4, 8, window=arr((8,), f32, 0, 1))
    case("stft", arr((32,)), 8, 4, 4, error="fft_length")
    case("stft", arr((32,)), 8, 0, 8, error="sequence_stride")
    case("stft", arr((32,)), 8, 4, 8, window="box", error="window")
    case("istft", (arr((2, 9, 5)), arr((2, 9, 5))), 8, 4, 8)
    case("istft", (arr((7, 5), f64), arr((7, 5), f64)), 6, 3, 8, window="hamming", center=False)
    case("istft", (arr((9, 5)), arr((9, 5))), 8, 4, 8, length=20)
    case("istft", (arr((9, 9)), arr((9, 9))), 8, 4, 16, window=None)
    case("view_as_real", (arr((3,), f32) + 1j * arr((3,), f32)).astype("complex64"))
    case("view_as_real", (arr((2, 2), f64) + 1j * arr((2, 2), f64)))
    case("view_as_complex", arr((3, 2)))
    case("view_as_complex", arr((2, 2, 2), f64))
    case("view_as_complex", arr((3, 3)), error="size 2")
    case("rearrange", arr((2, 3, 4)), "b h w -> b w h")
    case("rearrange", arr((2, 3, 4)), "b h w -> b (h w)")
    case("rearrange", arr((6, 4)), "(a b) c -> a b c", a=2)
    case("rearrange", arr((2, 3, 4, 5)), "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=5)
    # ---- core: scatter, slice, unstack
    case("scatter", np.array([[0, 1], [2, 2]], i32), arr((2,)), (3, 3))
    case("scatter", np.array([[1], [1], [0]], i32), arr((3, 2), f64), (2, 2))
    case("scatter", np.array([[1], [3]], "int64"), arr((2,), i32, 0, 9), [4])
    base = arr((3, 4))
    case("scatter_update", base, np.array([[0, 1], [2, 3]], i32), arr((2,)))
    case("scatter_update", base, np.array([[1]], i32), arr((1, 4)))
    for red in ["add", "max", "min", "mul", "ADD"]:
        case("scatter_update", base, np.array([[0, 1], [0, 1], [2, 3]], i32), arr((3,)),
             reduction=red)
    case("scatter_update", np.zeros((2, 2), i32), np.array([[0, 1]], i32), np.array([1.7], f32),
         error=ANY)
    case("scatter_update", base, np.array([[0, 1]], i32), np.array([2.5], f64), error=ANY)
    case("scatter_update", base, np.array([[0, 1]], i32), [7], error=ANY)
    case("scatter_update", base, np.array([[0, 1]], i32), arr((1,)), reduction="avg",
         error="Invalid reduction")
    case("slice", arr((4, 5)), (1, 2), (2, 3))
    case("slice", arr((3, 4, 5), f64), [0, 1, 0], [3, 2, 5])
    case("slice", arr((4, 5)), np.array([2, 0], i32), (2, -1))
    case("slice_update", arr((4, 5)), (1, 2), arr((2, 3)))
    case("slice_update", arr((3, 4), i32, 0, 9), [0, 0], arr((1, 4), i32, 0, 9))
    case("slice_update", arr((4, 5)), (3, 4), arr((2, 3)))
    case("slice_update", np.zeros((3, 3), i32), (0, 1), arr((1, 2), f32, 0, 3))
    case("slice_update", np.zeros((3, 3), i32), (0, 0), [[1.5, 2.5]], error="Cannot convert")
    case("slice_update", arr((3, 3)), (0, 0), arr((4, 2)), error="greater than dynamic slice")
    case("unstack", arr((3, 4)))
    case("unstack", arr((2, 3, 4), f64), axis=1)
    case("unstack", arr((2, 3)), num=3, axis=-1)
    case("stop_gradient", arr((2, 3)))
    case("stop_gradient", [1, 2])
    # ---- core: control flow
    case("cond", True, Fn("const_one"), Fn("const_two"))
    case("cond", np.array(False), Fn("const_one"), Fn("const_two"), error=ANY)
    case("cond", T(np.array(False)), Fn("const_one"), Fn("const_two"))
    case("map", Fn("square"), arr((4, 3)))
    case("map", Fn("sum_rows"), arr((3, 2, 4), f64))
    case("map", Fn("pair"), (arr((4, 2)), arr((4, 2))))
    case("scan", Fn("scan_cumsum"), np.float32(0.5), arr((5,)))
    case("scan", Fn("scan_cumsum"), arr((3,)), arr((4, 3)), reverse=True)
    case("scan", Fn("scan_pair"), (arr((2,)), arr((2,))), arr((4, 2)))
    case("scan", Fn("scan_no_xs"), arr((2,)), None, length=3)
    case("scan", Fn("scan_no_xs"), arr((2,)), error="length")
    case("associative_scan", Fn("add"), arr((6,)))
    case("associative_scan", Fn("mul"), arr((5, 2), f64, 0.5, 1.5), reverse=True)
    case("associative_scan", Fn("max"), arr((3, 7)), axis=1)
    case("associative_scan", Fn("add"), arr((3, 2)), axis=1)
    case("while_loop", Fn("lt_ten"), Fn("step"), (0, np.float32(1.0)))
    case("while_loop", Fn("lt_five"), Fn("inc"), np.float32(0.5))
    case("while_loop", Fn("lt_ten"), Fn("step"), (0, arr((2,))), maximum_iterations=3)
    case("fori_loop", 0, 4, Fn("fori_body"), np.float32(1.0))
    case("fori_loop", 2, 5, Fn("fori_body"), arr((3,)))
    case("switch", 0, [Fn("neg"), Fn("double")], arr((3,)))
    case("switch", 1, [Fn("neg"), Fn("double")], arr((3,)))
    case("switch", 7, [Fn("neg"), Fn("double")], arr((3,)))
    case("switch", -1, [Fn("add3"), Fn("sub3")], arr((2,)), arr((2,)))
    case("vectorized_map", Fn("square"), arr((4, 3)))
    case("vectorized_map", Fn("sum_rows"), arr((3, 2, 4), f64))


class Encoder:
    """Arrays into the npz under fresh keys; everything else into JSON."""

    def __init__(self):
        self.arrays: dict = {}

    def array(self, a: np.ndarray) -> dict:
        key = f"a{len(self.arrays)}"
        self.arrays[key] = a
        return {"nd": key}

    def __call__(self, v: Any) -> Any:
        import tensorflow as tf
        if isinstance(v, Fn):
            return {"fn": v.name}
        if isinstance(v, T):
            return {**self.array(v.a), "tensor": True}
        if isinstance(v, (np.ndarray, np.generic)):
            return self.array(np.asarray(v))
        if tf.is_tensor(v):
            return {**self.array(v.numpy()), "tensor": True}
        if isinstance(v, tuple):
            return {"tuple": [self(x) for x in v]}
        if isinstance(v, list):
            return [self(x) for x in v]
        if isinstance(v, dict):
            return {"dict": {k: self(x) for k, x in v.items()}}
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        raise TypeError(f"cannot record {type(v)}")


def run_case(keras: Any, enc: Encoder, op: str, args: tuple, kwargs: dict, error: Any) -> dict:
    table = fns(keras.ops)

    def real(v: Any) -> Any:
        if isinstance(v, Fn):
            return table[v.name]
        if isinstance(v, T):
            return keras.ops.convert_to_tensor(v.a)
        if isinstance(v, tuple):
            return tuple(real(x) for x in v)
        if isinstance(v, list):
            return [real(x) for x in v]
        return v

    entry = {"op": op, "args": enc(args)["tuple"], "kwargs": enc(kwargs)["dict"]}
    try:
        out = getattr(keras.ops, op)(*real(args), **{k: real(v) for k, v in kwargs.items()})
    except Exception as e:  # noqa: BLE001 - the class is what we record
        if error is None:
            raise RuntimeError(f"{op} {kwargs}") from e
        words = "" if error == ANY else error
        assert words in str(e), (op, error, str(e))
        entry["error"] = [type(e).__name__, words]
        return entry
    if error not in (None, ANY):
        raise AssertionError(f"{op} {kwargs}: expected an error with {error!r}")
    if hasattr(out, "_fields"):   # top_k's namedtuple
        out = tuple(out)
    entry["result"] = enc(out)
    return entry


def signatures(keras: Any) -> dict:
    ops = keras.ops
    nn_names = [n for n in dir(ops.nn) if not n.startswith("_")]
    sub = set(dir(ops.numpy)) | set(dir(ops.nn)) | set(dir(ops.linalg))
    core_names = [n for n in dir(ops) if not n.startswith("_") and n not in sub
                  and not inspect.ismodule(getattr(ops, n))]
    return {"nn": {n: list(inspect.signature(getattr(ops.nn, n)).parameters) for n in nn_names},
            "core": {n: list(inspect.signature(getattr(ops, n)).parameters)
                     for n in core_names}}


def main() -> None:
    import keras
    assert keras.__version__.startswith("3."), keras.__version__
    record_cases()
    enc = Encoder()
    entries = []
    failed = []
    for i, (op, args, kwargs, error) in enumerate(CASES):
        try:
            entry = run_case(keras, enc, op, args, kwargs, error)
        except (RuntimeError, AssertionError) as e:
            failed.append(f"{i} {e!r}: {e.__cause__!r}"[:300])
            continue
        entry["id"] = f"{i:03d}-{op}"
        entries.append(entry)
    if failed:
        raise SystemExit("\n".join(failed))
    meta = {"__cases__": np.array(json.dumps(entries)),
            "__signatures__": np.array(json.dumps(signatures(keras))),
            "__versions__": np.array(json.dumps({"keras": keras.__version__}))}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, **enc.arrays, **meta)
    print(f"{len(entries)} cases, {len(enc.arrays)} arrays -> {OUT}")


if __name__ == "__main__":
    main()
