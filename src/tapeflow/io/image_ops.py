"""`tf.io.encode_png` / `decode_png`, `decode_bmp`, `decode_image`, `is_jpeg`, and the JPEG,
GIF and WebP decoders, which tapeflow lacks: they raise UnimplementedError for such data
(TensorFlow's decoders sniff the format, so PNG or BMP data given to them still decodes)."""

from __future__ import annotations

import struct
from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray, dims_text
from tapeflow.framework.errors import InternalError, InvalidArgumentError, UnimplementedError
from tapeflow.framework.tensor import Tensor
from tapeflow.io import png as _png
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.string_ops import _elementwise, _strings

_OBJECT = np.dtype(object)


def image_format(data: bytes) -> str:
    """The image format TF's decoders recognise from the first bytes."""
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == _png.SIGNATURE:
        return "png"
    if data[:4] == b"GIF8":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:2] == b"\xff\x0a" or data[:12] == b"\0\0\0\x0cJXL \r\n\x87\n":
        return "jpeg xl"
    return "unknown"


def _no_decoder(fmt: str, op: str) -> UnimplementedError:
    return UnimplementedError(f"{op}: tapeflow has no {fmt.upper()} decoder (it decodes PNG "
                              f"and BMP only) [Op:{op}]")


def _scalar_contents(x: np.ndarray, op: str) -> bytes:
    if x.ndim != 0:
        raise InvalidArgumentError(f"`contents` must be scalar but got shape"
                                   f"{dims_text(x.shape)} [Op:{op}]")
    if not x[()]:
        raise InvalidArgumentError(f"Input is empty. [Op:{op}]")
    return x[()]


def _check_channels(channels: int, op: str, allowed: tuple = (0, 1, 3, 4)) -> None:
    if channels not in allowed:
        raise InvalidArgumentError(f"`channels` must be 0, 1, 3 or 4 but got {channels} "
                                   f"[Op:{op}]")


def _png_pixels(data: bytes, channels: int, bits: int, op: str) -> np.ndarray:
    """TF's DecodePng: each failure stage has its own message (see tapeflow.io.png)."""
    try:
        return _png.decode_png(data, channels, bits, _png.PNGInfo(data))
    except _png.PNGHeaderError:
        message = "Invalid PNG. Failed to initialize decoder."
    except _png.PNGSizeError as exc:
        message = str(exc)
    except _png.PNGError:
        message = f"Invalid PNG data, size {len(data)}"
    raise InvalidArgumentError(f"{message} [Op:{op}]")


# -- BMP -------------------------------------------------------------------------------------------

_BMP_MAX_PIXELS = (2**31 - 1) // 8   # TF: "Total possible pixel bytes must be less than 2^30"
_BMP_UNCOMPRESSED = (0, 3, 6)        # BI_RGB, BI_BITFIELDS, BI_ALPHABITFIELDS


def _bmp_layout(data: bytes, op: str) -> tuple:
    """TF's DecodeBmp checks, in its order: (pixel data offset, width, signed height, channels
    in the file). `offset` (TF's "header size") is the int32 at byte 10, width and height the
    int32s at 18 and 22, bits per pixel the int16 at 28; rows are padded to 4 bytes and the
    file must end exactly after them."""
    if len(data) < 32:
        raise InvalidArgumentError(f"Incomplete bmp content, requires at least 32 bytes to "
                                   f"find the header size, width, height, and bpp, got "
                                   f"{len(data)} bytes [Op:{op}]")
    offset, = struct.unpack_from("<i", data, 10)
    width, height = struct.unpack_from("<ii", data, 18)
    bpp, = struct.unpack_from("<h", data, 28)
    inherent = int(bpp / 8)   # C's division, which truncates toward zero
    if inherent not in (1, 3, 4):
        raise InvalidArgumentError(f"Number of channels inherent in the image must be 1, 3 or "
                                   f"4, was {inherent} [Op:{op}]")
    checks = ((width > 0, "Width must be positive"), (height != 0, "Height must be nonzero"),
              (offset >= 0, "header size must be nonnegative"),
              (width * abs(height) < _BMP_MAX_PIXELS,
               "Total possible pixel bytes must be less than 2^30"))
    for ok, text in checks:
        if not ok:
            raise InvalidArgumentError(f"{text} [Op:{op}]")
    row_size = (width * inherent + 3) // 4 * 4
    size_diff = _int32(len(data) - offset - row_size * abs(height))   # TF's int arithmetic
    if size_diff:
        raise InvalidArgumentError(f"Input size should match (header_size + row_size * "
                                   f"abs_height) but they differ by {size_diff} [Op:{op}]")
    _check_bmp_compression(data, offset, op)
    return offset, width, height, inherent


def _int32(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def _check_bmp_compression(data: bytes, offset: int, op: str) -> None:
    """TF reads every BMP as uncompressed pixels, so an RLE (or JPEG/PNG-in-BMP) file whose
    size happens to fit decodes to garbage there; tapeflow refuses it instead. Only an info
    header (40 bytes or more, at 14) that ends before the pixels has a compression field."""
    header_size, = struct.unpack_from("<I", data, 14)
    if header_size < 40 or offset < 34:
        return
    compression, = struct.unpack_from("<I", data, 30)
    if compression not in _BMP_UNCOMPRESSED:
        raise InvalidArgumentError(f"BMP compression {compression} is not supported: only "
                                   f"uncompressed BMPs decode (TensorFlow reads these bytes as "
                                   f"raw pixels) [Op:{op}]")


def _bmp_pixels(data: bytes, channels: int, op: str) -> np.ndarray:
    """TF's DecodeBmp: 8 (one channel, palette ignored), 24 (BGR) or 32 (BGRA) bits per pixel,
    bottom-up unless the height is negative; see _bmp_layout for what is refused."""
    if channels not in (0, 3, 4):
        raise InvalidArgumentError(f"`channels` must be 0, 3 or 4 for BMP, but got {channels} "
                                   f"[Op:{op}]")
    offset, width, height, inherent = _bmp_layout(data, op)
    rows = abs(height)
    row_size = (width * inherent + 3) // 4 * 4
    body = np.frombuffer(data, np.uint8, row_size * rows, offset)
    pixels = body.reshape(rows, row_size)[:, :width * inherent].reshape(rows, width, inherent)
    if height > 0:   # bottom-up
        pixels = pixels[::-1]
    if inherent >= 3:
        pixels = np.concatenate([pixels[..., 2::-1], pixels[..., 3:]], -1)
    channels = channels or inherent
    if channels >= 3 and inherent == 1:   # gray replicated, as TF
        pixels = np.repeat(pixels, 3, -1)
    if channels == 4 and pixels.shape[-1] == 3:
        pixels = np.concatenate([pixels, np.full(pixels.shape[:2] + (1,), 255, np.uint8)], -1)
    elif channels == 3 and pixels.shape[-1] == 4:
        pixels = pixels[..., :3]
    return np.ascontiguousarray(pixels)


# -- the kernels -----------------------------------------------------------------------------------

def _decode_png_impl(contents: np.ndarray, channels: int, dtype: str, op: str) -> np.ndarray:
    data = _scalar_contents(contents, op)
    fmt = image_format(data)
    if fmt == "bmp":
        raise InvalidArgumentError(f"Trying to decode BMP format using a wrong op. Use "
                                   f"`decode_bmp` or `decode_image` instead. Op used: {op} "
                                   f"[Op:{op}]")
    if fmt == "unknown":
        raise InvalidArgumentError(f"Unknown image file format. One of JPEG, JPEG XL, PNG, "
                                   f"GIF, BMP, WebP required. [Op:{op}]")
    if fmt != "png":
        raise _no_decoder(fmt, op)
    image = _png_pixels(data, channels, 16 if dtype == "uint16" else 8, op)
    return image[None] if op == "DecodeGif" else image


def _decode_bmp_impl(contents: np.ndarray, channels: int) -> np.ndarray:
    data = _scalar_contents(contents, "DecodeBmp")
    fmt = image_format(data)
    if fmt != "bmp":
        if fmt in ("png", "jpeg", "gif"):
            use = {"png": "decode_png", "jpeg": "decode_jpeg", "gif": "decode_gif"}[fmt]
            raise InvalidArgumentError(f"Trying to decode {fmt.upper()} format using DecodeBmp "
                                       f"op. Use `{use}` or `decode_image` instead. "
                                       f"[Op:DecodeBmp]")
        raise InvalidArgumentError("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, "
                                   "BMP, WebP required. [Op:DecodeBmp]")
    return _bmp_pixels(data, channels, "DecodeBmp")


def _decode_image_impl(contents: np.ndarray, channels: int, dtype: str,
                       expand_animations: bool) -> np.ndarray:
    data = _scalar_contents(contents, "DecodeImage")
    fmt = image_format(data)
    # TF's kernel decodes to uint8, uint16 or float32; other dtypes go through uint16 and
    # convert_image_dtype
    decoded = dtype if dtype in ("uint8", "uint16", "float32") else "uint16"
    if fmt == "bmp":
        image = _bmp_pixels(data, channels, "DecodeImage")
        if decoded == "uint16":
            image = image.astype(np.uint16) * 256   # TF: floor(65536 / 256), not 257
    elif fmt == "png":   # at 16 bits for a float32 result too, so 16-bit files keep precision
        image = _png_pixels(data, channels, 8 if decoded == "uint8" else 16, "DecodeImage")
    elif fmt == "unknown":
        raise InvalidArgumentError("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, "
                                   "BMP, WebP required. [Op:DecodeImage]")
    else:
        raise _no_decoder(fmt, "DecodeImage")
    if dtype in ("uint8", "uint16"):
        return image
    return _to_float(image, dtype)


def _to_float(image: np.ndarray, dtype: str) -> np.ndarray:
    """An integer image as floats, x / max(dtype of x), multiplied in the result's dtype as TF
    (its kernel for float32, convert_image_dtype for the others)."""
    np_dtype = np.dtype(_dtypes.as_dtype(dtype).as_numpy_dtype)
    return image.astype(np_dtype) * np_dtype.type(1.0 / np.iinfo(image.dtype).max)


def _image_rule(contents: ShapedArray, channels: int, dtype: str, op: str) -> ShapedArray:
    out = np.dtype(_dtypes.as_dtype(dtype).as_numpy_dtype)
    shape = (None, None, channels or None)
    return ShapedArray((None,) + shape if op == "DecodeGif" else shape, out)


_DECODE_PNG = Primitive("DecodePng", _decode_png_impl, differentiable=False,
                        shape_rule=_image_rule)
_DECODE_BMP = Primitive("DecodeBmp", _decode_bmp_impl, differentiable=False,
                        shape_rule=lambda c, channels: ShapedArray((None, None, channels or None),
                                                                   np.uint8))
_DECODE_IMAGE = Primitive("DecodeImage", _decode_image_impl, differentiable=False,
                          shape_rule=lambda c, channels, dtype, expand_animations: ShapedArray(
                              None, _dtypes.as_dtype(dtype).as_numpy_dtype))


def _encode_png_impl(image: np.ndarray, compression: int) -> np.ndarray:
    if image.ndim < 3:
        raise InvalidArgumentError(f"images must be at least rank 3{dims_text(image.shape)} "
                                   f"[Op:EncodePng] name: ")
    if image.shape[-1] not in (1, 2, 3, 4):
        raise InvalidArgumentError(f"image must have 1, 2, 3, or 4 channels, got "
                                   f"{image.shape[-1]} [Op:EncodePng] name: ")
    if not -1 <= compression <= 9:
        raise InvalidArgumentError(f"compression should be in [-1,9], got {compression} "
                                   f"[Op:EncodePng] name: ")
    batch = image.reshape((int(np.prod(image.shape[:-3])),) + image.shape[-3:])
    if image.shape[-3] == 0 or image.shape[-2] == 0:
        failed = ", ".join(str(i) for i in range(len(batch)))
        raise InternalError(f"PNG encoding failed at the following flattened batch indices: "
                            f"{failed} [Op:EncodePng] name: ")
    out = np.empty(len(batch), dtype=object)
    out[:] = [_png.encode_png(im, compression) for im in batch]
    return out.reshape(image.shape[:-3])


_ENCODE_PNG = Primitive("EncodePng", _encode_png_impl, differentiable=False,
                        shape_rule=lambda image, compression: ShapedArray(
                            None if image.shape is None else image.shape[:-3], _OBJECT))
_IS_JPEG = _elementwise("IsJpeg", lambda s: s[:3] == b"\xff\xd8\xff", np.bool_)


# -- the public ops --------------------------------------------------------------------------------

def _check_dtype(dtype: Any, op: str, allowed: tuple = ("uint8", "uint16")) -> str:
    name = _dtypes.as_dtype(dtype).name
    if name not in allowed:
        from tapeflow.io.serialization import tf_type_name
        raise InvalidArgumentError(f"Value for attr 'dtype' of {tf_type_name(name)} is not in "
                                   f"the list of allowed values: "
                                   f"{', '.join(allowed)} [Op:{op}]")
    return name


def encode_png(image: Any, compression: int = -1, name: Optional[str] = None) -> Tensor:
    """PNG-encodes a [height, width, channels] uint8 or uint16 image (1-4 channels), or each
    image of a batch; `compression` is zlib's level, -1 (default) to 9."""
    x = convert_to_tensor(image)
    if x.dtype.name not in ("uint8", "uint16"):
        from tapeflow.io.serialization import tf_type_name
        raise InvalidArgumentError(f"Value for attr 'T' of {tf_type_name(x.dtype.name)} is not "
                                   f"in the list of allowed values: uint8, uint16 "
                                   f"[Op:EncodePng] name: ")
    return bind(_ENCODE_PNG, (x,), {"compression": int(compression)})


def _decode(prim_op: str, contents: Any, channels: int, dtype: Any) -> Tensor:
    _check_channels(int(channels), prim_op)
    dtype = _check_dtype(dtype, prim_op)
    return bind(_DECODE_PNG, (_strings(contents, prim_op),),
                {"channels": int(channels), "dtype": dtype, "op": prim_op})


def decode_png(contents: Any, channels: int = 0, dtype: Any = _dtypes.uint8,
               name: Optional[str] = None) -> Tensor:
    """A PNG's pixels, [height, width, channels] uint8 or uint16: channels 0 keeps the
    file's (RGB or RGBA for a palette), 1 gray, 3 RGB, 4 RGBA. Converted as TF (libpng):
    gray = (9797 R + 19234 G + 9737 B) / 32768, a missing alpha opaque, 16 bits cut to their
    high byte, 8 bits widened by 257. Broken files are refused as TF's libpng refuses them
    (chunk CRCs, chunk order, IEND, the zlib stream); a declared size of 2**29 pixels or more
    is refused before any work, and decompression stops at the declared size."""
    return _decode("DecodePng", contents, channels, dtype)


def decode_jpeg(contents: Any, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1,
                dct_method: str = "", name: Optional[str] = None) -> Tensor:
    """JPEG decoding is not available in tapeflow (UnimplementedError); PNG data decodes as
    in TF (its decoders sniff the format)."""
    return _decode("DecodeJpeg", contents, channels, _dtypes.uint8)


def decode_gif(contents: Any, name: Optional[str] = None) -> Tensor:
    """GIF decoding is not available in tapeflow (UnimplementedError); PNG data decodes to
    one [1, height, width, 3] frame as in TF."""
    return _decode("DecodeGif", contents, 3, _dtypes.uint8)


def decode_webp(contents: Any, channels: int = 0, name: Optional[str] = None) -> Tensor:
    """WebP decoding is not available in tapeflow (UnimplementedError); PNG data decodes as
    in TF."""
    return _decode("DecodeWebP", contents, channels, _dtypes.uint8)


def decode_bmp(contents: Any, channels: int = 0, name: Optional[str] = None) -> Tensor:
    """An uncompressed BMP's pixels as [height, width, channels] uint8 (channels 0, 3 or 4;
    8-bit BMPs give their indices as one channel, as TF). The file must be exactly its header
    plus its padded rows, as TF checks; RLE and other compressed BMPs are refused (TF would
    read their bytes as raw pixels)."""
    _check_channels(int(channels), "DecodeBmp")
    return bind(_DECODE_BMP, (_strings(contents, "DecodeBmp"),), {"channels": int(channels)})


def decode_image(contents: Any, channels: Optional[int] = None, dtype: Any = _dtypes.uint8,
                 name: Optional[str] = None, expand_animations: bool = True) -> Tensor:
    """A PNG or BMP image decoded by its format ([height, width, channels]); a float `dtype`
    scales to [0, 1] as convert_image_dtype. JPEG, GIF and WebP raise UnimplementedError."""
    channels = int(channels or 0)
    _check_channels(channels, "DecodeImage")
    name_ = _dtypes.as_dtype(dtype).name
    return bind(_DECODE_IMAGE, (_strings(contents, "DecodeImage"),),
                {"channels": channels, "dtype": name_,
                 "expand_animations": bool(expand_animations)})


def is_jpeg(contents: Any, name: Optional[str] = None) -> Tensor:
    """Whether each string starts with JPEG's signature (FF D8 FF)."""
    return bind(_IS_JPEG, (_strings(contents, "IsJpeg"),))


__all__ = ["decode_bmp", "decode_gif", "decode_image", "decode_jpeg", "decode_png",
           "decode_webp", "encode_png", "is_jpeg"]
