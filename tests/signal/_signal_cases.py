"""tf.signal and complex-number programs, each a function of the `tf` module it runs on.

tools/record_signal_fixtures.py runs them on TensorFlow 2.21 and stores the results in
fixtures/signal.npz; tests/signal/test_signal_against_tensorflow.py runs them on tapeflow and
compares. A case returns a tensor or a list of tensors (values are compared with their
dtypes). The inputs are fixed NumPy arrays, so both libraries see the same numbers.
"""

import numpy as np

_rng = np.random.default_rng(20)
X1 = _rng.standard_normal(16).astype(np.float32)
X2 = _rng.standard_normal((3, 10)).astype(np.float32)
X3 = _rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
Z1 = (_rng.standard_normal(8) + 1j * _rng.standard_normal(8)).astype(np.complex64)
Z2 = (_rng.standard_normal((3, 4, 6)) + 1j * _rng.standard_normal((3, 4, 6))).astype(np.complex64)
Z64 = (_rng.standard_normal((2, 5)) + 1j * _rng.standard_normal((2, 5))).astype(np.complex128)
W8 = (_rng.standard_normal(8) + 1j * _rng.standard_normal(8)).astype(np.complex64)
# One second of a 440 Hz tone and a 1 kHz overtone at 16 kHz (TF's audio tutorial's shapes).
_t = np.arange(16000) / 16000.0
# A little noise keeps every mel band well above rounding (log of a near-zero band would
# amplify the FFTs' last-bit differences).
TONE = (np.sin(2 * np.pi * 440 * _t) + 0.3 * np.sin(2 * np.pi * 1000 * _t)
        + 0.01 * _rng.standard_normal(16000)).astype(np.float32)
MELS = _rng.standard_normal((4, 40)).astype(np.float32)


def _grad(tf, f, *values):
    """[f(*vars), gradients w.r.t. each] with one tape."""
    variables = [tf.Variable(v) for v in values]
    with tf.GradientTape() as tape:
        y = f(*variables)
    return [y] + list(tape.gradient(y, variables))


def _second(tf, f, value):
    """[d/dx, d2/dx2 summed] of a real scalar loss of one real input."""
    x = tf.Variable(value)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = f(x)
        g = inner.gradient(y, x)
        s = tf.reduce_sum(g * g)
    return [g, outer.gradient(s, x)]


def _loss(tf, s, w=None):
    return tf.reduce_sum(tf.abs(s) ** 2 if w is None else tf.math.real(s * w))


CASES = {
    # complex numbers
    "complex": lambda tf: [tf.complex(X1[:4], X1[4:8]),
                           tf.complex(X1[:4].astype(np.float64), X1[4:8].astype(np.float64))],
    "complex_broadcast": lambda tf: tf.complex(X2[:, :1], X2[0]),
    "real_imag_conj_angle_abs": lambda tf: [tf.math.real(Z1), tf.math.imag(Z1), tf.math.conj(Z1),
                                            tf.math.angle(Z1), tf.abs(Z1), tf.math.angle(X1)],
    "grad_abs": lambda tf: _grad(tf, lambda z: tf.reduce_sum(tf.abs(z)), Z1),
    "grad_real_imag": lambda tf: _grad(
        tf, lambda z: tf.reduce_sum(tf.math.real(z) * 2.0 + tf.math.imag(z) * 3.0), Z1),
    "grad_multiply": lambda tf: _grad(tf, lambda z, w: tf.reduce_sum(tf.abs(z * w)), Z1, W8),
    "grad_exp": lambda tf: _grad(tf, lambda z: tf.reduce_sum(tf.math.real(tf.exp(z) * W8)), Z1),
    "grad_complex_angle": lambda tf: _grad(
        tf, lambda a, b: tf.reduce_sum(tf.math.angle(tf.complex(a, b)) * tf.abs(tf.complex(a, b))),
        X1[:8], X1[8:]),
    "grad_conj": lambda tf: _grad(
        tf, lambda z, w: tf.reduce_sum(tf.math.imag(tf.math.conj(z) * w)), Z1, W8),
    # transforms
    # (an ndarray converts to complex64 as in TF, a complex128 tensor stays complex128)
    "fft": lambda tf: [tf.signal.fft(Z1), tf.signal.ifft(Z1), tf.signal.fft(Z64),
                       tf.signal.fft(tf.constant(Z64)),
                       tf.signal.fft([1.0, 2.0, 3.0])],
    "fft2d_3d": lambda tf: [tf.signal.fft2d(Z2), tf.signal.ifft2d(Z2), tf.signal.fft3d(Z2),
                            tf.signal.ifft3d(Z2)],
    "rfft": lambda tf: [tf.signal.rfft(X1), tf.signal.rfft(X2), tf.signal.rfft(X1, [10]),
                        tf.signal.rfft(X1, [21]), tf.signal.rfft(X1.astype(np.float64)),
                        tf.signal.rfft(tf.constant(X1.astype(np.float64)))],
    "irfft": lambda tf: [tf.signal.irfft(Z1), tf.signal.irfft(Z1, [9]), tf.signal.irfft(Z1, [20]),
                         tf.signal.irfft(Z64), tf.signal.irfft(tf.constant(Z64)),
                         tf.signal.irfft(Z2, [6])],
    "rfft2d_3d": lambda tf: [tf.signal.rfft2d(X3), tf.signal.rfft2d(X3, [3, 8]),
                             tf.signal.rfft3d(X3), tf.signal.rfft3d(X3, [2, 5, 4])],
    "irfft2d_3d": lambda tf: [tf.signal.irfft2d(Z2), tf.signal.irfft2d(Z2, [5, 7]),
                              tf.signal.irfft3d(Z2), tf.signal.irfft3d(Z2, [2, 4, 9])],
    "grad_fft": lambda tf: _grad(tf, lambda z: _loss(tf, tf.signal.fft(z), W8), Z1),
    "grad_ifft": lambda tf: _grad(tf, lambda z: _loss(tf, tf.signal.ifft(z)), Z1),
    "grad_fft2d": lambda tf: _grad(tf, lambda z: _loss(tf, tf.signal.fft2d(z)), Z2),
    "grad_ifft3d": lambda tf: _grad(tf, lambda z: _loss(tf, tf.signal.ifft3d(z)), Z2),
    "grad_rfft": lambda tf: _grad(tf, lambda x: _loss(tf, tf.signal.rfft(x)), X1),
    "grad_rfft_pad": lambda tf: _grad(tf, lambda x: _loss(tf, tf.signal.rfft(x, [20])), X2),
    "grad_rfft_odd": lambda tf: _grad(tf, lambda x: _loss(tf, tf.signal.rfft(x[:15])), X1),
    "grad_irfft": lambda tf: _grad(
        tf, lambda z: tf.reduce_sum(tf.signal.irfft(z) * X1[:14]), Z1),
    "grad_irfft_odd": lambda tf: _grad(
        tf, lambda z: tf.reduce_sum(tf.signal.irfft(z, [15]) ** 2), Z1),
    "grad_rfft2d": lambda tf: _grad(tf, lambda x: _loss(tf, tf.signal.rfft2d(x)), X3),
    "grad_irfft2d": lambda tf: _grad(tf, lambda z: tf.reduce_sum(tf.signal.irfft2d(z) ** 2), Z2),
    # (TF registers no gradient for RFFT3D / IRFFT3D: tapeflow's, the exact adjoints, are
    # checked against finite differences by tests/ops/test_gradient_registry.py.)
    "second_rfft": lambda tf: _second(tf, lambda x: _loss(tf, tf.signal.rfft(x) ** 2), X1),
    "second_irfft": lambda tf: _second(
        tf, lambda x: tf.reduce_sum(tf.signal.irfft(tf.signal.rfft(x) ** 2) ** 2), X1),
    "shifts": lambda tf: [tf.signal.fftshift(X2), tf.signal.ifftshift(X2),
                          tf.signal.fftshift(X3, axes=[-1, 1]), tf.signal.ifftshift(X3, axes=2),
                          tf.signal.fftshift(tf.range(7))],
    # framing
    "frame": lambda tf: [tf.signal.frame(X1, 5, 3), tf.signal.frame(X1, 5, 3, pad_end=True),
                         tf.signal.frame(X2, 4, 2, pad_end=True, pad_value=7.0),
                         tf.signal.frame(X3, 2, 1, axis=1), tf.signal.frame(X1, 20, 4)],
    "overlap_and_add": lambda tf: [tf.signal.overlap_and_add(tf.reshape(X1, [4, 4]), 2),
                                   tf.signal.overlap_and_add(tf.reshape(X3, [2, 3, 4, 5]), 3),
                                   tf.signal.overlap_and_add(tf.reshape(X1, [4, 4]), 4),
                                   tf.signal.overlap_and_add(tf.reshape(X1, [2, 8]), 3)],
    "grad_frame_ola": lambda tf: _grad(tf, lambda x: tf.reduce_sum(
        tf.signal.overlap_and_add(tf.signal.frame(x, 5, 2, pad_end=True) ** 2, 2) * 1.5), X1),
    # windows
    "windows": lambda tf: [tf.signal.hann_window(10), tf.signal.hann_window(9, periodic=False),
                           tf.signal.hamming_window(11), tf.signal.hamming_window(8, False),
                           tf.signal.hann_window(1), tf.signal.hann_window(64, dtype=tf.float64),
                           tf.signal.kaiser_window(12), tf.signal.kaiser_window(7, beta=4.0),
                           tf.signal.kaiser_window(9, dtype=tf.float64),
                           tf.signal.vorbis_window(10), tf.signal.vorbis_window(5, tf.float64),
                           tf.signal.kaiser_bessel_derived_window(10),
                           tf.signal.kaiser_bessel_derived_window(7, beta=6.0)],
    # STFT
    "stft": lambda tf: [tf.signal.stft(X1, 8, 4), tf.signal.stft(X2, 5, 2, fft_length=8),
                        tf.signal.stft(X1, 6, 3, pad_end=True, window_fn=None),
                        tf.signal.stft(X1, 8, 2, window_fn=tf.signal.hamming_window)],
    "inverse_stft": lambda tf: [
        tf.signal.inverse_stft(tf.signal.stft(X1, 8, 4), 8, 4),
        tf.signal.inverse_stft(tf.signal.stft(X1, 8, 2), 8, 2,
                               window_fn=tf.signal.inverse_stft_window_fn(2)),
        tf.signal.inverse_stft(tf.signal.stft(X2, 6, 3, fft_length=4), 6, 3, fft_length=4),
        tf.signal.inverse_stft_window_fn(3)(8, tf.float32)],
    "grad_stft": lambda tf: _grad(tf, lambda x: tf.reduce_sum(
        tf.abs(tf.signal.stft(x, 8, 4)) ** 2), X1),
    "grad_inverse_stft": lambda tf: _grad(tf, lambda x: tf.reduce_sum(
        tf.signal.inverse_stft(tf.signal.stft(x, 8, 2), 8, 2) ** 2), X1),
    # mel, MFCCs, DCTs
    "mel": lambda tf: [tf.signal.linear_to_mel_weight_matrix(),
                       tf.signal.linear_to_mel_weight_matrix(40, 257, 16000, 20.0, 8000.0),
                       tf.signal.linear_to_mel_weight_matrix(8, 33, 8000, 100.0, 4000.0,
                                                            dtype=tf.float64)],
    "mfccs": lambda tf: [tf.signal.mfccs_from_log_mel_spectrograms(MELS)],
    "dct": lambda tf: [tf.signal.dct(X2, type=t, norm=n) for t in (1, 2, 3, 4)
                       for n in ((None,) if t == 1 else (None, "ortho"))]
                      + [tf.signal.dct(X2, n=6), tf.signal.dct(X2, n=13, norm="ortho")],
    "idct": lambda tf: [tf.signal.idct(X2, type=t, norm=n) for t in (1, 2, 3, 4)
                        for n in ((None,) if t == 1 else (None, "ortho"))],
    "grad_dct": lambda tf: _grad(tf, lambda x: tf.reduce_sum(
        tf.signal.dct(x, norm="ortho") ** 2 * X2[0]), X2),
    "grad_mfccs": lambda tf: _grad(
        tf, lambda x: tf.reduce_sum(tf.signal.mfccs_from_log_mel_spectrograms(x)[..., :13]), MELS),
    # the audio tutorial's spectrogram of a tone, and its log-mel MFCCs
    "spectrogram": lambda tf: _spectrogram(tf),
    # MDCT (frames of frame_length // 2 hops, DCT-IV) and its inverse
    "mdct": lambda tf: [tf.signal.mdct(X2.reshape(2, 15), 8),
                        tf.signal.mdct(X2.reshape(2, 15), 8, pad_end=True, norm="ortho"),
                        tf.signal.mdct(X1, 12, window_fn=None),
                        tf.signal.mdct(X1.astype(np.float64), 16,
                                       window_fn=tf.signal.kaiser_bessel_derived_window)],
    "inverse_mdct": lambda tf: [
        tf.signal.inverse_mdct(X3[0, :, :, :4]),
        tf.signal.inverse_mdct(X3[0, :, :, :4], norm="ortho"),
        tf.signal.inverse_mdct(X2[:, :6], window_fn=None),
        tf.signal.inverse_mdct(tf.signal.mdct(X1, 8, pad_end=True))],
    "grad_mdct": lambda tf: _grad(tf, lambda x: tf.reduce_sum(
        tf.signal.mdct(x, 8, norm="ortho") ** 2 * X1[:4]), X1),
    "grad_inverse_mdct": lambda tf: _grad(tf, lambda m: tf.reduce_sum(
        tf.signal.inverse_mdct(m) * X1[:12]), X2[:2, :4]),
}


def _spectrogram(tf):
    spectrogram = tf.abs(tf.signal.stft(TONE, frame_length=255, frame_step=128))
    mel = tf.signal.linear_to_mel_weight_matrix(40, spectrogram.shape[-1], 16000, 20.0, 8000.0)
    log_mel = tf.math.log(tf.tensordot(spectrogram, mel, 1) + 1e-6)
    mfccs = tf.signal.mfccs_from_log_mel_spectrograms(log_mel)[..., :13]
    return [spectrogram, log_mel, mfccs]
