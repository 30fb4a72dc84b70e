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
from tapeflow.data.dataset_spec import is_symbolic
from tapeflow.data.transformations import interleaved, schedulable_cpus
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
        self._names = _filename_source(filenames)
        self._compression = (compression_type or "").upper()
        if self._compression not in ("", "GZIP", "ZLIB"):
            raise InvalidArgumentError(None, None, f"Unsupported compression_type: "
                                       f"{compression_type}.")
        self._cycle = _parallel_reads(num_parallel_reads)
        self._buffer_size = _optional_int(buffer_size)

    def _elements(self) -> Iterator:
        files = (_read_lines(name, self._compression, self._buffer_size)
                 for name in _names_of(self._names))
        lines = itertools.chain.from_iterable(files) if not self._cycle else \
            interleaved(files, self._cycle)
        return (np.asarray(line, dtype=object) for line in lines)


def _optional_int(value: Any) -> Optional[int]:
    """A Python int of an int or scalar tensor argument (None stays None)."""
    return None if value is None else int(np.asarray(getattr(value, "_value", value)))


def _parallel_reads(num_parallel_reads: Any) -> Optional[int]:
    """How many files a reader interleaves (None: one after another); AUTOTUNE (-1) is the
    core count, as TF's cycle length."""
    if num_parallel_reads is None:
        return None
    cycle = _optional_int(num_parallel_reads)
    return schedulable_cpus() if cycle < 0 else cycle


def _read_lines(name: str, compression: str, buffer_size: Optional[int] = None) -> Iterator:
    """The lines of one file, read a buffer at a time: TF's ReadLine drops every "\\r" and
    yields a last line without "\\n" unless it is empty."""
    with _FileStream(name, compression, buffer_size) as stream:
        while True:
            line = stream.read_line()
            if line is None:
                return
            yield line


# -- reading a file a buffer at a time ------------------------------------------------------
# TF's readers hold one buffer of the file (and, compressed, one of inflated bytes), never the
# whole file: memory is bounded by the element being read plus these buffers.

_BUFFER_BYTES = 256 * 1024     # TF's default reader buffer and zlib input/output buffer sizes
_WBITS = {"GZIP": 16 + zlib.MAX_WBITS, "ZLIB": zlib.MAX_WBITS}


class _FileStream:
    """The bytes of one file in order, GZIP / ZLIB inflated as they are read (TF's
    ZlibInputStream); `read(n)` and `read_line()` keep at most one buffer in memory."""

    def __init__(self, name: str, compression: str, buffer_size: Optional[int] = None) -> None:
        size = buffer_size if buffer_size and buffer_size > 0 else _BUFFER_BYTES
        self._file = _open_file(name)
        self._chunks = _inflated(self._file, compression, size) if compression else \
            iter(lambda: self._file.read(size), b"")
        # TF's text when a record's data stops early: the file's, or the inflater's
        self.short_read_text = "EOF reached" if compression else \
            "Read less bytes than requested"
        self._buffer, self._pos = b"", 0

    def __enter__(self) -> "_FileStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._file.close()

    def _refill(self) -> bool:
        """Replaces the (consumed) buffer with the next chunk; False at the end."""
        chunk = next(self._chunks, None)
        self._buffer, self._pos = chunk or b"", 0
        return chunk is not None

    def read(self, n: int) -> bytes:
        """The next `n` bytes (fewer only at the end of the stream)."""
        end = self._pos + n
        if end <= len(self._buffer):
            self._pos = end
            return self._buffer[end - n:end]
        parts = [self._buffer[self._pos:]]
        need = n - len(parts[0])
        while need > 0 and self._refill():
            taken = self._buffer[:need]
            parts.append(taken)
            self._pos = len(taken)
            need -= len(taken)
        return b"".join(parts)

    def read_line(self) -> Optional[bytes]:
        """The next line without its "\\n" and with every "\\r" dropped, as TF's ReadLine;
        None at the end. An error while reading loses the partial line, as TF's."""
        parts = []
        while True:
            newline = self._buffer.find(b"\n", self._pos)
            if newline >= 0:
                parts.append(self._buffer[self._pos:newline])
                self._pos = newline + 1
                return b"".join(parts).replace(b"\r", b"")
            parts.append(self._buffer[self._pos:])
            if not self._refill():
                line = b"".join(parts).replace(b"\r", b"")
                return line or None


def _open_file(name: str) -> Any:
    try:
        return open(name, "rb")
    except FileNotFoundError:
        raise _kernel_error(NotFoundError, f"{name}; No such file or directory") from None


def _inflated(file: Any, compression: str, size: int) -> Iterator[bytes]:
    """The inflated bytes of `file`, read `size` bytes at a time and inflated at most `size`
    bytes per inflate call (an error loses that call's output, as TF's). GZIP reads member
    after member (TF resets the inflater at each stream end); ZLIB stops at its stream's end.
    A truncated stream just ends: TF's ZlibInputStream reports it as end of input."""
    inflater = zlib.decompressobj(_WBITS[compression])
    pending = b""
    while True:
        if not pending:
            pending = file.read(size)
            if not pending:
                return
        try:
            out = inflater.decompress(pending, size)
        except zlib.error as exc:      # "Error -3 while decompressing data: <why>"
            code, _, why = str(exc).partition(" while decompressing data: ")
            raise _kernel_error(DataLossError, f"inflate() failed with error "
                                f"{code.split()[-1]}: {why}") from None
        pending = inflater.unconsumed_tail
        if out:
            yield out
        if inflater.eof:
            if compression == "ZLIB":
                return
            pending = inflater.unused_data
            inflater = zlib.decompressobj(_WBITS[compression])


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
    """A whole file's (inflated) bytes: CsvDataset's input."""
    with _FileStream(name, compression) as stream:
        return b"".join(iter(lambda: stream.read(_BUFFER_BYTES), b""))


_HEADER_BYTES = 12     # the length (8 bytes) and its masked CRC (4)


def read_records(name: str, compression: str,
                 buffer_size: Optional[int] = None) -> Iterator[bytes]:
    """The records of one TFRecord file, read one at a time, checking the length's CRC before
    reading the data and the data's CRC after, as TF's RecordReader does."""
    # TF's buffer_size buffers the file; its inflater keeps its default buffers
    with _FileStream(name, compression, None if compression else buffer_size) as stream:
        offset = 0
        while True:
            header = stream.read(_HEADER_BYTES)
            if len(header) < _HEADER_BYTES:     # a partial header reads as the end, as TF's
                return
            length = _checked_length(header, offset)
            record = _record_data(stream, length, offset)
            yield record
            offset += _HEADER_BYTES + length + 4


def _checked_length(header: bytes, offset: int) -> int:
    if masked_crc32c(header[:8]) != int.from_bytes(header[8:], "little"):
        suffix = " (Is this even a TFRecord file?)" if offset == 0 else ""
        raise _kernel_error(DataLossError, f"corrupted record at {offset}{suffix}")
    return int.from_bytes(header[:8], "little")


def _record_data(stream: _FileStream, length: int, offset: int) -> bytes:
    """The data of the record at `offset`, checked against its CRC. It is read a buffer at a
    time, so a length the file does not hold allocates no more than the file's bytes before
    it is reported truncated (TF's text, at the record's offset)."""
    parts, left = [], length
    while left > 0:
        part = stream.read(min(left, _BUFFER_BYTES))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    crc = stream.read(4) if left == 0 else b""
    if len(crc) < 4:
        raise _kernel_error(DataLossError, f"truncated record at {offset}' failed with "
                            f"{stream.short_read_text}")
    record = b"".join(parts)
    if masked_crc32c(record) != int.from_bytes(crc, "little"):
        raise _kernel_error(DataLossError, f"corrupted record at {offset + _HEADER_BYTES}")
    return record


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
        self._buffer_size = _optional_int(buffer_size)
        self._cycle = _parallel_reads(num_parallel_reads)

    def _elements(self) -> Iterator:
        if self._buffer_size is not None and self._buffer_size < 0:
            raise _kernel_error(InvalidArgumentError,
                                "`buffer_size` must be >= 0 (0 == no buffering)")
        files = (self._records(name) for name in _names_of(self._names))
        records = itertools.chain.from_iterable(files) if not self._cycle else \
            interleaved(files, self._cycle)
        return (np.asarray(r, dtype=object) for r in records)

    def _records(self, name: str) -> Iterator:
        yield from read_records(name, self._compression, self._buffer_size)


def _filename_source(filenames: Any) -> Any:
    """A dataset of names, or the list of names, checked to be strings as TF does. A traced
    name (the argument of an interleave or flat_map function, probed for its element_spec)
    gives no names: the function runs again on each real name."""
    if isinstance(filenames, DatasetV2):
        spec = filenames.element_spec
        if getattr(spec, "dtype", None) != _dtypes.string:
            raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got "
                            f"a dataset of `{getattr(spec, 'dtype', spec)!r}` elements.")
        return filenames
    tensor = structure.normalize(filenames)
    if is_symbolic(tensor):
        if tensor.dtype != _dtypes.string:
            raise TypeError(f"The `filenames` argument must contain `tf.string` elements. "
                            f"Got `{tensor.dtype!r}` elements.")
        return []
    array = structure.to_numpy(tensor)
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

    def __init__(self, path: str, options: Any = None,
                 compression_level: Optional[int] = None) -> None:
        compression = (getattr(options, "compression_type", options) or "").upper()
        self._path, self._compression = path, compression
        # zlib's level (TFRecordOptions.compression_level; None: zlib's default, as TF's)
        self._level = -1 if compression_level is None else int(compression_level)
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
                self._file.write(gzip.compress(data, 9 if self._level < 0 else self._level))
            else:
                self._file.write(zlib.compress(data, self._level))
            self._parts = []
        self.flush()
        self._file.close()

    def __enter__(self) -> "TFRecordWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ += ["TFRecordDatasetV2", "TFRecordWriter", "read_records", "crc32c", "masked_crc32c"]


# -- CSV --------------------------------------------------------------------------------------
# TF's CSVDatasetV2 kernel: RFC 4180 records (fields split by the delimiter, records by \n,
# \r or \r\n, quoted fields with "" escapes); a bad field is reported after its whole record
# is consumed (the first error of the record), so the next record still reads.

_CSV_TYPES = (_dtypes.float32, _dtypes.float64, _dtypes.int32, _dtypes.int64, _dtypes.string)
_INT_FIELD = None
_SPACE = b" \t\n\v\f\r"


def _parse_int(field: bytes, bits: int) -> Any:
    global _INT_FIELD
    if _INT_FIELD is None:
        import re
        _INT_FIELD = re.compile(rb"[ \t\n\v\f\r]*[+-]?[0-9]+[ \t\n\v\f\r]*\Z")
    if not _INT_FIELD.match(field):
        return None
    value = int(field)
    return value if -(1 << (bits - 1)) <= value < (1 << (bits - 1)) else None


_STRTOD: dict = {}


def _parse_float(field: bytes, single: bool) -> Any:
    """C's strtof / strtod (correctly rounded; hex, inf, nan as TF accepts them), the rest
    of the field only whitespace."""
    if not _STRTOD:
        import ctypes
        import ctypes.util
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        for name, restype in (("strtof", ctypes.c_float), ("strtod", ctypes.c_double)):
            fn = getattr(libc, name)
            fn.restype, fn.argtypes = restype, [ctypes.c_char_p,
                                                ctypes.POINTER(ctypes.c_char_p)]
            _STRTOD[name] = fn
        _STRTOD["end"], _STRTOD["byref"] = ctypes.c_char_p(), ctypes.byref
    if b"\0" in field:
        return None
    end = _STRTOD["end"]
    value = _STRTOD["strtof" if single else "strtod"](field, _STRTOD["byref"](end))
    rest = end.value or b""
    if len(rest) == len(field) or rest.strip(_SPACE):
        return None
    return value


def _csv_fields(data: bytes, pos: int, delim: int, quote: bool) -> tuple:
    """One record from `pos`: (fields, first error or None, next pos)."""
    n, fields, error = len(data), [], None
    while True:
        if pos >= n:                       # after a delimiter at the end: an empty field
            fields.append(b"")
            return fields, error, pos
        if quote and data[pos] == 34:
            field, why, pos, end = _quoted_field(data, pos, delim)
        else:
            field, why, pos, end = _unquoted_field(data, pos, delim, quote)
        error = error or why
        fields.append(field)
        if end:
            return fields, error, pos


def _unquoted_field(data: bytes, pos: int, delim: int, quote: bool) -> tuple:
    start, n = pos, len(data)
    while pos < n:
        ch = data[pos]
        if ch == delim:
            return data[start:pos], _quote_error(data, start, pos, quote), pos + 1, False
        if ch == 10 or ch == 13:
            nxt = pos + 1
            if ch == 13 and nxt < n and data[nxt] == 10:
                nxt += 1
            return data[start:pos], _quote_error(data, start, pos, quote), nxt, True
        pos += 1
    return data[start:pos], _quote_error(data, start, pos, quote), pos, True


def _quote_error(data: bytes, start: int, stop: int, quote: bool) -> Any:
    if quote and data.find(b'"', start, stop) >= 0:
        return "Unquoted fields cannot have quotes inside"
    return None


def _quoted_field(data: bytes, pos: int, delim: int) -> tuple:
    start, n, error = pos, len(data), None
    q = pos + 1
    while True:
        q = data.find(b'"', q)
        if q < 0:
            return None, "Reached end of file without closing quoted field in record", n, \
                False
        if q + 1 >= n:
            return _unescaped(data[start:q + 1], error), error, n, True
        nxt = data[q + 1]
        if nxt == delim:
            return _unescaped(data[start:q + 1], error), error, q + 2, False
        if nxt == 10 or nxt == 13:
            after = q + 3 if nxt == 13 and q + 2 < n and data[q + 2] == 10 else q + 2
            return _unescaped(data[start:q + 1], error), error, after, True
        if nxt != 34:
            error = error or "Quote inside a string has to be escaped by another quote"
        q += 2 if nxt == 34 else 1


def _unescaped(field: bytes, error: Any) -> Any:
    return None if error else field[1:-1].replace(b'""', b'"')


class CsvDatasetV2(DatasetV2):
    """`tf.data.experimental.CsvDataset`: one tuple of scalars per CSV record, typed by
    `record_defaults` (a dtype: required; a one-element tensor: its default)."""

    _tf_name = "CsvDatasetV2"
    _unrollable = False

    def __init__(self, filenames: Any, record_defaults: Any, compression_type: Any = None,
                 buffer_size: Any = None, header: bool = False, field_delim: str = ",",
                 use_quote_delim: bool = True, na_value: str = "", select_cols: Any = None,
                 exclude_cols: Any = None) -> None:
        self._names = _filename_source(filenames)
        self._defaults = [_csv_default(d) for d in record_defaults]
        super().__init__(tuple(TensorSpec([], _dtypes.from_numpy(d.dtype)
                                          if d.dtype != object else _dtypes.string)
                               for d in self._defaults))
        self._kinds = [_dtypes.string if d.dtype == object else _dtypes.from_numpy(d.dtype)
                       for d in self._defaults]
        self._compression = _csv_compression(compression_type)
        if buffer_size is not None and int(buffer_size) <= 0:
            raise _csv_op_error("buffer_size should be positive")
        delim = field_delim.encode() if isinstance(field_delim, str) else bytes(field_delim)
        if len(delim) != 1:
            raise _csv_op_error("field_delim should be only 1 char")
        self._delim, self._quote, self._header = delim[0], bool(use_quote_delim), bool(header)
        self._na = na_value.encode() if isinstance(na_value, str) else bytes(na_value)
        self._select = _csv_columns(select_cols, "select_cols")
        self._exclude = _csv_columns(exclude_cols, "exclude_cols")
        if self._select and len(self._select) != len(self._defaults):
            raise _csv_op_error("select_cols should match output size")
        if self._select and self._exclude:
            raise _csv_op_error("Either select_cols or exclude_cols should be empty")

    def _elements(self) -> Iterator:
        for name in _names_of(self._names):
            yield from self._file_records(name)

    def _file_records(self, name: str) -> Iterator:
        data = _file_bytes(name, self._compression)
        pos = 0
        if self._header and data:
            _, error, pos = _csv_fields(data, 0, self._delim, self._quote)
            if error:
                raise _kernel_error(InvalidArgumentError, "Can't read header of file")
        while pos < len(data):
            fields, error, pos = _csv_fields(data, pos, self._delim, self._quote)
            yield self._record(fields, error)

    def _record(self, fields: list, error: Any) -> tuple:
        out: list = []
        select, exclude = self._select, self._exclude
        for i, field in enumerate(fields):
            if select and i not in select or exclude and i in exclude:
                continue
            why = self._convert(field, out) if field is not None or error is None else None
            error = error or why
        if error:
            raise _kernel_error(InvalidArgumentError, error)
        if len(out) != len(self._defaults):
            raise _kernel_error(InvalidArgumentError, f"Expect {len(self._defaults)} fields "
                                f"but have {len(out)} in record")
        return tuple(out)

    def _convert(self, field: bytes, out: list) -> Any:
        """Appends `field` converted (or its default); returns TF's error text, if any."""
        i = len(out)
        if i >= len(self._defaults):
            return f"Expect {len(self._defaults)} fields but have more in record"
        default, kind = self._defaults[i], self._kinds[i]
        out.append(None)
        if field == b"" or field == self._na:
            if default.size != 1:
                return f"Field {i} is required but missing in record!"
            out[i] = default.reshape(())
            return None
        if kind == _dtypes.string:
            out[i] = np.asarray(field, dtype=object)
            return None
        if kind in (_dtypes.int32, _dtypes.int64):
            value = _parse_int(field, 32 if kind == _dtypes.int32 else 64)
        else:
            value = _parse_float(field, kind == _dtypes.float32)
        if value is None:
            label = {"int32": "int32", "int64": "int64", "float32": "float",
                     "float64": "double"}[kind.name]
            return f"Field {i} in record is not a valid {label}: {field.decode(errors='replace')}"
        out[i] = np.asarray(value, kind.as_numpy_dtype)
        return None


def _csv_op_error(message: str) -> Exception:
    return InvalidArgumentError(None, None, f"{message} [Op:CSVDatasetV2]")


def _csv_default(value: Any) -> np.ndarray:
    if isinstance(value, _dtypes.DType) and value in _CSV_TYPES:
        return np.zeros([0], object if value == _dtypes.string else value.as_numpy_dtype)
    if isinstance(value, _dtypes.DType):
        raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                         f"(<class 'tensorflow.python.framework.dtypes.DType'>) to a Tensor.")
    array = structure.to_numpy(structure.normalize(value))
    if array.ndim > 1:
        raise _csv_op_error("Each record default should be at most rank 1")
    if array.size > 1:
        raise _csv_op_error(f"There should only be 1 default per field but field has "
                            f"{array.size}")
    return array


def _csv_compression(value: Any) -> str:
    compression = (value or "")
    compression = compression.decode() if isinstance(compression, bytes) else str(compression)
    if compression not in ("", "GZIP", "ZLIB"):
        raise _csv_op_error(f"Unsupported compression_type: {compression}.")
    return compression


def _csv_columns(value: Any, label: str) -> list:
    if value is None:
        return []
    cols = [int(c) for c in np.ravel(np.asarray(getattr(value, "_value", value)))]
    if any(a >= b for a, b in zip(cols, cols[1:])):
        raise _csv_op_error(f"{label} should be strictly increasing indices")
    if cols and cols[0] < 0:
        raise _csv_op_error(f"{label} should be non-negative indices")
    return cols


__all__ += ["CsvDatasetV2"]


class _FilesDataset(DatasetV2):
    """The records of `make(name)` for each name of a dataset of file names, `cycle` files
    interleaved a record at a time (make_csv_dataset's parallel interleave, deterministic)."""

    _tf_name = "ParallelInterleaveDataset"
    _unrollable = False

    def __init__(self, names: DatasetV2, make: Callable, cycle: int) -> None:
        self._names_ds, self._make, self._cycle = names, make, cycle
        super().__init__(make(None).element_spec)

    def _inputs(self) -> list:
        return [self._names_ds]

    def _elements(self) -> Iterator:
        files = (self._make(name)._elements() for name in _names_of(self._names_ds))
        return interleaved(files, self._cycle)


def _infer_type(value: str, na_value: str, previous: Any) -> Any:
    """TF's make_csv_dataset inference: the least permissive of int32, int64, float32,
    float64, string that every value so far fits."""
    if value in ("", na_value):
        return previous
    order = [_dtypes.int32, _dtypes.int64, _dtypes.float32, _dtypes.float64, _dtypes.string]

    def fits(dtype: Any) -> bool:
        try:
            if dtype == _dtypes.int32:
                return np.int32(value) == np.int64(value)
            if dtype == _dtypes.int64:
                np.int64(value)
                return True
            if dtype in (_dtypes.float32, _dtypes.float64):
                return dtype.as_numpy_dtype(value) < np.inf
        except (ValueError, OverflowError):
            return False
        return True
    for i, dtype in enumerate(order):
        if fits(dtype) and (previous is None or previous in order[:i + 1]):
            return dtype
    return _dtypes.string


def make_csv_dataset(file_pattern: Any, batch_size: int, column_names: Any = None,
                     column_defaults: Any = None, label_name: Any = None,
                     select_columns: Any = None, field_delim: str = ",",
                     use_quote_delim: bool = True, na_value: str = "", header: bool = True,
                     num_epochs: Any = None, shuffle: bool = True,
                     shuffle_buffer_size: int = 10000, shuffle_seed: Any = None,
                     prefetch_buffer_size: Any = None, num_parallel_reads: Any = None,
                     sloppy: bool = False, num_rows_for_inference: Any = 100,
                     compression_type: Any = None, ignore_errors: bool = False,
                     encoding: str = "utf-8") -> DatasetV2:
    """`tf.data.experimental.make_csv_dataset`: batches of (OrderedDict of feature columns,
    label) from CSV files, with TF's column-name and type inference, shuffle and repeat."""
    import collections
    import csv
    patterns = file_pattern if isinstance(file_pattern, list) else [file_pattern]
    if isinstance(file_pattern, list) and not file_pattern:
        raise ValueError("Argument `file_pattern` should not be empty.")
    filenames = [m for p in patterns for m in glob.glob(p)]
    if not filenames:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    if compression_type not in (None, "", "GZIP"):
        raise ValueError(f"`compression_type` {compression_type} is not supported for "
                         f"probing columns." if compression_type == "ZLIB" else
                         f"Received unknown `compression_type` {compression_type}. "
                         f"Expected: GZIP, ZLIB or  (empty string).")
    opener = (lambda n: gzip.open(n, "rt", encoding=encoding, newline="")) \
        if compression_type == "GZIP" else \
        (lambda n: open(n, "r", encoding=encoding, newline=""))
    quoting = csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is "
                             "provided.")
        column_names = _csv_header(filenames, opener, field_delim, quoting)
    if len(column_names) != len(set(column_names)):
        names = sorted(column_names)
        twice = {a for a, b in zip(names, names[1:]) if a == b}
        raise ValueError("Either `column_names` argument or CSV header row contains "
                         f"duplicate column names: {twice}.")
    select = None if select_columns is None else _sorted_columns(select_columns, column_names)
    if column_defaults is not None:
        defaults = list(column_defaults)
    else:
        defaults = _inferred_defaults(filenames, opener, len(column_names), field_delim,
                                      quoting, na_value, header, num_rows_for_inference, select)
    if select is not None and len(defaults) != len(select):
        raise ValueError(f"If specified, `column_defaults` and `select_columns` must have the "
                         f"same length: `column_defaults` has length {len(defaults)}, "
                         f"`select_columns` has length {len(select)}.")
    if select is not None and len(column_names) > len(select):
        column_names = [column_names[i] for i in select]
    if label_name is not None and label_name not in column_names:
        raise ValueError(f"`label_name` provided must be one of the columns: {column_names}. "
                         f"Received: {label_name}.")

    def file_dataset(name: Any) -> DatasetV2:
        ds = CsvDatasetV2(name if name is not None else np.zeros(0, object), defaults,
                          compression_type=compression_type, header=header,
                          field_delim=field_delim, use_quote_delim=use_quote_delim,
                          na_value=na_value, select_cols=select)
        return ds.ignore_errors() if ignore_errors else ds

    def to_features(*columns: Any) -> Any:
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is not None:
            return features, features.pop(label_name)
        return features

    names = TensorSliceDataset(np.array([f.encode() for f in filenames], dtype=object))
    if shuffle:
        names = names.shuffle(len(filenames), shuffle_seed)
    cycle = 1 if num_parallel_reads is None else int(num_parallel_reads)
    if cycle < 0:
        cycle = schedulable_cpus()
    dataset = _FilesDataset(names, file_dataset, cycle)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    dataset = dataset.map(to_features)
    return dataset.prefetch(-1 if prefetch_buffer_size is None else prefetch_buffer_size)


def _csv_header(filenames: list, opener: Callable, delim: str, quoting: int) -> list:
    import csv
    names = None
    for name in filenames:
        with opener(name) as f:
            try:
                row = next(csv.reader(f, delimiter=delim, quoting=quoting))
            except StopIteration:
                raise ValueError(f"Failed when reading the header line of {name}. Is it an "
                                 f"empty file?") from None
        if names is None:
            names = row
        elif row != names:
            raise ValueError(f"All input CSV files should have the same column names in the "
                             f"header row. File {name} has different column names.")
    return names


def _sorted_columns(select_columns: list, column_names: list) -> list:
    index = {n: i for i, n in enumerate(column_names)}
    results = []
    for v in select_columns:
        if isinstance(v, int):
            if v < 0 or v >= len(column_names):
                raise ValueError(f"Column index {v} specified in `select_columns` should be > "
                                 f"0  and <= {len(column_names)}, which is the number of "
                                 f"columns.")
            results.append(v)
        elif v not in index:
            raise ValueError(f"Column {v} specified in `select_columns` must be of one of the "
                             f"columns: {index.keys()}.")
        else:
            results.append(index[v])
    unique = sorted(set(results))
    if len(unique) != len(select_columns):
        # TF looks for the duplicates in the de-duplicated list, so it names none: set().
        raise ValueError("The `select_columns` argument contains duplicate columns: "
                         f"{set(a for a, b in zip(unique, unique[1:]) if a == b)}.")
    return unique


def _inferred_defaults(filenames: list, opener: Callable, num_cols: int, delim: str,
                       quoting: int, na_value: str, header: bool, rows: Any,
                       select: Any) -> list:
    import csv
    columns = range(num_cols) if select is None else select
    types: list = [None] * len(columns)
    seen = 0
    for name in filenames:
        with opener(name) as f:
            reader = csv.reader(f, delimiter=delim, quoting=quoting)
            row_num = 1
            if header:
                next(reader, None)
                row_num += 1
            for row in reader:
                if rows is not None and seen >= rows:
                    break
                if len(row) != num_cols:
                    raise ValueError(f"Problem inferring types: CSV row {row_num} has "
                                     f"{len(row)} number of fields. Expected: {num_cols}.")
                row_num += 1
                seen += 1
                for j, c in enumerate(columns):
                    types[j] = _infer_type(row[c], na_value, types[j])
        if rows is not None and seen >= rows:
            break
    types = [t or _dtypes.string for t in types]
    return [np.array([b"" if t == _dtypes.string else 0],
                     object if t == _dtypes.string else t.as_numpy_dtype) for t in types]


__all__ += ["make_csv_dataset"]
