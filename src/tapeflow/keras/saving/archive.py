"""Keras 3's `.keras` file: a zip of 'metadata.json', 'config.json' (the model's
`serialize_keras_object` config), 'model.weights.h5' (see `weights`) and, for objects that
keep files (an adapted lookup's vocabulary), 'assets/<inner path>/...' (see `assets`).
Loading reads the config with tapeflow's classes (no code runs from the file), then the
weights, then the assets; with `compile=True` the optimizer is rebuilt and its slots
restored, so training continues."""

from __future__ import annotations

import datetime
import io
import json
import os
import zipfile
from typing import Any, Mapping, Optional

from tapeflow.keras.saving import assets, legacy_h5, serialization, weights

CONFIG, METADATA, WEIGHTS = "config.json", "metadata.json", "model.weights.h5"
KERAS_VERSION = "3.15.1"  # the Keras release whose format tapeflow writes
# A config (JSON) larger than this is refused before it is inflated: a small zip can declare
# gigabytes of JSON, whose parse would cost many times that in Python objects.
_MAX_CONFIG = 1 << 28


def save_model(model: Any, filepath: Any, overwrite: bool = True, zipped: Optional[bool] = None,
               **kwargs: Any) -> None:
    """Writes `model` as Keras's `saving.save_model`: a '*.keras' zip (atomically); with
    `zipped=False`, Keras's unzipped directory at `filepath` ('config.json',
    'metadata.json', 'model.weights.h5'); a '.h5' or '.hdf5' path, the legacy HDF5 file."""
    include_optimizer = kwargs.pop("include_optimizer", True)
    save_format = kwargs.pop("save_format", False)
    filepath = os.fspath(filepath)
    if save_format and not filepath.endswith((".h5", ".hdf5", ".keras")):
        raise ValueError("The `save_format` argument is deprecated in Keras 3. Please remove "
                         "this argument and pass a file path with either `.keras` or `.h5` "
                         f"extension.Received: save_format={save_format}")
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {list(kwargs.keys())}")
    zipped = True if zipped is None else zipped
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"File {filepath} already exists and overwrite=False.")
    if zipped and filepath.endswith(".keras"):
        return _save_zip(model, filepath)
    if not zipped:
        return _save_directory(model, filepath)
    if legacy_h5.is_legacy_h5_path(filepath):
        return legacy_h5.save_model(model, filepath, overwrite=overwrite,
                                    include_optimizer=include_optimizer)
    raise ValueError("Invalid filepath extension for saving. Please add either a `.keras` "
                     "extension for the native Keras format (recommended) or a `.h5` "
                     "extension. Use `model.export(filepath)` if you want to export a "
                     f"SavedModel for use with TFLite/TFServing/etc. Received: "
                     f"filepath={filepath}.")


def _config_and_metadata(model: Any) -> tuple:
    config = json.dumps(serialization.serialize_keras_object(model))
    metadata = json.dumps({"keras_version": KERAS_VERSION, "date_saved":
                           datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")})
    return config, metadata


def _save_zip(model: Any, filepath: str) -> None:
    config, metadata = _config_and_metadata(model)
    h5 = weights.h5_bytes(model)

    def write(f: Any) -> None:
        with zipfile.ZipFile(f, "w") as z:
            z.writestr(METADATA, metadata)
            z.writestr(CONFIG, config)
            z.writestr(WEIGHTS, h5)
            assets.write_to_zip(model, z)
    weights.atomic_write(filepath, write)


def _save_directory(model: Any, dirpath: str) -> None:
    """Keras's `zipped=False` layout: the archive's three members as files of `dirpath`
    (made if absent; each written atomically). Keras refuses a '.keras' name for it."""
    if dirpath.endswith(".keras"):
        raise ValueError("When using `zipped=False`, the `filepath` argument should not end "
                         f"in `.keras`. Received: filepath={dirpath}")
    config, metadata = _config_and_metadata(model)
    os.makedirs(dirpath, exist_ok=True)
    for name, data in ((METADATA, metadata.encode()), (CONFIG, config.encode())):
        weights.atomic_write(os.path.join(dirpath, name), lambda f, data=data: f.write(data))
    weights.atomic_write(os.path.join(dirpath, WEIGHTS), lambda f: weights.write_h5(model, f))
    assets.write_to_directory(model, dirpath)


def _member(archive: zipfile.ZipFile, name: str) -> zipfile.ZipInfo:
    try:
        return archive.getinfo(name)
    except KeyError:
        raise ValueError(f"The file is not a Keras model archive: it has no '{name}'.") \
            from None


def _read_config(archive: zipfile.ZipFile) -> Any:
    """The archive's config.json, parsed; ValueError for one declaring more than _MAX_CONFIG
    bytes (zipfile stops at the declared size, so the bound holds for the bytes read too)."""
    info = _member(archive, CONFIG)
    if info.file_size > _MAX_CONFIG:
        raise ValueError(f"Refusing to read '{CONFIG}': it declares {info.file_size} bytes, "
                         f"more than the {_MAX_CONFIG} a model config may have.")
    return json.loads(archive.read(info))


def load_model(filepath: Any, custom_objects: Optional[Mapping] = None, compile: bool = True,
               safe_mode: bool = True) -> Any:
    """The model saved in a `.keras` file (by tapeflow or by Keras 3)."""
    filepath = os.fspath(filepath)
    if os.path.isdir(filepath) and os.path.exists(os.path.join(filepath, CONFIG)):
        return _load_directory(filepath, custom_objects, compile, safe_mode)
    if not os.path.exists(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an "
                         "accessible `.keras` zip file.")
    if legacy_h5.is_legacy_h5_path(filepath):
        return legacy_h5.load_model(filepath, custom_objects, compile=compile,
                                    safe_mode=safe_mode)
    if not filepath.endswith(".keras") or not zipfile.is_zipfile(filepath):
        raise ValueError(f"File format not supported: filepath={filepath}. Keras 3 only "
                         "supports V3 `.keras` files and legacy H5 format files (`.h5` "
                         "extension).")
    with zipfile.ZipFile(filepath) as archive:
        config = _read_config(archive)
        weights_member = _member(archive, WEIGHTS)
        model = _model_from_config(config, custom_objects, compile, safe_mode)
        # Read in place, as Keras: memory follows the datasets read (each checked against the
        # model first), never the size the member declares.
        with archive.open(weights_member) as h5:
            weights.read_h5(model, h5)
        assets.load_from_zip(model, archive)
    return model


def _model_from_config(config: Any, custom_objects: Optional[Mapping], compile: bool,
                       safe_mode: bool) -> Any:
    """The model of a parsed config.json, its optimizer built (slots made) to take the
    weights file's values."""
    if not compile:
        config.pop("compile_config", None)
    with serialization._safe_mode(safe_mode), serialization.CustomObjectScope(custom_objects):
        model = serialization.deserialize_keras_object(config, custom_objects,
                                                        safe_mode=safe_mode)
    optimizer = getattr(model, "optimizer", None) if compile else None
    if optimizer is not None and not optimizer.built and model.built:
        optimizer.build(model.trainable_variables)
    return model


def _load_directory(dirpath: str, custom_objects: Optional[Mapping], compile: bool,
                    safe_mode: bool) -> Any:
    """The model of Keras's unzipped layout (`save_model(..., zipped=False)`)."""
    config_path = os.path.join(dirpath, CONFIG)
    if os.path.getsize(config_path) > _MAX_CONFIG:
        raise ValueError(f"Refusing to read '{CONFIG}': it is larger than the {_MAX_CONFIG} "
                         "bytes a model config may have.")
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)
    model = _model_from_config(config, custom_objects, compile, safe_mode)
    weights_path = os.path.join(dirpath, WEIGHTS)
    if not os.path.isfile(weights_path):
        if os.path.exists(os.path.join(dirpath, "model.weights.npz")):
            raise ValueError("tapeflow reads an unzipped model's weights from "
                             f"'{WEIGHTS}' only; this one has Keras's npz weights "
                             "('model.weights.npz').")
        raise ValueError(f"Expected a {WEIGHTS} or model.weights.npz file.")
    weights.read_h5(model, weights_path)
    assets.load_from_directory(model, dirpath)
    return model


def load_weights(model: Any, filepath: str, skip_mismatch: bool = False) -> None:
    """Loads the weights of the `.keras` file `filepath` into `model`, read in place."""
    with zipfile.ZipFile(filepath) as archive, archive.open(_member(archive, WEIGHTS)) as h5:
        weights.read_h5(model, h5, skip_mismatch=skip_mismatch)


def to_bytes(obj: Any) -> bytes:
    """A `.keras` archive of `obj` (a model or a layer) in memory: what pickling stores."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(METADATA, json.dumps({"keras_version": KERAS_VERSION}))
        z.writestr(CONFIG, json.dumps(serialization.serialize_keras_object(obj)))
        z.writestr(WEIGHTS, weights.h5_bytes(obj))
        assets.write_to_zip(obj, z)
    return buffer.getvalue()


def unpickle(data: bytes) -> Any:
    """The object `to_bytes` stored (compiled, with `safe_mode=False`: unpickling runs code
    in any case, as Keras says)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        config = _read_config(archive)
        h5 = archive.read(_member(archive, WEIGHTS))
        with serialization._safe_mode(False):
            obj = serialization.deserialize_keras_object(config, safe_mode=False)
        optimizer = getattr(obj, "optimizer", None)
        if optimizer is not None and not optimizer.built and obj.built:
            optimizer.build(obj.trainable_variables)
        weights.read_h5(obj, io.BytesIO(h5))
        assets.load_from_zip(obj, archive)
    return obj


__all__ = ["save_model", "load_model", "load_weights", "to_bytes", "unpickle"]
