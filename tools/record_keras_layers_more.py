"""Records Keras 3's attention, activation, reshaping, noise and normalization layers into
tests/keras/fixtures/layers_more.npz + layers_more.json (run with a Python that has Keras 3 +
TensorFlow; tapeflow's tests only read the results):

  KERAS_BACKEND=tensorflow python tools/record_keras_layers_more.py

Each case is a layer expression (evaluated with `L` = keras.layers, the text the test
evaluates with tapeflow's), how it is called ('x': `layer(x0)`, 'list': `layer([x0, x1..])`,
'args': `layer(x0, x1, ..)`), the input shapes, literal call keyword arguments and options
('training', 'mask' / 'masks' (fixed masks as `mask=`), 'attention_mask', 'value_mask',
'keras_masks' (the fixed masks attached to the inputs as Keras masks), 'no_config').
A first call builds the layer (its weights as made after `keras.utils.set_random_seed(0)`
are `init<i>`); the weights are then set to fixed values (`w<i>`) and a second call records
the outputs (a seeded noise layer's second draws), the gradients of sum(outputs *
cotangents) with respect to every input and trainable weight, the config, the weights'
paths. `errors` holds Keras's error class and message for bad arguments and inputs; `model`
a small transformer block (Embedding with mask_zero, MultiHeadAttention, Add,
LayerNormalization, Dense) with its outputs, gradients and `summary()` text.
"""

from __future__ import annotations

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras.src import backend as keras_backend  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures")
L = keras.layers

Q, KV = (2, 4, 6), (2, 5, 6)
# name -> (expression, call, input shapes, call kwargs, options)
CASES = {
    # EinsumDense
    "einsum_dense_ab": ("L.EinsumDense('ab,bc->ac', output_shape=4, bias_axes='c')", "x",
                        [(2, 3)], {}, {}),
    "einsum_dense_ellipsis": ("L.EinsumDense('...b,bc->...c', output_shape=4, bias_axes='c', "
                              "activation='tanh')", "x", [(2, 5, 3)], {}, {}),
    "einsum_dense_heads": ("L.EinsumDense('abc,cde->abde', output_shape=(None, 2, 3), "
                           "bias_axes='de')", "x", [(2, 4, 5)], {}, {}),
    "einsum_dense_right": ("L.EinsumDense('ab...,bc->ac...', output_shape=4)", "x",
                           [(2, 3, 5)], {}, {}),
    # MultiHeadAttention (fast path: no dropout, no scores, 3-D inputs; else einsum path)
    "mha_self": ("L.MultiHeadAttention(num_heads=2, key_dim=3)", "args", [Q, Q], {}, {}),
    "mha_cross_key": ("L.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4)", "args",
                      [Q, (2, 5, 7), (2, 5, 3)], {}, {}),
    "mha_scores": ("L.MultiHeadAttention(2, 3)", "args", [Q, KV],
                   {"return_attention_scores": True}, {}),
    "mha_causal": ("L.MultiHeadAttention(2, 3)", "args", [Q, Q], {"use_causal_mask": True},
                   {}),
    "mha_causal_scores": ("L.MultiHeadAttention(2, 3)", "args", [Q, Q],
                          {"use_causal_mask": True, "return_attention_scores": True}, {}),
    "mha_attention_mask": ("L.MultiHeadAttention(2, 3)", "args", [Q, KV], {},
                           {"attention_mask": True}),
    "mha_attention_mask_scores": ("L.MultiHeadAttention(2, 3)", "args", [Q, KV],
                                  {"return_attention_scores": True}, {"attention_mask": True}),
    "mha_keras_masks": ("L.MultiHeadAttention(2, 3)", "args", [Q, KV], {},
                        {"keras_masks": True}),
    "mha_keras_masks_scores": ("L.MultiHeadAttention(2, 3)", "args", [Q, KV],
                               {"return_attention_scores": True}, {"keras_masks": True}),
    "mha_value_mask_causal": ("L.MultiHeadAttention(2, 3)", "args", [Q, (2, 4, 6)],
                              {"use_causal_mask": True}, {"value_mask": True}),
    "mha_output_shape": ("L.MultiHeadAttention(2, 3, output_shape=5, use_bias=False)", "args",
                         [Q, KV], {}, {}),
    "mha_attention_axes": ("L.MultiHeadAttention(2, 2, attention_axes=(2,))", "args",
                           [(2, 3, 4, 5), (2, 3, 4, 5)], {"return_attention_scores": True},
                           {}),
    "mha_dropout": ("L.MultiHeadAttention(2, 3, dropout=0.5, seed=1)", "args", [Q, KV], {},
                    {"training": True}),
    "mha_gate": ("L.MultiHeadAttention(2, 3, use_gate=True)", "args", [Q, KV], {}, {}),
    "mha_sliding_causal": ("L.MultiHeadAttention(2, 3, sliding_window=2)", "args", [Q, Q],
                           {"use_causal_mask": True}, {}),
    # Attention, AdditiveAttention
    "attention_dot": ("L.Attention()", "list", [(2, 4, 3), (2, 5, 3)], {}, {}),
    "attention_scale_key": ("L.Attention(use_scale=True)", "list",
                            [(2, 4, 3), (2, 5, 6), (2, 5, 3)], {}, {}),
    "attention_concat": ("L.Attention(score_mode='concat', use_scale=True)", "list",
                         [(2, 4, 3), (2, 5, 3)], {"return_attention_scores": True}, {}),
    "attention_masks": ("L.Attention()", "list", [(2, 4, 3), (2, 5, 3)],
                        {"return_attention_scores": True}, {"masks": True}),
    "attention_causal": ("L.Attention()", "list", [(2, 4, 3), (2, 4, 3)],
                         {"use_causal_mask": True}, {"masks": True}),
    "attention_dropout": ("L.Attention(dropout=0.5, seed=2)", "list", [(2, 4, 3), (2, 5, 3)],
                          {}, {"training": True}),
    "additive": ("L.AdditiveAttention()", "list", [(2, 4, 3), (2, 5, 3)],
                 {"return_attention_scores": True}, {}),
    "additive_no_scale_masks": ("L.AdditiveAttention(use_scale=False)", "list",
                                [(2, 4, 3), (2, 5, 3)], {}, {"masks": True}),
    # activations
    "relu": ("L.ReLU()", "x", [(2, 3, 4)], {}, {}),
    "relu_options": ("L.ReLU(max_value=0.5, negative_slope=0.1, threshold=0.2)", "x",
                     [(2, 3, 4)], {}, {}),
    "relu6": ("L.ReLU(max_value=6.0)", "x", [(2, 3, 4)], {}, {}),
    "leaky_relu": ("L.LeakyReLU()", "x", [(2, 3, 4)], {}, {}),
    "leaky_relu_slope": ("L.LeakyReLU(negative_slope=0.05)", "x", [(2, 3, 4)], {}, {}),
    "prelu": ("L.PReLU()", "x", [(2, 3, 4)], {}, {}),
    "prelu_shared": ("L.PReLU(alpha_initializer='ones', shared_axes=[1])", "x", [(2, 3, 4)],
                     {}, {}),
    "elu": ("L.ELU(alpha=0.5)", "x", [(2, 3, 4)], {}, {}),
    "softmax": ("L.Softmax()", "x", [(2, 3, 4)], {}, {}),
    "softmax_axes": ("L.Softmax(axis=(1, 2))", "x", [(2, 3, 4)], {}, {}),
    "softmax_mask": ("L.Softmax()", "x", [(2, 3, 4)], {}, {"mask": True}),
    # reshaping
    "permute": ("L.Permute((2, 1))", "x", [(2, 3, 4)], {}, {}),
    "permute_3": ("L.Permute((3, 1, 2))", "x", [(2, 3, 4, 5)], {}, {}),
    "repeat_vector": ("L.RepeatVector(3)", "x", [(2, 4)], {}, {}),
    "identity": ("L.Identity()", "x", [(2, 3, 4)], {}, {}),
    "up_sampling_1d": ("L.UpSampling1D(3)", "x", [(2, 3, 4)], {}, {}),
    "up_sampling_2d": ("L.UpSampling2D((2, 3))", "x", [(2, 3, 4, 2)], {}, {}),
    "up_sampling_2d_first": ("L.UpSampling2D(2, data_format='channels_first')", "x",
                             [(2, 2, 3, 4)], {}, {}),
    "up_sampling_2d_bilinear": ("L.UpSampling2D((2, 3), interpolation='bilinear')", "x",
                                [(2, 3, 4, 2)], {}, {}),
    "up_sampling_2d_bilinear_first": ("L.UpSampling2D(3, data_format='channels_first', "
                                      "interpolation='bilinear')", "x", [(1, 2, 3, 3)], {},
                                      {}),
    "zero_padding_1d": ("L.ZeroPadding1D((1, 2))", "x", [(2, 3, 4)], {}, {}),
    "zero_padding_2d": ("L.ZeroPadding2D(((1, 0), (2, 1)))", "x", [(2, 3, 4, 2)], {}, {}),
    "zero_padding_2d_first": ("L.ZeroPadding2D(1, data_format='channels_first')", "x",
                              [(2, 2, 3, 4)], {}, {}),
    "cropping_1d": ("L.Cropping1D((1, 2))", "x", [(2, 5, 3)], {}, {}),
    "cropping_1d_end_zero": ("L.Cropping1D((2, 0))", "x", [(2, 5, 3)], {}, {}),
    "cropping_2d": ("L.Cropping2D(((1, 0), (1, 2)))", "x", [(2, 4, 5, 2)], {}, {}),
    "cropping_2d_first": ("L.Cropping2D(1, data_format='channels_first')", "x",
                          [(2, 2, 4, 5)], {}, {}),
    "reshape": ("L.Reshape((4, 3))", "x", [(2, 3, 4)], {}, {}),
    "reshape_infer": ("L.Reshape((-1, 2))", "x", [(2, 3, 4)], {}, {}),
    "flatten": ("L.Flatten()", "x", [(2, 3, 4)], {}, {}),
    "lambda": ("L.Lambda(lambda x: x * 2.0 + 1.0)", "x", [(2, 3)], {}, {"no_config": True}),
    # noise
    "spatial_dropout_1d": ("L.SpatialDropout1D(0.5, seed=3)", "x", [(2, 4, 6)], {},
                           {"training": True}),
    "spatial_dropout_1d_inference": ("L.SpatialDropout1D(0.5, seed=3)", "x", [(2, 4, 6)], {},
                                     {}),
    "spatial_dropout_2d": ("L.SpatialDropout2D(0.4, seed=4)", "x", [(2, 3, 3, 5)], {},
                           {"training": True}),
    "spatial_dropout_2d_first": ("L.SpatialDropout2D(0.4, data_format='channels_first', "
                                 "seed=4)", "x", [(2, 5, 3, 3)], {}, {"training": True}),
    "alpha_dropout": ("L.AlphaDropout(0.3, seed=5)", "x", [(2, 4, 6)], {}, {"training": True}),
    "alpha_dropout_noise_shape": ("L.AlphaDropout(0.3, noise_shape=(None, 1, 6), seed=6)",
                                  "x", [(2, 4, 6)], {}, {"training": True}),
    "alpha_dropout_inference": ("L.AlphaDropout(0.3, seed=5)", "x", [(2, 4, 6)], {}, {}),
    # normalization
    "unit_normalization": ("L.UnitNormalization()", "x", [(2, 3, 4)], {}, {}),
    "unit_normalization_axes": ("L.UnitNormalization(axis=[1, 2])", "x", [(2, 3, 4)], {}, {}),
    "group_normalization": ("L.GroupNormalization(groups=2)", "x", [(2, 3, 4)], {}, {}),
    "group_normalization_instance": ("L.GroupNormalization(groups=-1, axis=1)", "x",
                                     [(2, 4, 3)], {}, {}),
    "group_normalization_plain": ("L.GroupNormalization(groups=3, center=False, scale=False, "
                                  "epsilon=1e-5)", "x", [(2, 2, 2, 6)], {}, {}),
    # GroupQueryAttention
    "gqa": ("L.GroupQueryAttention(head_dim=3, num_query_heads=4, num_key_value_heads=2)",
            "args", [Q, KV], {}, {}),
    "gqa_causal": ("L.GroupQueryAttention(3, 4, 2)", "args", [Q, Q], {"use_causal_mask": True},
                   {}),
    "gqa_keras_masks": ("L.GroupQueryAttention(3, 4, 2)", "args", [Q, KV], {},
                        {"keras_masks": True}),
    "gqa_masks_scores": ("L.GroupQueryAttention(3, 4, 1, use_bias=False)", "args", [Q, KV],
                         {"return_attention_scores": True}, {"keras_masks": True}),
    "gqa_attention_mask_key": ("L.GroupQueryAttention(2, 2, 2, use_gate=True)", "args",
                               [Q, (2, 5, 6), (2, 5, 3)], {}, {"attention_mask": True}),
}

# Keras's errors: code run with L and np.
ERRORS = {
    "relu_negative_max": "L.ReLU(max_value=-1.0)",
    "leaky_relu_negative": "L.LeakyReLU(negative_slope=-0.1)",
    "permute_bad_dims": "L.Permute((1, 3))",
    "repeat_vector_zero": "L.RepeatVector(0)",
    "repeat_vector_float": "L.RepeatVector(2.0)",
    "up_sampling_zero": "L.UpSampling1D(0)",
    "up_sampling_2d_size": "L.UpSampling2D((1, 2, 3))",
    "mha_num_heads": "L.MultiHeadAttention(num_heads=0, key_dim=2)",
    "mha_key_dim": "L.MultiHeadAttention(num_heads=2, key_dim=-1)",
    "mha_value_dim": "L.MultiHeadAttention(num_heads=2, key_dim=2, value_dim=1.5)",
    "mha_attention_axes": "L.MultiHeadAttention(2, 2, attention_axes='a')",
    "mha_value_key_shapes": "L.MultiHeadAttention(2, 2).build((2, 3, 4), (2, 5, 4), (2, 6, 4))",
    "attention_score_mode": "L.Attention(score_mode='x')",
    "attention_not_list": "L.Attention().build((2, 3, 4))",
    "attention_list_length": "L.Attention().build([(2, 3, 4)])",
    "group_norm_groups": "L.GroupNormalization(groups=0)",
    "group_norm_not_multiple": "L.GroupNormalization(groups=3).build((2, 4))",
    "group_norm_too_many": "L.GroupNormalization(groups=8).build((2, 4))",
    "cropping_1d_too_big": "L.Cropping1D((2, 2)).compute_output_shape((1, 4, 2))",
    "cropping_2d_negative": "L.Cropping2D(-1)",
    "cropping_2d_too_big": "L.Cropping2D(2).compute_output_shape((1, 4, 5, 2))",
    "zero_padding_2d_length": "L.ZeroPadding2D((1, 2, 3))",
    "zero_padding_1d_negative": "L.ZeroPadding1D(-1)",
    "unit_normalization_axis": "L.UnitNormalization(axis='a')",
    "alpha_dropout_rate": "L.AlphaDropout(1.5)",
    "data_format": "L.ZeroPadding1D(1, data_format='channels_middle')",
    "gqa_heads": "L.GroupQueryAttention(2, 3, 2)",
}

MODEL = """
inputs = L.Input((6,), dtype='int32')
x = L.Embedding(20, 8, mask_zero=True)(inputs)
a = L.MultiHeadAttention(num_heads=2, key_dim=4)(x, x)
x = L.LayerNormalization()(L.Add()([x, a]))
f = L.Dense(16, activation='relu')(x)
f = L.Dense(8)(f)
x = L.LayerNormalization()(L.Add()([x, f]))
outputs = L.Dense(3)(x)
model = keras.Model(inputs, outputs)
"""
IDS = np.array([[3, 1, 4, 1, 0, 0], [5, 9, 2, 6, 5, 3]], np.int32)

# Fixed masks: query (2, 4) with a fully masked row, value (2, 5), attention (2, 4, 5).
QUERY_MASK = np.array([[1, 1, 1, 0], [1, 1, 1, 1]], bool)
VALUE_MASK = np.array([[1, 1, 0, 1, 0], [1, 1, 1, 1, 1]], bool)
ATTENTION_MASK = np.array([[[1, 0, 1, 1, 0], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1],
                            [0, 1, 0, 1, 0]],
                           [[1, 1, 0, 0, 1], [1, 0, 0, 0, 0], [0, 1, 1, 0, 1],
                            [0, 0, 0, 0, 0]]], bool)
SOFTMAX_MASK = np.array([[[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1]],
                         [[0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 0, 1]]], bool)


def _masks_for(shapes):
    """[query mask, value mask] cut to the inputs' time lengths."""
    return [QUERY_MASK[:, :shapes[0][1]], VALUE_MASK[:, :shapes[1][1]]]


def _call_kwargs(kwargs, options, shapes):
    kw = dict(kwargs)
    if options.get("training"):
        kw["training"] = True
    if options.get("mask"):
        kw["mask"] = tf.constant(SOFTMAX_MASK)
    if options.get("masks"):
        kw["mask"] = [tf.constant(m) for m in _masks_for(shapes)]
    if options.get("attention_mask"):
        kw["attention_mask"] = tf.constant(ATTENTION_MASK[:, :shapes[0][1], :shapes[1][1]])
    if options.get("value_mask"):
        kw["value_mask"] = tf.constant(_masks_for(shapes)[1])
    return kw


def _call(layer, call, xs, kw):
    if call == "x":
        return layer(xs[0], **kw)
    if call == "list":
        return layer(list(xs), **kw)
    return layer(*xs, **kw)


def _record(arrays, name, outputs, cots, grads):
    for i, (o, c) in enumerate(zip(outputs, cots)):
        arrays[f"{name}/out{i}"] = np.asarray(o)
        arrays[f"{name}/cot{i}"] = c
    for i, g in enumerate(grads):
        arrays[f"{name}/grad{i}"] = np.zeros(()) if g is None else np.asarray(g)


def _run_case(name, case, rng, arrays):
    expr, call, shapes, kwargs, options = case
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    layer = eval(expr)  # noqa: S307 - the fixture's own expressions
    xs = [rng.uniform(-2, 2, s).astype(np.float32) for s in shapes]
    for i, x in enumerate(xs):
        arrays[f"{name}/x{i}"] = x
    xts = [tf.constant(x) for x in xs]
    kw = _call_kwargs(kwargs, options, shapes)
    if options.get("keras_masks"):
        for t, m in zip(xts, _masks_for(shapes)):
            keras_backend.set_keras_mask(t, tf.constant(m))
    _call(layer, call, xts, kw)  # builds; a seeded layer's first draws
    for i, w in enumerate(layer.weights):  # as made after set_random_seed(0)
        arrays[f"{name}/init{i}"] = np.asarray(w)
    values = [rng.uniform(-0.8, 0.8, w.shape).astype(np.float32) for w in layer.weights]
    layer.set_weights(values)
    for i, w in enumerate(values):
        arrays[f"{name}/w{i}"] = w
    if options.get("keras_masks"):
        for t, m in zip(xts, _masks_for(shapes)):
            keras_backend.set_keras_mask(t, tf.constant(m))
    with tf.GradientTape() as tape:
        for t in xts:
            tape.watch(t)
        outputs = tf.nest.flatten(_call(layer, call, xts, kw))
        cots = [rng.uniform(-1, 1, o.shape).astype(np.float32) for o in outputs]
        loss = tf.add_n([tf.reduce_sum(o * c) for o, c in zip(outputs, cots)])
    grads = tape.gradient(loss, xts + list(layer.trainable_weights))
    _record(arrays, name, outputs, cots, grads)
    return {"expr": expr, "call": call, "shapes": [list(s) for s in shapes],
            "kwargs": kwargs, "options": options, "n_outputs": len(outputs),
            "config": None if options.get("no_config") else layer.get_config(),
            "paths": [w.path for w in layer.weights],
            "n_trainable": len(layer.trainable_weights)}


def _errors():
    out = {}
    for name, code in ERRORS.items():
        keras.backend.clear_session()
        try:
            eval(code)  # noqa: S307
        except Exception as exc:  # noqa: BLE001 - recording what Keras raises
            out[name] = {"code": code, "class": type(exc).__name__, "message": str(exc)}
        else:
            out[name] = {"code": code, "class": None, "message": None}
    return out


def _model(rng, arrays):
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    scope = {"L": L, "keras": keras}
    exec(MODEL, scope)  # noqa: S102 - the fixture's own model
    model = scope["model"]
    lines = []
    model.summary(print_fn=lambda line, **_: lines.append(line))
    values = [rng.uniform(-0.5, 0.5, w.shape).astype(np.float32) for w in model.weights]
    model.set_weights(values)
    for i, w in enumerate(values):
        arrays[f"model/w{i}"] = w
    with tf.GradientTape() as tape:
        out = model(tf.constant(IDS))
        cot = rng.uniform(-1, 1, out.shape).astype(np.float32)
        loss = tf.reduce_sum(out * cot)
    grads = tape.gradient(loss, model.trainable_weights)
    _record(arrays, "model", [out], [cot], [tf.convert_to_tensor(g) for g in grads])
    return {"code": MODEL, "ids": IDS.tolist(), "summary": "\n".join(lines),
            "paths": [w.path for w in model.weights]}


def main() -> None:
    rng = np.random.default_rng(0)
    arrays: dict = {}
    meta = {"keras_version": keras.__version__, "cases": {},
            "masks": {"query": QUERY_MASK.tolist(), "value": VALUE_MASK.tolist(),
                      "attention": ATTENTION_MASK.tolist(), "softmax": SOFTMAX_MASK.tolist()}}
    for name, case in CASES.items():
        meta["cases"][name] = _run_case(name, case, rng, arrays)
    meta["errors"] = _errors()
    meta["model"] = _model(rng, arrays)
    os.makedirs(OUT, exist_ok=True)
    np.savez_compressed(os.path.join(OUT, "layers_more.npz"), **arrays)
    with open(os.path.join(OUT, "layers_more.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    print(f"wrote {len(arrays)} arrays, {len(CASES)} layer cases, {len(ERRORS)} errors")


if __name__ == "__main__":
    main()
