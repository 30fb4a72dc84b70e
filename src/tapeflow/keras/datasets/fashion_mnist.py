"""`keras.datasets.fashion_mnist`: 70,000 28x28 grayscale images of 10 kinds of clothing."""

from __future__ import annotations

import gzip
import os

import numpy as np

from tapeflow.keras.datasets._common import ORIGIN_FOLDER
from tapeflow.keras.utils import file_utils

_FILES = ("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
          "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz")
# The IDX headers Keras skips (magic number and sizes), in bytes.
_LABELS_HEADER, _IMAGES_HEADER = 8, 16


def _read(path: str, offset: int) -> np.ndarray:
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


def load_data() -> tuple:
    """`((x_train, y_train), (x_test, y_test))` from Keras's four gzipped IDX files in
    `~/.keras/datasets/fashion-mnist` (downloaded when missing; Keras gives them no hash):
    uint8 images `(n, 28, 28)`, uint8 labels 0-9, read-only views as Keras returns them."""
    subdir = os.path.join("datasets", "fashion-mnist")
    paths = [file_utils.get_file(name, origin=ORIGIN_FOLDER + name, cache_subdir=subdir)
             for name in _FILES]
    y_train = _read(paths[0], _LABELS_HEADER)
    x_train = _read(paths[1], _IMAGES_HEADER).reshape(len(y_train), 28, 28)
    y_test = _read(paths[2], _LABELS_HEADER)
    x_test = _read(paths[3], _IMAGES_HEADER).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)


__all__ = ["load_data"]
