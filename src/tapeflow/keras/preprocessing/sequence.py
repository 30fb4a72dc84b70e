"""`keras.preprocessing.sequence`: `pad_sequences` (from `keras.utils`)."""

from tapeflow.keras.utils.sequence_utils import pad_sequences

__all__ = ["pad_sequences"]
