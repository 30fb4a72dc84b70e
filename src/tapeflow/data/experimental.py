"""`tf.data.experimental`: the names TensorFlow users commonly call from it."""

from __future__ import annotations

from typing import Any

from tapeflow.data.dataset_ops import AUTOTUNE
from tapeflow.data.dataset_ops import INFINITE as INFINITE_CARDINALITY
from tapeflow.data.dataset_ops import UNKNOWN as UNKNOWN_CARDINALITY


def cardinality(dataset: Any) -> Any:
    """The dataset's cardinality as a scalar int64 tensor (-1 infinite, -2 unknown)."""
    return dataset.cardinality()


def get_single_element(dataset: Any) -> Any:
    """The dataset's only element (deprecated alias of Dataset.get_single_element)."""
    return dataset.get_single_element()


def assert_cardinality(expected_cardinality: Any) -> Any:
    """A transformation declaring the dataset's cardinality (for apply)."""
    from tapeflow.data.transformations import AssertCardinalityDataset
    return lambda dataset: AssertCardinalityDataset(dataset, int(expected_cardinality))


def ignore_errors(log_warning: bool = False) -> Any:
    """A transformation skipping elements whose computation raised (for apply)."""
    return lambda dataset: dataset.ignore_errors(log_warning)


def enumerate_dataset(start: Any = 0) -> Any:
    """A transformation pairing elements with their index (for apply)."""
    return lambda dataset: dataset.enumerate(start)


def bucket_by_sequence_length(*args: Any, **kwargs: Any) -> Any:
    """A transformation bucketing elements by length (for apply)."""
    return lambda dataset: dataset.bucket_by_sequence_length(*args, **kwargs)


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality",
           "get_single_element", "assert_cardinality", "ignore_errors", "enumerate_dataset",
           "bucket_by_sequence_length"]
