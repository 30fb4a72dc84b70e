"""examples/train_digits.py: Keras `fit` on the digits reaches its stated accuracy."""

import re

import pytest

pytest.importorskip("sklearn", reason="the digits examples need scikit-learn (the test extra)")


def test_fit_example_reaches_97_percent(load_example, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # where matplotlib is installed, main() saves its plot here
    load_example("train_digits").main()  # 15 epochs with early stopping: ~2 s of training
    last = capsys.readouterr().out.strip().splitlines()[-1]
    accuracy = float(re.search(r"test accuracy: ([0-9.]+)", last).group(1))
    # Measured 0.9833 (seeded, so every run); unseeded Keras initializers gave 0.9806-0.9861.
    # 0.97 is the bar, 5 of the 360 test digits below.
    assert accuracy >= 0.97, last
