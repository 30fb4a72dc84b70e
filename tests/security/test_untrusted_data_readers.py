"""TFRecordDataset and TextLineDataset on files nobody vouches for: corrupt, truncated or
hostile files (bad CRCs, truncated records and streams, corrupt GZIP/ZLIB, a length header
declaring 1 TiB, decompression bombs) raise TensorFlow's DataLossError after yielding exactly
the elements TensorFlow yields, and memory stays bounded by one element plus the readers'
buffers. Every expected answer below was measured with TensorFlow 2.21 / Keras 3.15.1 on the
same bytes."""

from __future__ import annotations

import gzip
import os
import struct
import threading
import tracemalloc
import zlib

import pytest

import tapeflow as tf
from tapeflow.data.readers import masked_crc32c

from _tfrecord_files import read_all, record


def _flip(data: bytes, index: int, mask: int = 1) -> bytes:
    return data[:index] + bytes([data[index] ^ mask]) + data[index + 1:]


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


RECORDS = [b"abc", b"defgh", b"ij"]
GOOD = b"".join(record(r) for r in RECORDS)     # records at offsets 0, 19 and 40; 54 bytes
TEXT = b"line1\nline2\r\nline3\n" + b"x" * 50 + b"\nlast"
LINES = [b"line1", b"line2", b"line3", b"x" * 50, b"last"]


def _compressed_cases(payload: bytes) -> dict:
    """Damage to a GZIP / ZLIB container of `payload`: name -> (compression_type, bytes)."""
    g, z = _gzip(payload), zlib.compress(payload)
    return {
        "gzip": ("GZIP", g),
        "gzip_truncated_mid": ("GZIP", g[:len(g) // 2]),
        "gzip_truncated_trailer": ("GZIP", g[:-4]),
        "gzip_bad_crc_trailer": ("GZIP", _flip(g, len(g) - 8)),
        "gzip_bad_magic": ("GZIP", b"\x1f\x8c" + g[2:]),
        "gzip_corrupt_body": ("GZIP", _flip(g, 12, 0xFF)),
        "gzip_two_members": ("GZIP", g + g),
        "gzip_trailing_garbage": ("GZIP", g + b"garbage!"),
        "gzip_empty_file": ("GZIP", b""),
        "zlib": ("ZLIB", z),
        "zlib_truncated_mid": ("ZLIB", z[:len(z) // 2]),
        "zlib_truncated_adler": ("ZLIB", z[:-2]),
        "zlib_bad_header": ("ZLIB", b"\x78\x00" + z[2:]),
        "zlib_bad_adler": ("ZLIB", _flip(z, len(z) - 1)),
        "zlib_corrupt_body": ("ZLIB", _flip(z, 3, 0xFF)),
        "zlib_two_streams": ("ZLIB", z + z),
        "zlib_empty_file": ("ZLIB", b""),
    }


def _tfrecord_files() -> dict:
    files = {"raw": ("", GOOD), "raw_truncated": ("", GOOD[:-5]),
             "bad_len_crc": ("", _flip(GOOD, 19 + 8)),
             "bad_data_crc": ("", _flip(GOOD, 19 + 12)),
             "bad_len_crc_first": ("", _flip(GOOD, 1)),
             "truncated_data": ("", GOOD[:19 + 12 + 2]),
             "truncated_header": ("", GOOD[:19 + 5]),
             "truncated_datacrc": ("", GOOD[:-2]),
             "gzip_bad_len_crc": ("GZIP", _gzip(_flip(GOOD, 19 + 8))),
             "gzip_truncated_data": ("GZIP", _gzip(GOOD[:19 + 12 + 2])),
             "zlib_bad_data_crc": ("ZLIB", zlib.compress(_flip(GOOD, 19 + 12)))}
    files.update(_compressed_cases(GOOD))
    return files


_INFLATE = "inflate() failed with error -3: "
_SHORT = "' failed with Read less bytes than requested"

# Measured with TensorFlow 2.21 / Keras 3.15.1: the records yielded, then the error's class and
# text (None: the file just ends). TF's truncated GZIP / ZLIB stream is the end of input; only
# a record cut inside its data is DataLossError ("EOF reached").
TFRECORD_EXPECTED = {
    "raw": (RECORDS, None),
    "raw_truncated": (RECORDS[:2], "truncated record at 40" + _SHORT),
    "bad_len_crc": (RECORDS[:1], "corrupted record at 19"),
    "bad_data_crc": (RECORDS[:1], "corrupted record at 31"),
    "bad_len_crc_first": ([], "corrupted record at 0 (Is this even a TFRecord file?)"),
    "truncated_data": (RECORDS[:1], "truncated record at 19" + _SHORT),
    "truncated_header": (RECORDS[:1], None),
    "truncated_datacrc": (RECORDS[:2], "truncated record at 40" + _SHORT),
    "gzip_bad_len_crc": (RECORDS[:1], "corrupted record at 19"),
    "gzip_truncated_data": (RECORDS[:1], "truncated record at 19' failed with EOF reached"),
    "zlib_bad_data_crc": (RECORDS[:1], "corrupted record at 31"),
    "gzip": (RECORDS, None),
    "gzip_truncated_mid": (RECORDS[:1], None),
    "gzip_truncated_trailer": (RECORDS, None),
    "gzip_bad_crc_trailer": ([], _INFLATE + "incorrect data check"),
    "gzip_bad_magic": ([], _INFLATE + "incorrect header check"),
    "gzip_corrupt_body": ([], _INFLATE + "invalid distance too far back"),
    "gzip_two_members": (RECORDS + RECORDS, None),
    "gzip_trailing_garbage": (RECORDS, _INFLATE + "incorrect header check"),
    "gzip_empty_file": ([], None),
    "zlib": (RECORDS, None),
    "zlib_truncated_mid": (RECORDS[:1], "truncated record at 19' failed with EOF reached"),
    "zlib_truncated_adler": (RECORDS, None),
    "zlib_bad_header": ([], _INFLATE + "incorrect header check"),
    "zlib_bad_adler": ([], _INFLATE + "incorrect data check"),
    "zlib_corrupt_body": ([], _INFLATE + "incorrect data check"),
    "zlib_two_streams": (RECORDS, None),
    "zlib_empty_file": ([], None),
}

# Measured with TensorFlow 2.21 / Keras 3.15.1, as above. A truncated stream yields its
# decodable prefix (a partial last line included); an inflate error loses the partial line.
TEXT_EXPECTED = {
    "raw": (LINES, None),
    "raw_truncated": (LINES[:4], None),
    "gzip": (LINES, None),
    "gzip_truncated_mid": (LINES[:2], None),
    "gzip_truncated_trailer": (LINES, None),
    "gzip_bad_crc_trailer": ([], _INFLATE + "incorrect data check"),
    "gzip_bad_magic": ([], _INFLATE + "incorrect header check"),
    "gzip_corrupt_body": ([], _INFLATE + "incorrect data check"),
    "gzip_two_members": (LINES[:4] + [b"lastline1"] + LINES[1:], None),
    "gzip_trailing_garbage": (LINES[:4], _INFLATE + "incorrect header check"),
    "gzip_empty_file": ([], None),
    "zlib": (LINES, None),
    "zlib_truncated_mid": (LINES[:2] + [b"line"], None),
    "zlib_truncated_adler": (LINES, None),
    "zlib_bad_header": ([], _INFLATE + "incorrect header check"),
    "zlib_bad_adler": ([], _INFLATE + "incorrect data check"),
    "zlib_corrupt_body": ([], _INFLATE + "incorrect data check"),
    "zlib_two_streams": (LINES, None),
    "zlib_empty_file": ([], None),
}


def _check(dataset: tf.data.Dataset, expected: tuple) -> None:
    want_elements, want_text = expected
    got, error = read_all(dataset)
    assert got == want_elements
    if want_text is None:
        assert error is None
    else:
        assert type(error) is tf.errors.DataLossError
        assert str(error) == want_text + " [Op:IteratorGetNext]"


@pytest.mark.parametrize("case", sorted(TFRECORD_EXPECTED))
def test_tfrecord_damage_yields_tf_records_then_tf_error(tmp_path, case):
    compression, data = _tfrecord_files()[case]
    path = tmp_path / "data.tfrecord"
    path.write_bytes(data)
    _check(tf.data.TFRecordDataset(str(path), compression_type=compression),
           TFRECORD_EXPECTED[case])


@pytest.mark.parametrize("case", sorted(TEXT_EXPECTED))
def test_text_damage_yields_tf_lines_then_tf_error(tmp_path, case):
    files = {"raw": ("", TEXT), "raw_truncated": ("", TEXT[:-5])}
    files.update(_compressed_cases(TEXT))
    compression, data = files[case]
    path = tmp_path / "data.txt"
    path.write_bytes(data)
    _check(tf.data.TextLineDataset(str(path), compression_type=compression),
           TEXT_EXPECTED[case])


def test_text_drops_every_carriage_return_as_tf(tmp_path):
    path = tmp_path / "cr.txt"
    path.write_bytes(b"a\rb\nx\r\r\n\r\nlast\r")
    # TF 2.21: every "\r" is dropped; a last line of only "\r" is no line
    assert list(tf.data.TextLineDataset(str(path)).as_numpy_iterator()) == \
        [b"ab", b"x", b"", b"last"]
    path.write_bytes(b"q\n\r")
    assert list(tf.data.TextLineDataset(str(path)).as_numpy_iterator()) == [b"q"]


def _peak_bytes(dataset: tf.data.Dataset) -> tuple:
    """(elements, tracemalloc's peak while iterating `dataset`)."""
    iterator = dataset.as_numpy_iterator()
    tracemalloc.start()
    try:
        count = sum(1 for _ in iterator)
        return count, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


MIB = 1 << 20


def test_absurd_record_length_is_truncated_error_without_allocating_it(tmp_path):
    # A header declaring 1 TiB (its CRC valid) and 3 bytes of data. TF 2.21 allocates the
    # declared size (1 << 28 gives this error; 1 << 40 crashes TF): the answer is TF's text.
    header = struct.pack("<Q", 1 << 40)
    path = tmp_path / "absurd.tfrecord"
    path.write_bytes(record(b"abc") + header + struct.pack("<I", masked_crc32c(header)) +
                     b"xyz")
    dataset = tf.data.TFRecordDataset(str(path))
    tracemalloc.start()
    try:
        got, error = read_all(dataset)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == [b"abc"]
    assert type(error) is tf.errors.DataLossError
    assert "truncated record at 19' failed with Read less bytes than requested" in str(error)
    assert peak < 4 * MIB


def test_large_text_file_streams_in_bounded_memory(tmp_path):
    path = tmp_path / "big.txt"
    line = b"a" * 1023 + b"\n"
    with open(path, "wb") as f:
        for _ in range(64):
            f.write(line * 1024)                  # 64 MiB in all
    count, peak = _peak_bytes(tf.data.TextLineDataset(str(path)))
    assert count == 64 * 1024
    assert peak < 4 * MIB                         # was the whole file (and its lines) before


def test_large_tfrecord_file_streams_in_bounded_memory(tmp_path):
    path = tmp_path / "big.tfrecord"
    frame = record(bytes(range(256)) * 4096)     # one 1 MiB record
    with open(path, "wb") as f:
        for _ in range(16):
            f.write(frame)                        # 16 MiB (tracemalloc slows the CRC's loop)
    count, peak = _peak_bytes(tf.data.TFRecordDataset(str(path)))
    assert count == 16
    assert peak < 1 * MIB + 8 * MIB               # one record plus buffers and CRC work


def _deflated(chunk: bytes, repeats: int, wbits: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return b"".join([compressor.compress(chunk) for _ in range(repeats)] +
                    [compressor.flush()])


@pytest.mark.parametrize("compression,wbits", [("GZIP", 31), ("ZLIB", 15)])
def test_text_decompression_bomb_streams_in_bounded_memory(tmp_path, compression, wbits):
    path = tmp_path / "bomb.txt"
    path.write_bytes(_deflated((b"b" * 1023 + b"\n") * 2, 32 * 1024, wbits))
    assert path.stat().st_size < MIB // 2         # 64 MiB inflated
    count, peak = _peak_bytes(tf.data.TextLineDataset(str(path), compression_type=compression))
    assert count == 64 * 1024
    assert peak < 4 * MIB


def test_tfrecord_gzip_bomb_streams_in_bounded_memory(tmp_path):
    path = tmp_path / "bomb.tfrecord.gz"
    path.write_bytes(_deflated(record(bytes(1 * MIB)), 24, 31))
    assert path.stat().st_size < MIB // 8         # 24 MiB inflated
    count, peak = _peak_bytes(tf.data.TFRecordDataset(str(path), compression_type="GZIP"))
    assert count == 24
    assert peak < 1 * MIB + 8 * MIB


def test_a_gzip_line_bomb_is_one_element_not_a_copy_of_the_file(tmp_path):
    # 32 MiB of one line: the element is the line itself; nothing else is held
    path = tmp_path / "line.gz"
    path.write_bytes(_deflated(b"z" * MIB, 32, 31))
    count, peak = _peak_bytes(tf.data.TextLineDataset(str(path), compression_type="GZIP"))
    assert count == 1
    assert peak < 2 * 32 * MIB + 4 * MIB          # its pieces and the joined line


def _drained_by_threads(iterator, threads: int = 8) -> tuple:
    """(elements, exceptions) of `threads` threads calling next() on one iterator."""
    got, errors = [], []

    def drain():
        while True:
            try:
                got.append(int(next(iterator)))
            except StopIteration:
                return
            except Exception as exc:   # noqa: BLE001 - any escape fails the caller's test
                errors.append(exc)
                return

    workers = [threading.Thread(target=drain) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return got, errors


@pytest.mark.parametrize("make", [iter, lambda d: d.as_numpy_iterator()])
def test_iterator_shared_by_threads_delivers_each_element_once(make):
    # TF 2.21: 8 threads calling next() on one iterator get all 20000 elements, each once
    # (tapeflow raised "ValueError: generator already executing")
    got, errors = _drained_by_threads(make(tf.data.Dataset.range(20000).map(lambda x: x * 2)))
    assert errors == []
    assert sorted(got) == list(range(0, 40000, 2))


def _interleave_files(tmp_path):
    for name, lines in (("a", b"a1\na2\na3\n"), ("b", b"b1\nb2\n"), ("c", b"c1\nc2\nc3\nc4\n")):
        (tmp_path / f"{name}.txt").write_bytes(lines)
    return str(tmp_path / "*.txt")


def test_list_files_interleave_text_line_dataset_as_tf(tmp_path):
    pattern = _interleave_files(tmp_path)
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    words = lambda ds: [x.decode() for x in ds.as_numpy_iterator()]  # noqa: E731
    # TF 2.21 on this 2-core machine; cycle_length=2 gives the default's order on any machine
    assert words(files.interleave(tf.data.TextLineDataset, cycle_length=2)) == \
        ["a1", "b1", "a2", "b2", "a3", "c1", "c2", "c3", "c4"]
    assert words(files.interleave(tf.data.TextLineDataset, cycle_length=2, block_length=2)) == \
        ["a1", "a2", "b1", "b2", "a3", "c1", "c2", "c3", "c4"]
    assert words(files.interleave(lambda f: tf.data.TextLineDataset(f, buffer_size=100),
                                  cycle_length=1)) == \
        ["a1", "a2", "a3", "b1", "b2", "c1", "c2", "c3", "c4"]
    default = files.interleave(tf.data.TextLineDataset)
    assert default.element_spec == tf.TensorSpec([], tf.string)
    assert sorted(words(default)) == ["a1", "a2", "a3", "b1", "b2", "c1", "c2", "c3", "c4"]


def test_list_files_flat_map_tfrecord_dataset_as_tf(tmp_path):
    (tmp_path / "r1.tfrecord").write_bytes(record(b"x") + record(b"yy"))
    (tmp_path / "r2.tfrecord").write_bytes(record(b"zzz"))
    files = tf.data.Dataset.list_files(str(tmp_path / "*.tfrecord"), shuffle=False)
    # TF 2.21: [b"x", b"yy", b"zzz"]
    assert list(files.flat_map(tf.data.TFRecordDataset).as_numpy_iterator()) == \
        [b"x", b"yy", b"zzz"]


@pytest.mark.parametrize("reader", [tf.data.TFRecordDataset, tf.data.TextLineDataset])
def test_reader_of_a_traced_non_string_filename_is_refused(reader):
    # TF 2.21's TypeError and text
    with pytest.raises(TypeError, match=r"^The `filenames` argument must contain `tf.string` "
                       r"elements. Got `tf.int64` elements.$"):
        tf.data.Dataset.range(3).flat_map(reader)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open descriptors")
def test_reader_keeps_no_file_open_after_a_data_loss_error(tmp_path):
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(_flip(GOOD, 19 + 12))
    before = len(os.listdir("/proc/self/fd"))
    iterator = iter(tf.data.TFRecordDataset(str(path)))
    assert next(iterator).numpy() == b"abc"
    assert len(os.listdir("/proc/self/fd")) == before + 1     # the file, while reading it
    with pytest.raises(tf.errors.DataLossError):
        next(iterator)
    assert len(os.listdir("/proc/self/fd")) == before         # closed as the error left it


# Elements TF 2.21 yields before a late inflate error in a 1.6 MB stream (many inflate calls):
# (reader, compression, buffer_size) -> count, the byte 8 from the end flipped (GZIP: its CRC;
# ZLIB: its last deflate bytes).
# The compressed bytes are zlib 1.2.13's, so another zlib may place the error elsewhere.
LATE_ERROR_COUNTS = {("text", "GZIP", None): 141107, ("text", "ZLIB", None): 142282,
                     ("text", "GZIP", 1000): 149992, ("text", "ZLIB", 1000): 149984,
                     ("tfrecord", "GZIP", None): 19114, ("tfrecord", "GZIP", 1000): 19114}


@pytest.mark.skipif(zlib.ZLIB_RUNTIME_VERSION != "1.2.13", reason="compressor bytes differ")
@pytest.mark.parametrize("key", sorted(LATE_ERROR_COUNTS, key=str))
def test_late_inflate_error_yields_what_tf_yields_before_it(tmp_path, key):
    reader, compression, buffer_size = key
    if reader == "text":
        payload = b"".join(b"line%06d\n" % i for i in range(150000))
        make = tf.data.TextLineDataset
    else:
        payload = b"".join(record(b"r%07d" % i * 10) for i in range(20000))
        make = tf.data.TFRecordDataset
    data = _gzip(payload) if compression == "GZIP" else zlib.compress(payload)
    path = tmp_path / "late"
    path.write_bytes(_flip(data, len(data) - 8))    # as measured: 8 bytes from the end
    got, error = read_all(make(str(path), compression_type=compression,
                                buffer_size=buffer_size))
    assert len(got) == LATE_ERROR_COUNTS[key]
    assert type(error) is tf.errors.DataLossError
    assert "incorrect data check" in str(error)
