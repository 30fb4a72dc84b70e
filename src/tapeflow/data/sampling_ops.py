"""Random and counting sources and the datasets that pick among others, as TensorFlow 2.21:
`Dataset.random`, `Dataset.counter`, `sample_from_datasets` and `choose_from_datasets`.

`Dataset.random(seed)` is TF's RandomDataset: the uint32 words of
`SingleSampleAdapter<PhiloxRandom>(seed, seed2)` as int64, one per element, the seeds of each
pass from the same Fixed/RandomSeedGenerator as shuffle's.

`sample_from_datasets` builds TF's selector: `Dataset.random(seed).batch(2)` gives one seed pair
per element, and `stateless_multinomial(log(weights), 1, seed=pair)` picks an input. The picks
are computed here a block of seed pairs at a time with the same arithmetic as tapeflow's
stateless_categorical (TF's StatelessMultinomial: the seed scrambled by Philox into a key and
counter, the first two words of that stream as a double, an inverse-CDF search of the
softmax). `choose_from_datasets` takes the picks from a dataset. Both then run TF's
DirectedInterleave: the element of the picked input; an exhausted input is skipped (or ends
everything with `stop_on_empty_dataset`).
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

import numpy as np

from tapeflow.data import structure
from tapeflow.data.dataset_ops import INFINITE, UNKNOWN, DatasetV2, TakeDataset
from tapeflow.data.shuffle_ops import SeedGenerator, Words, _dataset_seeds
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework import nest
from tapeflow.framework.errors import InvalidArgumentError, UnimplementedError
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.function import TensorSpec
from tapeflow.ops import philox
from tapeflow.ops.stateless_random_ops import _SEED_SCRAMBLING_KEY

_BLOCK = 1024          # picks computed at a time from constant weights
_END = object()


# -- Dataset.random ---------------------------------------------------------------------------

class RandomDataset(DatasetV2):
    """`tf.data.Dataset.random(seed, rerandomize_each_iteration)`: an infinite stream of
    TF's pseudorandom int64 values (uint32 Philox words)."""

    _tf_name = "_RandomDataset"
    _unrollable = False

    def __init__(self, seed: Any = None, rerandomize_each_iteration: Any = None,
                 name: Optional[str] = None) -> None:
        super().__init__(TensorSpec([], _dtypes.int64))
        self._seed_generator = SeedGenerator(*_dataset_seeds(seed),
                                             bool(rerandomize_each_iteration))

    def _cardinality(self) -> int:
        return INFINITE

    def _word_blocks(self) -> Iterator[np.ndarray]:
        """One pass as int64 blocks of words (the pass's seeds drawn at the call)."""
        words = Words(*self._seed_generator.next_seeds())

        def blocks() -> Iterator[np.ndarray]:
            while True:
                yield words.take(_BLOCK)
        return blocks()

    def _elements(self) -> Iterator:
        blocks = self._word_blocks()
        return (np.asarray(v, np.int64) for block in blocks for v in block.tolist())

    def _check_replayable(self) -> None:
        # An iterator checkpoint restores the positions of shuffles' seed generators only.
        if not self._seed_generator.seeded or self._seed_generator.reshuffle:
            raise UnimplementedError(
                None, None, "tapeflow cannot checkpoint an iterator over Dataset.random "
                "without a seed or with rerandomize_each_iteration=True: its values cannot "
                "be replayed.")


class RandomDatasetV2(RandomDataset):
    """`tf.data.experimental.RandomDataset` (deprecated alias of `Dataset.random`)."""

    _tf_name = "RandomDatasetV2"


# -- Counter ----------------------------------------------------------------------------------

class CounterDataset(DatasetV2):
    """`Dataset.counter(start, step, dtype)`: start, start + step, ... forever (TF builds it as
    a scan over `from_tensors(0).repeat()`; its repr names the scan)."""

    _tf_name = "_ScanDataset"

    def __init__(self, start: Any = 0, step: Any = 1, dtype: Any = _dtypes.int64) -> None:
        dtype = _dtypes.as_dtype(dtype)
        self._start = np.asarray(convert_to_tensor(start, dtype=dtype)._value)
        self._step = np.asarray(convert_to_tensor(step, dtype=dtype)._value)
        super().__init__(TensorSpec([], dtype))

    def _cardinality(self) -> int:
        return INFINITE

    def _elements(self) -> Iterator:
        state, step = self._start, self._step
        with np.errstate(over="ignore"):     # integer counters wrap, as TF's add
            while True:
                yield state
                state = np.asarray(state + step, state.dtype)


def counter(start: Any = 0, step: Any = 1, dtype: Any = _dtypes.int64,
            name: Optional[str] = None) -> DatasetV2:
    """`tf.data.Dataset.counter` / `tf.data.experimental.Counter`."""
    return CounterDataset(start, step, dtype)


# -- TF's StatelessMultinomial picks, vectorized over seed pairs -------------------------------

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)
_LOW = np.uint64(0xFFFFFFFF)


def philox_keyed(k0: np.ndarray, k1: np.ndarray, c0: np.ndarray, c1: np.ndarray,
                 c2: np.ndarray, c3: np.ndarray) -> tuple:
    """Philox4x32-10 with a key per element (ops.philox takes one key): the four uint32 output
    words of each (key, counter), all arguments uint32 arrays."""
    k0, k1 = k0.astype(np.uint32), k1.astype(np.uint32)
    c0, c1, c2, c3 = (c.astype(np.uint32) for c in (c0, c1, c2, c3))
    for round_ in range(10):
        if round_:
            k0, k1 = k0 + _W0, k1 + _W1          # uint32 arithmetic wraps
        p0 = c0.astype(np.uint64) * _M0
        p1 = c2.astype(np.uint64) * _M1
        c0, c1, c2, c3 = (((p1 >> np.uint64(32)).astype(np.uint32) ^ c1 ^ k0),
                          (p1 & _LOW).astype(np.uint32),
                          ((p0 >> np.uint64(32)).astype(np.uint32) ^ c3 ^ k1),
                          (p0 & _LOW).astype(np.uint32))
    return c0, c1, c2, c3


def stateless_uniform_doubles(seeds: np.ndarray) -> np.ndarray:
    """The double in [0, 1) StatelessMultinomial draws first for each int64 seed pair
    (`seeds`: (n, 2)): the seed scrambled into a key and counter, then that stream's first
    two words."""
    s = seeds.astype(np.int64).view(np.uint64)
    lo = lambda x: (x & _LOW).astype(np.uint32)          # noqa: E731
    hi = lambda x: (x >> np.uint64(32)).astype(np.uint32)  # noqa: E731
    n = len(s)
    key0 = np.full(n, _SEED_SCRAMBLING_KEY[0], np.uint32)
    key1 = np.full(n, _SEED_SCRAMBLING_KEY[1], np.uint32)
    mix = philox_keyed(key0, key1, lo(s[:, 0]), hi(s[:, 0]), lo(s[:, 1]), hi(s[:, 1]))
    zero = np.zeros(n, np.uint32)
    w0, w1, _, _ = philox_keyed(mix[0], mix[1], zero, zero, mix[2], mix[3])
    return philox.uint32_pair_to_double(w0, w1)


def softmax_cdf(logits: np.ndarray) -> np.ndarray:
    """Each row's running total of its unnormalized softmax in float64 (non-finite logits add
    no mass), as TF's multinomial kernel sums it."""
    finite = np.isfinite(logits)
    top = np.max(np.where(finite, logits, np.finfo(logits.dtype).min), axis=-1)
    with np.errstate(invalid="ignore", over="ignore"):
        mass = np.exp(logits.astype(np.float64) - top.astype(np.float64)[..., None])
    mass[~finite] = 0.0
    return np.cumsum(mass, axis=-1)


def multinomial_picks(cdf: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """One class per seed pair: the number of cdf entries at most u * total (`cdf` one row
    for all, or one row per pair)."""
    u = stateless_uniform_doubles(seeds)
    cdf = np.broadcast_to(cdf, (len(seeds), cdf.shape[-1]))
    found = u * cdf[:, -1]
    return np.count_nonzero(cdf <= found[:, None], axis=1).astype(np.int64)


class SelectorDataset(DatasetV2):
    """TF's selector of sample_from_datasets: `Dataset.random(seed).batch(2)` mapped through
    stateless_multinomial of the logits (a constant row, or the elements of a dataset)."""

    _tf_name = "_MapDataset"
    _unrollable = False

    def __init__(self, random: RandomDataset, cdf: Optional[np.ndarray] = None,
                 logits: Optional[DatasetV2] = None) -> None:
        super().__init__(TensorSpec([], _dtypes.int64))
        self._random, self._cdf, self._logits = random, cdf, logits

    def _inputs(self) -> list:
        return [self._random] if self._logits is None else [self._logits, self._random]

    def _cardinality(self) -> int:
        return INFINITE if self._logits is None else self._logits._cardinality()

    def _elements(self) -> Iterator:
        if self._logits is None:
            return self._constant_picks(self._random._word_blocks())
        logits = self._logits._elements()     # the zip makes its inputs' iterators in order
        return self._varying_picks(logits, self._random._word_blocks())

    def _constant_picks(self, blocks: Iterator[np.ndarray]) -> Iterator:
        for block in blocks:          # _BLOCK words: _BLOCK // 2 seed pairs
            for pick in multinomial_picks(self._cdf, block.reshape(-1, 2)).tolist():
                yield np.asarray(pick, np.int64)

    def _varying_picks(self, logits: Iterator, blocks: Iterator[np.ndarray]) -> Iterator:
        pairs = (pair for block in blocks for pair in block.reshape(-1, 2))
        for row in logits:
            row = np.asarray(row)
            if row.ndim != 2 or row.shape[0] != 1:
                raise InvalidArgumentError(
                    None, None, f"sample_from_datasets: each element of `weights` must be one "
                    f"vector of weights, got logits of shape {list(row.shape)} "
                    f"[Op:IteratorGetNext]")
            yield np.asarray(multinomial_picks(softmax_cdf(row), next(pairs)[None])[0],
                             np.int64)


# -- DirectedInterleave -----------------------------------------------------------------------

class DirectedInterleaveDataset(DatasetV2):
    """The element of the input each selector value names, as TF's DirectedInterleave."""

    _tf_name = "_DirectedInterleaveDataset"

    def __init__(self, selector: DatasetV2, datasets: list, stop_on_empty_dataset: bool
                 ) -> None:
        super().__init__(_common_spec(datasets))
        self._selector, self._datasets = selector, list(datasets)
        self._stop = bool(stop_on_empty_dataset)

    def _inputs(self) -> list:
        return [self._selector] + self._datasets

    def _cardinality(self) -> int:
        if any(d._cardinality() == INFINITE for d in self._datasets):
            return INFINITE
        return UNKNOWN

    def _elements(self) -> Iterator:
        # TF's Initialize makes the selector's iterator, then each input's, in order.
        selector = self._selector._elements()
        inputs: list = [d._elements() for d in self._datasets]
        return self._interleaved(selector, inputs)

    def _interleaved(self, selector: Iterator, inputs: list) -> Iterator:
        n, active = len(inputs), len(inputs)
        for choice in selector:
            i = int(choice)
            if i < 0 or i >= n:
                raise InvalidArgumentError(None, None, f"Selector index out of range: {i} >= "
                                           f"{n} [Op:IteratorGetNext]")
            if inputs[i] is None:     # an exhausted input: ask the selector again
                continue
            element = next(inputs[i], _END)
            if element is not _END:
                yield element
                continue
            if self._stop:
                return
            inputs[i] = None
            active -= 1
            if active == 0:
                return


def _common_spec(datasets: list) -> Any:
    spec = datasets[0].element_spec
    for i, d in enumerate(datasets[1:]):
        try:
            nest.assert_same_structure(spec, d.element_spec)
            spec = structure.pack(spec, [structure.most_specific_common(a, b) for a, b in
                                         zip(structure.flatten(spec),
                                             structure.flatten(d.element_spec))])
        except (TypeError, ValueError):
            raise TypeError(f"Invalid `datasets`. `datasets` must have compatible element "
                            f"specs.\n Dataset 0 element_spec={datasets[0].element_spec}.\n"
                            f"Dataset {i + 1} element_spec={d.element_spec}.") from None
    return spec


# -- the public entry points ------------------------------------------------------------------

def sample_from_datasets(datasets: Any, weights: Any = None, seed: Any = None,
                         stop_on_empty_dataset: bool = False,
                         rerandomize_each_iteration: Any = None) -> DatasetV2:
    """Elements of `datasets` drawn at random with probabilities `weights` (a list, a tensor
    or a dataset of weight vectors), in TF's order for a seed."""
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    datasets = list(datasets)
    logits_dataset, cdf = None, None
    if isinstance(weights, DatasetV2):
        from tapeflow.ops import math_ops
        logits_dataset = weights.map(lambda *p: math_ops.log(p))
    else:
        if weights is None:
            logits = np.ones((1, len(datasets)), np.float32)
        else:
            datasets, weights = _checked_weights(datasets, weights)
            logits = _log_weights(weights)[None]
        if len(datasets) == 1:
            return datasets[0]
        cdf = softmax_cdf(logits)
    random = RandomDataset(seed, rerandomize_each_iteration)
    selector = SelectorDataset(random, cdf, logits_dataset)
    return DirectedInterleaveDataset(selector, datasets, stop_on_empty_dataset)


def _checked_weights(datasets: list, weights: Any) -> tuple:
    if isinstance(weights, TensorLike):
        shape = weights.shape
        if not shape.is_compatible_with([len(datasets)]):
            raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible "
                             f"with `[len(datasets)]` but is {shape}.")
        return datasets, weights
    if len(datasets) != len(weights):
        raise ValueError(f"Invalid `weights`. `weights` should have the same length as "
                         f"`datasets` but got `len(weights)={len(weights)}` vs. "
                         f"`len(datasets)={len(datasets)}`.")
    kept = [(d, w) for d, w in zip(datasets, weights) if w > 0]
    if not kept:
        return [TakeDataset(datasets[0], 0)], [1.0]
    return [d for d, _ in kept], [w for _, w in kept]


def _log_weights(weights: Any) -> np.ndarray:
    from tapeflow.ops import math_ops
    tensor = convert_to_tensor(weights)
    if tensor.dtype not in (_dtypes.float32, _dtypes.float64):
        raise TypeError(f"Invalid `weights`. `weights` type must be either `tf.float32` or "
                        f"`tf.float64` but is {tensor.dtype}.")
    return np.asarray(math_ops.log(tensor)._value)


def choose_from_datasets(datasets: Any, choice_dataset: Any,
                         stop_on_empty_dataset: bool = True) -> DatasetV2:
    """The element of `datasets[i]` for each int64 scalar `i` of `choice_dataset`."""
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if not isinstance(choice_dataset, DatasetV2):
        raise TypeError(f"Invalid `choice_dataset`. `choice_dataset` should be a "
                        f"`tf.data.Dataset` but is {type(choice_dataset)}.")
    spec = choice_dataset.element_spec
    if not (isinstance(spec, TensorSpec) and spec.dtype == _dtypes.int64 and
            spec.shape.is_compatible_with([])):
        raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be "
                        f"scalar `tf.int64` tensors but are {spec}.")
    return DirectedInterleaveDataset(choice_dataset, list(datasets), stop_on_empty_dataset)


__all__ = ["RandomDataset", "RandomDatasetV2", "CounterDataset", "counter",
           "DirectedInterleaveDataset", "SelectorDataset", "sample_from_datasets",
           "choose_from_datasets", "philox_keyed", "multinomial_picks", "softmax_cdf"]
