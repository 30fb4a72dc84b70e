"""The values the summary ops write, computed from NumPy arrays as TensorBoard's summary ops
compute them in TensorFlow: histogram buckets, PNG images, WAV audio."""

from __future__ import annotations

import struct

import numpy as np

DEFAULT_BUCKET_COUNT = 30


def histogram_buckets(data: np.ndarray, bucket_count: int = DEFAULT_BUCKET_COUNT) -> np.ndarray:
    """[k, 3] float64 rows (left edge, right edge, count): TensorBoard's `_buckets` (equal-width
    buckets over [min, max], the last one closed; one value puts every count in the last
    bucket with both edges at it; no data gives `bucket_count` zero rows)."""
    bucket_count = max(0, int(bucket_count))
    data = np.asarray(data).reshape(-1).astype(np.float64)
    if data.size == 0 or bucket_count == 0:
        return np.zeros((bucket_count, 3), np.float64)
    min_, max_ = data.min(), data.max()
    range_ = max_ - min_
    if range_ == 0:
        edges = np.full(bucket_count, max_)
        counts = np.zeros(bucket_count)
        counts[-1] = data.size
        return np.stack([edges, edges, counts], axis=1)
    width = range_ / np.float64(bucket_count)
    indices = np.minimum(np.floor((data - min_) / width).astype(np.int32), bucket_count - 1)
    counts = np.bincount(indices, minlength=bucket_count).astype(np.float64)
    # tf.linspace: start + i * (stop - start) / (n - 1), the last edge replaced by max
    edges = min_ + np.arange(bucket_count + 1) * (range_ / np.float64(bucket_count))
    edges[0], edges[-1] = min_, max_
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def to_uint8_images(images: np.ndarray) -> np.ndarray:
    """`tf.image.convert_image_dtype(images, tf.uint8, saturate=True)`."""
    if images.dtype == np.uint8:
        return images
    if images.dtype.kind == "f":
        # TF scales floats by (max + 0.5) and truncates, saturating.
        return np.clip(images.astype(np.float64) * 255.5, 0, 255).astype(np.uint8)
    if images.dtype.kind in "iu":
        shift = images.dtype.itemsize * 8 - (8 if images.dtype.kind == "u" else 7)
        return np.maximum(images >> shift, 0).astype(np.uint8) if shift > 0 else \
            images.astype(np.uint8)
    raise TypeError(f"tf.summary.image: unsupported image dtype {images.dtype}")


def encode_png(image: np.ndarray) -> bytes:
    """One [height, width, channels] uint8 image as a PNG (channels 1-4): tf.io's encoder."""
    if image.ndim != 3 or image.shape[-1] not in (1, 2, 3, 4):
        raise ValueError(f"tf.summary.image: images must have 1, 2, 3 or 4 channels, got "
                         f"{image.shape[-1]}")
    from tapeflow.io.png import encode_png as _encode_png
    return _encode_png(image)


def encode_wav(audio: np.ndarray, sample_rate: int) -> bytes:
    """`tf.audio.encode_wav`: [frames, channels] floats as 16-bit PCM (x * 32768 rounded half
    away from zero, clamped to int16)."""
    frames, channels = audio.shape
    scaled = (np.asarray(audio, np.float32) * np.float32(32768.0)).astype(np.float64)
    rounded = np.trunc(scaled)
    rounded += np.sign(scaled) * (np.abs(scaled - rounded) >= 0.5)   # C's roundf
    samples = np.clip(rounded, -32768, 32767).astype("<i2")
    data = samples.tobytes()
    fmt = struct.pack("<HHIIHH", 1, channels, sample_rate, sample_rate * channels * 2,
                      channels * 2, 16)
    return (b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt "
            + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", len(data)) + data)


__all__ = ["histogram_buckets", "to_uint8_images", "encode_png", "encode_wav",
           "DEFAULT_BUCKET_COUNT"]
