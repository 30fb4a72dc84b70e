"""The Keras documentation programs of tests/keras/programs/ under tapeflow and under
TensorFlow + Keras 3: wall time per program, side by side on this machine.

Each program runs in a fresh interpreter through
tests/keras/programs/_keras_programs_runner.py, once per
side per round, the sides taking turns (round 1: tapeflow, Keras; round 2: ...), so that the
machine's drifts hit both alike; a program's time is the best of its rounds, measured from
its first line (`import keras` included) to its last, without the interpreter's start; a
second set of columns leaves `import keras` out (the runner imports it just before the
program and times it apart). The programs seed everything, so both sides train the same
model on the same data; the last column says whether the two printed the same (numbers to
float32 rounding).

Target (issue 34): no program slower under tapeflow than under TensorFlow + Keras.

Run: `python benchmarks/keras_programs.py [--repeats N] [--tf-python PATH] [PROGRAM ...]`
with tapeflow's interpreter. TensorFlow + Keras is looked for in `--tf-python`, then
$KERAS_PYTHON, then this interpreter, then /tmp/tfenv/bin/python (a throwaway venv with
tensorflow-cpu and keras); where none imports it, only tapeflow's times are printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
RUNNER_PATH = ROOT / "tests" / "keras" / "programs" / "_keras_programs_runner.py"
TFENV_PYTHON = "/tmp/tfenv/bin/python"


def load_runner():
    """The runner module, loaded from its path (tests/ is not a package)."""
    spec = importlib.util.spec_from_file_location("_keras_programs_runner", RUNNER_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def imports_keras(python: str) -> bool:
    """Whether `python` imports TensorFlow and Keras 3."""
    if not python or not os.path.exists(python):
        return False
    check = "import tensorflow, keras; assert int(keras.__version__.split('.')[0]) >= 3"
    probe = subprocess.run([python, "-c", check], capture_output=True,
                           env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    return probe.returncode == 0


def find_tf_python(given: Optional[str]) -> Optional[str]:
    """The first interpreter that imports TensorFlow + Keras 3 (see the module docstring)."""
    for python in (given, os.environ.get("KERAS_PYTHON"), sys.executable, TFENV_PYTHON):
        if python and imports_keras(python):
            return python
    return None


def _error_line(stderr: str) -> list:
    """The exception line of a failed run's traceback (its last line where none is found)."""
    lines = stderr.strip().splitlines() or ["failed"]
    found = [line for line in lines if re.match(r"[\w.]*(Error|Exception)\b", line)]
    return (found or lines)[-1:]


def best_times(runner, program: Path, repeats: int, tf_python: Optional[str]) -> dict:
    """Each side's best wall time over `repeats` interleaved rounds, and whether the two
    sides printed the same."""
    sides = {"tapeflow": None, "keras": tf_python} if tf_python else {"tapeflow": None}
    times: dict = {side: [] for side in sides}
    run_times: dict = {side: [] for side in sides}
    last_lines: dict = {}
    errors: dict = {}
    for _ in range(repeats):
        for side, python in sides.items():
            run = runner.run_program(program, side, python=python)
            if run.returncode != 0:
                errors[side] = _error_line(run.stderr)
                continue
            times[side].append(run.wall_s)
            run_times[side].append(run.wall_s - run.import_s)
            last_lines[side] = run.lines
    entry = {side: (min(found) if found else None) for side, found in times.items()}
    entry.update({f"{side}_no_import": (min(found) if found else None)
                  for side, found in run_times.items()})
    if len(last_lines) == 2:
        entry["same_output"] = not runner.compare_lines(last_lines["tapeflow"],
                                                        last_lines["keras"])
    entry["errors"] = errors
    return entry


def ratio(entry: dict, suffix: str = "") -> Optional[float]:
    """tapeflow's time over Keras's (below 1: tapeflow is faster); `suffix` "_no_import"
    for the times without `import keras`."""
    tapeflow, keras = entry.get("tapeflow" + suffix), entry.get("keras" + suffix)
    return tapeflow / keras if tapeflow and keras else None


def _seconds(value: Optional[float], missing: str = "-") -> str:
    return f"{value:.2f}" if value else missing


def print_summary(results: dict, suffix: str, label: str) -> None:
    """The geometric mean of the ratios and the three worst programs."""
    ratios = {name: ratio(entry, suffix) for name, entry in results.items()
              if ratio(entry, suffix)}
    if not ratios:
        return
    geomean = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
    worst = sorted(ratios.items(), key=lambda item: -item[1])[:3]
    print(f"{label}: geometric mean of tapeflow / TF+Keras over {len(ratios)} programs "
          f"{geomean:.2f}; worst three: " + ", ".join(f"{n} {r:.2f}" for n, r in worst))


def print_table(results: dict, tf_python: Optional[str]) -> None:
    """The table (with and without `import keras`), the geometric means of the ratios and
    the three worst programs."""
    width = max(len(name) for name in results) + 2
    print(f"{'':<{width}}{'with import keras':^31}  {'without import keras':^31}")
    print(f"{'program':<{width}}" + f"{'tapeflow s':>11}{'TF+Keras s':>12}{'ratio':>8}" * 2
          + "  same output")
    for name, entry in results.items():
        cells = ""
        for suffix in ("", "_no_import"):
            r = ratio(entry, suffix)
            cells += (f"{_seconds(entry.get('tapeflow' + suffix), 'failed'):>11}"
                      f"{_seconds(entry.get('keras' + suffix)):>12}"
                      f"{(f'{r:.2f}' if r else '-'):>8}")
        same = {True: "yes", False: "NO", None: "-"}[entry.get("same_output")]
        print(f"{name:<{width}}{cells}  {same}")
        for side, error in entry["errors"].items():
            print(f"    {side} failed: {error[0]}")
    if not tf_python:
        print("TensorFlow + Keras not found: no ratios")
        return
    print_summary(results, "", "with import keras")
    print_summary(results, "_no_import", "without import keras")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="*", help="program files or stems (default: all)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds per program (best of)")
    parser.add_argument("--tf-python", help="an interpreter with TensorFlow and Keras 3")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    runner = load_runner()
    tf_python = find_tf_python(args.tf_python)
    print(f"tapeflow: {sys.executable}; TensorFlow + Keras: {tf_python or 'not found'}; "
          f"best of {args.repeats}; load {os.getloadavg()[0]:.2f}", flush=True)
    results = {}
    for program in runner.program_files(args.programs or None):
        results[program.stem] = best_times(runner, program, args.repeats, tf_python)
        print(f"  {program.stem}: {results[program.stem]}", file=sys.stderr, flush=True)
    print_table(results, tf_python)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
