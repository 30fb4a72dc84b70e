"""`keras.config.set_epsilon` and `set_image_data_format` seen through what they change, and
Flatten's layouts (channels_first moved last first; a SparseTensor stays sparse), written
once for Keras and tapeflow (`record(tf)`, `tf` TensorFlow or tapeflow). Recorded by
tools/record_keras_behaviour.py."""

import numpy as np


def _flat_rows(tf, tensor):
    sparse = isinstance(tensor, tf.SparseTensor)
    dense = tf.sparse.to_dense(tensor) if sparse else tensor
    return [sparse, list(tensor.shape), np.asarray(dense)[1].tolist()]


def record(tf):
    """name -> what a user sees."""
    keras = tf.keras
    x = np.arange(24, dtype="float32").reshape(2, 3, 2, 2)
    sparse = tf.sparse.from_dense(x)
    seen = {
        "flatten_channels_last": _flat_rows(tf, keras.layers.Flatten()(x)),
        "flatten_channels_first": _flat_rows(
            tf, keras.layers.Flatten(data_format="channels_first")(x)),
        "flatten_sparse": _flat_rows(tf, keras.layers.Flatten()(sparse)),
        "flatten_sparse_channels_first": _flat_rows(
            tf, keras.layers.Flatten(data_format="channels_first")(sparse)),
    }
    keras.config.set_image_data_format("channels_first")
    try:
        model = keras.Sequential([keras.Input((1, 5, 5)),
                                  keras.layers.Conv2D(2, 3, kernel_initializer="ones"),
                                  keras.layers.MaxPooling2D(1), keras.layers.Flatten()])
        seen["channels_first_model"] = [
            [layer.data_format for layer in model.layers], list(model.output_shape),
            np.asarray(model(np.arange(25, dtype="float32").reshape(1, 1, 5, 5)))[0].tolist()]
    finally:
        keras.config.set_image_data_format("channels_last")
    try:
        keras.config.set_image_data_format("nchw")
    except ValueError as error:
        seen["bad_data_format"] = str(error)
    keras.config.set_epsilon(1e-2)
    try:
        seen["epsilon_1e-2"] = [
            keras.config.epsilon(),
            float(keras.losses.BinaryCrossentropy()([[1.0]], [[1.0]])),
            float(keras.losses.MeanAbsolutePercentageError()([[0.0]], [[1.0]])),
            float(keras.losses.KLDivergence()([[1.0, 0.0]], [[0.5, 0.5]]))] + [
            float(t) for t in keras.metrics.AUC(num_thresholds=3).thresholds]
    finally:
        keras.config.set_epsilon(1e-7)
    seen["epsilon_default"] = float(keras.losses.BinaryCrossentropy()([[1.0]], [[1.0]]))
    return seen
