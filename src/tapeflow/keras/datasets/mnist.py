"""`keras.datasets.mnist`: 70,000 28x28 grayscale handwritten digits."""

from __future__ import annotations

import numpy as np

from tapeflow.keras.datasets._common import ORIGIN_FOLDER
from tapeflow.keras.utils import file_utils

_SHA256 = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"


def load_data(path: str = "mnist.npz") -> tuple:
    """`((x_train, y_train), (x_test, y_test))` from Keras's `mnist.npz` (downloaded into
    `~/.keras/datasets/path` when missing): uint8 images `(60000, 28, 28)` and
    `(10000, 28, 28)`, uint8 labels 0-9."""
    path = file_utils.get_file(fname=path, origin=f"{ORIGIN_FOLDER}mnist.npz",
                               file_hash=_SHA256)
    with np.load(path, allow_pickle=False) as f:
        return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])


__all__ = ["load_data"]
