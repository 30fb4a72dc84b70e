"""`keras.utils.PyDataset` (alias `Sequence`): batches produced by Python code, by index."""

from __future__ import annotations

import itertools
import warnings
from typing import Any, Iterator, Optional


class PyDataset:
    """Base class for a dataset of batches computed in Python, as Keras 3's.

    A subclass implements `__getitem__(index)` (one whole batch: `(x,)`, `(x, y)`,
    `(x, y, sample_weight)` or a dict) and `__len__()` (the number of batches), or a
    `num_batches` property returning None for an infinite dataset; `on_epoch_begin()` and
    `on_epoch_end()` run around each epoch of `fit`.

    Args:
      workers: the number of threads `fit` fetches batches on (1: in the training loop).
      use_multiprocessing: accepted for compatibility; tapeflow runs the workers on threads.
      max_queue_size: the most batches fetched ahead when workers > 1.
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False,
                 max_queue_size: int = 10) -> None:
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    def _warn_if_super_not_called(self) -> None:
        missing = False
        for name, default in (("_workers", 1), ("_use_multiprocessing", False),
                              ("_max_queue_size", 10)):
            if not hasattr(self, name):
                setattr(self, name, default)
                missing = True
        if missing:
            warnings.warn("Your `PyDataset` class should call `super().__init__(**kwargs)` in "
                          "its constructor. `**kwargs` can include `workers`, "
                          "`use_multiprocessing`, `max_queue_size`. Do not pass these "
                          "arguments to `fit()`, as they will be ignored.", stacklevel=3)

    @property
    def workers(self) -> int:
        self._warn_if_super_not_called()
        return self._workers

    @workers.setter
    def workers(self, value: int) -> None:
        self._workers = value

    @property
    def use_multiprocessing(self) -> bool:
        self._warn_if_super_not_called()
        return self._use_multiprocessing

    @use_multiprocessing.setter
    def use_multiprocessing(self, value: bool) -> None:
        self._use_multiprocessing = value

    @property
    def max_queue_size(self) -> int:
        self._warn_if_super_not_called()
        return self._max_queue_size

    @max_queue_size.setter
    def max_queue_size(self, value: int) -> None:
        self._max_queue_size = value

    def __getitem__(self, index: int) -> Any:
        """The batch at position `index`."""
        raise NotImplementedError

    def __iter__(self) -> Iterator:
        try:
            count = self.num_batches
        except NotImplementedError:
            count = None
        for index in (range(count) if count is not None else itertools.count()):
            yield self[index]

    @property
    def num_batches(self) -> Optional[int]:
        """The number of batches, or None for an infinite dataset (`len(self)` by default)."""
        if hasattr(self, "__len__"):
            return len(self)
        raise NotImplementedError("You need to implement the `num_batches` property:\n\n"
                                  "@property\ndef num_batches(self):\n  return ...")

    def on_epoch_begin(self) -> None:
        """Called at the beginning of every epoch."""

    def on_epoch_end(self) -> None:
        """Called at the end of every epoch."""


Sequence = PyDataset

__all__ = ["PyDataset", "Sequence"]
