"""`keras.tree`: Keras 3's nested-structure utilities, with the rules Keras 3.15 has through
optree (not quite `tf.nest`'s, whose flattening `framework.nest` does):

- the nodes are lists, tuples (namedtuples too), dicts, OrderedDicts and deques; anything else,
  None included, is a leaf (`map_structure(..., none_is_leaf=False)` keeps Nones as they are);
- a dict's children go by sorted key (insertion order where the keys do not sort), an
  OrderedDict's and a deque's in their own order; rebuilding keeps the original key order;
- two structures match only where each node has the same type and arity (a list is not a
  tuple), with optree's error texts.
"""

from __future__ import annotations

import collections
import warnings
from typing import Any, Callable, Optional

from tapeflow.framework import nest


class MAP_TO_NONE:  # noqa: N801 - Keras's name
    """Returned by a `traverse` function: the visited node becomes None."""


def _is_node(x: Any) -> bool:
    return isinstance(x, (list, tuple, dict, collections.deque))


def _keys(d: dict) -> list:
    """A dict's keys in optree's order: sorted (as `tf.nest`), insertion order for
    OrderedDicts and for keys that do not sort together."""
    if isinstance(d, collections.OrderedDict) and not isinstance(d, collections.defaultdict):
        return list(d)
    try:
        return sorted(d, key=nest._sort_key)
    except TypeError:
        return list(d)


def _children(x: Any) -> list:
    return [x[k] for k in _keys(x)] if isinstance(x, dict) else list(x)


def _path_keys(x: Any) -> list:
    return _keys(x) if isinstance(x, dict) else list(range(len(x)))


def _rebuild(node: Any, children: list) -> Any:
    """A node of `node`'s type (and keys) holding `children` in `_children`'s order."""
    if isinstance(node, dict):
        by_key = dict(zip(_keys(node), children))
        if isinstance(node, collections.defaultdict):
            return type(node)(node.default_factory, ((k, by_key[k]) for k in node))
        return type(node)((k, by_key[k]) for k in node)
    if isinstance(node, tuple) and hasattr(node, "_fields"):
        return type(node)(*children)
    if isinstance(node, collections.deque):
        return collections.deque(children, maxlen=node.maxlen)
    return type(node)(children)


def _type_name(x: Any) -> str:
    return "dictionary" if isinstance(x, dict) else type(x).__name__


def _check_node_matches(expected: Any, got: Any) -> None:
    """optree's ValueError where `got` is not a node of `expected`'s type, arity and keys."""
    if type(got) is not type(expected):
        raise ValueError(f"Expected an instance of {type(expected).__name__}, got {got!r}.")
    if isinstance(expected, dict) and set(expected) != set(got):
        want, have = _keys(expected), _keys(got)
        raise ValueError(
            f"dictionary key mismatch; expected key(s): {want}, got key(s): {have}, "
            f"missing key(s): {[k for k in want if k not in got]}, extra key(s): "
            f"{[k for k in have if k not in expected]}; dict: {got!r}.")
    if len(got) != len(expected):
        name = _type_name(expected)
        raise ValueError(f"{name} arity mismatch; expected: {len(expected)}, got: {len(got)}; "
                         f"{name}: {got!r}.")


def is_nested(structure: Any) -> bool:
    """True for the nodes keras.tree looks into (list, tuple, dict, deque)."""
    return _is_node(structure)


def flatten(structure: Any) -> list:
    """The leaves of `structure` in order; a leaf gives [leaf]."""
    leaves: list = []
    stack = [structure]
    while stack:   # iterative, so deep structures do not hit the recursion limit
        item = stack.pop()
        if _is_node(item):
            stack.extend(reversed(_children(item)))
        else:
            leaves.append(item)
    return leaves


def flatten_with_path(structure: Any) -> list:
    """[(path, leaf)]: each leaf with the tuple of keys and indices that reach it."""
    def walk(x: Any, path: tuple) -> list:
        if not _is_node(x):
            return [(path, x)]
        return [pair for key, child in zip(_path_keys(x), _children(x))
                for pair in walk(child, path + (key,))]
    return walk(structure, ())


def pack_sequence_as(structure: Any, flat_sequence: Any) -> Any:
    """`structure` rebuilt with the leaves of `flat_sequence`, in order."""
    flat = list(flat_sequence)
    expected = len(flatten(structure))
    if len(flat) > expected:
        raise ValueError(f"Too many leaves for PyTreeSpec; expected: {expected}.")
    if len(flat) < expected:
        raise ValueError(f"Too few leaves for PyTreeSpec; expected: {expected}, got: "
                         f"{len(flat)}.")
    leaves = iter(flat)

    def build(x: Any) -> Any:
        return _rebuild(x, [build(c) for c in _children(x)]) if _is_node(x) else next(leaves)
    return build(structure)


def _map(func: Callable, first: Any, others: tuple, leaf_check: Optional[Callable],
         none_is_leaf: bool, is_leaf: Optional[Callable] = None) -> Any:
    """optree's tree_map: `first`'s structure decides; the others must have its nodes."""
    if not none_is_leaf and first is None:
        return None
    if (is_leaf is not None and is_leaf(first)) or not _is_node(first):
        if leaf_check is not None:
            leaf_check(first, *others)
        return func(first, *others)
    for other in others:
        _check_node_matches(first, other)
    columns = zip(_children(first), *(_children(o) for o in others))
    return _rebuild(first, [_map(func, c[0], c[1:], leaf_check, none_is_leaf, is_leaf)
                            for c in columns])


def _all_leaves(*xs: Any) -> None:
    if any(_is_node(x) for x in xs):
        raise ValueError("Structures don't have the same nested structure.")


def map_structure(func: Callable, *structures: Any, none_is_leaf: bool = True) -> Any:
    """`func` applied to the leaves of `structures` (which must have the same nodes), in
    the first one's structure; with `none_is_leaf=False` Nones stay None."""
    if not structures:
        raise ValueError("Must provide at least one structure")
    first, others = structures[0], structures[1:]
    return _map(func, first, others, _all_leaves if others else None, none_is_leaf)


def map_structure_up_to(shallow_structure: Any, func: Callable, *structures: Any) -> Any:
    """`func` applied to the parts of `structures` at the leaves of `shallow_structure`
    (deeper parts are passed whole)."""
    if not structures:
        raise ValueError("Must provide at least one structure")

    def call(shallow: Any, *parts: Any) -> Any:
        if _is_node(shallow):
            raise ValueError("Structures don't have the same nested structure.")
        return func(*parts)
    return _map_up_to(call, shallow_structure, structures)


def _map_up_to(call: Callable, shallow: Any, structures: tuple) -> Any:
    if not _is_node(shallow):
        return call(shallow, *structures)
    for s in structures:
        _check_node_matches(shallow, s)
    columns = zip(_children(shallow), *(_children(s) for s in structures))
    return _rebuild(shallow, [_map_up_to(call, c[0], c[1:]) for c in columns])


def assert_same_structure(a: Any, b: Any, check_types: Optional[bool] = None) -> None:
    """ValueError unless `a` and `b` have the same nodes (types, lengths, keys)."""
    if check_types is not None:
        hint = ("please remove." if check_types else
                "For a looser check, use `keras.tree.assert_same_paths()`, which considers "
                "`list`, `tuple`, `namedtuple` and `deque` as matching")
        warnings.warn("The `check_types` argument is deprecated and no longer has any effect"
                      f"{', ' if check_types else '. '}{hint}", DeprecationWarning,
                      stacklevel=2)
    _map(lambda *_: None, a, (b,), _all_leaves, True)


def assert_same_paths(a: Any, b: Any) -> None:
    """ValueError unless `a` and `b` reach their leaves by the same paths (node types may
    differ: a list matches a tuple)."""
    a_paths = {path for path, _ in flatten_with_path(a)}
    b_paths = {path for path, _ in flatten_with_path(b)}
    if a_paths != b_paths:
        message = "`a` and `b` don't have the same paths."
        if a_paths - b_paths:
            message += f"\nPaths in `a` missing in `b`:\n{a_paths - b_paths}"
        if b_paths - a_paths:
            message += f"\nPaths in `b` missing in `a`:\n{b_paths - a_paths}"
        raise ValueError(message)


def traverse(func: Callable, structure: Any, top_down: bool = True) -> Any:
    """Applies `func` to every node and leaf (before its children where `top_down`, else
    after them); where it returns None the (traversed) node stays, MAP_TO_NONE makes it
    None, anything else replaces it (top-down: without visiting its children)."""
    def traverse_children() -> Any:
        if not _is_node(structure):
            return structure
        return _rebuild(structure, [traverse(func, c, top_down) for c in _children(structure)])

    if top_down:
        ret = func(structure)
        if ret is None:
            return traverse_children()
    else:
        traversed = traverse_children()
        ret = func(traversed)
        if ret is None:
            return traversed
    return None if ret is MAP_TO_NONE else ret


def lists_to_tuples(structure: Any) -> Any:
    """`structure` with every list (at any depth) made a tuple."""
    return traverse(lambda x: tuple(x) if isinstance(x, list) else None, structure,
                    top_down=False)


def _is_shape(x: Any) -> bool:
    return isinstance(x, (list, tuple)) and all(isinstance(e, (int, type(None))) for e in x)


def map_shape_structure(func: Callable, structure: Any) -> Any:
    """`func` applied to each shape (a list or tuple of ints and Nones) in `structure`."""
    return _map(func, structure, (), None, True, is_leaf=_is_shape)


__all__ = ["MAP_TO_NONE", "assert_same_paths", "assert_same_structure", "flatten",
           "flatten_with_path", "is_nested", "lists_to_tuples", "map_shape_structure",
           "map_structure", "map_structure_up_to", "pack_sequence_as", "traverse"]
