"""`tf.random.Generator`: a random stream held in a variable, drawing TensorFlow's numbers.

As TensorFlow's Philox generator: the state is an int64 variable [counter low, counter high,
key]; each draw reads it and moves the counter on by 256 per output (TensorFlow's
`RngReadAndSkip`), then fills from the (key, counter) it read with the stateless v2 kernels
(`stateless_random_ops`). The state is an ordinary variable, so draws inside `tf.function`
move it too, and it is saved and restored with the generator's other variables.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.errors import UnimplementedError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.variables import Variable
from tapeflow.ops import philox, stateless_random_ops as _stateless
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops._static import static_value
from tapeflow.ops.array_ops import _shape_tuple
from tapeflow.ops.random_ops import _scaled, drawn_shape, run_time_shape

_STATE_SIZE = 3            # Philox: two counter words and the key
_THREEFRY_STATE_SIZE = 2   # ThreeFry: a counter word and the key


def _state_size(alg: int) -> int:
    return _THREEFRY_STATE_SIZE if alg == _stateless.THREEFRY else _STATE_SIZE
_MASK64 = (1 << 64) - 1


def _as_int64(word: int) -> int:
    word &= _MASK64
    return word - (1 << 64) if word >= 1 << 63 else word


def _read_and_skip_impl(state: np.ndarray, delta: np.ndarray, fill: Optional[str] = None,
                        outputs: Optional[Callable] = None) -> tuple:
    """The state's key and counter (as the stateless kernels take them), and the state with
    its 128-bit counter moved on by 256 draws per output. `delta` is the outputs, or, for a
    `fill` op, the shape it fills (known only when the graph runs), checked first so that a
    bad shape leaves the state alone; `outputs(shape)` the outputs such a fill moves the
    state by (default: its size)."""
    if fill is not None:
        shape = drawn_shape((delta,), None, fill)
        delta = np.prod(shape, dtype=np.int64) if outputs is None else outputs(shape)
    words = state.astype(np.int64).view(np.uint64)
    key = np.array([words[2]], np.uint64)
    counter = np.array(words[:2], np.uint64)
    low, high = int(words[0]), int(words[1])
    moved = ((high << 64) | low) + int(delta) * philox.RESERVED_WORDS_PER_OUTPUT
    new_state = np.array([_as_int64(moved), _as_int64(moved >> 64), _as_int64(int(words[2]))],
                         np.int64)
    return key, counter, new_state


_READ_AND_SKIP = Primitive(
    "RngReadAndSkip", _read_and_skip_impl, multiple_results=True, differentiable=False,
    shape_rule=lambda state, delta, fill=None, outputs=None: (ShapedArray((1,), np.uint64),
                                     ShapedArray((2,), np.uint64),
                                     ShapedArray((_STATE_SIZE,), np.int64)))


def _seed_state(seed: Any, size: int = _STATE_SIZE) -> np.ndarray:
    """A state of `size` words from a seed (TensorFlow's create_rng_state): an int in 64-bit
    words, lowest first; a vector cut to `size`, a shorter one padded with zeros in front."""
    if isinstance(seed, (int, np.integer)):
        value = int(seed)
        words = [(value >> (64 * i)) & _MASK64 for i in range(size)]
    else:
        words = [int(w) for w in np.asarray(seed).reshape(-1)][:size]
        words = [0] * (size - len(words)) + words
    return np.array([_as_int64(w) for w in words], np.int64)


@tf_export("random.create_rng_state", "random.experimental.create_rng_state")
def create_rng_state(seed: Any, alg: Any) -> Tensor:
    """The generator state a seed gives (an int64 vector of 3 for Philox, 2 for ThreeFry)."""
    return convert_to_tensor(_seed_state(seed, _state_size(_stateless.algorithm_id(alg))))


@tf_export("random.Generator", "random.experimental.Generator")
class Generator:
    """A random-number generator whose state is a variable (`tf.random.Generator`): the same
    seed gives TensorFlow's numbers, call after call."""

    def __init__(self, copy_from: Optional["Generator"] = None, state: Any = None,
                 alg: Any = None) -> None:
        if copy_from is not None:
            state, alg = copy_from.state.numpy(), copy_from.algorithm
        elif state is None:
            raise ValueError("When `copy_from` is None, neither `state` nor `alg` can be "
                             "None.")
        self._alg = _stateless.algorithm_id(alg)
        value = np.asarray(state.numpy() if hasattr(state, "numpy") else state)
        size = _state_size(self._alg)
        if value.shape != (size,):
            raise ValueError(f"Shapes {value.shape} and [{size}] are incompatible")
        self._state_var = Variable(value.astype(np.int64), trainable=False, name="Variable")

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> "Generator":
        """A generator whose state comes from `seed` (an int or a vector of ints)."""
        return cls(state=_seed_state(seed, _state_size(_stateless.algorithm_id(alg))),
                   alg=alg)

    @classmethod
    def from_state(cls, state: Any, alg: Any) -> "Generator":
        """A generator with the given state."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any) -> "Generator":
        """A generator with the given key (a scalar) and counter (a vector of two)."""
        counter = np.asarray(counter, np.int64).reshape(-1)
        return cls(state=np.concatenate([counter, np.asarray(key, np.int64).reshape(1)]),
                   alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> "Generator":
        """A generator with an unpredictable state."""
        size = _state_size(_stateless.algorithm_id(alg))
        words = np.frombuffer(os.urandom(8 * size), np.int64).copy()
        return cls(state=words, alg=alg)

    def reset(self, state: Any) -> None:
        """Sets the state."""
        self._state_var.assign(np.asarray(state, np.int64))

    def reset_from_seed(self, seed: Any) -> None:
        """Sets the state to what `seed` gives."""
        self._state_var.assign(_seed_state(seed, _state_size(self._alg)))

    def reset_from_key_counter(self, key: Any, counter: Any) -> None:
        """Sets the state from a key and a counter."""
        counter = np.asarray(counter, np.int64).reshape(-1)
        self._state_var.assign(np.concatenate([counter, np.asarray(key, np.int64).reshape(1)]))

    # -- the state ------------------------------------------------------------------------
    @property
    def state(self) -> Variable:
        """The state variable: [counter low, counter high, key] (int64)."""
        return self._state_var

    @property
    def variables(self) -> tuple:
        """The generator's variables (its state), as a tf.Module lists them: what a
        `tf.train.Checkpoint` saves."""
        return (self._state_var,)

    @property
    def algorithm(self) -> int:
        """The algorithm's id (1: Philox)."""
        return self._alg

    @property
    def key(self) -> Tensor:
        """The key part of the state."""
        return self._state_var.value()[-1]

    def skip(self, delta: Any) -> Tensor:
        """Moves the state on as `delta` outputs would; returns the state before."""
        before = self._state_var.value()
        self._advance(delta)
        return before

    def _check_algorithm(self) -> None:
        if self._alg == _stateless.THREEFRY:
            raise UnimplementedError("Non-XLA devices don't support the ThreeFry algorithm. "
                                     "[Op:RngReadAndSkip]")

    def _advance(self, delta: Any) -> tuple:
        self._check_algorithm()
        key, counter, new_state = bind(_READ_AND_SKIP, (
            self._state_var.value(), convert_to_tensor(np.int64(delta))))
        self._state_var.assign(new_state)
        return key, counter

    def _key_counter(self, shape: tuple) -> tuple:
        return self._advance(int(np.prod(shape, dtype=np.int64)))

    def _run_time_key_counter(self, dims: Tensor, fill: str,
                              outputs: Optional[Callable] = None) -> tuple:
        """The key and counter for a fill of `fill` whose shape `dims` is known only when the
        graph runs; the state moves on then by `outputs(shape)` (default: its size)."""
        self._check_algorithm()
        key, counter, new_state = bind(_READ_AND_SKIP, (self._state_var.value(), dims),
                                       {"fill": fill, "outputs": outputs})
        self._state_var.assign(new_state)
        return key, counter

    # -- draws ----------------------------------------------------------------------------
    def _fill(self, prim: Primitive, shape: Any, dtype: Any, *bounds: Tensor) -> Tensor:
        traced = run_time_shape(shape)
        if traced is not None:
            pattern, dims = traced
            key, counter = self._run_time_key_counter(dims, prim.name)
            return bind(prim, (key, counter, *bounds, dims),
                        {"shape": pattern, "dtype": np.dtype(dtype)})
        shape = static_value(shape, f"{prim.name}: shape", _shape_tuple)
        key, counter = self._key_counter(shape)
        return bind(prim, (key, counter, *bounds), {"shape": shape, "dtype": np.dtype(dtype)})

    def normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
               dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
        """Normal numbers of `mean` and `stddev`."""
        dtype = _float(dtype)
        return _scaled(self._fill(_stateless._NORMAL, shape, dtype._np), stddev, mean, dtype)

    def truncated_normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
                         dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
        """Normal numbers within two standard deviations of `mean`."""
        dtype = _float(dtype)
        return _scaled(self._fill(_stateless._TRUNCATED, shape, dtype._np), stddev, mean,
                       dtype)

    def uniform(self, shape: Any, minval: Any = 0, maxval: Any = None,
                dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
        """Uniform numbers in [minval, maxval) (integers need both bounds, or neither for
        the full range)."""
        dtype = _dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer dtype {dtype}, minval and maxval must be both "
                                 f"`None` or both non-`None`; got minval={minval} and "
                                 f"maxval={maxval}")
            if minval is None:
                return self.uniform_full_int(shape, dtype)
            lo, hi = (convert_to_tensor(v, dtype=dtype) for v in (minval, maxval))
            return self._fill(_stateless._UNIFORM_INT, shape, dtype._np, lo, hi)
        maxval = 1 if maxval is None else maxval
        draw = self._fill(_stateless._UNIFORM, shape, _float(dtype)._np)
        lo, hi = (convert_to_tensor(v, dtype=dtype) for v in (minval, maxval))
        return draw * (hi - lo) + lo

    def uniform_full_int(self, shape: Any, dtype: Any = _dtypes.uint64,
                         name: Optional[str] = None) -> Tensor:
        """Integers over the whole range of `dtype`."""
        return self._fill(_stateless._FULL_INT, shape, _dtypes.as_dtype(dtype)._np)

    def binomial(self, shape: Any, counts: Any, probs: Any, dtype: Any = _dtypes.int32,
                 name: Optional[str] = None) -> Tensor:
        """Binomial(counts, probs) samples (TensorFlow's StatefulRandomBinomial): `shape`
        ends with the shape of broadcast(counts, probs); the state moves on as TensorFlow's
        kernel moves it."""
        from tapeflow.ops import random_sampling_ops
        return random_sampling_ops.generator_binomial(self._advance, self._run_time_key_counter,
                                                      shape, counts, probs,
                                                      dtype)

    def make_seeds(self, count: int = 1) -> Tensor:
        """`count` seed pairs for the stateless ops: a [2, count] int64 tensor."""
        from tapeflow.ops import array_ops, math_ops
        keys = self.uniform_full_int([count], _dtypes.int64)
        return array_ops.stack([keys, math_ops.zeros_like(keys)])

    def split(self, count: int = 1) -> list:
        """`count` new generators, independent of this one (whose state moves on)."""
        keys = self.uniform_full_int([count], _dtypes.int64).numpy()
        return [Generator(state=np.array([0, 0, k], np.int64), alg=self._alg) for k in keys]

    def __repr__(self) -> str:
        return f"<tf.random.Generator state={self._state_var.numpy().tolist()}>"


def _float(dtype: Any) -> _dtypes.DType:
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {dtype.name}")
    return dtype


_GLOBAL_GENERATOR: list = [None]


@tf_export("random.get_global_generator", "random.experimental.get_global_generator")
def get_global_generator() -> Generator:
    """The global generator (made from a non-deterministic state on first use)."""
    if _GLOBAL_GENERATOR[0] is None:
        _GLOBAL_GENERATOR[0] = Generator.from_non_deterministic_state()
    return _GLOBAL_GENERATOR[0]


@tf_export("random.set_global_generator", "random.experimental.set_global_generator")
def set_global_generator(generator: Generator) -> None:
    """Replaces the global generator."""
    _GLOBAL_GENERATOR[0] = generator
