"""`keras.utils.audio_dataset_from_directory` against Keras 3.15.1 (TF 2.21): the audio steps
of tools/record_keras_bbox_audio.py, run on tapeflow over the same WAV files (written with
the standard library's `wave`), give the batches, element specs, class names, printed lines
and errors recorded from Keras (fixtures/bbox_audio.json): shuffled and sorted, every
label_mode, explicit labels and class_names, padded, fixed-length and ragged batches,
unbatched, validation splits (training, validation, both), symlinks, and Keras's errors."""

from __future__ import annotations

import json
import os
import sys
import tempfile

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import record_keras_bbox_audio as recorder  # noqa: E402

with open(os.path.join(HERE, "fixtures", "bbox_audio.json")) as _f:
    EXPECTED = {k: v for k, v in json.load(_f).items() if k.startswith("audio.")}


@pytest.fixture(scope="module")
def answers() -> dict:
    return json.loads(json.dumps(recorder.run_steps(keras, tf, recorder.AUDIO)))


@pytest.mark.parametrize("step", sorted(EXPECTED))
def test_answers_match_keras(answers: dict, step: str) -> None:
    # Exact: the samples are int16 / 32768, the same float32 in both.
    recorder.assert_same(EXPECTED[step], answers[step], 0.0, step)


def test_every_step_is_recorded() -> None:
    assert sorted(EXPECTED) == sorted(s for s, _ in recorder.AUDIO if s != "run")


def test_sampling_rate_is_refused_clearly() -> None:
    """Keras resamples with tensorflow_io; tapeflow has none and says so (ImportError, as
    Keras raises without tensorflow_io)."""
    with tempfile.TemporaryDirectory() as root:
        recorder.make_wavs(root)
        with pytest.raises(ImportError, match="sampling_rate=None"):
            keras.utils.audio_dataset_from_directory(os.path.join(root, "main"),
                                                     sampling_rate=8000)


def test_model_trains_on_the_dataset(capsys: pytest.CaptureFixture) -> None:
    """The padded batches feed `fit` like any tf.data dataset."""
    with tempfile.TemporaryDirectory() as root:
        recorder.make_wavs(root)
        ds = keras.utils.audio_dataset_from_directory(
            os.path.join(root, "main"), batch_size=4, output_sequence_length=8, seed=0,
            label_mode="categorical")
        model = keras.Sequential([keras.Input((8, 1)), keras.layers.Flatten(),
                                  keras.layers.Dense(3, activation="softmax")])
        model.compile("sgd", "categorical_crossentropy")
        history = model.fit(ds, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    assert np.all(np.isfinite(history.history["loss"]))
    assert "Found 8 files belonging to 3 classes." in capsys.readouterr().out
