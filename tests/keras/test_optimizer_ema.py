"""The optimizers' exponential moving average (`use_ema`), Keras's slot order, and the
averages in saved files. The expected numbers are Keras 3.15's (TensorFlow backend, eager
`apply_gradients`), printed by real Keras running the same loop."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras


def _data():
    rng = np.random.default_rng(0)
    return (rng.normal(size=(16, 3)).astype("float32"),
            rng.normal(size=(16, 2)).astype("float32"))


def _model():
    init = keras.initializers.Constant(np.arange(6).reshape(3, 2) / 10.)
    return keras.Sequential([keras.Input((3,)),
                             keras.layers.Dense(2, kernel_initializer=init,
                                                bias_initializer="zeros")])


def _train(opt, traced=False, steps=8):
    """Eight steps of mean squared error on batches of two; returns the model."""
    x, y = _data()
    model = _model()

    def step(xb, yb):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb) - yb))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))

    if traced:
        step = tf.function(step)
    for i in range(steps):
        step(x[2 * i:2 * i + 2], y[2 * i:2 * i + 2])
    return model


def _f32(values):
    return [np.array(v, np.float32) for v in values]


# (optimizer, model weights after 8 steps, moving averages after 8 steps), Keras 3.15's.
KERAS_EMA = [
    (lambda: keras.optimizers.SGD(learning_rate=0.1, use_ema=True),
     [[0.00638270378112793, -0.09478627145290375, -0.11430557817220688, 0.47406846284866333,
       0.3760295510292053, 0.39329296350479126], [0.16832876205444336, -0.04015008360147476]],
     [[0.013459418900310993, 0.0873294547200203, 0.17551937699317932, 0.3260883688926697,
       0.45422065258026123, 0.5029686093330383], [0.09854687005281448, -0.009358533658087254]]),
    (lambda: keras.optimizers.Adam(learning_rate=0.1, use_ema=True),
     [[0.10227394104003906, -0.20059029757976532, -0.07321764528751373, 0.46927863359451294,
       0.5220770239830017, 0.2958165407180786], [0.35824054479599, 0.03908952325582504]],
     [[0.10321802645921707, -0.005721776746213436, 0.09826391190290451, 0.4045999348163605,
       0.5026811957359314, 0.5866628289222717], [0.10961725562810898, -0.09020256251096725]]),
    (lambda: keras.optimizers.SGD(learning_rate=0.1, momentum=0.9, use_ema=True,
                                  ema_overwrite_frequency=3),
     [[0.0538683645427227, -0.21772855520248413, -0.2717074155807495, 0.6078112721443176,
       0.5214202404022217, 0.22090747952461243], [0.38860416412353516, -0.23071759939193726]],
     [[0.016399309039115906, 0.08034893125295639, 0.17167045176029205, 0.3281489610671997,
       0.45932427048683167, 0.4996488392353058], [0.10740151256322861, -0.011412163265049458]]),
]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("case", range(len(KERAS_EMA)), ids=["sgd", "adam", "sgd_overwrite"])
def test_moving_average_is_keras_bitwise(case, traced):
    make, weights, averages = KERAS_EMA[case]
    opt = make()
    model = _train(opt, traced)
    got = [np.ravel(w) for w in model.get_weights()]
    for g, want in zip(got, _f32(weights)):
        np.testing.assert_array_equal(g, want)
    for avg, want in zip(opt._model_variables_moving_average, _f32(averages)):
        np.testing.assert_array_equal(np.ravel(avg.numpy()), want)
    opt.finalize_variable_values(model.trainable_variables)
    for g, want in zip(model.get_weights(), _f32(averages)):
        np.testing.assert_array_equal(np.ravel(g), want)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_fused_and_op_by_op_steps_give_the_same_averages(name):
    results = []
    for fused in (True, False):
        opt = getattr(keras.optimizers, name)(learning_rate=0.1, use_ema=True,
                                              ema_momentum=0.8)
        opt._fused_updates = fused
        model = _train(opt)
        results.append([v.numpy() for v in opt.variables] + model.get_weights())
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_first_step_average_is_the_variable():
    # Keras's momentum is 0 while iterations == 0: the average starts at the updated value.
    opt = keras.optimizers.SGD(learning_rate=0.1, use_ema=True)
    model = _train(opt, steps=1)
    for w, avg in zip(model.get_weights(), opt._model_variables_moving_average):
        np.testing.assert_array_equal(w, avg.numpy())


def test_ema_variable_order_and_names_are_keras():
    # Keras 3.15: averages right after iteration and learning_rate, then Adam's slots
    # variable by variable (kernel momentum, kernel velocity, bias momentum, ...).
    opt = keras.optimizers.Adam(use_ema=True)
    model = _model()
    opt.build(model.trainable_variables)
    names = [v.name.split(":")[0] for v in opt.variables]
    prefix = model.layers[0].name
    prefix = f"{model.name}_{prefix}"
    assert names == ["iteration", "learning_rate", f"{prefix}_kernel_average",
                     f"{prefix}_bias_average", f"{prefix}_kernel_momentum",
                     f"{prefix}_kernel_velocity", f"{prefix}_bias_momentum",
                     f"{prefix}_bias_velocity"]


def test_add_optimizer_variables_interleaves_names_per_variable():
    opt = keras.optimizers.SGD()
    a, b = tf.Variable(np.zeros(2, np.float32), name="a"), tf.Variable(np.zeros(3), name="b")
    firsts, seconds = opt.add_optimizer_variables([a, b], ["m", "v"], initializer=["zeros", 1.0])
    assert opt.variables[2:] == [firsts[0], seconds[0], firsts[1], seconds[1]]
    assert seconds[1].dtype == tf.float64 and np.all(seconds[1].numpy() == 1.0)
    with pytest.raises(ValueError, match="number of provided names"):
        opt.add_optimizer_variables([a], ["m", "v"], initializer=["zeros"])


@pytest.mark.parametrize("kwargs, message", [
    ({"ema_momentum": 1.5}, "`ema_momentum` must be in the range"),
    ({"ema_overwrite_frequency": 0.5}, "`ema_overwrite_frequency` must be an integer"),
])
def test_bad_ema_arguments_raise_keras_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        keras.optimizers.Adam(use_ema=True, **kwargs)


def test_ema_config_round_trips():
    opt = keras.optimizers.Adam(use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=4)
    again = keras.optimizers.Adam.from_config(opt.get_config())
    assert (again.use_ema, again.ema_momentum, again.ema_overwrite_frequency) == (True, 0.5, 4)


def test_weights_file_holds_the_averages(tmp_path):
    opt = keras.optimizers.Adam(learning_rate=0.1, use_ema=True)
    model = _train(opt, steps=3)
    model.compile(optimizer=opt, loss="mse")
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    other = _model()
    other.compile(optimizer=keras.optimizers.Adam(learning_rate=0.1, use_ema=True), loss="mse")
    other.optimizer.build(other.trainable_variables)
    other.load_weights(path)
    assert len(other.optimizer.variables) == 8
    for a, b in zip(opt.variables, other.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_fit_ends_with_the_moving_averages_in_the_model():
    # Keras's fit calls optimizer.finalize_variable_values after its last epoch: with use_ema
    # the model keeps the averages, not the last raw weights.
    import numpy as np
    from tapeflow import keras
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5),
                  loss="mse")
    x = np.arange(24, dtype=np.float32).reshape(8, 3) / 10
    model.fit(x, x[:, :1], epochs=2, batch_size=4, verbose=0)
    averages = model.optimizer._model_variables_moving_average
    for weight, average in zip(model.trainable_weights, averages):
        np.testing.assert_array_equal(weight.numpy(), average.numpy())
