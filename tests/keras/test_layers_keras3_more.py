"""Keras 3.15's further core layers against Keras's numbers (tests/keras/fixtures/
layers_keras3_more.*, recorded by tools/record_keras_layers_keras3_more.py): Dot, RMSNormalization,
the adaptive pools, Cropping3D/ZeroPadding3D/UpSampling3D, SpatialDropout3D,
ActivityRegularization and ConvLSTM1D/2D/3D. Outputs and gradients with respect to every
input and weight, weights as made after set_random_seed, weight paths, count_params, the
layers' losses, output shapes on Inputs holding None, configs and their round trip, errors,
and a model of them: Keras's .keras file loads with Keras's outputs, and tapeflow's own save
round-trips."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras.layers.layer import get_keras_mask

import _fixture_cases as fc

L = keras.layers
META, ARRAYS = fc.load("layers_keras3_more")
MASK = np.array(META["mask"], bool)
TOL = dict(rtol=2e-5, atol=2e-5)


def _call_kwargs(case):
    kw = dict(case["kwargs"])
    if case["options"].get("training"):
        kw["training"] = True
    if case["options"].get("mask"):
        kw["mask"] = tf.constant(MASK)
    return kw


def _call(layer, call, xs, kw):
    return layer(xs[0], **kw) if call == "x" else layer(list(xs), **kw)


def _first_call(name):
    """The case's layer made and called once, as the recorder did (builds it)."""
    case, layer, xts = fc.seeded_case(META, ARRAYS, name, globals())
    kw = _call_kwargs(case)
    _call(layer, case["call"], xts, kw)
    return case, layer, xts, kw


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_layer_matches_keras(name):
    case, layer, xts, kw = _first_call(name)
    fc.check_layer_case(ARRAYS, name, case, layer, xts,
                        lambda: _call(layer, case["call"], xts, kw), TOL)
    assert layer.count_params() == case["count_params"]
    np.testing.assert_allclose([float(v) for v in layer.losses], case["losses"], rtol=1e-5)


@pytest.mark.parametrize("name", sorted(n for n in META["cases"]
                                        if fc.count(ARRAYS, n, "init")))
def test_initial_weights_match_keras(name):
    """After keras.utils.set_random_seed(0) the weights are Keras's, draw for draw (the
    orthogonal recurrent kernels within 1e-6: NumPy's QR rounds apart from TensorFlow's)."""
    _, layer, _, _ = _first_call(name)
    for i, w in enumerate(layer.weights):
        np.testing.assert_allclose(w.numpy(), ARRAYS[f"{name}/init{i}"], rtol=1e-6, atol=1e-6,
                                   err_msg=f"{name} weight {w.path}")


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_symbolic_output_shapes_match_keras(name):
    """Called on keras.Inputs whose shapes hold None, the outputs have Keras's shapes."""
    case = META["cases"][name]
    keras.backend.clear_session()
    layer = eval(case["expr"])  # noqa: S307 - the fixture's expressions
    dtype = "int32" if "ids" in case["options"] else "float32"
    batch = case["options"].get("symbolic_batch")
    inputs = [keras.Input(tuple(s), batch_size=batch, dtype=dtype)
              for s in case["symbolic_inputs"]]
    outputs = tf.nest.flatten(_call(layer, case["call"], inputs, case["kwargs"]))
    assert [list(o.shape) for o in outputs] == case["symbolic_outputs"]


# Keras 3.15-only initializer and quantization entries that hold their 'off' value (tapeflow's initializers do
# not take them; loading drops them).
_KERAS_ONLY: dict = {}


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_config_matches_keras_and_round_trips(name):
    case, layer, xts, kw = _first_call(name)
    fc.assert_config_round_trips(layer, case["config"], _KERAS_ONLY,
                                 lambda clone: _call(clone, case["call"], xts, kw))


@pytest.mark.parametrize("name", sorted(META["errors"]))
def test_errors_match_keras(name):
    error = META["errors"][name]
    fc.assert_raises_as_keras(error, lambda: eval(error["code"]))  # noqa: S307


def test_wrapper_config_matches_keras_and_round_trips():
    keras.backend.clear_session()
    wrapper = eval(META["wrapper"]["expr"])  # noqa: S307 - the fixture's expression
    assert fc.serialized(wrapper) == fc.without_keras_only(META["wrapper"]["config"],
                                                           _KERAS_ONLY)
    clone = L.Wrapper.from_config(wrapper.get_config())
    assert clone.layer.get_config() == wrapper.layer.get_config()
    clone.build((None, 3))
    assert [w.path for w in clone.weights] == ["inner/kernel", "inner/bias"]


def test_conv_lstm_padding_error_names_the_choices():
    """Keras prints its allowed paddings as a set (in an order that varies from process to
    process): the class and the words are Keras's."""
    with pytest.raises(ValueError, match="The `padding` argument must be a list/tuple or one "
                                         "of .*Received: causal"):
        L.ConvLSTM2D(2, 3, padding="causal")


def _model_inputs(key):
    return [tf.constant(ARRAYS[f"{key}/x{i}"]) for i in range(fc.count(ARRAYS, key, "x"))]


@pytest.mark.parametrize("key", ["model", "model_2"])
def test_keras_model_file_loads_with_keras_outputs(key):
    """Keras's .keras file of a model holding the new layers loads, with the weight paths,
    parameter count, output shapes and outputs Keras's loaded model has."""
    recorded = META[key]
    model = keras.models.load_model(fc.FIXTURES + "/" + recorded["file"])
    assert [w.path for w in model.weights] == recorded["loaded_paths"]
    assert model.count_params() == recorded["count_params"]
    assert [list(t.shape) for t in model.outputs] == recorded["output_shapes"]
    xs = _model_inputs(key)
    outputs = tf.nest.flatten(model(xs if len(xs) > 1 else xs[0]))
    fc.assert_outputs_match(ARRAYS, key, outputs, TOL)


@pytest.mark.parametrize("key", ["model", "model_2"])
def test_model_save_load_round_trip(key, tmp_path):
    """tapeflow saves the model and loads it back with the same outputs and configs, also
    under tf.function."""
    model = keras.models.load_model(fc.FIXTURES + "/" + META[key]["file"])
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    xs = _model_inputs(key)
    xs = xs if len(xs) > 1 else xs[0]
    expected = tf.nest.flatten(model(xs))
    for outputs in (loaded(xs), tf.function(loaded)(xs)):
        for got, want in zip(tf.nest.flatten(outputs), expected):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    assert [layer.get_config() for layer in loaded.layers] == \
        [layer.get_config() for layer in model.layers]


def test_activity_regularization_loss_reaches_training():
    """ActivityRegularization's penalty is in the model's losses (divided by the batch)."""
    inputs = keras.Input((4,))
    model = keras.Model(inputs, L.ActivityRegularization(l1=0.5)(inputs))
    x = np.array([[1.0, -2.0, 0.0, 3.0], [1.0, 1.0, 1.0, 1.0]], np.float32)
    model(x)
    np.testing.assert_allclose([float(v) for v in model.losses], [0.5 * 10 / 2])


def test_dot_function_is_the_layer():
    x1 = np.arange(6, dtype=np.float32).reshape(2, 3)
    x2 = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(L.dot([x1, x2], axes=1).numpy(), [[3.0], [12.0]])


def test_adaptive_pool_needs_known_spatial_sizes_when_traced():
    """Keras's TensorFlow backend needs the sizes as it traces; so does tapeflow."""
    layer = L.AdaptiveAveragePooling2D(2)
    traced = tf.function(layer, input_signature=[tf.TensorSpec((None, None, 4, 1))])
    with pytest.raises(ValueError, match="statically known for adaptive pooling"):
        traced.get_concrete_function()


@pytest.mark.parametrize("kwargs", [{}, {"return_sequences": True, "go_backwards": True},
                                    {"return_state": True}])
def test_conv_lstm_traced_with_unknown_steps_matches_eager(kwargs):
    """With the number of time steps unknown to the trace, the scanned loop gives the
    unrolled loop's numbers, masked steps included (Keras's case conv_lstm2d_mask)."""
    case = META["cases"]["conv_lstm2d_mask"]
    keras.utils.set_random_seed(0)
    layer = L.ConvLSTM2D(2, 2, **kwargs)
    x, mask = tf.constant(ARRAYS["conv_lstm2d_mask/x0"]), tf.constant(MASK)
    eager = tf.nest.flatten(layer(x, mask=mask))
    traced = tf.function(lambda x, m: layer(x, mask=m), input_signature=[
        tf.TensorSpec((None, None) + tuple(case["shapes"][0][2:])),
        tf.TensorSpec((None, None), tf.bool)])
    for got, want in zip(tf.nest.flatten(traced(x, mask)), eager):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


def test_reversible_embedding_forward_output_carries_the_mask():
    layer = L.ReversibleEmbedding(5, 2, mask_zero=True)
    out = layer(np.array([[1, 0, 3]], np.int32))
    np.testing.assert_array_equal(get_keras_mask(out).numpy(), [[True, False, True]])
    assert layer.compute_mask(np.array([[1, 0, 3]])) is None


def test_spectral_normalization_training_normalizes_the_kernel_in_place():
    """A training call leaves the wrapped kernel with spectral norm ~1 (after enough power
    iterations) and updates vector_u; an inference call changes nothing."""
    keras.utils.set_random_seed(0)
    layer = L.SpectralNormalization(L.Dense(3), power_iterations=50)
    x = np.ones((2, 4), np.float32)
    layer(x)
    before = [w.numpy().copy() for w in layer.weights]
    layer(x, training=False)
    for w, b in zip(layer.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)
    layer(x, training=True)
    np.testing.assert_allclose(np.linalg.svd(layer.layer.kernel.numpy())[1][0], 1.0, rtol=1e-4)
    assert not np.array_equal(layer.vector_u.numpy(), before[1])
