"""`tf.io.read_file`, `write_file` and `matching_files`: ops on local files, eagerly and in
`tf.function` graphs (where they run when the graph runs, never while it is traced)."""

from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework.abstract import ShapedArray, dims_text
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import Tensor
from tapeflow.graph.ir import ABSTRACT_AT_TRACE
from tapeflow.io import gfile
from tapeflow.ops.string_ops import _strings

_OBJECT = np.dtype(object)


def _scalar(x: np.ndarray, what: str, op: str) -> bytes:
    if x.ndim != 0:
        raise InvalidArgumentError(f"{what} tensor must be scalar, but had shape: "
                                   f"{dims_text(x.shape)} [Op:{op}]")
    return x[()]


def _read_impl(filename: np.ndarray) -> np.ndarray:
    name = os.fsdecode(_scalar(filename, "Input filename", "ReadFile"))
    path = gfile.local_path(name, " [Op:ReadFile]")
    try:
        with open(path, "rb") as f:
            return np.array(f.read(), dtype=object)
    except OSError as exc:
        raise gfile.os_error(exc, name, " [Op:ReadFile]") from None


def _write_impl(filename: np.ndarray, contents: np.ndarray) -> np.ndarray:
    name = os.fsdecode(_scalar(filename, "Input filename", "WriteFile"))
    data = _scalar(contents, "Contents", "WriteFile")
    path = gfile.local_path(name, " [Op:WriteFile]")
    try:
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)   # as TF's WriteFile
        with open(path, "wb") as f:
            f.write(data)
    except OSError as exc:
        raise gfile.os_error(exc, name, " [Op:WriteFile]") from None
    return np.zeros((0,), np.int8)   # no output: a placeholder the wrapper drops


def _matching_impl(pattern: np.ndarray) -> np.ndarray:
    if pattern.ndim > 1:
        raise InvalidArgumentError(f"Input patterns tensor must be scalar or vector, but had "
                                   f"shape: {dims_text(pattern.shape)} [Op:MatchingFiles]")
    found: list = []
    for item in pattern.reshape(-1).tolist():
        found.extend(sorted(gfile.glob(os.fsdecode(item))))
    out = np.empty(len(found), dtype=object)
    out[:] = [os.fsencode(p) for p in found]
    return out


_READ = Primitive("ReadFile", _read_impl, differentiable=False, stateful=True,
                  shape_rule=lambda f: ShapedArray((), _OBJECT))
_WRITE = Primitive("WriteFile", _write_impl, differentiable=False, stateful=True,
                   side_effect=True, shape_rule=lambda f, c: ShapedArray((0,), np.int8))
_MATCHING = Primitive("MatchingFiles", _matching_impl, differentiable=False, stateful=True,
                      shape_rule=lambda p: ShapedArray((None,), _OBJECT))
ABSTRACT_AT_TRACE.update((_READ, _WRITE, _MATCHING))   # file I/O happens when the graph runs


def read_file(filename: Any, name: Optional[str] = None) -> Tensor:
    """The whole contents of the file `filename` (a scalar string) as a scalar string."""
    return bind(_READ, (_strings(filename, "ReadFile"),))


def write_file(filename: Any, contents: Any, name: Optional[str] = None) -> None:
    """Writes the scalar string `contents` to the file `filename`, creating it and any
    missing directories, replacing what was there. In a graph the write is kept and runs
    in program order."""
    bind(_WRITE, (_strings(filename, "WriteFile", 0), _strings(contents, "WriteFile", 1)))


def matching_files(pattern: Any, name: Optional[str] = None) -> Tensor:
    """The sorted paths matching the glob pattern (a scalar or vector of patterns), as a
    1-D string tensor."""
    return bind(_MATCHING, (_strings(pattern, "MatchingFiles"),))


__all__ = ["matching_files", "read_file", "write_file"]
