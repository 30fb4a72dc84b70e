"""TensorFlow's guides as programs: a notebook's code cells, run one after another in one
namespace, each cell's printed text captured (a cell's trailing expression is printed with
repr, as a notebook shows it). tools/record_guide_fixtures.py records TF 2.21's text with
this; tests/docs/test_tf_guides.py runs the same cells on tapeflow and compares.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import linecache
import re
from typing import Any, Iterator

# Notebook lines that are not Python: shell escapes, magics, `help?` queries.
_NOT_PYTHON = re.compile(r"^\s*[!%]|\?\s*$")


def notebook_cells(path: str) -> list:
    """The Python source of each code cell of the notebook at `path`, in order."""
    notebook = json.loads(open(path, encoding="utf-8").read())
    cells = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        lines = "".join(cell["source"]).split("\n")
        cells.append("\n".join(line for line in lines if not _NOT_PYTHON.search(line)))
    return cells


def _shown(source: str) -> str:
    """`source` with its trailing expression printed with repr (None is not shown)."""
    tree = ast.parse(source)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        value = tree.body[-1].value
        if not (isinstance(value, ast.Call) and getattr(value.func, "id", "") == "print"):
            tree.body[-1] = ast.parse(
                f"_shown = ({ast.unparse(value)})\n"
                "if _shown is not None:\n    print(repr(_shown))").body
            tree.body = tree.body[:-1] + tree.body[-1]
    return ast.unparse(tree)


def run_cells(cells: list, namespace: dict) -> Iterator[str]:
    """Runs `cells` in `namespace`, yielding each one's printed text (with `ERROR <class>`
    appended where it raised; later cells still run)."""
    for i, source in enumerate(cells):
        code, filename = _shown(source), f"<guide cell {i}>"
        # As a notebook does: AutoGraph reads a cell's functions' source through linecache.
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, filename, "exec"), namespace)  # noqa: S102
        except Exception as exc:  # noqa: BLE001 - compared with TF's recorded class
            out.write(f"ERROR {type(exc).__name__}\n")
        yield out.getvalue()


# -- comparing printed text -------------------------------------------------------------------
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_TIMING = re.compile(r"\b\d+(\.\d+)?(ms|us|s)\b")   # Keras progress bars: 0s 16ms/step
_REDRAW = re.compile(r"[\r\x08]")   # the bar redraws itself with these
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")
_NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")


def normalized(text: str) -> str:
    """Printed text without what differs from run to run: colours, timings, addresses."""
    return _ADDRESS.sub(" at 0x", _TIMING.sub("T", _REDRAW.sub("", _ANSI.sub("", text))))


def same_text(ours: str, theirs: str, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """Whether two printed texts agree: equal once normalized, or differing only in
    floating-point numbers within float32 rounding (`rtol`, `atol`)."""
    ours, theirs = normalized(ours), normalized(theirs)
    if ours == theirs:
        return True
    def layout(text: str) -> str:   # NumPy pads columns to its numbers' widths
        return re.sub(r"\s+", "", _NUMBER.sub("#", text))
    if layout(ours) != layout(theirs):
        return False
    pairs: Any = zip(_NUMBER.findall(ours), _NUMBER.findall(theirs))
    return all(abs(float(a) - float(b)) <= atol + rtol * abs(float(b)) for a, b in pairs)
