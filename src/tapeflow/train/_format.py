"""tapeflow's checkpoint file format: a NumPy `.npz` archive of named arrays, no pickle.

Layout: one array per saved value, keyed by its path ('model/0', 'optimizer/3', ...), plus
'__format__' (a string array holding FORMAT). Reading uses `np.load(allow_pickle=False)`, so a
file can never run code. Writing goes to a temporary file in the same directory that is
flushed, fsync'ed and renamed over the target with `os.replace` (atomic on POSIX): a crash
mid-write leaves the previous file intact.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from typing import Mapping

import numpy as np

from tapeflow.framework.errors import DataLossError, NotFoundError

FORMAT = "tapeflow-checkpoint-v1"
_FORMAT_KEY = "__format__"


def write_arrays(path: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Writes `arrays` to `path` atomically (temporary file + fsync + os.replace)."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    payload = {_FORMAT_KEY: np.array(FORMAT)}
    for key, value in arrays.items():
        value = np.asarray(value)
        if value.dtype == object:
            raise TypeError(f"Cannot save '{key}': object arrays are not allowed.")
        payload[key] = value
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".npz", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_arrays(path: str) -> dict:
    """The arrays in a file written by `write_arrays`.

    Raises NotFoundError when there is no file, DataLossError when it is truncated, corrupt,
    or not a tapeflow checkpoint."""
    if not os.path.isfile(path):
        raise NotFoundError(None, None, f"Failed to find any matching files for {path}")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as e:
        raise DataLossError(None, None, f"Unable to read checkpoint file {path}: the file is "
                            f"truncated, corrupted or not a tapeflow checkpoint ({e}).") from e
    fmt = arrays.pop(_FORMAT_KEY, None)
    if fmt is None or str(fmt) != FORMAT:
        raise DataLossError(None, None, f"Unable to read checkpoint file {path}: it is not a "
                            f"tapeflow checkpoint (expected format '{FORMAT}').")
    return arrays


__all__ = ["FORMAT", "write_arrays", "read_arrays"]
