"""`keras.datasets.imdb`: 50,000 movie reviews labelled by sentiment, as word-index sequences
(words ranked by frequency)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tapeflow.keras.datasets import _safe_pickle
from tapeflow.keras.datasets._common import ORIGIN_FOLDER, shuffled
from tapeflow.keras.datasets._sequences import (
    drop_long, limit_vocabulary, offset_words, word_index)
from tapeflow.keras.utils import file_utils

_SHA256 = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f"
_WORD_INDEX_MD5 = "bfafd718b763782e994055a2d397834f"


def load_data(path: str = "imdb.npz", num_words: Optional[int] = None, skip_top: int = 0,
              maxlen: Optional[int] = None, seed: Any = 113, start_char: Optional[int] = 1,
              oov_char: Optional[int] = 2, index_from: int = 3, **kwargs: Any) -> tuple:
    """`((x_train, y_train), (x_test, y_test))` from Keras's `imdb.npz`, as Keras 3 returns
    them: each split shuffled with one `np.random.RandomState(seed)` (train first), each
    review a list of word indices (shifted by `index_from`, led by `start_char`), reviews of
    `maxlen` words or more dropped, words outside `[skip_top, num_words)` replaced by
    `oov_char` (dropped when it is None); `x_*` object arrays, `y_*` int labels. Other
    keyword arguments are ignored, as Keras ignores them. The file's ragged sequences are
    read with `_safe_pickle` (no code in the file runs)."""
    path = file_utils.get_file(fname=path, origin=f"{ORIGIN_FOLDER}imdb.npz",
                               file_hash=_SHA256)
    f = _safe_pickle.load_npz(path)
    rng = np.random.RandomState(seed)
    x_train, labels_train = shuffled(rng, f["x_train"], f["y_train"])
    x_test, labels_test = shuffled(rng, f["x_test"], f["y_test"])
    if start_char is not None or index_from:
        x_train = offset_words(x_train, start_char, index_from)
        x_test = offset_words(x_test, start_char, index_from)
    else:
        x_train, x_test = [list(x) for x in x_train], [list(x) for x in x_test]
    if maxlen:
        x_train, labels_train = drop_long(maxlen, x_train, labels_train)
        x_test, labels_test = drop_long(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, no "
                             "sequence was kept. Increase maxlen.")
    xs = limit_vocabulary(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([labels_train, labels_test])
    cut = len(x_train)
    return ((np.array(xs[:cut], dtype="object"), labels[:cut]),
            (np.array(xs[cut:], dtype="object"), labels[cut:]))


def get_word_index(path: str = "imdb_word_index.json") -> dict:
    """The word -> index dict of the IMDB sequences (an index `i` appears in them as
    `i + index_from`)."""
    return word_index(path, "imdb_word_index.json", _WORD_INDEX_MD5)


__all__ = ["get_word_index", "load_data"]
