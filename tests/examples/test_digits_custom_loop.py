"""examples/digits_custom_loop.py: a GradientTape + tf.function loop learns the digits."""

import pytest

pytest.importorskip("sklearn", reason="the digits examples need scikit-learn (the test extra)")


def test_custom_loop_reaches_97_percent(load_example):
    digits = load_example("digits_custom_loop")
    accuracy, largest_norm, history = digits.train(epochs=10, log=lambda *_: None)
    # 10 of the program's 20 epochs: measured 0.9861 (the full run 0.9889); 0.97 is the
    # issue's bar, 6 of the 360 digits below, room for numerics that shift a few predictions.
    assert accuracy >= 0.97, accuracy
    assert largest_norm > 1.0  # early gradients exceed clip_norm, so clipping was exercised
    assert len(history["loss"]) == 10 and history["loss"][-1] < history["loss"][0]
