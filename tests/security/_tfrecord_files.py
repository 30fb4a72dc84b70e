"""TFRecord framing built by hand, and reading a dataset to its end, for the data-reader
security tests."""

from __future__ import annotations

import struct

import tapeflow as tf
from tapeflow.data.readers import masked_crc32c


def record(data: bytes) -> bytes:
    """One TFRecord: length, its masked CRC-32C, the data, the data's masked CRC-32C."""
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc32c(header)) + data + \
        struct.pack("<I", masked_crc32c(data))


def read_all(dataset: tf.data.Dataset, catch: type = tf.errors.OpError) -> tuple:
    """(elements yielded, the `catch` error that ended the reading or None); any other error
    escapes."""
    got = []
    try:
        for element in dataset.as_numpy_iterator():
            got.append(element)
    except catch as exc:
        return got, exc
    return got, None
