"""`tf.signal`: Fourier transforms, framing, STFTs, windows, mel filterbanks, MFCCs and DCTs.

The transforms are primitives (`ops/fft_ops.py`); everything else here is composed of
tapeflow ops in TensorFlow's order of operations, so values are TensorFlow's (within float32
rounding) and gradients come from the ops. Sizes (frame lengths and steps, window lengths,
an axis's length) are read as Python ints: under `tf.function` they must be static.
"""

from __future__ import annotations

import math as _math
from typing import Any, Callable, Optional

import numpy as np

import tapeflow as tf
import tapeflow.ops.fft_ops  # noqa: F401 - declares tf.signal.fft, rfft, ...
from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework.abstract import ShapedArray
from tapeflow.framework.exports import populate as _populate
from tapeflow.framework.exports import tf_export
from tapeflow.ops._static import read_at_run_time, reads_static, reads_variables, static_value

__all__: list = []


def _int(value: Any, what: str) -> int:
    """A static int argument (a Python int or a scalar tensor)."""
    array = static_value(value, f"tf.signal: {what}", np.asarray)
    if array.ndim != 0:
        raise ValueError(f"Shape {tuple(array.shape)} must have rank 0")
    if array.dtype.kind not in "iu":
        raise ValueError(f"{what} must be an integer. Got {tf.as_dtype(array.dtype).name}")
    return int(array)


def _static_dim(x: tf.Tensor, axis: int, what: str) -> int:
    dim = x.shape[axis]
    if dim is None:
        raise NotImplementedError(f"tf.signal.{what}: tapeflow needs the length of axis {axis} "
                                  f"while tracing, but it is unknown (shape {x.shape}).")
    return dim


def _unknown_dim(x: tf.Tensor, axis: int) -> bool:
    """Whether tracing does not know the length of x's `axis` (an existing axis)."""
    rank = x.shape.rank
    return rank is not None and -rank <= axis < rank and x.shape[axis] is None


# -- shifts ----------------------------------------------------------------------------------------

def _shift(x: Any, axes: Any, sign: int) -> tf.Tensor:
    x = tf.convert_to_tensor(x)
    if read_at_run_time(axes) or (x.shape.rank is not None and None in x.shape.as_list()):
        return _run_time_shift(x, axes, sign)
    shape = x.shape.as_list()
    if axes is None:
        axes = list(range(len(shape)))
    elif isinstance(axes, int):
        return tf.roll(x, sign * (_static_dim(x, axes, "fftshift") // 2), axes)
    else:
        axes = [int(a) + len(shape) if int(a) < 0 else int(a) for a in np.ravel(axes)]
    shifts = [sign * (_static_dim(x, a, "fftshift") // 2) for a in axes]
    return tf.roll(x, shifts, axes)


def _run_time_shift(x: tf.Tensor, axes: Any, sign: int) -> tf.Tensor:
    """TF's fftshift: the shifts (and axes) as ops that read the sizes as the graph runs."""
    if axes is None:
        axes = list(range(x.shape.rank))
    axes = tf.convert_to_tensor(axes)
    axes = tf.where(axes < 0, axes + tf.rank(x), axes)
    return tf.roll(x, sign * (tf.gather(tf.shape(x), axes) // 2), axes)


@tf_export("signal.fftshift")
def fftshift(x: Any, axes: Any = None, name: Optional[str] = None) -> tf.Tensor:
    """`x` rolled so that the zero frequency is in the middle of each axis in `axes` (all
    by default), as numpy.fft.fftshift."""
    return _shift(x, axes, 1)


@tf_export("signal.ifftshift")
def ifftshift(x: Any, axes: Any = None, name: Optional[str] = None) -> tf.Tensor:
    """The inverse of fftshift."""
    return _shift(x, axes, -1)


# -- framing with sizes read when a traced graph runs -------------------------------------------
# Three linear primitives, each the transpose of another: Frame (TF's frame), FrameAt (frames
# of a given count, zeros past the end) and OverlapAdd (frames summed back onto a signal of a
# given length). Sizes are their inputs; `axis` (the framed axis) is an attribute.

def _frames_np(x: np.ndarray, length: int, step: int, count: int, fill: Any,
               axis: int) -> np.ndarray:
    """`count` frames of `length` every `step` along `axis` of x, `fill` past its end."""
    x = np.moveaxis(x, axis, -1)
    need = step * (count - 1) + length if count else 0
    if need > x.shape[-1]:
        widths = [(0, 0)] * (x.ndim - 1) + [(0, need - x.shape[-1])]
        x = np.pad(x, widths, constant_values=np.asarray(fill, x.dtype))
    index = step * np.arange(count)[:, None] + np.arange(length)[None, :]
    frames = x[..., index] if count else np.zeros(x.shape[:-1] + (0, length), x.dtype)
    return np.moveaxis(np.moveaxis(frames, -1, axis), -1, axis)


def _sizes(length: np.ndarray, step: np.ndarray) -> tuple:
    length, step = int(length), int(step)
    if length < 0 or step <= 0:   # TF's frame gives garbage or hangs; tapeflow refuses
        raise tf.errors.InvalidArgumentError(f"frame_length must be non-negative and "
                                             f"frame_step positive, got {length} and {step} "
                                             f"[Op:Frame]")
    return length, step


def _frame_kernel(x: np.ndarray, length: np.ndarray, step: np.ndarray, fill: np.ndarray,
                  axis: int, pad_end: bool) -> np.ndarray:
    length, step = _sizes(length, step)
    size = x.shape[axis]
    count = -(-size // step) if pad_end else max(0, 1 + (size - length) // step)
    return _frames_np(x, length, step, count, fill, axis)


def _frame_at_kernel(x: np.ndarray, length: np.ndarray, step: np.ndarray, count: np.ndarray,
                     axis: int) -> np.ndarray:
    length, step = _sizes(length, step)
    return _frames_np(x, length, step, int(count), 0, axis)


def _overlap_add_kernel(frames: np.ndarray, step: np.ndarray, size: np.ndarray,
                        axis: int) -> np.ndarray:
    count, length = frames.shape[axis], frames.shape[axis + 1]
    _, step = _sizes(length, step)
    moved = np.moveaxis(np.moveaxis(frames, axis, -1), axis, -1)   # [..., count, length]
    need = max(int(size), step * (count - 1) + length if count else 0)
    out = np.zeros(moved.shape[:-2] + (need,), frames.dtype)
    for i in range(count):
        out[..., step * i:step * i + length] += moved[..., i, :]
    return np.moveaxis(out[..., :int(size)], -1, axis)


def _framed_rule(x: Any, *sizes: Any, axis: int, **_: Any) -> Any:
    shape = None if x.shape is None else x.shape[:axis] + (None, None) + x.shape[axis + 1:]
    return ShapedArray(shape, x.dtype)


def _overlap_rule(frames: Any, step: Any, size: Any, axis: int) -> Any:
    shape = None if frames.shape is None else \
        frames.shape[:axis] + (None,) + frames.shape[axis + 2:]
    return ShapedArray(shape, frames.dtype)


_FRAME = Primitive("Frame", _frame_kernel, shape_rule=_framed_rule, register=False)
_FRAME_AT = Primitive("FrameAt", _frame_at_kernel, shape_rule=_framed_rule, register=False)
_OVERLAP_ADD = Primitive("OverlapAdd", _overlap_add_kernel, shape_rule=_overlap_rule,
                         register=False)
_FRAME.defvjp(lambda g, ans, x, length, step, fill, axis, pad_end: (
    bind(_OVERLAP_ADD, (g, step, tf.shape(x)[axis]), {"axis": axis}), None, None, None))
_FRAME_AT.defvjp(lambda g, ans, x, length, step, count, axis: (
    bind(_OVERLAP_ADD, (g, step, tf.shape(x)[axis]), {"axis": axis}), None, None, None))
_OVERLAP_ADD.defvjp(lambda g, ans, frames, step, size, axis: (
    bind(_FRAME_AT, (g, tf.shape(frames)[axis + 1], step, tf.shape(frames)[axis]),
         {"axis": axis}), None, None))


def _run_time_frame(signal: tf.Tensor, frame_length: Any, frame_step: Any, pad_end: bool,
                    pad_value: Any, axis: Any) -> tf.Tensor:
    """frame with a size (or the axis) read when the graph runs: the Frame primitive (an axis
    read at run time moves to the end first, as TF's frame reshapes around it)."""
    rank = signal.shape.rank
    sizes = [tf.cast(tf.convert_to_tensor(v), tf.int32) for v in (frame_length, frame_step)]
    fill = tf.cast(pad_value, signal.dtype)
    if not read_at_run_time(axis):
        axis = _int(axis, "axis")
        axis = axis + rank if axis < 0 else axis
        framed = bind(_FRAME, (signal, *sizes, fill), {"axis": axis, "pad_end": pad_end})
        if read_at_run_time(frame_length):
            return framed
        known = framed.shape.as_list()   # the frame length the trace knows
        known[axis + 1] = _int(frame_length, "frame_length")
        return tf.ensure_shape(framed, known)
    axis = tf.convert_to_tensor(axis)
    axis = tf.where(axis < 0, axis + rank, axis)
    order = tf.concat([tf.range(axis), tf.range(axis + 1, rank), [axis]], 0)
    framed = bind(_FRAME, (tf.transpose(signal, order), *sizes, fill),
                  {"axis": rank - 1, "pad_end": pad_end})
    back = tf.concat([tf.range(axis), [rank - 1, rank], tf.range(axis, rank - 1)], 0)
    return tf.transpose(framed, back)


# -- framing ---------------------------------------------------------------------------------------

@tf_export("signal.frame")
@reads_static
def frame(signal: Any, frame_length: Any, frame_step: Any, pad_end: bool = False,
          pad_value: Any = 0, axis: int = -1, name: Optional[str] = None) -> tf.Tensor:
    """Frames of `frame_length` samples every `frame_step` samples along `axis`, which becomes
    two axes [frames, frame_length]; `pad_end` pads the end with `pad_value` so that every
    sample lies in a frame."""
    signal = tf.convert_to_tensor(signal)
    if signal.shape.rank == 0:
        raise ValueError("Shape () must have rank at least 1")
    if read_at_run_time([frame_length, frame_step, axis]) or \
            _unknown_dim(signal, _int(axis, "axis")):   # TF's run-time sizes and shapes
        return _run_time_frame(signal, frame_length, frame_step, pad_end, pad_value, axis)
    frame_length = _int(frame_length, "frame_length")
    frame_step = _int(frame_step, "frame_step")
    axis = _int(axis, "axis")
    rank = signal.shape.rank
    axis = axis + rank if axis < 0 else axis
    length = _static_dim(signal, axis, "frame")
    if pad_end:
        num_frames = -(-length // frame_step)
        extra = max(0, frame_length + frame_step * (num_frames - 1) - length)
        if extra:
            paddings = [[0, 0]] * rank
            paddings[axis] = [0, extra]
            signal = tf.pad(signal, paddings, constant_values=tf.cast(pad_value, signal.dtype))
    else:
        num_frames = max(0, 1 + (length - frame_length) // frame_step)
    # TensorFlow's way: cut the signal into subframes of gcd(frame_length, frame_step)
    # samples and gather whole subframes (a gather of a reshape, so the gradient is dense).
    shape = signal.shape.as_list()
    sub = _math.gcd(frame_length, frame_step)
    num_subframes = shape[axis] // sub
    key = (slice(None),) * axis + (slice(0, num_subframes * sub),)
    subframes = tf.reshape(signal[key], shape[:axis] + [num_subframes, sub] + shape[axis + 1:])
    selector = ((frame_step // sub) * np.arange(num_frames, dtype=np.int32)[:, None]
                + np.arange(frame_length // sub, dtype=np.int32)[None, :])
    frames = tf.gather(subframes, selector, axis=axis)
    return tf.reshape(frames, shape[:axis] + [num_frames, frame_length] + shape[axis + 1:])


@tf_export("signal.overlap_and_add")
def overlap_and_add(signal: Any, frame_step: Any, name: Optional[str] = None) -> tf.Tensor:
    """The frames of `signal` ([..., frames, frame_length]) added together, each placed
    `frame_step` samples after the previous one: [..., (frames - 1) * frame_step +
    frame_length]."""
    signal = tf.convert_to_tensor(signal)
    if signal.shape.rank is not None and signal.shape.rank < 2:
        raise ValueError(f"Shape {signal.shape} must have rank at least 2")
    if signal.shape.rank is not None and (read_at_run_time(frame_step) or None in
                                          signal.shape.as_list()):   # TF's run-time sizes
        step = tf.cast(tf.convert_to_tensor(frame_step), tf.int32)
        dims = tf.shape(signal)
        size = tf.maximum((dims[-2] - 1) * step + dims[-1], 0)
        return bind(_OVERLAP_ADD, (signal, step, size), {"axis": signal.shape.rank - 2})
    step = _int(frame_step, "frame_step")
    outer = signal.shape.as_list()[:-2]
    frames = _static_dim(signal, -2, "overlap_and_add")
    frame_length = _static_dim(signal, -1, "overlap_and_add")
    if None in outer:
        raise NotImplementedError(f"tf.signal.overlap_and_add: tapeflow needs the outer "
                                  f"dims while tracing (shape {signal.shape}).")
    output_length = frame_length + step * (frames - 1)
    if frame_length == step:
        return tf.reshape(signal, outer + [output_length])
    # TensorFlow's skew: frame f's segment j lands in row f + j of a [segments, frames +
    # segments - 1, step] block, whose sum over segments is the output, step by step.
    segments = -(-frame_length // step)
    rank = len(outer)
    x = tf.pad(signal, [[0, 0]] * (rank + 1) + [[0, segments * step - frame_length]])
    x = tf.reshape(x, outer + [frames, segments, step])
    x = tf.transpose(x, list(range(rank)) + [rank + 1, rank, rank + 2])
    x = tf.pad(x, [[0, 0]] * (rank + 1) + [[0, segments], [0, 0]])
    x = tf.reshape(x, outer + [segments * (frames + segments), step])
    x = x[..., :(frames + segments - 1) * segments, :]
    x = tf.reshape(x, outer + [segments, frames + segments - 1, step])
    x = tf.reduce_sum(x, -3)
    x = tf.reshape(x, outer + [(frames + segments - 1) * step])
    return x[..., :output_length]


# -- windows ---------------------------------------------------------------------------------------

def _window_args(window_length: Any, dtype: Any, periodic: Any = None) -> tuple:
    """(length, dtype): the length a Python int, or where it is read when the graph runs (as
    TF's), an int32 scalar tensor that the window's ops take as it is."""
    dtype = tf.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype!r}")
    if read_at_run_time(window_length):
        length = tf.convert_to_tensor(window_length, dtype_hint=tf.int32)
        if length.shape.rank != 0:
            raise ValueError(f"Shape {length.shape} must have rank 0")
        return tf.cast(length, tf.int32), dtype
    length = static_value(window_length, "tf.signal: window_length", np.asarray)
    if length.ndim != 0:
        raise ValueError(f"Shape {tuple(length.shape)} must have rank 0")
    return int(length), dtype


def _raised_cosine(window_length: Any, periodic: Any, dtype: Any, a: float,
                   b: float) -> tf.Tensor:
    length, dtype = _window_args(window_length, dtype)
    if isinstance(length, int) and length == 1:
        return tf.ones([1], dtype)
    periodic = bool(static_value(periodic, "tf.signal: periodic", np.asarray))
    even = 1 - length % 2
    n = tf.cast(length + int(periodic) * even - 1, dtype)
    count = tf.cast(tf.range(length), dtype)
    cos_arg = tf.constant(2 * np.pi, dtype) * count / n
    window = tf.cast(a - b * tf.cos(cos_arg), dtype)
    if isinstance(length, int):
        return window
    return tf.where(tf.equal(length, 1), tf.ones_like(window), window)   # TF's cond


@tf_export("signal.hann_window")
def hann_window(window_length: Any, periodic: Any = True, dtype: Any = tf.float32,
                name: Optional[str] = None) -> tf.Tensor:
    """The Hann window 0.5 - 0.5 cos(2 pi n / N) (N = length if periodic, else length - 1)."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


@tf_export("signal.hamming_window")
def hamming_window(window_length: Any, periodic: Any = True, dtype: Any = tf.float32,
                   name: Optional[str] = None) -> tf.Tensor:
    """The Hamming window 0.54 - 0.46 cos(2 pi n / N) (N as in hann_window)."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


@tf_export("signal.kaiser_window")
def kaiser_window(window_length: Any, beta: Any = 12.0, dtype: Any = tf.float32,
                  name: Optional[str] = None) -> tf.Tensor:
    """The Kaiser window I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta)."""
    length, dtype = _window_args(window_length, dtype)
    if isinstance(length, int) and length == 1:
        return tf.ones([1], dtype)
    halflen = (tf.cast(length, tf.float32) - 1.0) / 2.0
    arg = tf.cast(tf.range(-halflen, halflen + 0.1, dtype=tf.float32), dtype)
    beta = tf.cast(beta, dtype)
    halflen = tf.cast(halflen, dtype)
    num = beta * tf.sqrt(tf.nn.relu(tf.cast(1.0, dtype) - tf.square(arg / halflen)))
    return tf.exp(num - beta) * (tf.math.bessel_i0e(num) / tf.math.bessel_i0e(beta))


@tf_export("signal.kaiser_bessel_derived_window")
def kaiser_bessel_derived_window(window_length: Any, beta: Any = 12.0,
                                 dtype: Any = tf.float32,
                                 name: Optional[str] = None) -> tf.Tensor:
    """The Kaiser-Bessel-derived window: square roots of the normalised cumulative sums of a
    Kaiser window of half the length, mirrored."""
    length, dtype = _window_args(window_length, dtype)
    kaiser = kaiser_window(length // 2 + 1, beta, dtype=dtype)
    csum = tf.cumsum(kaiser)
    half = tf.sqrt(csum[:-1] / csum[-1])
    return tf.concat((half, half[::-1]), axis=0)


@tf_export("signal.vorbis_window")
def vorbis_window(window_length: Any, dtype: Any = tf.float32,
                  name: Optional[str] = None) -> tf.Tensor:
    """The Vorbis power-complementary window sin(pi / 2 sin^2(pi (n + 0.5) / N))."""
    length, dtype = _window_args(window_length, dtype)
    arg = tf.cast(tf.range(length), dtype)
    inner = tf.sin(np.pi / tf.cast(length, dtype) * (arg + 0.5))
    return tf.sin(np.pi / 2.0 * tf.pow(inner, 2.0))


# -- STFT ------------------------------------------------------------------------------------------

def _enclosing_power_of_two(value: Any) -> Any:
    """2 ** ceil(log2(value)): an int, or ops on a size read when the graph runs (TF's)."""
    if isinstance(value, tf.Tensor):
        exponent = tf.math.ceil(tf.math.log(tf.cast(value, tf.float32)) / np.log(2.0))
        return tf.cast(tf.pow(2.0, exponent), tf.int32)
    return int(2 ** np.ceil(np.log2(value)))


def _size_arg(value: Any, what: str) -> Any:
    """A size of the STFTs: a Python int, or an int32 scalar tensor read when the graph runs."""
    if read_at_run_time(value):
        size = tf.cast(tf.convert_to_tensor(value), tf.int32)
        if size.shape.rank != 0:
            raise ValueError(f"Shape {size.shape} must have rank 0")
        return size
    return _int(value, what)


@tf_export("signal.stft")
@reads_static
def stft(signals: Any, frame_length: Any, frame_step: Any, fft_length: Any = None,
         window_fn: Optional[Callable] = hann_window, pad_end: bool = False,
         name: Optional[str] = None) -> tf.Tensor:
    """The short-time Fourier transform of `signals` ([..., samples]): the rfft of each
    windowed frame, [..., frames, fft_length // 2 + 1] (complex64 from float32)."""
    signals = tf.convert_to_tensor(signals)
    if signals.shape.rank == 0:
        raise ValueError("Shape () must have rank at least 1")
    frame_length = _size_arg(frame_length, "frame_length")
    frame_step = _size_arg(frame_step, "frame_step")
    fft_length = (_enclosing_power_of_two(frame_length) if fft_length is None
                  else _size_arg(fft_length, "fft_length"))
    framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(frame_length, dtype=framed.dtype)
    return tf.signal.rfft(framed, [fft_length])


@tf_export("signal.inverse_stft_window_fn")
def inverse_stft_window_fn(frame_step: Any, forward_window_fn: Callable = hann_window,
                           name: Optional[str] = None) -> Callable:
    """A window function for inverse_stft that inverts `forward_window_fn` at `frame_step`
    (Griffin and Lim's equation 7: the window over the sum of the squared overlapping
    windows)."""
    def inverse_window(frame_length: Any, dtype: Any) -> tf.Tensor:
        step = _int(frame_step, "frame_step")
        length = _int(frame_length, "frame_length")
        forward = forward_window_fn(length, dtype=dtype)
        denom = tf.square(forward)
        overlaps = -(-length // step)
        denom = tf.pad(denom, [(0, overlaps * step - length)])
        denom = tf.reshape(denom, [overlaps, step])
        denom = tf.reduce_sum(denom, 0, keepdims=True)
        denom = tf.tile(denom, [overlaps, 1])
        denom = tf.reshape(denom, [overlaps * step])
        return forward / denom[:length]
    return inverse_window


@tf_export("signal.inverse_stft")
@reads_static
def inverse_stft(stfts: Any, frame_length: Any, frame_step: Any, fft_length: Any = None,
                 window_fn: Optional[Callable] = hann_window,
                 name: Optional[str] = None) -> tf.Tensor:
    """The signal whose stft is `stfts` ([..., frames, fft_length // 2 + 1]): the irfft of
    each frame, cut or padded to frame_length, windowed, and overlapped-and-added. Exact
    inversion needs `window_fn=inverse_stft_window_fn(frame_step)`."""
    stfts = tf.convert_to_tensor(stfts)
    if stfts.shape.rank is not None and stfts.shape.rank < 2:
        raise ValueError(f"Shape {stfts.shape} must have rank at least 2")
    frame_length = _size_arg(frame_length, "frame_length")
    frame_step = _size_arg(frame_step, "frame_step")
    fft_length = (_enclosing_power_of_two(frame_length) if fft_length is None
                  else _size_arg(fft_length, "fft_length"))
    real_frames = tf.signal.irfft(stfts, [fft_length])
    if isinstance(frame_length, tf.Tensor) or isinstance(fft_length, tf.Tensor):
        real_frames = _cut_or_pad_last(real_frames, frame_length)
    elif fft_length > frame_length:
        real_frames = real_frames[..., :frame_length]
    elif fft_length < frame_length:
        paddings = [[0, 0]] * (real_frames.shape.rank - 1) + [[0, frame_length - fft_length]]
        real_frames = tf.pad(real_frames, paddings)
    if window_fn is not None:
        real_frames = real_frames * window_fn(frame_length, dtype=real_frames.dtype)
    return overlap_and_add(real_frames, frame_step)


def _cut_or_pad_last(x: tf.Tensor, length: Any) -> tf.Tensor:
    """x's last axis cut or zero-padded to `length`, as the graph runs (TF's inverse_stft)."""
    dims = tf.shape(x)
    keep = tf.minimum(dims[-1], length)
    x = tf.slice(x, tf.zeros_like(dims), tf.concat([dims[:-1], [keep]], 0))
    paddings = tf.concat([tf.zeros([x.shape.rank - 1, 2], tf.int32),
                          [[0, tf.maximum(0, length - keep)]]], 0)
    return tf.pad(x, paddings)


# -- mel filterbanks and MFCCs -------------------------------------------------------------------

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(frequencies_hertz: tf.Tensor) -> tf.Tensor:
    return _MEL_HIGH_FREQUENCY_Q * tf.math.log(1.0 + (frequencies_hertz /
                                                      _MEL_BREAK_FREQUENCY_HERTZ))


def _validate_mel(num_mel_bins: int, sample_rate: Any, lower_edge_hertz: float,
                  upper_edge_hertz: float, dtype: tf.DType) -> None:
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz "
                         f"{upper_edge_hertz:.1f}")
    if not isinstance(sample_rate, tf.Tensor):
        if sample_rate <= 0.0:
            raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency "
                             f"(sample_rate / 2). Got {upper_edge_hertz} for sample_rate: "
                             f"{sample_rate}")
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype!r}")


@tf_export("signal.linear_to_mel_weight_matrix")
@reads_variables
def linear_to_mel_weight_matrix(num_mel_bins: int = 20, num_spectrogram_bins: int = 129,
                                sample_rate: Any = 8000, lower_edge_hertz: float = 125.0,
                                upper_edge_hertz: float = 3800.0, dtype: Any = tf.float32,
                                name: Optional[str] = None) -> tf.Tensor:
    """The [num_spectrogram_bins, num_mel_bins] matrix that maps linear-frequency
    spectrogram bins to HTK mel bands (triangular filters, the DC bin excluded)."""
    dtype = tf.as_dtype(dtype)
    _validate_mel(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype)
    sample_rate = tf.cast(sample_rate, dtype)
    lower = tf.convert_to_tensor(lower_edge_hertz, dtype)
    upper = tf.convert_to_tensor(upper_edge_hertz, dtype)
    zero = tf.convert_to_tensor(0.0, dtype)
    linear_frequencies = tf.linspace(zero, sample_rate / 2.0, num_spectrogram_bins)[1:]
    spectrogram_bins_mel = tf.expand_dims(_hertz_to_mel(linear_frequencies), 1)
    band_edges_mel = frame(tf.linspace(_hertz_to_mel(lower), _hertz_to_mel(upper),
                                       num_mel_bins + 2), frame_length=3, frame_step=1)
    lower_mel, center_mel, upper_mel = (tf.reshape(t, [1, num_mel_bins])
                                        for t in tf.split(band_edges_mel, 3, axis=1))
    lower_slopes = (spectrogram_bins_mel - lower_mel) / (center_mel - lower_mel)
    upper_slopes = (upper_mel - spectrogram_bins_mel) / (upper_mel - center_mel)
    weights = tf.maximum(zero, tf.minimum(lower_slopes, upper_slopes))
    return tf.pad(weights, [[1, 0], [0, 0]])


@tf_export("signal.mfccs_from_log_mel_spectrograms")
def mfccs_from_log_mel_spectrograms(log_mel_spectrograms: Any,
                                    name: Optional[str] = None) -> tf.Tensor:
    """Mel-frequency cepstral coefficients: the orthonormal DCT-II of log-mel spectrograms
    over their last axis, as HTK computes them."""
    x = tf.convert_to_tensor(log_mel_spectrograms)
    num_mel_bins = _static_dim(x, -1, "mfccs_from_log_mel_spectrograms")
    if num_mel_bins == 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {x}")
    dct2 = dct(x, type=2)
    return dct2 * tf.math.rsqrt(tf.cast(num_mel_bins, dct2.dtype) * 2.0)


# -- DCT -------------------------------------------------------------------------------------------

def _validate_dct(x: tf.Tensor, dct_type: int, n: Optional[int], axis: int,
                  norm: Optional[str]) -> None:
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        if x.shape.rank and x.shape[-1] is not None and x.shape[-1] < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _ortho_weights(first: tf.Tensor, rest: tf.Tensor, size: int) -> tf.Tensor:
    """[first, rest, rest, ...] of length `size` (TF builds it with a pad)."""
    return tf.pad(tf.expand_dims(first, 0), [[0, size - 1]], constant_values=rest)


def _twiddle(size_float: tf.Tensor, zero: tf.Tensor, sign: float) -> tf.Tensor:
    """2 exp(sign i pi k / (2 N)) for k < N, as TF computes it."""
    return 2.0 * tf.exp(tf.complex(zero, sign * tf.range(size_float) * _math.pi * 0.5 /
                                   size_float))


@tf_export("signal.dct")
def dct(input: Any, type: int = 2, n: Optional[int] = None, axis: int = -1,  # noqa: A002
        norm: Optional[str] = None, name: Optional[str] = None) -> tf.Tensor:
    """The discrete cosine transform of types I-IV over the last axis (`n` crops or
    zero-pads it first; `norm='ortho'` makes types II-IV orthonormal), as scipy.fft.dct,
    computed through an rfft as TensorFlow does."""
    x = tf.convert_to_tensor(input)
    _validate_dct(x, type, n, axis, norm)
    zero = tf.convert_to_tensor(0.0, dtype=x.dtype)
    seq_len = _static_dim(x, -1, "dct")
    if n is not None:
        if n <= seq_len:
            x = x[..., 0:n]
        else:
            x = tf.pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, n - seq_len]])
    size = x.shape[-1]
    size_float = tf.cast(size, x.dtype)
    if type == 1:
        return tf.math.real(tf.signal.rfft(tf.concat([x, x[..., -2:0:-1]], axis=-1)))
    if type == 2:
        scale = _twiddle(size_float, zero, -1.0)
        out = tf.math.real(tf.signal.rfft(x, fft_length=[2 * size])[..., :size] * scale)
        if norm == "ortho":
            n1 = 0.5 * tf.math.rsqrt(size_float)
            out = out * _ortho_weights(n1, n1 * _math.sqrt(2.0), size)
        return out
    if type == 3:
        if norm == "ortho":
            n1 = tf.sqrt(size_float)
            x = x * _ortho_weights(n1, n1 * _math.sqrt(0.5), size)
        else:
            x = x * size_float
        scale = _twiddle(size_float, zero, 1.0)
        return tf.math.real(tf.signal.irfft(scale * tf.complex(x, zero),
                                            fft_length=[2 * size]))[..., :size]
    out = dct(x, type=2, n=2 * size, axis=axis, norm=None)[..., 1::2]   # type 4
    if norm == "ortho":
        out = out * (_math.sqrt(0.5) * tf.math.rsqrt(size_float))
    return out


@tf_export("signal.idct")
def idct(input: Any, type: int = 2, n: Optional[int] = None, axis: int = -1,  # noqa: A002
         norm: Optional[str] = None, name: Optional[str] = None) -> tf.Tensor:
    """The inverse DCT: the DCT of the inverse type (I and IV are their own inverses, II and
    III each other's). Without norm='ortho' it is the inverse times 2N, as in TensorFlow."""
    x = tf.convert_to_tensor(input)
    _validate_dct(x, type, n, axis, norm)
    return dct(x, type={1: 1, 2: 3, 3: 2, 4: 4}[type], n=n, axis=axis, norm=norm)


# -- MDCT ------------------------------------------------------------------------------------------

@tf_export("signal.mdct")
def mdct(signals: Any, frame_length: Any, window_fn: Optional[Callable] = vorbis_window,
         pad_end: bool = False, norm: Optional[str] = None,
         name: Optional[str] = None) -> tf.Tensor:
    """The modified discrete cosine transform of frames of `frame_length` (a multiple of 4)
    every frame_length // 2 samples: [..., frames, frame_length // 2], windowed by
    `window_fn` (None: a flat 1/sqrt(2)); norm='ortho' uses the orthonormal DCT-IV."""
    signals = tf.convert_to_tensor(signals)
    if signals.shape.rank is not None and signals.shape.rank < 1:
        raise ValueError(f"Shape {signals.shape} must have rank at least 1")
    if read_at_run_time(frame_length):   # read when the graph runs, as TF's mdct reads it
        return _mdct_at_run_time(signals, frame_length, window_fn, pad_end, norm)
    length = _int(frame_length, "frame_length")
    if length % 4 != 0:
        raise ValueError("The frame length must be a multiple of 4.")
    framed = frame(signals, length, length // 2, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(length, dtype=framed.dtype)
    else:
        framed = framed * (1.0 / np.sqrt(2))
    quarters = tf.split(framed, 4, axis=-1)
    first = -tf.reverse(quarters[2], [-1]) - quarters[3]
    second = quarters[0] - tf.reverse(quarters[1], [-1])
    return dct(tf.concat((first, second), axis=-1), type=4, norm=norm)


def _mdct_at_run_time(signals: tf.Tensor, frame_length: Any, window_fn: Optional[Callable],
                      pad_end: bool, norm: Optional[str]) -> tf.Tensor:
    """mdct with a traced `frame_length`, as TF builds it: frames and window sized as the
    graph runs; the four-way split checks that the length is a multiple of 4 (TF's Split
    error) and the DCT-IV is sized by the frames' run-time length."""
    length = tf.convert_to_tensor(frame_length)
    if length.shape.rank != 0:
        raise ValueError(f"Shape {length.shape} must have rank 0")
    if length.dtype != tf.int32:   # TF's error: its frame count subtracts from an int32
        raise TypeError(f"Input 'y' of 'Sub' Op has type {length.dtype.name} that does not "
                        f"match type int32 of argument 'x'.")
    framed = frame(signals, length, length // 2, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(length, dtype=framed.dtype)
    else:
        framed = framed * (1.0 / np.sqrt(2))
    quarters = tf.split(framed, 4, axis=-1)
    first = -tf.reverse(quarters[2], [-1]) - quarters[3]
    second = quarters[0] - tf.reverse(quarters[1], [-1])
    return _dct4_of_run_time_length(tf.concat((first, second), axis=-1), norm)


def _dct4_of_run_time_length(x: tf.Tensor, norm: Optional[str]) -> tf.Tensor:
    """dct(x, type=4) over a last axis whose length n is known when the graph runs, with
    TF's ops: the DCT-II of x zero-padded to 2n (through an rfft of 4n), its odd terms."""
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    n = tf.shape(x)[-1]
    padded = tf.concat([x, tf.zeros_like(x)], axis=-1)
    zero = tf.convert_to_tensor(0.0, dtype=x.dtype)
    size_float = tf.cast(2 * n, x.dtype)
    spectrum = tf.signal.rfft(padded, fft_length=tf.reshape(4 * n, [1]))[..., :2 * n]
    out = tf.math.real(spectrum * _twiddle(size_float, zero, -1.0))[..., 1::2]
    if norm == "ortho":
        out = out * (_math.sqrt(0.5) * tf.math.rsqrt(tf.cast(n, x.dtype)))
    return out


@tf_export("signal.inverse_mdct")
def inverse_mdct(mdcts: Any, window_fn: Optional[Callable] = vorbis_window,
                 norm: Optional[str] = None, name: Optional[str] = None) -> tf.Tensor:
    """The signal whose mdct is `mdcts` ([..., frames, frame_length // 2] gives [...,
    (frames - 1) * (frame_length // 2) + frame_length] samples), with the same window."""
    mdcts = tf.convert_to_tensor(mdcts)
    if mdcts.shape.rank is not None and mdcts.shape.rank < 2:
        raise ValueError(f"Shape {mdcts.shape} must have rank at least 2")
    half_len = _static_dim(mdcts, -1, "inverse_mdct")
    if norm is None:
        result = (0.5 / tf.cast(half_len, mdcts.dtype)) * dct(mdcts, type=4)
    elif norm == "ortho":
        result = dct(mdcts, type=4, norm="ortho")
    else:
        raise ValueError(f"norm must be None or 'ortho', got {norm!r}")
    halves = tf.split(result, 2, axis=-1)
    frames = tf.concat((halves[1], -tf.reverse(halves[1], [-1]),
                        -tf.reverse(halves[0], [-1]), -halves[0]), axis=-1)
    if window_fn is not None:
        frames = frames * window_fn(2 * half_len, dtype=mdcts.dtype)
    else:
        frames = frames * (1.0 / np.sqrt(2))
    return overlap_and_add(frames, half_len)


_populate(globals(), "signal")
