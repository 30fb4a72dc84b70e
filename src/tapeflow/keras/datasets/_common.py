"""What several dataset loaders share: Keras's download folder, and the seeded shuffle and
train/test split of the housing datasets."""

from __future__ import annotations

from typing import Any

import numpy as np

# Keras's mirror of the small datasets (CIFAR comes from its authors' site).
ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def check_test_split(test_split: Any) -> None:
    """Keras's check of a housing dataset's `test_split`, made before any download."""
    if not (0 <= test_split < 1):
        raise ValueError(f"Invalid `test_split` argument: {test_split}. It must be between 0 "
                         "and 1 (exclusive of 1).")


def shuffled(rng: np.random.RandomState, *arrays: Any) -> list:
    """`arrays` in one order drawn by `rng.shuffle` over their indices, as Keras draws it (so
    a seed gives Keras's order)."""
    indices = np.arange(len(arrays[0]))
    rng.shuffle(indices)
    return [array[indices] for array in arrays]


def shuffled_split(x: np.ndarray, y: np.ndarray, test_split: float, seed: Any) -> tuple:
    """`((x_train, y_train), (x_test, y_test))`: the rows shuffled with `seed`, the first
    `int(len(x) * (1 - test_split))` for training."""
    x, y = shuffled(np.random.RandomState(seed), x, y)
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))
