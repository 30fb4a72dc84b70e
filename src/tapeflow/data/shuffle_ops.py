"""`Dataset.shuffle` in TensorFlow's exact order (its ShuffleDatasetV3 kernel).

TensorFlow's shuffle keeps a ring buffer of `buffer_size` elements. Each step first refills the
buffer from the input, then draws one 32-bit word `w` from its Philox stream and emits the
element at ring position `(start + w % live) % size` (`live`: elements in the buffer), moving
the element at `start` into the hole; `start` moves on and the next input element lands in
the freed slot. The words come from `PhiloxRandom(seed, seed2)` one at a time
(SingleSampleAdapter: the four words of each draw in order).

The seeds of a pass come from the dataset's seed generator, made once with the dataset from
`get_seed`'s pair: with `reshuffle_each_iteration=False` every pass uses that pair itself
(FixedSeedGenerator); otherwise pass k uses words 2k and 2k+1 of Philox on that pair
(RandomSeedGenerator), so iterating twice, or under `repeat`, gives a new order each pass. The
pair (0, 0) (no seed at all) is replaced by two random 64-bit seeds when the dataset is made.
(TensorFlow's shuffle-and-repeat fusion gives the same orders: it draws each epoch from its own
slice of the buffer, with seeds from the same generator.)

Over an input with random access only indices are shuffled: `_index_plan()` yields them in
chunks, so `batch` gathers each batch with one fancy index and the data is never copied whole.
"""

from __future__ import annotations

import itertools
import os
import threading
from typing import Any, Iterator, Optional

import numpy as np

from tapeflow.data.dataset_ops import UNKNOWN, DatasetV2, UnaryDataset, element_of
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import InvalidArgumentError, UnimplementedError
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.ops import philox
from tapeflow.ops.random_ops import _STATE

_CHUNK = 8192          # indices shuffled per chunk of an index plan
_WORD_BLOCK = 4096     # Philox words generated at a time (a multiple of 4)
_END = object()


# -- TensorFlow's random words ----------------------------------------------------------------

class Words:
    """The uint32 words of TensorFlow's `SingleSampleAdapter<PhiloxRandom>(seed, seed2)`, one
    per `Random()` call, read in blocks."""

    def __init__(self, seed: int, seed2: int) -> None:
        self._key, self._counter = philox.key_and_counter(seed, seed2)
        self._block = np.empty(0, np.int64)
        self._used = 0

    def take(self, n: int) -> np.ndarray:
        """The next `n` words, as int64."""
        parts = []
        while n > 0:
            if self._used == len(self._block):
                self._refill()
            part = self._block[self._used:self._used + n]
            self._used += len(part)
            n -= len(part)
            parts.append(part)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _refill(self) -> None:
        count = _WORD_BLOCK // 4
        self._block = philox.draws(self._key, self._counter, count).reshape(-1).astype(np.int64)
        self._counter = philox.skip(self._counter, count)
        self._used = 0


def word_at(seed: int, seed2: int, position: int, n: int) -> np.ndarray:
    """Words `position .. position + n - 1` of the stream of (seed, seed2), as int64."""
    key, counter = philox.key_and_counter(seed, seed2)
    first, skip = divmod(position, 4)
    rows = philox.draws(key, philox.skip(counter, first), (skip + n + 3) // 4)
    return rows.reshape(-1)[skip:skip + n].astype(np.int64)


class SeedGenerator:
    """The seeds of each pass (TensorFlow's Fixed/RandomSeedGenerator over `seeds`).

    `position` counts the words drawn so far; an iterator checkpoint saves it and a restore
    sets it back before replaying, so the replayed passes draw the same seeds."""

    def __init__(self, seed: int, seed2: int, reshuffle: bool) -> None:
        self.seeded = (seed, seed2) != (0, 0)
        if not self.seeded:   # TF's RandomSeeds: two random 64-bit seeds
            seed, seed2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))
        self.seeds = (seed, seed2)
        self.reshuffle = reshuffle
        self.position = 0
        self._lock = threading.Lock()

    def next_seeds(self) -> tuple:
        """The (seed, seed2) of a new pass."""
        if not self.reshuffle:
            return self.seeds
        with self._lock:
            position, self.position = self.position, self.position + 2
        first, second = word_at(*self.seeds, position, 2).tolist()
        return first, second


# -- the shuffle orders, as pure functions ----------------------------------------------------

def shuffled_indices(n: int, buffer_size: int, words: Words,
                     chunk: int = _CHUNK) -> Iterator[np.ndarray]:
    """The order in which TensorFlow's shuffle emits the elements 0..n-1 of an input of
    length n: int64 chunks of at most `chunk` indices. `buffer_size` UNKNOWN (-2) holds all.

    The ring buffer's steps are computed a chunk at a time with array operations, not one
    step at a time. Name each buffered element by its *key*: at step t the live elements
    sit at ring offsets 0..live-1 from the start, and the key of offset o is t + o, so the
    live keys are t, t+1, ... Step t emits the owner of key `pick = t + w % live`; the
    element at the front (the owner of key t) takes key `pick`, and the refill owns key
    t + size. So the owner of a key changes only at the steps that pick it: the step that
    picks key k emits the owner left by the previous step that picked k, and the front at
    step t is the owner left by the last step before t that picked key t."""
    size = n if buffer_size == UNKNOWN else min(buffer_size, n)
    owners = np.arange(size, dtype=np.int64)     # the owners of keys begin .. begin + size - 1
    for begin in range(0, n, chunk):
        steps = np.arange(min(chunk, n - begin))
        picks = steps + words.take(len(steps)) % np.minimum(size, n - begin - steps)
        # keys relative to `begin`: those in the buffer now, then the refills of this chunk
        first_owners = np.concatenate([owners, np.arange(size, size + len(steps)) + begin])
        previous, last = _previous_picks(picks, len(first_owners))
        front = first_owners[_front_sources(steps, previous, last)]
        yield np.where(previous >= 0, front[previous], first_owners[picks])
        kept = last[len(steps):]
        owners = np.where(kept >= 0, front[kept], first_owners[len(steps):])


def _previous_picks(picks: np.ndarray, n_keys: int) -> tuple:
    """For each step, the last earlier step that picked the same key (-1: none); and for
    each key, the last step that picked it (-1: none). Keys are peeled in rounds, each
    taking the earliest remaining step of every key: few rounds, as few steps share a key."""
    previous = np.full(len(picks), -1, np.int64)
    last = np.full(n_keys, -1, np.int64)
    earliest = np.empty(n_keys, np.int64)
    pending = np.arange(len(picks))
    while pending.size:
        keys = picks[pending]
        earliest.fill(len(picks))
        np.minimum.at(earliest, keys, pending)
        is_earliest = earliest[keys] == pending
        steps, step_keys = pending[is_earliest], keys[is_earliest]
        previous[steps] = last[step_keys]
        last[step_keys] = steps
        pending = pending[~is_earliest]
    return previous, last


def _front_sources(steps: np.ndarray, previous: np.ndarray, last: np.ndarray) -> np.ndarray:
    """For each step t, the key (below len(steps): a step whose front moved on; otherwise
    one of the chunk's first owners) whose first owner is at the front at step t."""
    # The front at step t was left by the last step before t that picked key t: `last[t]`,
    # or the step before that when step t picks its own front. With none, key t's first owner.
    left_by = last[:len(steps)]
    left_by = np.where(left_by == steps, previous, left_by)
    source = np.where(left_by < 0, steps, left_by)
    while True:            # pointer jumping: follow `source` to a step nobody left a front to
        jumped = source[source]
        if np.array_equal(jumped, source):
            return source
        source = jumped


def shuffled_elements(elements: Iterator, buffer_size: int, words: Words) -> Iterator:
    """The elements of `elements` in TensorFlow's shuffle order, through a ring buffer of
    `buffer_size` (all of them for UNKNOWN, -2), refilled one element per step."""
    elements = iter(elements)
    limit = None if buffer_size == UNKNOWN else buffer_size
    ring = list(itertools.islice(elements, limit))
    size = live = len(ring)
    step = 0
    block, used = np.empty(0, np.int64), 0
    while live:
        if used == len(block):
            block, used = words.take(_CHUNK).tolist(), 0
        start = step % size
        pick = (step + block[used] % live) % size
        used += 1
        element = ring[pick]
        ring[pick] = ring[start]
        yield element
        ring[start] = next(elements, _END)    # pulled when the next element is asked for
        if ring[start] is _END:
            live -= 1
        step += 1


# -- the dataset ------------------------------------------------------------------------------

class ShuffleDataset(UnaryDataset):
    """`dataset.shuffle(buffer_size, seed, reshuffle_each_iteration)`."""

    _tf_name = "_ShuffleDataset"

    def __init__(self, input_dataset: DatasetV2, buffer_size: int, seeds: tuple,
                 reshuffle: bool) -> None:
        super().__init__(input_dataset)
        self._buffer_size = buffer_size
        self._seed_generator = SeedGenerator(*seeds, reshuffle)

    def _cardinality(self) -> int:
        return self._input._cardinality()

    def _pass_words(self) -> Words:
        # Seeds are drawn when a pass starts (TF's Iterator::Initialize), not at its first
        # element, so iterators made in turn take the generator's seeds in that order.
        return Words(*self._seed_generator.next_seeds())

    def _index_plan(self) -> Any:
        ra = self._input._random_access()
        if ra is None:
            return None
        return ra, shuffled_indices(len(ra), self._buffer_size, self._pass_words())

    def _elements(self) -> Iterator:
        ra = self._input._random_access()
        words = self._pass_words()
        if ra is None:
            return shuffled_elements(self._input._elements(), self._buffer_size, words)
        return _gathered(ra, shuffled_indices(len(ra), self._buffer_size, words))

    def _check_replayable(self) -> None:
        if not self._seed_generator.seeded:
            raise UnimplementedError(
                None, None,
                "tapeflow cannot checkpoint an iterator over `shuffle` without a seed: its "
                "order cannot be replayed. Pass `seed=` to `shuffle` or call "
                "tf.random.set_seed first.")
        super()._check_replayable()


def _gathered(ra: Any, chunks: Iterator[np.ndarray]) -> Iterator:
    """The elements of `ra` at the indices of `chunks`, one at a time."""
    for chunk in chunks:
        for i in chunk.tolist():
            yield element_of(ra, i)


def seed_positions(dataset: DatasetV2) -> list:
    """The positions of the seed generators of every shuffle in `dataset`'s pipeline, in a
    fixed walk order (for an iterator checkpoint)."""
    return [g.position for g in _seed_generators(dataset)]


def restore_seed_positions(dataset: DatasetV2, positions: list) -> None:
    """Sets the pipeline's seed generators back to `positions` (from `seed_positions`)."""
    for generator, position in zip(_seed_generators(dataset), positions):
        generator.position = int(position)


def _seed_generators(dataset: DatasetV2) -> list:
    found, stack = [], [dataset]
    while stack:
        d = stack.pop()
        if isinstance(d, ShuffleDataset):
            found.append(d._seed_generator)
        stack.extend(reversed(d._inputs()))
    return found


# -- the public entry point -------------------------------------------------------------------

def shuffle_dataset(dataset: DatasetV2, buffer_size: Any, seed: Any = None,
                    reshuffle_each_iteration: Any = True,
                    name: Optional[str] = None) -> ShuffleDataset:
    """`dataset.shuffle(...)`: checks the arguments as TensorFlow does and takes the seeds
    from `get_seed` (the global seed and the op-seed counter) when the dataset is made."""
    size = _buffer_size(buffer_size)
    reshuffle = _reshuffle_flag(reshuffle_each_iteration)
    seeds = _dataset_seeds(seed)
    return ShuffleDataset(dataset, size, seeds, reshuffle)


def _buffer_size(value: Any) -> int:
    try:
        size = int(convert_to_tensor(value, dtype=_dtypes.int64)._value)
    except ValueError as e:
        if isinstance(value, TensorLike):   # TF names the argument for a tensor's dtype
            raise ValueError(f"buffer_size: {e}") from None
        raise
    if size <= 0 and size != UNKNOWN:
        raise InvalidArgumentError(
            None, None,
            "{{function_node __wrapped__ShuffleDatasetV3_device_/job:localhost/replica:0/task:0"
            "/device:CPU:0}} buffer_size must be greater than zero or UNKNOWN_CARDINALITY "
            "[Op:ShuffleDatasetV3] name: ")
    return size


def _reshuffle_flag(value: Any) -> bool:
    if value is None:      # the op attr's default
        return True
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"Expected bool for argument 'reshuffle_each_iteration' not {value!r}.")


def _dataset_seeds(seed: Any) -> tuple:
    """tf.data's `get_seed`: (0, 0) where no seed is set, else the framework pair."""
    if seed is not None:
        seed = int(convert_to_tensor(seed, dtype=_dtypes.int64)._value)
    first, second = _STATE.seeds(seed)
    return (0, 0) if first is None else (first, second)


__all__ = ["shuffle_dataset", "ShuffleDataset", "SeedGenerator", "Words", "shuffled_indices",
           "shuffled_elements", "seed_positions", "restore_seed_positions"]
