"""Records Keras 3's convolution and pooling layers into tests/keras/fixtures/conv_more.npz +
conv_more.json (run with a Python that has Keras 3 + TensorFlow; tapeflow's tests only read
the results):

  KERAS_BACKEND=tensorflow python tools/record_keras_conv_more.py

Each case is a layer expression (evaluated with `L` = keras.layers, the same text the test
evaluates with tapeflow's) and an input shape; it records the input, the weights (set to fixed
values), the output, the gradients of sum(output * cotangent) with respect to the input and
every weight, the config and the weights' paths. `errors` records the class and message of
the constructor/call errors Keras raises.
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
L = keras.layers

CASES = {
    "conv1d_groups": ("L.Conv1D(6, 3, groups=3, padding='same')", (2, 7, 3)),
    "conv2d_groups": ("L.Conv2D(4, 3, groups=2, strides=2)", (2, 7, 6, 4)),
    "conv2d_first": ("L.Conv2D(4, (3, 2), data_format='channels_first', padding='same')",
                     (2, 3, 6, 5)),
    "conv1d_first_dil": ("L.Conv1D(3, 2, dilation_rate=2, data_format='channels_first')",
                         (2, 3, 8)),
    "conv3d": ("L.Conv3D(4, (2, 3, 2), activation='relu')", (2, 4, 5, 4, 3)),
    "conv3d_same_s2": ("L.Conv3D(3, 3, strides=(2, 1, 2), padding='same')", (2, 5, 4, 5, 2)),
    "conv3d_dil": ("L.Conv3D(2, 2, dilation_rate=(2, 1, 1), use_bias=False)", (1, 5, 4, 4, 2)),
    "conv3d_groups": ("L.Conv3D(4, 2, groups=2)", (2, 3, 4, 3, 4)),
    "conv3d_first": ("L.Conv3D(3, 2, data_format='channels_first')", (2, 2, 4, 3, 5)),
    "conv1d_transpose": ("L.Conv1DTranspose(3, 3, strides=2)", (2, 5, 4)),
    "conv1d_transpose_same_op": ("L.Conv1DTranspose(3, 3, strides=2, padding='same', "
                                 "output_padding=1)", (2, 5, 4)),
    "conv2d_transpose_op": ("L.Conv2DTranspose(3, 3, strides=(2, 3), output_padding=(1, 2))",
                            (2, 4, 3, 2)),
    "conv2d_transpose_same": ("L.Conv2DTranspose(4, (3, 2), strides=2, padding='same')",
                              (2, 3, 4, 3)),
    "conv2d_transpose_dil": ("L.Conv2DTranspose(2, 3, dilation_rate=2, padding='same')",
                             (2, 5, 6, 3)),
    "conv2d_transpose_dil_valid": ("L.Conv2DTranspose(2, 2, dilation_rate=(2, 1))",
                                   (2, 4, 4, 3)),
    "conv2d_transpose_first": ("L.Conv2DTranspose(2, 3, strides=2, "
                               "data_format='channels_first')", (2, 3, 4, 3)),
    "conv3d_transpose": ("L.Conv3DTranspose(2, (2, 3, 2), strides=(1, 2, 2), padding='same')",
                         (2, 3, 3, 4, 3)),
    "conv3d_transpose_op": ("L.Conv3DTranspose(2, 3, strides=2, output_padding=1)",
                            (1, 2, 3, 2, 2)),
    "depthwise1d": ("L.DepthwiseConv1D(3, depth_multiplier=2)", (2, 7, 3)),
    "depthwise1d_s_dil": ("L.DepthwiseConv1D(3, strides=2, dilation_rate=2, padding='same')",
                          (2, 9, 2)),
    "depthwise2d": ("L.DepthwiseConv2D((3, 2), strides=2, padding='same', depth_multiplier=2)",
                    (2, 7, 6, 3)),
    "depthwise2d_dil": ("L.DepthwiseConv2D(3, dilation_rate=2, padding='same')", (2, 8, 7, 2)),
    "depthwise2d_s_dil": ("L.DepthwiseConv2D(3, strides=2, dilation_rate=2)", (2, 9, 9, 2)),
    "depthwise2d_first": ("L.DepthwiseConv2D(2, data_format='channels_first')", (2, 3, 5, 6)),
    "separable1d": ("L.SeparableConv1D(4, 3, depth_multiplier=2, padding='same')", (2, 7, 3)),
    "separable1d_first": ("L.SeparableConv1D(3, 2, strides=2, data_format='channels_first')",
                          (2, 3, 8)),
    "separable2d": ("L.SeparableConv2D(4, 3, activation='tanh')", (2, 6, 7, 3)),
    "separable2d_s2": ("L.SeparableConv2D(3, (3, 2), strides=2, padding='same', "
                       "depth_multiplier=2)", (2, 7, 6, 2)),
    "separable2d_dil": ("L.SeparableConv2D(3, 3, dilation_rate=2, padding='same')",
                        (2, 8, 8, 2)),
    "separable2d_first": ("L.SeparableConv2D(2, 2, data_format='channels_first')",
                          (2, 3, 5, 4)),
    "max_pool3d": ("L.MaxPooling3D()", (2, 4, 6, 5, 3)),
    "max_pool3d_same": ("L.MaxPooling3D((2, 3, 2), strides=(1, 2, 2), padding='same')",
                        (2, 3, 5, 4, 2)),
    "max_pool3d_first": ("L.MaxPooling3D(2, data_format='channels_first')", (2, 2, 4, 4, 5)),
    "avg_pool3d": ("L.AveragePooling3D(2)", (2, 4, 6, 5, 3)),
    "avg_pool3d_same": ("L.AveragePooling3D((3, 2, 2), strides=2, padding='same')",
                        (2, 5, 5, 4, 2)),
    "avg_pool3d_first": ("L.AveragePooling3D(2, data_format='channels_first')",
                         (2, 2, 4, 4, 5)),
    "max_pool2d_first": ("L.MaxPooling2D(2, padding='same', data_format='channels_first')",
                         (2, 3, 5, 4)),
    "avg_pool1d_first": ("L.AveragePooling1D(2, data_format='channels_first')", (2, 3, 7)),
    "gmax3d": ("L.GlobalMaxPooling3D()", (2, 3, 4, 3, 2)),
    "gavg3d_keep": ("L.GlobalAveragePooling3D(keepdims=True)", (2, 3, 4, 3, 2)),
    "gavg3d_first": ("L.GlobalAveragePooling3D(data_format='channels_first')",
                     (2, 2, 3, 4, 3)),
    "gmax2d_first": ("L.GlobalMaxPooling2D(data_format='channels_first', keepdims=True)",
                     (2, 3, 4, 5)),
    "gavg1d_first": ("L.GlobalAveragePooling1D(data_format='channels_first')", (2, 3, 5)),
}

# Errors: (layer expression, input shape or None for the constructor alone).
ERRORS = {
    "groups_filters": ("L.Conv2D(5, 3, groups=3)", None),
    "groups_channels": ("L.Conv2D(4, 3, groups=2)", (2, 5, 5, 3)),
    "groups_zero": ("L.Conv1D(4, 3, groups=0)", None),
    "strides_dilation": ("L.Conv3D(4, 3, strides=2, dilation_rate=2)", None),
    "transpose_strides_dilation": ("L.Conv2DTranspose(4, 3, strides=2, dilation_rate=2)",
                                   None),
    "output_padding": ("L.Conv1DTranspose(4, 3, strides=2, output_padding=2)", None),
    "data_format": ("L.Conv3D(4, 3, data_format='NDHWC')", None),
    "pool_data_format": ("L.MaxPooling3D(data_format='channels_middle')", None),
    "avg_pool3d_size": ("L.AveragePooling3D()", None),
    "kernel_zero": ("L.SeparableConv2D(4, (0, 3))", None),
    "depth_multiplier": ("L.DepthwiseConv2D(3, depth_multiplier=0)", None),
    "empty_output": ("L.Conv3D(2, 4)", (1, 3, 5, 5, 1)),
}


def _set_weights(layer, rng: np.random.Generator) -> list:
    values = [rng.uniform(-0.6, 0.6, w.shape).astype(np.float32) for w in layer.weights]
    layer.set_weights(values)
    return values


def _run_case(name: str, expr: str, shape: tuple, rng, arrays: dict) -> dict:
    keras.utils.set_random_seed(0)
    keras.backend.clear_session()  # automatic names (in the paths) count from zero
    layer = eval(expr)  # noqa: S307 - the fixture's own expressions
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    arrays[f"{name}/x"] = x
    layer.build(x.shape)
    for i, w in enumerate(_set_weights(layer, rng)):
        arrays[f"{name}/w{i}"] = w
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        out = layer(xt)
        cot = rng.uniform(-1, 1, out.shape).astype(np.float32)
        loss = tf.reduce_sum(out * cot)
    grads = tape.gradient(loss, [xt] + list(layer.trainable_weights))
    arrays[f"{name}/out"], arrays[f"{name}/cot"] = np.asarray(out), cot
    for i, g in enumerate(grads):
        arrays[f"{name}/grad{i}"] = np.asarray(g)
    return {"expr": expr, "shape": list(shape), "config": layer.get_config(),
            "paths": [w.path for w in layer.weights]}


def _error(expr: str, shape) -> dict:
    keras.backend.clear_session()
    try:
        layer = eval(expr)  # noqa: S307
        if shape is not None:
            layer(tf.zeros(shape))
    except Exception as exc:  # noqa: BLE001 - recorded
        return {"expr": expr, "shape": shape, "class": type(exc).__name__,
                "message": str(exc)}
    raise AssertionError(f"{expr} raised nothing")


def main() -> None:
    rng = np.random.default_rng(0)
    arrays: dict = {}
    meta = {"keras_version": keras.__version__, "cases": {}, "errors": {}}
    for name, (expr, shape) in CASES.items():
        meta["cases"][name] = _run_case(name, expr, shape, rng, arrays)
    for name, (expr, shape) in ERRORS.items():
        meta["errors"][name] = _error(expr, shape)
    os.makedirs(OUT, exist_ok=True)
    np.savez_compressed(os.path.join(OUT, "conv_more.npz"), **arrays)
    with open(os.path.join(OUT, "conv_more.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    print(f"wrote {len(arrays)} arrays, {len(CASES)} layer cases, {len(ERRORS)} errors")


if __name__ == "__main__":
    main()
