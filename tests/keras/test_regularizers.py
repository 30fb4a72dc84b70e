"""Regularizers, constraints, class_weight and steps_per_epoch, against Keras 3 values
(computed with the reference Keras 3 / TF 2.21 on the same inputs)."""

import warnings

import numpy as np
import pytest

import tapeflow.keras as keras

X = np.linspace(-1, 1, 24, dtype="float32").reshape(6, 4)
Y = np.array([0, 1, 2, 1, 0, 2], "int32")


def _model(**kwargs):
    inp = keras.Input((4,))
    dense = keras.layers.Dense(3, kernel_initializer=keras.initializers.Constant(0.1),
                               bias_initializer=keras.initializers.Constant(0.2), **kwargs)
    return keras.Model(inp, dense(inp)), dense


def _compile(model, lr=0.1, **kwargs):
    model.compile(keras.optimizers.SGD(lr),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True), **kwargs)


def test_regularizer_objects_and_get():
    assert keras.regularizers.L1L2().get_config() == {"l1": 0.0, "l2": 0.0}
    assert keras.regularizers.get("l2").get_config() == {"l2": 0.01}
    assert isinstance(keras.regularizers.get("L1L2"), keras.regularizers.L1L2)
    assert keras.regularizers.get(None) is None
    np.testing.assert_allclose(float(keras.regularizers.l1_l2(0.1, 0.2)(np.ones((2, 2)))), 1.2,
                               rtol=1e-6)
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier"):
        keras.regularizers.get("l1_l2")
    with pytest.raises(ValueError, match="expected a non-negative float"):
        keras.regularizers.L2(-1.0)


def test_losses_are_weight_penalties_then_activity_per_call():
    model, _ = _model(kernel_regularizer=keras.regularizers.l2(0.1),
                      bias_regularizer=keras.regularizers.l1(0.5),
                      activity_regularizer=keras.regularizers.L1L2(0.01, 0.02))
    np.testing.assert_allclose([float(v) for v in model.losses], [0.012, 0.3], rtol=1e-6)
    model(X)
    expected = [0.013352741487324238, 0.012, 0.3]
    np.testing.assert_allclose([float(v) for v in model.losses], expected, rtol=1e-6)
    model(X)  # recomputed each call, not accumulated
    np.testing.assert_allclose([float(v) for v in model.losses], expected, rtol=1e-6)


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_fit_evaluate_train_on_batch_add_regularization(run_eagerly):
    model, dense = _model(kernel_regularizer=keras.regularizers.l2(0.1),
                          bias_regularizer=keras.regularizers.l1(0.5),
                          activity_regularizer=keras.regularizers.L1L2(0.01, 0.02))
    _compile(model, run_eagerly=run_eagerly)
    np.testing.assert_allclose(model.evaluate(X, Y, verbose=0), 1.4239649772644043, rtol=1e-6)
    np.testing.assert_allclose(model.train_on_batch(X, Y), 1.4239649772644043, rtol=1e-6)
    history = model.fit(X, Y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["loss"], [1.3128341436386108, 1.144355297088623],
                               rtol=1e-5)
    np.testing.assert_allclose(np.asarray(dense.kernel).sum(), 1.0211934, rtol=1e-5)


def test_constraints_apply_after_each_update():
    model, dense = _model(kernel_constraint=keras.constraints.MaxNorm(0.3),
                          bias_constraint=keras.constraints.NonNeg())
    _compile(model, lr=0.5)
    model.fit(X, Y, batch_size=6, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(np.asarray(dense.kernel)[:, 0],
                               [0.048159, 0.048188, 0.048216, 0.048244], atol=2e-6)
    np.testing.assert_allclose(np.asarray(dense.kernel)[:, 2],
                               [0.150065, 0.150022, 0.149978, 0.149935], atol=2e-6)
    np.testing.assert_allclose(np.asarray(dense.bias), [0.200323, 0.200323, 0.199353],
                               atol=2e-6)


def test_constraint_functions():
    w = np.array([[3., 0.], [4., 1.]], "float32")
    np.testing.assert_allclose(np.asarray(keras.constraints.max_norm(2.0)(w)),
                               [[1.2, 0.], [1.6, 0.9999999]], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(keras.constraints.unit_norm()(w)),
                               [[0.6, 0.], [0.8, 0.9999999]], rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(keras.constraints.non_neg()(-w)), np.zeros((2, 2)))
    assert keras.constraints.get("max_norm").get_config() == {"max_value": 2, "axis": 0}


def test_class_weight_weights_the_loss():
    model, dense = _model()
    _compile(model, lr=0.5)
    history = model.fit(X, Y, batch_size=2, epochs=2, verbose=0, shuffle=False,
                        class_weight={0: 2.0, 2: 0.5})
    np.testing.assert_allclose(history.history["loss"], [1.453386664390564, 1.2107430696487427],
                               rtol=1e-5)
    with pytest.raises(ValueError, match="cannot `class_weight` and `sample_weight`"):
        model.fit(X, Y, class_weight={0: 1.0}, sample_weight=np.ones(6), verbose=0)


def test_steps_per_epoch_continues_the_pass_across_epochs():
    model, dense = _model()
    _compile(model, lr=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(X, Y, batch_size=2, epochs=3, verbose=0, shuffle=False,
                            steps_per_epoch=2)
    assert any("ran out of data" in str(w.message) for w in caught)
    # 3 batches a pass: epochs take 2, then the 1 left (warning), then 2 of a new pass
    assert int(model.optimizer.iterations.numpy()) == 5
    np.testing.assert_allclose(history.history["loss"],
                               [1.1474428176879883, 1.1946967840194702, 1.1145217418670654],
                               rtol=1e-5)


def test_embedding_and_conv_take_regularizers():
    emb = keras.layers.Embedding(5, 2, embeddings_initializer="ones",
                                 embeddings_regularizer=keras.regularizers.l2(0.5))
    emb(np.array([[1, 2]]))
    np.testing.assert_allclose([float(v) for v in emb.losses], [5.0])
    conv = keras.layers.Conv2D(2, 2, kernel_initializer="ones", bias_initializer="ones",
                               kernel_regularizer="l1", bias_regularizer="l2")
    conv(np.zeros((1, 3, 3, 1), "float32"))
    np.testing.assert_allclose([float(v) for v in conv.losses], [0.08, 0.02], rtol=1e-6)
