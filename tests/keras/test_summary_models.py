"""`model.summary()` against Keras 3.15's text (tests/keras/fixtures/layers_basic.json,
recorded by tools/record_keras_layers_basic.py at 80 terminal columns): subclassed models
built by a call (each layer's shape as built, '?' for a layer Keras builds at construction or
that has no `compute_output_shape`) or by `build()`, a Sequential built by a call, functional
models with several inputs and outputs or a nested Sequential, and models of recurrent,
attention, 3-D convolution and preprocessing layers."""

import json
import os

import numpy as np
import pytest

from tapeflow import keras

L = keras.layers
META = json.load(open(os.path.join(os.path.dirname(__file__), "fixtures",
                                   "layers_basic.json")))


@pytest.mark.parametrize("name", sorted(META["summaries"]))
def test_summary_matches_keras(name, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    case = META["summaries"][name]
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    scope = {"L": L, "keras": keras, "np": np}
    exec(META["subclassed"] + case["code"], scope)  # noqa: S102 - the fixture's models
    lines = []
    scope["model"].summary(line_length=case["line_length"],
                           print_fn=lambda line, **_: lines.append(line))
    assert "\n".join(lines) == case["text"]
