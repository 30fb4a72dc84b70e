"""Records what Keras 3 prints for the Keras documentation programs of tests/keras/programs/.

Run with the throwaway TensorFlow + Keras venv (never a tapeflow dependency):

    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tools/record_keras_programs.py [PROGRAM ...]

Without arguments it records every program of the directory; with arguments, the ones named
(file names, paths or stems). Each program runs in a fresh interpreter through
tests/keras/programs/_keras_programs_runner.py (`--backend keras`); its stdout lines, the
versions and the
program's wall time go to tests/keras/programs/fixtures/<program>.json. A program that fails
under Keras is reported and leaves its fixture as it was.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import sys
from pathlib import Path

RUNNER_PATH = (Path(__file__).resolve().parents[1] / "tests" / "keras" / "programs"
               / "_keras_programs_runner.py")


def load_runner():
    """The runner module, loaded from its path (tests/ is not a package)."""
    spec = importlib.util.spec_from_file_location("_keras_programs_runner", RUNNER_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def record(runner, program: Path, versions: dict) -> bool:
    """Runs `program` under Keras and writes its fixture; False where it failed."""
    run = runner.run_program(program, "keras")
    if run.returncode != 0:
        print(f"FAILED {program.name} (exit {run.returncode}):\n{run.stderr[-3000:]}")
        return False
    fixture = {"program": program.name, **versions, "wall_s": round(run.wall_s, 3),
               "stdout": run.lines}
    runner.FIXTURES_DIR.mkdir(exist_ok=True)
    runner.fixture_path(program).write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"recorded {program.name}: {len(run.lines)} lines, {run.wall_s:.2f} s")
    return True


def _tensorflow_version() -> str:
    for dist in ("tensorflow", "tensorflow-cpu", "tensorflow_cpu"):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown"


def main(argv: list[str]) -> int:
    runner = load_runner()
    versions = {"keras": importlib.metadata.version("keras"),
                "tensorflow": _tensorflow_version()}
    results = [record(runner, program, versions) for program in runner.program_files(argv)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
