"""`keras.datasets.boston_housing`: 506 Boston suburbs, 13 attributes each, and their median
house prices (in k$). Keras warns of the dataset's ethical problem (its "B" attribute)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tapeflow.keras.datasets._common import ORIGIN_FOLDER, check_test_split, shuffled_split
from tapeflow.keras.utils import file_utils

_SHA256 = "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5"


def load_data(path: str = "boston_housing.npz", test_split: float = 0.2,
              seed: Any = 113) -> tuple:
    """`((x_train, y_train), (x_test, y_test))`: the rows of Keras's `boston_housing.npz`
    shuffled with `np.random.RandomState(seed)`, the last `test_split` of them for testing."""
    check_test_split(test_split)
    path = file_utils.get_file(path, origin=f"{ORIGIN_FOLDER}boston_housing.npz",
                               file_hash=_SHA256)
    with np.load(path, allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    return shuffled_split(x, y, test_split, seed)


__all__ = ["load_data"]
