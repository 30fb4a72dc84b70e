"""PNG encoding and decoding on NumPy arrays (zlib from the standard library), with the pixel
conversions TensorFlow's decoder asks libpng for: palette and transparency expansion, gray
<-> RGB, alpha added/stripped, 16 <-> 8 bits, Adam7 interlacing."""

from __future__ import annotations

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}          # channels -> PNG colour type
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}       # PNG colour type -> samples per pixel
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
          (0, 1, 1, 2))
# libpng's png_set_rgb_to_gray(png, 1, 0.299, 0.587) coefficients, in 1/32768ths
_RED, _GREEN = 29900 * 32768 // 100000, 58700 * 32768 // 100000
_BLUE = 32768 - _RED - _GREEN


class PNGError(ValueError):
    """Bytes that are not a PNG tapeflow can decode."""


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return (struct.pack(">I", len(payload)) + kind + payload
            + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))


def encode_png(image: np.ndarray, compression: int = -1) -> bytes:
    """One [height, width, channels] uint8 or uint16 image (1-4 channels) as a PNG, rows
    unfiltered, zlib `compression` level -1 (zlib's default) to 9."""
    height, width, channels = image.shape
    color_type = _COLOR_TYPES.get(channels)
    if color_type is None:
        raise ValueError(f"image must have 1, 2, 3 or 4 channels, got {channels}")
    depth = 16 if image.dtype == np.uint16 else 8
    samples = np.ascontiguousarray(image, ">u2" if depth == 16 else np.uint8)
    rows = samples.reshape(height, -1).view(np.uint8)
    rows = np.concatenate([np.zeros((height, 1), np.uint8), rows], 1)
    header = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0)
    return (SIGNATURE + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(rows.tobytes(), int(compression)))
            + _chunk(b"IEND", b""))


# -- decoding --------------------------------------------------------------------------------------

class PNGInfo:
    """A PNG's header fields and its palette / transparency chunks."""

    def __init__(self, data: bytes) -> None:
        if not data.startswith(SIGNATURE):
            raise PNGError("not a PNG")
        pos, idat, self.palette, self.trns = 8, [], None, None
        header = None
        while pos + 8 <= len(data):
            length, kind = struct.unpack(">I4s", data[pos:pos + 8])
            payload = data[pos + 8:pos + 8 + length]
            if len(payload) != length:
                raise PNGError("truncated chunk")
            pos += 12 + length
            if kind == b"IHDR":
                header = payload
            elif kind == b"PLTE":
                self.palette = np.frombuffer(payload, np.uint8).reshape(-1, 3)
            elif kind == b"tRNS":
                self.trns = payload
            elif kind == b"IDAT":
                idat.append(payload)
            elif kind == b"IEND":
                break
        if header is None or len(header) != 13:
            raise PNGError("missing IHDR")
        (self.width, self.height, self.depth, self.color_type, _, _,
         self.interlace) = struct.unpack(">IIBBBBB", header)
        if self.color_type not in _CHANNELS or self.depth not in (1, 2, 4, 8, 16):
            raise PNGError("bad colour type or bit depth")
        if self.color_type == 3 and self.palette is None:
            raise PNGError("palette image without PLTE")
        self.samples = _CHANNELS[self.color_type]
        self.idat = b"".join(idat)

    @property
    def channels(self) -> int:
        """The channels TF gives for channels=0: palette images are RGB(A)."""
        if self.color_type == 3:
            return 4 if self.trns is not None else 3
        return self.samples


def _unfilter(raw: memoryview, pos: int, rows: int, stride: int, bpp: int) -> tuple:
    """Undoes the per-row filters of one (sub)image: [rows, stride] uint8 and the new pos."""
    out = np.zeros((rows, stride), np.uint8)
    prior = np.zeros(stride, np.int64)
    for y in range(rows):
        if pos + 1 + stride > len(raw):
            raise PNGError("not enough image data")
        kind = raw[pos]
        line = np.frombuffer(raw[pos + 1:pos + 1 + stride], np.uint8).astype(np.int64)
        pos += 1 + stride
        if kind == 0:
            cur = line
        elif kind == 1:
            cur = line.copy()
            for c in range(bpp):
                cur[c::bpp] = np.cumsum(line[c::bpp]) & 0xFF
        elif kind == 2:
            cur = (line + prior) & 0xFF
        elif kind in (3, 4):
            cur = _sequential(line.tolist(), prior.tolist(), bpp, kind)
        else:
            raise PNGError(f"bad filter type {kind}")
        out[y] = cur
        prior = np.asarray(cur, np.int64)
    return out, pos


def _sequential(line: list, prior: list, bpp: int, kind: int) -> np.ndarray:
    """The Average (3) and Paeth (4) filters, which depend on the byte just decoded."""
    cur = [0] * len(line)
    for i, value in enumerate(line):
        a = cur[i - bpp] if i >= bpp else 0
        b = prior[i]
        if kind == 3:
            cur[i] = (value + ((a + b) >> 1)) & 0xFF
        else:
            c = prior[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            cur[i] = (value + pred) & 0xFF
    return np.array(cur, np.int64)


def _samples(rows: np.ndarray, width: int, samples: int, depth: int) -> np.ndarray:
    """Filtered-free rows as [rows, width, samples] integers (uint16 for 16-bit)."""
    if depth == 16:
        return rows.view(">u2").astype(np.uint16).reshape(len(rows), width, samples)
    if depth == 8:
        return rows.reshape(len(rows), width, samples)
    bits = np.unpackbits(rows, axis=1).reshape(len(rows), -1, depth)
    values = (bits * (1 << np.arange(depth - 1, -1, -1, dtype=np.uint8))).sum(-1)
    return values[:, :width * samples].astype(np.uint8).reshape(len(rows), width, samples)


def _pixels(info: PNGInfo) -> np.ndarray:
    """The stored samples, [height, width, samples], de-interlaced."""
    raw = memoryview(zlib.decompress(info.idat))
    bits = info.samples * info.depth
    bpp = max(1, bits // 8)
    dtype = np.uint16 if info.depth == 16 else np.uint8
    if not info.interlace:
        rows, _ = _unfilter(raw, 0, info.height, (info.width * bits + 7) // 8, bpp)
        return _samples(rows, info.width, info.samples, info.depth)
    out = np.zeros((info.height, info.width, info.samples), dtype)
    pos = 0
    for x0, y0, dx, dy in _ADAM7:
        w = (info.width - x0 + dx - 1) // dx if info.width > x0 else 0
        h = (info.height - y0 + dy - 1) // dy if info.height > y0 else 0
        if w and h:
            rows, pos = _unfilter(raw, pos, h, (w * bits + 7) // 8, bpp)
            out[y0::dy, x0::dx] = _samples(rows, w, info.samples, info.depth)
    return out


def _rgb_to_gray(rgb: np.ndarray, depth: int) -> np.ndarray:
    """libpng's rgb_to_gray without gamma: 8-bit truncates, 16-bit rounds; gray pixels kept."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    gray = (_RED * r + _GREEN * g + _BLUE * b + (16384 if depth == 16 else 0)) >> 15
    same = (r == g) & (r == b)
    return np.where(same, r, gray).astype(rgb.dtype)


def decode_png(data: bytes, channels: int = 0, bits: int = 8,
               info: "PNGInfo | None" = None) -> np.ndarray:
    """A PNG's pixels as [height, width, channels] (channels 0: the file's, RGB(A) for a
    palette), uint8 (`bits` 8) or uint16 (`bits` 16), converted as TF's decoder does."""
    info = info or PNGInfo(bytes(data))
    pixels = _pixels(info)
    channels = channels or info.channels
    depth = info.depth
    trns = info.trns
    if info.color_type == 3:   # palette -> RGB(A)
        index = pixels[..., 0].astype(np.intp)
        palette = info.palette
        if index.size and index.max() >= len(palette):
            raise PNGError("palette index out of range")
        alpha = np.full(len(palette), 255, np.uint8)
        if trns is not None:
            alpha[:min(len(trns), len(alpha))] = np.frombuffer(trns, np.uint8)[:len(alpha)]
        if trns is None and channels % 2 == 0:
            alpha[:] = (1 << info.depth) - 1   # libpng's filler: 1 for a 1-bit palette
        pixels = np.concatenate([palette[index], alpha[index][..., None]], -1) \
            if trns is not None or channels % 2 == 0 else palette[index]
        depth, trns = 8, None
    elif info.color_type in (0, 2):
        if depth < 8 and info.color_type == 0:   # gray expanded to 8 bits
            scale = 255 // ((1 << depth) - 1)
            if trns is not None:
                key = struct.unpack(">H", trns[:2])[0]
                mask = pixels[..., 0] == key
            pixels = (pixels * scale).astype(np.uint8)
            filler_depth, depth = depth, 8
        else:
            filler_depth = depth
            if trns is not None:
                key = np.array(struct.unpack(f">{info.samples}H", trns[:2 * info.samples]))
                mask = np.all(pixels == key.astype(pixels.dtype), -1)
        if channels % 2 == 0:   # alpha wanted: from tRNS, else the filler
            top = (1 << depth) - 1
            if trns is not None:
                alpha = np.where(mask, 0, top)
            else:
                alpha = np.full(pixels.shape[:2], ((1 << filler_depth) - 1) & top)
            pixels = np.concatenate([pixels, alpha[..., None].astype(pixels.dtype)], -1)
    has_alpha = pixels.shape[-1] in (2, 4)
    if channels % 2 == 1 and has_alpha:
        pixels, has_alpha = pixels[..., :-1], False
    color = pixels[..., :3] if pixels.shape[-1] >= 3 else pixels[..., :1]
    alpha = pixels[..., -1:] if has_alpha else None
    if channels in (1, 2) and color.shape[-1] == 3:
        color = _rgb_to_gray(color, depth)[..., None]
    elif channels in (3, 4) and color.shape[-1] == 1:
        color = np.repeat(color, 3, -1)
    pixels = color if alpha is None else np.concatenate([color, alpha], -1)
    if depth == 16 and bits == 8:
        pixels = (pixels >> 8).astype(np.uint8)
    elif depth <= 8 and bits == 16:
        pixels = pixels.astype(np.uint16) * 257
    return np.ascontiguousarray(pixels, np.uint16 if bits == 16 else np.uint8)


__all__ = ["PNGError", "PNGInfo", "SIGNATURE", "decode_png", "encode_png"]
