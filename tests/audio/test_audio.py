"""tf.audio with files other programs write and read (Python's wave module), and the
namespace's shape."""

import io
import wave

import numpy as np

import tapeflow as tf


def _wave_file(frames: np.ndarray, rate: int) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as f:
        f.setnchannels(frames.shape[1])
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(frames.astype("<i2").tobytes())
    return out.getvalue()


def test_decodes_a_file_written_by_the_wave_module():
    frames = np.random.default_rng(0).integers(-32768, 32767, size=(50, 2))
    audio, rate = tf.audio.decode_wav(_wave_file(frames, 22050))
    assert audio.dtype == tf.float32 and audio.shape == (50, 2) and int(rate) == 22050
    np.testing.assert_array_equal(audio.numpy(), (frames / 32768).astype(np.float32))


def test_encoded_file_reads_back_in_the_wave_module():
    audio = np.linspace(-1, 1, 30, dtype=np.float32).reshape(10, 3)
    data = tf.audio.encode_wav(audio, 8000).numpy()
    with wave.open(io.BytesIO(data)) as f:
        assert (f.getnchannels(), f.getsampwidth(), f.getframerate(), f.getnframes()) == \
            (3, 2, 8000, 10)
        pcm = np.frombuffer(f.readframes(10), "<i2").reshape(10, 3)
    # Rounded half away from zero and clipped at 32767, as TF's encoder.
    expected = np.clip(np.trunc(audio.astype(np.float64) * 32768 + np.copysign(0.5, audio)),
                       -32768, 32767)
    np.testing.assert_array_equal(pcm, expected)


def test_decode_wav_result_is_tf_namedtuple():
    result = tf.audio.decode_wav(tf.audio.encode_wav([[0.5]], 8000), desired_channels=2)
    assert type(result).__name__ == "DecodeWav" and result._fields == ("audio", "sample_rate")
    assert result.audio.numpy().tolist() == [[0.5, 0.5]]


def test_namespace_has_tf_names():
    assert sorted(n for n in dir(tf.audio) if not n.startswith("_")) == [
        "decode_wav", "encode_wav"]
