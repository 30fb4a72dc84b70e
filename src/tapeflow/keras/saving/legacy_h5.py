"""Keras's legacy HDF5 model file (`model.save('m.h5')`, `load_model('m.h5')`), as Keras 3
writes and reads it (`keras.src.legacy.saving.legacy_h5_format`):

- file attributes 'model_config' (JSON: `{"class_name", "config"}`, its layers in the legacy
  form, without 'module' and 'registered_name'), 'training_config' (the compile arguments
  and 'optimizer_config', when compiled), 'keras_version', 'backend';
- group 'model_weights': attribute 'layer_names'; one group per layer with attribute
  'weight_names' and a dataset per weight, at its path; 'top_level_model_weights';
- group 'optimizer_weights' (attribute 'weight_names'), when compiled.

Loading matches weights to layers by order, as Keras does (the layers that have weights,
against the saved layers that list weight names), and checks every count and dataset (the
checks of `weights._checked_dataset`: no links out, no bombs, numbers only, the model's
shapes) before assigning anything.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Mapping, Optional

import numpy as np

from tapeflow.keras.saving import serialization, weights

KERAS_VERSION = "3.15.1"  # the Keras release whose layout this writes
_LEGACY_LAYER_KEYS = ("class_name", "config", "name", "inbound_nodes")
_MAX_CONFIG = 1 << 28  # bytes of JSON a config attribute may hold (as `.keras` files)


def is_legacy_h5_path(filepath: str) -> bool:
    """Whether Keras 3 saves/loads `filepath` in the legacy HDF5 format ('.h5', '.hdf5')."""
    return filepath.endswith((".h5", ".hdf5"))


# -- saving -----------------------------------------------------------------------------------

def save_model(model: Any, filepath: str, overwrite: bool = True,
               include_optimizer: bool = True) -> None:
    """Writes `model` to `filepath` in Keras's legacy HDF5 layout, atomically."""
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"File {filepath} already exists and overwrite=False.")
    model_config = json.dumps({"class_name": type(model).__name__,
                               "config": _legacy_model_config(model.get_config())})
    training_config = _training_config(model) if include_optimizer else None

    def write(target: Any) -> None:
        with weights._h5py().File(target, "w") as f:
            f.attrs["keras_version"] = KERAS_VERSION
            f.attrs["backend"] = "tensorflow"
            f.attrs["model_config"] = model_config
            if training_config is not None:
                f.attrs["training_config"] = json.dumps(training_config)
            _write_model_weights(f.create_group("model_weights"), model)
            if training_config is not None:
                _write_named(f, "optimizer_weights", _optimizer_weights(model.optimizer))
    dirname = os.path.dirname(filepath)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    weights.atomic_write(filepath, write)


def _legacy_model_config(config: dict) -> dict:
    """A model's config with its layers in the legacy form (Keras's legacy scope)."""
    config = dict(config)
    if isinstance(config.get("layers"), list):
        config["layers"] = [{k: layer[k] for k in _LEGACY_LAYER_KEYS if k in layer}
                            for layer in config["layers"]]
    return config


def _training_config(model: Any) -> Optional[dict]:
    """The compile arguments without the optimizer, plus 'optimizer_config' (Keras's
    `model_metadata`); None for a model that is not compiled."""
    compile_config = model.get_compile_config() if getattr(model, "compiled", False) else None
    if compile_config is None or model.optimizer is None:
        return None
    optimizer = compile_config.pop("optimizer")
    compile_config["optimizer_config"] = {"class_name": optimizer["class_name"],
                                          "config": optimizer["config"]}
    return compile_config


def _layer_weights(layer: Any) -> list:
    """Keras's `_legacy_weights`: trainable, then non-trainable."""
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _write_model_weights(group: Any, model: Any) -> None:
    group.attrs["layer_names"] = np.array([layer.name.encode("utf8") for layer in model.layers])
    group.attrs["backend"] = "tensorflow"
    group.attrs["keras_version"] = KERAS_VERSION
    for layer in sorted(model.layers, key=lambda layer: layer.name):
        _write_named(group, layer.name, [(v.path, v) for v in _layer_weights(layer)])
    own = [v for v in model._trainable_variables + model._non_trainable_variables]
    _write_named(group, "top_level_model_weights", [(v.path, v) for v in own])


def _optimizer_weights(optimizer: Any) -> list:
    """(Keras's name, variable) of each optimizer variable: '<optimizer>/<variable>'."""
    return [(f"{optimizer.name}/{v.name.split(':')[0]}", v) for v in optimizer.variables]


def _write_named(parent: Any, name: str, named: list) -> None:
    group = parent.create_group(name)
    group.attrs["weight_names"] = np.array([n.encode("utf8") for n, _ in named]) if named \
        else np.array([], dtype=np.float64)   # Keras's empty attribute
    for path, variable in named:
        group.create_dataset(path, data=np.asarray(variable.numpy()))


# -- loading ----------------------------------------------------------------------------------

def load_model(filepath: str, custom_objects: Optional[Mapping] = None, compile: bool = True,
               safe_mode: bool = True) -> Any:
    """The model in a legacy HDF5 file (written by tapeflow or by Keras): built from its
    config with tapeflow's classes (no code from the file runs), its weights loaded, and
    compiled with its optimizer state where the file has a training config.

    A file HDF5 cannot open or read raises h5py's OSError; a config the deserializer cannot
    build, its TypeError (as Keras); any other damage, ValueError."""
    try:
        return _load(filepath, custom_objects, compile, safe_mode)
    except (KeyError, RuntimeError) as error:  # h5py's words for damaged metadata
        raise ValueError(f"Invalid H5 file {filepath}: {error}") from error


def _load(filepath: str, custom_objects: Optional[Mapping], compile: bool,
          safe_mode: bool) -> Any:
    with weights._h5py().File(filepath, "r") as f:
        config = _json_attribute(f, "model_config")
        if config is None:
            raise ValueError(f"No model config found in the file at {filepath}.")
        with serialization._safe_mode(safe_mode), \
                serialization.CustomObjectScope(custom_objects):
            model = serialization.deserialize_keras_object(config, custom_objects,
                                                            safe_mode=safe_mode)
            plan = _plan_model_weights(_group(f, "model_weights"), model)
            training_config = _json_attribute(f, "training_config") if compile else None
            if training_config is not None:
                _compile(model, training_config)
            optimizer_plan = _plan_optimizer(f, model) if training_config is not None else []
        values = [(variable, weights._read(dataset)) for variable, dataset in
                  plan + optimizer_plan]
    for variable, value in values:
        variable.assign(value.astype(variable.dtype.as_numpy_dtype, copy=False))
    return model


def _json_attribute(f: Any, name: str) -> Any:
    value = f.attrs.get(name)
    if value is None:
        return None
    if isinstance(value, np.ndarray) or not isinstance(value, (str, bytes)):
        raise ValueError(f"Invalid H5 file: attribute '{name}' is not a JSON string.")
    if len(value) > _MAX_CONFIG:
        raise ValueError(f"Refusing to read '{name}': it holds {len(value)} bytes, more than "
                         f"the {_MAX_CONFIG} a model config may have.")
    return json.loads(value)


def _group(parent: Any, name: str) -> Any:
    group = weights._link(parent, name)
    if group is None or not isinstance(group, weights._h5py().Group):
        raise ValueError(f"Invalid H5 file: expected a group '{name}'.")
    return group


def _names(group: Any, attribute: str) -> list:
    """A list attribute (Keras's `load_attributes_from_hdf5_group`): whole, or in Keras's
    numbered chunks ('layer_names0', 'layer_names1', ...) when it was too large for one."""
    if attribute in group.attrs:
        chunks = [group.attrs[attribute]]
    else:
        chunks, index = [], 0
        while f"{attribute}{index}" in group.attrs:
            chunks.append(group.attrs[f"{attribute}{index}"])
            index += 1
    return [n.decode("utf8") if isinstance(n, bytes) else str(n)
            for chunk in chunks for n in np.asarray(chunk).reshape(-1)
            if not isinstance(n, float)]   # Keras writes an empty list as an empty float array


def load_weights(model: Any, filepath: str, skip_mismatch: bool = False,
                 by_name: bool = False) -> None:
    """`model.load_weights('w.h5')`: the weights of a legacy HDF5 file (a whole model's, or
    the weights-only files of `keras.applications`), matched to the model's layers in order
    or, with `by_name`, by layer name; all or nothing, every dataset checked first."""
    with weights._h5py().File(filepath, "r") as f:
        root = f
        if "layer_names" not in f.attrs and weights._link(f, "model_weights") is not None:
            root = _group(f, "model_weights")
        pairs = (_pairs_by_name(root, model, skip_mismatch) if by_name
                 else _plan_model_weights(root, model, skip_mismatch))
        values = [(variable, weights._read(dataset)) for variable, dataset in pairs]
    for variable, value in values:
        variable.assign(value.astype(variable.dtype.as_numpy_dtype, copy=False))


def _saved_datasets(group: Any) -> list:
    """(path, dataset) for each name in a layer group's `weight_names`, checked from its
    metadata alone: no link on its path, no external or virtual storage, a bounded size, a
    number dtype. The shapes are compared with the model's by `_matched`."""
    datasets = []
    for path in _names(group, "weight_names"):
        *parents, name = path.split("/")
        if not name or "" in parents:
            raise ValueError(f"Invalid H5 file: weight name '{path}' is not a relative path.")
        parent = weights._group(group, "/".join(parents)) if parents else group
        dataset = None if parent is None else weights._link(parent, name)
        if not isinstance(dataset, weights._h5py().Dataset):
            raise ValueError(f"Invalid H5 file: no weight '{path}'.")
        if dataset.external or dataset.is_virtual:
            raise weights._Refused(f"Not allowed: H5 file with external or virtual Dataset: "
                                   f"{path}")
        weights._check_declared_size(dataset, path)
        weights._check_dtype(dataset.dtype, path)
        datasets.append(dataset)
    return datasets


def _matched(variables: list, datasets: list, where: str, skip_mismatch: bool) -> list:
    """(variable, dataset) pairs whose shapes agree; another shape raises Keras's
    ValueError or, with `skip_mismatch`, warns and leaves that variable as it is."""
    pairs = []
    for variable, dataset in zip(variables, datasets):
        if tuple(variable.shape) == tuple(dataset.shape):
            pairs.append((variable, dataset))
            continue
        text = (f"{where} for weight {variable.path}. Weight expects shape "
                f"{tuple(variable.shape)}. Received saved weight with shape "
                f"{tuple(dataset.shape)}")
        if not skip_mismatch:
            raise ValueError(f"Shape mismatch in {text}")
        warnings.warn(f"Skipping loading weights for {text}", stacklevel=4)
    return pairs


def _plan_model_weights(group: Any, model: Any, skip_mismatch: bool = False) -> list:
    """(variable, checked dataset) for every weight, Keras's order-based matching: the k-th
    saved layer that lists weights into the k-th layer of the model that has weights."""
    layers = [layer for layer in model.layers if _layer_weights(layer)]
    saved = [(name, _saved_datasets(_group(group, name)))
             for name in _names(group, "layer_names")]
    saved = [(name, datasets) for name, datasets in saved if datasets]
    if len(saved) != len(layers):
        raise ValueError(f"Layer count mismatch when loading weights from file. Model "
                         f"expected {len(layers)} layers, found {len(saved)} saved layers.")
    plan = []
    for k, ((name, datasets), layer) in enumerate(zip(saved, layers)):
        variables = _layer_weights(layer)
        if len(datasets) != len(variables):
            raise ValueError(f"Weight count mismatch for layer #{k} (named {layer.name} in the "
                             f"current model, {name} in the save file). Layer expects "
                             f"{len(variables)} weight(s). Received {len(datasets)} saved "
                             "weight(s)")
        plan += _matched(variables, datasets, f"layer #{k} (named {layer.name})",
                         skip_mismatch)
    return plan + _top_level_pairs(group, model, skip_mismatch)


def _pairs_by_name(group: Any, model: Any, skip_mismatch: bool) -> list:
    """Keras's loading by name: each saved layer into the model's layers of that name."""
    by_name: dict = {}
    for layer in model.layers:
        by_name.setdefault(layer.name, []).append(layer)
    plan = []
    for k, name in enumerate(_names(group, "layer_names")):
        datasets = _saved_datasets(_group(group, name))
        for layer in by_name.get(name, []):
            variables = _layer_weights(layer)
            if len(datasets) != len(variables):
                text = (f"layer #{k} (named {layer.name}). Layer expects {len(variables)} "
                        f"weight(s). Received {len(datasets)} saved weight(s)")
                if not skip_mismatch:
                    raise ValueError(f"Weight count mismatch for {text}")
                warnings.warn(f"Skipping loading of weights for {text}", stacklevel=4)
                continue
            plan += _matched(variables, datasets, f"layer #{k} (named {layer.name})",
                             skip_mismatch)
    return plan + _top_level_pairs(group, model, skip_mismatch)


def _top_level_pairs(group: Any, model: Any, skip_mismatch: bool) -> list:
    """The model's own variables (not its layers'), saved as 'top_level_model_weights'."""
    if weights._link(group, "top_level_model_weights") is None:
        return []
    variables = list(model._trainable_variables) + list(model._non_trainable_variables)
    datasets = _saved_datasets(_group(group, "top_level_model_weights"))
    if len(datasets) != len(variables):
        text = (f"Model expects {len(variables)} top-level weight(s). Received "
                f"{len(datasets)} saved top-level weight(s)")
        if not skip_mismatch:
            raise ValueError(f"Weight count mismatch for top-level weights of model. {text}")
        warnings.warn("Skipping loading top-level weights for model due to mismatch in "
                      f"number of weights. {text}", stacklevel=4)
        return []
    return _matched(variables, datasets, "top-level model", skip_mismatch)


def _dataset(group: Any, path: str, variable: Any) -> Any:
    """The checked dataset at the relative `path` ('seq/dense/kernel') under `group`, link
    by link (no soft or external link followed, no path out of the group)."""
    *parents, name = path.split("/")
    if not name or "" in parents:
        raise ValueError(f"Invalid H5 file: weight name '{path}' is not a relative path.")
    parent = weights._group(group, "/".join(parents)) if parents else group
    if parent is None:
        raise ValueError(f"Invalid H5 file: no weight '{path}'.")
    try:
        return weights._checked_dataset(parent, name, variable)
    except KeyError:
        raise ValueError(f"Invalid H5 file: no weight '{path}'.") from None


def _compile(model: Any, training_config: dict) -> None:
    """Compiles as the training config says (Keras's `compile_args_from_training_config`)."""
    config = dict(training_config)
    optimizer = serialization.deserialize_keras_object(config.pop("optimizer_config"))
    args = {k: config.get(k) for k in ("loss", "metrics", "weighted_metrics", "loss_weights")}
    model.compile(optimizer=optimizer, **{k: v for k, v in args.items() if v is not None})
    if model.optimizer is not None and not model.optimizer.built:
        model.optimizer.build(model.trainable_variables)


def _plan_optimizer(f: Any, model: Any) -> list:
    """(variable, checked dataset) of the optimizer state; none (with Keras's warning) where
    the saved state does not fit the optimizer."""
    if "optimizer_weights" not in f:
        return []
    group = _group(f, "optimizer_weights")
    names, variables = _names(group, "weight_names"), list(model.optimizer.variables)
    try:
        if len(names) != len(variables):
            raise ValueError("count")
        return [(v, _dataset(group, n, v)) for n, v in zip(names, variables)]
    except weights._Refused:
        raise
    except ValueError:
        warnings.warn("Error in loading the saved optimizer state. As a result, your model is "
                      "starting with a freshly initialized optimizer.", stacklevel=3)
        return []


__all__ = ["save_model", "load_model", "is_legacy_h5_path"]
