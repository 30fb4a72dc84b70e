"""tf.audio cases run both by TensorFlow (tools/record_sets_audio_fixtures.py records its
answers in fixtures/audio.json) and by tapeflow (test_audio_against_tensorflow.py).

Each case is `fn(tf) -> tensor or tuple of tensors`; `describe(tf, fn)` turns what it returns
or raises into JSON (each tensor's values, strings as hex, dtype and shape; or the error's class
and message). The WAV files are built here byte by byte (`wav`), valid or broken on purpose.
"""

from __future__ import annotations

import re
import struct

import numpy as np


def _tensor(value) -> dict:
    plain = value.numpy()  # not np.asarray: a bytes scalar would lose its trailing NULs
    if isinstance(plain, bytes):
        plain = plain.hex()
    elif plain.dtype == object:
        plain = [v.hex() for v in plain.reshape(-1)]
    else:
        plain = plain.tolist()
    return {"value": plain, "dtype": value.dtype.name, "shape": str(value.shape)}


def describe(tf, fn) -> dict:
    """What `fn(tf)` gives, in JSON (the same text for TF and tapeflow where they agree)."""
    try:
        result = fn(tf)
    except Exception as exc:  # noqa: BLE001 - the error is the answer
        message = re.sub(r"\{\{function_node [^}]*\}\} ", "", str(exc))
        return {"error": type(exc).__name__, "message": re.sub(r" name: $", "", message)}
    if isinstance(result, tuple):
        return {"outputs": [_tensor(part) for part in result],
                "fields": list(getattr(result, "_fields", []))}
    return _tensor(result)


def chunk(chunk_id: bytes, body: bytes) -> bytes:
    return chunk_id + struct.pack("<I", len(body)) + body


def fmt(channels=1, rate=8000, bits=16, audio_format=1, block=None, per_second=None,
        extra=b"") -> bytes:
    block = (bits * channels + 7) // 8 if block is None else block
    per_second = block * rate if per_second is None else per_second
    return chunk(b"fmt ", struct.pack("<HHIIHH", audio_format, channels, rate, per_second,
                                      block, bits) + extra)


def wav(*chunks: bytes, riff_size=None) -> bytes:
    body = b"WAVE" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body) if riff_size is None else riff_size) + body


def pcm(*samples: int) -> bytes:
    return struct.pack(f"<{len(samples)}h", *samples)


MONO = wav(fmt(), chunk(b"data", pcm(0, 1, -1, 16384, -32768, 32767)))
STEREO = wav(fmt(channels=2, rate=44100), chunk(b"data", pcm(1, 2, 3, 4, 5, 6)))


def _decode(data: bytes, **kwargs):
    return lambda tf: tuple(tf.audio.decode_wav(tf.constant(data), **kwargs))


def _encode(audio, rate=8000, dtype=np.float32):
    return lambda tf: tf.audio.encode_wav(tf.constant(np.asarray(audio, dtype)), rate)


def _decode_fields(tf):
    result = tf.audio.decode_wav(MONO)
    return tf.constant(f"{type(result).__name__} {result._fields}")


def _traced_shapes(tf):
    @tf.function(input_signature=[tf.TensorSpec([], tf.string)])
    def shapes(contents):
        a = tf.audio.decode_wav(contents)
        b = tf.audio.decode_wav(contents, desired_channels=2, desired_samples=5)
        c = tf.audio.encode_wav(b.audio, 16000)
        return tf.constant(str((a.audio.shape, a.sample_rate.shape, b.audio.shape,
                                c.shape))), b.audio
    return shapes(MONO)


def _roundtrip(tf):
    audio = tf.constant([[0.25, -0.5], [0.125, 0.999], [-1.0, 0.0]])
    return tuple(tf.audio.decode_wav(tf.audio.encode_wav(audio, 22050)))


def _in_function(tf):
    @tf.function
    def encode(audio, rate):
        return tf.audio.encode_wav(audio, rate)
    return encode(tf.constant([[0.5], [-0.5]]), tf.constant(11025))


CASES = {
    "decode_mono": _decode(MONO),
    "decode_stereo": _decode(STEREO),
    "decode_fields": _decode_fields,
    "decode_stereo_to_mono": _decode(STEREO, desired_channels=1),
    "decode_stereo_to_three": _decode(STEREO, desired_channels=3),
    "decode_zero_channels": _decode(STEREO, desired_channels=0),
    "decode_pad_samples": _decode(MONO, desired_samples=9),
    "decode_cut_samples": _decode(MONO, desired_samples=2),
    "decode_zero_samples": _decode(MONO, desired_samples=0),
    "decode_both": _decode(STEREO, desired_channels=1, desired_samples=5),
    "decode_bad_channels": _decode(MONO, desired_channels=-2),
    "decode_bad_samples": _decode(MONO, desired_samples=-3),
    "decode_empty_data": _decode(wav(fmt(), chunk(b"data", b""))),
    "decode_junk_before_fmt": _decode(wav(chunk(b"JUNK", b"\0" * 6), fmt(),
                                          chunk(b"data", pcm(7, 8)))),
    "decode_bext_before_fmt": _decode(wav(chunk(b"bext", b"x" * 3), fmt(),
                                          chunk(b"data", pcm(7)))),
    "decode_list_before_fmt": _decode(wav(chunk(b"LIST", b"INFO"), fmt(),
                                          chunk(b"data", pcm(7)))),
    "decode_list_after_fmt": _decode(wav(fmt(), chunk(b"LIST", b"INFOabcd"),
                                         chunk(b"data", pcm(7, -7)), chunk(b"id3 ", b"zz"))),
    "decode_fmt_size_18": _decode(wav(fmt(extra=b"\0\0"), chunk(b"data", pcm(100)))),
    "decode_fmt_size_20": _decode(wav(fmt(extra=b"\0\0\0\0"), chunk(b"data", pcm(100)))),
    "decode_8bit": _decode(wav(fmt(bits=8), chunk(b"data", b"\x80\x81"))),
    "decode_24bit": _decode(wav(fmt(bits=24), chunk(b"data", b"\0\0\x01"))),
    "decode_32bit": _decode(wav(fmt(bits=32), chunk(b"data", b"\0\0\0\x01"))),
    "decode_float_format": _decode(wav(fmt(bits=32, audio_format=3),
                                       chunk(b"data", struct.pack("<f", 0.5)))),
    "decode_extensible_format": _decode(wav(fmt(audio_format=0xFFFE),
                                            chunk(b"data", pcm(1)))),
    "decode_no_channels": _decode(wav(fmt(channels=0, block=0), chunk(b"data", pcm(1)))),
    "decode_bad_block": _decode(wav(fmt(block=4), chunk(b"data", pcm(1)))),
    "decode_bad_rate_bytes": _decode(wav(fmt(per_second=123), chunk(b"data", pcm(1)))),
    "decode_two_data_chunks": _decode(wav(fmt(), chunk(b"data", pcm(1)),
                                          chunk(b"data", pcm(2)))),
    "decode_no_data": _decode(wav(fmt())),
    "decode_no_data_other_chunk": _decode(wav(fmt(), chunk(b"LIST", b"abcd"))),
    "decode_truncated_data": _decode(wav(fmt()) + b"data" + struct.pack("<I", 8) + pcm(1, 2)),
    "decode_odd_data_size": _decode(wav(fmt(), chunk(b"data", pcm(1, 2) + b"\x05"))),
    "decode_odd_data_size_padded": _decode(wav(fmt(), chunk(b"data", pcm(1, 2) + b"\x05\0"
                                                            [:1]) + b"\0\0\0")),
    "decode_trailing_bytes": _decode(MONO + b"\0\0"),
    "decode_truncated_header": _decode(MONO[:30]),
    "decode_truncated_riff": _decode(b"RIF"),
    "decode_empty": _decode(b""),
    "decode_not_riff": _decode(b"RIFX" + MONO[4:]),
    "decode_not_wave": _decode(MONO[:8] + b"AVI " + MONO[12:]),
    "decode_huge_chunk": _decode(wav(fmt(), b"LIST" + struct.pack("<I", 0xFFFFFFF0),
                                     chunk(b"data", pcm(1)))),
    "decode_riff_size_wrong": _decode(wav(fmt(), chunk(b"data", pcm(3)), riff_size=7)),
    "decode_rate_above_int32": _decode(wav(fmt(rate=3_000_000_000, per_second=0),
                                           chunk(b"data", pcm(3)))),
    "decode_high_rate_stereo": _decode(wav(fmt(channels=2, rate=96000),
                                           chunk(b"data", pcm(-2, 2)))),
    "decode_not_scalar": lambda tf: tuple(tf.audio.decode_wav(tf.constant([MONO]))),
    "decode_not_string": lambda tf: tuple(tf.audio.decode_wav(tf.constant(1.0))),
    "encode_mono": _encode([[0.0], [0.5], [-0.5], [0.25]]),
    "encode_stereo": _encode([[0.1, -0.2], [0.3, -0.4], [0.99, -0.99]], 44100),
    "encode_clip": _encode([[1.0], [-1.0], [1.5], [-1.5], [np.inf], [-np.inf]]),
    "encode_rounding": _encode([[0.5 / 32768], [-0.5 / 32768], [1.5 / 32768], [2.5 / 32768],
                                [-2.5 / 32768], [0.49 / 32768]]),
    "encode_nan": _encode([[np.nan], [0.5]]),
    "encode_empty": _encode(np.zeros([0, 2])),
    "encode_no_channels": _encode(np.zeros([3, 0])),
    "encode_one_dim": _encode([0.5, 0.25]),
    "encode_three_dim": _encode(np.zeros([2, 1, 1])),
    "encode_rate_zero": _encode([[0.5]], 0),
    "encode_rate_negative": _encode([[0.5]], -1),
    "encode_rate_vector": lambda tf: tf.audio.encode_wav(tf.constant([[0.5]]),
                                                         tf.constant([8000])),
    "encode_rate_int64": lambda tf: tf.audio.encode_wav(tf.constant([[0.5]]),
                                                        tf.constant(8000, tf.int64)),
    "encode_rate_float": lambda tf: tf.audio.encode_wav(tf.constant([[0.5]]), 8000.0),
    "encode_float64": _encode([[0.5]], dtype=np.float64),
    "encode_python_list": lambda tf: tf.audio.encode_wav([[0.5], [0.25]], 16000),
    "encode_many_channels": _encode(np.linspace(-1, 1, 21).reshape(3, 7), 48000),
    "roundtrip": _roundtrip,
    "traced_shapes": _traced_shapes,
    "in_function": _in_function,
}
