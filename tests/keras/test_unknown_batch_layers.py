"""Layers, metrics and dropout traced with a batch size known only when the graph runs (a
tf.function with an input_signature of None batch, as a custom training loop writes it, and
as Keras's own traced steps see it): each computes what it computes eagerly on the same
batch, for two batch sizes through one trace. They read the batch size from the graph
(`keras.ops.shape`) where they used the example's static size (Flatten reshaped to zero rows,
the others failed to trace)."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

keras = tf.keras
RNG = np.random.default_rng(5)


def _layer_cases():
    return {
        "dense_3d": (lambda: keras.layers.Dense(3, kernel_initializer="ones"), (4, 2)),
        "flatten": (lambda: keras.layers.Flatten(), (3, 2)),
        "reshape": (lambda: keras.layers.Reshape((2, 3)), (3, 2)),
        "dropout_noise_shape": (lambda: keras.layers.Dropout(0.5, noise_shape=(None, 1, 2),
                                                             seed=3), (3, 2)),
        "alpha_dropout": (lambda: keras.layers.AlphaDropout(0.4, seed=3), (3, 2)),
        "spatial_dropout": (lambda: keras.layers.SpatialDropout1D(0.5, seed=3), (3, 2)),
        "gaussian_dropout": (lambda: keras.layers.GaussianDropout(0.3, seed=3), (3, 2)),
        "conv2d_transpose": (lambda: keras.layers.Conv2DTranspose(
            2, 3, strides=2, kernel_initializer="ones"), (3, 2, 1)),
    }


@pytest.mark.parametrize("name", sorted(_layer_cases()))
def test_a_layer_traced_with_an_unknown_batch_equals_eager(name):
    make, inner = _layer_cases()[name]
    traced_layer, eager_layer = make(), make()
    for layer in (traced_layer, eager_layer):   # weights made before the trace (TF traces
        layer.build((None, *inner))             # a function creating variables twice)
    traced = tf.function(lambda x: traced_layer(x, training=True),
                         input_signature=[tf.TensorSpec([None, *inner])])
    for batch in (4, 1):
        x = tf.constant(RNG.normal(size=(batch, *inner)).astype(np.float32))
        expected = eager_layer(x, training=True)
        np.testing.assert_allclose(np.asarray(traced(x)), np.asarray(expected), rtol=1e-6)
    assert traced.experimental_get_tracing_count() == 1


def test_metrics_update_with_an_unknown_batch_as_eagerly():
    def update(metrics, y_true, y_pred):
        for metric in metrics:
            metric.update_state(y_true, y_pred)
        return [metric.result() for metric in metrics]

    def make():
        return [keras.metrics.SparseCategoricalAccuracy(), keras.metrics.MeanSquaredError(),
                keras.metrics.R2Score()]

    traced_metrics, eager_metrics = make(), make()
    traced = tf.function(lambda t, p: update(traced_metrics, t, p), input_signature=[
        tf.TensorSpec([None, 1]), tf.TensorSpec([None, 1])])
    for batch in (5, 2):
        y_true = tf.constant(RNG.integers(0, 1, (batch, 1)).astype(np.float32))
        y_pred = tf.constant(RNG.random((batch, 1)).astype(np.float32))
        ours = traced(y_true, y_pred)
        np.testing.assert_allclose(np.asarray(ours), np.asarray(update(eager_metrics, y_true,
                                                                       y_pred)), rtol=1e-6)


def test_nn_dropout_traced_with_an_unknown_shape_draws_the_whole_shape():
    traced = tf.function(lambda x: tf.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2]),
                         input_signature=[tf.TensorSpec([None, 3])])
    x = tf.ones([4, 3])
    np.testing.assert_array_equal(
        np.asarray(traced(x)), np.asarray(tf.nn.experimental.stateless_dropout(x, 0.5,
                                                                               seed=[1, 2])))


def test_a_train_step_traced_with_an_unknown_batch_tracks_the_loss_by_rows():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
    step = tf.function(model.train_step, input_signature=[(
        tf.TensorSpec([None, 2]), tf.TensorSpec([None, 1]))])
    x = np.array([[1, 2], [3, 4], [0, 1], [1, 1]], np.float32)
    y = np.zeros((4, 1), np.float32)
    step((tf.constant(x[:3]), tf.constant(y[:3])))
    logs = step((tf.constant(x[3:]), tf.constant(y[3:])))
    # the tracker's mean over both batches, weighted by their rows: (9+49+1)/3*3 + 4, / 4
    np.testing.assert_allclose(float(logs["loss"]), (9 + 49 + 1 + 4) / 4, rtol=1e-6)


class _ShowsBatch(keras.Model):
    """A custom train_step that records the batch shape its trace sees."""

    seen: list = []

    def train_step(self, data):
        self.seen.append(tuple(data[0].shape))
        return super().train_step(data)


@pytest.mark.parametrize("kind, expected", [
    ("arrays", [(None, 3)]), ("dataset", [(None, 3)]), ("dataset_drop_remainder", [(4, 3)]),
    ("generator", [(None, 3)])])
def test_fit_traces_the_step_on_the_inputs_batch_spec_as_keras(kind, expected):
    """Keras 3.15 (TF backend) traces train_step once on its dataset's element spec: a None
    batch for arrays, generators and datasets whose last batch may be smaller, the batch size
    where the dataset promises it (these shapes printed by Keras for the same program)."""
    x, y = np.ones((10, 3), np.float32), np.ones((10, 1), np.float32)
    inputs = keras.Input((3,))
    model = _ShowsBatch(inputs, keras.layers.Dense(1)(inputs))
    model.compile("sgd", "mse")
    model.seen = []
    data = {"arrays": lambda: (x, y),
            "dataset": lambda: (tf.data.Dataset.from_tensor_slices((x, y)).batch(4),),
            "dataset_drop_remainder": lambda: (
                tf.data.Dataset.from_tensor_slices((x, y)).batch(4, drop_remainder=True),),
            "generator": lambda: ((batch for batch in [(x[:4], y[:4])] * 3),)}[kind]()
    kwargs = {"batch_size": 4} if kind == "arrays" else \
        {"steps_per_epoch": 3} if kind == "generator" else {}
    model.fit(*data, epochs=2 if kind != "generator" else 1, verbose=0, **kwargs)
    assert model.seen == expected
