"""`tf.nest`: flatten and rebuild nested structures of lists, tuples, dicts and namedtuples."""

from __future__ import annotations

from typing import Any, Callable, Iterable


_CONTAINERS = (list, tuple, dict)


def is_nested(structure: Any) -> bool:
    """True for the containers nest looks into: list, tuple (and namedtuple), dict."""
    return isinstance(structure, _CONTAINERS)


def _is_flat(items: list) -> bool:
    # A loop, not any() over a generator: this runs on every gradient call.
    for x in items:
        if isinstance(x, _CONTAINERS):
            return False
    return True


def _children(structure: Any) -> list:
    if isinstance(structure, dict):
        return [structure[k] for k in sorted(structure, key=_sort_key)]
    return list(structure)


def _sort_key(key: Any) -> Any:
    return (type(key).__name__, key) if not isinstance(key, (int, float, str)) else (0, key)


def flatten(structure: Any, expand_composites: bool = False) -> list:
    """The leaves of `structure` in order (dicts by sorted key); a leaf gives [leaf]."""
    if not is_nested(structure):
        return [structure]
    if type(structure) is list and _is_flat(structure):
        return list(structure)  # the common flat list (a model's variables): no walk
    leaves: list = []
    stack = [structure]
    # Iterative depth-first walk so that deep structures do not hit the recursion limit.
    while stack:
        item = stack.pop()
        if is_nested(item):
            stack.extend(reversed(_children(item)))
        else:
            leaves.append(item)
    return leaves


def _rebuild(structure: Any, leaves: Iterable) -> Any:
    if not is_nested(structure):
        return next(leaves)
    if isinstance(structure, dict):
        rebuilt = {k: _rebuild(structure[k], leaves) for k in sorted(structure, key=_sort_key)}
        return type(structure)((k, rebuilt[k]) for k in structure)
    items = [_rebuild(child, leaves) for child in structure]
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*items)
    return type(structure)(items)


def pack_sequence_as(structure: Any, flat_sequence: Iterable,
                     expand_composites: bool = False) -> Any:
    """Rebuilds `structure`'s shape with the leaves of `flat_sequence`."""
    flat = list(flat_sequence)
    if type(structure) is list and _is_flat(structure):
        if len(flat) == len(structure):
            return flat  # a flat list rebuilt is the leaves themselves
    expected = len(flatten(structure))
    if len(flat) != expected:
        raise ValueError(f"Could not pack sequence. Structure had {expected} atoms, but "
                         f"flat_sequence had {len(flat)} items.")
    return _rebuild(structure, iter(flat))


def map_structure(func: Callable, *structures: Any, **kwargs: Any) -> Any:
    """Applies `func` to the leaves of the structures, which must share one shape."""
    if not structures:
        raise ValueError("Must provide at least one structure")
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flats)])


def assert_same_structure(nest1: Any, nest2: Any, check_types: bool = True,
                          expand_composites: bool = False) -> None:
    """Raises ValueError when the two structures differ in nesting or length."""
    if is_nested(nest1) != is_nested(nest2):
        raise ValueError(f"The two structures don't have the same nested structure.\n\n"
                         f"First structure: {nest1!r}\n\nSecond structure: {nest2!r}")
    if not is_nested(nest1):
        return
    if check_types and type(nest1) is not type(nest2) and not (
            isinstance(nest1, list) and isinstance(nest2, list)):
        raise TypeError(f"The two structures don't have the same sequence type. "
                        f"First structure has type {type(nest1)}, while second structure has "
                        f"type {type(nest2)}.")
    if isinstance(nest1, dict) and set(nest1) != set(nest2):
        raise ValueError(f"The two dictionaries don't have the same set of keys: "
                         f"{sorted(nest1, key=_sort_key)} vs {sorted(nest2, key=_sort_key)}")
    c1, c2 = _children(nest1), _children(nest2)
    if len(c1) != len(c2):
        raise ValueError(f"The two structures don't have the same number of elements: "
                         f"{len(c1)} vs {len(c2)}")
    for a, b in zip(c1, c2):
        assert_same_structure(a, b, check_types)


__all__ = ["flatten", "pack_sequence_as", "map_structure", "assert_same_structure", "is_nested"]
