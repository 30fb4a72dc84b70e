"""Records TensorFlow 2.21's answers for tests/io: TensorProto bytes of serialize_tensor and
decode_png / decode_bmp pixels of PNGs and BMPs made here (TF's own encode_png output, and
hand-built palette, low-bit-depth, transparency and interlaced files).

Run once with the reference TensorFlow (never a tapeflow dependency):

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/venv/bin/python tools/record_io_fixtures.py

It also checks that TF decodes tapeflow's own encode_png output to the encoded pixels.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import struct
import zlib

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "io", "fixtures")
ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(
        ">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)


def _rows(samples: np.ndarray, depth: int) -> list:
    """Packed rows of a [h, w, s] sample array at `depth` bits."""
    out = []
    for row in samples:
        flat = row.reshape(-1)
        if depth == 16:
            out.append(flat.astype(">u2").tobytes())
        elif depth == 8:
            out.append(flat.astype(np.uint8).tobytes())
        else:
            bits = ((flat[:, None] >> np.arange(depth - 1, -1, -1)) & 1).astype(np.uint8)
            out.append(np.packbits(bits.reshape(-1)).tobytes())
    return out


def make_png(samples: np.ndarray, depth: int, color_type: int, interlace: bool = False,
             palette: np.ndarray = None, trns: bytes = None, filters: tuple = (0,)) -> bytes:
    """A PNG with the given stored samples; filter types cycle through `filters` (Sub and Up
    only, computed here) per row."""
    h, w, _ = samples.shape
    raw = b""
    passes = [(samples, None)] if not interlace else [
        (samples[y0::dy, x0::dx], None) for x0, y0, dx, dy in ADAM7]
    index = 0
    bpp = max(1, samples.shape[2] * depth // 8)
    for sub, _ in passes:
        if sub.shape[0] == 0 or sub.shape[1] == 0:
            continue
        prior = None
        for row in _rows(sub, depth):
            line = np.frombuffer(row, np.uint8).astype(np.int64)
            kind = filters[index % len(filters)]
            index += 1
            if kind == 1:
                shifted = np.concatenate([np.zeros(bpp, np.int64), line[:-bpp]])
                filtered = (line - shifted) & 0xFF
            elif kind == 2:
                up = prior if prior is not None else np.zeros_like(line)
                filtered = (line - up) & 0xFF
            else:
                filtered = line
            raw += bytes([kind]) + filtered.astype(np.uint8).tobytes()
            prior = line
    header = struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, int(interlace))
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
    if palette is not None:
        out += _chunk(b"PLTE", palette.astype(np.uint8).tobytes())
    if trns is not None:
        out += _chunk(b"tRNS", trns)
    return out + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b"")


def make_bmp(w: int, h: int, bpp: int, top_down: bool = False) -> bytes:
    row_size = (w * bpp // 8 + 3) // 4 * 4
    rng = np.random.RandomState(w * 100 + h + bpp)
    data = b"".join(rng.randint(0, 256, w * bpp // 8).astype(np.uint8).tobytes().ljust(
        row_size, b"\0") for _ in range(h))
    header = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, bpp, 0, len(data),
                         2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54) + header + data


def png_cases() -> dict:
    rng = np.random.RandomState(0)
    cases = {}
    for dtype in (np.uint8, np.uint16):
        for c in (1, 2, 3, 4):
            image = rng.randint(0, np.iinfo(dtype).max + 1, (6, 7, c)).astype(dtype)
            image[0, :3] = image[0, :1]   # some gray pixels (r == g == b) too
            name = f"tf_encoded_{np.dtype(dtype).name}_{c}"
            cases[name] = tf.io.encode_png(image).numpy()
    smooth = (np.add.outer(np.arange(9), np.arange(11))[..., None] * [3, 5, 7]).astype(np.uint8)
    cases["tf_encoded_smooth_rgb"] = tf.io.encode_png(smooth).numpy()   # libpng's filters
    for depth in (1, 2, 4):
        g = rng.randint(0, 1 << depth, (5, 9, 1))
        cases[f"gray{depth}"] = make_png(g, depth, 0)
        cases[f"gray{depth}_trns"] = make_png(g, depth, 0, trns=struct.pack(">H", 1))
        pal = rng.randint(0, 256, (1 << depth, 3))
        cases[f"palette{depth}"] = make_png(g, depth, 3, palette=pal)
    idx = rng.randint(0, 16, (6, 5, 1))
    pal = rng.randint(0, 256, (16, 3))
    cases["palette8"] = make_png(idx, 8, 3, palette=pal, filters=(0, 1, 2))
    cases["palette8_trns"] = make_png(idx, 8, 3, palette=pal, trns=bytes(range(0, 200, 20)))
    rgb = rng.randint(0, 256, (7, 6, 3))
    rgb[2, 3] = [10, 20, 30]
    cases["rgb8_trns"] = make_png(rgb, 8, 2, trns=struct.pack(">3H", 10, 20, 30))
    rgb16 = rng.randint(0, 65536, (5, 4, 3))
    cases["rgb16_filters"] = make_png(rgb16, 16, 2, filters=(1, 2, 0))
    g16 = rng.randint(0, 65536, (4, 6, 1))
    g16[1, 1] = 777
    cases["gray16_trns"] = make_png(g16, 16, 0, trns=struct.pack(">H", 777))
    ga = rng.randint(0, 256, (9, 10, 2))
    cases["gray_alpha8_interlaced"] = make_png(ga, 8, 4, interlace=True, filters=(0, 1, 2))
    rgba16 = rng.randint(0, 65536, (11, 9, 4))
    cases["rgba16_interlaced"] = make_png(rgba16, 16, 6, interlace=True, filters=(2, 1))
    cases["palette2_interlaced"] = make_png(rng.randint(0, 4, (10, 13, 1)), 2, 3,
                                            palette=rng.randint(0, 256, (4, 3)), interlace=True)
    return cases


def _load_png_module():
    spec = importlib.util.spec_from_file_location(
        "tapeflow_png", os.path.join(ROOT, "src", "tapeflow", "io", "png.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record_png() -> dict:
    out = {}
    for name, data in png_cases().items():
        entry = {"png": _b64(data), "decoded": {}}
        for channels in (0, 1, 3, 4):
            for dtype in (tf.uint8, tf.uint16):
                image = tf.io.decode_png(data, channels=channels, dtype=dtype).numpy()
                entry["decoded"][f"{channels}/{dtype.name}"] = image.tolist()
        out[name] = entry
    # tapeflow's encoder: TF must decode its files to the pixels encoded
    png = _load_png_module()
    rng = np.random.RandomState(1)
    for dtype in (np.uint8, np.uint16):
        for c in (1, 2, 3, 4):
            image = rng.randint(0, np.iinfo(dtype).max + 1, (5, 8, c)).astype(dtype)
            decoded = tf.io.decode_png(png.encode_png(image), dtype=tf.as_dtype(dtype)).numpy()
            assert (decoded == image).all(), (dtype, c)
    return out


def record_bmp() -> dict:
    out = {}
    for w, h, bpp, top in ((3, 2, 24, False), (5, 3, 24, True), (3, 2, 32, False),
                           (4, 3, 32, True), (5, 2, 8, False)):
        data = make_bmp(w, h, bpp, top)
        entry = {"bmp": _b64(data), "decoded": {}}
        for channels in (0, 3, 4):
            try:
                entry["decoded"][str(channels)] = tf.io.decode_bmp(data, channels).numpy().tolist()
            except tf.errors.OpError as exc:
                entry["decoded"][str(channels)] = {"error": type(exc).__name__}
        out[f"bmp_{w}x{h}_{bpp}{'_topdown' if top else ''}"] = entry
    return out


def record_serialized() -> dict:
    values = {
        "float32": tf.constant([1.5, -2.0, 3.25]),
        "float64_matrix": tf.constant([[1.0, 2.0], [3.0, 4.5]], tf.float64),
        "int64": tf.constant([-1, 2 ** 40, 0], tf.int64),
        "int32_scalar": tf.constant(7),
        "bool": tf.constant([[True, False, True]]),
        "string": tf.constant([b"ab", b"", b"\xff\x00c"]),
        "string_scalar": tf.constant("hello"),
        "empty_float32": tf.zeros([0, 3]),
        "empty_string": tf.zeros([2, 0], tf.string),
        "uint8_3d": tf.constant(np.arange(12, dtype=np.uint8).reshape(2, 3, 2)),
        "float16": tf.constant([0.5, 65504.0], tf.float16),
        "complex64": tf.constant([1 + 2j, -3j], tf.complex64),
        "int16": tf.constant([-300, 5], tf.int16),
    }
    return {name: {"dtype": t.dtype.name, "value": t.numpy().tolist() if t.dtype != tf.string
                   else [_b64(s) for s in np.asarray(t.numpy()).reshape(-1).tolist()],
                   "shape": t.shape.as_list(),
                   "serialized": _b64(tf.io.serialize_tensor(t).numpy())}
            for name, t in values.items() if not t.dtype.is_complex} | {
        "complex64": {"dtype": "complex64", "value": [[float(v.real), float(v.imag)]
                                                     for v in values["complex64"].numpy()],
                      "shape": [2],
                      "serialized": _b64(tf.io.serialize_tensor(values["complex64"]).numpy())}}


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    for name, data in (("io_png.json", record_png()), ("io_bmp.json", record_bmp()),
                       ("io_serialize.json", record_serialized())):
        data["tf_version"] = tf.__version__
        with open(os.path.join(OUT, name), "w") as f:
            json.dump(data, f, separators=(",", ":"))
        print(name, os.path.getsize(os.path.join(OUT, name)))


if __name__ == "__main__":
    main()
