"""`keras.utils.get_file`: a file downloaded once into Keras's cache (`~/.keras/datasets` or
`$KERAS_HOME`), checked against a hash and optionally extracted, as Keras 3."""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
import zipfile
from typing import Any, Optional

from tapeflow.keras.utils.io_utils import print_msg


def keras_home() -> str:
    """Keras's cache root: `$KERAS_HOME`, else `~/.keras`."""
    return os.environ.get("KERAS_HOME", os.path.join(os.path.expanduser("~"), ".keras"))


def _hasher(algorithm: str, file_hash: Optional[str] = None) -> Any:
    """sha256 when asked, or for 'auto' with a 64-digit hash; md5 otherwise (Keras)."""
    if algorithm == "sha256" or (algorithm == "auto" and file_hash is not None
                                 and len(file_hash) == 64):
        return hashlib.sha256()
    return hashlib.md5()


def hash_file(fpath: str, algorithm: Any = "sha256", chunk_size: int = 65535) -> str:
    """The hex digest of a file's bytes."""
    hasher = _hasher(algorithm) if isinstance(algorithm, str) else algorithm
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath: str, file_hash: str, algorithm: str = "auto",
                  chunk_size: int = 65535) -> bool:
    """Whether the file's hash is `file_hash`."""
    return str(hash_file(fpath, _hasher(algorithm, file_hash), chunk_size)) == str(file_hash)


def _inside(root: str, name: str) -> bool:
    target = os.path.realpath(os.path.join(root, name))
    return os.path.commonpath([os.path.realpath(root), target]) == os.path.realpath(root)


def extract_archive(file_path: str, path: str = ".", archive_format: Any = "auto") -> bool:
    """Extracts a tar or zip file into `path` (members that would land outside it are
    skipped); False when the file is none of `archive_format`."""
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    for kind in formats:
        if kind not in ("tar", "zip"):
            raise NotImplementedError(kind)
        is_kind = tarfile.is_tarfile if kind == "tar" else zipfile.is_zipfile
        if not is_kind(file_path):
            continue
        try:
            if kind == "tar":
                with tarfile.open(file_path) as archive:
                    members = [m for m in archive.getmembers() if _inside(path, m.name)
                               and not (m.issym() or m.islnk())]
                    archive.extractall(path, members=members)
            else:
                with zipfile.ZipFile(file_path) as archive:
                    archive.extractall(path, members=[n for n in archive.namelist()
                                                      if _inside(path, n)])
        except (tarfile.TarError, RuntimeError, KeyboardInterrupt):
            if os.path.isfile(path):
                os.remove(path)
            elif os.path.exists(path):
                shutil.rmtree(path)
            raise
        return True
    return False


def _targets(fname: Any, origin: str, datadir: str, extract: bool) -> tuple:
    """(download path, extraction folder or None), named as Keras names them."""
    provided = fname
    fname = os.fspath(fname) if fname is not None else None
    if not fname:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(f"Can't parse the file name from the origin provided: '{origin}'."
                             "Please specify the `fname` argument.")
    elif os.sep in fname:
        raise ValueError("Paths are no longer accepted as the `fname` argument. To specify the "
                         "file's parent directory, use the `cache_dir` argument. Received: "
                         f"fname={fname}")
    if not extract:
        return os.path.join(datadir, fname), None
    if provided and "." in fname:
        stem = fname[:fname.find(".")]
        return os.path.join(datadir, fname), os.path.join(datadir, f"{stem}_extracted")
    return os.path.join(datadir, f"{fname}_archive"), os.path.join(datadir, fname)


def _download(origin: str, target: str) -> None:
    from tapeflow.keras.utils.progbar import Progbar
    print_msg(f"Downloading data from {origin}")
    state: dict = {}

    def progress(block_num: int, block_size: int, total_size: int) -> None:
        total = None if total_size == -1 else total_size
        bar = state.setdefault("bar", Progbar(total))
        current = block_num * block_size
        if total is None or current < total:
            bar.update(current)
        elif not state.get("done"):
            bar.update(bar.target)
            state["done"] = True

    try:
        try:
            urllib.request.urlretrieve(origin, target, progress)
        except urllib.error.HTTPError as e:
            raise Exception(f"URL fetch failure on {origin}: {e.code} -- {e.msg}") from e
        except urllib.error.URLError as e:
            raise Exception(f"URL fetch failure on {origin}: {e.errno} -- {e.reason}") from e
    except (Exception, KeyboardInterrupt):
        if os.path.exists(target):
            os.remove(target)
        raise


def get_file(fname: Any = None, origin: Optional[str] = None, untar: bool = False,
             md5_hash: Optional[str] = None, file_hash: Optional[str] = None,
             cache_subdir: str = "datasets", hash_algorithm: str = "auto",
             extract: bool = False, archive_format: str = "auto",
             cache_dir: Optional[str] = None, force_download: bool = False) -> str:
    """The local path of the file at `origin` (an http(s), ftp or file:// URL), downloaded
    into `cache_dir/cache_subdir` unless already there with the right `file_hash`; with
    `extract` (or `untar`) the folder the archive was extracted into."""
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    base = os.path.expanduser(cache_dir if cache_dir is not None else keras_home())
    if not os.access(base, os.W_OK):  # a missing folder too, as Keras
        base = os.path.join("/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir(),
                            ".keras")
    datadir = os.path.join(base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    target, extraction_dir = _targets(fname, origin, datadir, extract or untar)
    download = force_download or not os.path.exists(target)
    if not download and file_hash is not None and \
            not validate_file(target, file_hash, algorithm=hash_algorithm):
        print_msg(f"A local file was found, but it seems to be incomplete or outdated because "
                  f"the {hash_algorithm} file hash does not match the original value of "
                  f"{file_hash} so we will re-download the data.")
        download = True
    if download:
        _download(origin, target)
        if file_hash is not None and not validate_file(target, file_hash,
                                                       algorithm=hash_algorithm):
            raise ValueError(f"Incomplete or corrupted file detected. The {hash_algorithm} "
                             f"file hash does not match the provided value of {file_hash}.")
    if extraction_dir is None:
        return target
    if not extract_archive(target, extraction_dir, "tar" if untar else archive_format):
        warnings.warn("Could not extract archive.", stacklevel=2)
    return extraction_dir


__all__ = ["get_file"]
