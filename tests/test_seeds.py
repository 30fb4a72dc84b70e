"""The seed programs, with `tensorflow` replaced by `tapeflow`, print what TensorFlow printed."""

import os
import re
import subprocess
import sys

import pytest

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SRC = os.path.join(_REPO, "src")
EXAMPLES = os.path.normpath(os.path.join(_REPO, "..", "shared", "examples"))
# s08 and s10 draw random numbers (only their format must agree); s09 needs tf.function and
# Keras and is checked by those packages' tests.
SEEDS = ["s01_scalar", "s02_multivar", "s03_second_order", "s04_persistent", "s05_watch",
         "s06_stop_gradient", "s07_trainable", "s11_seed2_basic", "s12_seed2_persistent",
         "s13_seed2_custom", "s14_seed2_higher"]

pytestmark = pytest.mark.skipif(not os.path.isdir(EXAMPLES),
                                reason=f"the seed examples folder {EXAMPLES} is absent")


def as_tapeflow(source: str) -> str:
    """The program with the word `tensorflow` replaced by `tapeflow`."""
    return re.sub(r"\btensorflow\b", "tapeflow", source)


def run_source(source: str, tmp_path) -> str:
    path = tmp_path / "program.py"
    path.write_text(source, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=_SRC, PYTHONIOENCODING="utf-8")
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          encoding="utf-8", env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def read(name: str) -> str:
    with open(os.path.join(EXAMPLES, name), encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("seed", SEEDS)
def test_seed_prints_what_tensorflow_printed(seed, tmp_path):
    output = run_source(as_tapeflow(read(seed + ".py")), tmp_path)
    assert output == read(seed + ".expected.txt")


@pytest.mark.parametrize("seed", SEEDS)
def test_demo_copy_is_the_seed_program(seed):
    """src/tapeflow/demo holds the same programs and TensorFlow outputs as the examples."""
    demo = os.path.join(_SRC, "tapeflow", "demo")
    with open(os.path.join(demo, seed + ".py"), encoding="utf-8") as f:
        assert f.read() == as_tapeflow(read(seed + ".py"))
    with open(os.path.join(demo, seed + ".expected.txt"), encoding="utf-8") as f:
        assert f.read() == read(seed + ".expected.txt")
