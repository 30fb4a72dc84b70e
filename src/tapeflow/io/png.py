"""PNG encoding and decoding on NumPy arrays (zlib from the standard library), with the pixel
conversions TensorFlow's decoder asks libpng for: palette and transparency expansion, gray
<-> RGB, alpha added/stripped, 16 <-> 8 bits, Adam7 interlacing."""

from __future__ import annotations

import math
import struct
import zlib
from typing import Iterator

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
#
# The checks follow what TensorFlow 2.21's DecodePng (libpng 1.6) accepts, measured on crafted
# files: it fails in two stages, "Failed to initialize decoder" for the chunks before the image
# data (PNGHeaderError) and "Invalid PNG data" for the image data and the chunks after it
# (PNGDataError); a declared size over TF's limits is PNGSizeError.

_MAX_SIDE = 1_000_000    # libpng's default user limit on width and height
_MAX_SIDE_TF = 1 << 27   # TF's DecodePng: width, height < 2**27 and width * height < 2**29
_MAX_PIXELS_TF = 1 << 29
_IDAT_READ = 8192        # libpng feeds zlib the image data in pieces of this size
_TAIL_READ = 1 << 16     # output bound while the data after the last row is checked
_VALID_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_TRNS_LENGTH = {0: 2, 2: 6}   # tRNS bytes for gray and RGB images


class PNGHeaderError(PNGError):
    """The chunks before the image data are broken (libpng's png_read_info fails)."""


class PNGDataError(PNGError):
    """The image data, or a chunk after it, is broken (libpng fails while reading rows or in
    png_read_end)."""


class PNGSizeError(PNGError):
    """The declared size is over TensorFlow's limits."""


def _chunk_header(data: bytes, pos: int, error: type) -> tuple:
    """The (length, kind) of the chunk at `pos`."""
    if pos + 8 > len(data):
        raise error("truncated chunk header")
    length, kind = struct.unpack_from(">I4s", data, pos)
    if length > 0x7FFFFFFF or not kind.isalpha():
        raise error(f"bad chunk length or name {kind!r}")
    return length, kind


def _read_chunk(data: bytes, pos: int, error: type) -> tuple:
    """The chunk at `pos`: (kind, payload, whether its CRC matches, the next chunk's pos)."""
    length, kind = _chunk_header(data, pos, error)
    end = pos + 8 + length
    if end + 4 > len(data):
        raise error(f"truncated {kind!r} chunk")
    payload = memoryview(data)[pos + 8:end]
    crc_ok = zlib.crc32(payload, zlib.crc32(kind)) == struct.unpack_from(">I", data, end)[0]
    return kind, payload, crc_ok, end + 4


def _is_critical(kind: bytes) -> bool:
    return not kind[0] & 0x20   # an upper-case first letter


class PNGInfo:
    """A PNG's header fields and its palette / transparency chunks, checked as libpng checks
    them before the image data; `idat_pos` is where the image data starts."""

    def __init__(self, data: bytes) -> None:
        if not data.startswith(SIGNATURE):
            raise PNGHeaderError("not a PNG")
        self.data = data
        self.palette, self.trns, self._has_plte = None, None, False
        kind, payload, crc_ok, pos = _read_chunk(data, 8, PNGHeaderError)
        if kind != b"IHDR" or not crc_ok or len(payload) != 13:
            raise PNGHeaderError("the first chunk is not a valid IHDR")
        self._read_ihdr(payload)
        # libpng reads no further than the first IDAT's header here: the rest of that chunk
        # is checked with the image data
        while _chunk_header(data, pos, PNGHeaderError)[1] != b"IDAT":
            kind, payload, crc_ok, next_pos = _read_chunk(data, pos, PNGHeaderError)
            if not crc_ok:
                if _is_critical(kind):
                    raise PNGHeaderError(f"CRC error in {kind!r}")
            elif kind == b"PLTE":
                self._read_plte(payload, PNGHeaderError)
            elif kind == b"tRNS":
                self._read_trns(payload)
            elif _is_critical(kind):   # IHDR again, IEND before the data, unknown critical
                raise PNGHeaderError(f"{kind!r} out of place or unknown")
            pos = next_pos
        if self.color_type == 3 and self.palette is None:
            raise PNGHeaderError("palette image without PLTE")
        self.idat_pos = pos
        self.samples = _CHANNELS[self.color_type]

    def _read_ihdr(self, payload: memoryview) -> None:
        (self.width, self.height, self.depth, self.color_type, compression, filter_method,
         self.interlace) = struct.unpack(">IIBBBBB", payload)
        if not (0 < self.width <= _MAX_SIDE and 0 < self.height <= _MAX_SIDE):
            raise PNGHeaderError(f"image size {self.width}x{self.height} out of range")
        if self.depth not in _VALID_DEPTHS.get(self.color_type, ()):
            raise PNGHeaderError("bad colour type or bit depth")
        if compression or filter_method or self.interlace > 1:
            raise PNGHeaderError("bad compression, filter or interlace method")

    def _read_plte(self, payload: memoryview, error: type) -> None:
        """libpng: a second PLTE is an error; a PLTE after the image data or in a gray image is
        ignored; a bad length is an error only for palette images."""
        if self._has_plte:
            raise error("duplicate PLTE")
        self._has_plte = True
        if error is PNGDataError or self.color_type != 3:
            return
        if not 0 < len(payload) <= 768 or len(payload) % 3:
            raise error("bad PLTE length")
        palette = np.frombuffer(payload, np.uint8).reshape(-1, 3)
        self.palette = palette[:1 << self.depth]   # libpng drops entries no index can reach

    def _read_trns(self, payload: memoryview) -> None:
        """libpng ignores a tRNS that is repeated, of the wrong length, before PLTE, or in an
        image with an alpha channel."""
        if self.trns is not None:
            return
        if self.color_type == 3:
            if self.palette is not None and 0 < len(payload) <= len(self.palette):
                self.trns = bytes(payload)
        elif _TRNS_LENGTH.get(self.color_type) == len(payload):
            self.trns = bytes(payload)

    @property
    def channels(self) -> int:
        """The channels TF gives for channels=0: palette images are RGB(A)."""
        if self.color_type == 3:
            return 4 if self.trns is not None else 3
        return self.samples

    def check_size(self) -> None:
        """TF's DecodePng refuses sizes whose products could overflow its int arithmetic."""
        if (self.width >= _MAX_SIDE_TF or self.height >= _MAX_SIDE_TF
                or self.width * self.height >= _MAX_PIXELS_TF):
            raise PNGSizeError(f"PNG size too large for int: {self.width} by {self.height}")

    def check_chunks_after_data(self) -> None:
        """libpng's png_read_end: the chunks from the image data to IEND, which must be there;
        a bad CRC or an unknown kind is an error for critical chunks only."""
        pos = self.idat_pos
        while True:
            kind, payload, crc_ok, pos = _read_chunk(self.data, pos, PNGDataError)
            if not crc_ok and _is_critical(kind):
                raise PNGDataError(f"CRC error in {kind!r}")
            if kind == b"IEND":
                return
            if kind == b"PLTE":
                self._read_plte(payload, PNGDataError)
            elif kind == b"IHDR" or (_is_critical(kind) and kind != b"IDAT"):
                raise PNGDataError(f"{kind!r} out of place or unknown")

    def passes(self) -> list:
        """(x0, y0, dx, dy, width, height) of each non-empty (sub)image in the data."""
        if not self.interlace:
            return [(0, 0, 1, 1, self.width, self.height)]
        out = []
        for x0, y0, dx, dy in _ADAM7:
            w = (self.width - x0 + dx - 1) // dx if self.width > x0 else 0
            h = (self.height - y0 + dy - 1) // dy if self.height > y0 else 0
            if w and h:
                out.append((x0, y0, dx, dy, w, h))
        return out

    def row_bytes(self, width: int) -> int:
        return (width * self.samples * self.depth + 7) // 8

    def data_size(self) -> int:
        """Bytes of filtered rows the declared size needs: the bound on decompression."""
        return sum(h * (1 + self.row_bytes(w)) for *_, w, h in self.passes())


# -- the image data: IDAT chunks, zlib, unfiltering ------------------------------------------------

def _idat_pieces(info: PNGInfo) -> Iterator[memoryview]:
    """The payloads of the run of IDAT chunks, in libpng's read size; a bad CRC is an error."""
    pos = info.idat_pos
    while True:
        kind, payload, crc_ok, next_pos = _read_chunk(info.data, pos, PNGDataError)
        if kind != b"IDAT":
            return
        if not crc_ok:
            raise PNGDataError("CRC error in IDAT")
        for start in range(0, len(payload), _IDAT_READ):
            yield payload[start:start + _IDAT_READ]
        pos = next_pos


def _inflate(info: PNGInfo) -> bytearray:
    """The filtered rows, decompressed with their declared size as the bound: a stream that
    ends early is an error, one with data to spare is not (as libpng)."""
    need = info.data_size()
    stream = zlib.decompressobj()
    pieces = _idat_pieces(info)
    rows = bytearray()
    try:
        for piece in pieces:
            rows += stream.decompress(piece, need - len(rows))
            if len(rows) == need or stream.eof:
                break
    except zlib.error as exc:
        raise PNGDataError(f"zlib: {exc}") from None
    if len(rows) < need:
        raise PNGDataError("not enough image data")
    if not stream.eof:
        _check_tail(stream, stream.unconsumed_tail, pieces)
    return rows


def _check_tail(stream: "zlib._Decompress", tail: bytes, pieces: Iterator[memoryview]) -> None:
    """libpng's png_read_finish_IDAT after the last row: the rest of the stream is inflated
    (output dropped, memory bounded) until it ends or turns invalid, both accepted; running out
    of IDAT data first is an error. A first step that yields no data ends the check."""
    first = True
    while True:
        if not tail:
            tail = next(pieces, None)
            if tail is None:
                raise PNGDataError("not enough image data")
        try:
            out = stream.decompress(tail, _TAIL_READ)
        except zlib.error:
            return
        if stream.eof or (first and not out):
            return
        first, tail = False, stream.unconsumed_tail


_BAND_CELLS = 1 << 24   # ~ (stride + bpp * rows) * rows: the size of a band unfiltered by diagonals


def _unfilter(filtered: np.ndarray, bpp: int) -> np.ndarray:
    """Undoes the per-row filters of one (sub)image: [rows, 1 + stride] uint8 (each row led by
    its filter type) to [rows, stride] uint8; `bpp` is the filters' byte distance to the left
    neighbour (whole bytes per pixel, at least 1). Bands of rows with only None, Sub and Up
    filters go a row at a time; bands with Average or Paeth, a diagonal at a time."""
    kinds, data = filtered[:, 0], filtered[:, 1:]
    if kinds.size and kinds.max() > 4:
        raise PNGDataError(f"bad filter type {kinds.max()}")
    out = np.empty_like(data)
    prior = np.zeros(data.shape[1], np.uint8)
    band = max(1, _BAND_CELLS // (data.shape[1] + bpp * math.isqrt(_BAND_CELLS // bpp)))
    for top in range(0, len(data), band):
        rows = slice(top, top + band)
        if np.any(kinds[rows] >= 3):
            out[rows] = _unfilter_diagonals(data[rows], kinds[rows], prior, bpp)
        else:
            _unfilter_rows(data[rows], kinds[rows], prior, bpp, out[rows])
        prior = out[rows][-1]
    return out


def _unfilter_rows(data: np.ndarray, kinds: np.ndarray, prior: np.ndarray, bpp: int,
                   out: np.ndarray) -> None:
    """The None, Sub and Up filters, a whole row per step, into `out`."""
    for y, kind in enumerate(kinds.tolist()):
        if kind == 1:
            out[y] = np.cumsum(data[y].reshape(-1, bpp), 0, dtype=np.uint8).reshape(-1)
        elif kind == 2:
            out[y] = data[y] + prior
        else:
            out[y] = data[y]
        prior = out[y]


def _skewed(rows: int, width: int, bpp: int) -> tuple:
    """A zero int16 buffer where pixel (y, x), y and x from -1 (the borders), lies at
    [x + y + 2, y + 1], so that each anti-diagonal x + y is one contiguous slice; and a
    [rows + 1, width + 1, bpp] view of it in image order (it stays inside the buffer)."""
    skew = np.zeros((width + rows + 1, rows + 1, bpp), np.int16)
    step = skew.itemsize * bpp
    image = np.lib.stride_tricks.as_strided(skew, (rows + 1, width + 1, bpp),
                                            ((rows + 2) * step, (rows + 1) * step, skew.itemsize))
    return skew, image


def _paeth(left: np.ndarray, up: np.ndarray, up_left: np.ndarray) -> np.ndarray:
    """The PNG Paeth predictor: of left, up, up-left, the nearest to left + up - up_left."""
    to_up, to_left = up - up_left, left - up_left   # p - left, p - up
    p_left, p_up, p_up_left = np.abs(to_up), np.abs(to_left), np.abs(to_up + to_left)
    return np.where((p_left <= p_up) & (p_left <= p_up_left), left,
                    np.where(p_up <= p_up_left, up, up_left))


_PREDICTORS = {1: lambda left, up, up_left: left, 2: lambda left, up, up_left: up,
               3: lambda left, up, up_left: (left + up) >> 1, 4: _paeth}


def _unfilter_diagonals(data: np.ndarray, kinds: np.ndarray, prior: np.ndarray,
                        bpp: int) -> np.ndarray:
    """All five filters at once, an anti-diagonal of pixels per NumPy step: a pixel depends on
    its left, upper and upper-left neighbours only, which lie on the two diagonals before its
    own, so there are width + rows - 1 steps rather than width * rows."""
    rows, width = len(data), data.shape[1] // bpp
    done, done_image = _skewed(rows, width, bpp)
    given, given_image = _skewed(rows, width, bpp)
    done_image[0, 1:] = prior.reshape(width, bpp)
    given_image[1:, 1:] = data.reshape(rows, width, bpp)
    present = sorted(set(kinds.tolist()) - {0})
    of_kind = {kind: (kinds == kind)[:, None] for kind in present}
    one_kind = len(present) == 1 and bool(of_kind[present[0]].all())
    for s in range(2, width + rows + 1):
        lo, hi = max(0, s - 1 - width), min(rows - 1, s - 2)   # the rows y diagonal s meets
        left, up = done[s - 1, lo + 1:hi + 2], done[s - 1, lo:hi + 1]
        up_left = done[s - 2, lo:hi + 1]
        predictor = 0
        for kind in present:   # np.choose would be simpler but is several times slower
            value = _PREDICTORS[kind](left, up, up_left)
            predictor = value if one_kind else np.where(of_kind[kind][lo:hi + 1], value,
                                                         predictor)
        done[s, lo + 1:hi + 2] = (given[s, lo + 1:hi + 2] + predictor) & 0xFF
    return done_image[1:, 1:].astype(np.uint8).reshape(rows, width * bpp)


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
    raw = np.frombuffer(_inflate(info), np.uint8)
    bpp = max(1, info.samples * info.depth // 8)
    out = np.zeros((info.height, info.width, info.samples),
                   np.uint16 if info.depth == 16 else np.uint8)
    pos = 0
    for x0, y0, dx, dy, w, h in info.passes():
        size = h * (1 + info.row_bytes(w))
        rows = _unfilter(raw[pos:pos + size].reshape(h, -1), bpp)
        out[y0::dy, x0::dx] = _samples(rows, w, info.samples, info.depth)
        pos += size
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
    info.check_size()
    info.check_chunks_after_data()   # cheap, so before the data is inflated
    pixels = _pixels(info)
    channels = channels or info.channels
    depth = info.depth
    trns = info.trns
    if info.color_type == 3:   # palette -> RGB(A)
        index = pixels[..., 0].astype(np.intp)
        # libpng's palette has 256 entries, those past PLTE black and opaque: so has TF's
        palette = np.zeros((256, 3), np.uint8)
        palette[:len(info.palette)] = info.palette
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


__all__ = ["PNGDataError", "PNGError", "PNGHeaderError", "PNGInfo", "PNGSizeError", "SIGNATURE",
           "decode_png", "encode_png"]
