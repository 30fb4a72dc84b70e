"""Keras 3 on TensorFlow draws its random numbers with stateless TensorFlow ops on seeds it
derives itself; after `keras.utils.set_random_seed`, tapeflow's Keras draws the same. The
expected numbers are TF 2.21 / Keras 3.15's answers for the same program."""

import numpy as np

import tapeflow as tf

keras = tf.keras


def test_a_seeded_custom_training_loop_prints_kerass_losses():
    keras.utils.set_random_seed(1)
    model = keras.Sequential([
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dropout(0.2),
        keras.layers.Dense(32, activation="relu", kernel_initializer="he_normal"),
        keras.layers.Dense(1, kernel_initializer="glorot_normal"),
    ])
    optimizer = keras.optimizers.Adam(learning_rate=0.001)
    loss_fn = keras.losses.MeanSquaredError()
    x = tf.random.normal((100, 10))
    y = tf.random.normal((100, 1))
    model(x[:1])
    sums = [round(float(tf.reduce_sum(v)), 5) for v in model.trainable_variables]
    assert sums == [-4.14705, 0.0, 12.75485, 0.0, -0.91203, 0.0]
    losses = []
    for _ in range(3):
        for i in range(0, 100, 32):
            with tf.GradientTape() as tape:
                loss = loss_fn(y[i:i + 32], model(x[i:i + 32], training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        losses.append(f"{loss.numpy():.6f}")
    assert losses == ["2.695548", "1.754576", "1.549137"]
    # keras.random after the program: an int seed, then the global seed generator.
    np.testing.assert_array_equal(keras.random.normal([3], seed=5).numpy(),
                                  np.array([-2.0553784, 1.1581877, 0.19160862], np.float32))
    np.testing.assert_allclose(keras.random.uniform([2]).numpy(), [0.18633687, 0.15524602],
                               rtol=1e-7)


def test_a_seed_generator_moves_on_and_an_int_seed_repeats():
    gen = keras.random.SeedGenerator(42)
    first, second = (keras.random.uniform([3], seed=gen).numpy() for _ in range(2))
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(keras.random.uniform([3], seed=7).numpy(),
                                  keras.random.uniform([3], seed=7).numpy())
