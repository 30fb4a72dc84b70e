"""Keras's global state: unique layer names, the name-scope stack that gives variables their
`path`, the default float type, and random numbers drawn through tapeflow's seeded ops."""

from __future__ import annotations

import collections
import re
from typing import Any, Optional

import numpy as np

_UIDS: collections.defaultdict = collections.defaultdict(int)
_SCOPES: list = []
_FLOATX = "float32"


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


def clear_session() -> None:
    """Resets the automatic names (`keras.backend.clear_session`)."""
    _UIDS.clear()
    _SCOPES.clear()


def floatx() -> str:
    """The default float dtype of layer weights: 'float32'."""
    return _FLOATX


def set_floatx(value: str) -> None:
    global _FLOATX
    _FLOATX = str(value)


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
# `seed` follows Keras 3: None draws from tapeflow's stateful random ops (so
# `tf.random.set_seed` makes a model reproducible); an int is a stateless draw (the same
# values every call, as Keras's seeded initializers); a `SeedGenerator` advances per draw.


class SeedGenerator:
    """A seeded stream of draws (Keras's `keras.random.SeedGenerator`)."""

    def __init__(self, seed: Optional[int] = None) -> None:
        self.rng = np.random.default_rng(seed)


def _generator(seed: Any) -> Optional[np.random.Generator]:
    if seed is None:
        return None
    if isinstance(seed, SeedGenerator):
        return seed.rng
    return np.random.default_rng(int(seed))


def random_normal(shape: tuple, mean: float, stddev: float, dtype: Any, seed: Any) -> Any:
    rng = _generator(seed)
    if rng is None:
        from tapeflow import random as tf_random
        return tf_random.normal(shape, mean=mean, stddev=stddev, dtype=dtype)
    return (rng.standard_normal(shape) * stddev + mean).astype(np.dtype(dtype))


def random_uniform(shape: tuple, minval: float, maxval: float, dtype: Any, seed: Any) -> Any:
    rng = _generator(seed)
    if rng is None:
        from tapeflow import random as tf_random
        return tf_random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype)
    return rng.uniform(minval, maxval, shape).astype(np.dtype(dtype))


def truncated_normal(shape: tuple, mean: float, stddev: float, dtype: Any, seed: Any) -> Any:
    rng = _generator(seed)
    if rng is None:
        from tapeflow import random as tf_random
        return tf_random.truncated_normal(shape, mean=mean, stddev=stddev, dtype=dtype)
    # Redraw the values beyond two standard deviations: what truncation means.
    values = rng.standard_normal(shape)
    bad = np.abs(values) > 2
    while bad.any():
        values = np.where(bad, rng.standard_normal(shape), values)
        bad = np.abs(values) > 2
    return (values * stddev + mean).astype(np.dtype(dtype))
