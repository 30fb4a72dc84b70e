"""`keras.utils.load_img`, `save_img`, `img_to_array`, `array_to_img`.

Keras 3 does these with Pillow and so does tapeflow when Pillow is installed (the same PIL
Images, pixels and files). Without Pillow, PNG and BMP still work: tapeflow decodes and
encodes them itself (tf.io's decoders) and converts colour modes and resizes ('nearest') with
Pillow's integer formulas, returning an `ArrayImage`; other formats and interpolations raise
an ImportError that names Pillow.
"""

from __future__ import annotations

import io
import os
import pathlib
import struct
import warnings
from typing import Any, Optional

import numpy as np

from tapeflow.keras import backend

_CHANNEL_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}
_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def _pil() -> Any:
    """PIL.Image, or None when Pillow is not installed."""
    try:
        from PIL import Image
    except ImportError:
        return None
    return Image


def _needs_pillow(what: str) -> ImportError:
    return ImportError(f"{what} needs Pillow (`pip install Pillow`); without it tapeflow reads "
                       "and writes PNG and BMP only, resizing with 'nearest'.")


class ArrayImage:
    """A decoded image without Pillow: `size` (width, height), `mode` ('L', 'LA', 'RGB',
    'RGBA'), `np.asarray(img)` gives its uint8 pixels (2-D for 'L', as PIL), `save(path)`
    writes PNG or BMP."""

    def __init__(self, pixels: np.ndarray, mode: Optional[str] = None) -> None:
        pixels = np.asarray(pixels)
        self._pixels = pixels[..., None] if pixels.ndim == 2 else pixels
        self.mode = mode or _CHANNEL_MODES[self._pixels.shape[-1]]

    @property
    def size(self) -> tuple:
        """(width, height), as PIL."""
        return self._pixels.shape[1], self._pixels.shape[0]

    @property
    def width(self) -> int:
        """The width in pixels."""
        return self._pixels.shape[1]

    @property
    def height(self) -> int:
        """The height in pixels."""
        return self._pixels.shape[0]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self._pixels[..., 0] if self._pixels.shape[-1] == 1 else self._pixels
        return out if dtype is None else out.astype(dtype)

    def convert(self, mode: str) -> "ArrayImage":
        """The image in another colour mode, with Pillow's formulas (L = (19595 R +
        38470 G + 7471 B + 32768) >> 16; a missing alpha is 255)."""
        return ArrayImage(_convert(self._pixels, mode), mode)

    def resize(self, size: tuple, resample: Any = None, box: Any = None) -> "ArrayImage":
        """The image resized to `size` (width, height) with nearest-neighbour sampling of
        `box` (left, upper, right, lower; the whole image by default), as PIL's NEAREST."""
        return ArrayImage(_resize_nearest(self._pixels, size, box), self.mode)

    def save(self, fp: Any, format: Optional[str] = None, **kwargs: Any) -> None:  # noqa: A002
        """Writes the image as PNG or BMP (by `format` or the file's extension)."""
        fmt = (format or pathlib.Path(os.fspath(fp)).suffix[1:]).lower()
        data = _encode(self._pixels, fmt)
        if hasattr(fp, "write"):
            fp.write(data)
        else:
            with open(fp, "wb") as f:
                f.write(data)

    def __repr__(self) -> str:
        return f"<ArrayImage mode={self.mode} size={self.width}x{self.height}>"


def _convert(pixels: np.ndarray, mode: str) -> np.ndarray:
    channels = pixels.shape[-1]
    color = pixels[..., :3] if channels >= 3 else np.repeat(pixels[..., :1], 3, -1)
    if mode == "L":
        c = color.astype(np.int64)
        gray = (c[..., 0] * 19595 + c[..., 1] * 38470 + c[..., 2] * 7471 + 0x8000) >> 16
        return gray.astype(np.uint8)[..., None]
    if mode == "RGB":
        return np.ascontiguousarray(color)
    if mode == "RGBA":
        alpha = pixels[..., -1:] if channels in (2, 4) else np.full(pixels.shape[:2] + (1,),
                                                                    255, np.uint8)
        return np.concatenate([color, alpha], -1)
    raise ValueError(f"conversion to mode {mode!r} is not supported without Pillow")


def _resize_nearest(pixels: np.ndarray, size: tuple, box: Any = None) -> np.ndarray:
    """PIL's NEAREST resize: output pixel i samples floor(box_start + (i + 0.5) * scale)."""
    height, width = pixels.shape[:2]
    left, upper, right, lower = box if box is not None else (0, 0, width, height)
    out_w, out_h = size

    def index(start: float, extent: float, count: int, limit: int) -> np.ndarray:
        at = np.floor(start + (np.arange(count) + 0.5) * (extent / count)).astype(np.int64)
        return np.clip(at, 0, limit - 1)

    rows = index(upper, lower - upper, out_h, height)
    cols = index(left, right - left, out_w, width)
    return np.ascontiguousarray(pixels[rows][:, cols])


def _encode(pixels: np.ndarray, fmt: str) -> bytes:
    if fmt == "png":
        from tapeflow.io import png
        return png.encode_png(np.ascontiguousarray(pixels, np.uint8))
    if fmt == "bmp":
        return _encode_bmp(pixels)
    raise _needs_pillow(f"Saving a {fmt!r} image")


def _encode_bmp(pixels: np.ndarray) -> bytes:
    """An uncompressed bottom-up BMP: 8 bits with a gray palette for 'L', 24 bits (BGR) for
    RGB, 32 (BGRA) for RGBA."""
    pixels = np.asarray(pixels, np.uint8)
    height, width, channels = pixels.shape
    if channels == 2:
        pixels, channels = _convert(pixels, "L"), 1
    if channels >= 3:
        pixels = np.concatenate([pixels[..., 2::-1], pixels[..., 3:]], -1)
    palette = (np.repeat(np.arange(256, dtype=np.uint8), 4).reshape(256, 4) * [1, 1, 1, 0]
               ).astype(np.uint8).tobytes() if channels == 1 else b""
    row = width * channels
    padded = np.zeros((height, (row + 3) // 4 * 4), np.uint8)
    padded[:, :row] = pixels.reshape(height, row)
    body = padded[::-1].tobytes()
    offset = 14 + 40 + len(palette)
    header = struct.pack("<2sIHHI", b"BM", offset + len(body), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, channels * 8, 0, len(body),
                       2835, 2835, 256 if channels == 1 else 0, 0)
    return header + info + palette + body


def _read_bytes(path: Any) -> bytes:
    if isinstance(path, io.BytesIO):
        return path.getvalue()
    if isinstance(path, (pathlib.Path, bytes, str)):
        with open(str(path.resolve()) if isinstance(path, pathlib.Path) else path, "rb") as f:
            return f.read()
    raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")


def _decode(data: bytes) -> ArrayImage:
    from tapeflow.io.image_ops import decode_image, image_format
    fmt = image_format(data)
    if fmt not in ("png", "bmp"):
        raise _needs_pillow(f"Reading a {fmt.upper() if fmt != 'unknown' else 'non-PNG/BMP'} "
                            "image")
    pixels = decode_image(data, expand_animations=False).numpy()
    if fmt == "bmp" and pixels.shape[-1] == 4:  # Pillow reads a 32-bit BMP's 4th byte as padding
        pixels = pixels[..., :3]
    return ArrayImage(pixels)


def img_to_array(img: Any, data_format: Optional[str] = None, dtype: Any = None) -> np.ndarray:
    """An image (PIL Image, ArrayImage or array) as a 3-D NumPy array of `dtype` (floatx by
    default), channels last unless `data_format='channels_first'`."""
    from tapeflow.keras.backend import floatx
    data_format = backend.standardize_data_format(data_format)
    x = np.asarray(img, dtype=dtype or floatx())
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if data_format == "channels_first" else x
    if x.ndim == 2:
        return x.reshape((1,) + x.shape if data_format == "channels_first" else x.shape + (1,))
    raise ValueError(f"Unsupported image shape: {x.shape}")


def array_to_img(x: Any, data_format: Optional[str] = None, scale: bool = True,
                 dtype: Any = None) -> Any:
    """A 3-D array as an image (a PIL Image with Pillow, else an ArrayImage): with `scale`,
    shifted and scaled to span [0, 255]; 1 channel is 'L' ('I' above 255), 3 'RGB', 4
    'RGBA'."""
    from tapeflow.keras.backend import floatx
    data_format = backend.standardize_data_format(data_format)
    x = np.asarray(x, dtype=dtype or floatx())
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with "
                         f"shape: {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    channels = x.shape[2]
    if channels not in (1, 3, 4):
        raise ValueError(f"Unsupported channel number: {channels}")
    pil = _pil()
    if channels == 1 and np.max(x) > 255:
        if pil is None:
            raise _needs_pillow("A 32-bit ('I' mode) image")
        return pil.fromarray(x[:, :, 0].astype("int32"), "I")
    pixels = x.astype("uint8")
    if pil is None:
        return ArrayImage(pixels)
    return pil.fromarray(pixels[:, :, 0] if channels == 1 else pixels, _CHANNEL_MODES[channels])


def save_img(path: Any, x: Any, data_format: Optional[str] = None,
             file_format: Optional[str] = None, scale: bool = True, **kwargs: Any) -> None:
    """Writes a 3-D array as an image file (the format from `file_format` or the extension;
    see `array_to_img` for `scale`)."""
    data_format = backend.standardize_data_format(data_format)
    if file_format is None and isinstance(path, (str, pathlib.Path)):
        file_format = pathlib.Path(path).suffix[1:].lower()
    if file_format and file_format.lower() == "jpg":
        file_format = "jpeg"
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format == "jpeg":
        warnings.warn("The JPEG format does not support RGBA images, converting to RGB.",
                      stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


def load_img(path: Any, color_mode: str = "rgb", target_size: Optional[tuple] = None,
             interpolation: str = "nearest", keep_aspect_ratio: bool = False) -> Any:
    """An image file (a path or io.BytesIO) as an image in `color_mode` ('grayscale', 'rgb',
    'rgba'), resized to `target_size` (height, width) if given; with `keep_aspect_ratio` the
    largest centred crop of the target's aspect ratio is resized."""
    data = _read_bytes(path)
    pil = _pil()
    img = pil.open(io.BytesIO(data)) if pil is not None else _decode(data)
    wanted = {"grayscale": "L", "rgba": "RGBA", "rgb": "RGB"}.get(color_mode)
    if wanted is None:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    keep = ("L", "I;16", "I") if wanted == "L" else (wanted,)
    if img.mode not in keep:
        img = img.convert(wanted)
    if target_size is None:
        return img
    size = (target_size[1], target_size[0])
    if img.size == size:
        return img
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"Invalid interpolation method {interpolation} specified. Supported "
                         f"methods are {', '.join(_INTERPOLATIONS)}")
    if pil is None and interpolation != "nearest":
        raise _needs_pillow(f"Resizing with interpolation={interpolation!r}")
    box = _crop_box(img.size, size) if keep_aspect_ratio else None
    if pil is None:
        return img.resize(size, box=box)
    resampling = getattr(pil, "Resampling", pil)
    return img.resize(size, getattr(resampling, interpolation.upper()), box=box)


def _crop_box(size: tuple, target: tuple) -> list:
    """The largest box of the target's aspect ratio centred in an image of `size`."""
    width, height = size
    target_width, target_height = target
    crop_height = min(height, width * target_height // target_width)
    crop_width = min(width, height * target_width // target_height)
    top, left = (height - crop_height) // 2, (width - crop_width) // 2
    return [left, top, left + crop_width, top + crop_height]


__all__ = ["ArrayImage", "array_to_img", "img_to_array", "load_img", "save_img"]
