"""Keras 3's object configs: `serialize_keras_object` / `deserialize_keras_object`, the
registry of custom objects (`register_keras_serializable`, `custom_object_scope`) and the map
between Keras's public module names ('keras.layers', 'keras.optimizers', ...) and tapeflow's.

A config is `{'module', 'class_name', 'config', 'registered_name'}` (plus 'build_config' and
'compile_config' for layers and models), exactly as Keras 3 writes it, so configs pass both ways.
Deserializing never imports a module or runs code from a file. A config resolves only what
Keras 3 resolves: the registry and `custom_objects`, and the modeling objects of Keras's public
namespaces (tapeflow's equivalents, by their `__all__`); any other module it names (`os`,
`builtins`, a module the program imported) is refused with Keras's TypeError, and Keras's
non-modeling functions (`load_model`, `get_file`, ...) with its ValueError. A `lambda` stored in
a config, or a vocabulary file named by one, is refused unless `safe_mode=False`.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import threading
import types
from typing import Any, Callable, Iterator, Mapping, Optional

import numpy as np

from tapeflow.keras._registry import drop_keras_only as _drop_keras_only

_GLOBAL_CUSTOM_OBJECTS: dict = {}
_GLOBAL_CUSTOM_NAMES: dict = {}
_STATE = threading.local()  # custom_object_scope stack, safe_mode

# tapeflow module prefix -> Keras's public module, for 'module' in configs (longest first).
_PUBLIC_MODULES = (
    ("tapeflow.keras.optimizers.schedules", "keras.optimizers.schedules"),
    ("tapeflow.keras.optimizers", "keras.optimizers"),
    ("tapeflow.keras.layers", "keras.layers"),
    ("tapeflow.keras.initializers", "keras.initializers"),
    ("tapeflow.keras.regularizers", "keras.regularizers"),
    ("tapeflow.keras.constraints", "keras.constraints"),
    ("tapeflow.keras.losses", "keras.losses"),
    ("tapeflow.keras.metrics", "keras.metrics"),
    ("tapeflow.keras.activations", "keras.activations"),
    ("tapeflow.keras.utils", "keras.utils"),
    ("tapeflow.keras.models", "keras"),
)
# Classes Keras writes by their private module (and registered name).
_KERAS_PRIVATE = {"Functional": ("keras.src.models.functional", "Functional")}
# Keras module -> the tapeflow module whose names it holds.
_TAPEFLOW_MODULES = {
    "keras.optimizers.schedules": "tapeflow.keras.optimizers.schedules",
    "keras.optimizers": "tapeflow.keras.optimizers",
    "keras.layers": "tapeflow.keras.layers",
    "keras.initializers": "tapeflow.keras.initializers",
    "keras.regularizers": "tapeflow.keras.regularizers",
    "keras.constraints": "tapeflow.keras.constraints",
    "keras.losses": "tapeflow.keras.losses",
    "keras.metrics": "tapeflow.keras.metrics",
    "keras.activations": "tapeflow.keras.activations",
    "keras.models": "tapeflow.keras.models",
    "keras.ops": "tapeflow.keras.ops",
    "keras": "tapeflow.keras.models",
}
# The classes of keras.utils a file may name (Keras saves FeatureSpace in its files).
_UTILS_MODELING = frozenset({"FeatureSpace"})
# The namespaces Keras searches for a function a config names with module 'builtins' (how
# Keras <= 3.6 wrote built-in activations and losses).
_BUILTIN_NAMESPACES = ("activations", "constraints", "initializers", "losses", "metrics",
                       "optimizers", "regularizers")
# Keras's NON_MODELING_APIS: public functions a config may not name (they load or save files,
# or switch safe mode off); refused with Keras's ValueError.
_NON_MODELING = frozenset({
    "keras.backend.clear_session", "keras.config.enable_unsafe_deserialization",
    "keras.models.load_model", "keras.models.model_from_json", "keras.models.save_model",
    "keras.preprocessing.image_dataset_from_directory", "keras.preprocessing.image.load_img",
    "keras.preprocessing.image.save_img", "keras.preprocessing.text_dataset_from_directory",
    "keras.saving.deserialize_keras_object", "keras.saving.load_model",
    "keras.saving.load_weights", "keras.saving.register_keras_serializable",
    "keras.saving.save_model", "keras.saving.save_weights",
    "keras.saving.serialize_keras_object", "keras.utils.audio_dataset_from_directory",
    "keras.utils.clear_session", "keras.utils.deserialize_keras_object", "keras.utils.get_file",
    "keras.utils.image_dataset_from_directory", "keras.utils.load_img",
    "keras.utils.register_keras_serializable", "keras.utils.save_img",
    "keras.utils.serialize_keras_object", "keras.utils.text_dataset_from_directory"})
# Public names of tapeflow's namespaces that are not Keras modeling objects (tapeflow's own
# helpers, and the loaders and savers under the names `keras` also exports them by).
_NOT_MODELING_NAMES = frozenset({"summary_text", "load_model", "save_model", "model_from_json"})

# -- registry ---------------------------------------------------------------------------------

def register_keras_serializable(package: str = "Custom", name: Optional[str] = None
                                ) -> Callable:
    """Registers a class or function as '<package>>name' for (de)serialization, as Keras 3."""
    def decorator(arg: Any) -> Any:
        class_name = name if name is not None else arg.__name__
        registered_name = package + ">" + class_name
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() "
                             "method.")
        _GLOBAL_CUSTOM_OBJECTS[registered_name] = arg
        _GLOBAL_CUSTOM_NAMES[arg] = registered_name
        return arg
    return decorator


def get_registered_name(obj: Any) -> str:
    """The name `obj` is registered under, else its `__name__`."""
    return _GLOBAL_CUSTOM_NAMES.get(obj, getattr(obj, "__name__", None))


def get_registered_object(name: str, custom_objects: Optional[Mapping] = None,
                          module_objects: Optional[Mapping] = None) -> Any:
    """The object for `name`: from the active scopes, the registry, `custom_objects`, then
    `module_objects`; None if none has it."""
    for source in (*reversed(_scopes()), _GLOBAL_CUSTOM_OBJECTS, custom_objects or {},
                   module_objects or {}):
        if name in source:
            return source[name]
    return None


def get_custom_objects() -> dict:
    """The global registry dict (editable, as in Keras)."""
    return _GLOBAL_CUSTOM_OBJECTS


def _scopes() -> list:
    if not hasattr(_STATE, "scopes"):
        _STATE.scopes = []
    return _STATE.scopes


class CustomObjectScope:
    """`with CustomObjectScope({'MyLayer': MyLayer}):` makes the names visible to
    deserialization inside the block."""

    def __init__(self, custom_objects: Optional[Mapping] = None) -> None:
        self.custom_objects = dict(custom_objects or {})

    def __enter__(self) -> "CustomObjectScope":
        _scopes().append(self.custom_objects)
        return self

    def __exit__(self, *exc: Any) -> None:
        _scopes().pop()


custom_object_scope = CustomObjectScope


_UNSAFE_DESERIALIZATION = [False]  # keras.config.enable_unsafe_deserialization() was called


@contextlib.contextmanager
def _safe_mode(value: Optional[bool]) -> Iterator[None]:
    previous = getattr(_STATE, "safe_mode", None)
    _STATE.safe_mode = previous if value is None else bool(value)
    try:
        yield
    finally:
        _STATE.safe_mode = previous


def in_safe_mode() -> bool:
    """Whether code stored in a config is refused (True unless `safe_mode=False` or
    `keras.config.enable_unsafe_deserialization()`)."""
    if _UNSAFE_DESERIALIZATION[0]:
        return False
    value = getattr(_STATE, "safe_mode", None)
    return True if value is None else value


def loading_in_safe_mode() -> bool:
    """Whether a config is being deserialized in safe mode now: a layer refuses then what a
    file may not ask of it (reading a vocabulary file named in the config), as Keras does,
    while the same argument given by the program itself is allowed."""
    return getattr(_STATE, "safe_mode", None) is True and not _UNSAFE_DESERIALIZATION[0]


def enable_unsafe_deserialization() -> None:
    """Disables safe mode for every later load in this process (`lambda`s and vocabulary
    files in configs are read), as `keras.config.enable_unsafe_deserialization`. Only for
    files you trust: a config can then run code."""
    _UNSAFE_DESERIALIZATION[0] = True


# -- serialize --------------------------------------------------------------------------------

def public_module(cls: Any) -> Optional[str]:
    """Keras's module name for a tapeflow class ('keras.layers'), else its own module
    (None for `__main__`, as Keras writes it)."""
    module = getattr(cls, "__module__", None) or ""
    for prefix, public in _PUBLIC_MODULES:
        if module == prefix or module.startswith(prefix + "."):
            return public
    return None if module == "__main__" else module


def _is_builtin(cls: Any) -> bool:
    module = getattr(cls, "__module__", "") or ""
    return module.startswith("tapeflow.") and cls not in _GLOBAL_CUSTOM_NAMES


def serialize_keras_object(obj: Any) -> Any:
    """A JSON-ready description of `obj` (Keras 3's format): plain values as they are,
    lists/tuples/dicts item by item, objects with `get_config` as
    `{'module', 'class_name', 'config', 'registered_name'}`, functions by name."""
    from tapeflow.keras.layers.layer import KerasTensor
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        items = [serialize_keras_object(x) for x in obj]
        return tuple(items) if isinstance(obj, tuple) else items
    if isinstance(obj, dict):
        return _complete({k: serialize_keras_object(v) for k, v in obj.items()})
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, slice):
        return {"class_name": "__slice__", "config": {
            "start": obj.start, "stop": obj.stop, "step": obj.step}}
    if obj is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(obj, KerasTensor):
        return _keras_tensor_config(obj, None)
    if isinstance(obj, (np.ndarray, np.generic)):
        if isinstance(obj, np.ndarray) and obj.ndim > 0:
            return {"class_name": "__numpy__",
                    "config": {"value": obj.tolist(), "dtype": obj.dtype.name}}
        return obj.item()
    if hasattr(obj, "as_numpy_dtype") and hasattr(obj, "name"):  # a tf.DType
        return obj.name
    if hasattr(obj, "numpy") and hasattr(obj, "dtype") and not hasattr(obj, "get_config"):
        value = np.asarray(obj.numpy())
        return {"class_name": "__tensor__",
                "config": {"value": value.tolist(), "dtype": value.dtype.name}}
    if isinstance(obj, types.FunctionType) and obj.__name__ == "<lambda>":
        from tapeflow.keras.saving import _code
        return {"class_name": "__lambda__", "config": {"value": _code.func_dump(obj)}}
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)):
        return _function_config(obj)
    if not hasattr(obj, "get_config"):
        raise TypeError(f"Cannot serialize object {obj!r} of type {type(obj)}. To be "
                        "serializable, a class must implement the `get_config()` method.")
    cls = type(obj)
    config = {"module": public_module(cls) if _is_builtin(cls) else
              (None if cls.__module__ == "__main__" else cls.__module__),
              "class_name": cls.__name__,
              "config": serialize_keras_object(obj.get_config()),
              "registered_name": None if _is_builtin(cls) else get_registered_name(cls)}
    if _is_builtin(cls) and cls.__name__ in _KERAS_PRIVATE:  # not in Keras's public API
        config["module"], config["registered_name"] = _KERAS_PRIVATE[cls.__name__]
    build = getattr(obj, "get_build_config", None)
    if build is not None and build() is not None:
        config["build_config"] = serialize_keras_object(build())
    compile_config = getattr(obj, "get_compile_config", None)
    if compile_config is not None and compile_config() is not None:
        config["compile_config"] = serialize_keras_object(compile_config())
    return config


def _complete(config: dict) -> dict:
    """A short `{'class_name', 'config'}` of a tapeflow class (as `initializers.serialize`
    gives) in Keras 3's full form, with 'module' and 'registered_name'."""
    name = config.get("class_name")
    if "module" in config or not isinstance(name, str) or name.startswith("__") or \
            "config" not in config or len(config) != 2:
        return config
    cls = _tapeflow_object("", name)
    if cls is None or not inspect.isclass(cls):
        return config
    return {"module": public_module(cls), "class_name": name, "config": config["config"],
            "registered_name": None}


def _function_config(fn: Any) -> Any:
    """A function by name: tapeflow's activations and losses as Keras names them."""
    module = getattr(fn, "__module__", "") or ""
    if module.startswith("tapeflow.keras.activations"):
        return fn.__name__
    if module.startswith("tapeflow.keras."):
        return {"module": public_module(fn), "class_name": "function",
                "config": fn.__name__, "registered_name": fn.__name__}
    return {"module": None if module == "__main__" else module, "class_name": "function",
            "config": fn.__name__, "registered_name": get_registered_name(fn)}


def _keras_tensor_config(t: Any, history: Optional[list]) -> dict:
    if history is None and t._keras_history is not None:
        layer, node, index = t._keras_history
        history = [layer.name, node, index]
    return {"class_name": "__keras_tensor__",
            "config": {"shape": list(t.shape), "dtype": t.dtype, "keras_history": history}}


# -- deserialize ------------------------------------------------------------------------------

def deserialize_keras_object(config: Any, custom_objects: Optional[Mapping] = None,
                             safe_mode: bool = True, **kwargs: Any) -> Any:
    """The object a config describes (the inverse of `serialize_keras_object`)."""
    # An enclosing load (load_model(..., safe_mode=False)) decides for nested calls, as Keras.
    scoped = getattr(_STATE, "safe_mode", None)
    with _safe_mode(safe_mode if scoped is None else scoped):
        return _deserialize(config, custom_objects or {})


def _deserialize(config: Any, custom_objects: Mapping) -> Any:
    if config is None or isinstance(config, (bool, int, float)):
        return config
    if isinstance(config, str):
        found = get_registered_object(config, custom_objects)
        return found if found is not None else config
    if isinstance(config, (list, tuple)):
        return [_deserialize(x, custom_objects) for x in config]
    if not isinstance(config, dict):
        raise TypeError(f"Could not parse config: {config}")
    if "class_name" not in config or "config" not in config:
        return {k: _deserialize(v, custom_objects) for k, v in config.items()}
    class_name, inner = config["class_name"], config["config"]
    special = _special(class_name, inner, custom_objects)
    if special is not _NOT_SPECIAL:
        return special
    if class_name == "function":
        return _find(config, custom_objects, "function")
    cls = _find(config, custom_objects, "class")
    if isinstance(cls, str):  # DTypePolicy: tapeflow keeps the dtype's name
        return cls
    inner = _drop_keras_only(cls, _deserialize_config(inner, custom_objects))
    from_config = getattr(cls, "from_config", None)
    if from_config is None:
        raise TypeError(f"Unable to reconstruct an instance of '{class_name}' because the "
                        f"class is missing a `from_config()` method. Full object config: "
                        f"{config}")
    try:
        if "custom_objects" in inspect.signature(from_config).parameters:
            obj = from_config(inner, custom_objects=dict(custom_objects))
        else:
            with CustomObjectScope(custom_objects):
                obj = from_config(inner)
    except TypeError as e:
        raise TypeError(f"{cls} could not be deserialized properly. Please ensure that "
                        "components that are Python object instances (layers, models, etc.) "
                        "returned by `get_config()` are explicitly deserialized in the model's "
                        f"`from_config()` method.\n\nconfig={config}.\n\nException "
                        f"encountered: {e}") from e
    if config.get("build_config") and hasattr(obj, "build_from_config"):
        obj.build_from_config(config["build_config"])
    if config.get("compile_config") and hasattr(obj, "compile_from_config"):
        with CustomObjectScope(custom_objects):
            obj.compile_from_config(config["compile_config"])
    return obj


def _deserialize_config(inner: Any, custom_objects: Mapping) -> Any:
    """An inner config's values: nested special values ('__tuple__', '__numpy__') are
    decoded; nested object configs stay dicts for the class's own from_config to read."""
    if isinstance(inner, dict):
        if "class_name" in inner and str(inner.get("class_name")).startswith("__") and \
                inner["class_name"] not in ("__keras_tensor__", "__lambda__"):
            value = _special(inner["class_name"], inner.get("config"), custom_objects)
            if value is not _NOT_SPECIAL:
                return value
        return {k: _deserialize_config(v, custom_objects) for k, v in inner.items()}
    if isinstance(inner, list):
        return [_deserialize_config(v, custom_objects) for v in inner]
    return inner


_NOT_SPECIAL = object()


def _special(class_name: str, inner: Any, custom_objects: Mapping) -> Any:
    """Keras's encoded plain values ('__tuple__', '__numpy__', '__lambda__', ...)."""
    if class_name == "__tuple__":
        return tuple(_deserialize(x, custom_objects) for x in inner["value"])
    if class_name in ("__numpy__", "__tensor__"):
        return _config_array(inner)
    if class_name == "__bytes__":
        return inner["value"].encode("utf-8")
    if class_name == "__ellipsis__":
        return Ellipsis
    if class_name == "__slice__":
        return slice(inner["start"], inner["stop"], inner["step"])
    if class_name == "__lambda__":
        if in_safe_mode():
            raise ValueError(LAMBDA_REFUSED)
        from tapeflow.keras.saving import _code
        return _code.func_load(inner["value"])
    return _NOT_SPECIAL


def _config_array(inner: dict) -> np.ndarray:
    """A '__numpy__' / '__tensor__' value. Its dtype must be a tensor's (numbers, bools, or
    objects for strings): a wide declared dtype ('V2000000000') would make a few bytes of
    JSON allocate gigabytes."""
    try:
        dtype = np.dtype(inner["dtype"])
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in "biufcO" or dtype.itemsize > 16:
        raise ValueError(f"Invalid dtype: {inner['dtype']}")
    return np.array(inner["value"], dtype=dtype)


LAMBDA_REFUSED = (
    "Requested the deserialization of a `lambda` object. This carries a potential risk of "
    "arbitrary code execution and thus it is disallowed by default. If you trust the source "
    "of the saved model, you can pass `safe_mode=False` to the loading function in order to "
    "allow `lambda` loading, or call `keras.config.enable_unsafe_deserialization()`.")


def _find(config: dict, custom_objects: Mapping, kind: str) -> Any:
    """The class (or function) a config names, resolved as Keras 3 resolves it: custom objects
    and the registry first (by registered name, then class name), then Keras's public
    namespaces (tapeflow's equivalents), then, for a function under module 'builtins', the
    namespaces of Keras's built-in functions. Nothing is imported, and no other module's
    attributes are ever looked at: a config cannot reach `os.system` or `builtins.exec`."""
    class_name = config["class_name"] if kind == "class" else config["config"]
    registered = config.get("registered_name") or class_name
    module = config.get("module")
    if not isinstance(class_name, str) or not isinstance(registered, str) or \
            not isinstance(module, (str, type(None))):
        raise TypeError(f"Could not locate {kind} '{class_name}'. {_REGISTER_HINT} Full "
                        f"object config: {config}")
    for name in (registered, class_name):
        found = get_registered_object(name, custom_objects)
        if found is not None:
            return found
    if class_name == "DTypePolicy":
        return config["config"]["name"] if kind == "class" else None
    if module is None or module == "keras" or module.startswith("keras."):
        return _keras_object(config, module, class_name, kind)
    if module == "builtins" and kind == "function":
        for namespace in _BUILTIN_NAMESPACES:
            found = _public_object(_TAPEFLOW_MODULES[f"keras.{namespace}"], class_name)
            if found is not None:
                return found
        for name, obj in {**get_custom_objects(), **custom_objects}.items():
            if name.endswith(">" + class_name):  # Keras <= 3.6 wrote custom functions so
                return obj
    raise TypeError(f"Could not locate {kind} '{class_name}'. {_REGISTER_HINT} Full object "
                    f"config: {config}")


_REGISTER_HINT = ("Make sure custom classes and functions are decorated with "
                  "`@keras.saving.register_keras_serializable()`. If they are already "
                  "decorated, make sure they are all imported so that the decorator is run "
                  "before trying to load them.")


def _keras_object(config: dict, module: Optional[str], name: str, kind: str) -> Any:
    """`name` in the tapeflow namespace for Keras's `module` ('keras.layers',
    'keras.src.layers.core.dense'; None, as tapeflow's short configs write, searches them
    all): Keras's public modeling objects only."""
    api_name = f"{module}.{name}"
    if api_name in _NON_MODELING:
        raise ValueError(f"Cannot deserialize `{api_name}` because it is not a modeling "
                         "function. Non-modeling APIs are disallowed during deserialization "
                         "for security. Model configuration should only contains operations, "
                         "layers, metrics, losses, or registered custom objects and "
                         "functions.")
    found = _tapeflow_object(module or "", name)
    if found is not None and (module or "").startswith("keras.src.") and \
            not (inspect.isclass(found) and hasattr(found, "get_config")):
        found = None  # Keras takes only saveable classes from its private modules
    if found is not None:
        explicit = config.get("registered_name")
        if module is not None and explicit and explicit not in (name, config.get("class_name")):
            raise ValueError(f"`registered_name={explicit!r}` was provided in the config, but "
                             f"'{api_name}' resolved to a Keras built-in and does not use "
                             "registered names. Remove the `registered_name` field from the "
                             f"config. Full object config: {config}")
        return found
    if module is None:
        raise TypeError(f"Could not locate {kind} '{name}'. {_REGISTER_HINT} Full object "
                        f"config: {config}")
    raise ValueError(f"Could not deserialize '{api_name}' because it is not a KerasSaveable "
                     "subclass")


def _public_object(module_name: str, name: str) -> Any:
    """`name` if tapeflow's Keras namespace `module_name` exports it as a modeling object."""
    if name in _NOT_MODELING_NAMES:
        return None
    module = importlib.import_module(module_name)
    if name not in getattr(module, "__all__", ()):
        return None
    found = getattr(module, name, None)
    return found if inspect.isclass(found) or callable(found) else None


def _tapeflow_object(module: str, name: str) -> Any:
    """`name` in the tapeflow namespace matching Keras's `module` ('keras.src.layers.core.dense'
    matches 'keras.layers'); any of them when the module says nothing or only
    'keras.src...'."""
    parts = module.split(".")
    if len(parts) > 2 and parts[1] == "src":
        parts = [parts[0], parts[2]] + (["schedules"] if "schedules" in parts else [])
    key = ".".join(parts)
    if key == "keras.utils":   # its one modeling class; never its downloads and file readers
        return _public_object("tapeflow.keras.utils", name) if name in _UTILS_MODELING else None
    candidates = [_TAPEFLOW_MODULES[key]] if key in _TAPEFLOW_MODULES else []
    candidates += [m for m in _TAPEFLOW_MODULES.values() if m not in candidates]
    for module_name in candidates:
        found = _public_object(module_name, name)
        if found is not None:
            return found
    return None


__all__ = ["serialize_keras_object", "deserialize_keras_object", "register_keras_serializable",
           "get_registered_name", "get_registered_object", "get_custom_objects",
           "CustomObjectScope", "custom_object_scope", "public_module",
           "enable_unsafe_deserialization"]
