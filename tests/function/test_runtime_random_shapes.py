"""Random ops whose `shape` is known only when a traced graph runs (a batch of unknown size in
tf.function, Dataset.map or Keras fit): TensorFlow takes the shape as an input of the op, and
so does tapeflow. Each op is traced with an input_signature of unknown dims and a shape made
from `tf.shape`, called with two sizes and compared with the eager numbers for the same
seeds; static shapes and run-time errors are TF 2.21's (measured, written as literals)."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

# unknown batch and height: the traced functions get their sizes from tf.shape(x)
IMAGES = [tf.TensorSpec([None, None, 3], tf.float32)]
SIZES = (2, 5)


def _traced(fn, signature=IMAGES):
    return tf.function(fn, input_signature=signature)


def _static_shape(fn, signature=IMAGES):
    shape = _traced(fn, signature).get_concrete_function().structured_outputs.shape
    return None if shape.rank is None else tuple(shape.as_list())


def _batch(n):
    return tf.zeros([n, 1, 3])


STATELESS = {
    "stateless_uniform": lambda shape: tf.random.stateless_uniform(shape, seed=[1, 2]),
    "stateless_normal": lambda shape: tf.random.stateless_normal(shape, seed=[3, 4]),
    "stateless_truncated_normal": lambda shape: tf.random.stateless_truncated_normal(
        shape, seed=[5, 6], mean=1.0, stddev=2.0),
    "stateless_uniform_int": lambda shape: tf.random.stateless_uniform(
        shape, seed=[7, 8], minval=-3, maxval=9, dtype=tf.int32),
    "stateless_uniform_full_int": lambda shape: tf.random.stateless_uniform(
        shape, seed=[9, 1], minval=None, maxval=None, dtype=tf.int64),
    "stateless_gamma": lambda shape: tf.random.stateless_gamma(
        tf.concat([shape, [2]], 0) if isinstance(shape, tf.Tensor) else list(shape) + [2],
        seed=[1, 3], alpha=[0.5, 2.0]),
    "stateless_poisson": lambda shape: tf.random.stateless_poisson(shape, seed=[2, 3], lam=3.0),
    "stateless_binomial": lambda shape: tf.random.stateless_binomial(
        shape, seed=[4, 5], counts=10.0, probs=0.3),
}


@pytest.mark.parametrize("name", sorted(STATELESS))
def test_stateless_ops_take_a_run_time_shape(name):
    draw = STATELESS[name]
    traced = _traced(lambda x: draw([tf.shape(x)[0], 2]))
    for n in SIZES:
        np.testing.assert_array_equal(traced(_batch(n)).numpy(), draw([n, 2]).numpy())
    traced_whole = _traced(lambda x: draw(tf.shape(x)))
    np.testing.assert_array_equal(traced_whole(tf.zeros([3, 4, 3])).numpy(),
                                  draw([3, 4, 3]).numpy())


# Measured with TF 2.21: the static shapes of the traced draws.
STATIC_SHAPES = [
    ("uniform", lambda x: tf.random.uniform(tf.shape(x), seed=1), (None, None, 3)),
    ("uniform_list", lambda x: tf.random.uniform([tf.shape(x)[0], 2], seed=1), (None, 2)),
    ("normal_slice", lambda x: tf.random.normal(tf.shape(x)[:2], seed=1), (None, None)),
    ("normal_tail", lambda x: tf.random.normal(tf.shape(x)[1:], seed=1), (None, 3)),
    ("items", lambda x: tf.random.uniform([tf.shape(x)[-1], tf.shape(x)[0]], seed=1),
     (3, None)),
    ("constant", lambda x: tf.random.uniform(tf.constant([2, 3]), seed=1), (2, 3)),
    ("stateless", lambda x: tf.random.stateless_normal([tf.shape(x)[0], 2], [1, 2]), (None, 2)),
    ("gamma", lambda x: tf.random.gamma([tf.shape(x)[0]], [1.0, 2.0], seed=1), (None, 2)),
    ("stateless_gamma", lambda x: tf.random.stateless_gamma([tf.shape(x)[0], 2], [1, 2],
                                                            [1.0, 2.0]), (None, 2)),
    ("poisson", lambda x: tf.random.poisson([tf.shape(x)[0]], [1.0, 2.0], seed=1), (None, 2)),
    ("stateless_binomial", lambda x: tf.random.stateless_binomial(
        [tf.shape(x)[0], 2], [1, 2], [3.0, 4.0], 0.5), (None, 2)),
]


@pytest.mark.parametrize("fn,expected", [case[1:] for case in STATIC_SHAPES],
                         ids=[case[0] for case in STATIC_SHAPES])
def test_static_shapes_are_tensorflows(fn, expected):
    assert _static_shape(fn) == expected


def test_dims_known_statically_stay_known():
    # Measured with TF 2.21: (3, 5) for a batch of 5 in the signature.
    assert _static_shape(lambda x: tf.random.stateless_uniform(
        [tf.shape(x)[-1], tf.shape(x)[0]], [1, 2]), [tf.TensorSpec([5, None, 3])]) == (3, 5)


def test_a_shape_argument_of_unknown_length_gives_an_unknown_rank():
    # Measured with TF 2.21: <unknown> and (None, None, None).
    assert _static_shape(lambda s: tf.random.uniform(s, seed=1),
                         [tf.TensorSpec([None], tf.int32)]) is None
    assert _static_shape(lambda s: tf.random.normal(s, seed=1),
                         [tf.TensorSpec([3], tf.int32)]) == (None, None, None)
    traced = _traced(lambda s: tf.random.stateless_uniform(s, seed=[1, 1]),
                     [tf.TensorSpec([None], tf.int32)])
    np.testing.assert_array_equal(traced(tf.constant([2, 3])).numpy(),
                                  tf.random.stateless_uniform([2, 3], seed=[1, 1]).numpy())


STATEFUL = {
    "uniform": lambda shape: tf.random.uniform(shape, seed=11),
    "uniform_bounds": lambda shape: tf.random.uniform(shape, minval=-2.0, maxval=3.0, seed=12),
    "uniform_int": lambda shape: tf.random.uniform(shape, maxval=7, dtype=tf.int64, seed=13),
    "normal": lambda shape: tf.random.normal(shape, mean=1.0, stddev=0.5, seed=14),
    "truncated_normal": lambda shape: tf.random.truncated_normal(shape, seed=15),
    "gamma": lambda shape: tf.random.gamma(shape, alpha=[1.5, 0.5], seed=16),
    "poisson": lambda shape: tf.random.poisson(shape, lam=2.0, seed=17),
}


@pytest.mark.parametrize("name", sorted(STATEFUL))
def test_stateful_ops_draw_the_eager_stream_for_run_time_shapes(name):
    """A graph node's stream starts where a fresh eager kernel's does and moves on by what each
    run-time shape draws, so calls of sizes 2 then 5 give the eager calls' numbers."""
    draw = STATEFUL[name]
    tf.random.set_seed(4)
    eager = [draw([n, 2]).numpy() for n in SIZES]
    tf.random.set_seed(4)
    traced = _traced(lambda x: draw([tf.shape(x)[0], 2]))
    for n, expected in zip(SIZES, eager):
        np.testing.assert_array_equal(traced(_batch(n)).numpy(), expected)


NEGATIVE = {
    "RandomUniform": lambda n: tf.random.uniform([n, 2], seed=1),
    "RandomStandardNormal": lambda n: tf.random.normal([n, 2], seed=1),
    "TruncatedNormal": lambda n: tf.random.truncated_normal([n, 2], seed=1),
    "RandomUniformInt": lambda n: tf.random.uniform([n, 2], maxval=4, dtype=tf.int32, seed=1),
    "StatelessRandomUniformV2": lambda n: tf.random.stateless_uniform([n, 2], seed=[1, 2]),
    "StatelessRandomNormalV2": lambda n: tf.random.stateless_normal([n, 2], seed=[1, 2]),
    "StatelessTruncatedNormalV2": lambda n: tf.random.stateless_truncated_normal([n, 2],
                                                                                 seed=[1, 2]),
    "StatelessRandomUniformIntV2": lambda n: tf.random.stateless_uniform(
        [n, 2], seed=[1, 2], minval=0, maxval=3, dtype=tf.int32),
    "RandomGamma": lambda n: tf.random.gamma([n], 1.0, seed=1),
    "RandomPoissonV2": lambda n: tf.random.poisson([n], 1.0, seed=1),
    "StatelessRandomGammaV3": lambda n: tf.random.stateless_gamma([n], [1, 2], 1.0),
    "StatelessRandomPoisson": lambda n: tf.random.stateless_poisson([n], [1, 2], 1.0),
    "StatelessRandomBinomial": lambda n: tf.random.stateless_binomial([n], [1, 2], 3.0, 0.5),
}


@pytest.mark.parametrize("op", sorted(NEGATIVE))
def test_a_negative_run_time_size_is_the_kernels_error(op):
    # Measured with TF 2.21: InvalidArgumentError "Dimension -3 must be >= 0" from the node.
    traced = _traced(lambda x: NEGATIVE[op](tf.shape(x)[0] - 5))
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"Dimension -3 must be >= 0.*{op}"):
        traced(_batch(2))
    assert traced(_batch(6)).shape[0] == 1


def test_generator_moves_its_state_by_the_run_time_size():
    g = tf.random.Generator.from_seed(3)
    eager = tf.random.Generator.from_seed(3)
    traced = _traced(lambda x: g.normal([tf.shape(x)[0], 2]))
    assert _static_shape(lambda x: g.uniform([tf.shape(x)[0], 2])) == (None, 2)
    for n in SIZES:
        np.testing.assert_array_equal(traced(_batch(n)).numpy(), eager.normal([n, 2]).numpy())
        np.testing.assert_array_equal(g.state.numpy(), eager.state.numpy())
    # TF 2.21 moves a state [3, 0, 0] to [2563, 0, 0] for a [5, 2] draw: 256 per output
    fresh = tf.random.Generator.from_state([3, 0, 0], "philox")
    _traced(lambda x: fresh.uniform([tf.shape(x)[0], 2]))(_batch(5))
    assert fresh.state.numpy().tolist() == [2563, 0, 0]


def test_generator_draw_of_a_negative_run_time_size_leaves_the_state_alone():
    # TF 2.21 raises InvalidArgumentError "Dimension -2 must be >= 0" (after moving the state
    # by the negative size); tapeflow checks the size before it moves the state.
    g = tf.random.Generator.from_seed(3)
    before = g.state.numpy().copy()
    traced = _traced(lambda x: g.normal([tf.shape(x)[0] - 3, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -2 must be >= 0"):
        traced(_batch(1))
    np.testing.assert_array_equal(g.state.numpy(), before)
    for method in ("uniform", "truncated_normal", "uniform_full_int"):
        fill = _traced(lambda x, method=method: getattr(g, method)([tf.shape(x)[0], 2]))
        expected = getattr(tf.random.Generator.from_seed(3), method)([4, 2]).numpy()
        g.reset_from_seed(3)
        np.testing.assert_array_equal(fill(_batch(4)).numpy(), expected)


def test_gradients_flow_through_draws_of_run_time_shape():
    stddev = tf.Variable(2.0)
    alpha = tf.Variable([1.5, 0.5])

    @tf.function(input_signature=IMAGES)
    def loss(x):
        shape = [tf.shape(x)[0], 2]
        noise = tf.random.stateless_normal(shape, seed=[1, 2], stddev=stddev)
        samples = tf.random.stateless_gamma(shape, seed=[3, 4], alpha=alpha)
        return tf.reduce_sum(noise) + tf.reduce_sum(samples)

    for n in SIZES:
        with tf.GradientTape() as tape:
            value = loss(_batch(n))
        d_stddev, d_alpha = tape.gradient(value, [stddev, alpha])
        with tf.GradientTape() as tape:
            shape = [n, 2]
            expected_value = tf.reduce_sum(tf.random.stateless_normal(
                shape, seed=[1, 2], stddev=stddev)) + tf.reduce_sum(
                tf.random.stateless_gamma(shape, seed=[3, 4], alpha=alpha))
        e_stddev, e_alpha = tape.gradient(expected_value, [stddev, alpha])
        np.testing.assert_allclose(value.numpy(), expected_value.numpy(), rtol=1e-6)
        np.testing.assert_allclose(d_stddev.numpy(), e_stddev.numpy(), rtol=1e-6)
        np.testing.assert_allclose(d_alpha.numpy(), e_alpha.numpy(), rtol=1e-6)


def test_keras_random_takes_a_shape_tensor():
    from tapeflow import keras
    traced = _traced(lambda x: keras.random.uniform(tf.shape(x), seed=5))
    assert traced.get_concrete_function().structured_outputs.shape.as_list() == [None, None, 3]
    np.testing.assert_array_equal(traced(tf.zeros([2, 4, 3])).numpy(),
                                  keras.random.uniform((2, 4, 3), seed=5).numpy())
    normal = _traced(lambda x: keras.random.normal([tf.shape(x)[0], 3], seed=6))
    np.testing.assert_array_equal(normal(_batch(4)).numpy(),
                                  keras.random.normal((4, 3), seed=6).numpy())


def test_a_static_shape_stays_an_attribute():
    """The run-time path is taken only for a traced shape: Python sizes under a trace give
    the op no shape input and an exact static shape."""
    graph = _traced(lambda seed: tf.random.stateless_uniform([2, 3], seed=seed),
                    [tf.TensorSpec([2], tf.int32)]).get_concrete_function().graph
    nodes = [n for n in graph.nodes if n.op_name == "StatelessRandomUniformV2"]
    assert len(nodes) == 1 and len(nodes[0].inputs) == 2 and nodes[0].attrs["shape"] == (2, 3)


def test_generator_binomial_moves_its_state_as_the_eager_call():
    g, eager = tf.random.Generator.from_seed(1), tf.random.Generator.from_seed(1)
    traced = _traced(lambda x: g.binomial([tf.shape(x)[0], 2], [5.0, 3.0], 0.5))
    assert _static_shape(lambda x: g.binomial([tf.shape(x)[0], 2], [5.0, 3.0], 0.5)) == (None, 2)
    for n in SIZES:
        np.testing.assert_array_equal(traced(_batch(n)).numpy(),
                                      eager.binomial([n, 2], [5.0, 3.0], 0.5).numpy())
        np.testing.assert_array_equal(g.state.numpy(), eager.state.numpy())
    # Measured with TF 2.21: InvalidArgumentError "Shape passed in must end with broadcasted
    # shape." when the graph runs; the state stays where it was.
    before = g.state.numpy().copy()
    wrong = _traced(lambda x: g.binomial([tf.shape(x)[0], 3], [5.0, 3.0], 0.5))
    with pytest.raises(tf.errors.InvalidArgumentError, match="must end with broadcasted shape"):
        wrong(_batch(2))
    np.testing.assert_array_equal(g.state.numpy(), before)


IMAGE_OPS = {
    "flip_left_right": lambda x: tf.image.stateless_random_flip_left_right(x, seed=[1, 2]),
    "flip_up_down": lambda x: tf.image.stateless_random_flip_up_down(x, seed=[3, 2]),
    "brightness": lambda x: tf.image.stateless_random_brightness(x, 0.2, seed=[1, 2]),
    "contrast": lambda x: tf.image.stateless_random_contrast(x, 0.2, 0.5, seed=[1, 2]),
    "saturation": lambda x: tf.image.stateless_random_saturation(x, 0.2, 0.5, seed=[1, 2]),
    "hue": lambda x: tf.image.stateless_random_hue(x, 0.2, seed=[1, 2]),
    "crop": lambda x: tf.image.stateless_random_crop(x, [2, 4, 5, 3], seed=[1, 2]),
    "crop_of_run_time_size": lambda x: tf.image.stateless_random_crop(
        x, tf.shape(x) - [1, 2, 3, 0], seed=[1, 2]),
}


@pytest.mark.parametrize("name", sorted(IMAGE_OPS))
def test_image_random_ops_traced_with_unknown_sizes_equal_eager(name):
    op = IMAGE_OPS[name]
    traced = _traced(op, [tf.TensorSpec([None, None, None, 3], tf.float32)])
    for shape in [(3, 7, 9, 3), (2, 6, 8, 3)]:
        x = np.random.RandomState(sum(shape)).uniform(0, 1, shape).astype(np.float32)
        np.testing.assert_array_equal(traced(x).numpy(), op(x).numpy())


LOGITS = np.log([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]]).astype(np.float32)
COUNTS = [tf.TensorSpec([None], tf.float32)]


def test_categorical_takes_a_run_time_num_samples():
    # Measured with TF 2.21: static shape (2, None); a negative count raises
    # InvalidArgumentError "num_samples should be non-negative, got -1" when the graph runs.
    stateless = _traced(lambda x: tf.random.stateless_categorical(LOGITS, tf.shape(x)[0] - 2,
                                                                  seed=[1, 2]), COUNTS)
    assert tuple(stateless.get_concrete_function().structured_outputs.shape.as_list()) == (2, None)
    for n in (3, 7):
        np.testing.assert_array_equal(stateless(tf.zeros([n])).numpy(),
                                      tf.random.stateless_categorical(LOGITS, n - 2, seed=[1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_samples should be non-negative"):
        stateless(tf.zeros([1]))
    tf.random.set_seed(3)
    eager = [tf.random.categorical(LOGITS, n, seed=4).numpy() for n in SIZES]
    tf.random.set_seed(3)
    stateful = _traced(lambda x: tf.random.categorical(LOGITS, tf.shape(x)[0], seed=4), COUNTS)
    for n, expected in zip(SIZES, eager):
        np.testing.assert_array_equal(stateful(tf.zeros([n])).numpy(), expected)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_samples should be non-negative"):
        _traced(lambda x: tf.random.categorical(LOGITS, tf.shape(x)[0] - 2), COUNTS)(tf.zeros([1]))
