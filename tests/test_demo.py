"""`python -m tapeflow` runs every demo program and reports each one as matching TensorFlow."""

import os
import subprocess
import sys

from tapeflow import demo

_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def test_demo_lists_the_seed_programs():
    names = demo.programs()
    assert names[0] == "s01_scalar"
    assert "s14_seed2_higher" in names
    for name in names:
        assert os.path.exists(os.path.join(demo.DEMO_DIR, name + ".expected.txt"))


def test_python_m_tapeflow_runs_every_program_and_all_match():
    env = dict(os.environ, PYTHONPATH=_SRC, PYTHONIOENCODING="utf-8")
    proc = subprocess.run([sys.executable, "-m", "tapeflow"], capture_output=True, text=True,
                          encoding="utf-8", env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    names = demo.programs()
    for name in names:
        assert f"=== {name}.py\n" in out
    assert "DIFFERS" not in out
    assert out.count("--- matches TensorFlow 2.21's output") == len(names)
    assert out.rstrip().endswith(f"{len(names)} of {len(names)} programs print exactly what "
                                 f"TensorFlow 2.21 prints.")
    # The programs' own output is shown, e.g. s01's gradient.
    assert "tf.Tensor(6.0, shape=(), dtype=float32)" in out


def test_a_differing_program_is_reported(tmp_path, monkeypatch):
    (tmp_path / "s99_wrong.py").write_text("print('tf.Tensor(5.0)')\n")
    (tmp_path / "s99_wrong.expected.txt").write_text("tf.Tensor(6.0)\n")
    monkeypatch.setattr(demo, "DEMO_DIR", str(tmp_path))
    result = demo.run_program("s99_wrong")
    assert not result.matched
    assert result.output == "tf.Tensor(5.0)\n"
    assert result.expected == "tf.Tensor(6.0)\n"
