"""Runs a snippet (cases.py) or the guide file with `tf` bound, returning what it printed
(an exception ends it, recorded as `ERROR <class name>`). Shared by the recorder
(TensorFlow) and the tests (tapeflow)."""

import contextlib
import io
import os
import runpy
import tempfile


def run_case(tf, setup: str, code: str) -> str:
    """The text `setup + code` prints, run from a real file (AutoGraph reads its source)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "case.py")
        with open(path, "w") as f:
            f.write(setup + "\n" + code + "\n")
        return run_guide(tf, path)


def run_guide(tf, path: str) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            runpy.run_path(path, init_globals={"tf": tf})
        except Exception as exc:  # noqa: BLE001 - recorded and compared
            print(f"ERROR {type(exc).__name__}")
    return buffer.getvalue()
