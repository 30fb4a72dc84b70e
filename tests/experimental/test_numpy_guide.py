"""TensorFlow's guide "NumPy API on TensorFlow" (tensorflow.org/guide/tf_numpy) runs on
tapeflow and prints what TensorFlow 2.21 prints for it (recorded in fixtures/tnp.json by
tools/record_tnp_fixtures.py: the guide's program without its timings, plots and device
listings, a seed set first so that its random weights are TF's).

Run in a subprocess of its own: the guide enables NumPy behaviour, which stays on. Numbers
compare to float32 precision (the matmuls may round their last digit differently).
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np

from _tnp_fixture import FIXTURE

NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")
HEADER = "import numpy as np\nimport tapeflow as tf\nimport tapeflow.experimental.numpy as tnp\n"


def _split(text: str) -> tuple:
    # Whitespace, which NumPy pads to the widest number, counts only as a separator.
    shape = re.sub(r" ?([\[\]]) ?", r"\1", re.sub(r"\s+", " ", NUMBER.sub("#", text)))
    return shape, [float(n) for n in NUMBER.findall(text)]


def test_guide_prints_what_tf_prints(tmp_path):
    (tmp_path / "guide.py").write_text(HEADER + FIXTURE["guide"], encoding="utf-8")
    run = subprocess.run([sys.executable, "guide.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    ours, theirs = _split(run.stdout), _split(FIXTURE["guide_output"])
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=2e-6, atol=1e-6)
