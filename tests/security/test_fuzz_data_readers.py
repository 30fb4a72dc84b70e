"""Seeded mutation fuzzing of TFRecordDataset and TextLineDataset ("", GZIP, ZLIB): hundreds of
damaged files (bytes flipped, spans cut, inserted, repeated or overwritten, forged record
lengths with valid CRCs, truncations), before or after compression. Only DataLossError (the
class TensorFlow documents for corrupt input) may escape, and a TFRecord reader never yields a
record that was not written. The same corpus read by TensorFlow 2.21 gave the same records,
lines and error texts (compared once with a script, not at test time)."""

from __future__ import annotations

import gzip
import random
import struct
import zlib

import pytest

import tapeflow as tf
from tapeflow.data.readers import masked_crc32c

from _tfrecord_files import read_all, record

SEED = 20261207
CASES_PER_READER = 300


RECORDS = [b"", b"a", b"hello world", bytes(range(200)), b"z" * 70, b"\n\r\x00" * 9]
TFRECORD = b"".join(record(r) for r in RECORDS)
TEXT = b"first line\n\nsecond\r\nthird with \r inside\n" + b"long " * 40 + b"\nno newline"
CONTAINERS = {"": lambda d: d, "GZIP": lambda d: gzip.compress(d, mtime=0),
              "ZLIB": zlib.compress}


def _forged_header(rng: random.Random) -> bytes:
    """A record header whose CRC is valid for a length the file does not hold."""
    length = rng.choice([rng.randrange(1 << 8, 1 << 16), 1 << 31, 1 << 40, (1 << 64) - 1])
    header = struct.pack("<Q", length)
    return header + struct.pack("<I", masked_crc32c(header))


def _mutated(data: bytes, rng: random.Random, forge: bool) -> bytes:
    """`data` with one to three random injuries."""
    for _ in range(rng.randint(1, 3)):
        n = len(data)
        at = rng.randrange(n + 1)
        kind = rng.choice(["flip", "cut", "truncate", "insert", "repeat", "overwrite"] +
                          (["forge"] if forge else []))
        if kind == "flip" and n:
            at = min(at, n - 1)
            data = data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:]
        elif kind == "cut":
            data = data[:at] + data[at + rng.randint(1, 16):]
        elif kind == "truncate":
            data = data[:at]
        elif kind == "insert":
            data = data[:at] + rng.randbytes(rng.randint(1, 16)) + data[at:]
        elif kind == "repeat":
            data = data[:at] + data[at:at + rng.randint(1, 40)] + data[at:]
        elif kind == "overwrite":
            data = data[:at] + rng.randbytes(rng.randint(1, 8)) + data[at + 8:]
        elif kind == "forge":
            data = data[:at] + _forged_header(rng) + data[at:]
    return data


def corpus(payload: bytes, forge: bool, count: int, seed: int) -> list:
    """`count` damaged files: (compression_type, bytes, whether the payload is intact)."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        compression = rng.choice(list(CONTAINERS))
        compress = CONTAINERS[compression]
        if compression and rng.random() < 0.5:      # damage the container
            cases.append((compression, _mutated(compress(payload), rng, False), True))
        else:                                       # damage what is inside it
            cases.append((compression, compress(_mutated(payload, rng, forge)), False))
    return cases


def test_fuzzed_tfrecord_files_raise_only_data_loss(tmp_path):
    path = tmp_path / "fuzz.tfrecord"
    errors = 0
    for compression, data, intact_payload in corpus(TFRECORD, True, CASES_PER_READER, SEED):
        path.write_bytes(data)
        got, error = read_all(tf.data.TFRecordDataset(str(path), compression_type=compression),
                              tf.errors.DataLossError)
        errors += error is not None
        assert all(isinstance(r, bytes) for r in got)
        if intact_payload:   # a damaged container yields a prefix of what was written
            assert got == RECORDS[:len(got)]
        else:                # every record yielded passed its CRC: one that was written
            assert set(got) <= set(RECORDS)
    assert errors > CASES_PER_READER // 3        # the corpus does reach the error paths


@pytest.mark.parametrize("buffer_size", [None, 7])
def test_fuzzed_text_files_raise_only_data_loss(tmp_path, buffer_size):
    path = tmp_path / "fuzz.txt"
    errors = 0
    for compression, data, _ in corpus(TEXT, False, CASES_PER_READER, SEED + 1):
        path.write_bytes(data)
        got, error = read_all(tf.data.TextLineDataset(str(path), compression_type=compression,
                                                      buffer_size=buffer_size), tf.errors.DataLossError)
        errors += error is not None
        assert all(isinstance(line, bytes) and b"\n" not in line and b"\r" not in line
                   for line in got)
    assert errors > CASES_PER_READER // 10
