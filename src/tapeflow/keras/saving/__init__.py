"""`keras.saving`: Keras 3's files and configs.

- `model.save('m.keras')` / `load_model`: Keras 3's zip (`archive`), read and written both ways,
  adapted lookup vocabularies in its 'assets/' (`assets`, extracted with every member checked).
- `save_weights('w.weights.h5')` / `load_weights`: Keras's HDF5 layout (`weights`, via h5py,
  imported only when a file is read or written); `load_weights('w.h5')` reads Keras 2's
  HDF5 weights (`legacy_h5`), as `keras.applications`' ImageNet files are. tapeflow's older
  npz weights (`.weights.npz`, or npz written under a `.weights.h5` name) stay readable.
- `model.save('m.h5')` / `load_model('m.h5')`: Keras's legacy HDF5 model file (`legacy_h5`).
- `KerasFileEditor`: inspects and edits a `.keras` / `.weights.h5` file's weights
  (`file_editor`).
- `serialize_keras_object` / `deserialize_keras_object` and the custom-object registry
  (`serialization`).
"""

from __future__ import annotations

import os
from typing import Any, Optional

from tapeflow.keras.saving import _legacy
from tapeflow.keras.saving import legacy_h5 as _legacy_h5
from tapeflow.keras.saving import archive as _archive
from tapeflow.keras.saving.archive import load_model, save_model
from tapeflow.keras.saving.file_editor import KerasFileEditor
from tapeflow.keras.saving.serialization import (
    CustomObjectScope, custom_object_scope, deserialize_keras_object, get_custom_objects,
    get_registered_name, get_registered_object, register_keras_serializable,
    serialize_keras_object)
from tapeflow.keras.saving import weights as _weights


def save_weights(model: Any, filepath: Any, overwrite: bool = True,
                 max_shard_size: Optional[float] = None, **kwargs: Any) -> None:
    """Writes the weights of `model` (and its optimizer) to '*.weights.h5', Keras's HDF5
    layout, atomically ('*.weights.npz' writes tapeflow's older npz format). With
    `max_shard_size` (GiB), Keras's sharded files: the index '*.weights.json' and shards of
    at most that size beside it (see `weights.write_sharded`)."""
    filepath = os.fspath(filepath)
    if filepath.endswith(".weights.npz") and max_shard_size is None:
        return _legacy.save_weights(model, filepath, overwrite=overwrite)
    if max_shard_size is None and not filepath.endswith(".weights.h5"):
        raise ValueError(f"The filename must end in `.weights.h5`. Received: "
                         f"filepath={filepath}")
    if max_shard_size is not None and not filepath.endswith(("weights.h5", "weights.json")):
        raise ValueError("The filename must end in `.weights.json` when `max_shard_size` is "
                         f"specified. Received: filepath={filepath}")
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"File {filepath} already exists and overwrite=False.")
    if not getattr(model, "built", True):
        raise ValueError("You are saving a model that has not yet been built. Try building "
                         "the model first by calling it on some data or by using `build()`.")
    if max_shard_size is not None:
        return _weights.write_sharded(model, filepath, max_shard_size)
    _weights.atomic_write(filepath, lambda f: _weights.write_h5(model, f))


def load_weights(model: Any, filepath: Any, skip_mismatch: bool = False, **kwargs: Any) -> None:
    """Loads weights saved by `save_weights` (tapeflow's or Keras's, '.weights.h5' or a
    '.keras' file), Keras 2's HDF5 weights ('.h5', '.hdf5': in order, or `by_name=True`), or
    tapeflow's older npz weights."""
    filepath = os.fspath(filepath)
    by_name = kwargs.pop("by_name", None)
    if kwargs:
        raise ValueError(f"Invalid keyword arguments: {kwargs}")
    legacy = filepath.endswith((".h5", ".hdf5")) and not filepath.endswith(".weights.h5")
    if by_name is not None and not legacy:
        raise ValueError("`by_name` only supports loading legacy '.h5' or '.hdf5' files. "
                         f"Received: {filepath}")
    if filepath.endswith(".keras"):
        return _archive.load_weights(model, filepath, skip_mismatch=skip_mismatch)
    if legacy:
        return _legacy_h5.load_weights(model, filepath, skip_mismatch=skip_mismatch,
                                       by_name=bool(by_name))
    if not filepath.endswith((".weights.h5", ".weights.npz", ".weights.json")):
        raise ValueError(f"File format not supported: filepath={filepath}. Keras 3 only "
                         "supports V3 `.keras` and `.weights.h5` files, or legacy V1/V2 `.h5` "
                         "files.")
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"No such file or directory: '{filepath}'")
    if not getattr(model, "built", True):
        raise ValueError("You are loading weights into a model that has not yet been built. "
                         "Try building the model first by calling it on some data or by "
                         "using `build()`.")
    if filepath.endswith(".weights.json"):
        return _weights.read_sharded(model, filepath, skip_mismatch=skip_mismatch)
    if _weights.file_kind(filepath) == "zip":
        return _legacy.load_weights(model, filepath, skip_mismatch=skip_mismatch)
    # Anything else is opened as HDF5, as Keras does: h5py's OSError for a damaged signature.
    return _weights.read_h5(model, filepath, skip_mismatch=skip_mismatch)


__all__ = ["KerasFileEditor", "save_model", "load_model", "save_weights", "load_weights",
           "serialize_keras_object", "deserialize_keras_object", "register_keras_serializable",
           "get_registered_name", "get_registered_object", "get_custom_objects",
           "CustomObjectScope", "custom_object_scope"]
