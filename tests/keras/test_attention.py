"""MultiHeadAttention beyond single eager calls: traced (fixed and unknown lengths, both of
Keras's attention paths), its build config, a transformer block saved and loaded as a
.keras file, and trained with fit; cases and numbers from tests/keras/fixtures/layers_more.*
(recorded from Keras 3 by tools/record_keras_layers_more.py)."""

import json
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

L = keras.layers
HERE = os.path.join(os.path.dirname(__file__), "fixtures")
META = json.load(open(os.path.join(HERE, "layers_more.json")))
ARRAYS = np.load(os.path.join(HERE, "layers_more.npz"))
TOL = dict(rtol=2e-5, atol=2e-6)


def _layer(name):
    keras.backend.clear_session()
    case = META["cases"][name]
    layer = eval(case["expr"])  # noqa: S307 - the fixture's expressions
    xs = [tf.constant(ARRAYS[f"{name}/x{i}"]) for i in range(len(case["shapes"]))]
    layer(*xs)
    n = len([k for k in ARRAYS.files if k.startswith(f"{name}/w")])
    layer.set_weights([ARRAYS[f"{name}/w{i}"] for i in range(n)])
    return case, layer, xs


@pytest.mark.parametrize("name", ["mha_attention_mask", "mha_attention_mask_scores",
                                  "mha_causal", "mha_causal_scores", "mha_cross_key"])
@pytest.mark.parametrize("signature", [False, True])
def test_traced_matches_keras(name, signature):
    """Under tf.function, also with unknown batch and lengths (the causal mask is built from
    the traced shapes), the numbers are Keras's."""
    case, layer, xs = _layer(name)
    kwargs = dict(case["kwargs"])
    if case["options"].get("attention_mask"):
        shapes = case["shapes"]
        mask = np.array(META["masks"]["attention"], bool)[:, :shapes[0][1], :shapes[1][1]]
        kwargs["attention_mask"] = tf.constant(mask)

    def run(*inputs):
        return tf.nest.flatten(layer(*inputs, **kwargs))

    spec = [tf.TensorSpec([None, None, x.shape[-1]], tf.float32) for x in xs]
    traced = tf.function(run, input_signature=spec) if signature else tf.function(run)
    for i, out in enumerate(traced(*xs)):
        np.testing.assert_allclose(out.numpy(), ARRAYS[f"{name}/out{i}"], **TOL)


def test_build_config_is_keras_shapes_dict():
    """TF 2.21 / Keras 3.15: {'shapes_dict': {'query_shape': (2, 4, 6), 'value_shape': (2,
    5, 6), 'key_shape': (2, 5, 3)}}; build_from_config rebuilds the same weights."""
    keras.backend.clear_session()
    mha = L.MultiHeadAttention(2, 3)
    mha(np.zeros((2, 4, 6), "f"), np.zeros((2, 5, 6), "f"), key=np.zeros((2, 5, 3), "f"))
    config = mha.get_build_config()
    assert config == {"shapes_dict": {"query_shape": (2, 4, 6), "value_shape": (2, 5, 6),
                                      "key_shape": (2, 5, 3)}}
    clone = L.MultiHeadAttention.from_config(mha.get_config())
    clone.build_from_config(json.loads(json.dumps(config)))
    assert [tuple(w.shape) for w in clone.weights] == [tuple(w.shape) for w in mha.weights]
    assert [tuple(w.shape) for w in mha.weights][:2] == [(6, 2, 3), (2, 3)]
    assert tuple(mha.weights[-2].shape) == (2, 3, 6)


def _block():
    keras.backend.clear_session()
    scope = {"L": L, "keras": keras}
    exec(META["model"]["code"], scope)  # noqa: S102 - the fixture's model
    model = scope["model"]
    n = len([k for k in ARRAYS.files if k.startswith("model/w")])
    model.set_weights([ARRAYS[f"model/w{i}"] for i in range(n)])
    return model


def test_transformer_block_saves_and_loads(tmp_path):
    model = _block()
    ids = np.array(META["model"]["ids"], np.int32)
    path = str(tmp_path / "block.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded(ids).numpy(), ARRAYS["model/out0"], **TOL)
    assert [w.path for w in loaded.weights] == META["model"]["paths"]


def test_transformer_block_trains_with_fit():
    """fit (one compiled step per batch) lowers the loss, and its first step's gradients
    are the eager ones (Keras's, by test_layers_more)."""
    model = _block()
    ids = np.array(META["model"]["ids"] * 4, np.int32)
    targets = np.random.default_rng(0).integers(0, 3, ids.shape)
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(ids, targets, batch_size=4, epochs=5, verbose=0, shuffle=False)
    losses = history.history["loss"]
    assert losses[-1] < losses[0]


def test_unsupported_interpolation_is_a_clear_error():
    """Keras resizes with 'bicubic' too; tapeflow says it cannot rather than differ."""
    layer = L.UpSampling2D(interpolation="bicubic")
    with pytest.raises(NotImplementedError, match="bicubic"):
        layer(np.zeros((1, 2, 2, 1), "f"))
    with pytest.raises(ValueError, match="interpolation"):
        L.UpSampling2D(interpolation="cubic")(np.zeros((1, 2, 2, 1), "f"))
