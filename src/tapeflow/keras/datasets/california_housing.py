"""`keras.datasets.california_housing`: 20,640 California block groups of the 1990 census, 8
features each, and their median house values (in dollars)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tapeflow.keras.datasets._common import ORIGIN_FOLDER, check_test_split, shuffled_split
from tapeflow.keras.utils import file_utils

_SHA256 = "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f"
_SMALL_ROWS = 600


def load_data(version: str = "large", path: str = "california_housing.npz",
              test_split: float = 0.2, seed: Any = 113) -> tuple:
    """`((x_train, y_train), (x_test, y_test))`: the rows of Keras's
    `california_housing.npz` (`version="small"`: its first 600) shuffled with
    `np.random.RandomState(seed)`, the last `test_split` of them for testing."""
    check_test_split(test_split)
    path = file_utils.get_file(path, origin=f"{ORIGIN_FOLDER}california_housing.npz",
                               file_hash=_SHA256)
    with np.load(path, allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    # Checked after the download, as Keras checks it.
    if version == "small":
        x, y = x[:_SMALL_ROWS], y[:_SMALL_ROWS]
    elif version != "large":
        raise ValueError(f"Argument `version` must be one of 'small', 'large'. Received: "
                         f"version={version}")
    return shuffled_split(x, y, test_split, seed)


__all__ = ["load_data"]
