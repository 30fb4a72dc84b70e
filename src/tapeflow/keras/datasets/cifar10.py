"""`keras.datasets.cifar10`: 60,000 32x32 colour images of 10 classes."""

from __future__ import annotations

import os

import numpy as np

from tapeflow.keras.datasets._cifar import extracted_folder, load_batch, to_data_format

_ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
_SHA256 = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"
_BATCHES, _BATCH_SIZE = 5, 10000


def load_data() -> tuple:
    """`((x_train, y_train), (x_test, y_test))` from Keras's CIFAR-10 archive (downloaded
    and extracted into `~/.keras/datasets/cifar-10-batches-py-target` when missing): uint8
    images `(50000, 32, 32, 3)` and `(10000, 32, 32, 3)` (channels first under that image
    data format), uint8 labels `(n, 1)` 0-9. Each of the 5 training batches must hold 10,000
    images, as Keras requires."""
    folder = extracted_folder("cifar-10-batches-py-target", _ORIGIN, _SHA256,
                              "cifar-10-batches-py")
    x_train = np.empty((_BATCHES * _BATCH_SIZE, 3, 32, 32), dtype="uint8")
    y_train = np.empty((_BATCHES * _BATCH_SIZE,), dtype="uint8")
    for i in range(_BATCHES):
        rows = slice(i * _BATCH_SIZE, (i + 1) * _BATCH_SIZE)
        x_train[rows], y_train[rows] = load_batch(os.path.join(folder, f"data_batch_{i + 1}"))
    x_test, y_test = load_batch(os.path.join(folder, "test_batch"))
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    x_train, x_test = to_data_format(x_train, x_test)
    return (x_train, y_train), (x_test.astype(x_train.dtype), y_test.astype(y_train.dtype))


__all__ = ["load_data"]
