"""Reading one CIFAR batch: a Python 2 pickle of a dict with bytes keys, whose `data` is a
uint8 array of flattened 3x32x32 images (read without running code: `_safe_pickle`)."""

from __future__ import annotations

import os

import numpy as np

from tapeflow.keras import backend
from tapeflow.keras.datasets import _safe_pickle
from tapeflow.keras.utils import file_utils


def extracted_folder(archive_name: str, origin: str, sha256: str, inner: str) -> str:
    """The folder of batches in the extracted archive (downloaded and hashed when missing)."""
    path = file_utils.get_file(fname=archive_name, origin=origin, extract=True,
                               file_hash=sha256)
    return os.path.join(path, inner)


def load_batch(path: str, label_key: str = "labels") -> tuple:
    """`(data, labels)` of a batch: images `(n, 3, 32, 32)` and the labels as stored."""
    with open(path, "rb") as f:
        batch = _safe_pickle.restricted_load(f.read(), encoding="bytes")
    batch = {key.decode("utf8"): value for key, value in batch.items()}
    data = batch["data"]
    return data.reshape(data.shape[0], 3, 32, 32), batch[label_key]


def to_data_format(x_train: np.ndarray, x_test: np.ndarray) -> tuple:
    """The images as `keras.config.image_data_format()` lays them out (stored channels
    first)."""
    if backend.image_data_format() == "channels_last":
        return x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
    return x_train, x_test
