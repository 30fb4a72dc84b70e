"""`keras.datasets.cifar100`: 60,000 32x32 colour images of 100 classes in 20 superclasses."""

from __future__ import annotations

import os

import numpy as np

from tapeflow.keras.datasets._cifar import extracted_folder, load_batch, to_data_format

_ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
_SHA256 = "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"


def load_data(label_mode: str = "fine") -> tuple:
    """`((x_train, y_train), (x_test, y_test))` from Keras's CIFAR-100 archive (downloaded
    and extracted into `~/.keras/datasets/cifar-100-python-target` when missing): uint8
    images `(n, 32, 32, 3)` (channels first under that image data format) and labels
    `(n, 1)` as Keras returns them (int64): the 100 classes for `label_mode="fine"`, the 20
    superclasses for `"coarse"`."""
    if label_mode not in ["fine", "coarse"]:
        raise ValueError('`label_mode` must be one of `"fine"`, `"coarse"`. Received: '
                         f"label_mode={label_mode}.")
    folder = extracted_folder("cifar-100-python-target", _ORIGIN, _SHA256, "cifar-100-python")
    x_train, y_train = load_batch(os.path.join(folder, "train"), f"{label_mode}_labels")
    x_test, y_test = load_batch(os.path.join(folder, "test"), f"{label_mode}_labels")
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    x_train, x_test = to_data_format(x_train, x_test)
    return (x_train, y_train), (x_test, y_test)


__all__ = ["load_data"]
