"""tapeflow's older weights format: a NumPy `.npz` archive (see `framework.npz_format`: no
pickle, atomic write), written under '*.weights.npz' (and, by older tapeflow versions, under
'*.weights.h5' names). `keras.saving` reads these files still; new '.weights.h5' files are
Keras's HDF5.

Layout: 'weights/<i>' holds the i-th entry of `model.weights` (the order Keras uses), and
'names/<i>' its variable name, for clear error messages.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from tapeflow.framework import npz_format as _format

_SUFFIXES = (".weights.h5", ".weights.npz")


def _check_name(filepath: str) -> str:
    filepath = os.fspath(filepath)
    if not filepath.endswith(_SUFFIXES):
        raise ValueError("The filename must end in `.weights.h5` (or `.weights.npz`). "
                         f"Received: filepath={filepath}")
    return filepath


def _weights(model: Any) -> list:
    weights = getattr(model, "weights", None)
    return list(weights if weights is not None else model.variables)


def save_weights(model: Any, filepath: str, overwrite: bool = True) -> None:
    """Writes `model.weights` to `filepath` (see the module docstring for the format)."""
    filepath = _check_name(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"File {filepath} already exists and overwrite=False.")
    arrays = {}
    for i, variable in enumerate(_weights(model)):
        arrays[f"weights/{i}"] = np.asarray(variable.numpy())
        arrays[f"names/{i}"] = np.array(str(getattr(variable, "path", None) or variable.name))
    _format.write_arrays(filepath, arrays)   # with the mode the umask gives


def load_weights(model: Any, filepath: str, skip_mismatch: bool = False) -> None:
    """Assigns the weights saved by `save_weights` to `model.weights`, in order, all or
    nothing: every shape is checked before the first variable is assigned."""
    filepath = _check_name(filepath)
    arrays = _format.read_arrays(filepath)
    saved = sorted(int(k.split("/")[1]) for k in arrays if k.startswith("weights/"))
    variables = _weights(model)
    if len(saved) != len(variables):
        raise ValueError(f"Weights file {filepath} holds {len(saved)} weights but the model "
                         f"has {len(variables)}: was it saved from a different model (or is the "
                         "model not built yet)?")
    matching = []
    for i, variable in zip(saved, variables):
        value = arrays[f"weights/{i}"]
        if tuple(value.shape) == tuple(variable.shape):
            matching.append((variable, value))
        elif not skip_mismatch:
            raise ValueError(f"Weight {i} ('{arrays.get(f'names/{i}', '?')}') has shape "
                             f"{value.shape} in {filepath}, but the model's "
                             f"'{variable.name}' has shape {tuple(variable.shape)}.")
    for variable, value in matching:
        variable.assign(value.astype(variable.dtype.as_numpy_dtype, copy=False))


__all__ = ["save_weights", "load_weights"]
