"""The word-index sequence handling IMDB and Reuters share, step for step as Keras does it (so
the same file, seed and arguments give Keras's sequences)."""

from __future__ import annotations

import json
from typing import Any, Optional

from tapeflow.keras.datasets._common import ORIGIN_FOLDER
from tapeflow.keras.utils import file_utils


def offset_words(sequences: Any, start_char: Optional[int], index_from: int) -> list:
    """Each sequence as a list, its words shifted by `index_from`, led by `start_char`."""
    if start_char is not None:
        return [[start_char] + [w + index_from for w in x] for x in sequences]
    return [[w + index_from for w in x] for x in sequences]


def drop_long(maxlen: int, sequences: Any, labels: Any) -> tuple:
    """The sequences shorter than `maxlen` and their labels, as two lists."""
    kept = [(x, y) for x, y in zip(sequences, labels) if len(x) < maxlen]
    return [x for x, _ in kept], [y for _, y in kept]


def limit_vocabulary(sequences: list, num_words: Any, skip_top: int,
                     oov_char: Optional[int]) -> list:
    """Words outside `[skip_top, num_words)` replaced by `oov_char`, or dropped when it is
    None. Without `num_words`, the largest word present is the bound, which it excludes
    (as Keras)."""
    if not num_words:
        num_words = max(max(x) for x in sequences)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in sequences]
    return [[w for w in x if skip_top <= w < num_words] for x in sequences]


def word_index(path: str, origin_name: str, md5: str) -> dict:
    """A dataset's word -> index dict from its JSON file, cached as `path`."""
    path = file_utils.get_file(fname=path, origin=f"{ORIGIN_FOLDER}{origin_name}",
                               file_hash=md5)
    with open(path) as f:
        return json.load(f)
