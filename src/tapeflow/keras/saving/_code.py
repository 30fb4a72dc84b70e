"""A Python function's code as Keras 3 stores a `lambda` in a config (marshal, base64): only
ever read back with `safe_mode=False`, since loading it runs the code."""

from __future__ import annotations

import codecs
import marshal
import types
from typing import Any, Optional


def func_dump(func: Any) -> tuple:
    """`(code, defaults, closure)` of `func`, as Keras's `python_utils.func_dump`."""
    code = codecs.encode(marshal.dumps(func.__code__), "base64").decode("ascii")
    closure = tuple(c.cell_contents for c in func.__closure__) if func.__closure__ else None
    return code, func.__defaults__, closure


def _cell(value: Any) -> Any:
    return (lambda: value).__closure__[0]


def func_load(code: Any, defaults: Any = None, closure: Any = None,
              globs: Optional[dict] = None) -> Any:
    """The function `func_dump` described (runs no code until it is called)."""
    if isinstance(code, (tuple, list)):
        code, defaults, closure = code
    defaults = tuple(defaults) if isinstance(defaults, list) else defaults
    closure = tuple(_cell(c) for c in closure) if closure is not None else None
    compiled = marshal.loads(codecs.decode(code.encode("ascii"), "base64"))
    if globs is None:
        import tapeflow
        globs = {"__builtins__": __builtins__, "tf": tapeflow, "keras": tapeflow.keras}
    return types.FunctionType(compiled, globs, name=compiled.co_name, argdefs=defaults,
                              closure=closure)
