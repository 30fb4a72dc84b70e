"""Models whose Input dtype differs from the data they are given, written once for Keras and
for tapeflow (`cases(keras)`): Keras 3 converts each model input to its Input's dtype before
any layer sees it (floats truncate into an integer Input, float32 loses bits in a float16
one, float64 stays exact in a float64 one). Recorded by tools/record_keras_behaviour.py."""

import numpy as np


def _functional(keras, dtype, make_layer, shape=(2,)):
    inputs = keras.Input(shape, dtype=dtype)
    return keras.Model(inputs, make_layer()(inputs))


def cases(keras):
    """name -> (model builder, input array)."""
    layers = keras.layers
    ones = "ones"
    return {
        "int_input_truncates_floats": (
            lambda: _functional(keras, "int32", lambda: layers.Lambda(lambda t: t * 2)),
            np.array([[3.7, 5.2], [-1.5, 0.9]])),
        "sequential_int_input_truncates_floats": (
            lambda: keras.Sequential([keras.Input((2,), dtype="int32"),
                                      layers.Lambda(lambda t: t * 2)]),
            np.array([[3.7, 5.2]])),
        "float16_input_rounds_before_dense": (
            lambda: _functional(keras, "float16",
                                lambda: layers.Dense(1, kernel_initializer=ones)),
            np.array([[1.0001, 2.0003]], np.float32)),
        "float64_input_keeps_float64_precision": (
            lambda: _functional(keras, "float64", lambda: layers.Dense(
                1, kernel_initializer=ones, dtype="float64")),
            np.array([[1.0 + 1e-12, 2.0]])),
        "float64_input_float32_layer": (
            lambda: _functional(keras, "float64", lambda: layers.Lambda(lambda t: t * 1.0)),
            np.array([[1.5, 2.25]], np.float32)),
        "int_input_embedding_of_floats": (
            lambda: _functional(keras, "int32", lambda: layers.Embedding(
                4, 2, embeddings_initializer=keras.initializers.Constant(
                    np.arange(8.0).reshape(4, 2))), shape=(3,)),
            np.array([[1.9, 0.2, 3.5]])),
        "bool_input_of_ints": (
            lambda: _functional(keras, "bool", lambda: layers.Lambda(
                lambda t: keras.ops.cast(t, "float32")), shape=(3,)),
            np.array([[0, 2, -1]])),
    }


def record(keras):
    """name -> the output of a direct call and of `predict` (nested lists) and their dtypes."""
    seen = {}
    for name, (build, x) in cases(keras).items():
        model = build()
        called, predicted = np.asarray(model(x)), np.asarray(model.predict(x, verbose=0))
        seen[name] = {"call": called.tolist(), "call_dtype": str(called.dtype),
                      "predict": predicted.tolist(), "predict_dtype": str(predicted.dtype)}
    return seen
