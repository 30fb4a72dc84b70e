"""The public namespace, declared where each function is defined (TensorFlow's `tf_export`).

    @tf_export("math.sin", "sin")
    def sin(x, name=None): ...

makes the function `tf.math.sin` and `tf.sin`. A name's part before the last dot is the
namespace (`""` is `tf` itself, `"math"` is `tf.math`, `"nn"`, `"linalg"`, `"random"`, ...);
the namespace modules (`tapeflow/math.py`, ...) and the package take their names from here, so
no list of names is kept in step by hand.
"""

from __future__ import annotations

from typing import Callable, TypeVar

T = TypeVar("T")

# namespace -> public name -> object, in declaration order.
_NAMESPACES: dict = {}


def tf_export(*names: str) -> Callable[[T], T]:
    """Declares the decorated object public under each of TensorFlow's `names`; returns it
    unchanged (no wrapper: calls cost nothing extra)."""
    def export(obj: T) -> T:
        for full_name in names:
            namespace, _, name = full_name.rpartition(".")
            table = _NAMESPACES.setdefault(namespace, {})
            if table.get(name, obj) is not obj:
                raise ValueError(f"tf.{full_name} is exported twice: {table[name]!r} and "
                                 f"{obj!r}")
            table[name] = obj
        return obj
    return export


def exported(namespace: str) -> dict:
    """The public names of one namespace (`""` for the top level) and their objects."""
    return dict(_NAMESPACES.get(namespace, {}))


def populate(module_globals: dict, namespace: str) -> None:
    """Puts a namespace's exported names into a module (a namespace module or the package)
    and adds them to its `__all__`."""
    names = exported(namespace)
    module_globals.update(names)
    public = list(module_globals.get("__all__", []))
    public += [name for name in names if name not in public]
    module_globals["__all__"] = public


__all__ = ["tf_export", "exported", "populate"]
