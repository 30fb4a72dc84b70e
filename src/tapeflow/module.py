"""`tf.Module`: a named container whose variables and submodules are found through its
attributes (and the lists, tuples and dicts in them), as TensorFlow's `tf.Module`."""

from __future__ import annotations

import re
import threading
from typing import Any, Callable, Iterator, Optional

from tapeflow.framework import nest
from tapeflow.framework.variables import Variable

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value: str) -> str:
    """'MyModule' -> 'my_module', TensorFlow's default module name."""
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


class _Scopes(threading.local):
    def __init__(self) -> None:
        self.stack: list = []   # the full names of the open scopes, innermost last


_scopes = _Scopes()


def get_current_name_scope() -> str:
    """The full name of the innermost open name scope ('outer/inner'), '' outside any."""
    stack = _scopes.stack
    return stack[-1] if stack else ""


class name_scope:  # noqa: N801 - TensorFlow's name
    """A name scope: `.name` is the scope's prefix ('module/'); as a context manager it opens
    the scope inside the current one ('outer/inner/'), or at the root for a name ending in
    '/', and gives its full name."""

    def __init__(self, name: str) -> None:
        self._given = name
        self._name = name if name.endswith("/") or not name else name + "/"

    @property
    def name(self) -> str:
        """The scope's name with a trailing '/' (e.g. 'my_module/'), or '' if empty."""
        return self._name

    def __enter__(self) -> str:
        given = self._given
        if not given or given.endswith("/"):   # '' is the root; 'a/' is absolute
            full = given[:-1]
        else:
            current = get_current_name_scope()
            full = f"{current}/{given}" if current else given
        _scopes.stack.append(full)
        return full + "/" if full else ""

    def __exit__(self, *exc: Any) -> None:
        _scopes.stack.pop()


class Module:
    """Base class for a container of variables and submodules.

    Args:
      name: the module's name; defaults to the snake_case class name. Must be a valid
        Python identifier.
    """

    _TF_MODULE_IGNORED_PROPERTIES = frozenset(("_self_unconditional_checkpoint_dependencies",
                                               "_self_unconditional_dependency_names"))

    def __init__(self, name: Optional[str] = None) -> None:
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not _VALID_IDENTIFIER.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid "
                             f"Python identifiers (e.g. a valid class name).")
        self._name = name
        self._scope_name = name_scope(name)

    @property
    def name(self) -> str:
        """The module's name (without scope prefix)."""
        return self._name

    @property
    def name_scope(self) -> name_scope:
        """The module's name scope; `.name` is 'name/'."""
        return self._scope_name

    @property
    def variables(self) -> tuple:
        """Every variable of this module and its submodules, in attribute order, no repeats."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple:
        """The trainable variables of this module and its submodules."""
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self) -> tuple:
        """The non-trainable variables of this module and its submodules."""
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self) -> tuple:
        """Every module reachable through attributes (breadth first), without `self`."""
        return tuple(self._flatten(predicate=lambda v: isinstance(v, Module)))

    def _flatten(self, recursive: bool = True,
                 predicate: Optional[Callable[[Any], bool]] = None) -> Iterator:
        """Leaves of the attributes that match `predicate`, as TF's `Module._flatten`."""
        return _flatten_module(self, recursive, predicate or (lambda _: True), {id(self)}, [])

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorator entering the module's name scope around `method` (names are cosmetic
        here, so this returns a wrapper that simply calls it)."""
        def wrapped(self: "Module", *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)
        wrapped.__name__ = method.__name__
        wrapped.__doc__ = method.__doc__
        return wrapped


def _is_variable(value: Any) -> bool:
    return isinstance(value, Variable)


def _flatten_module(module: Module, recursive: bool, predicate: Callable, seen: set,
                    stack: list) -> Iterator:
    """Direct attributes first (sorted by name), then each submodule found, as TensorFlow."""
    if id(module) in stack:  # a cycle: do not follow the back edge
        recursive = False
    submodules = []
    ignored = getattr(module, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
    attributes = vars(module)
    for key in sorted(attributes):
        if key in ignored:
            continue
        for leaf in _leaves(attributes[key]):
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            if predicate(leaf):
                yield leaf
            if recursive and isinstance(leaf, Module):
                submodules.append(leaf)
    stack.append(id(module))
    for submodule in submodules:
        yield from _flatten_module(submodule, recursive, predicate, seen, stack)
    stack.pop()


def _leaves(value: Any) -> list:
    """The leaves of nested lists, tuples and dicts; anything else is one leaf."""
    if isinstance(value, (list, tuple, dict)):
        return nest.flatten(value)
    return [value]


__all__ = ["Module", "name_scope", "get_current_name_scope"]
