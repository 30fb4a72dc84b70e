"""Records TensorFlow's answers to the cases of tests/sets/_sets_cases.py and
tests/audio/_audio_cases.py.

Run once with the reference TensorFlow (never a tapeflow dependency):

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/venv/bin/python tools/record_sets_audio_fixtures.py

It writes tests/sets/fixtures/sets.json and tests/audio/fixtures/audio.json (or only those of
the suites named as arguments: `sets`, `audio`): for each case name, what `describe(tf, case)`
of its cases module gives (values, dtypes, shapes, or the error's class and message), plus
"tf_version".
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITES = {"sets": "_sets_cases.py", "audio": "_audio_cases.py"}


def _load(path: str):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    for suite in sys.argv[1:] or SUITES:
        cases_file = SUITES[suite]
        folder = os.path.join(ROOT, "tests", suite)
        cases = _load(os.path.join(folder, cases_file))
        answers = {name: cases.describe(tf, case) for name, case in cases.CASES.items()}
        answers["tf_version"] = tf.__version__
        out = os.path.join(folder, "fixtures", f"{suite}.json")
        with open(out, "w") as f:
            json.dump(answers, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {len(answers) - 1} cases to {out}")


if __name__ == "__main__":
    main()
