"""PNG pieces built by hand for the image security tests: a chunk with its CRC, and rows
filtered as an encoder that tries every filter would write them."""

from __future__ import annotations

import struct
import zlib

import numpy as np


def chunk(kind: bytes, payload: bytes, crc: int | None = None) -> bytes:
    """A PNG chunk; `crc` replaces the correct CRC."""
    crc = zlib.crc32(kind + payload) if crc is None else crc
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)


def filtered_rows(image: np.ndarray, bpp: int) -> bytes:
    """Rows of a uint8 [height, stride] image, row y filtered with type y % 5 (Average and
    Paeth use the decoded neighbours)."""
    x = image.astype(np.int16)
    up = np.vstack([np.zeros((1, x.shape[1]), np.int16), x[:-1]])
    left = np.hstack([np.zeros((len(x), bpp), np.int16), x[:, :-bpp]])
    up_left = np.hstack([np.zeros((len(x), bpp), np.int16), up[:, :-bpp]])
    pa, pb, pc = np.abs(up - up_left), np.abs(left - up_left), np.abs(left + up - 2 * up_left)
    paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, up_left))
    predictors = [np.zeros_like(x), left, up, (left + up) >> 1, paeth]
    return b"".join(bytes([y % 5]) + ((x[y] - predictors[y % 5][y]) & 0xFF).astype(np.uint8).tobytes()
                    for y in range(len(x)))
