"""Seeded mutation fuzzing of the image decoders (tf.io.decode_png / decode_bmp / decode_gif /
decode_image): a few hundred mutants of small valid PNG, BMP and GIF files each. Whatever the
bytes, a decoder returns an image or raises one of TensorFlow's error classes (never struct,
zlib, NumPy or Python errors), and its memory stays bounded by the small files' sizes."""

from __future__ import annotations

import random
import struct
import tracemalloc
import zlib

import numpy as np
import pytest

import tapeflow as tf

from _png_bytes import chunk, filtered_rows

CASES_PER_SEED = 80
ALLOWED = (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError)
PEAK_BOUND = 64 * 2**20   # the seeds decode in a few KiB; the bound only catches a blow-up


def _png(width: int, height: int, depth: int, color_type: int, rows: bytes, extra: bytes = b"",
         interlace: int = 0) -> bytes:
    header = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, interlace)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + extra
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _bmp(width: int, height: int, bpp: int) -> bytes:
    row = (width * bpp // 8 + 3) // 4 * 4
    pixels = bytes((i * 37) & 0xFF for i in range(row * abs(height)))
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, bpp, 0, len(pixels), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54 + len(pixels), 0, 0, 54) + info + pixels


def _gif() -> bytes:
    """A 1x1 GIF89a: a 2-entry palette, a graphic control extension, one LZW-coded frame."""
    return (b"GIF89a" + struct.pack("<HHBBB", 1, 1, 0x80, 0, 0) + b"\xff\xff\xff\0\0\0"
            + b"!\xf9\x04\x01\0\0\0\0" + b"," + struct.pack("<HHHHB", 0, 0, 1, 1, 0)
            + b"\x02\x02D\x01\0" + b";")


def _seeds() -> dict:
    rng = np.random.RandomState(0)
    gray = rng.randint(0, 256, (6, 5)).astype(np.uint8)
    rgb = rng.randint(0, 256, (5, 4 * 3)).astype(np.uint8)
    rgba16 = rng.randint(0, 256, (3, 3 * 8)).astype(np.uint8)
    palette = chunk(b"PLTE", bytes(range(12))) + chunk(b"tRNS", b"\x00\x80")
    return {
        "png_gray": _png(5, 6, 8, 0, filtered_rows(gray, 1), chunk(b"tEXt", b"k\0v")),
        "png_rgb": _png(4, 5, 8, 2, filtered_rows(rgb, 3)),
        "png_rgba16": _png(3, 3, 16, 6, filtered_rows(rgba16, 8)),
        "png_palette4": _png(4, 2, 4, 3, b"\0\x01\x23\0\x32\x10", palette),
        "png_interlaced": _png(3, 3, 8, 0, b"\0\1" b"\0\2" b"\0\3\4" b"\0\5" b"\0\6" b"\0\7\x08\x09", interlace=1),
        "bmp24": _bmp(3, 2, 24),
        "bmp32_top_down": _bmp(2, -3, 32),
        "bmp8": _bmp(5, 2, 8),
        "gif": _gif(),
    }


SEEDS = _seeds()


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three random edits: flipped bits, random or extreme bytes and 32-bit words,
    cuts, insertions and repeats; for a PNG, the chunk CRCs are then often made right again
    so that the edit reaches the checks behind them."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(7)
        pos = rng.randrange(len(out)) if out else 0
        if op == 0 and out:
            out[pos] ^= 1 << rng.randrange(8)
        elif op == 1 and out:
            out[pos] = rng.choice((0, 0xFF, 0x7F, 0x80, rng.randrange(256)))
        elif op == 2:
            value = rng.choice((0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, rng.getrandbits(32)))
            out[pos:pos + 4] = struct.pack(rng.choice(("<I", ">I")), value)
        elif op == 3:
            del out[rng.randrange(len(out) + 1):]
        elif op == 4:
            out[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif op == 5:
            end = min(len(out), pos + rng.randint(1, 32))
            out[end:end] = out[pos:end]
        else:
            del out[pos:pos + rng.randint(1, 8)]
    if out.startswith(b"\x89PNG") and rng.random() < 0.6:
        _fix_crcs(out)
    return bytes(out)


def _fix_crcs(png: bytearray) -> None:
    pos = 8
    while pos + 12 <= len(png):
        length = struct.unpack_from(">I", png, pos)[0]
        end = pos + 8 + length
        if end + 4 > len(png):
            return
        png[end:end + 4] = struct.pack(">I", zlib.crc32(bytes(png[pos + 4:end])))
        pos = end + 4


def mutants(name: str) -> list:
    rng = random.Random(f"tapeflow-images-{name}")
    return [mutate(SEEDS[name], rng) for _ in range(CASES_PER_SEED)]


def _decoders(name: str) -> list:
    if name.startswith("png"):
        return [lambda b: tf.io.decode_png(b), lambda b: tf.io.decode_png(b, 4, tf.uint16),
                lambda b: tf.io.decode_image(b, dtype=tf.float32)]
    if name.startswith("bmp"):
        return [lambda b: tf.io.decode_bmp(b), lambda b: tf.io.decode_image(b, 4)]
    return [lambda b: tf.io.decode_gif(b), lambda b: tf.io.decode_image(b)]


def test_seeds_are_valid():
    for name, data in SEEDS.items():
        if name != "gif":   # tapeflow has no GIF decoder
            assert tf.io.decode_image(data).shape.rank == 3, name


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_mutants_raise_only_tensorflow_errors(name):
    outcomes = {"decoded": 0, "refused": 0}
    for data in mutants(name):
        for decode in _decoders(name):
            tracemalloc.start()
            try:
                image = decode(data).numpy()
            except ALLOWED:
                outcomes["refused"] += 1
            else:
                outcomes["decoded"] += 1
                assert image.ndim in (3, 4) and image.size > 0
            finally:
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
            assert peak < PEAK_BOUND, (name, peak, data[:64])
    assert outcomes["refused"] > 0
