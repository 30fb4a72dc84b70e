"""Keras 3's weights files (`*.weights.h5`, and `model.weights.h5` inside a `.keras` zip):
HDF5 through h5py, laid out as Keras's `saving_lib` walks the object tree.

Each layer (and the optimizer) stores its own variables as datasets '0', '1', ... of a group
'<path>/vars' whose attribute 'name' is the object's name; the model's own is '/vars'. The
path of a child is the attribute that holds it ('optimizer', 'hidden') or, inside a list,
the snake_case class name made unique in that list ('layers/dense', 'layers/dense_1'), with
Sequential and Functional models listing 'layers' first, exactly as Keras, so files pass both
ways. An object with Keras's `save_own_variables`/`load_own_variables` (the lookup layers'
'idf_weights') stores named arrays instead (`stored_arrays`, `_plan_own_store`). h5py is
imported only here, when a file is read or written.

Reading trusts nothing in the file (see `read_h5`): it walks only the model's own paths,
refuses what Keras 3.15 refuses (soft and external links, external and virtual datasets,
shape bombs) with Keras's texts, and chunks larger than their dataset; checks every count,
shape and dtype against the model before reading a byte of data; reads only the datasets
Keras reads; and assigns all or nothing.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import warnings
from typing import Any, Iterator, Optional

import numpy as np

from tapeflow.keras.backend import to_snake_case
from tapeflow.framework.npz_format import atomic_write

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def _h5py() -> Any:
    try:
        import h5py
    except ImportError as e:  # pragma: no cover - h5py is a dependency
        raise ImportError("h5py must be installed in order to save or load Keras weights "
                          "files (`pip install h5py`).") from e
    return h5py


# -- the object tree ----------------------------------------------------------------------------

def _kind(obj: Any) -> Optional[str]:
    from tapeflow.keras.layers.layer import Layer, Operation
    from tapeflow.keras.models import Functional, Sequential
    from tapeflow.keras.optimizers.optimizer import Optimizer
    if isinstance(obj, Operation):
        return None
    if isinstance(obj, Sequential):
        return "Sequential"
    if isinstance(obj, Functional):
        return "Functional"
    if isinstance(obj, Layer):
        return "Model" if _is_model(obj) else "Layer"
    if isinstance(obj, Optimizer):
        return "Optimizer"
    return None


def _is_model(obj: Any) -> bool:
    from tapeflow.keras.models import Model
    return isinstance(obj, Model)


_SKIP: dict = {}
# tapeflow's own instance attributes that hold layers (Keras's skip set holds its own).
_INTERNAL = {"_layers", "_summary_layers", "_nodes", "_inbound_nodes", "_tracked", "inputs",
             "outputs", "_inputs_struct", "_outputs_struct"}


def _skipset(kind: str) -> set:
    """The attributes Keras does not walk: those every tapeflow Layer (or model) has."""
    if kind not in _SKIP:
        from tapeflow.keras.layers.layer import Layer
        from tapeflow.keras.models import Functional, Model, Sequential
        from tapeflow.keras.optimizers.optimizer import Optimizer
        if kind == "Optimizer":
            skip = set(dir(Optimizer)) - {"variables"}
        elif kind == "Layer":
            skip = set(dir(Layer))
        else:  # models walk 'layers' and 'optimizer', as Keras's Model does
            skip = (set(dir(Layer)) | set(dir(Model)) | set(dir(Functional)) |
                    set(dir(Sequential))) - {"layers", "optimizer"}
        _SKIP[kind] = skip | _INTERNAL | {"_self_unconditional_dependency_names"}
    return _SKIP[kind]


def _name_key(name: str) -> str:
    return f"~{name}" if name.startswith("_") else name  # private attributes last, as Keras


def _children(obj: Any, kind: str) -> Iterator[tuple]:
    """(attribute, value) pairs in Keras's `_walk_saveable` order."""
    if kind in ("Sequential", "Functional"):
        yield "layers", obj.layers
    if kind == "Optimizer":
        return  # tapeflow's optimizers hold no saveable children
    if kind == "Weights":
        if _kind(getattr(obj, "optimizer", None)) == "Optimizer":
            yield "optimizer", obj.optimizer
        return
    skip = _skipset(kind)
    if kind == "Layer" and _own_layers_attribute(obj):
        skip = skip - {"layers"}
    for name in sorted(set(dir(obj)), key=_name_key):
        if name.startswith("__") or name in skip:
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # noqa: BLE001 - Keras skips attributes that fail, too
            continue
        if _kind(value) is not None or isinstance(value, (list, tuple, dict)):
            yield name, value


def _own_layers_attribute(obj: Any) -> bool:
    """Whether a layer defines its own `layers` (Keras's Pipeline): Keras's Layer has none,
    so Keras walks it (tapeflow's Layer.layers, every layer's sublayers, it does not)."""
    from tapeflow.keras.layers.layer import Layer
    return getattr(type(obj), "layers", None) is not Layer.layers


def _unique(name: str, used: dict) -> str:
    if name in used:
        used[name] += 1
        return f"{name}_{used[name]}"
    used[name] = 0
    return name


def walk(obj: Any, path: str = "", visited: Optional[set] = None) -> Iterator[tuple]:
    """(path, object) for every saveable under `obj` (itself first), each object once at
    the first path Keras would give it."""
    root = visited is None
    visited = set() if visited is None else visited
    kind = _kind(obj)
    if kind is None and root and hasattr(obj, "weights"):
        kind = "Weights"  # a Trainer that is no Layer: its `weights` are its own
    if kind is None or id(obj) in visited:
        return
    visited.add(id(obj))
    yield path, obj
    for attr, child in _children(obj, kind):
        child_path = f"{path}/{attr}" if path else attr
        if isinstance(child, (list, tuple, dict)):
            yield from _walk_container(child, child_path, visited, set())
        else:
            yield from walk(child, child_path, visited)


def _walk_container(container: Any, path: str, visited: set, seen: set) -> Iterator[tuple]:
    if id(container) in seen:
        return
    seen.add(id(container))
    used: dict = {}
    items = list(container.values()) if isinstance(container, dict) else container
    for item in items:
        if _kind(item) is not None:
            yield from walk(item, f"{path}/{_unique(to_snake_case(type(item).__name__), used)}",
                            visited)
        elif isinstance(item, (list, tuple, dict)):
            yield from _walk_container(item, f"{path}/{_unique('container', used)}", visited,
                                       seen)


# -- each object's own variables ----------------------------------------------------------------

def own_variables(obj: Any) -> list:
    """The variables an object stores itself, in Keras's order: a layer's trainable then
    non-trainable own variables; an optimizer's `variables` (its slots are made in Keras's
    order: each variable's momentum, then its velocity)."""
    kind = _kind(obj)
    if kind == "Optimizer":
        return list(obj.variables)
    if kind is None:  # the root of walk's "Weights" case
        return list(obj.weights)
    return list(obj._trainable_variables) + list(obj._non_trainable_variables)


def has_own_store(obj: Any) -> bool:
    """Whether `obj` keeps its state as Keras's `save_own_variables`/`load_own_variables`
    say (named arrays, such as a lookup's 'idf_weights'), rather than as variables."""
    return callable(getattr(obj, "save_own_variables", None)) and \
        callable(getattr(obj, "load_own_variables", None))


def stored_arrays(obj: Any) -> list:
    """[(dataset name, array, dtype name)]: what `obj` stores in its 'vars' group."""
    if has_own_store(obj):
        store: dict = {}
        obj.save_own_variables(store)
        return [(str(k), np.asarray(v), np.asarray(v).dtype.name) for k, v in store.items()]
    return [(str(i), np.asarray(v.numpy()), v.dtype.name)
            for i, v in enumerate(own_variables(obj))]


def _variable_text(v: Any) -> str:
    path = getattr(v, "path", None) or v.name
    return f"<Variable path={path}, shape={tuple(v.shape)}, dtype={v.dtype.name}>"


def _shape_error(variable: Any, shape: tuple) -> ValueError:
    """Keras's error for `variable.assign(value)` with a value of another shape."""
    return ValueError(f"The shape of the target variable and the shape of the target value in "
                      f"`variable.assign(value)` must match. variable.shape="
                      f"{tuple(variable.shape)}, Received: value.shape={shape}. "
                      f"Target variable: {_variable_text(variable)}")


def _assign(variable: Any, value: np.ndarray) -> None:
    if tuple(variable.shape) != tuple(value.shape):
        raise _shape_error(variable, value.shape)
    variable.assign(_as_variable_dtype(variable, value))


def _as_variable_dtype(variable: Any, value: np.ndarray) -> np.ndarray:
    return np.asarray(value).astype(variable.dtype.as_numpy_dtype, copy=False)


def _check_count(obj: Any, variables: list, count: int) -> bool:
    """False when `obj` skips loading (an optimizer with another number of variables warns,
    as Keras's); raises Keras's ValueError when a layer's count differs."""
    if count == len(variables):
        return True
    if _kind(obj) == "Optimizer":
        message = (f"Skipping variable loading for optimizer '{obj.name}', because it has "
                   f"{len(variables)} variables whereas the saved optimizer has "
                   f"{count} variables. ")
        if not variables:   # Keras's test: an unbuilt optimizer with iterations says nothing
            message += "This is likely because the optimizer has not been called/built yet."
        warnings.warn(message, stacklevel=4)
        return False
    if not variables and not getattr(obj, "built", True):
        raise ValueError(f"Layer '{obj.name}' was never built and thus it doesn't have any "
                         f"variables. However the weights file lists {count} "
                         f"variables for this layer.")
    name = getattr(obj, "name", type(obj).__name__)
    raise ValueError(f"Layer '{name}' expected {len(variables)} variables, but "
                     f"received {count} variables during loading. Expected: "
                     f"{[v.name for v in variables]}")


def load_own_variables(obj: Any, store: dict) -> None:
    """Assigns the arrays of `store` ('0', '1', ...) to `obj`'s own variables, with Keras's
    errors (a count that differs, a shape that differs)."""
    variables = own_variables(obj)
    if _check_count(obj, variables, len(store)):
        for i, variable in enumerate(variables):
            _assign(variable, np.asarray(store[str(i)]))


# -- HDF5 -----------------------------------------------------------------------------------

def write_h5(model: Any, target: Any) -> None:
    """Writes the state of `model` (and everything it holds) to an h5py-openable target."""
    h5py = _h5py()
    with h5py.File(target, "w") as f:
        for path, obj in walk(model):
            group = f.create_group(f"{path}/vars" if path else "vars")
            group.attrs["name"] = getattr(obj, "name", None) or type(obj).__name__
            for key, value, dtype_name in stored_arrays(obj):
                group[key] = value
                if dtype_name == "bfloat16":
                    group[key].attrs["dtype"] = "bfloat16"   # Keras's mark, so it reads it


def read_h5(model: Any, source: Any, skip_mismatch: bool = False) -> None:
    """Loads the state saved by `write_h5` (or by Keras) into `model`, all or nothing.

    Objects that fail are listed in one ValueError (a warning with `skip_mismatch`), as
    Keras's. Before any data is read, every dataset the model will load is checked: no soft
    or external link on its path, no external or virtual storage, the variable count, each
    shape and dtype against the model's, no declared size the stored bytes cannot hold and no
    chunk larger than its dataset; so a hostile file can neither make tapeflow open another
    file nor allocate much more than the model's own size (numbers of at most 16 bytes, in
    the model's shapes). A file HDF5 cannot open raises h5py's OSError; any other
    damage raises ValueError. Nothing is assigned unless the whole load succeeds (with
    `skip_mismatch`, the objects that did not fail)."""
    h5py = _h5py()
    with h5py.File(source, "r") as f:
        objects, errors, values = _load(model, lambda path: _vars_group(f, path),
                                        skip_mismatch)
    _finish_load(objects, errors, values, skip_mismatch)


def _load(model: Any, group_of: Any, skip_mismatch: bool) -> tuple:
    """(objects, errors, values): the checked plan of every object's datasets (the group
    of a path given by `group_of`) and, unless an object failed, the values read."""
    objects = list(walk(model))
    errors: dict = {}
    values: list = []
    plans = _plan_all(group_of, objects, errors)
    if not errors or skip_mismatch:
        values = _read_all(plans, errors)
    return objects, errors, values


def _finish_load(objects: list, errors: dict, values: list, skip_mismatch: bool) -> None:
    """Hands the objects with their own store their arrays (each checks them before it
    changes), reports the failed objects (Keras's error, or warning), then assigns the
    variables read."""
    for target, value in values:
        if isinstance(target, _OwnStore):
            try:
                target.assign(value)
            except Exception as e:  # noqa: BLE001 - Keras lists any object's error
                errors[target.index] = e
    if errors:
        _report(objects, errors, skip_mismatch)
    for variable, value in values:
        if not isinstance(variable, _OwnStore):
            variable.assign(value)


def _plan_all(group_of: Any, objects: list, errors: dict) -> dict:
    """{object index: [(variable, dataset)]}: every dataset to read, checked, none read."""
    plans = {}
    for index, (path, obj) in enumerate(objects):
        group = group_of(path)
        try:
            plans[index] = _plan_own_store(obj, group, index) if has_own_store(obj) else \
                _plan_own_variables(obj, group)
        except Exception as e:  # noqa: BLE001 - Keras lists any object's error, of any class
            errors[index] = e
    return plans


def _read_all(plans: dict, errors: dict) -> list:
    """[(variable, value)] for the objects whose datasets all read and convert."""
    values = []
    for index, plan in plans.items():
        try:
            values.extend((target, _value(target, source)) for target, source in plan)
        except Exception as e:  # noqa: BLE001 - as above: corrupt data, text that is no number
            errors[index] = e
    return values


def _report(objects: list, errors: dict, skip_mismatch: bool) -> None:
    """Keras's message for the objects that failed: raised, or warned with `skip_mismatch`
    unless the file was refused (a link or external storage is never skipped)."""
    failed = [objects[i][1] for i in sorted(errors)]
    first = errors[min(errors)]
    message = (f"A total of {len(errors)} objects could not be loaded. Example error "
               f"message for object {failed[0]!r}:\n\n{first}\n\nList of "
               f"objects that could not be loaded:\n{failed}")
    refused = any(isinstance(e, _Refused) for e in errors.values())
    if refused or not skip_mismatch:
        raise ValueError(message)
    warnings.warn(message, stacklevel=4)


def _plan_own_variables(obj: Any, group: Any) -> list:
    """[(variable, dataset)] for `obj`'s own variables, after Keras's count check and every
    check of `_checked_dataset`; [] when an optimizer skips loading, as Keras's."""
    variables = own_variables(obj)
    if not _check_count(obj, variables, len(group) if group is not None else 0):
        return []
    return [(variable, _checked_dataset(group, str(i), variable))
            for i, variable in enumerate(variables)]


class _OwnStore:
    """An object with Keras's own `load_own_variables`: `assign` hands it the arrays read."""

    def __init__(self, obj: Any, index: int) -> None:
        self.obj, self.index = obj, index

    def assign(self, arrays: dict) -> None:
        self.obj.load_own_variables(arrays)


# An own-store dataset has no variable whose shape bounds it: it may declare at most this
# many times its stored bytes (plus _CHUNK_FLOOR_BYTES), as Keras and tapeflow store them.
_MAX_OWN_EXPANSION = 16


def _plan_own_store(obj: Any, group: Any, index: int) -> list:
    """[(_OwnStore, {name: dataset})]: every dataset of the group (none when it is absent),
    each checked as `_checked_dataset` checks them, but against no variable: 1-D or less,
    numbers, a size its stored bytes back."""
    datasets = {}
    for name in (sorted(group.keys()) if group is not None else []):
        dataset = _safe_dataset(group, name)
        declared = math.prod(dataset.shape) * dataset.dtype.itemsize
        if len(dataset.shape) > 1 or declared > _CHUNK_FLOOR_BYTES + \
                _MAX_OWN_EXPANSION * dataset.id.get_storage_size():
            raise ValueError(f"Not allowed: H5 dataset '{name}' of shape {dataset.shape} "
                             "is not a 1-D array its stored bytes hold.")
        datasets[name] = dataset
    return [(_OwnStore(obj, index), datasets)]


def _value(target: Any, source: Any) -> Any:
    """The value read for one plan entry: a variable's array, or an own store's arrays."""
    if isinstance(target, _OwnStore):
        return {name: _read(dataset) for name, dataset in source.items()}
    return _as_variable_dtype(target, _read(source))


class _Refused(ValueError):
    """A file Keras refuses outright: a link out of its group or data stored elsewhere."""


# Keras's guard against shape/decompression bombs: above 4 GiB declared, at most 1000 times
# the bytes stored. Under it, a dataset must have its variable's shape, which bounds it.
_BOMB_FLOOR_BYTES = 1 << 32
_MAX_EXPANSION = 1000
# h5py's automatic chunks stay under 1 MiB; a chunk may exceed its dataset only below this.
_CHUNK_FLOOR_BYTES = 1 << 20
# Item sizes that load: numbers up to complex128, and numbers as text ('S' strings, which
# Keras parses) up to 32 characters. Wider items would multiply the model's size.
_MAX_NUMBER_BYTES = 16
_MAX_TEXT_BYTES = 32


def _link(group: Any, name: str) -> Any:
    """The object `name` in `group`, or None when absent, without following a soft or
    external link (both refused, as Keras's `safe_get_h5_*`)."""
    h5py = _h5py()
    link = group.get(name, default=None, getlink=True)
    if link is None:
        return None
    if isinstance(link, (h5py.SoftLink, h5py.ExternalLink)):
        raise _Refused(f"Not allowed: H5 file with {type(link).__name__}")
    return group[name]


def _group(parent: Any, path: str) -> Any:
    """The group at `path` under `parent`, link by link, or None when absent."""
    h5py = _h5py()
    current = parent
    for part in path.split("/"):
        current = _link(current, part)
        if current is None:
            return None
        if not isinstance(current, h5py.Group):
            raise ValueError(f"Invalid H5 file, expected Group but received {type(current)}")
    return current


def _vars_group(f: Any, path: str) -> Any:
    """The h5py group '<path>/vars' (None when absent, as Keras's H5IOStore: no variables),
    or the one of Keras 2.13's layout. Links are refused; HDF5's errors on a damaged file
    become ValueError."""
    group_path = f"{path}/vars" if path else "vars"
    try:
        group = _group(f, group_path)
        if group is None and path and _link(f, "_layer_checkpoint_dependencies") is not None:
            group = _group(f, group_path.replace("layers", "_layer_checkpoint_dependencies"))
    except _Refused as e:
        raise ValueError(str(e)) from None  # Keras's class: outside any object, never skipped
    except (KeyError, RuntimeError, OSError) as e:  # what h5py raises on damaged metadata
        raise ValueError(f"Invalid H5 file: cannot read the group '{group_path}': {e}") from e
    return group


def _checked_dataset(group: Any, name: str, variable: Any) -> Any:
    """The dataset `name` of `group` for `variable`, checked as Keras's
    `safe_get_h5_dataset` checks it, then against `variable`'s shape and dtype: all from
    its metadata, before a byte of its data is read."""
    return _safe_dataset(group, name, variable)


def _safe_dataset(group: Any, name: str, variable: Any = None) -> Any:
    """The dataset `name` of `group`, checked as Keras's `safe_get_h5_dataset` checks it
    (no link, no external or virtual storage, no bomb), against `variable`'s shape when
    given, and its dtype: numbers only."""
    h5py = _h5py()
    dataset = _link(group, name)
    if dataset is None:
        raise KeyError(name)
    if not isinstance(dataset, h5py.Dataset):
        raise ValueError(f"Invalid H5 file, expected Dataset, received {type(dataset)}")
    if dataset.external:
        raise _Refused(f"Not allowed: H5 file with external Dataset: {dataset.external}")
    if dataset.is_virtual:
        raise _Refused("Not allowed: H5 file with virtual Dataset")
    _check_declared_size(dataset, name)
    if variable is not None and tuple(dataset.shape) != tuple(variable.shape):
        raise _shape_error(variable, tuple(dataset.shape))
    if not _is_bfloat16(dataset):
        _check_dtype(dataset.dtype, name)
    return dataset


def _is_bfloat16(dataset: Any) -> bool:
    """Keras's mark for bfloat16, which HDF5 holds as 2 opaque bytes: attribute 'dtype'."""
    dtype = dataset.dtype
    if dtype.kind != "V" or dtype.itemsize != 2 or dtype.names or dtype.subdtype:
        return False
    mark = dataset.attrs.get("dtype")
    return isinstance(mark, (str, bytes)) and mark in ("bfloat16", b"bfloat16")


def _read(dataset: Any) -> np.ndarray:
    """A checked dataset's data (bfloat16 as ml_dtypes', as Keras reads it)."""
    value = np.asarray(dataset[()])
    if _is_bfloat16(dataset):
        from tapeflow.framework.dtypes import bfloat16
        value = value.view(bfloat16.as_numpy_dtype)
    return value


def _check_declared_size(dataset: Any, name: str) -> None:
    """Keras's bomb check; and chunks larger than the dataset, which HDF5 would inflate
    whole, in its own memory, to read a few numbers (only a resizable dataset has them)."""
    declared = math.prod(dataset.shape) * dataset.dtype.itemsize
    stored = dataset.id.get_storage_size()
    if declared > _BOMB_FLOOR_BYTES and declared > _MAX_EXPANSION * stored:
        raise ValueError(f"Not allowed: H5 dataset '{name}' declares "
                         f"{_readable_size(declared)} but only {_readable_size(stored)} are "
                         "stored on disk; refusing to load a potential decompression/shape "
                         "bomb.")
    chunk = math.prod(dataset.chunks or ()) * dataset.dtype.itemsize
    if dataset.chunks and chunk > max(declared, _CHUNK_FLOOR_BYTES):
        raise ValueError(f"Not allowed: H5 dataset '{name}' declares chunks of "
                         f"{_readable_size(chunk)} for {_readable_size(declared)} of data; "
                         "refusing to load a potential decompression bomb.")


def _check_dtype(dtype: np.dtype, name: str) -> None:
    """Numbers (bool, int, float, complex) and short text numbers load, as in Keras; records,
    nested arrays, variable-length items (whose bytes are not bounded by the shape) do not."""
    numeric = dtype.kind in "biufc" and dtype.itemsize <= _MAX_NUMBER_BYTES
    text = dtype.kind == "S" and dtype.itemsize <= _MAX_TEXT_BYTES
    if dtype.subdtype is not None or not (numeric or text):
        raise ValueError(f"Not allowed: H5 dataset '{name}' has dtype {dtype}: a variable "
                         "loads from numbers only.")


def _readable_size(size: float) -> str:
    """Keras's `readable_memory_size`: '8.00 GB' (powers of 1024)."""
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size < 1024:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


# -- sharded weights (`save_weights(..., max_shard_size=...)`) ----------------------------------
# Keras's ShardedH5IOStore: '<base>.weights.json' indexes shards '<base>_00000.weights.h5',
# '<base>_00001.weights.h5', ... beside it, each in the layout above. Variables fill a shard
# in walk order until the next would pass `max_shard_size` GiB; a group split across shards
# appears in each (its 'name' attribute only in the first). The index, written with indent 4:
# {"metadata": {"total_size": bytes}, "weight_map": {"/<path>/vars": file, or [files]}}.

# Keras's `dtype_size` table (bits); other dtypes cannot be sharded.
_DTYPE_BITS = {**{f"float{i}": i for i in (16, 32, 64)}, **{f"int{i}": i for i in (8, 16, 32, 64)},
               **{f"uint{i}": i for i in (8, 16, 32, 64)}, "bfloat16": 16, "bool": 1}
# An index (JSON) larger than this is refused before it is parsed.
_MAX_INDEX_BYTES = 1 << 26


def sharded_paths(filepath: str) -> tuple:
    """(index path, shard base name) as Keras derives them: the base is the file's stem
    without '.weights'; an index path not ending in '.json' takes that suffix, with
    Keras's warning."""
    directory, name = os.path.split(filepath)
    stem, suffix = os.path.splitext(name)
    base = stem.replace(".weights", "")
    if suffix != ".json":
        renamed = os.path.join(directory, stem + ".json")
        warnings.warn(f"Saving sharded weights requires `*.json` as the extension. The "
                      f"original path: {filepath} will be renamed to {renamed}.", stacklevel=3)
        filepath = renamed
    return filepath, base


def _value_bytes(value: np.ndarray, dtype_name: str) -> float:
    if dtype_name not in _DTYPE_BITS:
        raise ValueError(f"Invalid dtype: {dtype_name}")
    return math.prod(value.shape) * _DTYPE_BITS[dtype_name] / 8


def shard_name(base: str, index: int) -> str:
    """Keras's name of shard `index`: '<base>_00000.weights.h5'."""
    return f"{base}_{index:05}.weights.h5"


def plan_shards(model: Any, max_shard_size: float, base: str) -> tuple:
    """(shards, index): each shard a list of [group path, attributes or None,
    [(dataset name, array, dtype name)]] in Keras's order, and the JSON index. Raises
    Keras's ValueError for a variable larger than a shard, before anything is written."""
    limit = float(max_shard_size) * 1024 ** 3
    shards: list = [[]]
    weight_map: dict = {}
    total: Any = 0
    current = 0.0
    for path, obj in walk(model):
        group_path = f"{path}/vars" if path else "vars"
        entry: Any = [group_path, {"name": getattr(obj, "name", None) or type(obj).__name__},
                      []]
        shards[-1].append(entry)
        for key, value, dtype_name in stored_arrays(obj):
            size = _value_bytes(value, dtype_name)
            total += size
            if size > limit:
                raise ValueError(f"The size of {key} is {_readable_size(size)} which exceeds the "
                                 f"maximum shard size {_readable_size(limit)}. You can increase "
                                 "the `max_shard_size` parameter to accommodate the size.")
            current += size
            if current > limit:
                shards.append([])
                current = size
                entry = None
            if entry is None:   # the group again in the new shard, without its attributes
                entry = [group_path, None, []]
                shards[-1].append(entry)
            entry[2].append((key, value, dtype_name))
            _map_variable(weight_map, f"/{group_path}", shard_name(base, len(shards) - 1))
    return shards, {"metadata": {"total_size": total}, "weight_map": weight_map}


def _map_variable(weight_map: dict, group: str, shard: str) -> None:
    # As Keras: a file name for a group's first variable, a list once there are two.
    if group not in weight_map:
        weight_map[group] = shard
        return
    if not isinstance(weight_map[group], list):
        weight_map[group] = [weight_map[group]]
    if shard not in weight_map[group]:
        weight_map[group].append(shard)


def write_sharded(model: Any, filepath: str, max_shard_size: float) -> None:
    """Writes `model`'s weights as Keras's sharded files (see above): every shard, then the
    index, each atomically."""
    index_path, base = sharded_paths(filepath)
    shards, index = plan_shards(model, max_shard_size, base)
    directory = os.path.dirname(index_path)
    for i, shard in enumerate(shards):
        atomic_write(os.path.join(directory, shard_name(base, i)),
                     lambda f, shard=shard: _write_shard(f, shard))
    text = json.dumps(index, indent=4).encode()
    atomic_write(index_path, lambda f: f.write(text))


def _write_shard(target: Any, shard: list) -> None:
    h5py = _h5py()
    with h5py.File(target, "w") as f:
        for group_path, attrs, datasets in shard:
            group = f.create_group(group_path)
            for key, value in (attrs or {}).items():
                group.attrs[key] = value
            for name, value, dtype_name in datasets:
                group[name] = value
                if dtype_name == "bfloat16":
                    group[name].attrs["dtype"] = "bfloat16"


class _ShardedGroup:
    """One object's '<path>/vars' over the shards that hold its datasets, read as one group
    (what `_link` and the checks use of an h5py group)."""

    def __init__(self, groups: list) -> None:
        self._groups = groups

    def __len__(self) -> int:
        return sum(len(g) for g in self._groups)

    def keys(self) -> list:
        return [name for group in self._groups for name in group.keys()]

    def get(self, name: str, default: Any = None, getlink: bool = False) -> Any:
        for group in self._groups:
            found = group.get(name, default=None, getlink=getlink)
            if found is not None:
                return found
        return default

    def __getitem__(self, name: str) -> Any:
        for group in self._groups:
            if group.get(name, default=None, getlink=True) is not None:
                return group[name]
        raise KeyError(name)


def _read_index(filepath: str) -> dict:
    """The index's weight map ({group: [shard file names]}), checked: a JSON object whose
    file names are plain names of files beside it (no path leads elsewhere)."""
    if os.path.getsize(filepath) > _MAX_INDEX_BYTES:
        raise ValueError(f"Refusing to read the sharded weights index {filepath}: it is larger "
                         f"than {_MAX_INDEX_BYTES} bytes.")
    with open(filepath, encoding="utf-8") as f:
        index = json.load(f)
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict):
        raise ValueError(f"Invalid sharded weights index {filepath}: no 'weight_map' object.")
    checked = {}
    for group, files in weight_map.items():
        files = files if isinstance(files, list) else [files]
        for name in files:
            if not isinstance(name, str) or os.path.basename(name) != name or \
                    name in ("", ".", "..") or "\\" in name:
                raise ValueError(f"Invalid sharded weights index {filepath}: shard {name!r} "
                                 "is not the name of a file beside it.")
        checked[group] = files
    return checked


def read_sharded(model: Any, filepath: str, skip_mismatch: bool = False) -> None:
    """Loads weights written by `write_sharded` (or Keras's sharded `save_weights`) into
    `model`, with every check and the all-or-nothing rule of `read_h5`. An object the index
    does not list has no stored variables."""
    h5py = _h5py()
    weight_map = _read_index(filepath)
    directory = os.path.dirname(filepath)
    with contextlib.ExitStack() as stack:
        files: dict = {}

        def shard(name: str) -> Any:
            if name not in files:
                files[name] = stack.enter_context(h5py.File(os.path.join(directory, name), "r"))
            return files[name]

        def group_of(path: str) -> Any:
            # Keras's lookup: the path itself, then '/<path>/vars' ('/vars' for the root).
            key = path or "/vars"
            names = weight_map.get(key) or weight_map.get(f"/{key}/vars")
            if not names:
                return None
            groups = [_vars_group(shard(name), path) for name in names]
            return _ShardedGroup([g for g in groups if g is not None])

        objects, errors, values = _load(model, group_of, skip_mismatch)
    _finish_load(objects, errors, values, skip_mismatch)


# -- files ----------------------------------------------------------------------------------------

def file_kind(filepath: str) -> str:
    """'hdf5', 'zip' (a .keras archive or tapeflow's old npz weights) or 'unknown'."""
    with open(filepath, "rb") as f:
        head = f.read(8)
    if head == HDF5_SIGNATURE:
        return "hdf5"
    return "zip" if head[:2] == b"PK" else "unknown"


def h5_bytes(model: Any) -> bytes:
    """`model.weights.h5`'s bytes, for a `.keras` archive."""
    buffer = io.BytesIO()
    write_h5(model, buffer)
    return buffer.getvalue()


__all__ = ["walk", "own_variables", "has_own_store", "stored_arrays", "load_own_variables",
           "write_h5", "read_h5",
           "atomic_write", "file_kind", "h5_bytes", "write_sharded", "read_sharded",
           "sharded_paths", "plan_shards", "shard_name"]
