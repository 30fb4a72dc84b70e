"""Image files from strangers: tf.io.decode_png / decode_bmp / decode_image on crafted hostile
or broken files (built here with struct + zlib). Each refusal has TensorFlow 2.21's class and
text (the literals were measured with TF 2.21 / Keras 3.15.1), what TF accepts decodes to TF's
pixels, and a zlib bomb or a huge declared size costs memory bounded by the image's declared
size and the data actually present, checked first."""

from __future__ import annotations

import struct
import tracemalloc
import zlib

import numpy as np
import pytest

import tapeflow as tf

from _png_bytes import chunk, filtered_rows

SIGNATURE = b"\x89PNG\r\n\x1a\n"
INIT_FAILED = "Invalid PNG. Failed to initialize decoder. [Op:DecodePng]"


def ihdr(width: int = 1, height: int = 1, depth: int = 8, color_type: int = 0) -> bytes:
    return chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0))


def png(rows: bytes = b"\0\5", header: bytes | None = None, before: bytes = b"",
        after: bytes = b"", idat: bytes | None = None, iend: bytes | None = None) -> bytes:
    """A PNG (1x1 gray, value 5, by default) with chunks before and after its IDAT."""
    idat = chunk(b"IDAT", zlib.compress(rows)) if idat is None else idat
    return (SIGNATURE + (ihdr() if header is None else header) + before + idat + after
            + (chunk(b"IEND", b"") if iend is None else iend))


def data_error(data: bytes) -> str:
    return f"Invalid PNG data, size {len(data)} [Op:DecodePng]"


def refusal(decode, data: bytes, **kwargs) -> str:
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        decode(data, **kwargs)
    return str(info.value)


def peak_bytes(function) -> int:
    tracemalloc.start()
    try:
        function()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


# -- PNG chunk CRCs: critical chunks are checked, ancillary ones with a bad CRC are dropped ----

@pytest.mark.parametrize("kind", [b"IHDR", b"PLTE"])
def test_bad_crc_in_a_critical_header_chunk_is_refused(kind):
    rgb = ihdr(color_type=2)
    header = chunk(b"IHDR", rgb[8:21], crc=0x12345678) if kind == b"IHDR" else rgb
    before = chunk(b"PLTE", bytes(6), crc=0x1234) if kind == b"PLTE" else b""
    data = png(b"\0\1\2\3", header=header, before=before)
    assert refusal(tf.io.decode_png, data) == INIT_FAILED


@pytest.mark.parametrize("where", ["IDAT", "IEND", "second IDAT"])
def test_bad_crc_in_the_image_data_or_iend_is_refused(where):
    stream = zlib.compress(b"\0\5")
    idat = {"IDAT": chunk(b"IDAT", stream, crc=1),
            "second IDAT": chunk(b"IDAT", stream[:3]) + chunk(b"IDAT", stream[3:], crc=1)}
    data = png(idat=idat.get(where), iend=chunk(b"IEND", b"", crc=1) if where == "IEND" else None)
    assert refusal(tf.io.decode_png, data) == data_error(data)


@pytest.mark.parametrize("kind,payload", [(b"tEXt", b"k\0v"), (b"gAMA", b"\0\0\xb1\x8f"),
                                          (b"zzZz", b"private")])
def test_bad_crc_in_an_ancillary_chunk_is_ignored(kind, payload):
    for where in ("before", "after"):
        data = png(**{where: chunk(kind, payload, crc=7)})
        assert tf.io.decode_png(data).numpy().tolist() == [[[5]]]


def test_transparency_with_a_bad_crc_is_dropped():
    data = png(before=chunk(b"tRNS", b"\0\5", crc=7))
    assert tf.io.decode_png(data, channels=4).numpy().tolist() == [[[5, 5, 5, 255]]]


# -- PNG header checks ---------------------------------------------------------------------------

@pytest.mark.parametrize("case", [
    "16-bit palette", "bad depth", "RGB at 4 bits", "interlace 2", "compression 1", "width 0",
    "width over libpng's 1000000", "IHDR not first", "IHDR twice", "unknown critical chunk",
    "digit in a chunk name", "chunk length over 2**31", "no IDAT", "palette without PLTE",
    "PLTE of 7 bytes", "two PLTEs", "truncated header"])
def test_broken_headers_fail_to_initialize(case):
    plte = chunk(b"PLTE", bytes(range(6)))
    data = {
        "16-bit palette": png(b"\0\0\0", header=ihdr(depth=16, color_type=3), before=plte),
        "bad depth": png(header=ihdr(depth=3)),
        "RGB at 4 bits": png(header=ihdr(depth=4, color_type=2)),
        "interlace 2": png(header=chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 2))),
        "compression 1": png(header=chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 1, 0, 0))),
        "width 0": png(header=ihdr(width=0)),
        "width over libpng's 1000000": png(header=ihdr(width=1_000_001)),
        "IHDR not first": SIGNATURE + chunk(b"tEXt", b"k\0v") + png()[8:],
        "IHDR twice": png(before=ihdr()),
        "unknown critical chunk": png(before=chunk(b"ABCD", b"x")),
        "digit in a chunk name": png(before=chunk(b"t3Xt", b"x")),
        "chunk length over 2**31": png()[:33] + struct.pack(">I", 2**31) + b"tEXt" + bytes(16),
        "no IDAT": png(idat=b""),
        "palette without PLTE": png(header=ihdr(color_type=3)),
        "PLTE of 7 bytes": png(b"\0\0", header=ihdr(color_type=3), before=chunk(b"PLTE", bytes(7))),
        "two PLTEs": png(b"\0\0", header=ihdr(color_type=3), before=plte + plte),
        "truncated header": png()[:30],
    }[case]
    assert refusal(tf.io.decode_png, data) == INIT_FAILED


def test_short_or_misplaced_transparency_is_ignored_as_libpng_does():
    # TF 2.21: a tRNS of the wrong length, a repeated one (the first counts), one after the
    # image data, and one longer than the palette are all ignored, with no error
    opaque, clear = [[[5, 5, 5, 255]]], [[[5, 5, 5, 0]]]
    cases = {chunk(b"tRNS", b"\5"): opaque, chunk(b"tRNS", b""): opaque,
             chunk(b"tRNS", b"\0\5"): clear,
             chunk(b"tRNS", b"\0\7") + chunk(b"tRNS", b"\0\5"): opaque}
    for before, expected in cases.items():
        assert tf.io.decode_png(png(before=before), channels=4).numpy().tolist() == expected
    after = png(after=chunk(b"tRNS", b"\0\5"))
    assert tf.io.decode_png(after, channels=4).numpy().tolist() == opaque
    palette = png(b"\0\0", header=ihdr(color_type=3),
                  before=chunk(b"PLTE", bytes(range(6))) + chunk(b"tRNS", b"\1\2\3"))
    assert tf.io.decode_png(palette).numpy().tolist() == [[[0, 1, 2]]]


def test_palette_index_past_the_palette_is_black_and_opaque_as_tensorflow():
    data = png(b"\0\5", header=ihdr(color_type=3), before=chunk(b"PLTE", bytes(range(6))))
    assert tf.io.decode_png(data, channels=4).numpy().tolist() == [[[0, 0, 0, 255]]]
    assert tf.io.decode_png(data).numpy().tolist() == [[[0, 0, 0]]]


# -- PNG sizes and zlib bombs --------------------------------------------------------------------

@pytest.mark.parametrize("width,height", [(100_000, 100_000), (16_384, 32_768),
                                          (1_000_000, 600)])
def test_declared_size_over_tensorflows_limit_is_refused_before_any_work(width, height):
    # TF 2.21: width and height below 2**27 and width * height below 2**29
    data = png(header=ihdr(width, height))
    message = []
    peak = peak_bytes(lambda: message.append(refusal(tf.io.decode_png, data)))
    assert message == [f"PNG size too large for int: {width} by {height} [Op:DecodePng]"]
    assert peak < 1 << 20


def test_large_declared_size_with_little_data_costs_only_the_data():
    # 16384 x 32767 is just under TF's limit (2 GiB of RGBA); 8 MiB of rows are present
    data = png(bytes(8 << 20), header=ihdr(16_384, 32_767, color_type=6))
    message = []
    peak = peak_bytes(lambda: message.append(refusal(tf.io.decode_png, data)))
    assert message == [data_error(data)]
    assert peak < 64 << 20


def test_zlib_bomb_after_the_rows_is_inflated_in_bounded_memory():
    # a 1x1 image whose stream goes on for 128 MiB of zeros: TF accepts the extra data
    stream = zlib.compressobj(9)
    bomb = b"".join(stream.compress(b"\0\5" + bytes(1 << 20)) for _ in range(128)) + stream.flush()
    data = png(idat=chunk(b"IDAT", bomb))
    assert len(data) < 1 << 20
    result = []
    peak = peak_bytes(lambda: result.append(tf.io.decode_png(data).numpy()))
    assert result[0].tolist() == [[[5]]]
    assert peak < 16 << 20


# -- PNG image data ------------------------------------------------------------------------------

def unterminated(rows: bytes) -> bytes:
    stream = zlib.compressobj()
    return stream.compress(rows) + stream.flush(zlib.Z_SYNC_FLUSH)


@pytest.mark.parametrize("case", [
    "truncated IDAT", "no IEND", "unknown critical chunk after the data", "IHDR after the data",
    "IDAT split by tEXt", "bad Adler-32", "stream cut short", "stream ends before the rows",
    "filter type 5", "rows then an invalid block", "IDAT that is not zlib"])
def test_broken_image_data_is_refused(case):
    stream = zlib.compress(b"\0\5")
    data = {
        "truncated IDAT": png()[:-20],
        "no IEND": png(iend=b""),
        "unknown critical chunk after the data": png(after=chunk(b"ABCD", b"x")),
        "IHDR after the data": png(after=ihdr()),
        "IDAT split by tEXt": png(idat=chunk(b"IDAT", stream[:5]) + chunk(b"tEXt", b"k\0v")
                                  + chunk(b"IDAT", stream[5:])),
        "bad Adler-32": png(idat=chunk(b"IDAT", stream[:-4] + bytes(4))),
        "stream cut short": png(idat=chunk(b"IDAT", stream[:-4])),
        "stream ends before the rows": png(b"\0\5", header=ihdr(2, 1)),
        "filter type 5": png(b"\5\5"),
        "rows then an invalid block": png(idat=chunk(b"IDAT", unterminated(b"\0\5") + b"\xff" * 8)),
        "IDAT that is not zlib": png(idat=chunk(b"IDAT", b"garbage!")),
    }[case]
    assert refusal(tf.io.decode_png, data) == data_error(data)


@pytest.mark.parametrize("case", [
    "extra rows in the stream", "extra data then an invalid block", "bytes after the stream",
    "IDAT after tEXt once the stream is complete", "empty IDAT first", "bytes after IEND",
    "IEND with a payload"])
def test_what_libpng_tolerates_decodes(case):
    stream = zlib.compress(b"\0\5")
    data = {
        "extra rows in the stream": png(b"\0\5" * 100),
        "extra data then an invalid block": png(idat=chunk(b"IDAT", unterminated(b"\0\5" + bytes(50))
                                                           + b"\xff" * 8)),
        "bytes after the stream": png(idat=chunk(b"IDAT", stream + b"junk")),
        "IDAT after tEXt once the stream is complete": png(after=chunk(b"tEXt", b"k\0v")
                                                           + chunk(b"IDAT", stream)),
        "empty IDAT first": png(idat=chunk(b"IDAT", b"") + chunk(b"IDAT", stream)),
        "bytes after IEND": png() + b"trailing",
        "IEND with a payload": png(iend=chunk(b"IEND", b"x")),
    }[case]
    assert tf.io.decode_png(data).numpy().tolist() == [[[5]]]


@pytest.mark.parametrize("depth,color_type,channels", [(8, 2, 3), (16, 6, 4), (8, 0, 1),
                                                       (16, 4, 2)])
def test_every_filter_type_round_trips(depth, color_type, channels):
    rng = np.random.RandomState(depth + color_type)
    dtype = np.uint16 if depth == 16 else np.uint8
    image = rng.randint(0, np.iinfo(dtype).max + 1, (23, 17, channels)).astype(dtype)
    rows = image.astype(">u2" if depth == 16 else np.uint8).reshape(23, -1).view(np.uint8)
    data = png(filtered_rows(rows, channels * depth // 8), header=ihdr(17, 23, depth, color_type))
    got = tf.io.decode_image(data, dtype=tf.uint16 if depth == 16 else tf.uint8).numpy()
    np.testing.assert_array_equal(got, image)


def test_sixteen_bit_png_as_float_keeps_sixteen_bits():
    # TF decodes to uint16 for float32 and scales by 1 / 65535
    data = png(b"\0\x12\x34", header=ihdr(depth=16))
    got = tf.io.decode_image(data, dtype=tf.float32).numpy()
    assert got.dtype == np.float32 and got[0, 0, 0] == np.float32(0x1234) * np.float32(1 / 65535)


# -- BMP -----------------------------------------------------------------------------------------

def bmp(width: int = 3, height: int = 2, bpp: int = 24, compression: int = 0,
        pixels: bytes | None = None, offset: int = 54) -> bytes:
    row = (abs(width) * (bpp // 8 if bpp in (8, 24, 32) else 3) + 3) // 4 * 4
    pixels = bytes(i & 0xFF for i in range(row * abs(height))) if pixels is None else pixels
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, bpp, compression, len(pixels), 0, 0,
                       0, 0)
    return (b"BM" + struct.pack("<IHHi", 54 + len(pixels), 0, 0, offset) + info
            + bytes(max(0, offset - 54)) + pixels)


@pytest.mark.parametrize("data,message", [
    (bmp(width=-3), "Width must be positive"),
    (bmp(width=0), "Width must be positive"),
    (bmp(height=0), "Height must be nonzero"),
    (bmp(bpp=16), "Number of channels inherent in the image must be 1, 3 or 4, was 2"),
    (bmp(bpp=4), "Number of channels inherent in the image must be 1, 3 or 4, was 0"),
    (bmp(bpp=-24 & 0xFFFF), "Number of channels inherent in the image must be 1, 3 or 4, was -3"),
    (bmp(offset=-4), "header size must be nonnegative"),
    (bmp(16_384, 16_384, pixels=b""), "Total possible pixel bytes must be less than 2^30"),
    (bmp(3, -2**31, pixels=b""), "Total possible pixel bytes must be less than 2^30"),
    (bmp() + b"\0", "Input size should match (header_size + row_size * abs_height) but they "
                    "differ by 1"),
    (bmp()[:-1], "Input size should match (header_size + row_size * abs_height) but they differ "
                 "by -1"),
    (bmp(offset=2), "Input size should match (header_size + row_size * abs_height) but they "
                    "differ by 52"),
    (bmp()[:31], "Incomplete bmp content, requires at least 32 bytes to find the header size, "
                 "width, height, and bpp, got 31 bytes"),
])
def test_broken_bmp_is_refused_as_tensorflow(data, message):
    assert refusal(tf.io.decode_bmp, data) == f"{message} [Op:DecodeBmp]"
    assert refusal(tf.io.decode_image, data) == f"{message} [Op:DecodeImage]"


@pytest.mark.parametrize("compression", [1, 2, 4, 5, 99])
def test_compressed_bmp_is_refused_not_read_as_raw_pixels(compression):
    # TF 2.21 reads these bytes as raw pixels when the size happens to fit; tapeflow refuses
    data = bmp(4, 2, 8, compression=compression)
    assert "BMP compression" in refusal(tf.io.decode_bmp, data)
    assert tf.io.decode_bmp(bmp(4, 2, 32, compression=3)).shape == (2, 4, 4)   # BI_BITFIELDS


def test_bmp_rows_bottom_up_or_top_down():
    pixels = bytes([1, 2, 3, 4, 5, 6, 0, 0, 7, 8, 9, 10, 11, 12, 0, 0])   # 2x2 BGR, padded
    first, second = [[3, 2, 1], [6, 5, 4]], [[9, 8, 7], [12, 11, 10]]
    assert tf.io.decode_bmp(bmp(2, 2, pixels=pixels)).numpy().tolist() == [second, first]
    assert tf.io.decode_bmp(bmp(2, -2, pixels=pixels)).numpy().tolist() == [first, second]


def test_bmp_channel_and_dtype_arguments_as_tensorflow():
    assert refusal(tf.io.decode_bmp, bmp(), channels=1) == ("`channels` must be 0, 3 or 4 for "
                                                            "BMP, but got 1 [Op:DecodeBmp]")
    assert refusal(tf.io.decode_bmp, bmp(), channels=2) == ("`channels` must be 0, 1, 3 or 4 but "
                                                            "got 2 [Op:DecodeBmp]")
    as_uint16 = tf.io.decode_image(bmp(), dtype=tf.uint16).numpy()
    expected = tf.io.decode_bmp(bmp()).numpy().astype(np.uint16) * 256   # TF: not 257
    assert as_uint16.dtype == np.uint16
    np.testing.assert_array_equal(as_uint16, expected)


@pytest.mark.parametrize("decode,op", [(tf.io.decode_png, "DecodePng"),
                                       (tf.io.decode_bmp, "DecodeBmp"),
                                       (tf.io.decode_image, "DecodeImage"),
                                       (tf.io.decode_gif, "DecodeGif"),
                                       (tf.io.decode_jpeg, "DecodeJpeg")])
def test_empty_input_is_refused(decode, op):
    assert refusal(decode, b"") == f"Input is empty. [Op:{op}]"
