"""`keras.initializers`: Keras 3's weight initializers, by class and by name.

An initializer is called as `init(shape, dtype=None)` and returns a Tensor. Random ones draw
through tapeflow's seeded random ops, so `tf.random.set_seed` makes models reproducible.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.tensor import Tensor, wrap
from tapeflow.keras import backend
from tapeflow.keras._registry import drop_keras_only, serialize_keras_object


def _np_dtype(dtype: Any) -> np.dtype:
    return _dtypes.as_dtype(dtype or backend.floatx())._np


def _tensor(value: Any, dtype: Any) -> Tensor:
    return wrap(np.asarray(value).astype(_np_dtype(dtype), copy=False))


class Initializer:
    """Base class: `__call__(shape, dtype=None) -> Tensor`."""

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        raise NotImplementedError

    def get_config(self) -> dict:
        """The initializer's constructor arguments, as a dict."""
        return {}

    @classmethod
    def from_config(cls, config: dict) -> "Initializer":
        """An initializer built from the dict `get_config()` returns."""
        return cls(**config)

    def clone(self) -> "Initializer":
        """A new initializer of the same class and configuration."""
        return self.__class__.from_config(self.get_config())


class Zeros(Initializer):
    """All zeros."""

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return wrap(np.zeros(tuple(shape), _np_dtype(dtype)))


class Ones(Initializer):
    """All ones."""

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return wrap(np.ones(tuple(shape), _np_dtype(dtype)))


class Constant(Initializer):
    """Every element equal to `value` (a scalar)."""

    def __init__(self, value: Any = 0.0) -> None:
        self.value = value

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return wrap(np.full(tuple(shape), np.asarray(self.value), _np_dtype(dtype)))

    def get_config(self) -> dict:
        return {"value": self.value}


class _Seeded(Initializer):
    """An initializer that draws random numbers: made without a seed, it takes one now, as
    Keras 3 does (so `keras.utils.set_random_seed` decides it, and each call draws the
    same values)."""

    def __init__(self, seed: Any = None) -> None:
        self._init_seed = seed
        self.seed = backend.make_default_seed() if seed is None else seed

    def get_config(self) -> dict:
        return {"seed": self._init_seed}


class RandomNormal(_Seeded):
    """Normal(mean, stddev); Keras's defaults mean 0.0, stddev 0.05."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05,
                 seed: Optional[int] = None) -> None:
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return _tensor(backend.random_normal(tuple(shape), self.mean, self.stddev,
                                             _np_dtype(dtype).name, self.seed), dtype)

    def get_config(self) -> dict:
        return {"seed": self._init_seed, "mean": self.mean, "stddev": self.stddev}


class TruncatedNormal(RandomNormal):
    """Normal(mean, stddev) with values beyond two stddevs redrawn."""

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return _tensor(backend.truncated_normal(tuple(shape), self.mean, self.stddev,
                                                _np_dtype(dtype).name, self.seed), dtype)


class RandomUniform(_Seeded):
    """Uniform[minval, maxval); Keras's defaults -0.05, 0.05."""

    def __init__(self, minval: float = -0.05, maxval: float = 0.05,
                 seed: Optional[int] = None) -> None:
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return _tensor(backend.random_uniform(tuple(shape), self.minval, self.maxval,
                                              _np_dtype(dtype).name, self.seed), dtype)

    def get_config(self) -> dict:
        return {"seed": self._init_seed, "minval": self.minval, "maxval": self.maxval}


def compute_fans(shape: tuple, input_axes: Optional[Sequence[int]] = None,
                 output_axes: Optional[Sequence[int]] = None) -> tuple:
    """(fan_in, fan_out) as Keras: the products of the sizes along `input_axes` and
    `output_axes` where both are given; else conv kernels count the receptive field."""
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        # As Keras: only when both are given (one alone is ignored).
        return (int(math.prod(shape[a] for a in input_axes)),
                int(math.prod(shape[a] for a in output_axes)))
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[:-2])
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(_Seeded):
    """Scale / fan variance: `mode` in fan_in/fan_out/fan_avg, `distribution` in
    truncated_normal/untruncated_normal/uniform (Keras's formulas). `input_axes` and
    `output_axes` (both or neither) name the axes whose sizes multiply into the fans."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal", seed: Optional[int] = None,
                 input_axes: Optional[Sequence[int]] = None,
                 output_axes: Optional[Sequence[int]] = None) -> None:
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: "
                             f"scale={scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid value for argument `mode`. Expected one of "
                             f"{{'fan_in', 'fan_out', 'fan_avg'}}. Received: mode={mode}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid value for argument `distribution`. Expected one of "
                             f"{{'uniform', 'truncated_normal', 'untruncated_normal'}}. "
                             f"Received: distribution={distribution}")
        super().__init__(seed)
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.input_axes, self.output_axes = input_axes, output_axes

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        scale = self.scale / max(1.0, fan[self.mode])
        name = _np_dtype(dtype).name
        if self.distribution == "truncated_normal":
            # 0.8796... is the stddev of a unit normal truncated to [-2, 2].
            stddev = math.sqrt(scale) / 0.87962566103423978
            value = backend.truncated_normal(tuple(shape), 0.0, stddev, name, self.seed)
        elif self.distribution == "untruncated_normal":
            value = backend.random_normal(tuple(shape), 0.0, math.sqrt(scale), name, self.seed)
        else:
            limit = math.sqrt(3.0 * scale)
            value = backend.random_uniform(tuple(shape), -limit, limit, name, self.seed)
        return _tensor(value, dtype)

    def get_config(self) -> dict:
        return {"seed": self._init_seed, "scale": self.scale, "mode": self.mode,
                "distribution": self.distribution, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


def _preset(class_name: str, scale: float, mode: str, distribution: str, doc: str) -> type:
    def __init__(self, seed: Optional[int] = None, input_axes: Optional[Sequence[int]] = None,
                 output_axes: Optional[Sequence[int]] = None) -> None:
        VarianceScaling.__init__(self, scale, mode, distribution, seed, input_axes, output_axes)

    def get_config(self) -> dict:
        """The initializer's configuration: its seed and fan axes."""
        return {"seed": self._init_seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}

    return type(class_name, (VarianceScaling,), {"__init__": __init__, "__doc__": doc,
                                                 "get_config": get_config})


GlorotUniform = _preset("GlorotUniform", 1.0, "fan_avg", "uniform",
                        "Uniform in +-sqrt(6 / (fan_in + fan_out)): Keras's kernel default.")
GlorotNormal = _preset("GlorotNormal", 1.0, "fan_avg", "truncated_normal",
                       "Truncated normal, stddev sqrt(2 / (fan_in + fan_out)).")
HeNormal = _preset("HeNormal", 2.0, "fan_in", "truncated_normal",
                   "Truncated normal, stddev sqrt(2 / fan_in).")
HeUniform = _preset("HeUniform", 2.0, "fan_in", "uniform", "Uniform in +-sqrt(6 / fan_in).")
LecunNormal = _preset("LecunNormal", 1.0, "fan_in", "truncated_normal",
                      "Truncated normal, stddev sqrt(1 / fan_in).")
LecunUniform = _preset("LecunUniform", 1.0, "fan_in", "uniform",
                       "Uniform in +-sqrt(3 / fan_in).")


class Orthogonal(_Seeded):
    """A (semi-)orthogonal matrix times `gain`, from the QR of a normal draw (Keras)."""

    def __init__(self, gain: float = 1.0, seed: Optional[int] = None) -> None:
        super().__init__(seed)
        self.gain = gain

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError(f"The tensor to initialize must be at least two-dimensional. "
                             f"Received: shape={shape} of rank {len(shape)}.")
        rows, cols = math.prod(shape[:-1]), shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        # As Keras: the draw in the weight's dtype (its QR, NumPy's LAPACK, may differ from
        # TensorFlow's in the last bits).
        a = np.asarray(backend.random_normal(flat, 0.0, 1.0, _np_dtype(dtype).name, self.seed))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))  # makes the decomposition unique
        if rows < cols:
            q = q.T
        return _tensor(self.gain * q.reshape(shape), dtype)

    def get_config(self) -> dict:
        return {"seed": self._init_seed, "gain": self.gain}


class Identity(Initializer):
    """`gain` times the identity matrix (2-D shapes only)."""

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = gain

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        if len(shape) != 2:
            raise ValueError(f"Identity matrix initializer can only be used for 2D matrices. "
                             f"Received: shape={tuple(shape)} of rank {len(shape)}.")
        return _tensor(self.gain * np.eye(*shape), dtype)

    def get_config(self) -> dict:
        return {"gain": self.gain}


def _window(name: str, length: int, periodic: bool) -> np.ndarray:
    """scipy.signal.get_window(name, length, fftbins=periodic) (SciPy imported here, only
    when an STFT kernel names its window)."""
    try:
        from scipy.signal import get_window
    except ImportError:
        raise ImportError("keras.initializers.STFT with a named `window` needs SciPy "
                          "(`pip install scipy`); pass the window as an array instead.") from None
    return get_window(name, length, periodic)


class STFT(Initializer):
    """The kernel of a short-time Fourier transform as a convolution: shape
    `(frame_length, input_channels, fft_length)`, the real (cos) or imaginary (-sin) part of
    the DFT basis at `fft_length` frequencies, times `window` (a SciPy window name or an
    array; None for none), divided by the window's L2 norm ('density') or sum ('spectrum')."""

    def __init__(self, side: str = "real", window: Any = "hann", scaling: Optional[str] = "density",
                 periodic: bool = False) -> None:
        if side not in ("real", "imag"):
            raise ValueError(f"side should be 'real' or 'imag', not {side}")
        if isinstance(window, str):
            _window(window, 1, periodic)  # an unknown name fails now, as Keras
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError(f"Scaling is invalid, it must be `None`, 'density' or 'spectrum'. "
                             f"Received scaling={scaling}")
        self.side, self.window, self.scaling, self.periodic = side, window, scaling, periodic

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        np_dtype = _np_dtype(dtype)
        frame_length, _, fft_length = shape
        time = np.arange(frame_length, dtype=np_dtype).reshape(frame_length, 1, 1)
        freq = np.arange(fft_length, dtype=np_dtype).reshape(1, 1, fft_length) / np_dtype.type(
            (fft_length - 1) * 2)
        args = (np_dtype.type(-2) * time * freq) * np.arccos(np_dtype.type(-1))
        kernel = (np.cos(args) if self.side == "real" else np.sin(args)).astype(np_dtype)
        if self.window is not None:
            win = self.window
            if isinstance(win, str):
                win = _window(win, frame_length, self.periodic)
            win = np.asarray(win).astype(np_dtype)
            if win.ndim != 1 or win.shape[-1] != frame_length:
                raise ValueError(f"The shape of `window` must be equal to [frame_length]."
                                 f"Received: window shape={win.shape}")
            win = win.reshape(frame_length, 1, 1)
            scaling = np_dtype.type(1)
            if self.scaling == "density":
                scaling = np.sqrt(np.sum(np.square(win)))
            elif self.scaling == "spectrum":
                scaling = np.sum(np.abs(win))
            kernel = kernel * win / scaling
        return _tensor(kernel, dtype)

    def get_config(self) -> dict:
        window = self.window.tolist() if isinstance(self.window, np.ndarray) else self.window
        return {"side": self.side, "window": window, "periodic": self.periodic,
                "scaling": self.scaling}


# Keras's other names of the same classes.
IdentityInitializer, OrthogonalInitializer, STFTInitializer = Identity, Orthogonal, STFT

_BY_NAME = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling, "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal, "he_normal": HeNormal, "he_uniform": HeUniform,
    "lecun_normal": LecunNormal, "lecun_uniform": LecunUniform, "orthogonal": Orthogonal,
    "identity": Identity, "stft": STFT, "identity_initializer": Identity,
    "orthogonal_initializer": Orthogonal, "s_t_f_t": STFT, "s_t_f_t_initializer": STFT,
    "stft_initializer": STFT,
}


def get(identifier: Any) -> Optional[Any]:
    """An initializer from a name ('glorot_uniform', 'GlorotUniform'), a class, an instance or
    a callable; None stays None."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        key = identifier if identifier in _BY_NAME else _snake(identifier)
        if key not in _BY_NAME:
            raise ValueError(f"Could not interpret initializer identifier: {identifier}")
        return _BY_NAME[key]()
    if isinstance(identifier, dict):
        cls = _BY_NAME[_snake(identifier["class_name"])]
        return cls(**drop_keras_only(cls, identifier.get("config", {})))
    if isinstance(identifier, type):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


def _snake(name: str) -> str:
    from tapeflow.module import camel_to_snake
    return camel_to_snake(name)


def deserialize(config: Any, custom_objects: Optional[dict] = None) -> Any:
    """The initializer a config describes (`{'class_name': ..., 'config': ...}`, Keras 3's
    full form, or a name such as 'glorot_uniform')."""
    if isinstance(config, str):
        return get(config)
    from tapeflow.keras.saving.serialization import deserialize_keras_object
    if isinstance(config, dict) and "module" not in config and not custom_objects:
        return get(config)
    return deserialize_keras_object(config, custom_objects=custom_objects)


def serialize(initializer: Initializer) -> dict:
    """`{'class_name': ..., 'config': ...}` for an initializer."""
    return serialize_keras_object(initializer)


# Keras's lowercase aliases.
zeros, ones, constant = Zeros, Ones, Constant
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
glorot_uniform, glorot_normal = GlorotUniform, GlorotNormal
he_normal, he_uniform, lecun_normal, lecun_uniform = HeNormal, HeUniform, LecunNormal, LecunUniform
orthogonal, identity, variance_scaling = Orthogonal, Identity, VarianceScaling
stft = STFT

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomNormal", "RandomUniform",
           "TruncatedNormal", "VarianceScaling", "GlorotUniform", "GlorotNormal", "HeNormal",
           "HeUniform", "LecunNormal", "LecunUniform", "Orthogonal", "Identity", "STFT",
           "IdentityInitializer", "OrthogonalInitializer", "STFTInitializer", "get",
           "deserialize", "serialize", "compute_fans"]
