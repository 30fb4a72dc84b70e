"""`keras.utils.pad_sequences`: a list of sequences as one padded 2-D (or deeper) array."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np


def _sample_shape(sequences: Any) -> tuple:
    """The lengths of the sequences and the shape of one step (from the first non-empty
    sequence), with Keras's errors for a non-iterable."""
    lengths, sample_shape = [], None
    for seq in sequences:
        try:
            lengths.append(len(seq))
        except TypeError as e:
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: "
                             f"{seq}") from e
        if sample_shape is None and len(seq):
            sample_shape = np.asarray(seq).shape[1:]
    return lengths, sample_shape or ()


def pad_sequences(sequences: Any, maxlen: Optional[int] = None, dtype: Any = "int32",
                  padding: str = "pre", truncating: str = "pre", value: Any = 0.0
                  ) -> np.ndarray:
    """Pads (or truncates) every sequence to `maxlen` steps (the longest by default), as
    keras.utils.pad_sequences: `padding`/`truncating` 'pre' (default) or 'post' say at which
    end; `value` fills; strings need `dtype=object` or a NumPy string dtype.

    Returns a NumPy array of shape `(len(sequences), maxlen) + step_shape`."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths, sample_shape = _sample_shape(sequences)
    if maxlen is None:
        maxlen = int(np.max(lengths))
    is_str_dtype = dtype is not object and (np.issubdtype(dtype, np.str_) or
                                            np.issubdtype(dtype, np.bytes_))
    if isinstance(value, str) and dtype is not object and not is_str_dtype:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: "
                         f"{type(value)}\nYou should set `dtype=object` for variable length "
                         "strings.")
    out = np.full((len(sequences), maxlen) + tuple(sample_shape), value, dtype=dtype)
    for i, seq in enumerate(sequences):
        if not len(seq):
            continue
        if truncating == "pre":
            kept = seq[-maxlen:]
        elif truncating == "post":
            kept = seq[:maxlen]
        else:
            raise ValueError(f'Truncating type "{truncating}" not understood')
        kept = np.asarray(kept, dtype=dtype)
        if kept.shape[1:] != tuple(sample_shape):
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {i} "
                             f"is different from expected shape {tuple(sample_shape)}")
        if padding == "post":
            out[i, :len(kept)] = kept
        elif padding == "pre":
            out[i, -len(kept):] = kept
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return out


__all__ = ["pad_sequences"]
