"""`keras.random`: Keras 3's random functions on TensorFlow, drawing what Keras draws there
(stateless TensorFlow ops on seed pairs; see `backend`'s randomness section)."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow import random as tf_random
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend
from tapeflow.keras.backend import SeedGenerator
from tapeflow.ops import array_ops, manip_ops, math_ops


def _dtype(dtype: Any) -> Any:
    return dtype or backend.floatx()


def _shape(shape: Any) -> Any:
    """A shape argument as the TF ops take it: a list or tuple (whose items may be scalar
    tensors) as a tuple, a shape tensor as it is (traced, it is read when the graph runs)."""
    return shape if isinstance(shape, TensorLike) else tuple(shape)


def normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None,
           seed: Any = None) -> Any:
    """Normal numbers of `mean` and `stddev` (`seed`: an int, a SeedGenerator or None)."""
    return backend.random_normal(_shape(shape), mean, stddev, _dtype(dtype), seed)


def uniform(shape: Any, minval: float = 0.0, maxval: float = 1.0, dtype: Any = None,
            seed: Any = None) -> Any:
    """Uniform numbers in [minval, maxval) (a float `dtype`)."""
    if dtype and not backend.is_float_dtype(dtype):
        raise ValueError("`keras.random.uniform` requires a floating point `dtype`. "
                         f"Received: dtype={dtype} ")
    return backend.random_uniform(_shape(shape), minval, maxval, _dtype(dtype), seed)


def truncated_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None,
                     seed: Any = None) -> Any:
    """Normal numbers within two standard deviations of `mean`."""
    return backend.truncated_normal(_shape(shape), mean, stddev, _dtype(dtype), seed)


def dropout(inputs: Any, rate: float, noise_shape: Optional[Any] = None,
            seed: Any = None) -> Any:
    """`inputs` with each element zeroed with probability `rate`, the rest scaled up."""
    return backend.dropout(inputs, rate, noise_shape, seed)


def categorical(logits: Any, num_samples: int, dtype: Any = "int32", seed: Any = None) -> Any:
    """`num_samples` class indices per row of the 2-D `logits` (unnormalized log
    probabilities)."""
    if convert_to_tensor(logits).shape.rank != 2:
        raise ValueError("`logits` should be a 2-D tensor with shape [batch_size, num_classes]. "
                         f"Received: logits={logits}")
    out = tf_random.stateless_categorical(convert_to_tensor(logits), num_samples,
                                             seed=backend.draw_seed(seed))
    return math_ops.cast(out, dtype)


def randint(shape: Any, minval: Any, maxval: Any, dtype: Any = "int32",
            seed: Any = None) -> Any:
    """Uniform integers in [minval, maxval) (an integer `dtype`)."""
    if dtype and not backend.is_int_dtype(dtype):
        raise ValueError("`keras.random.randint` requires an integer `dtype`. "
                         f"Received: dtype={dtype} ")
    drawn = "int64" if backend.standardize_dtype(dtype) not in ("int32", "int64") else dtype
    out = tf_random.stateless_uniform(_shape(shape), seed=backend.draw_seed(seed),
                                         minval=minval, maxval=maxval, dtype=drawn)
    return math_ops.cast(out, dtype)


def shuffle(x: Any, axis: int = 0, seed: Any = None) -> Any:
    """`x` with its slices along `axis` in a random order."""
    x = convert_to_tensor(x)
    keys = tf_random.stateless_uniform([array_ops.shape(x)[axis]],
                                          seed=backend.draw_seed(seed))
    return array_ops.gather(x, manip_ops.argsort(keys), axis=axis)


def _drawn_dtype(dtype: Any) -> str:
    """TF's gamma and binomial have no bfloat16: they draw float32, cast after (as Keras)."""
    return "float32" if backend.standardize_dtype(dtype) == "bfloat16" else dtype


def gamma(shape: Any, alpha: Any, dtype: Any = None, seed: Any = None) -> Any:
    """Gamma(alpha, 1) numbers."""
    dtype = _dtype(dtype)
    out = tf_random.stateless_gamma(_shape(shape), seed=backend.draw_seed(seed),
                                       alpha=alpha, dtype=_drawn_dtype(dtype))
    return math_ops.cast(out, dtype)


def binomial(shape: Any, counts: Any, probabilities: Any, dtype: Any = None,
             seed: Any = None) -> Any:
    """Binomial(counts, probabilities) numbers, in a float `dtype` by default."""
    dtype = _dtype(dtype)
    out = tf_random.stateless_binomial(_shape(shape), seed=backend.draw_seed(seed),
                                          counts=counts, probs=probabilities,
                                          output_dtype=_drawn_dtype(dtype))
    return math_ops.cast(out, dtype)


def beta(shape: Any, alpha: Any, beta: Any, dtype: Any = None, seed: Any = None) -> Any:
    """Beta(alpha, beta) numbers, as Keras on TF draws them: X / (X + Y) for gammas X (the
    drawn seed) and Y (that seed + 12)."""
    dtype = _dtype(dtype)
    drawn = _drawn_dtype(dtype)
    seed_1 = backend.draw_seed(seed)
    seed_2 = seed_1 + 12
    shape = _shape(shape)
    alpha = array_ops.broadcast_to(convert_to_tensor(alpha, dtype=drawn), shape)
    beta = array_ops.broadcast_to(convert_to_tensor(beta, dtype=drawn), shape)
    gamma_a = math_ops.cast(tf_random.stateless_gamma(shape, seed=seed_1, alpha=alpha,
                                                         dtype=drawn), dtype)
    gamma_b = math_ops.cast(tf_random.stateless_gamma(shape, seed=seed_2, alpha=beta,
                                                         dtype=drawn), dtype)
    return gamma_a / (gamma_a + gamma_b)


__all__ = ["SeedGenerator", "beta", "binomial", "categorical", "dropout", "gamma", "normal",
           "randint", "shuffle", "truncated_normal", "uniform"]
