"""Keras's global state: unique layer names, the name-scope stack that gives variables their
`path`, the default float type, the fuzz factor and image data format, and random numbers
drawn through tapeflow's seeded ops."""

from __future__ import annotations

import random as _python_random

import collections
import re
import weakref
from typing import Any, Optional

import numpy as np

_UIDS: collections.defaultdict = collections.defaultdict(int)
_SCOPES: list = []
_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"


class _TensorAttributes:
    """Values Keras attaches to tensors as attributes (`_keras_mask`, `_keras_logits`), kept
    aside since tensors have slots: id(tensor) -> (weak reference, value); an entry goes
    when its tensor does."""

    def __init__(self) -> None:
        self._entries: dict = {}

    def get(self, tensor: Any) -> Any:
        """The value attached to `tensor`, or None."""
        entry = self._entries.get(id(tensor))
        return entry[1] if entry is not None and entry[0]() is tensor else None

    def set(self, tensor: Any, value: Any) -> None:
        """Attaches `value` to `tensor`."""
        key, entries = id(tensor), self._entries
        entries[key] = (weakref.ref(tensor, lambda _, key=key: entries.pop(key, None)), value)

    def __bool__(self) -> bool:
        return bool(self._entries)


def get_uid(prefix: str = "") -> int:
    """1, 2, 3, ... per prefix: the n-th object named `prefix` gets `n`."""
    _UIDS[prefix] += 1
    return _UIDS[prefix]


def unique_name(prefix: str) -> str:
    """'dense', 'dense_1', 'dense_2', ...: Keras's automatic names."""
    uid = get_uid(prefix)
    return prefix if uid == 1 else f"{prefix}_{uid - 1}"


def to_snake_case(name: str) -> str:
    """Keras's automatic names: 'Conv2D' -> 'conv2d', 'BatchNormalization' ->
    'batch_normalization', 'AdamW' -> 'adam_w'."""
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def auto_name(class_name: str) -> str:
    """Keras's `auto_name`: the snake-cased class name made unique ('adam', 'adam_1', ...)."""
    return unique_name(to_snake_case(class_name))


def clear_session(free_memory: bool = True) -> None:
    """Resets the automatic names (`keras.backend.clear_session`); `free_memory` (Keras's
    garbage collection and accelerator memory release) has nothing to free here."""
    _UIDS.clear()
    _SCOPES.clear()


def backend() -> str:
    """The backend's name: tapeflow runs Keras's TensorFlow backend, "tensorflow"."""
    return "tensorflow"


def standardize_dtype(dtype: Any) -> str:
    """A dtype's Keras name ('float32', 'int64', ...; None is floatx), ValueError for others."""
    from tapeflow.keras.utils import standardize_dtype as standardize
    return standardize(dtype)


def is_float_dtype(dtype: Any) -> bool:
    """True for float16/32/64 and bfloat16 (and the float8 types)."""
    name = standardize_dtype(dtype)
    return name.startswith("float") or name.startswith("bfloat")


def is_int_dtype(dtype: Any) -> bool:
    """True for the signed and unsigned integer dtypes."""
    name = standardize_dtype(dtype)
    return name.startswith("int") or name.startswith("uint")


def result_type(*dtypes: Any) -> str:
    """The dtype Keras's promotion gives these dtypes (Python int/float weak; no argument:
    floatx)."""
    from tapeflow.keras.ops import _dtypes
    return _dtypes.result_type(*dtypes)


def is_keras_tensor(x: Any) -> bool:
    """True for the symbolic inputs and outputs of functional models (`keras.Input`)."""
    from tapeflow.keras.layers.layer import KerasTensor
    return isinstance(x, KerasTensor)


def floatx() -> str:
    """The default float dtype of layer weights: 'float32'."""
    return _FLOATX


def set_floatx(value: str) -> None:
    """Sets the default float dtype of layer weights ('float16', 'bfloat16', 'float32' or
    'float64')."""
    global _FLOATX
    accepted = {"bfloat16", "float16", "float32", "float64"}
    if str(value) not in accepted:
        raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {accepted}")
    _FLOATX = str(value)


def epsilon() -> float:
    """The fuzz factor losses, metrics and constraints add or clip with (1e-7)."""
    return _EPSILON


def set_epsilon(value: float) -> None:
    """Sets the fuzz factor; losses and metrics read it when they compute, constraints and
    AUC's thresholds when they are made (as Keras)."""
    global _EPSILON
    _EPSILON = value


def image_data_format() -> str:
    """The layout image layers take when not given one: 'channels_last' or
    'channels_first'."""
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format: str) -> None:
    """Sets the layout image layers made from now on take by default."""
    global _IMAGE_DATA_FORMAT
    _IMAGE_DATA_FORMAT = _checked_data_format(data_format)


def standardize_shape(shape: Any) -> tuple:
    """`shape` as a tuple of ints and Nones, refusing what Keras refuses (a float or string
    dimension such as 1e308 from a config, a negative one) with Keras's ValueError."""
    if shape is None:
        raise ValueError("Undefined shapes are not supported.")
    if not hasattr(shape, "__iter__"):
        raise ValueError(f"Cannot convert '{shape}' to a shape.")
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    standardized = []
    for d in shape:
        if d is None:
            standardized.append(None)
            continue
        if isinstance(d, (str, float)):
            raise ValueError(f"Cannot convert '{shape}' to a shape. Found invalid dimension "
                             f"'{d}' of type '{type(d)}'. ")
        try:
            d = int(d)
        except Exception as e:
            raise ValueError(f"Cannot convert '{shape}' to a shape. Found invalid dimension "
                             f"'{d}' of type '{type(d)}'. ") from e
        if d < 0:
            raise ValueError(f"Cannot convert '{shape}' to a shape. Negative dimensions are "
                             "not allowed.")
        standardized.append(d)
    return tuple(standardized)


def dynamic_shape(x: Any) -> tuple:
    """A tensor's shape as Keras's TF backend gives it (`keras.ops.shape`): ints where
    tracing knows them, scalar int32 tensors read as the graph runs where it does not."""
    dims = x.shape.as_list()
    if None not in dims:
        return tuple(dims)
    from tapeflow.ops import array_ops   # keras.backend loads before the ops it needs here
    run_time = array_ops.shape(x)
    return tuple(run_time[i] if d is None else d for i, d in enumerate(dims))


def standardize_data_format(data_format: Optional[str]) -> str:
    """A layer's `data_format` argument: `image_data_format()` for None, else
    'channels_last' or 'channels_first' (Keras's ValueError otherwise)."""
    return image_data_format() if data_format is None else _checked_data_format(data_format)


def _checked_data_format(data_format: Any) -> str:
    data_format = str(data_format).lower()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("The `data_format` argument must be one of {'channels_first', "
                         f"'channels_last'}}. Received: data_format={data_format}")
    return data_format


class name_scope:  # noqa: N801 - Keras's name
    """Pushes `name` onto the path that new variables get (`'sequential/dense/kernel'`).
    Re-entering the innermost scope of the same object adds nothing."""

    def __init__(self, name: str, caller: Any = None) -> None:
        self.name, self.caller, self._pushed = name, caller, False

    def __enter__(self) -> "name_scope":
        if not (_SCOPES and self.caller is not None and _SCOPES[-1][1] is self.caller):
            _SCOPES.append((self.name, self.caller))
            self._pushed = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._pushed:
            _SCOPES.pop()


def current_path() -> str:
    return "/".join(name for name, _ in _SCOPES)


# -- randomness ------------------------------------------------------------------------------
# As Keras 3 on TensorFlow: every draw is a stateless TensorFlow op on a seed pair. An int
# seed is the pair [seed, 0]; a SeedGenerator gives its state and moves it on; None takes the
# global generator's. Initializers and generators made without a seed take one from Python's
# `random` (`make_default_seed`), which `keras.utils.set_random_seed` seeds.

_GLOBAL_SEED_GENERATOR: list = [None]


def make_default_seed() -> int:
    """A seed for an initializer or generator made without one (Keras's, from Python's
    global `random`)."""
    return _python_random.randint(1, int(1e9))


class SeedGenerator:
    """A seed pair that moves on with every draw (`keras.random.SeedGenerator`): its state
    starts at [seed, 0] and is a non-trainable variable, so traced steps move it too."""

    def __init__(self, seed: Optional[int] = None, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        self.name = name if name is not None else auto_name(type(self).__name__)
        kwargs.pop("backend", None)   # Keras's custom backend: tapeflow has the one
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
        self._initial_seed = seed
        if seed is None:
            seed = make_default_seed()
        if not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        from tapeflow.framework.variables import Variable
        self.state = Variable(np.array([seed, 0], np.int64), trainable=False,
                              name="seed_generator_state")

    def next(self, ordered: bool = True) -> Any:
        """The current seed pair; the state moves to [seed, n + 1] (or, for the global
        generator, Keras's scramble of it)."""
        from tapeflow.ops import math_ops
        seed = math_ops.multiply(self.state.value(), np.int64(1))
        if ordered:
            self.state.assign_add(np.array([0, 1], np.int64))
        else:
            self.state.assign(math_ops.floormod((self.state.value() + 1) * 5387, 933199))
        return seed

    def get_config(self) -> dict:
        return {"seed": self._initial_seed}


def global_seed_generator() -> SeedGenerator:
    """The generator draws without a seed use (reset by `keras.utils.set_random_seed`)."""
    if _GLOBAL_SEED_GENERATOR[0] is None:
        _GLOBAL_SEED_GENERATOR[0] = SeedGenerator()
    return _GLOBAL_SEED_GENERATOR[0]


def draw_seed(seed: Any) -> Any:
    """The int32 seed pair a draw uses (Keras's draw_seed, then its cast for TensorFlow's
    stateless ops: each element modulo 2**31 - 2)."""
    from tapeflow.framework.tensor_conversion import convert_to_tensor
    from tapeflow.ops import math_ops
    if isinstance(seed, SeedGenerator):
        pair = seed.next()
    elif isinstance(seed, int) and not isinstance(seed, bool):
        pair = convert_to_tensor(np.array([seed, 0], np.int64))
    elif seed is None:
        pair = global_seed_generator().next(ordered=False)
    else:
        raise ValueError(f"Argument `seed` must be either an integer or an instance of "
                         f"`SeedGenerator`. Received: seed={seed} (of type {type(seed)})")
    return math_ops.cast(math_ops.floormod(pair, np.int64(2**31 - 2)), "int32")


def random_normal(shape: tuple, mean: float, stddev: float, dtype: Any, seed: Any) -> Any:
    from tapeflow import random as tf_random
    return tf_random.stateless_normal(shape, seed=draw_seed(seed), mean=mean, stddev=stddev,
                                      dtype=dtype)


def random_uniform(shape: tuple, minval: float, maxval: float, dtype: Any, seed: Any) -> Any:
    from tapeflow import random as tf_random
    return tf_random.stateless_uniform(shape, seed=draw_seed(seed), minval=minval,
                                       maxval=maxval, dtype=dtype)


def truncated_normal(shape: tuple, mean: float, stddev: float, dtype: Any, seed: Any) -> Any:
    from tapeflow import random as tf_random
    return tf_random.stateless_truncated_normal(shape, seed=draw_seed(seed), mean=mean,
                                                stddev=stddev, dtype=dtype)


def dropout(inputs: Any, rate: float, noise_shape: Any, seed: Any) -> Any:
    """Keras's dropout on TensorFlow: `tf.nn.experimental.stateless_dropout` on a drawn seed."""
    from tapeflow import nn as tf_nn
    from tapeflow.ops import math_ops
    if rate == 1.0:
        return math_ops.zeros_like(inputs)
    if rate == 0.0:
        return inputs
    return tf_nn.experimental.stateless_dropout(inputs, rate=rate, noise_shape=noise_shape,
                                                seed=draw_seed(seed))
