"""`tf.data.experimental`: the names TensorFlow users commonly call from it."""

from __future__ import annotations

from typing import Any

from tapeflow.data.dataset_ops import AUTOTUNE
from tapeflow.data.dataset_ops import INFINITE as INFINITE_CARDINALITY
from tapeflow.data.dataset_ops import UNKNOWN as UNKNOWN_CARDINALITY


def cardinality(dataset: Any) -> Any:
    """The dataset's cardinality as a scalar int64 tensor (-1 infinite, -2 unknown)."""
    return dataset.cardinality()


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality"]
