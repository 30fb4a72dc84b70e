"""tapeflow's file format for named arrays (checkpoints, `Dataset.save`, the older weights
files): a NumPy `.npz` archive, no pickle. It sits in `framework` because every layer above
that writes files uses it, with its atomic write.

Layout: one array per saved value, keyed by its path ('model/0', 'optimizer/3', ...), plus
'__format__' (a string array holding FORMAT) and '__keys__' (the saved keys, a manifest).
Reading uses NumPy's `.npy` reader with `allow_pickle=False`, so a file can never run code (it
holds arrays and their names, nothing else). Writing goes to a
temporary file in the same directory that is flushed, fsync'ed and renamed over the target
with `os.replace` (atomic on POSIX): a crash mid-write leaves the previous file intact, and its
temporary (`.<name>.tmp-<pid>-<token>`) is removed by a later write of the same target once it
is stale (see `remove_stale_temporaries`). Every atomic write of tapeflow goes through
`atomic_write`: checkpoints, their `checkpoint` state file, `model.save`, `save_weights`.

Reading refuses, with DataLossError and before allocating anything, what tapeflow never writes:
compressed members (a zip bomb), arrays declaring more bytes than their member holds, members
that are not `.npy` arrays, duplicate names; `allow_pickle=False` refuses object arrays.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
import time
import zipfile
from typing import Any, Callable, Mapping, Optional

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
_MEMBER_SUFFIX = ".npy"   # np.savez's member name for each key
# A temporary's name: `.<target name>.tmp-<writer pid>-<mkstemp's 8 random characters>` (the
# random part is absent in the state-file temporaries of tapeflow before 2026-12).
_TEMP_SUFFIX = r"\.tmp-(?P<pid>[0-9]+)(?:-[a-z0-9_]{8})?"
_DEAD_WRITER_AGE = 60.0     # seconds unmodified before a dead writer's temporary is removed
_ANY_WRITER_AGE = 3600.0    # seconds unmodified before any writer's temporary is removed


def write_arrays(path: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Writes `arrays` to `path` atomically (see `atomic_write`); also removes the stale
    temporaries of the numbered siblings of a `.npz` path (`<prefix>[-<n>].npz`, a
    checkpoint's), or of `path` itself for another name (a `cache(filename)` file)."""
    payload = {_FORMAT_KEY: np.array(FORMAT),
               _KEYS_KEY: np.array(sorted(arrays), dtype=np.str_)}
    for key, value in arrays.items():
        value = np.asarray(value)
        if value.dtype == object:
            raise TypeError(f"Cannot save '{key}': object arrays are not allowed.")
        payload[key] = value
    name = os.path.basename(path)
    prefix = re.sub(r"(?:-[0-9]+)?\.npz$", "", name)
    atomic_write(path, lambda f: np.savez(f, **payload),
                 targets=re.escape(prefix) + r"(?:-[0-9]+)?\.npz" if name.endswith(".npz")
                 else None)


def atomic_write(path: str, write: Callable[[Any], None], targets: Optional[str] = None) -> None:
    """Calls `write(binary file)` on a temporary file beside `path`
    (`.<name>.tmp-<pid>-<random>`), flushes and fsyncs it, gives it the mode the umask gives
    (not mkstemp's 0600) and renames it over `path`: a crash mid-write leaves the old file
    whole.

    First removes the stale temporaries a crashed write of the same target left (see
    `remove_stale_temporaries`); `targets`, a regular expression of file names in the same
    directory, widens "the same target" to a family of names (default: `path`'s name)."""
    directory, name = os.path.split(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    remove_stale_temporaries(directory, targets if targets is not None else re.escape(name))
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


def remove_stale_temporaries(directory: str, targets: str) -> None:
    """Deletes the abandoned temporaries of `atomic_write` (a process killed mid-write leaves
    one behind) whose target's name fully matches the regular expression `targets`.

    Only names of exactly that pattern are candidates, and only stale ones (see `_is_stale`)
    go: a live writer's temporary and every other file stay. Symbolic links are removed as
    links (what they point to is never touched)."""
    pattern = re.compile(r"\.(?:" + targets + ")" + _TEMP_SUFFIX)
    try:
        names = os.listdir(directory)
    except OSError:
        return
    now = time.time()
    for name in names:
        match = pattern.fullmatch(name)
        if match is None:
            continue
        path = os.path.join(directory, name)
        if _is_stale(path, int(match.group("pid")), now):
            try:
                os.unlink(path)
            except OSError:
                pass  # removed meanwhile by another process, or a directory: nothing to do


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
    for an hour whatever its pid says (a writer on another machine or in another container
    sharing the directory has pids this one cannot check, and keeps its file's mtime fresh
    while it writes)."""
    try:
        age = now - os.lstat(path).st_mtime
    except OSError:
        return False  # already gone (renamed by its writer or removed by another cleaner)
    if age > _ANY_WRITER_AGE:
        return True
    return age > _DEAD_WRITER_AGE and pid != os.getpid() and not _process_alive(pid)


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
        with open(path, "rb") as file, zipfile.ZipFile(file) as archive:
            size = os.fstat(file.fileno()).st_size
            arrays = {_member_key(info): _read_member(archive, info, size)
                      for info in _checked_members(archive)}
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


def _checked_members(archive: "zipfile.ZipFile") -> list:
    """The archive's members, refused (ValueError) unless each is what `np.savez` writes: a
    stored (uncompressed, so no member can expand beyond the file's size) `<key>.npy`, each
    key once."""
    members = archive.infolist()
    names = [info.filename for info in members]
    if len(set(names)) != len(names):
        raise ValueError("the archive names a member twice")
    for info in members:
        if not info.filename.endswith(_MEMBER_SUFFIX):
            raise ValueError(f"member {info.filename!r} is not a .npy array")
        if info.compress_type != zipfile.ZIP_STORED:
            raise ValueError(f"member {info.filename!r} is compressed (tapeflow writes none)")
    return members


def _member_key(info: "zipfile.ZipInfo") -> str:
    return info.filename[:-len(_MEMBER_SUFFIX)]


def _read_member(archive: "zipfile.ZipFile", info: "zipfile.ZipInfo",
                 archive_size: int) -> np.ndarray:
    """The `.npy` array of member `info`; ValueError, before allocating it, where its header
    declares more bytes than the member holds (NumPy allocates the declared size first; the
    member's sizes are declared too, so the file's own size bounds them)."""
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(member)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(member)
        else:
            raise ValueError(f"member {info.filename!r} is a .npy file of version {version}")
        declared = math.prod(shape) * dtype.itemsize
        held = min(info.file_size, info.compress_size, archive_size)
        if declared > held:
            raise ValueError(f"member {info.filename!r} declares a {shape} {dtype} array "
                             f"({declared} bytes) but holds at most {held} bytes")
    with archive.open(info) as member:
        return np.lib.format.read_array(member, allow_pickle=False)


_HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
_SSTABLE_MAGIC = bytes.fromhex("57fb808b247547db")   # TF's table magic, the last 8 bytes


def describe_foreign_file(path: str) -> "str | None":
    """What a file that is not a tapeflow checkpoint is, from its bytes (None: unrecognized).

    HDF5 (a Keras `.weights.h5` or `.h5` model), a zip that is a Keras `.keras` archive, or
    TensorFlow's checkpoint index (an SSTable)."""
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
        return ("a TensorFlow checkpoint's '.index' file (a TensorBundle table): restore "
                "the checkpoint by its prefix, the path without '.index'")
    return None


__all__ = ["FORMAT", "LEGACY_SLOT_ORDER", "SavedArrays", "write_arrays", "atomic_write",
           "remove_stale_temporaries", "read_arrays", "describe_foreign_file"]
