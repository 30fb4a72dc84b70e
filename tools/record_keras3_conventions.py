"""Records tests/keras/fixtures/keras3_legacy.h5: a model saved by Keras 3.15.1 in its legacy
HDF5 format (`model.save('m.h5')`), with the predictions the test compares after loading.

Run with TensorFlow 2.21 / Keras 3.15.1 (never imported by tapeflow or its tests):
    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tools/record_keras3_conventions.py
"""

import json
import os

import keras
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "keras", "fixtures")


def main() -> None:
    keras.utils.set_random_seed(1)
    inputs = keras.Input((3,), name="x")
    hidden = keras.layers.Dense(4, activation="relu", name="d1")(inputs)
    normed = keras.layers.BatchNormalization(name="bn")(hidden)
    outputs = keras.layers.Dense(1, name="d2")(normed)
    model = keras.Model(inputs, outputs, name="legacy")
    model.compile(optimizer="adam", loss=keras.losses.MeanSquaredError(),
                  metrics=[keras.metrics.MeanAbsoluteError()])
    x = np.random.RandomState(0).rand(8, 3).astype("float32")
    model.fit(x, x[:, :1], epochs=2, batch_size=4, verbose=0)
    path = os.path.join(FIXTURES, "keras3_legacy.h5")
    model.save(path)
    record = {"predictions": np.asarray(model.predict(x[:2], verbose=0)).tolist(),
              "iterations": int(model.optimizer.iterations.numpy())}
    with open(os.path.join(FIXTURES, "keras3_legacy.json"), "w") as f:
        json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
