"""Keras 3's `.keras` assets: files an object writes with `save_assets(dir_path)` and reads
with `load_assets(dir_path)` (the lookup layers' 'vocabulary.txt'), kept in the archive
under 'assets/<the object's inner path>/' (the path `weights.walk` gives it, as Keras's
`_save_state`/`_load_state` and DiskIOStore place them).

Writing: each object that defines `save_assets` gets its (new) directory in a temporary
tree, whose files then go into the zip, sorted. Reading, as Keras, happens only when the
archive holds more than its three members; it trusts nothing in the file: only members
under 'assets/' are extracted, into a new temporary directory, and only as regular files
(tapeflow writes them itself, so no link, device or permission comes from the file); a name
that is absolute, holds '..', '.', an empty part or a backslash, or a symbolic link is
skipped with Keras's warning; a member declaring far more than it stores (Keras's bomb
rule), assets larger than `MAX_ASSET_BYTES` in all or with more than `MAX_ASSET_MEMBERS`
members, or members that clash (a file where a
directory is, twice the same name) raise ValueError before any layer reads them. Nothing in
the assets is executed: the layers parse their own files (a lookup: text lines). An object
whose `load_assets` fails is listed in Keras's "could not be loaded" ValueError.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import warnings
import zipfile
from typing import Any, Optional

from tapeflow.keras.saving import weights

ASSETS = "assets"
# All assets of one file together: far above any vocabulary, far below a disk-filling bomb.
MAX_ASSET_BYTES = 1 << 30
# Members under 'assets/' (a lookup writes one file): a bound on the files and directories
# a hostile archive can make tapeflow create.
MAX_ASSET_MEMBERS = 1 << 16
# Keras's `_reject_zip_extract_bomb`: above 256 MiB declared, at most 100 times the bytes
# stored.
_BOMB_FLOOR_BYTES = 1 << 28
_MAX_EXPANSION = 100
_COPY_CHUNK = 1 << 20


def _asset_objects(model: Any, hook: str) -> list:
    """[(inner path, object, index in walk)] for the objects that define `hook`."""
    return [(path, obj, i) for i, (path, obj) in enumerate(weights.walk(model))
            if callable(getattr(obj, hook, None))]


def save_to_dir(model: Any, root: str, objects: Optional[list] = None) -> None:
    """Calls `save_assets` of every object of `model` that has it (`objects`, when given),
    each with its own directory '<root>/<inner path>' (made first), as Keras's asset store
    makes it."""
    for path, obj, _ in objects if objects is not None else \
            _asset_objects(model, "save_assets"):
        directory = os.path.join(root, *path.split("/")) if path else root
        os.makedirs(directory, exist_ok=True)
        obj.save_assets(directory)


def _files(root: str) -> list:
    """[(path on disk, path under root with '/')] of the regular files under `root`, sorted."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            found.append((full, os.path.relpath(full, root).replace(os.sep, "/")))
    return found


def write_to_zip(model: Any, archive: zipfile.ZipFile) -> None:
    """Writes the assets of `model` into `archive` as 'assets/...' members (none when no
    object writes a file: Keras's zip has no directory entries)."""
    objects = _asset_objects(model, "save_assets")
    if not objects:
        return  # no temporary directory for the (many) models without assets
    with tempfile.TemporaryDirectory() as tmp:
        save_to_dir(model, tmp, objects)
        for full, relative in _files(tmp):
            archive.write(full, f"{ASSETS}/{relative}")


def write_to_directory(model: Any, dirpath: str) -> None:
    """Keras's unzipped layout: the assets in '<dirpath>/assets'. Keras 3.15 makes that
    directory (empty when no object writes a file) for an absolute `dirpath`; for a relative
    one its asset store lands in a discarded temporary directory, so an adapted vocabulary
    is lost. tapeflow writes the directory there too, but only when it holds files: the
    layout is Keras's, and the vocabulary is kept (Keras reads it back)."""
    objects = _asset_objects(model, "save_assets")
    if not objects:
        if os.path.isabs(dirpath):
            os.makedirs(os.path.join(dirpath, ASSETS), exist_ok=True)
        return
    with tempfile.TemporaryDirectory() as tmp:
        save_to_dir(model, tmp, objects)
        if os.path.isabs(dirpath) or _files(tmp):
            shutil.copytree(tmp, os.path.join(dirpath, ASSETS), dirs_exist_ok=True)


# -- reading ------------------------------------------------------------------------------------

def _safe_parts(relative: str) -> Optional[list]:
    """The parts of a member's name under 'assets/', or None when it could leave (or
    alias) the directory: absolute, a drive, a backslash, '..', '.', an empty part."""
    if not relative or relative.startswith("/") or "\\" in relative or "\0" in relative:
        return None
    parts = relative.rstrip("/").split("/")
    if any(part in ("", ".", "..") or ":" in part for part in parts):
        return None
    return parts


def _is_link(info: zipfile.ZipInfo) -> bool:
    mode = info.external_attr >> 16
    return info.create_system == 3 and stat.S_ISLNK(mode)


def _check_bomb(info: zipfile.ZipInfo) -> None:
    if info.file_size > _BOMB_FLOOR_BYTES and \
            info.file_size > _MAX_EXPANSION * info.compress_size:
        raise ValueError(f"Not allowed: archive member '{info.filename}' declares "
                         f"{weights._readable_size(info.file_size)} but only "
                         f"{weights._readable_size(info.compress_size)} are stored on disk; "
                         "refusing to extract a potential decompression bomb.")


def _asset_members(archive: zipfile.ZipFile) -> list:
    """[(info, parts)] of the archive's safe 'assets/' members, after the size checks."""
    members, total = [], 0
    for info in archive.infolist():
        if not info.filename.startswith(f"{ASSETS}/"):
            continue
        _check_bomb(info)
        relative = info.filename[len(ASSETS) + 1:]
        if not relative:
            continue  # the 'assets/' directory entry itself
        parts = _safe_parts(relative)
        if parts is None or _is_link(info):
            warnings.warn("Skipping invalid path during archive extraction: "
                          f"'{info.filename}'.", stacklevel=4)
            continue
        total += 0 if info.is_dir() else info.file_size
        if len(members) >= MAX_ASSET_MEMBERS:
            raise ValueError(f"Refusing to extract the archive's assets: they have more than "
                             f"the {MAX_ASSET_MEMBERS} members a model's assets may have.")
        if total > MAX_ASSET_BYTES:
            raise ValueError(f"Refusing to extract the archive's assets: they declare more "
                             f"than the {MAX_ASSET_BYTES} bytes a model's assets may have.")
        members.append((info, parts))
    return members


def _extract(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: str) -> None:
    """One member as a new regular file (or directory), at most its declared size."""
    if info.is_dir():
        os.makedirs(target, exist_ok=True)
        return
    os.makedirs(os.path.dirname(target), exist_ok=True)
    left = info.file_size
    with archive.open(info) as source, open(target, "xb") as sink:
        while left > 0:
            chunk = source.read(min(left, _COPY_CHUNK))
            if not chunk:
                break
            sink.write(chunk)
            left -= len(chunk)


def extract(archive: zipfile.ZipFile, root: str) -> None:
    """Extracts the archive's 'assets/' members under `root` (see the module docstring)."""
    for info, parts in _asset_members(archive):
        try:
            _extract(archive, info, os.path.join(root, *parts))
        except (OSError, zipfile.BadZipFile) as e:
            raise ValueError(f"Invalid asset member '{info.filename}' in the archive: "
                             f"{e}") from e


def _check_tree(root: str) -> None:
    """An unzipped model's 'assets' on disk: directories and regular files only (no
    symbolic link, which could point anywhere), at most MAX_ASSET_BYTES in all."""
    total = 0
    if os.path.islink(root):
        raise ValueError(f"Not allowed: the assets directory '{root}' is a symbolic link.")
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode) or not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                raise ValueError(f"Not allowed: '{path}' in the model's assets is not a "
                                 "regular file or directory.")
            total += os.lstat(path).st_size if stat.S_ISREG(mode) else 0
    if total > MAX_ASSET_BYTES:
        raise ValueError(f"Refusing to read the model's assets: they hold more than the "
                         f"{MAX_ASSET_BYTES} bytes a model's assets may have.")


def _object_dir(root: str, path: str) -> Optional[str]:
    """Keras's `DiskIOStore.get`: the object's directory when it exists, else None."""
    directory = os.path.join(root, *path.split("/")) if path else root
    return directory if os.path.isdir(directory) else None


def load_from_dir(model: Any, root: str) -> None:
    """Calls `load_assets` of every object of `model` that has it, with its directory
    under `root` (None when the file has none); the objects that fail are reported in
    Keras's ValueError."""
    objects = list(weights.walk(model))
    errors: dict = {}
    for path, obj, index in _asset_objects(model, "load_assets"):
        try:
            obj.load_assets(_object_dir(root, path))
        except Exception as e:  # noqa: BLE001 - Keras lists any object's error, of any class
            errors[index] = e
    if errors:
        weights._report(objects, errors, skip_mismatch=False)


def load_from_zip(model: Any, archive: zipfile.ZipFile) -> None:
    """Loads the assets of a `.keras` archive into `model`: as Keras, only when it holds
    more than its three members (config, metadata, weights)."""
    if len(archive.namelist()) <= 3:
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, ASSETS)
        os.makedirs(root)
        extract(archive, root)
        load_from_dir(model, root)


def load_from_directory(model: Any, dirpath: str) -> None:
    """Loads the assets of Keras's unzipped layout: as Keras, only when the directory holds
    more than three entries; its 'assets' is checked first (`_check_tree`)."""
    if len(os.listdir(dirpath)) <= 3:
        return
    root = os.path.join(dirpath, ASSETS)
    if os.path.lexists(root):
        _check_tree(root)
    load_from_dir(model, root)


__all__ = ["save_to_dir", "write_to_zip", "write_to_directory", "extract", "load_from_dir",
           "load_from_zip", "load_from_directory", "MAX_ASSET_BYTES", "MAX_ASSET_MEMBERS"]
