"""`keras.datasets.reuters`: 11,228 Reuters newswires labelled over 46 topics, as word-index
sequences (words ranked by frequency)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.keras.datasets import _safe_pickle
from tapeflow.keras.datasets._common import ORIGIN_FOLDER, shuffled
from tapeflow.keras.datasets._sequences import (
    drop_long, limit_vocabulary, offset_words, word_index)
from tapeflow.keras.utils import file_utils

_SHA256 = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916"
_WORD_INDEX_MD5 = "4d44cc38712099c9e383dc6e5f11a921"
_LABEL_NAMES = (
    "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply",
    "coffee", "sugar", "trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas",
    "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum", "oilseed", "gold", "tin",
    "strategic-metal", "livestock", "retail", "ipi", "iron-steel", "rubber", "heat", "jobs",
    "lei", "bop", "zinc", "orange", "pet-chem", "dlr", "gas", "silver", "wpi", "hog", "lead")


def load_data(path: str = "reuters.npz", num_words: Optional[int] = None, skip_top: int = 0,
              maxlen: Optional[int] = None, test_split: float = 0.2, seed: Any = 113,
              start_char: Optional[int] = 1, oov_char: Optional[int] = 2,
              index_from: int = 3) -> tuple:
    """`((x_train, y_train), (x_test, y_test))` from Keras's `reuters.npz`, as Keras 3
    returns them: the newswires shuffled with `np.random.RandomState(seed)`, word indices
    shifted by `index_from` and led by `start_char`, wires of `maxlen` words or more dropped,
    words outside `[skip_top, num_words)` replaced by `oov_char` (dropped when it is None),
    the last `test_split` for testing; `x_*` object arrays, `y_*` int labels (topic indices
    into `get_label_names()`). The file's ragged sequences are read with `_safe_pickle`."""
    path = file_utils.get_file(fname=path, origin=f"{ORIGIN_FOLDER}reuters.npz",
                               file_hash=_SHA256)
    f = _safe_pickle.load_npz(path)
    xs, labels = shuffled(np.random.RandomState(seed), f["x"], f["y"])
    if start_char is not None or index_from:
        xs = offset_words(xs, start_char, index_from)
    if maxlen:
        xs, labels = drop_long(maxlen, xs, labels)
    xs = limit_vocabulary(xs, num_words, skip_top, oov_char)
    cut = int(len(xs) * (1 - test_split))
    return ((np.array(xs[:cut], dtype="object"), np.array(labels[:cut])),
            (np.array(xs[cut:], dtype="object"), np.array(labels[cut:])))


def get_word_index(path: str = "reuters_word_index.json") -> dict:
    """The word -> index dict of the Reuters sequences (an index `i` appears in them as
    `i + index_from`)."""
    return word_index(path, "reuters_word_index.json", _WORD_INDEX_MD5)


def get_label_names() -> tuple:
    """The 46 topic names, indexed as the labels."""
    return _LABEL_NAMES


__all__ = ["get_label_names", "get_word_index", "load_data"]
