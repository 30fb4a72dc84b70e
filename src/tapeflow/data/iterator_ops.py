"""Iterators over datasets: `iter(dataset)` gives an OwnedIterator, as TensorFlow's.

The iterator walks the dataset's `_elements()` (NumPy nests) and hands out EagerTensors. Its
position is the number of elements it has produced; a checkpoint saves that count and a restore
replays the pipeline to it (deterministic pipelines only: a shuffle without a seed refuses).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tapeflow.data import structure
from tapeflow.framework.errors import OutOfRangeError
from tapeflow.framework.sparse_tensor import SparseTensor
from tapeflow.framework.tensor import read_only_view, wrap


def to_tensors(element: Any) -> Any:
    """An internal element (a nest of NumPy arrays) as EagerTensors."""
    if type(element) is np.ndarray:
        return wrap(element)
    return structure.map_leaves(_leaf_tensor, element)


def _leaf_tensor(leaf: Any) -> Any:
    if hasattr(leaf, "_elements") or hasattr(leaf, "flat_values") or \
            isinstance(leaf, SparseTensor):
        return leaf    # a nested dataset (window) stays a dataset, a Ragged/SparseTensor one
    return wrap(np.asarray(leaf))


class OwnedIterator:
    """The iterator `iter(dataset)` returns: `next(it)`, `it.get_next()`, `element_spec`."""

    def __init__(self, dataset: Any) -> None:
        self._dataset = dataset
        self._element_spec = dataset.element_spec
        self._produced = 0
        from tapeflow.data.shuffle_ops import seed_positions
        self._start_positions = seed_positions(dataset)
        self._elements = dataset._elements()
        # TF serves each `next` in turn: threads sharing an iterator take turns advancing it
        # (a Python generator advanced by two threads at once raises ValueError).
        self._lock = threading.Lock()

    @property
    def element_spec(self) -> Any:
        """The spec of the elements this iterator produces."""
        return self._element_spec

    def __iter__(self) -> "OwnedIterator":
        return self

    def __next__(self) -> Any:
        return to_tensors(self._advance())     # StopIteration ends a Python for loop

    def _advance(self) -> Any:
        """The next internal element, each delivered to exactly one caller."""
        with self._lock:
            element = next(self._elements)
            self._produced += 1
            return element

    def next(self) -> Any:
        """The next element (StopIteration at the end), as `next(it)`."""
        return self.__next__()

    def get_next(self, name: Any = None) -> Any:
        """The next element; OutOfRangeError ("End of sequence") at the end, as TF."""
        try:
            return self.__next__()
        except StopIteration:
            raise OutOfRangeError(None, None, "End of sequence [Op:IteratorGetNext]") from None

    def get_next_as_optional(self) -> Any:
        """The next element as a tf.experimental.Optional-like object."""
        try:
            return _Optional(self.__next__(), self._element_spec)
        except StopIteration:
            return _Optional(None, self._element_spec)

    def __repr__(self) -> str:
        return f"<tensorflow.python.data.ops.iterator_ops.OwnedIterator object at 0x{id(self):x}>"

    # -- checkpointing ----------------------------------------------------------------------
    # tf.train.Checkpoint(iterator=it) saves `it.variables`: one int64 vector
    # [elements produced, then the position of each shuffle's seed generator when this
    # iterator started]. A restore sets the seed generators back and replays a fresh pass
    # to the same element (an unseeded shuffle refuses: its order cannot be replayed).
    @property
    def variables(self) -> list:
        """The iterator's checkpointed state, as tf.train.Checkpoint reads it."""
        return [_IteratorState(self)]

    def _state(self) -> np.ndarray:
        self._dataset._check_replayable()
        return np.asarray([self._produced] + list(self._start_positions), np.int64)

    def _restore(self, state: Any) -> None:
        state = [int(x) for x in np.ravel(np.asarray(state))]
        self._dataset._check_replayable()
        with self._lock:
            self._replay(state[0], state[1:])

    def _replay(self, produced: int, positions: list) -> None:
        """A fresh pass advanced to element `produced`, the seed generators set back."""
        from tapeflow.data.shuffle_ops import restore_seed_positions
        restore_seed_positions(self._dataset, positions)
        self._start_positions = positions
        self._elements = self._dataset._elements()
        for _ in range(produced):
            if next(self._elements, None) is None:
                break
        self._produced = produced


class _IteratorState:
    """The variable-like view of an iterator's position that tf.train.Checkpoint saves:
    `numpy()` reads it, `assign(value)` restores the iterator to it."""

    def __init__(self, iterator: OwnedIterator) -> None:
        self._iterator = iterator
        self.name = "iterator"
        self.trainable = False

    @property
    def dtype(self) -> Any:
        from tapeflow.framework import dtypes
        return dtypes.int64

    @property
    def shape(self) -> Any:
        from tapeflow.framework.tensor_shape import TensorShape
        return TensorShape([1 + len(self._iterator._start_positions)])

    def numpy(self) -> np.ndarray:
        return self._iterator._state()

    def assign(self, value: Any) -> None:
        self._iterator._restore(value)


class _Optional:
    """What `get_next_as_optional` returns: has_value() and get_value()."""

    def __init__(self, value: Any, spec: Any) -> None:
        self._value = value
        self.element_spec = spec

    def has_value(self) -> Any:
        return wrap(np.asarray(self._value is not None))

    def get_value(self) -> Any:
        if self._value is None:
            from tapeflow.framework.errors import InvalidArgumentError
            raise InvalidArgumentError(None, None, "The optional does not have a value")
        return self._value


class NumpyIterator:
    """What `as_numpy_iterator()` returns: elements as NumPy values (bytes for strings)."""

    def __init__(self, dataset: Any) -> None:
        self._iterator = iter(dataset)

    def __iter__(self) -> "NumpyIterator":
        return self

    def __next__(self) -> Any:
        return structure.map_leaves(_numpy_leaf, self._iterator._advance())

    next = __next__

    def __repr__(self) -> str:
        return f"NumpyIterator(iterator={self._iterator!r})"


def _numpy_leaf(leaf: Any) -> Any:
    if hasattr(leaf, "_elements"):
        return leaf.as_numpy_iterator()
    if isinstance(leaf, SparseTensor):
        return structure.to_dense_array(leaf)    # TF gives a SparseTensor's dense array
    leaf = read_only_view(np.asarray(leaf))  # as TF: read-only, the dataset may share it
    return leaf[()] if leaf.ndim == 0 else leaf


__all__ = ["OwnedIterator", "NumpyIterator", "to_tensors"]
