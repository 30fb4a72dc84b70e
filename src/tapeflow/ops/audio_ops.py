"""`tf.audio`: 16-bit PCM WAV files, decoded to and encoded from float32 samples in [-1, 1).

The RIFF reading and writing are tapeflow's own, walking a file as TF's `wav_io` does (the
same chunks accepted, the same checks in the same order, the same messages), so a file TF
reads reads the same here and a file TF rejects raises TF's InvalidArgumentError. Neither op
has a gradient (their inputs or outputs are strings).
"""

from __future__ import annotations

import collections
import struct
from typing import Any, Optional

import numpy as np

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.convert import mismatch_error
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.ops._convert import convert_to_tensor

_OBJECT = np.dtype(object)
_SCALE = 32768.0  # 2**15: int16 sample <-> float in [-1, 1)
# Chunks TF skips between "WAVE" and "fmt " (JUNK padding, broadcast-WAV tags).
_SKIPPED_BEFORE_FORMAT = frozenset([b"JUNK", b"bext", b"iXML", b"qlty", b"mext", b"levl",
                                    b"link", b"axml"])
_INT32_MAX = 2**31 - 1

DecodeWav = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])
DecodeWav.__doc__ = "The result of `tf.audio.decode_wav`: (audio, sample_rate)."


def _error(text: str, op: str = "DecodeWav") -> InvalidArgumentError:
    return InvalidArgumentError(f"{text} [Op:{op}]")


def _shape_text(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


class _Reader:
    """A read position in a WAV file's bytes, moved and checked as TF's IncrementOffset."""

    def __init__(self, data: bytes) -> None:
        self.data, self.offset = data, 0

    def take(self, count: int) -> bytes:
        end = self.offset + count
        if end > len(self.data):
            raise _error("Data too short when trying to read string")
        start, self.offset = self.offset, end
        return self.data[start:end]

    def expect(self, text: bytes) -> None:
        found = self.take(len(text))
        if found != text:
            raise _error(f"Header mismatch: Expected {text.decode()} but found "
                         f"{found.decode('utf-8', 'replace')}")

    def uint(self, size: int) -> int:
        return int.from_bytes(self.take(size), "little")


def _read_format(reader: _Reader) -> tuple:
    """(channels, sample_rate, bytes per frame) from the "fmt " chunk, after TF's checks."""
    chunk_id = reader.take(4)
    while chunk_id != b"fmt ":
        if chunk_id not in _SKIPPED_BEFORE_FORMAT:
            raise _error(f"Unexpected field {chunk_id.decode('utf-8', 'replace')}")
        reader.take(reader.uint(4))
        chunk_id = reader.take(4)
    size = reader.uint(4)
    if size not in (16, 18):
        # TF's message has no space before the number.
        raise _error(f"Bad format chunk size for WAV: Expected 16 or 18, but got{size}")
    audio_format = reader.uint(2)
    if audio_format != 1:
        raise _error(f"Bad audio format for WAV: Expected 1 (PCM), but got{audio_format}")
    channels = reader.uint(2)
    if channels < 1:
        raise _error(f"Bad number of channels for WAV: Expected at least 1, but got {channels}")
    rate, per_second, block, bits = reader.uint(4), reader.uint(4), reader.uint(2), reader.uint(2)
    if bits != 16:
        raise _error(f"Can only read 16-bit WAV files, but received {bits}")
    if block != (bits * channels + 7) // 8:
        raise _error(f"Bad bytes per sample in WAV header: Expected "
                     f"{(bits * channels + 7) // 8} but got {block}")
    if per_second != block * rate:
        raise _error(f"Bad bytes per second in WAV header: Expected {block * rate} but got "
                     f"{per_second} (sample_rate={rate}, bytes_per_sample={block})")
    if size == 18:
        reader.offset += 2  # the unused extension size, skipped unread as TF does
    return channels, rate, block


def parse_wav(data: bytes) -> tuple:
    """(int16 samples [frames, channels], sample rate) of a 16-bit PCM WAV file's bytes;
    InvalidArgumentError with TF's message where TF's reader rejects the file."""
    reader = _Reader(data)
    reader.expect(b"RIFF")
    reader.uint(4)  # the RIFF size: TF does not check it
    reader.expect(b"WAVE")
    channels, rate, block = _read_format(reader)
    samples = None
    while reader.offset < len(data):
        chunk_id, size = reader.take(4), reader.uint(4)
        if size > _INT32_MAX:
            raise _error(f"WAV data chunk '{chunk_id.decode('utf-8', 'replace')}' is too "
                         f"large: {size} bytes, but the limit is {_INT32_MAX}")
        if chunk_id != b"data":
            reader.offset += size
            continue
        if samples is not None:
            raise _error("More than one data chunk found in WAV")
        frames = size // block
        # Whole frames only: a chunk's odd trailing bytes are left to be read as the next
        # chunk's header, as TF's reader does.
        raw = reader.take(2 * frames * channels)
        samples = np.frombuffer(raw, "<i2").reshape(frames, channels)
    if samples is None:
        raise _error("No data chunk found in WAV")
    return samples, rate


def _decode_kernel(contents: np.ndarray, desired_channels: int,
                   desired_samples: int) -> tuple:
    if contents.ndim:
        raise _error(f"contents must be scalar, got shape {_shape_text(contents.shape)}")
    samples, rate = parse_wav(bytes(contents.item()))
    if desired_channels < -1:
        raise _error(f"desired_channels must be >= -1, got {desired_channels}")
    if desired_samples < -1:
        raise _error(f"desired_samples must be >= -1, got {desired_samples}")
    frames, channels = samples.shape
    out_frames = frames if desired_samples == -1 else desired_samples
    out_channels = channels if desired_channels == -1 else desired_channels
    # Missing channels repeat the last one; missing frames are silence.
    source = samples[:out_frames, np.minimum(np.arange(out_channels), channels - 1)]
    audio = np.zeros((out_frames, out_channels), np.float32)
    audio[:source.shape[0]] = source.astype(np.float32) / np.float32(_SCALE)
    return audio, np.array(rate, np.uint32).view(np.int32)


def _decode_rule(contents: ShapedArray, desired_channels: int,
                 desired_samples: int) -> tuple:
    frames = None if desired_samples == -1 else desired_samples
    channels = None if desired_channels == -1 else desired_channels
    return ShapedArray((frames, channels), np.dtype(np.float32)), \
        ShapedArray((), np.dtype(np.int32))


def wav_bytes(audio: np.ndarray, sample_rate: int) -> bytes:
    """A 16-bit PCM WAV file of float `audio` [frames, channels] as TF's encoder writes it:
    samples scaled by 2**15, rounded half away from zero, clipped to int16 (NaN as 0)."""
    frames, channels = audio.shape
    scaled = audio.astype(np.float64) * _SCALE  # exact, as float32 * 2**15 is
    rounded = np.clip(np.trunc(scaled + np.copysign(0.5, scaled)), -32768, 32767)
    pcm = np.where(np.isnan(rounded), 0, rounded).astype("<i2").tobytes()
    block = 2 * channels
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(pcm), b"WAVE", b"fmt ", 16, 1,
                         channels, sample_rate, (sample_rate * block) & 0xFFFFFFFF,
                         block & 0xFFFF, 16, b"data", len(pcm))
    return header + pcm


def _encode_kernel(audio: np.ndarray, sample_rate: np.ndarray) -> np.ndarray:
    op = "EncodeWav"
    if audio.ndim != 2:
        raise _error(f"audio must be 2-dimensional{_shape_text(audio.shape)}", op)
    if sample_rate.ndim:
        raise _error(f"Input sample_rate should be a scalar tensor, got "
                     f"{_shape_text(sample_rate.shape)} instead.", op)
    if audio.size >= _INT32_MAX:
        raise _error("Cannot encode audio with >= max int32 elements", op)
    rate = int(sample_rate) % 2**64  # TF reads the int32 as a size_t: -1 is 2**64 - 1
    if rate == 0 or rate > 2**32 - 1:
        raise _error(f"sample_rate must be in (0, 2^32), got: {rate}", op)
    channels = audio.shape[1]
    if channels == 0 or channels > 2**16 - 1:
        raise _error(f"num_channels must be in (0, 2^16), got: {channels}", op)
    if 44 + 2 * audio.size > 2**32 - 1:
        raise _error("Provided channels and frames cannot be encoded as a WAV.", op)
    return np.array(wav_bytes(audio, rate), _OBJECT)


_DECODE_WAV = Primitive("DecodeWav", _decode_kernel, multiple_results=True,
                        differentiable=False, shape_rule=_decode_rule)
_ENCODE_WAV = Primitive("EncodeWav", _encode_kernel, differentiable=False,
                        shape_rule=lambda audio, rate: ShapedArray((), _OBJECT))


def _input(value: Any, dtype: _dtypes.DType, op: str, index: int) -> Tensor:
    """An op input of `dtype`: a Python value converts to it, a tensor must have it."""
    if isinstance(value, TensorLike):
        if value.dtype != dtype:
            raise mismatch_error(op, index, dtype, value.dtype)
        return value
    return convert_to_tensor(value, dtype=dtype)


@tf_export("audio.decode_wav")
def decode_wav(contents: Any, desired_channels: int = -1, desired_samples: int = -1,
               name: Optional[str] = None) -> DecodeWav:
    """Decodes a 16-bit PCM WAV file (a scalar string) to float32 samples in [-1, 1).

    Args:
      contents: the file's bytes, a scalar `string` tensor.
      desired_channels: the number of channels wanted (-1: the file's); more than the file
        has repeat its last channel, fewer keep the first ones.
      desired_samples: the number of frames wanted (-1: the file's); more pad with zeros.
      name: unused (TF's op name).

    Returns:
      `DecodeWav(audio, sample_rate)`: float32 `[samples, channels]` and the int32 rate.
    """
    contents = _input(contents, _dtypes.string, "DecodeWav", 0)
    audio, rate = bind(_DECODE_WAV, (contents,), {"desired_channels": int(desired_channels),
                                                  "desired_samples": int(desired_samples)})
    return DecodeWav(audio, rate)


@tf_export("audio.encode_wav")
def encode_wav(audio: Any, sample_rate: Any, name: Optional[str] = None) -> Tensor:
    """Encodes float32 audio `[samples, channels]` as a 16-bit PCM WAV file (a scalar
    string): samples scaled by 32768, rounded and clipped to int16.

    Args:
      audio: float32 `[samples, channels]`, values in [-1, 1).
      sample_rate: int32 scalar, samples per second.
      name: unused (TF's op name).
    """
    audio = _input(audio, _dtypes.float32, "EncodeWav", 0)
    rate = _input(sample_rate, _dtypes.int32, "EncodeWav", 1)
    return bind(_ENCODE_WAV, (audio, rate))
