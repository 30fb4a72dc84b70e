"""Keras 3's spectrogram layers: STFTSpectrogram (the short-time Fourier transform of each
channel of `(batch, time, channels)` signals as two 1-D convolutions with trainable kernels
from `keras.initializers.STFT`, reported as Keras's modes: log, magnitude, psd, real, imag,
angle, stft) and MelSpectrogram (mel-scaled power spectrogram of audio, in decibels)."""

from __future__ import annotations

import math
import warnings
from typing import Any, Optional

from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.keras import backend, initializers
from tapeflow.keras.layers.input_spec import InputSpec
from tapeflow.keras.layers.layer import Layer
from tapeflow import signal
from tapeflow.ops import array_ops, conv_ops, linalg_ops, manip_ops, math_ops, reduce_ops

__all__ = ["STFTSpectrogram", "MelSpectrogram"]

_MODES = ["log", "magnitude", "psd", "real", "imag", "angle", "stft"]


def _check_arguments(mode: str, frame_length: int, frame_step: Optional[int],
                     fft_length: Optional[int], scaling: Optional[str], padding: str) -> None:
    """Keras's constructor checks, in its order."""
    if frame_step is not None and (frame_step > frame_length or frame_step < 1):
        raise ValueError(f"`frame_step` should be a positive integer not greater than "
                         f"`frame_length`. Received frame_step={frame_step}, "
                         f"frame_length={frame_length}")
    if fft_length is not None and fft_length < frame_length:
        raise ValueError(f"`fft_length` should be not less than `frame_length`. Received "
                         f"fft_length={fft_length}, frame_length={frame_length}")
    if fft_length is not None and fft_length & -fft_length != fft_length:
        warnings.warn(f"`fft_length` is recommended to be a power of two. Received "
                      f"fft_length={fft_length}", stacklevel=3)
    if mode not in _MODES:
        raise ValueError(f"Output mode is invalid, it must be one of {', '.join(_MODES)}. "
                         f"Received: mode={mode}")
    if scaling is not None and scaling not in ["density", "spectrum"]:
        raise ValueError(f"Scaling is invalid, it must be `None`, 'density' or 'spectrum'. "
                         f"Received scaling={scaling}")
    if padding not in ["valid", "same"]:
        raise ValueError(f"Padding is invalid, it should be 'valid', 'same'. Received: "
                         f"padding={padding}")


def _dim(x: Any, axis: int) -> Any:
    """`x`'s size along `axis`: the static one, else a run-time scalar."""
    size = x.shape[axis]
    return array_ops.shape(x)[axis] if size is None else size


class STFTSpectrogram(Layer):
    """Spectrogram of 1-D signals, one per channel: frames of `frame_length` every
    `frame_step` (default half a frame), zero-padded to `fft_length` (default the next power
    of two), windowed; `real_kernel` and `imag_kernel` `(frame_length, 1, fft_length // 2 +
    1)` hold the windowed DFT basis and are trainable. The output is `(batch, frames,
    channels * freqs)` (channels first: `(batch, channels * freqs, frames)`), or with
    `expand_dims` `(batch, frames, freqs, channels)`.
    """

    def __init__(self, mode: str = "log", frame_length: int = 256,
                 frame_step: Optional[int] = None, fft_length: Optional[int] = None,
                 window: Any = "hann", periodic: bool = False, scaling: Optional[str] = "density",
                 padding: str = "valid", expand_dims: bool = False,
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        _check_arguments(mode, frame_length, frame_step, fft_length, scaling, padding)
        if isinstance(window, str):  # an unknown window name fails now, as Keras
            initializers.STFT("real", window, scaling, periodic)
        super().__init__(**kwargs)
        self.mode = mode
        self.frame_length = frame_length
        self.frame_step = frame_step
        self._frame_step = frame_step or self.frame_length // 2
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** int(math.ceil(math.log2(frame_length)))
        self.window = window
        self.periodic = periodic
        self.scaling = scaling
        self.padding = padding
        self.expand_dims = expand_dims
        self.data_format = backend.standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape: Any) -> None:
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        if self.mode != "imag":
            self.real_kernel = self.add_weight(
                name="real_kernel", shape=shape,
                initializer=initializers.STFT("real", self.window, self.scaling, self.periodic))
        if self.mode != "real":
            self.imag_kernel = self.add_weight(
                name="imag_kernel", shape=shape,
                initializer=initializers.STFT("imag", self.window, self.scaling, self.periodic))
        self.built = True

    def _apply_conv(self, inputs: Any, kernel: Any) -> Any:
        """Each channel's frames convolved with `kernel`: `(batch, channels, freqs, frames)`."""
        signals = inputs if self.data_format == "channels_first" else \
            array_ops.transpose(inputs, [0, 2, 1])
        channels = signals.shape[1]
        frames = array_ops.reshape(signals, [-1, _dim(signals, 2), 1])
        outputs = conv_ops.conv_nd(frames, math_ops.cast(kernel, inputs.dtype),
                                   (self._frame_step,), self.padding.upper(), (1,))
        if outputs.shape[1] == 0 and frames.shape[1] != 0:
            # Keras returns a misshapen tensor here; tapeflow refuses, as its convolutions.
            raise ValueError(f"The convolution operation resulted in an empty output. The "
                             f"signal ({frames.shape[1]} steps) is shorter than "
                             f"frame_length={self.frame_length} with padding='valid'.")
        outputs = array_ops.transpose(outputs, [0, 2, 1])
        return array_ops.reshape(outputs, [-1, channels, outputs.shape[1], _dim(outputs, 2)])

    def _adjust_shapes(self, outputs: Any) -> Any:
        """`(batch, channels, freqs, frames)` in the layer's output layout."""
        channels, freqs, frames = outputs.shape[1], outputs.shape[2], _dim(outputs, 3)
        if self.expand_dims:
            perm = [0, 3, 2, 1] if self.data_format == "channels_last" else [0, 1, 3, 2]
            return array_ops.transpose(outputs, perm)
        outputs = array_ops.reshape(outputs, [-1, channels * freqs, frames])
        if self.data_format == "channels_last":
            outputs = array_ops.transpose(outputs, [0, 2, 1])
        return outputs

    def call(self, inputs: Any) -> Any:
        inputs = convert_to_tensor(inputs)
        if inputs.dtype.name not in {"float16", "float32", "float64"}:
            raise TypeError(f"Invalid input type. Expected `float16`, `float32` or `float64`. "
                            f"Received: input type={inputs.dtype}")
        real = self._apply_conv(inputs, self.real_kernel) if self.mode != "imag" else None
        imag = self._apply_conv(inputs, self.imag_kernel) if self.mode != "real" else None
        if self.mode == "real":
            return self._adjust_shapes(real)
        if self.mode == "imag":
            return self._adjust_shapes(imag)
        if self.mode == "angle":
            return self._adjust_shapes(math_ops.atan2(imag, real))
        if self.mode == "stft":
            return self._adjust_shapes(array_ops.concat([real, imag], axis=2))
        power = math_ops.square(real) + math_ops.square(imag)
        if self.mode == "psd":  # the one-sided spectrum: the inner bins count twice
            return self._adjust_shapes(power + manip_ops.pad(
                power[:, :, 1:-1, :], [[0, 0], [0, 0], [1, 1], [0, 0]]))
        epsilon = backend.epsilon()
        magnitude = self._adjust_shapes(math_ops.sqrt(math_ops.maximum(power, epsilon)))
        if self.mode == "magnitude":
            return magnitude
        return math_ops.log(math_ops.maximum(magnitude, epsilon))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        first = self.data_format == "channels_first"
        batch, channels = input_shape[0], (input_shape[1] if first else input_shape[-1])
        length = input_shape[2] if first else input_shape[1]
        freqs = (self._fft_length // 2 + 1) * (2 if self.mode == "stft" else 1)
        frames = None
        if length is not None:
            frames = -(-length // self._frame_step) if self.padding == "same" else \
                (length - self.frame_length) // self._frame_step + 1
        if self.expand_dims:
            return (batch, channels, frames, freqs) if first else (batch, frames, freqs,
                                                                   channels)
        return (batch, freqs * channels, frames) if first else (batch, frames,
                                                                freqs * channels)

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": self.mode, "frame_length": self.frame_length,
                "frame_step": self.frame_step, "fft_length": self.fft_length,
                "window": self.window, "periodic": self.periodic, "scaling": self.scaling,
                "padding": self.padding, "data_format": self.data_format,
                "expand_dims": self.expand_dims}


_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(frequencies_hertz: Any) -> Any:
    return _MEL_HIGH_FREQUENCY_Q * math_ops.log(1.0 + frequencies_hertz /
                                                _MEL_BREAK_FREQUENCY_HERTZ)


def _mel_weight_matrix(num_mel_bins: int, num_spectrogram_bins: int, sampling_rate: float,
                       lower_edge_hertz: float, upper_edge_hertz: float) -> Any:
    """Keras's `linear_to_mel_weight_matrix` (TensorFlow's HTK triangles, the DC bin
    excluded; unlike `tf.signal`'s, the edges are not checked)."""
    sampling_rate = math_ops.cast(sampling_rate, "float32")
    lower = convert_to_tensor(lower_edge_hertz, "float32")
    upper = convert_to_tensor(upper_edge_hertz, "float32")
    zero = convert_to_tensor(0.0, "float32")
    linear = array_ops.linspace(zero, sampling_rate / 2.0, num_spectrogram_bins)[1:]
    bins_mel = array_ops.expand_dims(_hertz_to_mel(linear), 1)
    edges = signal.frame(array_ops.linspace(_hertz_to_mel(lower), _hertz_to_mel(upper),
                                            num_mel_bins + 2), frame_length=3, frame_step=1)
    lower_mel, center_mel, upper_mel = (array_ops.reshape(t, [1, num_mel_bins])
                                        for t in array_ops.split(edges, 3, axis=1))
    lower_slopes = (bins_mel - lower_mel) / (center_mel - lower_mel)
    upper_slopes = (upper_mel - bins_mel) / (upper_mel - center_mel)
    weights = math_ops.maximum(zero, math_ops.minimum(lower_slopes, upper_slopes))
    return manip_ops.pad(weights, [[1, 0], [0, 0]])


class MelSpectrogram(Layer):
    """Mel-scaled spectrogram of audio signals (`(samples,)` or `(batch, samples)`): the STFT
    magnitude (centred frames: the signal reflect-padded by `fft_length // 2`; a periodic
    Hann or Hamming window of `sequence_length` centred in `fft_length`) to the power
    `mag_exp`, mapped onto `num_mel_bins` mel bands between `min_freq` and `max_freq`, and
    with `power_to_db` in decibels relative to `ref_power`, floored `top_db` below the
    largest value of the whole batch. Output `(batch, num_mel_bins, frames)`."""

    def __init__(self, fft_length: int = 2048, sequence_stride: int = 512,
                 sequence_length: Optional[int] = None, window: Any = "hann",
                 sampling_rate: int = 16000, num_mel_bins: int = 128, min_freq: float = 20.0,
                 max_freq: Optional[float] = None, power_to_db: bool = True,
                 top_db: float = 80.0, mag_exp: float = 2.0, min_power: float = 1e-10,
                 ref_power: float = 1.0, **kwargs: Any) -> None:
        self.fft_length = fft_length
        self.sequence_stride = sequence_stride
        self.sequence_length = sequence_length or fft_length
        if self.fft_length < self.sequence_length:
            raise ValueError(f"`fft_length` must be greater than or equal to   "
                             f"`sequence_length`. Received: "
                             f"`sequence_length`={self.sequence_length}, "
                             f"`fft_length`={self.fft_length}.")
        self.window = window
        self.sampling_rate = sampling_rate
        self.num_mel_bins = num_mel_bins
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db = power_to_db
        self.top_db = top_db
        self.mag_exp = mag_exp
        self.min_power = min_power
        self.ref_power = ref_power
        super().__init__(**kwargs)
        self.built = True

    def _window(self, dtype: Any) -> Any:
        """Keras's STFT window: the periodic window of `sequence_length`, zero-padded to
        `fft_length` on both sides; None without one."""
        if self.window is None:
            return None
        if isinstance(self.window, str):
            if self.window not in {"hann", "hamming"}:
                raise ValueError(f'If a string is passed to `window`, it must be one of '
                                 f'`"hann"`, `"hamming"`. Received: window={self.window}')
            make = signal.hann_window if self.window == "hann" else signal.hamming_window
            window = make(self.sequence_length, periodic=True, dtype=dtype)
        else:
            window = math_ops.cast(convert_to_tensor(self.window), dtype)
        if len(window.shape) != 1 or window.shape[-1] != self.sequence_length:
            raise ValueError(f"The shape of `window` must be equal to [sequence_length]."
                             f"Received: window shape={window.shape}")
        left = (self.fft_length - self.sequence_length) // 2
        right = self.fft_length - self.sequence_length - left
        return manip_ops.pad(window, [[left, right]])

    def _spectrogram(self, inputs: Any) -> Any:
        half = self.fft_length // 2
        pads = [[0, 0]] * (len(inputs.shape) - 1) + [[half, half]]
        padded = manip_ops.pad(inputs, pads, mode="REFLECT")
        window = self._window(inputs.dtype)
        stft = signal.stft(padded, frame_length=self.fft_length,
                           frame_step=self.sequence_stride, fft_length=self.fft_length,
                           window_fn=None if window is None else lambda *_, **__: window)
        real, imag = math_ops.real(stft), math_ops.imag(stft)
        return math_ops.pow(math_ops.sqrt(math_ops.square(real) + math_ops.square(imag)),
                            self.mag_exp)

    def _dbscale(self, inputs: Any) -> Any:
        log10 = 1.0 / math.log(10.0)
        log_spec = 10.0 * math_ops.log(math_ops.maximum(inputs, self.min_power)) * log10
        ref = max(abs(float(self.ref_power)), self.min_power)
        log_spec = log_spec - 10.0 * math.log10(ref)
        return math_ops.maximum(log_spec, reduce_ops.reduce_max(log_spec) - self.top_db)

    def call(self, inputs: Any) -> Any:
        compute = self.compute_dtype
        dtype = compute if compute in ("float32", "float64") else "float32"
        x = math_ops.cast(convert_to_tensor(inputs), dtype)
        spec = self._spectrogram(x)
        matrix = _mel_weight_matrix(self.num_mel_bins, spec.shape[-1], self.sampling_rate,
                                    self.min_freq, self.max_freq)
        outputs = linalg_ops.tensordot(spec, math_ops.cast(matrix, spec.dtype), axes=1)
        if self.power_to_db:
            outputs = self._dbscale(outputs)
        rank = len(outputs.shape)
        perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        return math_ops.cast(array_ops.transpose(outputs, perm), compute)

    def compute_output_shape(self, input_shape: Any) -> list:
        length = input_shape[-1]
        frames = None if length is None else \
            (length + self.sequence_stride + 1) // self.sequence_stride
        if len(input_shape) == 1:
            return [self.num_mel_bins, frames]
        return [input_shape[0], self.num_mel_bins, frames]

    def get_config(self) -> dict:
        return {**super().get_config(), "fft_length": self.fft_length,
                "sequence_stride": self.sequence_stride,
                "sequence_length": self.sequence_length, "window": self.window,
                "sampling_rate": self.sampling_rate, "num_mel_bins": self.num_mel_bins,
                "min_freq": self.min_freq, "max_freq": self.max_freq,
                "power_to_db": self.power_to_db, "top_db": self.top_db,
                "mag_exp": self.mag_exp, "min_power": self.min_power,
                "ref_power": self.ref_power}
