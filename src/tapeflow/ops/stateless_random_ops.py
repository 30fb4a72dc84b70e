"""Stateless random ops (`tf.random.stateless_uniform`, `stateless_normal`,
`stateless_truncated_normal`): the numbers are a function of the seed alone, and are
TensorFlow's numbers for the same seed.

As TensorFlow's (v2) kernels: the seed pair becomes a Philox key and counter
(`StatelessRandomGetKeyCounter`, which scrambles the seed with one Philox draw), and the fill
from that key and counter is `philox.py`'s. Both steps are ops taking tensors, so a traced seed
is read when the graph runs.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.convert import cpp_name
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor
from tapeflow.ops import philox
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops._static import reads_static, static_value
from tapeflow.ops.random_ops import (_check_multinomial, _multinomial, _scaled,
                                     categorical_dtype, categorical_logits, drawn_count,
                                     drawn_shape, multinomial_shape, run_time_count,
                                     shape_operand)

_MASK64 = (1 << 64) - 1
# TensorFlow scrambles a stateless seed with one Philox draw under this fixed key.
_SEED_SCRAMBLING_KEY = (0x3EC8F720, 0x02461E29)


def _key_counter_impl(seed: np.ndarray) -> tuple:
    if seed.shape != (2,):
        raise InvalidArgumentError(f"seed must have shape [2], not {list(seed.shape)} "
                                   f"[Op:StatelessRandomGetKeyCounter]")
    s0, s1 = (int(v) & _MASK64 for v in seed)   # int32 seeds sign-extend, as TF's cast
    words = (s0 & 0xFFFFFFFF, s0 >> 32, s1 & 0xFFFFFFFF, s1 >> 32)
    mix = [int(w) for w in philox.draws(_SEED_SCRAMBLING_KEY, words, 1)[0]]
    key = np.array([mix[0] | (mix[1] << 32)], np.uint64)
    counter = np.array([0, mix[2] | (mix[3] << 32)], np.uint64)
    return key, counter


_GET_KEY_COUNTER = Primitive(
    "StatelessRandomGetKeyCounter", _key_counter_impl, multiple_results=True,
    differentiable=False,
    shape_rule=lambda seed: (ShapedArray((1,), np.uint64), ShapedArray((2,), np.uint64)))


def _words(key: np.ndarray, counter: np.ndarray) -> tuple:
    """A (key, counter) pair of uint64 tensors as Philox's 32-bit words."""
    k, c0, c1 = int(key[0]), int(counter[0]), int(counter[1])
    return (k & 0xFFFFFFFF, k >> 32), (c0 & 0xFFFFFFFF, c0 >> 32, c1 & 0xFFFFFFFF, c1 >> 32)


def _uniform_impl(key: np.ndarray, counter: np.ndarray, *dims: np.ndarray, shape: tuple,
                  dtype: np.dtype) -> np.ndarray:
    shape = drawn_shape(dims, shape, "StatelessRandomUniformV2")
    size = int(np.prod(shape, dtype=np.int64))
    return philox.uniform(*_words(key, counter), size, dtype).reshape(shape)


def _normal_impl(key: np.ndarray, counter: np.ndarray, *dims: np.ndarray, shape: tuple,
                 dtype: np.dtype) -> np.ndarray:
    shape = drawn_shape(dims, shape, "StatelessRandomNormalV2")
    size = int(np.prod(shape, dtype=np.int64))
    return philox.normal(*_words(key, counter), size, dtype).reshape(shape)


def _truncated_normal_impl(key: np.ndarray, counter: np.ndarray, *dims: np.ndarray,
                           shape: tuple, dtype: np.dtype) -> np.ndarray:
    shape = drawn_shape(dims, shape, "StatelessTruncatedNormalV2")
    size = int(np.prod(shape, dtype=np.int64))
    return philox.truncated_normal(*_words(key, counter), size, dtype).reshape(shape)


def _uniform_int_impl(key: np.ndarray, counter: np.ndarray, minval: np.ndarray,
                      maxval: np.ndarray, *dims: np.ndarray, shape: tuple,
                      dtype: np.dtype) -> np.ndarray:
    shape = drawn_shape(dims, shape, "StatelessRandomUniformIntV2")
    lo, hi = int(minval), int(maxval)
    if lo >= hi:
        raise InvalidArgumentError(f"Need minval < maxval, got {lo} >= {hi} "
                                   f"[Op:StatelessRandomUniformIntV2]")
    size = int(np.prod(shape, dtype=np.int64))
    return philox.uniform_int(*_words(key, counter), size, lo, hi, dtype).reshape(shape)


def _full_int_impl(key: np.ndarray, counter: np.ndarray, *dims: np.ndarray, shape: tuple,
                   dtype: np.dtype) -> np.ndarray:
    shape = drawn_shape(dims, shape, "StatelessRandomUniformFullIntV2")
    size = int(np.prod(shape, dtype=np.int64))
    return philox.full_range_int(*_words(key, counter), size, dtype).reshape(shape)


def _drawn(*inputs: ShapedArray, shape: Optional[tuple], dtype: np.dtype) -> ShapedArray:
    # `shape`: None dims (or None) where a run-time dims input, the last, decides them
    return ShapedArray(shape, dtype)


def _draw_prim(name: str, impl: Any) -> Primitive:
    return Primitive(name, impl, differentiable=False, shape_rule=_drawn)


_UNIFORM = _draw_prim("StatelessRandomUniformV2", _uniform_impl)
_NORMAL = _draw_prim("StatelessRandomNormalV2", _normal_impl)
_TRUNCATED = _draw_prim("StatelessTruncatedNormalV2", _truncated_normal_impl)
_UNIFORM_INT = _draw_prim("StatelessRandomUniformIntV2", _uniform_int_impl)
_FULL_INT = _draw_prim("StatelessRandomUniformFullIntV2", _full_int_impl)


# -- public ops ----------------------------------------------------------------------------------

def _key_counter(seed: Any) -> tuple:
    seed = convert_to_tensor(seed)
    if seed.dtype not in (_dtypes.int32, _dtypes.int64):
        raise InvalidArgumentError(
            f"Value for attr 'Tseed' of {cpp_name(seed.dtype)} is not in the list of allowed "
            f"values: int32, int64\n\t; NodeDef: {{{{node StatelessRandomGetKeyCounter}}}}; "
            f"Op<name=StatelessRandomGetKeyCounter; signature=seed:Tseed -> key:uint64, "
            f"counter:uint64; attr=Tseed:type,default=DT_INT64,allowed=[DT_INT32, DT_INT64]> "
            f"[Op:StatelessRandomGetKeyCounter]")
    return bind(_GET_KEY_COUNTER, (seed,))


PHILOX, THREEFRY, AUTO_SELECT = 1, 2, 3
_ALGORITHMS = {"philox": PHILOX, "threefry": THREEFRY, "auto_select": AUTO_SELECT}


def algorithm_id(alg: Any) -> int:
    """The id of a random algorithm given by name, enum or id (None: Philox), with TF's
    error for an unknown name."""
    name = getattr(alg, "name", alg)
    if name is None:
        return PHILOX
    if isinstance(name, str):
        if name.lower() not in _ALGORITHMS:
            raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values "
                             f"are philox for the Philox algorithm, threefry for the ThreeFry "
                             f"algorithm, and auto_select for auto-selection.")
        return _ALGORITHMS[name.lower()]
    return int(name)


def _check_alg(alg: Any, op_name: str) -> None:
    """The stateless kernels take Philox (auto-select is Philox on CPU); ThreeFry's key and
    counter do not fit them, and TF's CPU kernel says so."""
    if algorithm_id(alg) == THREEFRY:
        raise InvalidArgumentError(f"counter must be a vector with length at least 2; got "
                                   f"shape: [1]. (Note that batched counters are not "
                                   f"supported yet.) [Op:{op_name}]")


_UNIFORM_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "uint32",
                   "uint64")


@tf_export("random.stateless_uniform")
@reads_static
def stateless_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None,
                      dtype: Any = _dtypes.float32, name: Optional[str] = None,
                      alg: Any = "auto_select") -> Tensor:
    """Uniform numbers in [minval, maxval) that depend only on `seed` (a pair of integers):
    TensorFlow's numbers for the same seed, shape and dtype."""
    dtype = _dtypes.as_dtype(dtype)
    if dtype.name not in _UNIFORM_DTYPES:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"(tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int32, "
                         f"tf.int64, tf.uint32, tf.uint64).")
    _check_alg(alg, "StatelessRandomUniformV2")
    dims, shape = shape_operand(shape, "StatelessRandomUniformV2", check=False)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype}, argument `minval` and "
                             f"`maxval` must be both None or not None. Got `minval`={minval} "
                             f"and `maxval`={maxval}.")
        key, counter = _key_counter(seed)
        attrs = {"shape": shape, "dtype": dtype._np}
        if minval is None:
            return bind(_FULL_INT, (key, counter, *dims), attrs)
        lo, hi = (convert_to_tensor(v, dtype=dtype) for v in (minval, maxval))
        return bind(_UNIFORM_INT, (key, counter, lo, hi, *dims), attrs)
    maxval = 1 if maxval is None else maxval
    key, counter = _key_counter(seed)
    draw = bind(_UNIFORM, (key, counter, *dims), {"shape": shape, "dtype": dtype._np})
    lo, hi = (convert_to_tensor(v, dtype=dtype) for v in (minval, maxval))
    return draw * (hi - lo) + lo


def _normal_draw(prim: Primitive, shape: Any, seed: Any, mean: Any, stddev: Any, dtype: Any,
                 alg: Any) -> Tensor:
    dtype = _dtypes.as_dtype(dtype)
    dims, shape = shape_operand(shape, prim.name, check=False)
    if not dtype.is_floating:
        raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {dtype.name}")
    _check_alg(alg, prim.name)
    key, counter = _key_counter(seed)
    draw = bind(prim, (key, counter, *dims), {"shape": shape, "dtype": dtype._np})
    return _scaled(draw, stddev, mean, dtype)


@tf_export("random.stateless_normal")
@reads_static
def stateless_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                     dtype: Any = _dtypes.float32, name: Optional[str] = None,
                     alg: Any = "auto_select") -> Tensor:
    """Normal numbers of `mean` and `stddev` that depend only on `seed` (a pair of integers):
    TensorFlow's numbers for the same seed, shape and dtype."""
    return _normal_draw(_NORMAL, shape, seed, mean, stddev, dtype, alg)


@tf_export("random.stateless_truncated_normal")
@reads_static
def stateless_truncated_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                               dtype: Any = _dtypes.float32, name: Optional[str] = None,
                               alg: Any = "auto_select") -> Tensor:
    """Normal numbers within two standard deviations of `mean`, depending only on `seed`:
    TensorFlow's numbers for the same seed, shape and dtype."""
    return _normal_draw(_TRUNCATED, shape, seed, mean, stddev, dtype, alg)



@tf_export("random.split", "random.experimental.stateless_split")
def stateless_split(seed: Any, num: int = 2, alg: Any = "auto_select") -> Tensor:
    """`num` new seed pairs from `seed` (a [num, 2] tensor of its dtype), as TensorFlow: a
    full-range integer draw."""
    seed = convert_to_tensor(seed)
    return stateless_uniform([num, 2], seed=seed, dtype=seed.dtype, minval=None, maxval=None,
                             alg=alg)


@tf_export("random.fold_in", "random.experimental.stateless_fold_in")
def stateless_fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> Tensor:
    """A new seed pair from `seed` and an integer `data` (a step, a replica id): a
    full-range draw from `seed`, then `data`."""
    from tapeflow.ops.array_ops import stack
    data = convert_to_tensor(data)
    first = stateless_uniform([], seed=seed, dtype=data.dtype, minval=None, maxval=None,
                              alg=alg)
    return stack([first, data])


# -- categorical -----------------------------------------------------------------------------------

def _stateless_categorical_impl(logits: np.ndarray, seed: np.ndarray, *count: np.ndarray,
                                num_samples: Optional[int], dtype: np.dtype) -> np.ndarray:
    num_samples = drawn_count(count, num_samples)
    _check_multinomial(logits, num_samples, "StatelessMultinomial")
    if seed.shape != (2,):
        raise InvalidArgumentError(f"seed must have shape [2], not "
                                   f"[{','.join(map(str, seed.shape))}] [Op:StatelessMultinomial]")
    return _multinomial(logits, num_samples, dtype, *_words(*_key_counter_impl(seed)))


def _stateless_categorical_shape(logits: ShapedArray, seed: ShapedArray, *count: ShapedArray,
                                 num_samples: Optional[int], dtype: np.dtype) -> ShapedArray:
    return multinomial_shape(logits, num_samples, dtype, "StatelessMultinomial")


_CATEGORICAL = Primitive("StatelessMultinomial", _stateless_categorical_impl,
                         differentiable=False, shape_rule=_stateless_categorical_shape)


@tf_export("random.stateless_categorical")
@reads_static
def stateless_categorical(logits: Any, num_samples: Any, seed: Any, dtype: Any = _dtypes.int64,
                          name: Optional[str] = None) -> Tensor:
    """For each row of `logits` ([batch, classes]), `num_samples` class indices drawn from its
    softmax, depending only on `seed` (a pair of int32 or int64): TensorFlow's samples for
    the same seed and intra-op thread count (see `tf.random.categorical`)."""
    out_type = categorical_dtype(dtype)
    x, seed = convert_to_tensor(logits), convert_to_tensor(seed)
    if seed.dtype not in (_dtypes.int32, _dtypes.int64):
        raise InvalidArgumentError(
            f"Value for attr 'Tseed' of {cpp_name(seed.dtype)} is not in the list of allowed "
            f"values: int32, int64\n\t; NodeDef: {{{{node StatelessMultinomial}}}}; "
            f"Op<name=StatelessMultinomial; signature=logits:T, num_samples:int32, seed:Tseed "
            f"-> output:output_dtype; attr=T:type,allowed=[DT_FLOAT, DT_DOUBLE, DT_INT32, "
            f"DT_UINT8, DT_INT16, DT_INT8, DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF, "
            f"DT_UINT32, DT_UINT64]; attr=Tseed:type,default=DT_INT64,allowed=[DT_INT32, "
            f"DT_INT64]; attr=output_dtype:type,default=DT_INT64,allowed=[DT_INT32, DT_INT64]> "
            f"[Op:StatelessMultinomial]")
    categorical_logits(x, "StatelessMultinomial", f"Tseed=DT_{seed.dtype.name.upper()}, "
                       f"output_dtype=DT_{out_type.name.upper()}",
                       "Tseed in [DT_INT32]; T in [DT_FLOAT, DT_DOUBLE, DT_BFLOAT16]")
    count = run_time_count(num_samples)
    num = None if count else static_value(num_samples, "StatelessMultinomial: num_samples", int)
    return bind(_CATEGORICAL, (x, seed, *count), {"num_samples": num, "dtype": out_type._np})


# -- index_shuffle ---------------------------------------------------------------------------------
# TensorFlow's RandomIndexShuffle: a Simon-like Feistel cipher on blocks of at least 16 bits
# (the bits max_index needs, made even), walked until the value is within [0, max_index]: a
# bijection of that range for each 3-word key.

_SEED_PAD = 498247692   # tf.random.experimental.index_shuffle's first key word
_SIMON_Z = 0x7369F885192C0EF5
_INDEX_TYPES = ("int32", "uint32", "int64", "uint64")


def _simon_shuffle(values: np.ndarray, keys: np.ndarray, top: np.ndarray, width: int,
                   rounds: int) -> np.ndarray:
    """TensorFlow's `impl::index_shuffle<2 * width>`, elementwise: uint64 `values`, (n, 3)
    uint32 `keys`, uint64 bounds `top`."""
    mask, w = np.uint64((1 << width) - 1), np.uint64(width)

    def rotl(x: np.ndarray, r: int) -> np.ndarray:
        return ((x << np.uint64(r)) | (x >> (w - np.uint64(r)))) & mask

    def rotr(x: np.ndarray, r: int) -> np.ndarray:
        return rotl(x, width - r)

    def f(x: np.ndarray) -> np.ndarray:
        return (rotl(x, 1) & rotl(x, 8)) ^ rotl(x, 2)

    round_keys = [keys[:, i].astype(np.uint64) & mask for i in range(3)]
    c, z = np.uint64(0xFFFFFFFC) & mask, _SIMON_Z & int(mask)
    for i in range(3, rounds):
        round_keys.append(c ^ np.uint64((z >> (i - 3)) & 1) ^ round_keys[i - 3] ^
                          rotr(round_keys[i - 1], 3) ^ rotr(round_keys[i - 1], 4))
    out = values.copy()
    pending = np.arange(len(values))
    while pending.size:   # cycle walking: encrypt again until within [0, max_index]
        left, right = (out[pending] >> w) & mask, out[pending] & mask
        for k1, k2 in zip(round_keys[0::2], round_keys[1::2]):
            left ^= f(right) ^ k1[pending]
            right ^= f(left) ^ k2[pending]
        out[pending] = (left << w) | right
        pending = pending[out[pending] > top[pending]]
    return out


def _index_shuffle_impl(index: np.ndarray, seed: np.ndarray, max_index: np.ndarray,
                        rounds: int) -> np.ndarray:
    n = max(index.size, max_index.size, seed.size // 3)
    if not (index.ndim == 0 or (index.ndim == 1 and index.shape[0] == n)):
        raise InvalidArgumentError("Index bust be a scalar or vector. [Op:RandomIndexShuffle]")
    if not (seed.shape == (3,) or seed.shape == (n, 3)):
        raise InvalidArgumentError(f"Seed must be a vector of size [3] or a matrix of size "
                                   f"[{n}, 3] but got [{','.join(map(str, seed.shape))}]. "
                                   f"[Op:RandomIndexShuffle]")
    if not (max_index.ndim == 0 or (max_index.ndim == 1 and max_index.shape[0] == n)):
        raise InvalidArgumentError(f"Maxval must be a scalar or a vector of the same size as "
                                   f"index but got [{','.join(map(str, max_index.shape))}] "
                                   f"[Op:RandomIndexShuffle]")
    values = np.broadcast_to(index.astype(np.uint64), (n,))    # static_cast<uint64_t>
    top = np.broadcast_to(max_index.astype(np.uint64), (n,))
    keys = np.broadcast_to(seed.reshape(-1, 3).astype(np.uint32), (n, 3))
    out = np.zeros(n, np.uint64)                               # max_index 0 gives 0
    # The block: ceil(log2(max_index)) bits (libm's log2 of the double), even, at least 16.
    tops, which = np.unique(top, return_inverse=True)
    bits = [math.ceil(math.log2(float(t))) if t else 0 for t in tops.tolist()]
    width = np.array([max(b + b % 2, 16) // 2 for b in bits], np.int64)[which.reshape(-1)]
    for w in np.unique(width):
        rows = np.nonzero((width == w) & (top != 0))[0]
        out[rows] = _simon_shuffle(values[rows], keys[rows], top[rows], int(w), rounds)
    out = out.astype(index.dtype)
    return out.reshape(()) if index.ndim == 0 and seed.ndim == 1 and max_index.ndim == 0 \
        else out


def _index_shuffle_shape(index: ShapedArray, seed: ShapedArray, max_index: ShapedArray,
                         rounds: int) -> ShapedArray:
    scalar = index.shape == () and max_index.shape == () and \
        (seed.shape is not None and len(seed.shape) == 1)
    return ShapedArray(() if scalar else (None,), index.dtype)


_INDEX_SHUFFLE = Primitive("RandomIndexShuffle", _index_shuffle_impl, differentiable=False,
                           shape_rule=_index_shuffle_shape)


def _attr_error(attr: str, dtype: _dtypes.DType) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"Value for attr '{attr}' of {cpp_name(dtype)} is not in the list of allowed values: "
        f"int32, uint32, int64, uint64\n\t; NodeDef: {{{{node RandomIndexShuffle}}}}; "
        f"Op<name=RandomIndexShuffle; signature=index:dtype, seed:Tseed, max_index:dtype -> "
        f"output:dtype; attr=rounds:int,default=4; attr=dtype:type,allowed=[DT_INT32, "
        f"DT_UINT32, DT_INT64, DT_UINT64]; attr=Tseed:type,allowed=[DT_INT32, DT_UINT32, "
        f"DT_INT64, DT_UINT64]> [Op:RandomIndexShuffle]")


@tf_export("random.experimental.index_shuffle")
def index_shuffle(index: Any, seed: Any, max_index: Any) -> Tensor:
    """The position of `index` in a pseudorandom permutation of [0, max_index] fixed by
    `seed` (a pair of integers, or one pair per index): TensorFlow's values. Scalars and
    vectors of int32, uint32, int64 or uint64; `max_index` has `index`'s dtype."""
    from tapeflow.ops.manip_ops import pad
    index, seed = convert_to_tensor(index), convert_to_tensor(seed)
    max_index = convert_to_tensor(max_index, dtype_hint=index.dtype)
    if index.dtype.name not in _INDEX_TYPES:
        raise _attr_error("dtype", index.dtype)
    if seed.dtype.name not in _INDEX_TYPES:
        raise _attr_error("Tseed", seed.dtype)
    if max_index.dtype != index.dtype:
        raise InvalidArgumentError(
            f"cannot compute RandomIndexShuffle as input #2(zero-based) was expected to be a "
            f"{index.dtype.name} tensor but is a {max_index.dtype.name} tensor "
            f"[Op:RandomIndexShuffle]")
    # As TensorFlow: the raw op takes 3 key words, so the seed's first axis gains one.
    paddings = [[1, 0]] + [[0, 0]] * (len(seed.shape) - 1)
    seed = pad(seed, paddings, constant_values=_SEED_PAD)
    return bind(_INDEX_SHUFFLE, (index, seed, max_index), {"rounds": 4})
