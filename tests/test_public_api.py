"""Every public callable and class of tapeflow's TensorFlow-shaped namespaces has a docstring,
and so does every public method of those classes (help(tf.xxx) must say what it does)."""

from __future__ import annotations

import importlib
import inspect

import pytest

NAMESPACES = [
    "tapeflow", "tapeflow.math", "tapeflow.nn", "tapeflow.linalg", "tapeflow.random",
    "tapeflow.keras.layers", "tapeflow.keras.models", "tapeflow.keras.optimizers",
    "tapeflow.keras.losses", "tapeflow.keras.metrics", "tapeflow.keras.callbacks",
    "tapeflow.keras.initializers", "tapeflow.keras.activations", "tapeflow.keras.regularizers",
    "tapeflow.keras.constraints", "tapeflow.keras.config", "tapeflow.train", "tapeflow.autodiff", "tapeflow.test",
    "tapeflow.debugging", "tapeflow.data", "tapeflow.distribute", "tapeflow.horovod",
    "tapeflow.horovod.keras", "tapeflow.signal", "tapeflow.experimental.numpy", "tapeflow.bitwise",
    "tapeflow.io", "tapeflow.io.gfile",
    "tapeflow.lookup", "tapeflow.saved_model",
    "tapeflow.image",
    "tapeflow.sets", "tapeflow.audio",
]


def _public_names(module) -> list:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    return sorted(set(names))


def _undocumented_methods(cls) -> list:
    """Public methods and properties of `cls` defined by tapeflow with no docstring of their
    own nor one inherited from the method they override (inspect.getdoc, as help() shows)."""
    found = []
    for name in dir(cls):
        if name.startswith("_"):
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or not owner.__module__.startswith("tapeflow"):
            continue
        member = inspect.getattr_static(cls, name)
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if not (inspect.isfunction(member) or isinstance(member, property)):
            continue
        if not inspect.getdoc(getattr(cls, name, None) if not isinstance(member, property)
                              else member):
            found.append(f"{owner.__module__}.{owner.__qualname__}.{name}")
    return found


def _missing_docstrings(module_name: str) -> list:
    module = importlib.import_module(module_name)
    missing = []
    for name in _public_names(module):
        obj = getattr(module, name)
        if inspect.ismodule(obj) or not (callable(obj) or inspect.isclass(obj)):
            continue
        if not getattr(obj, "__module__", "tapeflow").startswith("tapeflow"):
            continue
        if not inspect.getdoc(obj):
            missing.append(f"{module_name}.{name}")
        if inspect.isclass(obj):
            missing += _undocumented_methods(obj)
    return sorted(set(missing))


@pytest.mark.parametrize("module_name", NAMESPACES)
def test_public_api_has_docstrings(module_name):
    missing = _missing_docstrings(module_name)
    assert missing == [], "document these (one accurate line, TensorFlow's meaning)"


def test_the_check_sees_a_missing_docstring(monkeypatch):
    import tapeflow.math as tfmath

    def undocumented(x):
        return x

    undocumented.__module__ = "tapeflow.math"
    monkeypatch.setattr(tfmath, "undocumented", undocumented, raising=False)
    monkeypatch.setattr(tfmath, "__all__", tfmath.__all__ + ["undocumented"])
    assert _missing_docstrings("tapeflow.math") == ["tapeflow.math.undocumented"]
