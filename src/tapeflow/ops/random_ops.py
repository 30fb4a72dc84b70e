"""Random tensors (`tf.random`): set_seed, normal, uniform, truncated_normal, shuffle,
categorical.

Seeds follow TensorFlow's rules (tf.random.set_seed's documentation): the global seed and
the op's `seed=` together pick a stream. TensorFlow's exact numbers cannot be reproduced, so
the streams are NumPy's PCG64 generators, seeded from (global seed, op seed):

- global seed set, no op seed: every call takes the next op seed from a counter that
  set_seed resets, so the same program after the same set_seed draws the same numbers;
- op seed given: the pair names one stream, which advances from call to call (as
  TensorFlow's eager kernels do) and restarts at the next set_seed; without a global seed,
  TensorFlow's default graph seed stands in for it;
- neither: a fresh, unpredictable stream.

Each draw is a non-differentiable primitive with no inputs, so a traced `tf.function` draws
new numbers on every call. `mean`/`stddev`/`minval`/`maxval` tensors get gradients, because
the scaling is ordinary tensor arithmetic after the draw (as in TensorFlow).
"""

from __future__ import annotations

import collections
import threading
from typing import Any, Optional

import numpy as np

from tapeflow.framework.abstract import ShapedArray, dims_text, same_as_input
from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.exports import tf_export
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops._static import reads_static, static_value
from tapeflow.ops.array_ops import _shape_tuple
from tapeflow.ops.math_ops import cast

_DEFAULT_GRAPH_SEED = 87654321  # TensorFlow's, used when only an op seed is given
_MAX_STREAMS = 4096  # generators kept alive; a traced function's few keys stay recent


class _SeedState:
    """The global seed, the op-seed counter and the live generators, behind one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.global_seed: Optional[int] = None
        self.counter = 0
        self.streams: "collections.OrderedDict[tuple, np.random.Generator]" = \
            collections.OrderedDict()
        self.unseeded = np.random.default_rng()

    def key(self, op_seed: Optional[int]) -> Optional[tuple]:
        """The stream key (global seed, op seed) for an op about to be created."""
        with self.lock:
            if self.global_seed is None:
                return None if op_seed is None else (_DEFAULT_GRAPH_SEED, int(op_seed))
            if op_seed is None:
                self.counter += 1
                return (self.global_seed, -self.counter)  # negative: never a user's seed
            return (self.global_seed, int(op_seed))

    def generator(self, key: Optional[tuple]) -> np.random.Generator:
        if key is None:
            return self.unseeded
        with self.lock:
            rng = self.streams.get(key)
            if rng is None:
                rng = np.random.Generator(np.random.PCG64(
                    np.random.SeedSequence([key[0] & 0xFFFFFFFFFFFFFFFF,
                                            key[1] & 0xFFFFFFFFFFFFFFFF])))
                self.streams[key] = rng
                if len(self.streams) > _MAX_STREAMS:
                    self.streams.popitem(last=False)
            else:
                self.streams.move_to_end(key)
            return rng


_STATE = _SeedState()


@tf_export("random.set_seed")
def set_seed(seed: Optional[int]) -> None:
    """Sets the global random seed (None clears it) and restarts every seeded stream."""
    with _STATE.lock:
        _STATE.global_seed = None if seed is None else int(seed)
        _STATE.counter = 0
        _STATE.streams.clear()


def get_global_seed() -> Optional[int]:
    """The global seed set by `set_seed`, or None (used by Keras initializers)."""
    return _STATE.global_seed


# -- kernels: each draws from the stream named by its `key` attr ---------------------------------

def _check_shape(shape: tuple, op_name: str) -> None:
    for d in shape:
        if d < 0:
            raise InvalidArgumentError(f"Dimension {d} must be >= 0 [Op:{op_name}]")


def _normal_kernel(shape: tuple, dtype: np.dtype, key: Optional[tuple]) -> np.ndarray:
    rng = _STATE.generator(key)
    if dtype in (np.float32, np.float64):
        return rng.standard_normal(shape, dtype=dtype)
    return rng.standard_normal(shape).astype(dtype)


def _truncated_normal_kernel(shape: tuple, dtype: np.dtype, key: Optional[tuple]) -> np.ndarray:
    # Redraw every value outside two standard deviations, as TensorFlow's kernel does.
    rng = _STATE.generator(key)
    out = rng.standard_normal(shape)
    bad = np.abs(out) > 2.0
    while np.any(bad):
        out[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2.0
    return out.astype(dtype)


def _uniform_kernel(shape: tuple, dtype: np.dtype, key: Optional[tuple]) -> np.ndarray:
    rng = _STATE.generator(key)
    if dtype in (np.float32, np.float64):
        return rng.random(shape, dtype=dtype)
    return rng.random(shape).astype(dtype)


def _uniform_int_kernel(low: np.ndarray, high: np.ndarray, shape: tuple,
                        key: Optional[tuple]) -> np.ndarray:
    if not low < high:
        raise InvalidArgumentError(f"Need minval < maxval, got {low} >= {high} "
                                   f"[Op:RandomUniformInt]")
    return _STATE.generator(key).integers(low, high, size=shape, dtype=low.dtype)


def _shuffle_kernel(x: np.ndarray, key: Optional[tuple]) -> np.ndarray:
    if x.ndim == 0:
        return x
    return x[_STATE.generator(key).permutation(x.shape[0])]


def _categorical_kernel(logits: np.ndarray, num_samples: int, dtype: np.dtype,
                        key: Optional[tuple]) -> np.ndarray:
    # Inverse-CDF sampling of each row's softmax; -inf logits have probability 0.
    z = logits.astype(np.float64)
    z = np.exp(z - np.max(z, axis=1, keepdims=True))
    cdf = np.cumsum(z, axis=1)
    draws = _STATE.generator(key).random((z.shape[0], num_samples)) * cdf[:, -1:]
    out = np.empty((z.shape[0], num_samples), dtype)
    for row in range(z.shape[0]):
        out[row] = np.searchsorted(cdf[row], draws[row], side="right")
    return np.minimum(out, z.shape[1] - 1)


# -- shape rules: the shape is an attr, so known (dims may be None where it was partly known) --

def _drawn(shape: tuple, dtype: np.dtype, key: Optional[tuple]) -> ShapedArray:
    return ShapedArray(shape, dtype)


def _scalar_bound(bound: ShapedArray, label: str, op_name: str) -> None:
    if bound.shape is not None and len(bound.shape) != 0:
        raise ValueError(f"{label} must be a scalar; got a tensor of shape "
                         f"{dims_text(bound.shape)} for '{op_name}'")


def _uniform_int_shape(low: ShapedArray, high: ShapedArray, shape: tuple,
                       key: Optional[tuple]) -> ShapedArray:
    _scalar_bound(low, "minval", "RandomUniformInt")
    _scalar_bound(high, "maxval", "RandomUniformInt")
    return ShapedArray(shape, low.dtype)


def _categorical_shape(logits: ShapedArray, num_samples: int, dtype: np.dtype,
                       key: Optional[tuple]) -> ShapedArray:
    if logits.shape is not None and len(logits.shape) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(logits.shape)} for "
                         f"'Multinomial' with input shapes: {dims_text(logits.shape)}")
    batch = None if logits.shape is None else logits.shape[0]
    return ShapedArray((batch, num_samples), dtype)


# Draws: no gradient, and a fresh result on every run (compiled graphs must not cache them).
_DRAW = {"differentiable": False, "stateful": True}
_normal = Primitive("RandomStandardNormal", _normal_kernel, shape_rule=_drawn, **_DRAW)
_truncated = Primitive("TruncatedNormal", _truncated_normal_kernel, shape_rule=_drawn, **_DRAW)
_uniform = Primitive("RandomUniform", _uniform_kernel, shape_rule=_drawn, **_DRAW)
_uniform_int = Primitive("RandomUniformInt", _uniform_int_kernel, shape_rule=_uniform_int_shape,
                         **_DRAW)
_shuffle = Primitive("RandomShuffle", _shuffle_kernel, shape_rule=same_as_input, **_DRAW)
_categorical = Primitive("Multinomial", _categorical_kernel, shape_rule=_categorical_shape,
                         **_DRAW)


# -- public ops ----------------------------------------------------------------------------------

_FLOATS = ("float16", "float32", "float64")


def _float_dtype(dtype: Any, op_name: str) -> _dtypes.DType:
    dtype = _dtypes.as_dtype(dtype)
    if dtype.name not in _FLOATS:
        raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {dtype.name}")
    return dtype


def _scaled(draw: Tensor, scale: Any, shift: Any, dtype: _dtypes.DType) -> Tensor:
    """draw * scale + shift, through ops: traced by tf.function, and tensor bounds receive
    gradients. Python 1 and 0 skip their op."""
    if isinstance(scale, TensorLike) or scale != 1:
        draw = draw * _operand(scale, dtype, "stddev")
    if isinstance(shift, TensorLike) or shift != 0:
        draw = draw + _operand(shift, dtype, "mean")
    return draw


def _operand(value: Any, dtype: _dtypes.DType, label: str) -> Tensor:
    t = convert_to_tensor(value, dtype_hint=dtype)
    if t.dtype != dtype:
        raise ValueError(f"{label}: Tensor conversion requested dtype {dtype.name} for Tensor "
                         f"with dtype {t.dtype.name}: {t!r}")
    return t


@tf_export("random.normal")
@reads_static
def normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = _dtypes.float32,
           seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """Samples from a normal distribution with `mean` and `stddev`."""
    dtype = _float_dtype(dtype, "RandomStandardNormal")
    shape = static_value(shape, "RandomStandardNormal: shape", _shape_tuple)
    _check_shape(shape, "RandomStandardNormal")
    draw = bind(_normal, (), {"shape": shape, "dtype": dtype._np, "key": _STATE.key(seed)})
    return _scaled(draw, stddev, mean, dtype)


@tf_export("random.truncated_normal")
@reads_static
def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
                     dtype: Any = _dtypes.float32, seed: Optional[int] = None,
                     name: Optional[str] = None) -> Tensor:
    """Samples from a normal distribution, redrawing values more than two standard
    deviations from the mean."""
    dtype = _float_dtype(dtype, "TruncatedNormal")
    shape = static_value(shape, "TruncatedNormal: shape", _shape_tuple)
    _check_shape(shape, "TruncatedNormal")
    draw = bind(_truncated, (), {"shape": shape, "dtype": dtype._np, "key": _STATE.key(seed)})
    return _scaled(draw, stddev, mean, dtype)


_UNIFORM_TYPES = ("float16", "float32", "float64", "int32", "int64")


@tf_export("random.uniform")
@reads_static
def uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = _dtypes.float32,
            seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """Samples uniformly from [minval, maxval) (default [0, 1) for floats; integer dtypes
    need `maxval`)."""
    dtype = _dtypes.as_dtype(dtype)
    if dtype.name not in _UNIFORM_TYPES:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"(tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int32, "
                         f"tf.int64).")
    shape = static_value(shape, "RandomUniform: shape", _shape_tuple)
    key = _STATE.key(seed)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        low, high = _operand(minval, dtype, "min"), _operand(maxval, dtype, "max")
        _check_shape(shape, "RandomUniformInt")
        return bind(_uniform_int, (low, high), {"shape": shape, "key": key})
    _check_shape(shape, "RandomUniform")
    maxval = 1 if maxval is None else maxval
    draw = bind(_uniform, (), {"shape": shape, "dtype": dtype._np, "key": key})
    if isinstance(minval, TensorLike) or isinstance(maxval, TensorLike):
        low, high = _operand(minval, dtype, "min"), _operand(maxval, dtype, "max")
        return draw * (high - low) + low
    return _scaled(draw, maxval - minval, minval, dtype)


@tf_export("random.shuffle")
def shuffle(value: Any, seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """`value` with its first dimension randomly permuted."""
    x = convert_to_tensor(value)
    return bind(_shuffle, (x,), {"key": _STATE.key(seed)})


@tf_export("random.categorical")
@reads_static
def categorical(logits: Any, num_samples: int, dtype: Any = None, seed: Optional[int] = None,
                name: Optional[str] = None) -> Tensor:
    """For each row of `logits` ([batch, classes], unnormalized log-probabilities),
    `num_samples` class indices drawn from its softmax: a [batch, num_samples] tensor."""
    x = convert_to_tensor(logits)
    if x._value.ndim != 2:
        raise InvalidArgumentError(f"logits should be a matrix, got shape "
                                   f"[{','.join(map(str, x._value.shape))}] [Op:Multinomial]")
    if x._value.dtype.kind != "f":
        x = cast(x, _dtypes.float32)
    num = static_value(num_samples, "Multinomial: num_samples", int)
    if num < 0:
        raise InvalidArgumentError(f"num_samples should be nonnegative, got {num} "
                                   f"[Op:Multinomial]")
    out_type = _dtypes.int64 if dtype is None else _dtypes.as_dtype(dtype)
    return bind(_categorical, (x,), {"num_samples": num, "dtype": out_type._np,
                                     "key": _STATE.key(seed)})
