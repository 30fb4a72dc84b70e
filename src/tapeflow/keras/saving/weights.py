"""Keras 3's weights files (`*.weights.h5`, and `model.weights.h5` inside a `.keras` zip):
HDF5 through h5py, laid out as Keras's `saving_lib` walks the object tree.

Each layer (and the optimizer) stores its own variables as datasets '0', '1', ... of a group
'<path>/vars' whose attribute 'name' is the object's name; the model's own is '/vars'. The
path of a child is the attribute that holds it ('optimizer', 'hidden') or, inside a list,
the snake_case class name made unique in that list ('layers/dense', 'layers/dense_1'), with
Sequential and Functional models listing 'layers' first, exactly as Keras, so files pass both
ways. h5py is imported only here, when a file is read or written.
"""

from __future__ import annotations

import io
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
    for name in sorted(set(dir(obj)), key=_name_key):
        if name.startswith("__") or name in skip:
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # noqa: BLE001 - Keras skips attributes that fail, too
            continue
        if _kind(value) is not None or isinstance(value, (list, tuple, dict)):
            yield name, value


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


def _variable_text(v: Any) -> str:
    path = getattr(v, "path", None) or v.name
    return f"<Variable path={path}, shape={tuple(v.shape)}, dtype={v.dtype.name}>"


def _assign(variable: Any, value: np.ndarray) -> None:
    if tuple(variable.shape) != tuple(value.shape):
        raise ValueError(f"The shape of the target variable and the shape of the target value "
                         f"in `variable.assign(value)` must match. variable.shape="
                         f"{tuple(variable.shape)}, Received: value.shape={value.shape}. "
                         f"Target variable: {_variable_text(variable)}")
    variable.assign(value.astype(variable.dtype.as_numpy_dtype, copy=False))


def load_own_variables(obj: Any, store: dict) -> None:
    """Assigns the datasets of one 'vars' group to `obj`'s own variables, with Keras's
    errors (a count that differs, a shape that differs)."""
    variables = own_variables(obj)
    if _kind(obj) == "Optimizer":
        if len(store) != len(variables):
            message = (f"Skipping variable loading for optimizer '{obj.name}', because it has "
                       f"{len(variables)} variables whereas the saved optimizer has "
                       f"{len(store)} variables. ")
            if not getattr(obj, "built", False):
                message += "This is likely because the optimizer has not been called/built yet."
            warnings.warn(message, stacklevel=3)
            return
    elif len(store) != len(variables):
        if not variables and not getattr(obj, "built", True):
            raise ValueError(f"Layer '{obj.name}' was never built and thus it doesn't have any "
                             f"variables. However the weights file lists {len(store)} "
                             f"variables for this layer.")
        name = getattr(obj, "name", type(obj).__name__)
        raise ValueError(f"Layer '{name}' expected {len(variables)} variables, but "
                         f"received {len(store)} variables during loading. Expected: "
                         f"{[v.name for v in variables]}")
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
            for i, variable in enumerate(own_variables(obj)):
                group[str(i)] = np.asarray(variable.numpy())


def read_h5(model: Any, source: Any, skip_mismatch: bool = False) -> None:
    """Loads the state saved by `write_h5` (or by Keras) into `model`. Objects that fail
    are listed in one ValueError at the end (a warning with `skip_mismatch`), as Keras."""
    h5py = _h5py()
    errors: list = []
    with h5py.File(source, "r") as f:
        for path, obj in walk(model):
            store = _vars_group(f, path)
            try:
                load_own_variables(obj, store)
            except ValueError as e:
                errors.append((obj, e))
    if errors:
        message = (f"A total of {len(errors)} objects could not be loaded. Example error "
                   f"message for object {errors[0][0]!r}:\n\n{errors[0][1]}\n\nList of "
                   f"objects that could not be loaded:\n{[obj for obj, _ in errors]}")
        if not skip_mismatch:
            raise ValueError(message)
        warnings.warn(message, stacklevel=3)


def _vars_group(f: Any, path: str) -> dict:
    """The datasets of '<path>/vars' as arrays ({} when absent, as Keras's H5IOStore)."""
    group_path = f"{path}/vars" if path else "vars"
    if group_path not in f:
        legacy = group_path.replace("layers", "_layer_checkpoint_dependencies")
        if path and "_layer_checkpoint_dependencies" in f and legacy in f:
            group_path = legacy
        else:
            return {}
    group = f[group_path]
    return {key: np.asarray(group[key]) for key in group.keys()}


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


__all__ = ["walk", "own_variables", "load_own_variables", "write_h5", "read_h5",
           "atomic_write", "file_kind", "h5_bytes"]
