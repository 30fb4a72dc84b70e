"""Compiled programs write results into dying buffers (matrix products, bias adds, ReLU and
its gradient, updates): every number must equal the plain path's, where each op allocates."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.graph import backward, compiler


def _use_plain_path(monkeypatch) -> None:
    """Compiles without buffer reuse (the reference path); new backward programs too."""
    monkeypatch.setattr(compiler, "REUSE_BUFFERS", False)
    monkeypatch.setattr(backward, "_programs", {})
    monkeypatch.setattr(backward, "_seen", {})


@pytest.fixture
def plain(monkeypatch):
    _use_plain_path(monkeypatch)


def _train(model, optimizer, x, y, steps: int, compiled: bool = True) -> list:
    """`steps` Keras training steps with sparse softmax cross-entropy from logits: the
    losses, then the weights after them."""
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    if compiled:
        step = tf.function(step)
    return [step(x, y).numpy() for _ in range(steps)] + \
        [v.numpy() for v in model.trainable_variables]


def _mlp_training(optimizer: str, compiled: bool, steps: int = 3) -> list:
    """Dense 6-256-256-4 on a batch of 64 (hidden results of 16384 elements: large enough
    to be written in place), ReLU, sparse softmax cross-entropy from logits, a few steps:
    the losses and the weights after them."""
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.Input((6,)),
                                 tf.keras.layers.Dense(256, activation="relu"),
                                 tf.keras.layers.Dense(256, activation="relu"),
                                 tf.keras.layers.Dense(4)])
    opt = tf.keras.optimizers.Adam(0.01) if optimizer == "adam" else \
        tf.keras.optimizers.SGD(0.1)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(64, 6)).astype(np.float32))
    y = tf.constant(rng.integers(0, 4, 64).astype(np.int32))
    return _train(model, opt, x, y, steps, compiled)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize("compiled", [True, False], ids=["tf_function", "eager"])
def test_training_step_equals_plain_path_bitwise(optimizer, compiled, monkeypatch):
    # eager: the repeated tape's backward pass is a compiled program from the second step on
    fast = _mlp_training(optimizer, compiled)
    _use_plain_path(monkeypatch)
    reference = _mlp_training(optimizer, compiled)
    for a, b in zip(fast, reference):
        np.testing.assert_array_equal(a, b)


def test_dense_relu_step_writes_into_matmul_results():
    rng = np.random.default_rng(2)
    x_np = rng.integers(-3, 4, (128, 3)).astype(np.float32)
    w_np = rng.integers(-3, 4, (3, 128)).astype(np.float32)
    w, b = tf.Variable(w_np), tf.Variable(np.ones(128, np.float32))

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w) + b))
        return tape.gradient(loss, [w, b])

    x = tf.constant(x_np)
    dw, db = (g.numpy() for g in f(x))
    source = f.get_concrete_function(x).lowered_source()
    product = next(line for line in source.splitlines() if "np.dot(" in line)
    name = product.split("=")[0].strip()
    assert f", out={name})" in source   # the bias add overwrites the product
    assert source.count("out=") >= 3   # ReLU the sum, ReluGrad its cotangent
    mask = (x_np @ w_np + 1 > 0).astype(np.float32)   # small integers: exact
    np.testing.assert_array_equal(dw, x_np.T @ mask)
    np.testing.assert_array_equal(db, mask.sum(0))


def test_a_result_used_again_is_not_overwritten():
    rng = np.random.default_rng(3)
    x_np = rng.integers(-3, 4, (128, 128)).astype(np.float32)
    w = tf.constant(np.full((128, 128), 2.0, np.float32))

    @tf.function
    def f(x):
        h = tf.matmul(x, w)         # read by the add and returned
        z = h + 1.0                 # read by relu and returned
        return h, z, tf.nn.relu(z), tf.nn.relu(h * -1.0)

    h, z, r, s = (t.numpy() for t in f(tf.constant(x_np)))
    expected = x_np @ np.full((128, 128), 2.0, np.float32)   # small integers: exact
    np.testing.assert_array_equal(h, expected)
    np.testing.assert_array_equal(z, expected + 1)
    np.testing.assert_array_equal(r, np.maximum(expected + 1, 0))
    np.testing.assert_array_equal(s, np.maximum(-expected, 0))


_EDGES = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, -1.5, 2.5, 3e38, -3e38], np.float32)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "tf_function"])
def test_relu_and_its_gradient_keep_nan_and_signed_zeros(compiled):
    # TF 2.21: relu gives +0 for -0 and negatives, keeps NaN and +inf; ReluGrad is
    # g * (y > 0), so a NaN or inf cotangent where y <= 0 gives NaN, a negative one -0
    g = tf.constant(np.array([np.nan, -1., np.inf, -np.inf, 1., -2., 3., -4., 5.], np.float32))

    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.relu(x * 1.0)
        return y, tape.gradient(y, x, output_gradients=g)

    f = tf.function(f) if compiled else f
    y, dx = (t.numpy() for t in f(tf.constant(_EDGES)))
    np.testing.assert_array_equal(y.view(np.uint32)[[0, 1, 3, 5]], [0, 0, 0, 0])
    np.testing.assert_array_equal(y[[4, 6, 7, 8]], np.float32([np.inf, 2.5, 3e38, 0.]))
    assert np.isnan(y[2])
    np.testing.assert_array_equal(dx[[1, 4, 6, 7, 8]], [-0., 1., 3., -4., 0.])
    assert np.signbit(dx[[1, 5]]).all() and not np.signbit(dx[8])
    assert np.isnan(dx[[0, 2, 3]]).all()


def test_relu_of_growing_and_integer_inputs():
    small = tf.nn.relu(tf.constant([-1.0, 2.0]))
    large = tf.nn.relu(tf.constant(np.linspace(-1, 1, 1001, dtype=np.float32)))
    again = tf.nn.relu(tf.constant([[3.0], [-3.0]]))
    np.testing.assert_array_equal(small.numpy(), [0., 2.])
    np.testing.assert_array_equal(large.numpy(), np.maximum(np.linspace(-1, 1, 1001,
                                                                         dtype=np.float32), 0))
    np.testing.assert_array_equal(again.numpy(), [[3.], [0.]])
    ints = tf.nn.relu(tf.constant([-3, 0, 5]))
    assert ints.dtype == tf.int32 and ints.numpy().tolist() == [0, 0, 5]
    assert float(tf.nn.relu(tf.constant(-2.0))) == 0.0


def test_check_numerics_still_names_the_op_after_in_place_writes():
    w = tf.constant(np.full((1, 16384), 1e38, np.float32))
    bias = tf.constant(np.r_[3e38, np.zeros(16383)].astype(np.float32))

    @tf.function
    def f(x):   # the product is finite, the bias add overflows (and is written in place)
        return tf.nn.relu(tf.matmul(x, w) + bias)

    tf.debugging.enable_check_numerics()
    try:
        with pytest.raises(tf.errors.InvalidArgumentError, match="AddV2"):
            f(tf.constant([[1.0]]))
    finally:
        tf.debugging.disable_check_numerics()


def test_plain_path_has_no_in_place_writes(plain):
    @tf.function
    def f(x):
        return tf.nn.relu(tf.matmul(x, x) + 1.0)

    x = tf.constant(np.eye(128, dtype=np.float32))
    np.testing.assert_array_equal(f(x).numpy(), np.eye(128) + 1)
    assert "out=" not in f.get_concrete_function(x).lowered_source()


def test_runs_without_locks_only_when_they_call_no_python():
    # A lone thread's run needs no variable locks unless the run may call Python (which may
    # start threads that update the variables meanwhile).
    v = tf.Variable(1.0)

    @tf.function
    def plain(x):
        v.assign_add(x)
        return v.read_value()

    @tf.function
    def calling(x):
        y = tf.py_function(lambda a: a * 2.0, [x], tf.float32)
        v.assign_add(y)
        return v.read_value()
    x = tf.constant(1.0)
    assert plain.get_concrete_function(x)._alone_unlocked
    assert not calling.get_concrete_function(x)._alone_unlocked
    assert float(plain(x)) == 2.0 and float(calling(x)) == 4.0


def _reshape_program(keep_input: bool, return_view: bool):
    """relu(x @ w) reshaped, then a large elementwise op on the reshaped value: the reshape's
    buffer dies there unless the product is used again or the view is returned."""
    @tf.function
    def f(x, w):
        h = x @ w                                 # 128 x 256: large, fresh, owned
        v = tf.reshape(h, (128, 16, 16))
        out = tf.nn.relu(v) * 2.0
        extra = [tf.reduce_sum(h, axis=0)] if keep_input else []
        return [out] + extra + ([v] if return_view else [])
    return f


@pytest.mark.parametrize("keep_input", [False, True])
@pytest.mark.parametrize("return_view", [False, True])
def test_a_reshape_of_a_dying_buffer_is_written_only_when_nothing_else_sees_it(
        keep_input, return_view, monkeypatch):
    rng = np.random.default_rng(2)
    x = tf.constant(rng.normal(size=(128, 8)).astype(np.float32))
    w = tf.constant(rng.normal(size=(8, 256)).astype(np.float32))
    fast = [t.numpy() for t in _reshape_program(keep_input, return_view)(x, w)]
    monkeypatch.setattr(compiler, "REUSE_BUFFERS", False)
    reference = [t.numpy() for t in _reshape_program(keep_input, return_view)(x, w)]
    for a, b in zip(fast, reference):
        np.testing.assert_array_equal(a, b)
    h = x.numpy() @ w.numpy()
    np.testing.assert_allclose(fast[0], np.maximum(h.reshape(128, 16, 16), 0) * 2, rtol=1e-6)
    if return_view:
        np.testing.assert_allclose(fast[-1], h.reshape(128, 16, 16), rtol=1e-6)


def _cnn_training(steps: int = 2) -> list:
    """Conv-pool-conv-dense on 16 images of 16x16: the convolutions' and pools' results and
    gradients are large enough to be written in place (bias add, ReLU, ReLU's gradient)."""
    tf.keras.utils.set_random_seed(3)
    model = tf.keras.Sequential([tf.keras.Input((16, 16, 1)),
                                 tf.keras.layers.Conv2D(32, 3, activation="relu"),
                                 tf.keras.layers.MaxPooling2D(2),
                                 tf.keras.layers.Conv2D(64, 3, activation="relu"),
                                 tf.keras.layers.Flatten(), tf.keras.layers.Dense(3)])
    rng = np.random.default_rng(4)
    x = tf.constant(rng.normal(size=(16, 16, 16, 1)).astype(np.float32))
    y = tf.constant(rng.integers(0, 3, 16).astype(np.int32))
    return _train(model, tf.keras.optimizers.Adam(0.01), x, y, steps)


def test_cnn_training_step_equals_plain_path_bitwise(monkeypatch):
    fast = _cnn_training()
    monkeypatch.setattr(compiler, "REUSE_BUFFERS", False)
    for a, b in zip(fast, _cnn_training()):
        np.testing.assert_array_equal(a, b)
