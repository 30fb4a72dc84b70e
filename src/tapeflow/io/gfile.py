"""`tf.io.gfile`: TensorFlow's file API, on the local file system only.

Paths may be plain or `file://` URLs; another scheme (`gs://`, `s3://`, `hdfs://`) raises
`UnimplementedError` as TensorFlow does for a file system it has no plugin for. Errors are
TensorFlow's classes with its messages (`NotFoundError`: "<path>; No such file or directory").
"""

from __future__ import annotations

import errno
import glob as _glob
import os
import re
import shutil
from typing import Any, Iterator, Optional

from tapeflow.framework.errors import (AlreadyExistsError, FailedPreconditionError,
                                       InvalidArgumentError, NotFoundError, OpError,
                                       PermissionDeniedError, UnimplementedError, UnknownError)

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def local_path(path: Any, suffix: str = "") -> str:
    """`path` (str, bytes or PathLike) as a local path; a non-local scheme raises TF's
    UnimplementedError (`suffix` is appended to its message, e.g. " [Op:ReadFile]")."""
    path = os.fsdecode(os.fspath(path))
    match = _SCHEME.match(path)
    if match:
        if match.group(1) == "file":
            return path[len("file://"):]
        raise UnimplementedError(f"File system scheme '{match.group(1)}' not implemented "
                                 f"(file: '{path}'){suffix}")
    return path


def os_error(exc: OSError, path: str, suffix: str = "") -> OpError:
    """TF's error for a failed system call on `path` ("<path>; <strerror>")."""
    message = f"{path}; {os.strerror(exc.errno) if exc.errno else exc}{suffix}"
    cls = {errno.ENOENT: NotFoundError, errno.ENOTDIR: FailedPreconditionError,
           errno.EISDIR: FailedPreconditionError, errno.EACCES: PermissionDeniedError,
           errno.EPERM: PermissionDeniedError, errno.EEXIST: AlreadyExistsError}.get(
               exc.errno, UnknownError)
    return cls(message)


_MODES = ("r", "w", "a", "r+", "w+", "a+")


class GFile:
    """A file, as `tf.io.gfile.GFile(name, mode)`: opened on first use; `read` gives str in
    text modes and bytes in binary modes ("rb"), `write` takes either."""

    def __init__(self, name: Any, mode: str = "r") -> None:
        self._name = os.fsdecode(os.fspath(name))
        self._mode = mode
        if mode.replace("b", "") not in _MODES:
            raise InvalidArgumentError("mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._binary = "b" in mode
        self._read_ok = "r" in mode or "+" in mode
        self._write_ok = "w" in mode or "a" in mode or "+" in mode
        self._file: Optional[Any] = None

    @property
    def name(self) -> str:
        """The path the file was opened with."""
        return self._name

    @property
    def mode(self) -> str:
        """The mode the file was opened with."""
        return self._mode

    def _handle(self) -> Any:
        if self._file is None:
            path = local_path(self._name)
            try:
                self._file = open(path, self._mode.replace("b", "") + "b")
            except OSError as exc:
                raise os_error(exc, self._name) from None
        return self._file

    def _reader(self) -> Any:
        if not self._read_ok:
            raise PermissionDeniedError("File isn't open for reading")
        return self._handle()

    def _decode(self, data: bytes) -> Any:
        return data if self._binary else data.decode("utf-8")

    def size(self) -> int:
        """The file's length in bytes."""
        return stat(self._name).length

    def read(self, n: int = -1) -> Any:
        """Up to `n` bytes (all that are left for n=-1), as str or bytes by mode."""
        return self._decode(self._reader().read(None if n is None or n < 0 else n))

    def readline(self) -> Any:
        """The next line, with its newline ('' at the end of the file)."""
        return self._decode(self._reader().readline())

    def readlines(self) -> list:
        """Every line that is left."""
        return [self._decode(line) for line in self._reader().readlines()]

    def __iter__(self) -> "GFile":
        return self

    def __next__(self) -> Any:
        """The next line; StopIteration at the end of the file."""
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def write(self, file_content: Any) -> None:
        """Appends `file_content` (str, encoded as UTF-8, or bytes)."""
        if not self._write_ok:
            raise PermissionDeniedError("File isn't open for writing")
        if isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        self._handle().write(bytes(file_content))

    def seek(self, offset: Optional[int] = None, whence: int = 0,
             position: Optional[int] = None) -> None:
        """Moves to `offset` relative to `whence` (0 start, 1 current, 2 end)."""
        if position is not None:
            offset = position
        self._handle().seek(offset, whence)

    def seekable(self) -> bool:
        """True: local files can seek."""
        return True

    def tell(self) -> int:
        """The current position in bytes."""
        return self._handle().tell()

    def flush(self) -> None:
        """Writes buffered data to the file."""
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Closes the file (flushing what was written)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> "GFile":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


class FileStatistics:
    """What `stat` returns: `length` (bytes), `mtime_nsec` (whole seconds, in ns, as TF's
    POSIX file system), `is_directory`."""

    def __init__(self, length: int, mtime_nsec: int, is_directory: bool) -> None:
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory


def stat(path: Any) -> FileStatistics:
    """The size, modification time and kind of the file or directory at `path`."""
    local = local_path(path)
    try:
        st = os.stat(local)
    except OSError as exc:
        raise os_error(exc, os.fsdecode(os.fspath(path))) from None
    return FileStatistics(st.st_size, int(st.st_mtime) * 10 ** 9, os.path.isdir(local))


def exists(path: Any) -> bool:
    """Whether a file or directory exists at `path`."""
    return os.path.exists(local_path(path))


def isdir(path: Any) -> bool:
    """Whether `path` is a directory (False for a path on a file system tapeflow lacks)."""
    try:
        return os.path.isdir(local_path(path))
    except UnimplementedError:
        return False


def listdir(path: Any) -> list:
    """The names of the entries of the directory `path` (not '.' or '..')."""
    local = local_path(path)
    if not os.path.isdir(local):
        raise NotFoundError(f"Could not find directory {os.fsdecode(os.fspath(path))}")
    return os.listdir(local)


def glob(pattern: Any) -> list:
    """The paths matching the shell pattern `pattern` (`*`, `?`, `[...]`), hidden files
    included, as TF matches them."""
    pattern = os.fsdecode(os.fspath(pattern))
    local = local_path(pattern)
    prefix = pattern[:len(pattern) - len(local)]
    return [prefix + p for p in _glob.glob(local, include_hidden=True)]


def mkdir(path: Any) -> None:
    """Creates the directory `path` (its parent must exist; an existing one is kept)."""
    local = local_path(path)
    try:
        os.mkdir(local)
    except FileExistsError:
        pass
    except OSError as exc:
        raise os_error(exc, os.fsdecode(os.fspath(path))) from None


def makedirs(path: Any) -> None:
    """Creates the directory `path` and any missing parents."""
    try:
        os.makedirs(local_path(path), exist_ok=True)
    except OSError as exc:
        raise os_error(exc, os.fsdecode(os.fspath(path))) from None


def remove(path: Any) -> None:
    """Deletes the file `path`."""
    local = local_path(path)
    try:
        if os.path.isdir(local):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        os.remove(local)
    except OSError as exc:
        raise os_error(exc, os.fsdecode(os.fspath(path))) from None


def rename(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Moves `src` to `dst`; an existing `dst` raises AlreadyExistsError unless `overwrite`."""
    source, target = local_path(src), local_path(dst)
    if not overwrite and os.path.exists(target):
        raise AlreadyExistsError("file already exists")
    try:
        os.replace(source, target)
    except OSError as exc:
        raise os_error(exc, os.fsdecode(os.fspath(src))) from None


def copy(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Copies the file `src` to `dst`; an existing `dst` raises AlreadyExistsError unless
    `overwrite`."""
    source, target = local_path(src), local_path(dst)
    if not overwrite and os.path.exists(target):
        raise AlreadyExistsError("file already exists")
    try:
        shutil.copyfile(source, target)
    except OSError as exc:
        raise os_error(exc, os.fsdecode(os.fspath(src))) from None


def rmtree(path: Any) -> None:
    """Deletes the directory `path` with everything in it."""
    local = local_path(path)
    if not os.path.exists(local):
        raise NotFoundError(f"{os.fsdecode(os.fspath(path))} not found")
    try:
        shutil.rmtree(local)
    except OSError as exc:
        raise os_error(exc, os.fsdecode(os.fspath(path))) from None


def walk(top: Any, topdown: bool = True, onerror: Optional[Any] = None) -> Iterator[tuple]:
    """(dirname, subdirectory names, file names) for `top` and each directory below it,
    parents before children when `topdown` (after them otherwise); a missing `top` yields
    nothing (or calls `onerror` with the error)."""
    top = os.fsdecode(os.fspath(top))
    try:
        names = listdir(top)
    except (OpError, OSError) as exc:
        if onerror is not None:
            onerror(exc)
        return
    subdirs, files = [], []
    for name in names:
        (subdirs if isdir(join(top, name)) else files).append(name)
    here = (top, subdirs, files)
    if topdown:
        yield here
    for subdir in subdirs:
        yield from walk(join(top, subdir), topdown, onerror)
    if not topdown:
        yield here


def join(path: Any, *paths: Any) -> str:
    """`os.path.join` that keeps a URL scheme's `//` ("gs://a" + "b" -> "gs://a/b")."""
    path = os.fsdecode(os.fspath(path))
    match = _SCHEME.match(path)
    if match:
        scheme = match.group(0)
        return scheme + os.path.join(path[len(scheme):], *[os.fsdecode(p) for p in paths])
    return os.path.join(path, *[os.fsdecode(os.fspath(p)) for p in paths])


def get_registered_schemes() -> list:
    """The URL schemes this file system serves: local files only."""
    return ["file", ""]


__all__ = ["GFile", "copy", "exists", "get_registered_schemes", "glob", "isdir", "join",
           "listdir", "makedirs", "mkdir", "remove", "rename", "rmtree", "stat", "walk"]
