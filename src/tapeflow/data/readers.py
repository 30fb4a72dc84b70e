"""Sources that read Python generators and files: from_generator, TextLineDataset,
list_files."""

from __future__ import annotations

import glob
import gzip
import zlib
from typing import Any, Callable, Iterator, Optional

import numpy as np

from tapeflow.data import structure
from tapeflow.data.dataset_ops import DatasetV2, TensorSliceDataset
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import InvalidArgumentError, NotFoundError, UnknownError
from tapeflow.framework.tensor import TensorLike
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.function import TensorSpec


def _kernel_error(cls: type, message: str) -> Exception:
    return cls(None, None, f"{message} [Op:IteratorGetNext]")


class GeneratorDataset(DatasetV2):
    """`from_generator`: each pass calls `generator(*args)` and converts what it yields to the
    signature's dtypes, checking structure and shapes at the offending element as TF."""

    _tf_name = "_FlatMapDataset"
    _unrollable = False     # a Python generator: its elements may change from call to call

    def __init__(self, generator: Callable, output_types: Any = None,
                 output_shapes: Any = None, args: Any = None,
                 output_signature: Any = None) -> None:
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is None:
            if output_types is None:
                raise TypeError("To specify the output signature you need to provide either "
                                "the `output_signature` argument or the `output_types` "
                                "argument.")
            types = structure.map_leaves(_dtypes.as_dtype, output_types)
            shapes = output_shapes if output_shapes is not None else structure.map_leaves(
                lambda _: None, types)
            flat_types, flat_shapes = structure.flatten(types), _flat_shapes(types, shapes)
            output_signature = structure.pack(types, [TensorSpec(s, t) for s, t in
                                                      zip(flat_shapes, flat_types)])
        super().__init__(output_signature)
        self._generator = generator
        self._args = tuple(np.asarray(structure.to_numpy(structure.normalize(a)))
                           for a in (args or ()))
        self._types_text = structure.map_leaves(lambda s: s.dtype, output_signature)

    def _elements(self) -> Iterator:
        spec = self._element_spec
        flat_specs = structure.flatten(spec)
        args = [a[()] if a.ndim == 0 and a.dtype != object else a for a in self._args]
        try:
            values = iter(self._generator(*args))
        except Exception as exc:
            raise _kernel_error(UnknownError, f"{type(exc).__name__}: {exc}") from exc
        while True:
            try:
                value = next(values)
            except StopIteration:
                return
            except Exception as exc:
                raise _kernel_error(UnknownError, f"{type(exc).__name__}: {exc}") from exc
            yield structure.pack(spec, self._converted(value, flat_specs))

    def _converted(self, value: Any, flat_specs: list) -> list:
        try:
            flat = _flatten_up_to(self._element_spec, value)
        except (TypeError, ValueError, KeyError):
            raise _kernel_error(InvalidArgumentError, f"TypeError: `generator` yielded an "
                                f"element that did not match the expected structure. The "
                                f"expected structure was {self._types_text!r}, but the "
                                f"yielded element was {value!r}.") from None
        out = []
        for leaf, s in zip(flat, flat_specs):
            try:
                if isinstance(leaf, TensorLike):
                    leaf = np.asarray(leaf._value)
                array = np.asarray(leaf, dtype=s.dtype.as_numpy_dtype) \
                    if s.dtype != _dtypes.string else _string_array(leaf)
            except (TypeError, ValueError):
                raise _kernel_error(InvalidArgumentError, f"TypeError: `generator` yielded an "
                                    f"element that could not be converted to the expected "
                                    f"type. The expected type was {s.dtype.name}, but the "
                                    f"yielded element was {leaf}.") from None
            if not s.shape.is_compatible_with(array.shape):
                raise _kernel_error(InvalidArgumentError, f"TypeError: `generator` yielded an "
                                    f"element of shape {TensorShape(array.shape)} where an "
                                    f"element of shape {s.shape} was expected.")
            out.append(array)
        return out


def _string_array(leaf: Any) -> np.ndarray:
    array = np.asarray(leaf)
    if array.dtype.kind not in "SUO":
        raise TypeError("not a string")
    return np.vectorize(lambda x: x.encode() if isinstance(x, str) else x,
                        otypes=[object])(array) if array.size else array.astype(object)


def _flat_shapes(types: Any, shapes: Any) -> list:
    if not structure.is_structure(types):
        return [shapes]
    return [s for t, sh in zip(_children(types), _children(shapes)) for s in
            _flat_shapes(t, sh)]


def _children(value: Any) -> list:
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    return list(value)


def _flatten_up_to(spec: Any, value: Any) -> list:
    if not structure.is_structure(spec):
        return [value]
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            raise TypeError("not a dict")
        return [x for k in sorted(spec) for x in _flatten_up_to(spec[k], value[k])]
    if not isinstance(value, (tuple, list)) or len(value) != len(spec):
        raise TypeError("not a sequence")
    return [x for s, v in zip(spec, value) for x in _flatten_up_to(s, v)]


class TextLineDatasetV2(DatasetV2):
    """`tf.data.TextLineDataset`: the lines of the files (without line endings), one string
    element each, file after file; compression_type "" / "GZIP" / "ZLIB"."""

    _tf_name = "TextLineDatasetV2"
    _unrollable = False     # files may change from call to call

    def __init__(self, filenames: Any, compression_type: Optional[str] = None,
                 buffer_size: Any = None, num_parallel_reads: Any = None,
                 name: Optional[str] = None) -> None:
        super().__init__(TensorSpec([], _dtypes.string))
        names = filenames
        if isinstance(names, DatasetV2):
            self._names = names
        else:
            array = structure.to_numpy(structure.normalize(names))
            self._names = [x.decode() if isinstance(x, bytes) else str(x)
                           for x in np.ravel(array)]
        self._compression = (compression_type or "").upper()
        if self._compression not in ("", "GZIP", "ZLIB"):
            raise InvalidArgumentError(None, None, f"Unsupported compression_type: "
                                       f"{compression_type}.")

    def _filenames(self) -> Iterator:
        if isinstance(self._names, DatasetV2):
            for element in self._names._elements():
                x = element[()]
                yield x.decode() if isinstance(x, bytes) else str(x)
        else:
            yield from self._names

    def _elements(self) -> Iterator:
        for name in self._filenames():
            for line in _read_lines(name, self._compression):
                yield np.asarray(line, dtype=object)

def _read_lines(name: str, compression: str) -> Iterator:
    try:
        with open(name, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise _kernel_error(NotFoundError, f"{name}; No such file or directory") from None
    if compression == "GZIP":
        data = gzip.decompress(data)
    elif compression == "ZLIB":
        data = zlib.decompress(data)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for line in lines:
        yield line[:-1] if line.endswith(b"\r") else line


def list_files(file_pattern: Any, shuffle: Optional[bool] = None, seed: Any = None,
               name: Optional[str] = None) -> DatasetV2:
    """The files matching the glob pattern(s), sorted, then shuffled unless shuffle=False
    (with `seed`, as TF's list_files)."""
    array = structure.to_numpy(structure.normalize(file_pattern))
    patterns = [x.decode() if isinstance(x, bytes) else str(x) for x in np.ravel(array)]
    matches = sorted({m for p in patterns for m in glob.glob(p)})
    if not matches:
        raise InvalidArgumentError(
            None, None, f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
            f"Summarized data: b'No files matched pattern: {', '.join(patterns)}'")
    dataset = TensorSliceDataset(np.array([m.encode() for m in matches], dtype=object))
    if shuffle is None or shuffle:
        dataset = dataset.shuffle(len(matches), seed=seed)
    return dataset


__all__ = ["GeneratorDataset", "TextLineDatasetV2", "list_files"]
