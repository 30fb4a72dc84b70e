"""The seed GradientTape programs, written for tapeflow, with what TensorFlow 2.21 printed.

`python -m tapeflow` runs each one (see `run_all`) and shows its output beside TensorFlow's.
Each `sNN_name.py` is a program exactly as a TensorFlow user writes it, with the word
`tensorflow` replaced by `tapeflow`; `sNN_name.expected.txt` is TensorFlow's output for it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import NamedTuple, Optional, TextIO

DEMO_DIR = os.path.dirname(os.path.abspath(__file__))
# The folder holding the `tapeflow` package: put on the demo programs' import path, so the
# demo runs from a checkout as well as from an installed package.
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(DEMO_DIR))


class DemoResult(NamedTuple):
    """One demo program's run: its output, TensorFlow's, and whether they agree."""

    name: str
    output: str
    expected: str
    returncode: int

    @property
    def matched(self) -> bool:
        return self.returncode == 0 and self.output == self.expected


def programs() -> list:
    """The demo programs' names (`s01_scalar`, ...), in order."""
    return sorted(name[:-3] for name in os.listdir(DEMO_DIR)
                  if name.endswith(".py") and name[0] == "s" and name[1:3].isdigit())


def run_program(name: str, timeout: float = 120.0) -> DemoResult:
    """Runs one demo program in a fresh interpreter and compares its output with TensorFlow's."""
    path = os.path.join(DEMO_DIR, name + ".py")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (_PACKAGE_PARENT, env.get("PYTHONPATH")) if p)
    env["PYTHONIOENCODING"] = "utf-8"  # the seed programs print Chinese text
    proc = subprocess.run([sys.executable, path], capture_output=True, text=True,
                          encoding="utf-8", env=env, timeout=timeout, cwd=DEMO_DIR)
    output = proc.stdout if proc.returncode == 0 else proc.stdout + proc.stderr
    with open(os.path.join(DEMO_DIR, name + ".expected.txt"), encoding="utf-8") as f:
        expected = f.read()
    return DemoResult(name, output, expected, proc.returncode)


def run_all(stream: Optional[TextIO] = None) -> list:
    """Runs every demo program, printing each one's name, output and verdict to `stream`."""
    stream = sys.stdout if stream is None else stream
    results = []
    for name in programs():
        result = run_program(name)
        results.append(result)
        stream.write(f"=== {name}.py\n{result.output}")
        if result.matched:
            stream.write("--- matches TensorFlow 2.21's output\n\n")
        else:
            stream.write(f"--- DIFFERS from TensorFlow 2.21, which printed:\n{result.expected}\n")
    matched = sum(r.matched for r in results)
    stream.write(f"{matched} of {len(results)} programs print exactly what TensorFlow "
                 f"2.21 prints.\n")
    return results


__all__ = ["DemoResult", "programs", "run_program", "run_all", "DEMO_DIR"]
