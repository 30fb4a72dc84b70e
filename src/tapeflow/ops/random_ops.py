"""Random tensors (`tf.random`): set_seed, normal, uniform, truncated_normal, shuffle,
categorical.

Seeds follow TensorFlow's `random_seed.get_seed`, and `normal`, `uniform`,
`truncated_normal` and `shuffle` draw TensorFlow's own numbers:

- an op's two seeds are (global seed, op seed). With a global seed and no op seed, the op
  seed is the next draw of Python's `random.Random(global_seed)` eagerly (TensorFlow's
  `internal_operation_seed`), and 0, 1, 2, ... in the order a traced graph creates its random
  ops; with only an op seed, the global seed is TensorFlow's default graph seed; with neither,
  the stream is unpredictable;
- the seeds pick a Philox stream (`philox.py`) kept by the kernel: eagerly one per op type,
  seeds and dtype (so the same op seed twice in a row continues the stream, across shapes),
  until `set_seed` clears them; in a graph one per node, carried from call to call. Each call
  takes its numbers from the stream's position and moves it on by 256 draws per output, as
  TensorFlow's kernels reserve them.

`shuffle` draws TensorFlow's permutations too (its Fisher-Yates on the same stream), and
`categorical` TensorFlow's samples: its kernel splits the batch rows into blocks as TensorFlow's
intra-op thread pool does (`_row_blocks`), and each block reads the stream from its own offset,
so the numbers equal TensorFlow's for the same intra-op thread count.

Each draw is a non-differentiable primitive, so a traced `tf.function` draws new numbers on
every call; while tracing it only gives a placeholder value and leaves its stream alone.
`mean`/`stddev`/`minval`/`maxval` tensors get gradients, because the scaling is ordinary tensor
arithmetic after the draw (as in TensorFlow).
"""

from __future__ import annotations

import math
import os
import random as _python_random
import threading
import weakref
from typing import Any, Optional

import numpy as np

from tapeflow.framework.abstract import ShapedArray, dims_text, same_as_input
from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.context import context
from tapeflow.framework.device import runtime
from tapeflow.framework.errors import InvalidArgumentError, NotFoundError
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.framework.exports import tf_export
from tapeflow.ops import philox
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops._static import read_at_run_time, reads_static, static_value
from tapeflow.ops.array_ops import _shape_tuple, _traced_dims

_DEFAULT_GRAPH_SEED = 87654321  # TensorFlow's, used when only an op seed is given
_MAXINT32 = 2**31 - 1


class Stream:
    """One kernel's Philox stream (TensorFlow's GuardedPhiloxRandom): seeds (0, 0) mean an
    unpredictable one. `reserve(n)` gives the position for n outputs and moves past them."""

    __slots__ = ("key", "counter", "lock")

    def __init__(self, seed: int, seed2: int) -> None:
        if seed == 0 and seed2 == 0:
            seed, seed2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))
        self.key, self.counter = philox.key_and_counter(seed, seed2)
        self.lock = threading.Lock()

    def reserve(self, outputs: int) -> tuple:
        """The position for `outputs` numbers of a fill (256 draws reserved per output)."""
        return self.reserve_draws(outputs * philox.RESERVED_WORDS_PER_OUTPUT)

    def reserve_draws(self, count: int) -> tuple:
        """The position for `count` draws, and the stream moved past them."""
        with self.lock:
            counter = self.counter
            self.counter = philox.skip(counter, count)
        return self.key, counter


class _SeedState:
    """The global seed, the eager op-seed generator and the eager kernels' streams, behind
    one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.global_seed: Optional[int] = None
        self.op_seeds = _python_random.Random()
        self.kernels: dict = {}          # (op, seed, seed2, dtype) -> Stream, eagerly
        self.graph_counts: Any = weakref.WeakKeyDictionary()   # graph -> random ops made

    def seeds(self, op_seed: Optional[int]) -> tuple:
        """(seed, seed2) for an op being created, as TensorFlow's `get_seed` (None, None
        where neither seed is set)."""
        with self.lock:
            if self.global_seed is None:
                if op_seed is None:
                    return None, None
                return _DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
            if op_seed is None:
                graph = context.graph
                if graph is None:
                    op_seed = self.op_seeds.randint(0, _MAXINT32)
                else:
                    op_seed = self.graph_counts.get(graph, 0)
                    self.graph_counts[graph] = op_seed + 1
            seeds = self.global_seed % _MAXINT32, int(op_seed) % _MAXINT32
        return (0, _MAXINT32) if seeds == (0, 0) else seeds

    def stream(self, op: str, seeds: tuple, dtype: Any) -> Stream:
        """The stream of an op being created: a graph node's own; eagerly, the cached kernel's
        for these seeds."""
        seed, seed2 = (0, 0) if seeds[0] is None else seeds
        if context.graph is not None:
            return Stream(seed, seed2)
        key = (op, seed, seed2, np.dtype(dtype).str)
        with self.lock:
            stream = self.kernels.get(key)
            if stream is None:
                stream = self.kernels[key] = Stream(seed, seed2)
        return stream


_STATE = _SeedState()


@tf_export("random.set_seed")
def set_seed(seed: Optional[int]) -> None:
    """Sets the global random seed (None clears it): the eager op seeds start again from it,
    and the eager kernels' streams are dropped, as TensorFlow clears its kernel cache."""
    with _STATE.lock:
        _STATE.global_seed = None if seed is None else int(seed)
        _STATE.op_seeds = _python_random.Random(_STATE.global_seed)
        _STATE.kernels.clear()


def get_global_seed() -> Optional[int]:
    """The global seed set by `set_seed`, or None (used by Keras initializers)."""
    return _STATE.global_seed


# -- kernels: each draws from the stream named by its `key` attr ---------------------------------

def _check_shape(shape: tuple, op_name: str) -> None:
    for d in shape:
        if d < 0:
            raise InvalidArgumentError(f"Dimension {d} must be >= 0 [Op:{op_name}]")


def run_time_shape(shape: Any) -> Optional[tuple]:
    """Under a trace, a `shape` argument that holds a traced tensor whose value may change from
    run to run (a 1-D int tensor, or a list with scalar tensors in it), as (pattern, dims):
    `dims` the int tensor the kernel reads when the graph runs, `pattern` the static dims
    (None where only the run knows them; None for an unknown length). None where `shape` is
    static (and eagerly, at the cost of one test)."""
    if not read_at_run_time(shape):
        return None   # eager, or constants of the trace: read while tracing, as Python values
    return _traced_dims(shape)   # a negative size is the kernel's error when it runs


def run_time_count(count: Any) -> tuple:
    """Under a trace, a scalar count argument (`num_samples`) that is a traced tensor whose
    value may change from run to run, as the inputs to bind (the kernel reads it when the graph
    runs); () where it is static."""
    return (count,) if read_at_run_time(count) else ()


def drawn_shape(dims: tuple, shape: Optional[tuple], op_name: str) -> tuple:
    """The shape a draw kernel fills: the `shape` attr, or its run-time `dims` input where
    given, checked as TF's kernels check it."""
    if dims:
        shape = tuple(int(d) for d in np.asarray(dims[0]).reshape(-1))
    _check_shape(shape, op_name)
    return shape


def drawn_count(count: tuple, num_samples: Optional[int]) -> int:
    """A categorical kernel's `num_samples`: the attr, or its run-time `count` input."""
    return int(count[0]) if count else num_samples


def _draw(distribution: Any, shape: tuple, dtype: np.dtype, stream: Stream) -> np.ndarray:
    if context.graph is not None:
        # Tracing computes example values only: the stream moves when the graph runs.
        return np.zeros(shape, dtype)
    size = int(np.prod(shape, dtype=np.int64))
    return distribution(*stream.reserve(size), size, dtype).reshape(shape)


# `dims`, where given, is a shape known only when the graph runs (see `run_time_shape`).

def _normal_kernel(*dims: np.ndarray, shape: tuple, dtype: np.dtype,
                   stream: Stream) -> np.ndarray:
    return _draw(philox.normal, drawn_shape(dims, shape, "RandomStandardNormal"), dtype, stream)


def _truncated_normal_kernel(*dims: np.ndarray, shape: tuple, dtype: np.dtype,
                             stream: Stream) -> np.ndarray:
    return _draw(philox.truncated_normal, drawn_shape(dims, shape, "TruncatedNormal"), dtype,
                 stream)


def _uniform_kernel(*dims: np.ndarray, shape: tuple, dtype: np.dtype,
                    stream: Stream) -> np.ndarray:
    return _draw(philox.uniform, drawn_shape(dims, shape, "RandomUniform"), dtype, stream)


def _uniform_int_kernel(low: np.ndarray, high: np.ndarray, *dims: np.ndarray, shape: tuple,
                        stream: Stream) -> np.ndarray:
    shape = drawn_shape(dims, shape, "RandomUniformInt")
    if not low < high:
        raise InvalidArgumentError(f"Need minval < maxval, got {low} >= {high} "
                                   f"[Op:RandomUniformInt]")
    lo, hi = int(low), int(high)
    return _draw(lambda key, counter, size, dtype: philox.uniform_int(
        key, counter, size, lo, hi, dtype), shape, low.dtype, stream)


def _shuffle_kernel(x: np.ndarray, stream: Stream) -> np.ndarray:
    """TensorFlow's RandomShuffle: Fisher-Yates over the first axis, position i swapped with
    i + word_i % (n - i), one word per swap (the stream moves by whole draws of 4 words)."""
    n = x.shape[0] if x.ndim else 0
    if n <= 1 or x.size <= 1 or context.graph is not None:
        return x.copy()
    if n >= 1 << 32:
        raise InvalidArgumentError("tapeflow's shuffle takes fewer than 2**32 rows "
                                   "[Op:RandomShuffle]")
    key, counter = stream.reserve_draws((n - 1 + 3) // 4)
    words = philox.draws(key, counter, (n - 1 + 3) // 4).reshape(-1)[:n - 1]
    targets = (np.arange(n - 1) + words.astype(np.int64) % np.arange(n, 1, -1)).tolist()
    order = list(range(n))
    for i, j in enumerate(targets):
        order[i], order[j] = order[j], order[i]
    return x[np.array(order)]


# -- categorical: TensorFlow's MultinomialFunctor on CPU ------------------------------------------

def _intra_op_threads() -> int:
    """The size of TensorFlow's intra-op thread pool: the count tf.config.threading set
    (kept on the framework's runtime), else TF_NUM_INTRAOP_THREADS, else the CPUs this
    process may run on."""
    threads = runtime.intra_op_threads
    if threads > 0:
        return threads
    try:
        threads = int(os.environ.get("TF_NUM_INTRAOP_THREADS", "0"))
    except ValueError:
        threads = 0
    if threads > 0:
        return threads
    if hasattr(os, "sched_getaffinity"):     # Linux: the CPUs this process may run on
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _row_blocks(rows: int, cost: int, threads: int) -> int:
    """The rows per block TensorFlow's `Shard` gives `rows` units of `cost` cycles on a pool
    of `threads` (Eigen's `ThreadPoolDevice::parallelFor`: blocks start at multiples of it)."""
    if threads <= 1 or rows <= 1:
        return max(rows, 1)
    # TensorCostModel::numThreads: too little work for a second thread runs inline.
    wanted = (float(rows) * cost - 100000) / 100000 + 0.9
    if min(threads, max(1, int(min(wanted, _MAXINT32)))) == 1:
        return rows
    # CalculateParallelForBlock: 40000 cycles a block (kTaskSize), oversharding by 4, then
    # coarser blocks while the parallel efficiency does not drop.
    size = min(rows, max(-(-rows // (4 * threads)), int(1.0 / (cost / 40000))))
    largest = min(rows, 2 * size)
    count = -(-rows // size)
    best = count / (-(-count // threads) * threads)
    previous = count
    while best < 1.0 and previous > 1:
        coarser = -(-rows // (previous - 1))
        if coarser > largest:
            break
        previous = -(-rows // coarser)
        efficiency = previous / (-(-previous // threads) * threads)
        if efficiency + 0.01 >= best:
            size, count, best = coarser, previous, max(best, efficiency)
    return size


def _check_multinomial(logits: np.ndarray, num_samples: int, op_name: str) -> None:
    if logits.ndim != 2:
        raise InvalidArgumentError(f"logits should be a matrix, got shape "
                                   f"[{','.join(map(str, logits.shape))}] [Op:{op_name}]")
    if num_samples < 0:
        raise InvalidArgumentError(f"num_samples should be non-negative, got {num_samples} "
                                   f"[Op:{op_name}]")
    if logits.shape[1] == 0:
        raise InvalidArgumentError(f"num_classes should be positive, got 0 [Op:{op_name}]")


def _multinomial_draws(num_samples: int) -> int:
    """The draws TensorFlow's CPU kernel reserves per row: 256 per double of the samples
    rounded up to 4 (ReserveRandomOutputs(batch * 2 * ceil4(num_samples), 256))."""
    return 2 * (-(-num_samples // 4) * 4) * philox.RESERVED_WORDS_PER_OUTPUT


def _multinomial(logits: np.ndarray, num_samples: int, dtype: np.dtype, key: tuple,
                 counter: tuple) -> np.ndarray:
    """TensorFlow's CPU samples: inverse-CDF search of each row's unnormalized softmax (in
    float64; non-finite logits add no mass) with a uniform double per sample. The rows are
    split in blocks as TensorFlow's thread pool splits them; a block's stream starts
    `first_row * (num_samples + 3) // 4` draws in and runs on through its rows, two words
    per sample."""
    batch, classes = logits.shape
    out = np.empty((batch, num_samples), dtype)
    if out.size == 0:
        return out
    finite = np.isfinite(logits)
    top = np.max(np.where(finite, logits, np.finfo(logits.dtype).min), axis=1)
    with np.errstate(invalid="ignore", over="ignore"):
        mass = np.exp(logits.astype(np.float64) - top.astype(np.float64)[:, None])
    mass[~finite] = 0.0
    cdf = np.cumsum(mass, axis=1)    # sequential, as the kernel's running total
    cost = int(50 * (num_samples * math.log(classes) / math.log(2) + classes))
    block = _row_blocks(batch, cost, _intra_op_threads())
    found = np.empty((batch, num_samples), np.float64)
    for first in range(0, batch, block):
        last = min(first + block, batch)
        n = (last - first) * num_samples
        words = philox.draws(key, philox.skip(counter, first * (num_samples + 3) // 4),
                             -(-n // 2)).reshape(-1, 2)[:n]
        found[first:last] = philox.uint32_pair_to_double(words[:, 0], words[:, 1]) \
            .reshape(last - first, num_samples)
    found *= cdf[:, -1:]
    _upper_bound(cdf, found, out)
    return out


def _upper_bound(cdf: np.ndarray, values: np.ndarray, out: np.ndarray) -> None:
    """out[r, j] = the number of entries of cdf[r] (non-decreasing) at most values[r, j]:
    std::upper_bound's position (all classes when a row has no mass)."""
    batch, classes = cdf.shape
    per_row = classes * values.shape[1]
    if per_row > 4096:   # long rows: NumPy's binary search, row by row
        for row in range(batch):
            out[row] = np.searchsorted(cdf[row], values[row], side="right")
        return
    step = max(1, (1 << 20) // per_row)
    for first in range(0, batch, step):
        rows = slice(first, first + step)
        out[rows] = np.count_nonzero(cdf[rows, None, :] <= values[rows, :, None], axis=2)


def _categorical_kernel(logits: np.ndarray, *count: np.ndarray, num_samples: Optional[int],
                        dtype: np.dtype, stream: Stream) -> np.ndarray:
    num_samples = drawn_count(count, num_samples)
    _check_multinomial(logits, num_samples, "Multinomial")
    if context.graph is not None:   # tracing: the stream moves when the graph runs
        return np.zeros((logits.shape[0], num_samples), dtype)
    if logits.shape[0] * num_samples == 0:   # the kernel reserves nothing then
        return np.empty((logits.shape[0], num_samples), dtype)
    key, counter = stream.reserve_draws(logits.shape[0] * _multinomial_draws(num_samples))
    return _multinomial(logits, num_samples, dtype, key, counter)


# -- shape rules: the shape attr (None dims where a run-time `dims` input decides them) --------

def _drawn(*dims: ShapedArray, shape: Optional[tuple], dtype: np.dtype,
           stream: Stream) -> ShapedArray:
    return ShapedArray(shape, dtype)


def _scalar_bound(bound: ShapedArray, label: str, op_name: str) -> None:
    if bound.shape is not None and len(bound.shape) != 0:
        raise ValueError(f"{label} must be a scalar; got a tensor of shape "
                         f"{dims_text(bound.shape)} for '{op_name}'")


def _uniform_int_shape(low: ShapedArray, high: ShapedArray, *dims: ShapedArray,
                       shape: Optional[tuple], stream: Stream) -> ShapedArray:
    _scalar_bound(low, "minval", "RandomUniformInt")
    _scalar_bound(high, "maxval", "RandomUniformInt")
    return ShapedArray(shape, low.dtype)


def multinomial_shape(logits: ShapedArray, num_samples: Optional[int], dtype: np.dtype,
                      op_name: str) -> ShapedArray:
    """The [batch, num_samples] result of a categorical op, with TF's graph-time errors
    (`num_samples` None: known only when the graph runs)."""
    if logits.shape is not None and len(logits.shape) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(logits.shape)} for "
                         f"'{op_name}' with input shapes: {dims_text(logits.shape)}")
    if num_samples is not None and num_samples < 0:
        raise ValueError(f"Dimension size, given by scalar input 1, must be non-negative but "
                         f"is {num_samples} for '{op_name}'")
    batch = None if logits.shape is None else logits.shape[0]
    return ShapedArray((batch, num_samples), dtype)


def _categorical_shape(logits: ShapedArray, *count: ShapedArray, num_samples: Optional[int],
                       dtype: np.dtype, stream: Stream) -> ShapedArray:
    return multinomial_shape(logits, num_samples, dtype, "Multinomial")


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


def _float_dtype(dtype: Any, value: Any = 0.0) -> _dtypes.DType:
    """A float dtype of a random op, with TF's error for another (converting `value`, the
    parameter TF converts first, to it)."""
    dtype = _dtypes.as_dtype(dtype)
    if dtype.name not in _FLOATS:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    return dtype


def shape_operand(shape: Any, op_name: str, traced: Optional[tuple] = None,
                  check: bool = True) -> tuple:
    """A draw's `shape` argument as (inputs, shape attr): under a trace, a traced shape is an
    input read when the graph runs (`traced`: its `run_time_shape`, where the caller has it);
    otherwise the static shape (read with `static_value`; `check`: checked here as TF's
    kernel checks it, else the kernel checks it) and no input."""
    if traced is None:
        traced = run_time_shape(shape)
    if traced is not None:
        return (traced[1],), traced[0]
    shape = static_value(shape, f"{op_name}: shape", _shape_tuple)
    if check:
        _check_shape(shape, op_name)
    return (), shape


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
    dtype = _float_dtype(dtype)
    dims, shape = shape_operand(shape, "RandomStandardNormal")
    stream = _STATE.stream("RandomStandardNormal", _STATE.seeds(seed), dtype._np)
    draw = bind(_normal, dims, {"shape": shape, "dtype": dtype._np, "stream": stream})
    return _scaled(draw, stddev, mean, dtype)


@tf_export("random.truncated_normal")
@reads_static
def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
                     dtype: Any = _dtypes.float32, seed: Optional[int] = None,
                     name: Optional[str] = None) -> Tensor:
    """Samples from a normal distribution, redrawing values more than two standard
    deviations from the mean."""
    dtype = _float_dtype(dtype)
    dims, shape = shape_operand(shape, "TruncatedNormal")
    stream = _STATE.stream("TruncatedNormal", _STATE.seeds(seed), dtype._np)
    draw = bind(_truncated, dims, {"shape": shape, "dtype": dtype._np, "stream": stream})
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
    traced = run_time_shape(shape)
    if traced is None:
        shape = static_value(shape, "RandomUniform: shape", _shape_tuple)
    seeds = _STATE.seeds(seed)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        low, high = _operand(minval, dtype, "min"), _operand(maxval, dtype, "max")
        dims, shape = shape_operand(shape, "RandomUniformInt", traced)
        stream = _STATE.stream("RandomUniformInt", seeds, dtype._np)
        return bind(_uniform_int, (low, high, *dims), {"shape": shape, "stream": stream})
    dims, shape = shape_operand(shape, "RandomUniform", traced)
    maxval = 1 if maxval is None else maxval
    stream = _STATE.stream("RandomUniform", seeds, dtype._np)
    draw = bind(_uniform, dims, {"shape": shape, "dtype": dtype._np, "stream": stream})
    if isinstance(minval, TensorLike) or isinstance(maxval, TensorLike):
        low, high = _operand(minval, dtype, "min"), _operand(maxval, dtype, "max")
        return draw * (high - low) + low
    return _scaled(draw, maxval - minval, minval, dtype)


@tf_export("random.shuffle")
def shuffle(value: Any, seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """`value` with its first dimension randomly permuted."""
    x = convert_to_tensor(value)
    stream = _STATE.stream("RandomShuffle", _STATE.seeds(seed), x._value.dtype)
    return bind(_shuffle, (x,), {"stream": stream})


def categorical_dtype(dtype: Any) -> _dtypes.DType:
    """The output dtype of a categorical op (None: int64), with TensorFlow's error."""
    out_type = _dtypes.int64 if dtype is None else _dtypes.as_dtype(dtype)
    if out_type not in (_dtypes.int32, _dtypes.int64):
        raise ValueError(f"Argument `dtype` got invalid value {out_type}. Accepted dtypes are "
                         f"(tf.int32, tf.int64).")
    return out_type


def categorical_logits(logits: Tensor, op_name: str, attrs: str, xla_types: str) -> None:
    """TensorFlow's error for logits of a type its CPU kernels do not take (`attrs`: the
    node's other attrs, `xla_types`: its XLA kernel's types, as the error shows them)."""
    if logits.dtype.name in ("float16", "float32", "float64"):
        return
    kernels = "".join(f"  device='CPU'; T in [DT_{t}]; output_dtype in [DT_{o}]\n"
                      for t in ("DOUBLE", "FLOAT", "BFLOAT16", "HALF") for o in ("INT64", "INT32"))
    raise NotFoundError(
        f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}[T=DT_"
        f"{logits.dtype.name.upper()}, {attrs}]\nAll kernels registered for op {op_name}:\n"
        f"  device='XLA_CPU_JIT'; output_dtype in [DT_INT32, DT_INT64]; {xla_types}\n"
        f"{kernels} [Op:{op_name}]")


_XLA_LOGITS = ("DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_INT64, "
               "DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64")


@tf_export("random.categorical")
@reads_static
def categorical(logits: Any, num_samples: int, dtype: Any = None, seed: Optional[int] = None,
                name: Optional[str] = None) -> Tensor:
    """For each row of `logits` ([batch, classes], unnormalized log-probabilities),
    `num_samples` class indices drawn from its softmax: a [batch, num_samples] tensor of
    TensorFlow's numbers (for the same intra-op thread count; -inf, +inf and NaN logits get
    probability 0, and a row without a finite logit gives `classes`, as TensorFlow's CPU
    kernel)."""
    out_type = categorical_dtype(dtype)
    x = convert_to_tensor(logits)
    seeds = _STATE.seeds(seed)
    categorical_logits(x, "Multinomial", "output_dtype=DT_%s, seed=%d, seed2=%d" % (
        (out_type.name.upper(),) + ((0, 0) if seeds[0] is None else seeds)),
        f"T in [{_XLA_LOGITS}]")
    count = run_time_count(num_samples)
    num = None if count else static_value(num_samples, "Multinomial: num_samples", int)
    # The kernel's attrs name its cached stream: logits type and output type.
    stream = _STATE.stream(f"Multinomial:{out_type.name}", seeds, x._value.dtype)
    return bind(_categorical, (x, *count), {"num_samples": num, "dtype": out_type._np,
                                            "stream": stream})
