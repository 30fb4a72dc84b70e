"""Records Keras 3's activation, merge, 1-D/2-D pooling, noise and core layers, and the
`summary()` text of a few models, into tests/keras/fixtures/layers_basic.npz +
layers_basic.json (run with a Python that has Keras 3 + TensorFlow; tapeflow's tests only
read the results):

  KERAS_BACKEND=tensorflow python tools/record_keras_layers_basic.py

Each case is a layer expression (evaluated with `L` = keras.layers and `keras`, the text the
test evaluates with tapeflow's), how it is called ('x': `layer(x0)`, 'list':
`layer([x0, x1..])`), the input shapes, literal call keyword arguments and options
('training', 'masks': the Keras masks attached to the inputs, a list of `MASKS` names or
None per input). A first call builds the layer (a seeded noise layer's first draws; its
weights as made after `keras.utils.set_random_seed(0)` are `init<i>`); the weights are then
set to fixed values (`w<i>`) and a second call records the outputs, the Keras masks they
carry (`outmask<i>`), the gradients of sum(outputs * cotangents) with respect to every input
and trainable weight, the config and the weights' paths. `errors` holds Keras's error class
and message for bad arguments and inputs; `summaries` the `summary()` text of the models in
SUMMARIES (at 80 terminal columns), subclassed ones built by a call or by `build()` among
them.
"""

from __future__ import annotations

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ["COLUMNS"] = "80"  # the width summary() fits its table to
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras.src import backend as keras_backend  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures")
L = keras.layers

# Keras masks over (batch=2, time=4).
MASKS = {"a": [[1, 1, 0, 0], [1, 0, 1, 1]], "b": [[1, 0, 0, 1], [0, 0, 1, 1]]}
S3 = (2, 4, 3)
# name -> (expression, call, input shapes, call kwargs, options)
CASES = {
    # Activation
    "activation_relu": ("L.Activation('relu')", "x", [(2, 3, 4)], {}, {}),
    "activation_softmax": ("L.Activation('softmax')", "x", [(2, 3, 4)], {}, {}),
    "activation_callable": ("L.Activation(keras.activations.gelu)", "x", [(2, 5)], {}, {}),
    "activation_masked": ("L.Activation('tanh')", "x", [S3], {}, {"masks": ["a"]}),
    # merges
    "add_three": ("L.Add()", "list", [S3, S3, S3], {}, {}),
    "add_broadcast": ("L.Add()", "list", [S3, (2, 1, 3)], {}, {}),
    "add_ranks": ("L.Add()", "list", [S3, (2, 3)], {}, {}),
    "add_masks": ("L.Add()", "list", [S3, S3], {}, {"masks": ["a", "b"]}),
    "subtract": ("L.Subtract()", "list", [S3, S3], {}, {}),
    "subtract_masks": ("L.Subtract()", "list", [S3, S3], {}, {"masks": ["a", "b"]}),
    "multiply": ("L.Multiply()", "list", [S3, S3, S3], {}, {}),
    "multiply_masks": ("L.Multiply()", "list", [S3, S3], {}, {"masks": ["a", "b"]}),
    "multiply_one_mask": ("L.Multiply()", "list", [S3, S3], {}, {"masks": ["a", None]}),
    "average": ("L.Average()", "list", [S3, S3], {}, {}),
    "average_three_masks": ("L.Average()", "list", [S3, S3, S3], {},
                            {"masks": ["a", "b", "a"]}),
    "maximum": ("L.Maximum()", "list", [S3, S3, S3], {}, {}),
    "maximum_masks": ("L.Maximum()", "list", [S3, S3], {}, {"masks": ["a", "b"]}),
    "maximum_one_mask": ("L.Maximum()", "list", [S3, S3], {}, {"masks": [None, "b"]}),
    "minimum": ("L.Minimum()", "list", [S3, (2, 1, 3)], {}, {}),
    "minimum_masks": ("L.Minimum()", "list", [S3, S3, S3], {}, {"masks": ["a", "b", "b"]}),
    "concatenate": ("L.Concatenate()", "list", [S3, (2, 4, 5)], {}, {}),
    "concatenate_axis1": ("L.Concatenate(axis=1)", "list", [S3, (2, 2, 3)], {}, {}),
    "concatenate_masks": ("L.Concatenate()", "list", [S3, (2, 4, 5)], {},
                          {"masks": ["a", None]}),
    "concatenate_axis1_masks": ("L.Concatenate(axis=1)", "list", [S3, S3], {},
                                {"masks": ["a", "b"]}),
    # pooling
    "max_pool1d": ("L.MaxPooling1D()", "x", [(2, 6, 3)], {}, {}),
    "max_pool1d_same": ("L.MaxPooling1D(3, strides=2, padding='same')", "x", [(2, 7, 3)], {},
                        {}),
    "max_pool1d_first": ("L.MaxPooling1D(2, strides=1, data_format='channels_first')", "x",
                         [(2, 3, 5)], {}, {}),
    "avg_pool2d": ("L.AveragePooling2D(2)", "x", [(2, 4, 4, 3)], {}, {}),
    "avg_pool2d_same": ("L.AveragePooling2D((3, 2), strides=(2, 1), padding='same')", "x",
                        [(2, 5, 4, 2)], {}, {}),
    "avg_pool2d_first": ("L.AveragePooling2D(2, strides=1, data_format='channels_first')",
                         "x", [(2, 2, 3, 4)], {}, {}),
    "gmax1d": ("L.GlobalMaxPooling1D()", "x", [(2, 5, 3)], {}, {}),
    "gmax1d_first_keepdims": ("L.GlobalMaxPooling1D(data_format='channels_first', "
                              "keepdims=True)", "x", [(2, 3, 5)], {}, {}),
    "gmax1d_masked": ("L.GlobalMaxPooling1D()", "x", [S3], {}, {"masks": ["a"]}),
    "gavg1d_masked": ("L.GlobalAveragePooling1D()", "x", [S3], {}, {"masks": ["a"]}),
    "gavg1d_first_masked": ("L.GlobalAveragePooling1D(data_format='channels_first', "
                            "keepdims=True)", "x", [(2, 3, 4)], {}, {"masks": ["b"]}),
    "gavg2d": ("L.GlobalAveragePooling2D()", "x", [(2, 3, 4, 5)], {}, {}),
    "gavg2d_keepdims": ("L.GlobalAveragePooling2D(keepdims=True)", "x", [(2, 3, 4, 5)], {},
                        {}),
    "gavg2d_first": ("L.GlobalAveragePooling2D(data_format='channels_first')", "x",
                     [(2, 3, 4, 5)], {}, {}),
    # noise
    "gaussian_noise": ("L.GaussianNoise(0.3, seed=7)", "x", [(2, 4, 3)], {},
                       {"training": True}),
    "gaussian_noise_unseeded": ("L.GaussianNoise(0.5)", "x", [(3, 4)], {}, {"training": True}),
    "gaussian_noise_inference": ("L.GaussianNoise(0.3, seed=7)", "x", [(2, 4, 3)], {}, {}),
    "gaussian_noise_masked": ("L.GaussianNoise(0.2, seed=1)", "x", [S3], {},
                              {"training": True, "masks": ["b"]}),
    "gaussian_dropout": ("L.GaussianDropout(0.4, seed=8)", "x", [(2, 4, 3)], {},
                         {"training": True}),
    "gaussian_dropout_unseeded": ("L.GaussianDropout(0.2)", "x", [(3, 4)], {},
                                  {"training": True}),
    "gaussian_dropout_inference": ("L.GaussianDropout(0.4, seed=8)", "x", [(2, 4, 3)], {},
                                   {}),
    # core layers so far covered by saved configs only
    "dense": ("L.Dense(4, activation='tanh')", "x", [(2, 3)], {}, {}),
    "dense_3d_no_bias": ("L.Dense(2, use_bias=False)", "x", [(2, 5, 3)], {}, {}),
    "dropout": ("L.Dropout(0.4, seed=3)", "x", [(2, 4, 3)], {}, {"training": True}),
    "dropout_noise_shape": ("L.Dropout(0.5, noise_shape=(None, 1, 3), seed=4)", "x",
                            [(2, 4, 3)], {}, {"training": True}),
    "batch_norm_training": ("L.BatchNormalization(momentum=0.9)", "x", [(4, 3)], {},
                            {"training": True}),
    "batch_norm_inference": ("L.BatchNormalization(axis=1, epsilon=0.01)", "x", [(2, 3, 4)],
                             {}, {}),
    "layer_norm": ("L.LayerNormalization()", "x", [(2, 3, 4)], {}, {}),
    "flatten": ("L.Flatten()", "x", [(2, 3, 2)], {}, {}),
}

# Keras's errors: code run with L and np.
Z = "np.zeros"
ERRORS = {
    "merge_not_a_list": f"L.Add()({Z}((2, 3)))",
    "merge_batch_sizes": f"L.Add()([{Z}((2, 3)), {Z}((3, 3))])",
    "merge_shapes": f"L.Multiply()([{Z}((2, 3)), {Z}((2, 4))])",
    "subtract_three": f"L.Subtract()([{Z}((2, 3)), {Z}((2, 3)), {Z}((2, 3))])",
    "concatenate_shapes": f"L.Concatenate()([{Z}((2, 3, 4)), {Z}((2, 4, 4))])",
    "concatenate_not_a_list": f"L.Concatenate()({Z}((2, 3)))",
    "avg_pool2d_no_size": "L.AveragePooling2D()",
    "pool_rank": f"L.MaxPooling1D()({Z}((2, 3)))",
    "global_pool_rank": f"L.GlobalAveragePooling2D()({Z}((2, 3, 4)))",
    "gaussian_noise_stddev": "L.GaussianNoise(1.5)",
    "gaussian_dropout_rate": "L.GaussianDropout(-0.1)",
    "activation_unknown": "L.Activation('nope')",
    "dropout_rate": "L.Dropout(2.0)",
}

SUBCLASSED = """
class Block(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.d1 = L.Dense(4, activation='relu')
        self.drop = L.Dropout(0.5)
        self.d2 = L.Dense(3)
        self.act = L.Activation('softmax')

    def call(self, x):
        return self.act(self.d2(self.drop(self.d1(x))))


class Scale(L.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer='ones')

    def call(self, x):
        return x * self.w


class ConvNet(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.conv = L.Conv2D(4, 3, padding='same')
        self.pool = L.MaxPooling2D()
        self.scale = Scale()
        self.gap = L.GlobalAveragePooling2D()
        self.head = L.Dense(2)

    def call(self, x):
        return self.head(self.gap(self.scale(self.pool(self.conv(x)))))


class Seq(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.lstm = L.LSTM(5, return_sequences=True)
        self.mha = L.MultiHeadAttention(2, 3)
        self.norm = L.LayerNormalization()
        self.out = L.Dense(2)

    def call(self, x):
        h = self.lstm(x)
        return self.out(self.norm(h + self.mha(h, h)))
"""

# name -> code defining `model` (with L, keras, np and the SUBCLASSED classes).
SUMMARIES = {
    "subclassed_built_by_call": "model = Block(name='block')\n"
                                "model(np.zeros((2, 3), 'float32'))",
    "subclassed_built_by_build": "model = Block()\nmodel.build((None, 3))",
    "subclassed_custom_layer": "model = ConvNet()\nmodel(np.zeros((2, 6, 6, 3), 'float32'))",
    "subclassed_rnn_attention": "model = Seq()\nmodel(np.zeros((3, 4, 2), 'float32'))",
    "sequential_built_by_call": "model = keras.Sequential([L.Dense(4), L.Dense(2)])\n"
                                "model(np.zeros((2, 3), 'float32'))",
    "functional_multi_io": (
        "a = L.Input((4,), name='a')\nb = L.Input((3,), name='b')\n"
        "h = L.Concatenate()([L.Dense(5)(a), b])\n"
        "out1 = L.Dense(1, name='score')(h)\nout2 = L.Dense(2, name='cls')(h)\n"
        "model = keras.Model([a, b], [out1, out2], name='two_heads')"),
    "nested_sequential": (
        "inner = keras.Sequential([L.Dense(4, activation='relu'), L.Dense(3)], name='inner')\n"
        "model = keras.Sequential([L.Input((5,)), inner, L.Dropout(0.1), L.Dense(2)])"),
    "functional_with_sequential": (
        "inner = keras.Sequential([L.Input((6,)), L.Dense(4), L.Dense(3)], name='tower')\n"
        "x = L.Input((6,))\ny = L.Add()([inner(x), L.Dense(3)(x)])\n"
        "model = keras.Model(x, y)"),
    "recurrent": (
        "model = keras.Sequential([L.Input((10, 6)), L.LSTM(8, return_sequences=True),\n"
        "    L.Bidirectional(L.GRU(4)), L.Dense(3)])"),
    "attention": (
        "x = L.Input((5, 8))\na = L.MultiHeadAttention(2, 4)(x, x)\n"
        "h = L.LayerNormalization()(L.Add()([x, a]))\n"
        "y = L.Dense(2)(L.GlobalAveragePooling1D()(h))\nmodel = keras.Model(x, y)"),
    "conv3d": (
        "model = keras.Sequential([L.Input((4, 8, 8, 1)), L.Conv3D(2, 3), L.MaxPooling3D(),\n"
        "    L.Flatten(), L.Dense(3)])"),
    "preprocessing": (
        "model = keras.Sequential([L.Input((8, 8, 3)), L.Rescaling(1 / 255.0),\n"
        "    L.Normalization(mean=0.5, variance=0.25), L.Resizing(4, 4), L.CenterCrop(2, 2),\n"
        "    L.RandomFlip(), L.Flatten(), L.Dense(2)])"),
}
# Summaries printed at an explicit width.
LINE_LENGTHS = {"functional_multi_io": 120}


def _call_kwargs(kwargs, options):
    kw = dict(kwargs)
    if options.get("training"):
        kw["training"] = True
    return kw


def _attach_masks(options, xts):
    for t, name in zip(xts, options.get("masks") or []):
        if name is not None:
            keras_backend.set_keras_mask(t, tf.constant(np.array(MASKS[name], bool)))


def _call(layer, call, xs, kw):
    return layer(xs[0], **kw) if call == "x" else layer(list(xs), **kw)


def _record(arrays, name, outputs, cots, grads):
    for i, (o, c) in enumerate(zip(outputs, cots)):
        arrays[f"{name}/out{i}"] = np.asarray(o)
        arrays[f"{name}/cot{i}"] = c
        mask = keras_backend.get_keras_mask(o)
        if mask is not None:
            arrays[f"{name}/outmask{i}"] = np.asarray(mask)
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
    kw = _call_kwargs(kwargs, options)
    _attach_masks(options, xts)
    _call(layer, call, xts, kw)  # builds; a seeded layer's first draws
    for i, w in enumerate(layer.weights):  # as made after set_random_seed(0)
        arrays[f"{name}/init{i}"] = np.asarray(w)
    values = [rng.uniform(0.2, 0.8, w.shape).astype(np.float32) for w in layer.weights]
    layer.set_weights(values)
    for i, w in enumerate(values):
        arrays[f"{name}/w{i}"] = w
    with tf.GradientTape() as tape:
        for t in xts:
            tape.watch(t)
        _attach_masks(options, xts)
        outputs = tf.nest.flatten(_call(layer, call, xts, kw))
        cots = [rng.uniform(-1, 1, o.shape).astype(np.float32) for o in outputs]
        loss = tf.add_n([tf.reduce_sum(o * c) for o, c in zip(outputs, cots)])
    grads = tape.gradient(loss, xts + list(layer.trainable_weights))
    _record(arrays, name, outputs, cots, grads)
    return {"expr": expr, "call": call, "shapes": [list(s) for s in shapes],
            "kwargs": kwargs, "options": options, "n_outputs": len(outputs),
            "config": layer.get_config(), "paths": [w.path for w in layer.weights],
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


def _summaries():
    out = {}
    for name, code in SUMMARIES.items():
        keras.utils.set_random_seed(0)
        keras.backend.clear_session()
        scope = {"L": L, "keras": keras, "np": np}
        exec(SUBCLASSED + code, scope)  # noqa: S102 - the fixture's own models
        lines = []
        scope["model"].summary(line_length=LINE_LENGTHS.get(name),
                               print_fn=lambda line, lines=lines, **_: lines.append(line))
        out[name] = {"code": code, "line_length": LINE_LENGTHS.get(name),
                     "text": "\n".join(lines)}
    return out


def main() -> None:
    rng = np.random.default_rng(0)
    arrays: dict = {}
    meta = {"keras_version": keras.__version__, "cases": {}, "masks": MASKS,
            "subclassed": SUBCLASSED}
    for name, case in CASES.items():
        meta["cases"][name] = _run_case(name, case, rng, arrays)
    meta["errors"] = _errors()
    meta["summaries"] = _summaries()
    os.makedirs(OUT, exist_ok=True)
    np.savez_compressed(os.path.join(OUT, "layers_basic.npz"), **arrays)
    with open(os.path.join(OUT, "layers_basic.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    print(f"wrote {len(arrays)} arrays, {len(CASES)} layer cases, {len(ERRORS)} errors, "
          f"{len(SUMMARIES)} summaries")


if __name__ == "__main__":
    main()
