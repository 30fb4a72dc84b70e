"""tf.audio against TensorFlow 2.21: each case of _audio_cases.py gives what TF gave (recorded
in fixtures/audio.json by tools/record_sets_audio_fixtures.py): decoded samples and rates,
encode_wav's exact bytes, static shapes while traced, or the error's class and text."""

import json
import os
import sys

import pytest

import tapeflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _audio_cases import CASES, describe  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "fixtures", "audio.json")) as _f:
    EXPECTED = json.load(_f)


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(k for k in EXPECTED if k != "tf_version")


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_tensorflow(name):
    assert describe(tf, CASES[name]) == EXPECTED[name]
