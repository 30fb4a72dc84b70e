"""`keras.preprocessing`: Keras 3's five names here, the `image` and `sequence` helpers and the
dataset builders, re-exported from `keras.utils` (Keras 3 has no `text` module here; the
legacy `Tokenizer` lives only in tf.keras)."""

from tapeflow.keras.preprocessing import image, sequence
from tapeflow.keras.utils.dataset_utils import timeseries_dataset_from_array
from tapeflow.keras.utils.directory_datasets import (
    image_dataset_from_directory, text_dataset_from_directory)

__all__ = ["image", "image_dataset_from_directory", "sequence", "text_dataset_from_directory",
           "timeseries_dataset_from_array"]
