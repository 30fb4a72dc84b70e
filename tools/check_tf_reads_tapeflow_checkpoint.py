"""Checks that TensorFlow 2.21 / Keras 3.15 restore the checkpoints tapeflow writes:

    python tools/check_tf_reads_tapeflow_checkpoint.py [--tf-python /tmp/tfenv/bin/python]

Run with tapeflow's Python: it writes, with tapeflow, the checkpoints of the objects that
tools/record_tf_checkpoints.py builds (a tf.Module with a submodule, a list and a dict; a Keras
Sequential and its Adam after 3 training steps; a Checkpoint in a Checkpoint) into a temporary
directory with the values it saved (values.json), then runs itself under TensorFlow's Python
(`--read DIR`), which builds the same objects with TensorFlow, restores each checkpoint,
calls `assert_consumed()`, compares every value (and the Keras model's predictions and its
next training step) with tapeflow's, and prints one line per check. The exit status is 0 when
all hold.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tools.record_tf_checkpoints import X, build_keras, build_module, train_step  # noqa: E402


def _dtype(variable) -> str:
    return str(getattr(variable.dtype, "name", variable.dtype))   # Keras 3's dtype is a str


def _values(objects: dict) -> dict:
    out = {}
    for name, variables in objects.items():
        out[name] = [np.asarray(v.numpy()).tolist() if _dtype(v) != "string"
                     else v.numpy().decode() for v in variables]
    return out


def write(directory: str) -> None:
    """Writes the three checkpoints with tapeflow (run under tapeflow's Python)."""
    import tapeflow as tf
    keras = tf.keras
    net = build_module(tf)
    tf.train.Checkpoint(model=net).save(os.path.join(directory, "module", "ckpt"))
    model, optimizer = build_keras(keras)
    for _ in range(3):
        train_step(tf, model, optimizer)
    tf.train.Checkpoint(model=model, optimizer=optimizer).save(
        os.path.join(directory, "keras", "ckpt"))
    predictions = model(X).numpy().tolist()
    inner = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0, 3.0]))
    outer = tf.train.Checkpoint(inner=inner, w=tf.Variable(4.0, dtype=tf.float64))
    outer.save(os.path.join(directory, "nested", "ckpt"))
    values = _values({"module": net.variables, "keras": model.weights,
                      "optimizer": optimizer.variables, "nested": [inner.v, outer.w]})
    train_step(tf, model, optimizer)
    values["predictions"] = predictions
    values["after_next_step"] = [np.asarray(v.numpy()).tolist() for v in model.weights]
    with open(os.path.join(directory, "values.json"), "w") as f:
        json.dump(values, f)


def _check(name: str, ok: bool, failures: list) -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {name}")
    if not ok:
        failures.append(name)


def _same(got: list, want: list) -> bool:
    return len(got) == len(want) and all(
        np.allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float), rtol=1e-5, atol=1e-7)
        if not isinstance(w, str) else g == w for g, w in zip(got, want))


def read(directory: str) -> int:
    """Restores the checkpoints with TensorFlow and compares (run under TF's Python)."""
    import tensorflow as tf
    import keras
    with open(os.path.join(directory, "values.json")) as f:
        want = json.load(f)
    failures: list = []
    net = build_module(tf)
    for v in net.variables:
        v.assign(tf.zeros_like(v) if v.dtype != tf.string else "")
    tf.train.Checkpoint(model=net).restore(
        tf.train.latest_checkpoint(os.path.join(directory, "module"))).assert_consumed()
    _check("module: assert_consumed and values", _same(_values({"m": net.variables})["m"],
                                                       want["module"]), failures)
    model, optimizer = build_keras(keras)
    status = tf.train.Checkpoint(model=model, optimizer=optimizer).restore(
        tf.train.latest_checkpoint(os.path.join(directory, "keras")))
    _check("keras: weights", _same(_values({"k": model.weights})["k"], want["keras"]), failures)
    _check("keras: predictions", _same(model(X).numpy().tolist(), want["predictions"]),
           failures)
    train_step(tf, model, optimizer)
    status.assert_consumed()
    _check("keras: Adam's slots restored (next step equal, assert_consumed)",
           _same([v.numpy().tolist() for v in model.weights], want["after_next_step"]),
           failures)
    inner = tf.train.Checkpoint(v=tf.Variable([0.0, 0.0, 0.0]))
    outer = tf.train.Checkpoint(inner=inner, w=tf.Variable(0.0, dtype=tf.float64))
    outer.restore(tf.train.latest_checkpoint(os.path.join(directory, "nested"))) \
        .assert_consumed()
    _check("nested: values", _same(_values({"n": [inner.v, outer.w]})["n"], want["nested"]),
           failures)
    print(f"{'all checks passed' if not failures else f'{len(failures)} checks failed'}")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default="/tmp/tfenv/bin/python")
    parser.add_argument("--read", metavar="DIR", help="(internal) the TensorFlow side")
    args = parser.parse_args()
    if args.read:
        return read(args.read)
    with tempfile.TemporaryDirectory() as directory:
        write(directory)
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", KERAS_BACKEND="tensorflow")
        return subprocess.run([args.tf_python, os.path.abspath(__file__), "--read", directory],
                              env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
