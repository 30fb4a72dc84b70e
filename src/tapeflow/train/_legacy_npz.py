"""Restoring tapeflow's earlier checkpoints (`<prefix>.npz`, `tapeflow.framework.npz_format`),
read-only: the values of each object the Checkpoint was given, by position (`model/0`,
`model/1`, ..., `save_counter`), as tapeflow wrote them before it wrote TensorFlow's format.

Everything is checked before anything is assigned. An optimizer without its slots yet restores
them on build (`_defer_restore`), an unbuilt Keras model once it builds (`defer`)."""

from __future__ import annotations

import re
from typing import Any, Callable

from tapeflow.framework import npz_format as _format
from tapeflow.framework.errors import DataLossError

_INDEX = re.compile(r"0|[1-9][0-9]*")   # how the old writer numbered an object's values


def variables_of(obj: Any) -> list:
    """The variables an object saved positionally: itself, or its `variables`."""
    from tapeflow.framework.variables import Variable
    if isinstance(obj, Variable):
        return [obj]
    variables = getattr(obj, "variables", None)
    if callable(variables):
        variables = variables()
    if variables is None:
        raise ValueError(f"`Checkpoint` was expecting a trackable object (an object derived "
                         f"from `Trackable`), got {obj}. If you believe this object should be "
                         "trackable (i.e. it is part of the TensorFlow Python API and manages "
                         "state), please open an issue.")
    return list(variables)


def saved_values(arrays: dict, key: str) -> list:
    """The array keys of the values saved for object `key` ('model/0', 'model/1', ...), in
    order. DataLossError where they are not exactly what the old writer wrote: '<key>/<i>'
    for i = 0..n-1 (a gap or a second spelling of an index would restore values
    positionally into the wrong variables)."""
    saved = {}
    for name in arrays:
        head, slash, index = name.partition("/")
        if head != key or not slash:
            continue
        if not _INDEX.fullmatch(index):
            raise DataLossError(None, None, f"Unable to restore {key!r}: the checkpoint holds "
                                f"a value named {name!r}, which tapeflow never writes (the "
                                "file is corrupted or was crafted).")
        saved[int(index)] = name
    if sorted(saved) != list(range(len(saved))):
        raise DataLossError(None, None, f"Unable to restore {key!r}: the checkpoint's values "
                            f"for it are numbered {sorted(saved)}, not 0 to {len(saved) - 1} "
                            "(the file is corrupted or was crafted).")
    return [saved[i] for i in range(len(saved))]


def plan(arrays: _format.SavedArrays, objects: dict, save_counter: Any,
         checked: Callable) -> tuple:
    """The (variable, value) assignments and (object, values) deferrals restoring `arrays`
    into `objects` makes, validated by `checked(variables, values, key)`: raises, assigning
    nothing, on any mismatch."""
    assignments, deferrals = [], []
    if "save_counter" in arrays:
        assignments += checked([save_counter], [arrays["save_counter"]], "save_counter")
    for key, obj in objects.items():
        saved = saved_values(arrays, key)
        if not saved:
            continue
        variables = variables_of(obj)
        values = [arrays[name] for name in saved]
        if arrays.format in _format.LEGACY_SLOT_ORDER and \
                hasattr(obj, "_from_legacy_slot_order"):
            values = obj._from_legacy_slot_order(values)
        if len(values) > len(variables) and hasattr(obj, "_defer_restore"):
            # An optimizer without slots yet: restore what exists, the rest on build.
            checked(variables, values[:len(variables)], key)
            deferrals.append((obj, values))
            continue
        if len(values) > len(variables) and getattr(obj, "built", None) is False:
            deferrals.append((obj, values))   # a Keras model not built yet, as TF
            continue
        if len(values) != len(variables):
            raise ValueError(f"Checkpoint holds {len(values)} values for {key!r} but the "
                             f"object has {len(variables)} variables.")
        assignments += checked(variables, values, key)
    return assignments, deferrals


def unmatched(arrays: _format.SavedArrays, objects: dict) -> tuple:
    """(saved keys no object took, names of objects with nothing saved)."""
    used = {"save_counter"} & set(arrays)
    missing = []
    for key in objects:
        saved = saved_values(arrays, key)
        used.update(saved)
        if not saved:
            missing.append(key)
    return sorted(set(arrays) - used), missing


__all__ = ["plan", "saved_values", "unmatched", "variables_of"]
