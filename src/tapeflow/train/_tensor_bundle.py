"""TensorFlow's tensor bundle: the `.index` table and `.data-NNNNN-of-NNNNN` shards a
checkpoint is (tensorflow/core/util/tensor_bundle), read and written without TensorFlow.

The `.index` file is a LevelDB-style sorted string table (tsl/lib/io/table_builder.cc): data
blocks of prefix-compressed entries (shared key length, unshared length, value length as
varints, then the key's tail and the value) with a restart point every 16 entries and the
restart offsets (uint32) plus their count at the block's end; after each block a trailer of
its compression type (0: none) and the masked CRC32C of block and type; then an empty
metaindex block, an index block mapping each data block's last key to its (offset, size)
handle, and a 48-byte footer holding both handles and the table magic. Keys ascend bytewise:
"" (the `BundleHeaderProto`) first, then one `BundleEntryProto` per tensor naming its dtype,
shape, shard, offset, size and masked CRC32C in the data file. A numeric tensor's bytes there
are its little-endian array; a string tensor's are each element's length as a varint64, a
masked CRC32C of the lengths, then the elements' bytes. The CRCs of a string tensor are taken
over each length as a fixed-width uint32 (uint64 from 4 GiB), not over the varints, as
TensorFlow's WriteStringTensor computes them.

Reading is bounded by what the file holds: every offset and size is checked against the
file's length before anything is read or allocated, every block and tensor CRC is checked,
and nothing recurses. Damage raises DataLossError as TensorFlow's reader does; a missing file
NotFoundError. Nothing read here is ever executed.
"""

from __future__ import annotations

import math
import os
import re
import struct
from typing import Mapping, NamedTuple, Optional

import numpy as np

from tapeflow.data.readers import crc32c, masked_crc32c
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.errors import DataLossError, NotFoundError, UnimplementedError
from tapeflow.framework.npz_format import atomic_write
from tapeflow.io import _wire

TABLE_MAGIC = 0xDB4775248B80FB57
_FOOTER_BYTES = 48               # two block handles padded to 40 bytes, then the magic
_TRAILER_BYTES = 5               # compression type byte + masked CRC32C
_RESTART_INTERVAL = 16           # TF's table::Options().block_restart_interval
_BLOCK_SIZE = 262144             # TF's table::Options().block_size
_BUNDLE_VERSION = 1              # kTensorBundleVersion (BundleHeaderProto.version.producer)
# The keys a table holds, rebuilt, total at most this many bytes per byte of the file (TF's
# own tables share prefixes about 2:1; a crafted one could otherwise ask for gigabytes).
_KEY_BYTES_PER_FILE_BYTE = 64

# DataType enum -> NumPy dtype, for the dtypes a bundle may hold here.
_NUMPY_OF_ENUM = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16,
                  6: np.int8, 8: np.complex64, 9: np.int64, 10: np.bool_, 17: np.uint16,
                  18: np.complex128, 19: np.float16, 22: np.uint32, 23: np.uint64}
_STRING, _BFLOAT16 = 7, 14


class Entry(NamedTuple):
    """One tensor's `BundleEntryProto`: where its bytes are and what they hold."""
    dtype: int
    shape: tuple
    shard_id: int
    offset: int
    size: int
    crc32c: Optional[int]


def data_filename(prefix: str, shard: int = 0, num_shards: int = 1) -> str:
    """`<prefix>.data-00000-of-00001`, TensorFlow's name of a shard."""
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def _loss(path: str, what: str) -> DataLossError:
    """TF's error for a damaged table (TF raises it as an OpError of code UNKNOWN; here it is
    a DataLossError, a subclass of OpError, with TF's text)."""
    if what in (_BAD_MAGIC, _TOO_SHORT):
        return DataLossError(None, None, what)
    return DataLossError(None, None, f"Unable to read file ({path}). Perhaps the file is "
                         "corrupt or was produced by a newer version of TensorFlow with format "
                         f"changes (failed to seek to header entry): {what}")


_BAD_MAGIC = "not an sstable (bad magic number)"
# How TF's errors from its RestoreV2 kernel begin (one variable per op, run eagerly).
RESTORE_OP = ("{{function_node __wrapped__RestoreV2_dtypes_1_device_/job:localhost/replica:0/"
               "task:0/device:CPU:0}} ")
_TOO_SHORT = "file is too short to be an sstable"


def unmask_crc32c(masked: int) -> int:
    """The CRC32C a masked value holds (TF's crc32c::Unmask)."""
    rotated = (masked - 0xA282EAD8) & 0xFFFFFFFF
    return ((rotated >> 17) | (rotated << 15)) & 0xFFFFFFFF


# -- the sorted string table --------------------------------------------------------------------

def _read_block(data: bytes, handle: tuple, path: str) -> bytes:
    """The contents of the block at `handle` (offset, size), its trailer checked."""
    offset, size = handle
    if offset + size + _TRAILER_BYTES > len(data) - _FOOTER_BYTES:
        raise _loss(path, "truncated block read")
    block = data[offset:offset + size]
    kind = data[offset + size]
    stored = int.from_bytes(data[offset + size + 1:offset + size + 5], "little")
    if masked_crc32c(block + bytes([kind])) != stored:
        raise _loss(path, "block checksum mismatch")
    if kind != 0:
        raise UnimplementedError(None, None, f"Unable to read {path}: its blocks are "
                                 f"compressed (type {kind}), which tapeflow does not read "
                                 "(TensorFlow writes checkpoints uncompressed).")
    return block


def _block_entries(block: bytes, path: str, budget: list) -> list:
    """The (key, value) pairs of one block, in order. `budget` ([bytes left]) bounds the
    total size of the keys rebuilt: prefix compression lets a small file declare keys whose
    total length grows quadratically with its size."""
    if len(block) < 4:
        raise _loss(path, "bad block contents")
    restarts = int.from_bytes(block[-4:], "little")
    limit = len(block) - 4 - 4 * restarts
    if restarts < 1 or limit < 0:
        raise _loss(path, "bad block contents")
    entries, key, pos = [], b"", 0
    try:
        while pos < limit:
            shared, pos = _wire.decode_varint(block, pos, limit)
            unshared, pos = _wire.decode_varint(block, pos, limit)
            size, pos = _wire.decode_varint(block, pos, limit)
            if shared > len(key) or unshared + size > limit - pos:
                raise _loss(path, "bad entry in block")
            key = key[:shared] + block[pos:pos + unshared]
            budget[0] -= len(key)
            if budget[0] < 0:
                raise _loss(path, "keys longer in total than the file could hold")
            pos += unshared
            entries.append((key, block[pos:pos + size]))
            pos += size
    except _wire.WireError:
        raise _loss(path, "bad entry in block") from None
    return entries


def _handle(value: bytes, path: str) -> tuple:
    """A BlockHandle's (offset, size)."""
    try:
        offset, pos = _wire.decode_varint(value, 0, len(value))
        size, _ = _wire.decode_varint(value, pos, len(value))
    except _wire.WireError:
        raise _loss(path, "bad block handle") from None
    return offset, size


def read_table(path: str) -> list:
    """Every (key, value) of the table file at `path`, keys strictly ascending."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise _loss(path, "not an sstable (it is a directory)") from None
    if len(data) < _FOOTER_BYTES:
        raise _loss(path, _TOO_SHORT)
    footer = data[-_FOOTER_BYTES:]
    if int.from_bytes(footer[-8:], "little") != TABLE_MAGIC:
        raise _loss(path, _BAD_MAGIC)
    try:
        _, pos = _wire.decode_varint(footer, 0, 40)     # the metaindex handle (unused)
        _, pos = _wire.decode_varint(footer, pos, 40)
    except _wire.WireError:
        raise _loss(path, "bad block handle") from None
    index = _read_block(data, _handle(footer[pos:40], path), path)
    budget = [_KEY_BYTES_PER_FILE_BYTE * len(data)]
    entries = []
    for _, value in _block_entries(index, path, budget):
        block = _read_block(data, _handle(value, path), path)
        entries.extend(_block_entries(block, path, budget))
    if any(a[0] >= b[0] for a, b in zip(entries, entries[1:])):
        raise _loss(path, "keys are not in ascending order")
    return entries


class _BlockBuilder:
    """Builds one block as TF's BlockBuilder does (same bytes)."""

    def __init__(self) -> None:
        self.parts: list = []
        self.size = 0
        self.restarts = [0]
        self.count = 0
        self.last = b""

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.count < _RESTART_INTERVAL:
            limit = min(len(key), len(self.last))
            while shared < limit and key[shared] == self.last[shared]:
                shared += 1
        else:
            self.restarts.append(self.size)
            self.count = 0
        part = (_wire.encode_varint(shared) + _wire.encode_varint(len(key) - shared) +
                _wire.encode_varint(len(value)) + key[shared:] + value)
        self.parts.append(part)
        self.size += len(part)
        self.count += 1
        self.last = key

    def estimated_size(self) -> int:
        return self.size + 4 * len(self.restarts) + 4

    def finish(self) -> bytes:
        return b"".join(self.parts + [struct.pack(f"<{len(self.restarts)}I", *self.restarts),
                                      struct.pack("<I", len(self.restarts))])


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    """LevelDB's BytewiseComparator::FindShortestSeparator."""
    n = min(len(start), len(limit))
    diff = 0
    while diff < n and start[diff] == limit[diff]:
        diff += 1
    if diff < n:
        byte = start[diff]
        if byte < 0xFF and byte + 1 < limit[diff]:
            return start[:diff] + bytes([byte + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    """LevelDB's BytewiseComparator::FindShortSuccessor."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


def build_table(entries: list) -> bytes:
    """The table file holding `entries` ((key, value), keys strictly ascending)."""
    out: list = []
    offset = 0

    def emit(block: bytes) -> bytes:
        nonlocal offset
        trailer = b"\0" + struct.pack("<I", masked_crc32c(block + b"\0"))
        handle = _wire.encode_varint(offset) + _wire.encode_varint(len(block))
        out.extend((block, trailer))
        offset += len(block) + _TRAILER_BYTES
        return handle

    index, block = _BlockBuilder(), _BlockBuilder()
    pending = None   # (last key of the flushed block, its handle): indexed at the next key
    for key, value in entries:
        if pending is not None:
            index.add(_shortest_separator(pending[0], key), pending[1])
            pending = None
        block.add(key, value)
        if block.estimated_size() >= _BLOCK_SIZE:
            pending = (key, emit(block.finish()))
            block = _BlockBuilder()
    if block.count:
        pending = (block.last, emit(block.finish()))
    meta = emit(_BlockBuilder().finish())
    if pending is not None:
        index.add(_short_successor(pending[0]), pending[1])
    handles = meta + emit(index.finish())
    out.append(handles + b"\0" * (40 - len(handles)) + struct.pack("<Q", TABLE_MAGIC))
    return b"".join(out)


# -- the protos -----------------------------------------------------------------------------

def _parse_shape(payload: bytes) -> tuple:
    dims = []
    for field, _, value in _wire.iter_fields(payload):
        if field == 2:
            size = -1
            for sub, _, v in _wire.iter_fields(value):
                if sub == 1:
                    size = _wire.to_signed64(v)
            dims.append(size)
        elif field == 3 and value:
            raise ValueError("unknown rank")
    return tuple(dims)


def _parse_entry(key: bytes, value: bytes, path: str) -> Entry:
    fields = {"dtype": 0, "shape": (), "shard_id": 0, "offset": 0, "size": 0, "crc32c": None}
    try:
        for field, _, v in _wire.iter_fields(value):
            if field == 1:
                fields["dtype"] = v
            elif field == 2:
                fields["shape"] = _parse_shape(v)
            elif field in (3, 4, 5):
                fields[("shard_id", "offset", "size")[field - 3]] = _wire.to_signed64(v)
            elif field == 6:
                fields["crc32c"] = int.from_bytes(v, "little")
            elif field == 7:
                raise UnimplementedError(None, None, f"Unable to read {path}: tensor "
                                         f"{key.decode(errors='replace')!r} is saved in slices "
                                         "(a partitioned variable), which tapeflow does not read.")
    except (_wire.WireError, ValueError):
        raise DataLossError(None, None, f"Unable to read {path}: the entry of "
                            f"{key.decode(errors='replace')!r} is not a valid "
                            "BundleEntryProto") from None
    entry = Entry(**fields)
    if any(d < 0 for d in entry.shape) or min(entry.shard_id, entry.offset, entry.size) < 0:
        raise DataLossError(None, None, f"Unable to read {path}: the entry of "
                            f"{key.decode(errors='replace')!r} declares a negative size.")
    return entry


def _entry_bytes(entry: Entry) -> bytes:
    shape = b"".join(_wire.length_delimited(2, _wire.varint_field(1, d) if d else b"")
                     for d in entry.shape)
    out = _wire.varint_field(1, entry.dtype) + _wire.length_delimited(2, shape)
    for field, value in ((3, entry.shard_id), (4, entry.offset), (5, entry.size)):
        if value:
            out += _wire.varint_field(field, value)
    return out + _wire.field_key(6, _wire.FIXED32) + struct.pack("<I", entry.crc32c)


def _header_bytes(num_shards: int) -> bytes:
    version = _wire.varint_field(1, _BUNDLE_VERSION)
    return _wire.varint_field(1, num_shards) + _wire.length_delimited(3, version)


def _parse_header(value: bytes, path: str) -> int:
    """The number of shards a `BundleHeaderProto` declares (checked as TF checks it)."""
    shards, endianness, producer, min_consumer, bad = 0, 0, 0, 0, []
    try:
        for field, _, v in _wire.iter_fields(value):
            if field == 1:
                shards = _wire.to_signed32(v)
            elif field == 2:
                endianness = v
            elif field == 3:
                for sub, _, w in _wire.iter_fields(v):
                    if sub == 1:
                        producer = _wire.to_signed32(w)
                    elif sub == 2:
                        min_consumer = _wire.to_signed32(w)
                    elif sub == 3:
                        bad.append(_wire.to_signed32(w))
    except _wire.WireError:
        raise DataLossError(None, None, f"Unable to read {path}: its header is not a valid "
                            "BundleHeaderProto") from None
    if endianness != 0:
        raise UnimplementedError(None, None, f"Unable to read {path}: it was written on a "
                                 "big-endian machine, which tapeflow does not read.")
    if min_consumer > _BUNDLE_VERSION or _BUNDLE_VERSION in bad or producer < 0:
        raise DataLossError(None, None, f"Unable to read {path}: its bundle version "
                            f"(producer {producer}, min consumer {min_consumer}) is not one "
                            f"tapeflow (version {_BUNDLE_VERSION}) reads.")
    if shards < 1:
        raise DataLossError(None, None, f"Unable to read {path}: its header declares "
                            f"{shards} shards.")
    return shards


# -- reading --------------------------------------------------------------------------------

class BundleReader:
    """The tensors of the bundle at `prefix`: their entries at once, values on demand."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        path = prefix + ".index"
        table = read_table(path)
        if not table or table[0][0] != b"":
            raise DataLossError(None, None, f"Unable to read {path}: it has no bundle header.")
        self.num_shards = _parse_header(table[0][1], path)
        self.entries: dict = {}
        for key, value in table[1:]:
            try:
                name = key.decode("utf-8")
            except UnicodeDecodeError:
                raise DataLossError(None, None, f"Unable to read {path}: a tensor's name is "
                                    "not UTF-8.") from None
            entry = _parse_entry(key, value, path)
            if entry.shard_id >= self.num_shards:
                raise DataLossError(None, None, f"Unable to read {path}: tensor {name!r} is "
                                    f"in shard {entry.shard_id} of {self.num_shards}.")
            self.entries[name] = entry

    def dtype(self, name: str) -> _dtypes.DType:
        """The tapeflow dtype of tensor `name`."""
        enum = self.entries[name].dtype
        if enum == _STRING:
            return _dtypes.string
        if enum == _BFLOAT16:
            return _dtypes.bfloat16
        if enum not in _NUMPY_OF_ENUM:
            raise UnimplementedError(None, None, f"Tensor {name!r} in {self.prefix} has "
                                     f"DataType {enum}, which tapeflow does not read.")
        return _dtypes.as_dtype(_NUMPY_OF_ENUM[enum])

    def read(self, name: str) -> np.ndarray:
        """The value of tensor `name`, its CRC checked (string tensors as object arrays of
        bytes)."""
        entry = self.entries[name]
        dtype = self.dtype(name)
        shard = data_filename(self.prefix, entry.shard_id, self.num_shards)
        count = math.prod(entry.shape)
        if dtype != _dtypes.string and \
                count * np.dtype(dtype.as_numpy_dtype).itemsize != entry.size:
            raise DataLossError(None, None, f"Checksum does not match: tensor {name!r} "
                                f"declares shape {list(entry.shape)} but {entry.size} bytes.")
        raw = _read_range(shard, entry.offset, entry.size)
        if dtype == _dtypes.string:
            value, checked = _decode_strings(raw, count, name)
        else:
            value, checked = np.frombuffer(raw, dtype.as_numpy_dtype).copy(), raw
        if entry.crc32c is not None and masked_crc32c(checked) != entry.crc32c:
            raise DataLossError(None, None, f"{RESTORE_OP}TensorBundle at {self.prefix} shard "
                                f"{entry.shard_id} ({entry.size} bytes): Checksum does not "
                                f"match: stored {unmask_crc32c(entry.crc32c)} vs. calculated "
                                f"on the restored bytes {crc32c(checked)} [Op:RestoreV2]")
        return value.reshape(entry.shape)


def _read_range(path: str, offset: int, size: int) -> bytes:
    try:
        with open(path, "rb") as f:
            length = os.fstat(f.fileno()).st_size
            if offset + size > length:
                raise DataLossError(None, None, f"Unable to read {path}: a tensor at offset "
                                    f"{offset} of {size} bytes is past the file's end "
                                    f"({length} bytes).")
            f.seek(offset)
            return f.read(size)
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from None


def _decode_strings(raw: bytes, count: int, name: str) -> tuple:
    """(the `count` strings in `raw` as an object array of bytes, the bytes the entry's CRC
    covers)."""
    if count > len(raw):
        raise DataLossError(None, None, f"Tensor {name!r} declares {count} strings in "
                            f"{len(raw)} bytes.")
    lengths, pos = [], 0
    try:
        for _ in range(count):
            length, pos = _wire.decode_varint(raw, pos, len(raw))
            lengths.append(length)
    except _wire.WireError:
        raise DataLossError(None, None, f"Tensor {name!r}: bad string lengths.") from None
    summed = _fixed_lengths(lengths)
    if pos + 4 + sum(lengths) != len(raw) or \
            masked_crc32c(summed) != int.from_bytes(raw[pos:pos + 4], "little"):
        raise DataLossError(None, None, f"Tensor {name!r}: its string lengths do not match "
                            "their checksum or its size.")
    out = np.empty(count, dtype=object)
    pos += 4
    for i, length in enumerate(lengths):
        out[i] = raw[pos:pos + length]
        pos += length
    return out, summed + raw[len(raw) - 4 - sum(lengths):]


# -- writing --------------------------------------------------------------------------------

def _tensor_bytes(value: np.ndarray, dtype: _dtypes.DType) -> tuple:
    """(the bytes of `value` in a data shard, their masked CRC32C as the entry holds it)."""
    if dtype == _dtypes.string:
        items = [v if isinstance(v, bytes) else str(v).encode("utf-8")
                 for v in np.asarray(value, dtype=object).reshape(-1)]
        lengths = b"".join(_wire.encode_varint(len(v)) for v in items)
        summed = _fixed_lengths([len(v) for v in items])
        checksum = struct.pack("<I", masked_crc32c(summed))
        data = lengths + checksum + b"".join(items)
        return data, masked_crc32c(summed + checksum + b"".join(items))
    array = np.ascontiguousarray(value, dtype=np.dtype(dtype.as_numpy_dtype).newbyteorder("<"))
    data = array.tobytes()
    return data, masked_crc32c(data)


def _fixed_lengths(lengths: list) -> bytes:
    """The string lengths as TensorFlow checksums them: uint32 each, uint64 from 4 GiB."""
    return b"".join(struct.pack("<I" if n <= 0xFFFFFFFF else "<Q", n) for n in lengths)


def write_bundle(prefix: str, tensors: Mapping[str, tuple]) -> None:
    """Writes `tensors` ({name: (value, tapeflow dtype)}) as the bundle at `prefix`: the data
    shard first (tensors in the mapping's order, as TF's SaveV2 writes them in its op's
    order), then the index, each atomically (the index names only complete data)."""
    entries, parts, offset = [], [], 0
    for name in tensors:
        value, dtype = tensors[name]
        data, crc = _tensor_bytes(value, dtype)
        shape = tuple(int(d) for d in np.shape(value))
        entry = Entry(dtype.as_datatype_enum, shape, 0, offset, len(data), crc)
        entries.append((name.encode("utf-8"), _entry_bytes(entry)))
        parts.append(data)
        offset += len(data)
    # A write also removes the stale temporaries a killed write of this checkpoint or of a
    # numbered sibling (`<name>-<n>`) left behind.
    stem = re.sub(r"-[0-9]+$", "", os.path.basename(prefix))
    targets = re.escape(stem) + r"(?:-[0-9]+)?\.(?:index|data-[0-9]{5}-of-[0-9]{5}|npz)"
    atomic_write(data_filename(prefix), lambda f: f.write(b"".join(parts)), targets)
    table = build_table([(b"", _header_bytes(1))] + sorted(entries))
    atomic_write(prefix + ".index", lambda f: f.write(table), targets)


__all__ = ["BundleReader", "Entry", "build_table", "data_filename", "read_table",
           "unmask_crc32c", "write_bundle", "RESTORE_OP"]
