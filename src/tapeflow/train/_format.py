"""tapeflow's checkpoint file format: a NumPy `.npz` archive of named arrays, no pickle.

Layout: one array per saved value, keyed by its path ('model/0', 'optimizer/3', ...), plus
'__format__' (a string array holding FORMAT) and '__keys__' (the saved keys, a manifest).
Reading uses `np.load(allow_pickle=False)`, so a file can never run code. Writing goes to a
temporary file in the same directory that is flushed, fsync'ed and renamed over the target
with `os.replace` (atomic on POSIX): a crash mid-write leaves the previous file intact, and its
temporary (`.<name>.npz.tmp-<pid>-<token>`) is removed by a later write of the same prefix once
it is stale (see `_is_stale`).
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from typing import Any, Callable, Mapping

import numpy as np

from tapeflow.framework.errors import DataLossError, NotFoundError

FORMAT = "tapeflow-checkpoint-v3"
# v1 files (no manifest) and v2 files stay readable. v3: an optimizer's slots in Keras's order
# (variable by variable); before it, Adam saved all momentums, then all velocities.
LEGACY_SLOT_ORDER = ("tapeflow-checkpoint-v1", "tapeflow-checkpoint-v2")
_FORMATS = LEGACY_SLOT_ORDER + (FORMAT,)
_FORMAT_KEY = "__format__"
# v2 on: the names of the saved arrays, checked on reading: a damaged zip directory can drop
# members without any other error (its entry count is not checksummed).
_KEYS_KEY = "__keys__"
# `.<target file name>.tmp-<writer pid>-<random>`; the prefix is the name without `-<n>.npz`.
_TEMP = re.compile(r"^\.(?P<prefix>.+?)(?:-\d+)?\.npz\.tmp-(?P<pid>\d+)-[^/]*$")
_DEAD_WRITER_AGE = 60.0     # seconds unmodified before a dead writer's temporary is removed
_ANY_WRITER_AGE = 3600.0    # seconds unmodified before any writer's temporary is removed


def write_arrays(path: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Writes `arrays` to `path` atomically (see `atomic_write`)."""
    payload = {_FORMAT_KEY: np.array(FORMAT),
               _KEYS_KEY: np.array(sorted(arrays), dtype=np.str_)}
    for key, value in arrays.items():
        value = np.asarray(value)
        if value.dtype == object:
            raise TypeError(f"Cannot save '{key}': object arrays are not allowed.")
        payload[key] = value
    directory, name = os.path.split(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    _remove_stale_temporaries(directory, re.sub(r"(?:-\d+)?\.npz$", "", name))
    atomic_write(path, lambda f: np.savez(f, **payload))


def atomic_write(path: str, write: Callable[[Any], None]) -> None:
    """Calls `write(binary file)` on a temporary file beside `path`
    (`.<name>.tmp-<pid>-<random>`), flushes and fsyncs it, gives it the mode the umask gives
    (not mkstemp's 0600) and renames it over `path`: a crash mid-write leaves the old file
    whole."""
    directory, name = os.path.split(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.tmp-{os.getpid()}-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True   # exists (another user's), or cannot tell: keep its file
    return True


def _is_stale(path: str, pid: int, now: float) -> bool:
    """Whether a temporary was abandoned: its writer (the pid in its name) is not running on
    this machine and it has not been written to for a minute, or it has not been written to
    for an hour whatever its pid says (a writer on another machine sharing the directory
    keeps its file's mtime fresh while it writes, and renames it as soon as it is done)."""
    try:
        age = now - os.stat(path).st_mtime
    except OSError:
        return False  # already gone (renamed by its writer or removed by another cleaner)
    if age > _ANY_WRITER_AGE:
        return True
    return age > _DEAD_WRITER_AGE and pid != os.getpid() and not _process_alive(pid)


def _remove_stale_temporaries(directory: str, prefix: str) -> None:
    """Deletes abandoned temporaries of checkpoints named `<prefix>[-<n>]` in `directory`
    (a process killed mid-save leaves one behind)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    now = time.time()
    for name in names:
        match = _TEMP.match(name)
        if match and match.group("prefix") == prefix:
            path = os.path.join(directory, name)
            if _is_stale(path, int(match.group("pid")), now):
                try:
                    os.unlink(path)
                except OSError:
                    pass  # removed meanwhile by another process: nothing to do


class SavedArrays(dict):
    """The arrays of a checkpoint file, by key, and the `format` it was written in."""

    def __init__(self, arrays: Mapping[str, np.ndarray], format: str) -> None:  # noqa: A002
        super().__init__(arrays)
        self.format = format


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def read_arrays(path: str) -> SavedArrays:
    """The arrays in a file written by `write_arrays`.

    Raises NotFoundError when there is no file, DataLossError when it is truncated, corrupt,
    or not a tapeflow checkpoint."""
    if not os.path.isfile(path):
        raise NotFoundError(None, None, f"Failed to find any matching files for {path}")
    try:
        # Opened here, not by np.load: np.load leaks its file when a damaged zip fails to open.
        with open(path, "rb") as file, np.load(file, allow_pickle=False) as archive:
            if not hasattr(archive, "files"):
                raise ValueError("not an .npz archive")
            arrays = {key: archive[key] for key in archive.files}
    except Exception as e:  # noqa: BLE001 - a damaged file fails in any of zipfile's, NumPy's
        # header parser's (tokenize, ast) or the decompressor's ways: all are data loss.
        kind = describe_foreign_file(path)
        if kind is not None:
            raise DataLossError(None, None, f"Unable to read checkpoint file {path}: it is not "
                                f"a tapeflow checkpoint but {kind}.") from e
        raise DataLossError(None, None, f"Unable to read checkpoint file {path}: the file is "
                            f"truncated, corrupted or not a tapeflow checkpoint "
                            f"({type(e).__name__}: {e}).") from e
    fmt = arrays.pop(_FORMAT_KEY, None)
    if fmt is None or str(fmt) not in _FORMATS:
        kind = describe_foreign_file(path) or "a NumPy .npz archive of other arrays"
        raise DataLossError(None, None, f"Unable to read checkpoint file {path}: it is not a "
                            f"tapeflow checkpoint but {kind} (expected format '{FORMAT}').")
    keys = arrays.pop(_KEYS_KEY, None)
    if str(fmt) != _FORMATS[0] and \
            (keys is None or sorted(map(str, keys.ravel())) != sorted(arrays)):
        raise DataLossError(None, None, f"Unable to read checkpoint file {path}: the file is "
                            f"corrupted (its arrays do not match its manifest).")
    return SavedArrays(arrays, str(fmt))


_HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
_SSTABLE_MAGIC = bytes.fromhex("57fb808b247547db")   # TF's table magic, the last 8 bytes


def describe_foreign_file(path: str) -> "str | None":
    """What a file that is not a tapeflow checkpoint is, from its bytes (None: unrecognized).

    HDF5 (a Keras `.weights.h5` or `.h5` model), a zip that is a Keras `.keras` archive, or
    TensorFlow's checkpoint index (an SSTable)."""
    import zipfile
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            f.seek(max(0, os.path.getsize(path) - 8))
            tail = f.read(8)
    except OSError:
        return None
    if head == _HDF5_MAGIC:
        return ("an HDF5 file (a Keras '.weights.h5' or '.h5' file: read it with "
                "`model.load_weights`)")
    if head.startswith(b"PK"):
        try:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
        except Exception:  # noqa: BLE001 - a damaged zip fails in many ways: unrecognized
            return None
        if "config.json" in names and "metadata.json" in names:
            return ("a Keras '.keras' model archive (read it with "
                    "`keras.models.load_model`)")
        return None
    if tail == _SSTABLE_MAGIC:
        return ("a TensorFlow checkpoint (a TensorBundle '.index' file), which tapeflow "
                "cannot read: tapeflow reads its own checkpoints ('<prefix>.npz')")
    return None


__all__ = ["FORMAT", "LEGACY_SLOT_ORDER", "SavedArrays", "write_arrays", "atomic_write",
           "read_arrays",
           "describe_foreign_file"]
