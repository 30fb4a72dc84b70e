"""Records TensorFlow 2.21's tf.summary values into tests/summary/summary_fixtures.json.

Run with real TensorFlow and the tensorboard package (tf.summary needs it):

    TF_CPP_MIN_LOG_LEVEL=3 python tools/record_summary_fixtures.py

Each case is written by tf.summary to an event file and read back with TF's own
summary_iterator: histogram buckets for a few inputs (TensorBoard's bucketing run by TF), the
WAV bytes of tf.summary.audio, and the pixels of tf.summary.image's PNGs decoded by TF.
"""

import base64
import json
import os
import tempfile

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "summary", "summary_fixtures.json")

HISTOGRAMS = {
    "small": ([1.0, 2.0, 2.0, 5.0], 3),
    "default_buckets": (np.linspace(-1.3, 2.7, 101).tolist(), None),
    "single_value": ([4.0, 4.0, 4.0], 5),
    "empty": ([], 4),
    "ints": ([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 4),
    "random": (np.random.RandomState(0).standard_normal(257).tolist(), 7),
    "one_bucket": ([0.5, -2.0, 3.25], 1),
    "zero_buckets": ([1.0, 2.0], 0),
}
AUDIO = np.array([[[0.0], [0.5], [-0.5], [1.0], [-1.0], [0.25], [0.999], [-0.00002]]],
                 np.float32)
IMAGE = np.array([[[[0.0, 0.5, 1.0], [0.25, 0.75, 0.999]],
                   [[1.5, -0.2, 0.1], [0.002, 0.998, 0.5]]]], np.float32)


def _events(logdir):
    (name,) = os.listdir(logdir)
    for event in tf.compat.v1.train.summary_iterator(os.path.join(logdir, name)):
        for value in event.summary.value:
            yield value.tag, tf.make_ndarray(value.tensor)


def main():
    logdir = tempfile.mkdtemp()
    writer = tf.summary.create_file_writer(logdir)
    with writer.as_default(step=0):
        for tag, (data, buckets) in HISTOGRAMS.items():
            tf.summary.histogram(tag, tf.constant(data, tf.float64), buckets=buckets)
        tf.summary.audio("audio", AUDIO, 8000)
        tf.summary.image("image", IMAGE)
    writer.close()
    fixtures = {"histograms": {}, "tf_version": tf.__version__}
    for tag, value in _events(logdir):
        if tag == "audio":
            fixtures["audio_wav_base64"] = base64.b64encode(value[0, 0]).decode()
        elif tag == "image":
            fixtures["image_size"] = [value[0].decode(), value[1].decode()]
            fixtures["image_pixels"] = tf.io.decode_png(value[2]).numpy().tolist()
        else:
            data, buckets = HISTOGRAMS[tag]
            fixtures["histograms"][tag] = {"data": data, "buckets": buckets,
                                           "result": value.tolist()}
    with open(OUT, "w") as f:
        json.dump(fixtures, f, indent=1)
        f.write("\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
