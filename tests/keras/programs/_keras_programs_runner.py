"""Runs one Keras documentation program under tapeflow's Keras or under real Keras 3.

A program is a file written as keras.io writes it (`import keras`, `from keras import layers,
ops`). Under tapeflow the runner makes `import keras` (and `keras.<sub>`, and
`import tensorflow`) resolve to `tapeflow.keras` (and `tapeflow`) with a `sys.meta_path`
finder, then executes the file as `__main__`; under Keras nothing is replaced. Each run is a
fresh subprocess, so a program's seeds, global state and imports never leak into the next.

    python _runner.py --backend tapeflow|keras [--report FILE] PROGRAM.py

`--report` receives `{"wall_s": ..., "import_s": ...}`: the seconds the program took from its
first line to its last, its `import keras` included, without the interpreter's start; and of
those, the seconds `import keras` took (the runner imports it just before the program, with
KERAS_BACKEND=tensorflow set in the environment, so a program's own
`os.environ["KERAS_BACKEND"] = ...` comes too late to change the backend).

The comparison of what a program printed with what Keras printed (`compare_lines`) lives
here too, so that the recorder, the tests and the benchmark share one definition.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.abc
import importlib.machinery
import json
import math
import os
import re
import runpy
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PROGRAMS_DIR = Path(__file__).resolve().parent
FIXTURES_DIR = PROGRAMS_DIR / "fixtures"
REPO_ROOT = PROGRAMS_DIR.parents[2]
# The interpreters of the two sides: this one for tapeflow, a TensorFlow + Keras venv for Keras.
TAPEFLOW_PYTHON = os.environ.get("TAPEFLOW_PYTHON", sys.executable)
KERAS_PYTHON = os.environ.get("KERAS_PYTHON", "/tmp/tfenv/bin/python")

# Top-level names a program imports and the tapeflow modules that stand in for them.
ALIASES = {"keras": "tapeflow.keras", "tensorflow": "tapeflow"}


# --- the import mechanism ------------------------------------------------------------------

class _AliasLoader(importlib.abc.Loader):
    """Hands back an already imported module under another name, leaving its own spec alone."""

    def __init__(self, module):
        self._module = module
        self._own_spec = module.__spec__

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        # importlib stamped the alias's spec on the module; the module keeps its own.
        module.__spec__ = self._own_spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Resolves `keras`, `keras.layers`, ... to `tapeflow.keras`, `tapeflow.keras.layers`, ..."""

    def find_spec(self, fullname, path=None, target=None):
        top, _, rest = fullname.partition(".")
        if top not in ALIASES:
            return None
        target_name = ALIASES[top] + ("." + rest if rest else "")
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError:
            return None
        is_package = hasattr(module, "__path__")
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=is_package)


def install_tapeflow_as_keras() -> None:
    """Makes this interpreter's `import keras` / `import tensorflow` give tapeflow's."""
    for name in ALIASES:
        if name in sys.modules:
            raise RuntimeError(f"{name} was imported before the runner could replace it")
    sys.meta_path.insert(0, _AliasFinder())


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("tapeflow", "keras"), required=True)
    parser.add_argument("--report", help="file that receives {'wall_s': ..., 'import_s': ...}")
    parser.add_argument("program")
    args = parser.parse_args(argv)
    if args.backend == "tapeflow":
        install_tapeflow_as_keras()
    sys.argv = [args.program]
    start = time.perf_counter()
    importlib.import_module("keras")  # the program's own `import keras` then finds it loaded
    imported = time.perf_counter()
    runpy.run_path(args.program, run_name="__main__")
    sys.stdout.flush()
    end = time.perf_counter()
    if args.report:
        Path(args.report).write_text(json.dumps({"wall_s": end - start,
                                                 "import_s": imported - start}))
    return 0


# --- running a program in a fresh process --------------------------------------------------

@dataclass
class ProgramRun:
    """What one run of a program printed, how it ended, and how long the program took."""

    stdout: str
    stderr: str
    returncode: int
    wall_s: float | None
    import_s: float | None = None

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()


def program_env(backend: str) -> dict[str, str]:
    """The environment of a program's process: quiet TF, Keras on TF, one thread pool size."""
    env = dict(os.environ)
    env.update(TF_CPP_MIN_LOG_LEVEL="3", KERAS_BACKEND="tensorflow", PYTHONHASHSEED="0",
               PYTHONUNBUFFERED="1")
    if backend == "tapeflow":
        src = str(REPO_ROOT / "src")
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "") if env.get(
            "PYTHONPATH") else src
    return env


def run_program(program: str | Path, backend: str, timeout: float = 600.0,
                python: str | None = None) -> ProgramRun:
    """Runs `program` under `backend` ("tapeflow" or "keras") in a fresh interpreter
    (`python`, or the backend's default)."""
    python = python or (TAPEFLOW_PYTHON if backend == "tapeflow" else KERAS_PYTHON)
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        proc = subprocess.run(
            [python, str(Path(__file__).resolve()), "--backend", backend, "--report",
             str(report), str(Path(program).resolve())],
            capture_output=True, text=True, timeout=timeout, env=program_env(backend), cwd=tmp)
        times = json.loads(report.read_text()) if report.exists() else {}
    return ProgramRun(proc.stdout, proc.stderr, proc.returncode, times.get("wall_s"),
                      times.get("import_s"))


def program_files(names: list[str] | None = None, prefix: str = "") -> list[Path]:
    """The program files of this directory (not the runner, not the tests), sorted; or the
    ones `names` gives (file names, paths or stems)."""
    if names:
        return [_resolve_program(name) for name in names]
    return sorted(p for p in PROGRAMS_DIR.glob(f"{prefix}*.py")
                  if not p.name.startswith(("_", "test_")))


def _resolve_program(name: str) -> Path:
    path = Path(name)
    if path.exists():
        return path.resolve()
    candidate = PROGRAMS_DIR / (path.stem + ".py")
    if not candidate.exists():
        raise FileNotFoundError(f"no program {name!r} in {PROGRAMS_DIR}")
    return candidate


def fixture_path(program: Path) -> Path:
    return FIXTURES_DIR / (program.stem + ".json")


def load_fixture(program: Path) -> dict:
    return json.loads(fixture_path(program).read_text())


# --- comparing what was printed ------------------------------------------------------------

# Timings a progress bar prints ("1s", "12ms/step", "5us/sample") differ between runs; they
# become a placeholder before the lines are compared.
_TIMING = re.compile(r"\b\d+(?:\.\d+)?(?:s|ms|us|ns)(?:/step|/sample)?\b")
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|(?<![A-Za-z_])[-+]?(?:nan|inf)\b")


def normalise_timings(line: str) -> str:
    return _TIMING.sub("<t>", line)


def split_numbers(line: str) -> tuple[list[str], list[float]]:
    """The text between the numbers of `line`, and the numbers."""
    texts, numbers, pos = [], [], 0
    for match in _NUMBER.finditer(line):
        texts.append(line[pos:match.start()])
        numbers.append(float(match.group()))
        pos = match.end()
    texts.append(line[pos:])
    return texts, numbers


def numbers_close(got: float, want: float, rtol: float, atol: float) -> bool:
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return math.isclose(got, want, rel_tol=rtol, abs_tol=atol)


def compare_lines(got: list[str], want: list[str], rtol: float = 1e-4,
                  atol: float = 1e-6) -> list[str]:
    """The differences between printed lines `got` and Keras's `want` (empty when they agree):
    text exactly, timings ignored, numbers to `rtol`/`atol` (a printed number's own rounding
    is allowed for: one unit of its last printed digit)."""
    problems = []
    if len(got) != len(want):
        problems.append(f"{len(got)} lines printed, Keras printed {len(want)}")
    for index, (got_line, want_line) in enumerate(zip(got, want)):
        got_texts, got_numbers = split_numbers(normalise_timings(got_line))
        want_texts, want_numbers = split_numbers(normalise_timings(want_line))
        if got_texts != want_texts or len(got_numbers) != len(want_numbers):
            problems.append(f"line {index + 1}: {got_line!r} != Keras's {want_line!r}")
            continue
        matches = re.finditer(_NUMBER, normalise_timings(want_line))
        for got_number, want_number, match in zip(got_numbers, want_numbers, matches):
            digit_unit = _last_digit_unit(match.group())
            if not numbers_close(got_number, want_number, rtol, max(atol, digit_unit)):
                problems.append(f"line {index + 1}: {got_line!r} != Keras's {want_line!r}")
                break
    return problems


def _last_digit_unit(text: str) -> float:
    """One unit of the last digit a number was printed with ("0.1234" -> 1e-4; "12" -> 0
    so that integers compare exactly)."""
    mantissa, _, exponent = text.lower().partition("e")
    if "." not in mantissa:
        return 0.0 if not exponent else 10.0 ** int(exponent)
    decimals = len(mantissa.split(".")[1])
    return 10.0 ** (-decimals + (int(exponent) if exponent else 0))


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
