"""Keras's global state: unique layer names, the name-scope stack that gives variables their
`path`, the default float type, and random numbers drawn through tapeflow's seeded ops."""

from __future__ import annotations

import collections
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

def _random():
    """tapeflow.random when present (so `tf.random.set_seed` makes models reproducible)."""
    try:
        from tapeflow import random as tf_random
        return tf_random
    except ImportError:  # the random ops are not built yet
        return None


_FALLBACK = np.random.default_rng()


def random_normal(shape: tuple, mean: float, stddev: float, dtype: Any,
                  seed: Optional[int]) -> Any:
    tf_random = _random()
    if tf_random is not None:
        return tf_random.normal(shape, mean=mean, stddev=stddev, dtype=dtype, seed=seed)
    rng = np.random.default_rng(seed) if seed is not None else _FALLBACK
    return (rng.standard_normal(shape) * stddev + mean).astype(np.dtype(dtype))


def random_uniform(shape: tuple, minval: float, maxval: float, dtype: Any,
                   seed: Optional[int]) -> Any:
    tf_random = _random()
    if tf_random is not None:
        return tf_random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype, seed=seed)
    rng = np.random.default_rng(seed) if seed is not None else _FALLBACK
    return rng.uniform(minval, maxval, shape).astype(np.dtype(dtype))


def truncated_normal(shape: tuple, mean: float, stddev: float, dtype: Any,
                     seed: Optional[int]) -> Any:
    tf_random = _random()
    if tf_random is not None and hasattr(tf_random, "truncated_normal"):
        return tf_random.truncated_normal(shape, mean=mean, stddev=stddev, dtype=dtype,
                                          seed=seed)
    # Redraw the values beyond two standard deviations, which is what truncation means.
    values = np.asarray(random_normal(shape, 0.0, 1.0, "float64", seed))
    rng = np.random.default_rng(seed) if seed is not None else _FALLBACK
    bad = np.abs(values) > 2
    while bad.any():
        values = np.where(bad, rng.standard_normal(values.shape), values)
        bad = np.abs(values) > 2
    return (values * stddev + mean).astype(np.dtype(dtype))


def dropout_mask(shape: tuple, rate: float, dtype: Any, seed: Optional[int]) -> Any:
    """Keep-mask scaled by 1/(1-rate), drawn with tapeflow's random ops."""
    keep = np.asarray(random_uniform(shape, 0.0, 1.0, dtype, seed)) >= rate
    return (keep / (1.0 - rate)).astype(np.dtype(dtype))
