"""Records TensorFlow 2.21's `tf.image` answers into tests/image/fixtures/image.npz.

Run with the interpreter that has TensorFlow (never imported by tests):

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/venv/bin/python tools/record_image_fixtures.py

Each case stores `<name>/call` (the input's name under `inputs/` and the call as text over
`x`, which the test evaluates with `tf` bound to tapeflow), `<name>/out` (TF's result) and,
for differentiable float cases, `<name>/grad` (the gradient of sum(out * w) w.r.t. the input,
`w` being `<name>/w`). `affine_*` cases are ImageProjectiveTransformV3 (Keras's affine
transform), `<name>/affine` naming the transform (under `transforms/`), fill mode and
interpolation.
"""

from __future__ import annotations

import os

import numpy as np

rng = np.random.default_rng(20)
IMAGE = rng.uniform(0, 1, (2, 5, 7, 2)).astype(np.float32)
SQUARE = rng.uniform(0, 1, (1, 4, 4, 3)).astype(np.float32)
UINT8 = rng.integers(0, 256, (1, 4, 6, 3)).astype(np.uint8)

# name -> (input array name, call text over `x`, differentiable)
CASES = {}
for _method in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
                "mitchellcubic"):
    for _size in ((8, 11), (3, 4), (3, 10), (5, 7)):
        for _aa in (False, True):
            if _aa and _method in ("nearest", "area"):
                continue
            CASES[f"resize_{_method}_{_size[0]}x{_size[1]}_{'aa' if _aa else 'plain'}"] = (
                "IMAGE", f"tf.image.resize(x, {_size}, method='{_method}', antialias={_aa})",
                _method != "area")
CASES.update({
    "resize_preserve": ("IMAGE", "tf.image.resize(x, (4, 4), preserve_aspect_ratio=True)", True),
    "resize_unbatched": ("SQUARE", "tf.image.resize(x[0], (6, 3))", True),
    "resize_uint8_bilinear": ("UINT8", "tf.image.resize(x, (5, 5))", False),
    "resize_uint8_nearest": ("UINT8", "tf.image.resize(x, (5, 9), method='nearest')", False),
    "flip_left_right": ("IMAGE", "tf.image.flip_left_right(x)", True),
    "flip_up_down": ("IMAGE", "tf.image.flip_up_down(x[0])", True),
    "rot90_1": ("IMAGE", "tf.image.rot90(x)", True),
    "rot90_2": ("IMAGE", "tf.image.rot90(x[1], k=2)", True),
    "rot90_3": ("IMAGE", "tf.image.rot90(x, k=3)", True),
    "transpose": ("IMAGE", "tf.image.transpose(x)", True),
    "central_crop": ("IMAGE", "tf.image.central_crop(x, 0.5)", True),
    "central_crop_3d": ("IMAGE", "tf.image.central_crop(x[0], 0.7)", True),
    "crop_to_bounding_box": ("IMAGE", "tf.image.crop_to_bounding_box(x, 1, 2, 3, 4)", True),
    "pad_to_bounding_box": ("IMAGE", "tf.image.pad_to_bounding_box(x, 1, 2, 8, 10)", True),
    "resize_with_crop_or_pad_crop": ("IMAGE", "tf.image.resize_with_crop_or_pad(x, 3, 4)",
                                     True),
    "resize_with_crop_or_pad_pad": ("IMAGE", "tf.image.resize_with_crop_or_pad(x[0], 8, 9)",
                                    True),
    "resize_with_crop_or_pad_mixed": ("IMAGE", "tf.image.resize_with_crop_or_pad(x, 8, 3)",
                                      True),
    "resize_with_pad": ("IMAGE", "tf.image.resize_with_pad(x, 6, 6)", True),
    "adjust_brightness": ("IMAGE", "tf.image.adjust_brightness(x, 0.3)", True),
    "adjust_brightness_uint8": ("UINT8", "tf.image.adjust_brightness(x, 0.25)", False),
    "adjust_contrast": ("IMAGE", "tf.image.adjust_contrast(x, 1.7)", False),  # no gradient in TF
    "adjust_contrast_uint8": ("UINT8", "tf.image.adjust_contrast(x, 0.4)", False),
    "adjust_gamma": ("IMAGE", "tf.image.adjust_gamma(x, 2.2, 0.9)", True),
    "rgb_to_grayscale": ("SQUARE", "tf.image.rgb_to_grayscale(x)", True),
    "rgb_to_grayscale_uint8": ("UINT8", "tf.image.rgb_to_grayscale(x)", False),
    "grayscale_to_rgb": ("IMAGE", "tf.image.grayscale_to_rgb(x[..., :1])", True),
    "convert_uint8_float": ("UINT8", "tf.image.convert_image_dtype(x, tf.float32)", False),
    "convert_float_uint8": ("IMAGE", "tf.image.convert_image_dtype(x * 1.2 - 0.1, tf.uint8, "
                            "saturate=True)", False),
    "convert_uint8_int16": ("UINT8", "tf.image.convert_image_dtype(x, tf.int16)", False),
    "convert_int16_uint8": ("UINT8", "tf.image.convert_image_dtype("
                            "tf.cast(x, tf.int16) * 100, tf.uint8)", False),
    "convert_float_float16": ("IMAGE", "tf.image.convert_image_dtype(x, tf.float16)", False),
    "per_image_standardization": ("IMAGE", "tf.image.per_image_standardization(x)", True),
    "per_image_standardization_uint8": ("UINT8", "tf.image.per_image_standardization(x)",
                                        False),
})

# Keras's affine transform (ImageProjectiveTransformV3): transforms for the two images.
TRANSFORMS = {
    # Generic angles and offsets: on exact half-pixel ties (a 0.6/0.8 rotation by whole
    # pixels) the nearest-neighbour gradient depends on the last bit of TF's float32 inverse.
    "rotate": [[0.9553365, -0.2955202, 1.37, 0.2955202, 0.9553365, -0.81, 0.0, 0.0],
               [0.5, 0.86, -1.0, -0.86, 0.5, 4.0, 0.0, 0.0]],
    "zoom": [[1.6, 0.0, -2.4, 0.0, 0.7, 1.2, 0.0, 0.0],
             [0.5, 0.0, 1.5, 0.0, 2.5, -3.0, 0.0, 0.0]],
    "shift": [[1.0, 0.0, 3.5, 0.0, 1.0, -2.25, 0.0, 0.0],
              [1.0, 0.0, -9.5, 0.0, 1.0, 7.0, 0.0, 0.0]],
    "projective": [[1.1, 0.2, -0.5, -0.1, 0.9, 0.3, 0.02, -0.05],
                   [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.1, 0.1]],
}
AFFINE = {f"affine_{t}_{mode}_{interp}": (t, mode, interp)
          for t in TRANSFORMS for mode in ("reflect", "wrap", "constant", "nearest")
          for interp in ("bilinear", "nearest")}


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    arrays = {"IMAGE": IMAGE, "SQUARE": SQUARE, "UINT8": UINT8}
    out = {f"inputs/{k}": v for k, v in arrays.items()}
    out.update({f"transforms/{k}": np.array(v, np.float32) for k, v in TRANSFORMS.items()})
    for name, (source, text, differentiable) in CASES.items():
        x = tf.constant(arrays[source])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = eval(text, {"tf": tf, "x": x})  # noqa: S307 - our own case text
            w = rng.uniform(-1, 1, y.shape).astype(np.float32)
            loss = tf.reduce_sum(tf.cast(y, tf.float32) * w)
        out[f"{name}/out"] = y.numpy()
        out[f"{name}/call"] = np.array([source, text])
        if differentiable:
            out[f"{name}/w"] = w
            out[f"{name}/grad"] = tape.gradient(loss, x).numpy()
    for name, (t, mode, interp) in AFFINE.items():
        x = tf.constant(IMAGE)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.raw_ops.ImageProjectiveTransformV3(
                images=x, transforms=tf.constant(TRANSFORMS[t], tf.float32),
                output_shape=tf.shape(x)[1:3], fill_value=0.5,
                interpolation=interp.upper(), fill_mode=mode.upper())
            w = rng.uniform(-1, 1, y.shape).astype(np.float32)
            loss = tf.reduce_sum(y * w)
        out[f"{name}/out"] = y.numpy()
        out[f"{name}/affine"] = np.array([t, mode, interp])
        out[f"{name}/w"] = w
        out[f"{name}/grad"] = tape.gradient(loss, x).numpy()
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "image", "fixtures",
                        "image.npz")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
