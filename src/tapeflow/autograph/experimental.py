"""`tf.autograph.experimental`."""

from __future__ import annotations

import enum
from typing import Any, Callable, Optional


def do_not_convert(func: Optional[Callable] = None) -> Any:
    """Decorator: `func` runs as written inside converted code (AutoGraph leaves it alone)."""
    from tapeflow.autograph.conversion import do_not_convert as mark
    return mark(func)


def set_loop_options(parallel_iterations: Any = None, swap_memory: Any = None,
                     maximum_iterations: Any = None, shape_invariants: Any = None) -> None:
    """Options of the loop whose body starts with this call: AutoGraph reads them from the
    source (`shape_invariants` as `[(variable, shape)]`, `maximum_iterations`); run
    unconverted, the call does nothing."""


class Feature(enum.Enum):
    """AutoGraph's optional features (accepted; tapeflow converts the same either way)."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


__all__ = ["do_not_convert", "set_loop_options", "Feature"]
