"""Sources that read Python generators and files: from_generator, TextLineDataset,
list_files."""

from __future__ import annotations

import glob
import gzip
import itertools
import zlib
from typing import Any, Callable, Iterator, Optional

import numpy as np

from tapeflow.data import structure
from tapeflow.data.dataset_ops import DatasetV2, TensorSliceDataset
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import (DataLossError, InvalidArgumentError, NotFoundError,
                                       UnknownError)
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


# -- TFRecord ---------------------------------------------------------------------------------
# A TFRecord file is a sequence of records: the data's length (uint64 little-endian), the
# masked CRC32C of those 8 bytes, the data, the masked CRC32C of the data.

def _crc_table() -> np.ndarray:
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0x82F63B78), table >> 1)
    return table.astype(np.uint32)


_CRC_TABLE = _crc_table()
_CRC_LIST = _CRC_TABLE.tolist()
_SHIFT_TABLES: dict = {}


def _raw_crcs(rows: np.ndarray) -> np.ndarray:
    """The CRC32C register (from 0, no final xor) after each row of uint8 `rows`."""
    crc = np.zeros(rows.shape[0], np.uint32)
    for j in range(rows.shape[1]):
        crc = _CRC_TABLE[(crc ^ rows[:, j]) & np.uint32(0xFF)] ^ (crc >> np.uint32(8))
    return crc


def _shift_tables(length: int) -> list:
    """Four byte tables whose xor advances a CRC register over `length` zero bytes."""
    tables = _SHIFT_TABLES.get(length)
    if tables is None:
        basis = _raw_crcs_from(np.uint32(1) << np.arange(32, dtype=np.uint32), length)
        tables = []
        for k in range(4):
            byte = np.arange(256, dtype=np.uint32)
            bits = (byte[:, None] >> np.arange(8, dtype=np.uint32)) & np.uint32(1)
            images = np.where(bits == 1, basis[8 * k:8 * k + 8][None, :], np.uint32(0))
            tables.append(np.bitwise_xor.reduce(images, axis=1).tolist())
        _SHIFT_TABLES[length] = tables
    return tables


def _raw_crcs_from(states: np.ndarray, zeros: int) -> np.ndarray:
    crc = states.astype(np.uint32)
    for _ in range(zeros):
        crc = _CRC_TABLE[crc & np.uint32(0xFF)] ^ (crc >> np.uint32(8))
    return crc


def crc32c(data: bytes) -> int:
    """CRC32C (Castagnoli) of `data`: chunks' registers computed side by side with NumPy,
    then chained with the zero-byte shift (the initial ~0 folded into the first 4 bytes)."""
    n = len(data)
    if n < 64:
        crc = 0xFFFFFFFF
        for byte in data:
            crc = _CRC_LIST[(crc ^ byte) & 0xFF] ^ (crc >> 8)
        return crc ^ 0xFFFFFFFF
    width = 16 if n < 4096 else 256
    count = -(-n // width)
    padded = np.zeros(count * width, np.uint8)       # leading zeros leave a 0 register as is
    padded[count * width - n:] = np.frombuffer(data, np.uint8)
    padded[count * width - n:count * width - n + 4] ^= 0xFF
    chunks = _raw_crcs(padded.reshape(count, width)).tolist()
    t0, t1, t2, t3 = _shift_tables(width)
    state = 0
    for chunk in chunks:
        state = (t0[state & 0xFF] ^ t1[(state >> 8) & 0xFF] ^ t2[(state >> 16) & 0xFF] ^
                 t3[state >> 24] ^ chunk)
    return state ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC32C: rotated right by 15 bits plus a constant."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _file_bytes(name: str, compression: str) -> bytes:
    try:
        with open(name, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise _kernel_error(NotFoundError, f"{name}; No such file or directory") from None
    if compression in ("GZIP", "ZLIB"):
        try:
            data = zlib.decompress(data, 31 if compression == "GZIP" else 15)
        except zlib.error as exc:      # "Error -3 while decompressing data: <why>"
            code, _, why = str(exc).partition(" while decompressing data: ")
            raise _kernel_error(DataLossError, f"inflate() failed with error "
                                f"{code.split()[-1]}: {why}") from None
    return data


def read_records(name: str, compression: str) -> Iterator[bytes]:
    """The records of one TFRecord file, checking both CRCs as TF's RecordReader does."""
    data = _file_bytes(name, compression)
    offset, end = 0, len(data)
    while offset < end:
        if end - offset < 12:              # a partial header reads as the end, as TF's
            return
        header = data[offset:offset + 8]
        if masked_crc32c(header) != int.from_bytes(data[offset + 8:offset + 12], "little"):
            suffix = " (Is this even a TFRecord file?)" if offset == 0 else ""
            raise _kernel_error(DataLossError, f"corrupted record at {offset}{suffix}")
        length = int.from_bytes(header, "little")
        start = offset + 12
        if end - start < length + 4:
            raise _kernel_error(DataLossError, f"truncated record at {offset}' failed with "
                                f"Read less bytes than requested")
        record = data[start:start + length]
        if masked_crc32c(record) != int.from_bytes(data[start + length:start + length + 4],
                                                   "little"):
            raise _kernel_error(DataLossError, f"corrupted record at {start}")
        yield record
        offset = start + length + 4


def _round_robin(iterators: Iterator, cycle: int) -> Iterator:
    """Interleave's deterministic order with block_length 1: one element from each of
    `cycle` open iterators in turn, an exhausted one replaced by the next."""
    pending = iter(iterators)
    slots = [it for it in itertools.islice(pending, cycle)]
    while slots:
        i = 0
        while i < len(slots):
            element = next(slots[i], _NOTHING)
            if element is _NOTHING:
                replacement = next(pending, None)
                if replacement is None:
                    del slots[i]
                    continue
                slots[i] = replacement
                continue
            yield element
            i += 1


_NOTHING = object()


class TFRecordDatasetV2(DatasetV2):
    """`tf.data.TFRecordDataset`: the records of the TFRecord files, one string element each
    (file after file, or `num_parallel_reads` files interleaved a record at a time)."""

    _tf_name = "TFRecordDatasetV2"
    _unrollable = False     # files may change from call to call

    def __init__(self, filenames: Any, compression_type: Optional[str] = None,
                 buffer_size: Any = None, num_parallel_reads: Any = None,
                 name: Optional[str] = None) -> None:
        super().__init__(TensorSpec([], _dtypes.string))
        self._names = _filename_source(filenames)
        compression = (compression_type or "").upper()
        # TF reads an unknown compression_type as none (its RecordReader only logs it).
        self._compression = compression if compression in ("GZIP", "ZLIB") else ""
        self._buffer_size = None if buffer_size is None else int(
            np.asarray(getattr(buffer_size, "_value", buffer_size)))
        cycle = None if num_parallel_reads is None else int(
            np.asarray(getattr(num_parallel_reads, "_value", num_parallel_reads)))
        if cycle is not None and cycle < 0:     # AUTOTUNE: TF's cycle is the core count
            import os
            cycle = os.cpu_count() or 1
        self._cycle = cycle

    def _elements(self) -> Iterator:
        if self._buffer_size is not None and self._buffer_size < 0:
            raise _kernel_error(InvalidArgumentError,
                                "`buffer_size` must be >= 0 (0 == no buffering)")
        files = (self._records(name) for name in _names_of(self._names))
        records = itertools.chain.from_iterable(files) if not self._cycle else \
            _round_robin(files, self._cycle)
        return (np.asarray(r, dtype=object) for r in records)

    def _records(self, name: str) -> Iterator:
        yield from read_records(name, self._compression)


def _filename_source(filenames: Any) -> Any:
    """A dataset of names, or the list of names, checked to be strings as TF does."""
    if isinstance(filenames, DatasetV2):
        spec = filenames.element_spec
        if getattr(spec, "dtype", None) != _dtypes.string:
            raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got "
                            f"a dataset of `{getattr(spec, 'dtype', spec)!r}` elements.")
        return filenames
    array = structure.to_numpy(structure.normalize(filenames))
    if array.dtype.kind not in "OSU":
        dtype = _dtypes.from_numpy(array.dtype)
        raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got "
                        f"`{dtype!r}` elements.")
    return [x.decode() if isinstance(x, bytes) else str(x) for x in np.ravel(array)]


def _names_of(source: Any) -> Iterator[str]:
    if isinstance(source, DatasetV2):
        for element in source._elements():
            x = np.asarray(element)[()]
            yield x.decode() if isinstance(x, bytes) else str(x)
    else:
        yield from source


class TFRecordWriter:
    """Writes records to a TFRecord file (`options` "", "GZIP" or "ZLIB"), as
    tf.io.TFRecordWriter: `write(record)`, `flush()`, `close()`, a context manager."""

    def __init__(self, path: str, options: Any = None) -> None:
        compression = (getattr(options, "compression_type", options) or "").upper()
        self._path, self._compression = path, compression
        self._parts: list = []
        self._file = open(path, "wb")

    def write(self, record: Any) -> None:
        """Appends one record (bytes or str)."""
        data = record.encode() if isinstance(record, str) else bytes(record)
        header = len(data).to_bytes(8, "little")
        self._parts += [header, masked_crc32c(header).to_bytes(4, "little"), data,
                        masked_crc32c(data).to_bytes(4, "little")]
        if not self._compression:
            self.flush()

    def flush(self) -> None:
        """Writes what is pending (compressed files are written whole at close)."""
        if not self._compression:
            self._file.write(b"".join(self._parts))
            self._parts = []
            self._file.flush()

    def close(self) -> None:
        """Flushes and closes the file."""
        if self._file.closed:
            return
        if self._compression:
            data = b"".join(self._parts)
            if self._compression == "GZIP":
                self._file.write(gzip.compress(data))
            else:
                self._file.write(zlib.compress(data))
            self._parts = []
        self.flush()
        self._file.close()

    def __enter__(self) -> "TFRecordWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ += ["TFRecordDatasetV2", "TFRecordWriter", "read_records", "crc32c", "masked_crc32c"]
