"""tf.summary writes event files that TensorBoard's own reader reads, with TF 2.21's values
(histogram buckets, WAV bytes and image pixels recorded from TF by
tools/record_summary_fixtures.py), eagerly and inside tf.function."""

import base64
import io
import json
import os

import numpy as np
import pytest

import tapeflow as tf

pytest.importorskip("tensorboard", reason="tf.summary needs the tensorboard extra "
                    "(pip install 'tapeflow[tensorboard]'); CI installs it")
from tensorboard.backend.event_processing import event_file_loader  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

FIXTURES = json.load(open(os.path.join(os.path.dirname(__file__), "summary_fixtures.json")))


def read_events(logdir):
    """[(step, tag, value ndarray, plugin name)] of every summary in logdir's one event file."""
    (name,) = os.listdir(logdir)
    out = []
    for event in event_file_loader.LegacyEventFileLoader(os.path.join(logdir, name)).Load():
        for value in event.summary.value:
            out.append((event.step, value.tag, tensor_util.make_ndarray(value.tensor),
                        value.metadata.plugin_data.plugin_name))
    return out


def test_file_name_first_event_and_scalar(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    (name,) = os.listdir(tmp_path)
    parts = name.split(".")
    # TF's name: events.out.tfevents.<seconds>.<host>.<pid>.<n>.v2
    assert parts[:3] == ["events", "out", "tfevents"] and parts[-1] == "v2"
    assert parts[3].isdigit() and len(parts[3]) == 10 and parts[-3] == str(os.getpid())
    with writer.as_default(step=3):
        written = tf.summary.scalar("loss", 0.5)
    assert written.dtype == tf.bool and bool(written)
    first = next(iter(event_file_loader.LegacyEventFileLoader(
        os.path.join(tmp_path, name)).Load()))
    assert first.file_version == "brain.Event:2"
    assert read_events(tmp_path) == [(3, "loss", np.float32(0.5), "scalars")]
    assert read_events(tmp_path)[0][2].dtype == np.float32


def test_event_accumulator_reads_scalars(tmp_path):
    from tensorboard.backend.event_processing import event_accumulator
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            tf.summary.scalar("x", step * 0.5, step=step)
    writer.close()
    acc = event_accumulator.EventAccumulator(str(tmp_path))
    acc.Reload()
    tensors = acc.Tensors("x")
    assert [t.step for t in tensors] == [0, 1, 2]
    assert [float(tensor_util.make_ndarray(t.tensor_proto)) for t in tensors] == [0, 0.5, 1.0]


@pytest.mark.parametrize("case", sorted(FIXTURES["histograms"]))
def test_histogram_buckets_are_tfs(tmp_path, case):
    spec = FIXTURES["histograms"][case]
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        tf.summary.histogram("h", tf.constant(spec["data"], tf.float64), buckets=spec["buckets"])
    [(_, _, value, plugin)] = read_events(tmp_path)
    assert plugin == "histograms" and value.dtype == np.float64
    np.testing.assert_array_equal(value.reshape(-1, 3), np.array(spec["result"]).reshape(-1, 3))


def test_audio_wav_bytes_are_tfs(tmp_path):
    audio = np.array([[[0.0], [0.5], [-0.5], [1.0], [-1.0], [0.25], [0.999], [-0.00002]]],
                     np.float32)
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        tf.summary.audio("audio", audio, 8000)
    [(_, _, value, plugin)] = read_events(tmp_path)
    assert plugin == "audio" and value.shape == (1, 2)
    assert value[0, 0] == base64.b64decode(FIXTURES["audio_wav_base64"]) and value[0, 1] == b""


def test_image_pixels_are_tfs(tmp_path):
    from PIL import Image  # a dependency of tensorboard
    image = np.array([[[[0.0, 0.5, 1.0], [0.25, 0.75, 0.999]],
                       [[1.5, -0.2, 0.1], [0.002, 0.998, 0.5]]]], np.float32)
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        tf.summary.image("image", image)
    [(_, _, value, plugin)] = read_events(tmp_path)
    assert plugin == "images"
    assert [v.decode() for v in value[:2]] == FIXTURES["image_size"]
    pixels = np.asarray(Image.open(io.BytesIO(value[2])))
    np.testing.assert_array_equal(pixels, np.array(FIXTURES["image_pixels"], np.uint8))


def test_text(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=2):
        tf.summary.text("notes", "hello")
    assert read_events(tmp_path) == [(2, "notes", np.array(b"hello", dtype=object), "text")]


def test_summaries_in_tf_function_write_each_run_with_the_variable_step(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    step = tf.Variable(10, dtype=tf.int64)

    @tf.function
    def train(x):
        tf.summary.scalar("x", x, step=step)
        tf.summary.histogram("hx", tf.stack([x, x + 1.0]), step=step, buckets=2)
        step.assign_add(1)
        return x * 2.0

    with writer.as_default():
        for x in (1.0, 2.0, 3.0):
            train(tf.constant(x))
    events = [(s, t, v.tolist()) for s, t, v, _ in read_events(tmp_path)]
    assert [e for e in events if e[1] == "x"] == [(10, "x", 1.0), (11, "x", 2.0),
                                                  (12, "x", 3.0)]
    assert [e[0] for e in events if e[1] == "hx"] == [10, 11, 12]
    assert events[1][2] == [[1.0, 1.5, 1.0], [1.5, 2.0, 1.0]]


def test_record_if_step_and_no_writer(tmp_path):
    assert not bool(tf.summary.scalar("none", 1.0, step=1))   # no default writer
    assert not bool(tf.summary.should_record_summaries())
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(ValueError, match="No step set"):
            tf.summary.scalar("x", 1.0)
        tf.summary.experimental.set_step(5)
        assert tf.summary.experimental.get_step() == 5
        with tf.summary.record_if(lambda: False):
            assert not bool(tf.summary.scalar("skipped", 1.0))
            assert not bool(tf.summary.should_record_summaries())
        with tf.summary.record_if(True):
            assert bool(tf.summary.scalar("kept", 1.0))
        with writer.as_default(step=9):
            tf.summary.scalar("nine", 1.0)
        assert tf.summary.experimental.get_step() == 5
    tf.summary.experimental.set_step(None)
    assert [(s, t) for s, t, _, _ in read_events(tmp_path)] == [(5, "kept"), (9, "nine")]


def test_summary_scope_prefixes_tags(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        with tf.summary.experimental.summary_scope("outer") as (tag, _):
            assert tag == "outer"
            tf.summary.scalar("x", 1.0)
    assert read_events(tmp_path)[0][1] == "outer/x"


def test_errors_are_tfs(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=1):
        # TF 2.21's classes and messages
        with pytest.raises(ValueError, match=r"Expected scalar shape, saw shape: \(2,\)\."):
            tf.summary.scalar("s", [1.0, 2.0])
        with pytest.raises(TypeError, match="tensor must be of type tf.string; got tf.float32"):
            tf.summary.text("t", 1.0)
        with pytest.raises(ValueError, match=r"Tensor  must have rank 4.  Received rank 3"):
            tf.summary.image("i", np.zeros((2, 2, 3)))
        with pytest.raises(ValueError, match=r"Argument `step` must be a scalar"):
            tf.summary.scalar("s", 1.0, step=[1, 2])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x >= 0"):
            tf.summary.image("i", np.zeros((1, 2, 2, 3)), max_outputs=-1)
    with pytest.raises(ValueError, match="`logdir` cannot be None"):
        tf.summary.create_file_writer(None)
    writer.close()
    with pytest.raises(RuntimeError, match="is already closed"):
        writer.as_default()


def test_flush_policy_and_noop_writer(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path), max_queue=2, flush_millis=10 ** 9)
    path = os.path.join(tmp_path, os.listdir(tmp_path)[0])
    size = os.path.getsize(path)
    with writer.as_default(step=0):
        tf.summary.scalar("a", 1.0)
        assert os.path.getsize(path) == size   # buffered: one pending event
        tf.summary.scalar("b", 1.0)
        assert os.path.getsize(path) > size    # max_queue reached: flushed
    noop = tf.summary.create_noop_writer()
    with noop.as_default(step=0):
        assert not bool(tf.summary.scalar("x", 1.0))


def test_missing_tensorboard_names_the_extra(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "tensorboard.compat.proto", None)
    with pytest.raises(ImportError, match=r"pip install 'tapeflow\[tensorboard\]'"):
        tf.summary.create_file_writer("unused")


def test_import_tapeflow_does_not_import_tensorboard():
    import subprocess
    import sys
    code = ("import sys, tapeflow as tf; tf.summary; "
            "print(any(m.startswith('tensorboard') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"
