"""Records Keras 3.15's further core layers (Dot, RMSNormalization, the adaptive pools, the
3-D reshaping layers, SpatialDropout3D, ActivityRegularization, ConvLSTM1D/2D/3D) into
tests/keras/fixtures/layers_keras3_more.npz + .json, and a `.keras` file of a model holding
them (layers_keras3_more.keras and _2.keras), for tests/keras/test_layers_keras3_more.py (run with a
Python that has Keras 3 + TensorFlow; tapeflow's tests only read the results):

  KERAS_BACKEND=tensorflow python tools/record_keras_layers_keras3_more.py

Each case is a layer expression (evaluated with `L` = keras.layers, the text the test
evaluates with tapeflow's), how it is called ('x': `layer(x0)`, 'list': `layer([x0, x1])`),
the input shapes, literal call keyword arguments and options ('training', 'mask': a fixed
(batch, time) mask as `mask=`, 'ids': integer inputs below it, 'symbolic_batch': the batch
size of the symbolic Inputs). A first call builds the layer (its weights as made after
`keras.utils.set_random_seed(0)` are `init<i>`); the weights are then set to fixed values
(`w<i>`) and a second call records the outputs (a seeded dropout's second draws), the
gradients of sum(outputs * cotangents) with respect to every input and trainable weight, the
config, the weights' paths, count_params, the layer's losses, and the output shapes of the
layer called on `keras.Input`s whose shapes hold None (`symbolic`). `errors` holds Keras's
error class and message for bad arguments and inputs.
"""

from __future__ import annotations

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures")
STEM = "layers_keras3_more"
L = keras.layers
MASK = np.array([[1, 1, 1, 0], [1, 0, 1, 1]], bool)  # (batch 2, time 4)

# name -> (expression, call, input shapes, call kwargs, options, symbolic input shapes
#          (without the batch axis; None: each input's shape less its batch size))
CASES = {
    "dot_3d": ("L.Dot(axes=(1, 2))", "list", [(2, 3, 5), (2, 4, 3)], {}, {}, None),
    "dot_2d": ("L.Dot(axes=1)", "list", [(3, 4), (3, 4)], {}, {}, None),
    "dot_neg_normalize": ("L.Dot(axes=-1, normalize=True)", "list", [(2, 3, 4), (2, 5, 4)],
                          {}, {}, [(None, 4), (None, 4)]),
    "dot_4d": ("L.Dot(axes=(3, 1))", "list", [(2, 3, 2, 4), (2, 4, 3)], {}, {}, None),
    "rms_norm": ("L.RMSNormalization()", "x", [(2, 3, 6)], {}, {}, [(None, 6)]),
    "rms_norm_axes": ("L.RMSNormalization(axis=[-2, -1], epsilon=1e-3)", "x", [(2, 3, 4)], {},
                      {}, None),
    "adaptive_avg_1d": ("L.AdaptiveAveragePooling1D(3)", "x", [(2, 7, 3)], {}, {},
                        [(None, 3)]),
    "adaptive_max_1d_first": ("L.AdaptiveMaxPooling1D([4], data_format='channels_first')",
                              "x", [(2, 3, 10)], {}, {}, None),
    "adaptive_avg_2d": ("L.AdaptiveAveragePooling2D((2, 3))", "x", [(2, 5, 7, 2)], {}, {},
                        [(None, None, 2)]),
    "adaptive_avg_2d_up": ("L.AdaptiveAveragePooling2D(4)", "x", [(1, 3, 2, 2)], {}, {}, None),
    "adaptive_max_2d": ("L.AdaptiveMaxPooling2D((3, 2))", "x", [(2, 7, 5, 3)], {}, {}, None),
    "adaptive_max_2d_first": ("L.AdaptiveMaxPooling2D(2, data_format='channels_first')", "x",
                              [(2, 3, 5, 6)], {}, {}, None),
    "adaptive_avg_3d": ("L.AdaptiveAveragePooling3D((2, 3, 2))", "x", [(2, 5, 6, 4, 2)], {},
                        {}, None),
    "adaptive_max_3d_first": ("L.AdaptiveMaxPooling3D(2, data_format='channels_first')", "x",
                              [(1, 2, 5, 3, 4)], {}, {}, None),
    "cropping3d": ("L.Cropping3D(((1, 0), (0, 2), (1, 1)))", "x", [(2, 4, 5, 4, 2)], {}, {},
                   [(None, None, 4, 2)]),
    "cropping3d_int_first": ("L.Cropping3D(1, data_format='channels_first')", "x",
                             [(2, 2, 4, 3, 5)], {}, {}, None),
    "zero_padding3d": ("L.ZeroPadding3D(((1, 0), (0, 2), 1))", "x", [(2, 2, 3, 2, 2)], {}, {},
                       [(None, 3, None, 2)]),
    "zero_padding3d_first": ("L.ZeroPadding3D(1, data_format='channels_first')", "x",
                             [(1, 2, 2, 3, 2)], {}, {}, None),
    "up_sampling3d": ("L.UpSampling3D((2, 1, 3))", "x", [(2, 2, 3, 2, 2)], {}, {},
                      [(None, 3, None, 2)]),
    "up_sampling3d_first": ("L.UpSampling3D(2, data_format='channels_first')", "x",
                            [(1, 2, 2, 3, 2)], {}, {}, None),
    "spatial_dropout3d": ("L.SpatialDropout3D(0.5, seed=3)", "x", [(2, 2, 3, 2, 4)], {},
                          {"training": True}, None),
    "spatial_dropout3d_first": ("L.SpatialDropout3D(0.4, data_format='channels_first', "
                                "seed=4)", "x", [(2, 4, 2, 3, 2)], {}, {"training": True},
                                None),
    "spatial_dropout3d_inference": ("L.SpatialDropout3D(0.5, seed=3)", "x", [(2, 2, 3, 2, 4)],
                                    {}, {}, None),
    "activity_regularization": ("L.ActivityRegularization(l1=0.01, l2=0.1)", "x", [(3, 4)],
                                {}, {}, None),
    "conv_lstm2d": ("L.ConvLSTM2D(3, 3, padding='same')", "x", [(2, 4, 5, 5, 2)], {}, {},
                    [(None, 5, 5, 2)]),
    "conv_lstm2d_seq_state": ("L.ConvLSTM2D(2, (3, 2), strides=(2, 1), return_sequences=True, "
                              "return_state=True, recurrent_activation='hard_sigmoid')", "x",
                              [(2, 3, 6, 5, 2)], {}, {}, None),
    "conv_lstm2d_first_backwards": ("L.ConvLSTM2D(2, 2, data_format='channels_first', "
                                    "go_backwards=True, use_bias=False)", "x",
                                    [(1, 3, 2, 4, 4)], {}, {}, None),
    "conv_lstm2d_dilation": ("L.ConvLSTM2D(2, 2, dilation_rate=2, unit_forget_bias=False, "
                             "return_sequences=True)", "x", [(2, 3, 5, 5, 1)], {}, {}, None),
    "conv_lstm2d_mask": ("L.ConvLSTM2D(2, 2, return_sequences=True)", "x", [(2, 4, 4, 4, 2)],
                         {}, {"mask": True}, None),
    "conv_lstm2d_dropout": ("L.ConvLSTM2D(2, 2, dropout=0.3, recurrent_dropout=0.2, seed=5)",
                            "x", [(2, 3, 4, 4, 2)], {}, {"training": True}, None),
    "conv_lstm1d": ("L.ConvLSTM1D(4, 3, padding='same', return_sequences=True)", "x",
                    [(2, 4, 6, 3)], {}, {}, [(None, 6, 3)]),
    "conv_lstm1d_state": ("L.ConvLSTM1D(2, 2, return_state=True)", "x", [(2, 3, 5, 2)], {},
                          {}, None),
    "conv_lstm3d": ("L.ConvLSTM3D(2, 2, padding='same')", "x", [(1, 3, 3, 4, 3, 2)], {}, {},
                    None),
    "conv_lstm2d_stateful": ("L.ConvLSTM2D(2, 2, stateful=True, return_state=True)", "x",
                             [(2, 3, 4, 4, 1)], {}, {"symbolic_batch": 2}, None),
    "spectral_norm_dense": ("L.SpectralNormalization(L.Dense(3))", "x", [(2, 4)], {},
                            {"training": True}, None),
    "spectral_norm_dense_inference": ("L.SpectralNormalization(L.Dense(3), power_iterations=2)",
                                      "x", [(2, 4)], {}, {}, None),
    "spectral_norm_conv": ("L.SpectralNormalization(L.Conv2D(2, 2), power_iterations=3)", "x",
                           [(2, 4, 4, 3)], {}, {"training": True}, [(None, None, 3)]),
    "reversible_embedding": ("L.ReversibleEmbedding(10, 4)", "x", [(2, 3)], {},
                             {"ids": 10}, None),
    "reversible_embedding_reverse": ("L.ReversibleEmbedding(10, 4, logit_soft_cap=2.0)", "x",
                                     [(2, 3, 4)], {"reverse": True}, {}, None),
    "reversible_embedding_untied": ("L.ReversibleEmbedding(7, 3, tie_weights=False, "
                                    "mask_zero=True)", "x", [(2, 3)], {}, {"ids": 7}, None),
    "reversible_embedding_untied_reverse": ("L.ReversibleEmbedding(7, 3, tie_weights=False)",
                                            "x", [(2, 3)], {"reverse": True}, {}, None),
    "pipeline": ("L.Pipeline([L.Dense(3), L.Dropout(0.5, seed=2), L.Activation('tanh')])",
                 "x", [(2, 4)], {}, {}, None),
    "pipeline_inference": ("L.Pipeline([L.Dense(3), L.Dropout(0.5, seed=2)])", "x", [(2, 4)],
                           {"training": False}, {}, None),
    "stft_log": ("L.STFTSpectrogram(frame_length=16)", "x", [(2, 64, 2)], {}, {},
                 [(None, 2)]),
    "stft_magnitude_same": ("L.STFTSpectrogram('magnitude', frame_length=12, frame_step=5, "
                            "padding='same', window='hamming', periodic=True)", "x",
                            [(2, 40, 1)], {}, {}, None),
    "stft_psd_spectrum": ("L.STFTSpectrogram('psd', frame_length=8, fft_length=16, "
                          "scaling='spectrum')", "x", [(1, 30, 2)], {}, {}, None),
    "stft_real_first": ("L.STFTSpectrogram('real', frame_length=8, "
                        "data_format='channels_first')", "x", [(2, 3, 24)], {}, {}, None),
    "stft_imag_expand": ("L.STFTSpectrogram('imag', frame_length=8, expand_dims=True)", "x",
                         [(2, 24, 2)], {}, {}, None),
    "stft_angle": ("L.STFTSpectrogram('angle', frame_length=8, frame_step=3, window=None)",
                   "x", [(2, 20, 1)], {}, {}, None),
    "stft_stft_first_expand": ("L.STFTSpectrogram('stft', frame_length=8, expand_dims=True, "
                               "data_format='channels_first', scaling=None)", "x",
                               [(2, 2, 20)], {}, {}, None),
    "mel": ("L.MelSpectrogram(fft_length=128, sequence_stride=32, num_mel_bins=12)", "x",
            [(2, 400)], {}, {}, [(None,)]),
    "mel_hamming_linear": ("L.MelSpectrogram(fft_length=64, sequence_stride=16, "
                           "sequence_length=48, window='hamming', num_mel_bins=8, "
                           "power_to_db=False, mag_exp=1.0, sampling_rate=8000, "
                           "min_freq=100.0, max_freq=3000.0)", "x", [(2, 200)], {}, {}, None),
    "mel_1d_no_window": ("L.MelSpectrogram(fft_length=32, sequence_stride=8, window=None, "
                         "num_mel_bins=6, top_db=20.0, ref_power=2.0)", "x", [(100,)], {}, {},
                         None),
}

ERRORS = {
    "dot_axes_type": "L.Dot(axes='1')",
    "dot_axes_len": "L.Dot(axes=(1, 2, 3))",
    "dot_axes_items": "L.Dot(axes=(1, 1.5))",
    "dot_shapes": "L.Dot(axes=1)([np.zeros((2, 3)), np.zeros((2, 4))])",
    "dot_one_input": "L.Dot(axes=1)([np.zeros((2, 3))])",
    "dot_batch_axis": "L.Dot(axes=0)([np.zeros((2, 3)), np.zeros((2, 3))])",
    "adaptive_2d_size": "L.AdaptiveAveragePooling2D((2, 3, 4))",
    "adaptive_1d_size": "L.AdaptiveMaxPooling1D((2, 3))",
    "adaptive_1d_type": "L.AdaptiveMaxPooling1D('2')",
    "adaptive_3d_size": "L.AdaptiveMaxPooling3D((2, 3))",
    "adaptive_data_format": "L.AdaptiveAveragePooling2D(2, data_format='NHWC')",
    "cropping3d_negative": "L.Cropping3D(-1)",
    "cropping3d_len": "L.Cropping3D((1, 2))",
    "cropping3d_type": "L.Cropping3D('a')",
    "cropping3d_too_big": "L.Cropping3D(2)(np.zeros((1, 4, 5, 6, 1), 'float32'))",
    "cropping3d_entry": "L.Cropping3D(((1, 2), (1, 2, 3), 1))",
    "zero_padding3d_len": "L.ZeroPadding3D((1, 2))",
    "zero_padding3d_type": "L.ZeroPadding3D(None)",
    "up_sampling3d_size": "L.UpSampling3D((2, 0, 1))",
    "spatial_dropout3d_rank": "L.SpatialDropout3D(0.5)(np.zeros((2, 3, 4, 5), 'float32'))",
    "conv_lstm_strides_dilation": "L.ConvLSTM2D(2, 3, strides=2, dilation_rate=2)",
    "conv_lstm_kernel": "L.ConvLSTM2D(2, (3, 3, 3))",
    "conv_lstm_rank": "L.ConvLSTM2D(2, 3)(np.zeros((2, 3, 4, 4), 'float32'))",
    "conv_lstm_spatial_none": "L.ConvLSTM2D(2, 3)(keras.Input((3, None, 4, 2)))",
    "wrapper_not_layer": "L.Wrapper('dense')",
    "spectral_norm_iterations": "L.SpectralNormalization(L.Dense(2), power_iterations=0)",
    "spectral_norm_no_kernel": "L.SpectralNormalization(L.Dropout(0.5))(np.zeros((2, 3)))",
    "pipeline_config": "L.Pipeline.from_config({'layers': 'dense'})",
    "stft_frame_step": "L.STFTSpectrogram(frame_length=8, frame_step=9)",
    "stft_fft_length": "L.STFTSpectrogram(frame_length=8, fft_length=4)",
    "stft_mode": "L.STFTSpectrogram(mode='power')",
    "stft_scaling": "L.STFTSpectrogram(scaling='energy')",
    "stft_padding": "L.STFTSpectrogram(padding='causal')",
    "stft_int_input": "L.STFTSpectrogram(frame_length=8)(np.zeros((1, 16, 1), 'int32'))",
    "mel_lengths": "L.MelSpectrogram(fft_length=64, sequence_length=128)",
    "mel_window": "L.MelSpectrogram(fft_length=64, window='blackman')(np.zeros((1, 200)))",
}
WRAPPER = "L.Wrapper(L.Dense(2, name='inner'), name='wrapper')"

MODEL = """
inputs = keras.Input((4, 6, 6, 2))
y = L.ConvLSTM2D(3, 3, padding='same', return_sequences=True)(inputs)
y = L.SpatialDropout3D(0.2)(y)
y = L.ZeroPadding3D(((0, 0), (1, 1), (1, 0)))(y)
y = L.Cropping3D(((1, 0), (0, 1), (1, 1)))(y)
y = L.UpSampling3D((1, 2, 1))(y)
y = L.AdaptiveMaxPooling3D((2, 3, 2))(y)
y = L.RMSNormalization()(y)
y = L.ActivityRegularization(l2=0.01)(y)
a = L.Reshape((12, 3))(y)
b = L.AdaptiveAveragePooling1D(4)(a)
out = L.Dot(axes=(2, 2), normalize=True)([a, b])
model = keras.Model(inputs, out)
"""

# A second model, of the other new layers (several inputs and outputs).
MODEL_2 = """
signal = keras.Input((64, 2))
ids = keras.Input((5,), dtype='int32')
audio = keras.Input((300,))
seq = keras.Input((3, 6, 2))
volume = keras.Input((2, 3, 4, 3, 1))
a = L.STFTSpectrogram(frame_length=16)(signal)
a = L.SpectralNormalization(L.Dense(4))(a)
e = L.ReversibleEmbedding(10, 4, tie_weights=False)(ids)
d = L.Dot(axes=(2, 2))([a, e])
m = L.MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=7)(audio)
m = L.AdaptiveAveragePooling1D(5, data_format='channels_first')(m)
c = L.concatenate([d, m])
c = L.Pipeline([L.Dense(3), L.Activation('relu')])(c)
s = L.Flatten()(L.ConvLSTM1D(2, 3)(seq))
v = L.ConvLSTM3D(2, 2, padding='same')(volume)
v = L.AdaptiveMaxPooling2D((2, 2))(L.Reshape((9, 4, 2))(v))
model = keras.Model([signal, ids, audio, seq, volume], [c, s, v])
"""


def _call(layer, call, xs, kw):
    if call == "x":
        return layer(xs[0], **kw)
    return layer(list(xs), **kw)


def _call_kwargs(kwargs, options):
    kw = dict(kwargs)
    if options.get("training"):
        kw["training"] = True
    if options.get("mask"):
        kw["mask"] = tf.constant(MASK)
    return kw


def _symbolic_shapes(expr, call, shapes, symbolic, kwargs, options):
    keras.backend.clear_session()
    layer = eval(expr)  # noqa: S307 - the fixture's own expressions
    symbolic = symbolic or [s[1:] for s in shapes]
    dtype = "int32" if "ids" in options else "float32"
    batch = options.get("symbolic_batch")
    outputs = _call(layer, call, [keras.Input(s, batch_size=batch, dtype=dtype)
                                  for s in symbolic], kwargs)
    return [list(symbolic_shape) for symbolic_shape in symbolic], \
        [list(o.shape) for o in tf.nest.flatten(outputs)]


def _run_case(name, case, rng, arrays):
    expr, call, shapes, kwargs, options, symbolic = case
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    layer = eval(expr)  # noqa: S307 - the fixture's own expressions
    xs = [rng.integers(0, options["ids"], s).astype(np.int32) if "ids" in options
          else rng.uniform(-2, 2, s).astype(np.float32) for s in shapes]
    for i, x in enumerate(xs):
        arrays[f"{name}/x{i}"] = x
    xts = [tf.constant(x) for x in xs]
    kw = _call_kwargs(kwargs, options)
    _call(layer, call, xts, kw)  # builds; a seeded layer's first draws
    for i, w in enumerate(layer.weights):  # as made after set_random_seed(0)
        arrays[f"{name}/init{i}"] = np.asarray(w)
    values = [rng.uniform(-0.8, 0.8, w.shape).astype(np.float32) for w in layer.weights]
    layer.set_weights(values)
    for i, w in enumerate(values):
        arrays[f"{name}/w{i}"] = w
    with tf.GradientTape() as tape:
        for t in xts:
            tape.watch(t)
        outputs = tf.nest.flatten(_call(layer, call, xts, kw))
        cots = [rng.uniform(-1, 1, o.shape).astype(np.float32) for o in outputs]
        loss = tf.add_n([tf.reduce_sum(o * c) for o, c in zip(outputs, cots)])
    grads = tape.gradient(loss, xts + list(layer.trainable_weights))
    for i, (o, c) in enumerate(zip(outputs, cots)):
        arrays[f"{name}/out{i}"] = np.asarray(o)
        arrays[f"{name}/cot{i}"] = c
    for i, g in enumerate(grads):
        arrays[f"{name}/grad{i}"] = np.zeros(()) if g is None else \
            np.asarray(tf.convert_to_tensor(g))
    config = layer.get_config()
    losses = [float(v) for v in layer.losses]
    symbolic_in, symbolic_out = _symbolic_shapes(expr, call, shapes, symbolic, kwargs,
                                                 options)
    return {"expr": expr, "call": call, "shapes": [list(s) for s in shapes],
            "kwargs": kwargs, "options": options, "n_outputs": len(outputs),
            "config": config, "paths": [w.path for w in layer.weights],
            "n_trainable": len(layer.trainable_weights),
            "count_params": layer.count_params(), "losses": losses,
            "symbolic_inputs": symbolic_in, "symbolic_outputs": symbolic_out}


def _errors():
    out = {}
    for name, code in ERRORS.items():
        keras.backend.clear_session()
        try:
            eval(code)  # noqa: S307
        except Exception as exc:  # noqa: BLE001 - recording what Keras raises
            out[name] = {"code": code, "class": type(exc).__name__, "message": str(exc)}
        else:
            raise AssertionError(f"{code} raised nothing")
    return out


def _model(rng, arrays, key, code, file_name):
    """The model `code` makes, with fixed weights, its outputs on fixed inputs (a batch of
    2; ids below 7), saved as `file_name`; the weight paths as made and as loaded (a wrapped
    or pipelined layer built while loading is named outside its wrapper)."""
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    scope = {"L": L, "keras": keras}
    exec(code, scope)  # noqa: S102 - the fixture's own model
    model = scope["model"]
    values = [rng.uniform(-0.5, 0.5, w.shape).astype(np.float32) for w in model.weights]
    model.set_weights(values)
    xs = [rng.integers(0, 7, (2,) + tuple(t.shape[1:])).astype(np.int32)
          if t.dtype == "int32" else rng.uniform(-1, 1, (2,) + tuple(t.shape[1:]))
          .astype(np.float32) for t in model.inputs]
    outputs = tf.nest.flatten(model(xs if len(xs) > 1 else xs[0]))
    for i, x in enumerate(xs):
        arrays[f"{key}/x{i}"] = x
    for i, out in enumerate(outputs):
        arrays[f"{key}/out{i}"] = np.asarray(out)
    model.save(os.path.join(OUT, file_name))
    keras.backend.clear_session()
    loaded = keras.models.load_model(os.path.join(OUT, file_name))
    return {"code": code, "file": file_name, "paths": [w.path for w in model.weights],
            "loaded_paths": [w.path for w in loaded.weights],
            "output_shapes": [list(t.shape) for t in model.outputs],
            "count_params": model.count_params()}


def main() -> None:
    rng = np.random.default_rng(0)
    arrays: dict = {}
    meta = {"keras_version": keras.__version__, "mask": MASK.tolist(), "cases": {}}
    for name, case in CASES.items():
        meta["cases"][name] = _run_case(name, case, rng, arrays)
    meta["errors"] = _errors()
    meta["model"] = _model(rng, arrays, "model", MODEL, f"{STEM}.keras")
    meta["model_2"] = _model(rng, arrays, "model_2", MODEL_2, f"{STEM}_2.keras")
    keras.backend.clear_session()
    meta["wrapper"] = {"expr": WRAPPER, "config": eval(WRAPPER).get_config()}  # noqa: S307
    os.makedirs(OUT, exist_ok=True)
    np.savez_compressed(os.path.join(OUT, f"{STEM}.npz"), **arrays)
    with open(os.path.join(OUT, f"{STEM}.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    print(f"wrote {len(arrays)} arrays, {len(CASES)} cases, {len(ERRORS)} errors")


if __name__ == "__main__":
    main()
