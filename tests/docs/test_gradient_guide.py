"""docs/why-is-my-gradient-none.md: every example runs and prints what the guide shows.

Each ```python block is run as `example.py` in a fresh directory (in a subprocess, so that
tf.debugging.enable_check_numerics and warnings filters stay there), and its output, with
any path to it written /path/to/example.py, must equal the ```text block that follows it.
"""

import os
import re
import subprocess
import sys

import pytest

GUIDE = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "why-is-my-gradient-none.md")
PATH = re.compile(r"\S*/example\.py")  # the directory (check_numerics may shorten it "...")
EXAMPLE = re.compile(r"```python\n(.*?)```\s*```text\n(.*?)```", re.S)


def _examples() -> list:
    with open(GUIDE, encoding="utf-8") as f:
        return EXAMPLE.findall(f.read())


def test_guide_has_an_output_for_every_example():
    with open(GUIDE, encoding="utf-8") as f:
        text = f.read()
    assert len(_examples()) == text.count("```python") >= 8


@pytest.mark.parametrize("code, shown", _examples(),
                         ids=lambda v: v.splitlines()[-1][:40] if "\n" in v else v)
def test_example_prints_what_the_guide_shows(code, shown, tmp_path):
    (tmp_path / "example.py").write_text(code, encoding="utf-8")
    run = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    output = PATH.sub("/path/to/example.py", run.stdout + run.stderr)
    assert run.returncode == 0, output
    assert output.rstrip("\n") == shown.rstrip("\n")
