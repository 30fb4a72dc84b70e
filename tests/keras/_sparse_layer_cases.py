"""Keras layers on SparseTensors: Flatten, Reshape and Concatenate keep them sparse (a mix
concatenates dense); the elementwise merges follow Keras's TensorFlow-backend ops (add,
subtract: the union of the indices; multiply: their intersection, or the sparse operand's;
maximum, minimum: the union, dense with a dense operand). Written once for Keras and tapeflow
(`record(tf)`).
Recorded by tools/record_keras_behaviour.py."""

import numpy as np


def _seen(tf, result):
    if isinstance(result, tf.SparseTensor):
        return ["sparse", list(result.shape), result.indices.numpy().tolist(),
                result.values.numpy().tolist(), result.dense_shape.numpy().tolist()]
    return ["dense", list(result.shape), np.asarray(result).tolist()]


def record(tf):
    """name -> the layer's result (kind, static shape, indices, values, dense shape)."""
    keras, layers = tf.keras, tf.keras.layers
    x = np.zeros((2, 6), "float32")
    x[0, 1], x[1, 4], x[1, 0] = 1, 2, 3
    a, b = tf.sparse.from_dense(x), tf.sparse.from_dense(x[:, ::-1].copy())
    c = tf.sparse.from_dense(np.where(x > 1, -x, 0).astype("float32") + np.eye(2, 6, k=2,
                                                                            dtype="float32"))
    dense = tf.constant(np.arange(12, dtype="float32").reshape(2, 6))
    first, second = keras.Input((6,), sparse=True), keras.Input((6,), sparse=True)
    reshaping = keras.Model(first, layers.Reshape((2, 3))(first))
    joining = keras.Model([first, second], layers.Concatenate()([first, second]))
    calls = {
        "flatten": lambda: layers.Flatten()(tf.sparse.reshape(a, (2, 3, 2))),
        "reshape": lambda: layers.Reshape((3, 2))(a),
        "reshape_inferred": lambda: layers.Reshape((-1, 3))(a),
        "concatenate": lambda: layers.Concatenate()([a, b]),
        "concatenate_axis0": lambda: layers.Concatenate(axis=0)([a, b]),
        "concatenate_mixed": lambda: layers.Concatenate()([a, tf.ones((2, 2))]),
        "model_reshape": lambda: reshaping(a),
        "model_concatenate": lambda: joining([a, b]),
    }
    merges = {"add": layers.Add, "subtract": layers.Subtract, "multiply": layers.Multiply,
              "maximum": layers.Maximum, "minimum": layers.Minimum, "average": layers.Average}
    for name, merge in merges.items():
        for pair, inputs in {"sparse_sparse": [a, c], "same": [a, a], "sparse_dense": [a, dense],
                             "dense_sparse": [dense, c]}.items():
            calls[f"{name}_{pair}"] = lambda merge=merge, inputs=inputs: merge()(inputs)
    calls["add_three"] = lambda: layers.Add()([a, c, b])
    return {name: _seen(tf, call()) for name, call in calls.items()}
