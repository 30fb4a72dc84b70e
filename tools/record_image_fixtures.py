"""Records TensorFlow 2.21's `tf.image` answers into tests/image/fixtures/image.npz.

Run with the interpreter that has TensorFlow (never imported by tests):

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/venv/bin/python tools/record_image_fixtures.py

Each case stores `<name>/call` (the input's name under `inputs/` and the call as text over
`x`, which the test evaluates with `tf` bound to tapeflow), `<name>/out` (TF's result) and,
for differentiable float cases, `<name>/grad` (the gradient of sum(out * w) w.r.t. the input,
`w` being `<name>/w`). `affine_*` cases are ImageProjectiveTransformV3 (Keras's affine
transform), `<name>/affine` naming the transform (under `transforms/`), fill mode and
interpolation.

The rest of tf.image (colour spaces, hue and saturation, the random and stateless random ops,
quality measures, patches, boxes and non-max suppression) is in MORE, written to
tests/image/fixtures/image_more.npz: `<name>/inputs` names the arrays (under `inputs/`) bound
to `a`, `b`, `c`, ... in `<name>/call`; `<name>/out/<k>` is TF's k-th output and
`<name>/grad/<i>` the gradient of sum_k sum(out_k * w_k) w.r.t. input i, for the inputs in
`<name>/watch`. Random cases set the global seed in their call text.
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


# The rest of tf.image: name -> (input names, call over a, b, ..., indices of watched inputs).
more_rng = np.random.default_rng(2020)   # its own stream: image.npz stays as recorded
RGB = more_rng.uniform(0, 1, (2, 5, 6, 3)).astype(np.float32)
RGB[0, 0, 0] = [0.5, 0.5, 0.5]                                # grey: no hue
RGB[0, 0, 1] = [0.25, 0.75, 0.75]                             # ties for the maximum
RGB[0, 0, 2] = [0.0, 0.0, 0.0]
RGB_U8 = more_rng.integers(0, 256, (1, 4, 5, 3)).astype(np.uint8)
BIG = more_rng.uniform(0, 1, (2, 20, 22, 3)).astype(np.float32)
BIG2 = np.clip(BIG + more_rng.normal(0, 0.1, BIG.shape), 0, 1).astype(np.float32)
HUGE = more_rng.uniform(0, 1, (1, 50, 53, 2)).astype(np.float32)
HUGE2 = np.clip(HUGE + more_rng.normal(0, 0.2, HUGE.shape), 0, 1).astype(np.float32)
PATCH = more_rng.uniform(-1, 1, (2, 7, 8, 2)).astype(np.float32)
CROP_BOXES = np.array([[0.1, 0.2, 0.7, 0.9], [0.5, -0.2, 1.3, 0.6], [0.8, 0.7, 0.2, 0.1],
                       [0.33, 0.41, 0.33, 0.9]], np.float32)
NMS_BOXES = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                      [0, 10.1, 1, 11.1], [0, 100, 1, 101], [1, 1, 0, 0.2],
                      [0.5, 0.5, 0.9, 0.95]], np.float32)
NMS_SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.81, 0.42], np.float32)
OVERLAPS = more_rng.uniform(0, 1, (8, 8)).astype(np.float32)
BATCH_BOXES = np.stack([NMS_BOXES / 101.0, np.roll(NMS_BOXES, 3, 0) / 101.0])
BATCH_SCORES = np.stack([NMS_SCORES, np.roll(NMS_SCORES, 2)])
COMBINED_BOXES = more_rng.uniform(0, 1, (2, 9, 1, 4)).astype(np.float32)
COMBINED_BOXES[..., 2:] = COMBINED_BOXES[..., :2] + 0.4 * COMBINED_BOXES[..., 2:]
COMBINED_BOXES_Q = more_rng.uniform(-0.2, 0.8, (2, 9, 3, 4)).astype(np.float32)
COMBINED_BOXES_Q[..., 2:] = COMBINED_BOXES_Q[..., :2] + 0.5
COMBINED_SCORES = more_rng.permutation(54).reshape(2, 9, 3).astype(np.float32) / 54
DRAW = more_rng.uniform(0, 1, (2, 9, 11, 3)).astype(np.float32)
DRAW_BOXES = np.array([[[0.1, 0.1, 0.6, 0.8], [-0.5, 0.3, 0.5, 1.4], [0.7, 0.2, 0.3, 0.9]],
                       [[0.0, 0.0, 1.0, 1.0], [2.0, 2.0, 3.0, 3.0], [0.25, 0.35, 0.85, 0.55]]],
                      np.float32)
GLIMPSE_OFFSETS = np.array([[0.1, -0.2], [-0.9, 0.8]], np.float32)
MORE_ARRAYS = {k: v for k, v in globals().items() if k.isupper() and isinstance(v, np.ndarray)}

MORE = {
    "rgb_to_hsv": (["RGB"], "tf.image.rgb_to_hsv(a)", [0]),
    "rgb_to_hsv_f64": (["RGB"], "tf.image.rgb_to_hsv(tf.cast(a, tf.float64))", []),
    "rgb_to_hsv_f16": (["RGB"], "tf.image.rgb_to_hsv(tf.cast(a, tf.float16))", []),
    "hsv_to_rgb": (["RGB"], "tf.image.hsv_to_rgb(a)", []),
    "hsv_round_trip": (["RGB"], "tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(a))", []),
    "rgb_to_yiq": (["RGB"], "tf.image.rgb_to_yiq(a)", [0]),
    "yiq_to_rgb": (["RGB"], "tf.image.yiq_to_rgb(a)", [0]),
    "rgb_to_yuv": (["RGB"], "tf.image.rgb_to_yuv(a)", [0]),
    "yuv_to_rgb": (["RGB"], "tf.image.yuv_to_rgb(tf.cast(a, tf.float64))", []),
    "adjust_saturation": (["RGB"], "tf.image.adjust_saturation(a, 1.7)", []),
    "adjust_saturation_low": (["RGB"], "tf.image.adjust_saturation(a, 0.35)", []),
    "adjust_saturation_u8": (["RGB_U8"], "tf.image.adjust_saturation(a, 2.5)", []),
    "adjust_saturation_f64": (["RGB"], "tf.image.adjust_saturation(tf.cast(a, tf.float64), 0.6)",
                              []),
    "adjust_hue": (["RGB"], "tf.image.adjust_hue(a, 0.3)", []),
    "adjust_hue_negative": (["RGB"], "tf.image.adjust_hue(a, -0.85)", []),
    "adjust_hue_u8": (["RGB_U8"], "tf.image.adjust_hue(a, 0.5)", []),
    "psnr": (["BIG", "BIG2"], "tf.image.psnr(a, b, 1.0)", [0, 1]),
    "psnr_u8": (["RGB_U8"], "tf.image.psnr(a, tf.reverse(a, [1]), 255)", []),
    "ssim": (["BIG", "BIG2"], "tf.image.ssim(a, b, 1.0)", [0, 1]),
    "ssim_options": (["BIG", "BIG2"], "tf.image.ssim(a, b, 2.0, filter_size=5, "
                     "filter_sigma=0.8, k1=0.02, k2=0.05)", [0]),
    "ssim_map": (["BIG", "BIG2"], "tf.image.ssim(a[0], b[0], 1.0, filter_size=7, "
                 "return_index_map=True)", [0]),
    "ssim_multiscale": (["HUGE", "HUGE2"], "tf.image.ssim_multiscale(a, b, 1.0, "
                        "filter_size=3)", [0, 1]),
    "ssim_multiscale_weights": (["HUGE", "HUGE2"], "tf.image.ssim_multiscale(a, b, 1.0, "
                                "power_factors=(0.3, 0.7, 1.0), filter_size=5)", [0]),
    "total_variation": (["PATCH"], "tf.image.total_variation(a)", [0]),
    "total_variation_3d": (["PATCH"], "tf.image.total_variation(a[1])", [0]),
    "image_gradients": (["PATCH"], "tf.image.image_gradients(a)", [0]),
    "sobel_edges": (["PATCH"], "tf.image.sobel_edges(a)", [0]),
    "extract_patches_valid": (["PATCH"], "tf.image.extract_patches(a, [1, 3, 2, 1], "
                              "[1, 2, 3, 1], [1, 1, 1, 1], 'VALID')", [0]),
    "extract_patches_same": (["PATCH"], "tf.image.extract_patches(a, [1, 3, 3, 1], "
                             "[1, 2, 2, 1], [1, 1, 1, 1], 'SAME')", [0]),
    "extract_patches_rates": (["PATCH"], "tf.image.extract_patches(a, [1, 2, 3, 1], "
                              "[1, 1, 2, 1], [1, 2, 2, 1], 'SAME')", [0]),
    "extract_patches_rates_valid": (["PATCH"], "tf.image.extract_patches(a, [1, 2, 2, 1], "
                                    "[1, 3, 1, 1], [1, 3, 2, 1], 'VALID')", [0]),
    "crop_and_resize": (["PATCH", "CROP_BOXES"], "tf.image.crop_and_resize(a, b, "
                        "[0, 1, 1, 0], (4, 5))", [0, 1]),
    "crop_and_resize_extrapolate": (["PATCH", "CROP_BOXES"], "tf.image.crop_and_resize(a, b, "
                                    "[1, 0, 1, 0], (3, 1), extrapolation_value=-2.5)", [0, 1]),
    "crop_and_resize_nearest": (["PATCH", "CROP_BOXES"], "tf.image.crop_and_resize(a, b, "
                                "[0, 1, 0, 1], (5, 3), method='nearest')", [0, 1]),
    "crop_and_resize_u8": (["RGB_U8", "CROP_BOXES"], "tf.image.crop_and_resize(a, b, "
                           "[0, 0, 0, 0], (2, 3))", [1]),
    "extract_glimpse_zero": (["PATCH", "GLIMPSE_OFFSETS"], "tf.image.extract_glimpse(a, "
                             "(4, 3), b, noise='zero')", []),
    "extract_glimpse_inside": (["PATCH"], "tf.image.extract_glimpse(a, (3, 4), "
                               "[[0.0, 0.0], [-0.2, 0.1]])", []),
    "extract_glimpse_pixels": (["PATCH"], "tf.image.extract_glimpse(a, (3, 2), "
                               "[[1.0, 2.0], [4.6, -0.5]], centered=False, normalized=False, "
                               "noise='zero')", []),
    "extract_glimpse_centered_pixels": (["PATCH"], "tf.image.extract_glimpse(a, (2, 2), "
                                        "[[1.0, -2.0], [-3.0, 0.5]], centered=True, "
                                        "normalized=False, noise='zero')", []),
    "draw_bounding_boxes": (["DRAW", "DRAW_BOXES"], "tf.image.draw_bounding_boxes(a, b, None)",
                            []),
    "draw_bounding_boxes_colors": (["DRAW", "DRAW_BOXES"], "tf.image.draw_bounding_boxes("
                                   "a, b, [[0.1, 0.2, 0.3, 1.0], [0.9, 0.8, 0.7, 1.0]])", []),
    "draw_bounding_boxes_gray": (["DRAW", "DRAW_BOXES"], "tf.image.draw_bounding_boxes("
                                 "a[..., :1], b, None)", []),
    "nms": (["NMS_BOXES", "NMS_SCORES"], "tf.image.non_max_suppression(a, b, 6, 0.5)", []),
    "nms_threshold": (["NMS_BOXES", "NMS_SCORES"], "tf.image.non_max_suppression(a, b, 10, "
                      "0.2, score_threshold=0.45)", []),
    "nms_scores": (["NMS_BOXES", "NMS_SCORES"], "tf.image.non_max_suppression_with_scores("
                   "a, b, 10, 0.5)", []),
    "nms_soft": (["NMS_BOXES", "NMS_SCORES"], "tf.image.non_max_suppression_with_scores("
                 "a, b, 10, 1.0, score_threshold=0.1, soft_nms_sigma=0.5)", []),
    "nms_soft_iou": (["NMS_BOXES", "NMS_SCORES"], "tf.image.non_max_suppression_with_scores("
                     "a, b, 5, 0.6, soft_nms_sigma=0.3)", []),
    "nms_overlaps": (["OVERLAPS", "NMS_SCORES"], "tf.image.non_max_suppression_overlaps(a, b, "
                     "5, 0.6)", []),
    "nms_padded": (["NMS_BOXES", "NMS_SCORES"], "tf.image.non_max_suppression_padded(a, b, 5, "
                   "0.5)", []),
    "nms_padded_pad": (["NMS_BOXES", "NMS_SCORES"], "tf.image.non_max_suppression_padded(a, b, "
                       "7, 0.3, score_threshold=0.4, pad_to_max_output_size=True, "
                       "tile_size=4)", []),
    "nms_padded_batch": (["BATCH_BOXES", "BATCH_SCORES"], "tf.image.non_max_suppression_padded("
                         "a, b, 4, 0.5, pad_to_max_output_size=True, tile_size=3)", []),
    "combined_nms": (["COMBINED_BOXES", "COMBINED_SCORES"], "tf.image."
                     "combined_non_max_suppression(a, b, 3, 5, 0.3)", []),
    "combined_nms_pad": (["COMBINED_BOXES_Q", "COMBINED_SCORES"], "tf.image."
                         "combined_non_max_suppression(a, b, 2, 20, 0.4, 0.2, "
                         "pad_per_class=True)", []),
    "combined_nms_noclip": (["COMBINED_BOXES_Q", "COMBINED_SCORES"], "tf.image."
                            "combined_non_max_suppression(a, b, 4, 7, 0.5, clip_boxes=False)",
                            []),
}
_SEEDED = {
    "random_brightness": "tf.image.random_brightness(a, 0.4, seed=7)",
    "random_contrast": "tf.image.random_contrast(a, 0.2, 1.8, seed=8)",
    "random_saturation": "tf.image.random_saturation(a, 0.5, 1.5, seed=9)",
    "random_hue": "tf.image.random_hue(a, 0.4, seed=10)",
    "random_flip_left_right": "tf.image.random_flip_left_right(a, seed=11)",
    "random_flip_up_down": "tf.image.random_flip_up_down(a, seed=12)",
    "random_flip_left_right_3d": "tf.image.random_flip_left_right(a[0], seed=13)",
    "random_flip_up_down_3d": "tf.image.random_flip_up_down(a[1], seed=14)",
    "random_crop": "tf.image.random_crop(a, [1, 3, 4, 3], seed=15)",
    "random_brightness_global_only": "tf.image.random_brightness(a, 0.4)",
    "stateless_random_brightness": "tf.image.stateless_random_brightness(a, 0.4, (1, 2))",
    "stateless_random_contrast": "tf.image.stateless_random_contrast(a, 0.2, 1.8, (3, 4))",
    "stateless_random_saturation": "tf.image.stateless_random_saturation(a, 0.5, 1.5, (5, 6))",
    "stateless_random_hue": "tf.image.stateless_random_hue(a, 0.4, (7, 8))",
    "stateless_random_flip_left_right": "tf.image.stateless_random_flip_left_right(a, (9, 1))",
    "stateless_random_flip_up_down": "tf.image.stateless_random_flip_up_down(a, (2, 9))",
    "stateless_random_flip_left_right_3d": "tf.image.stateless_random_flip_left_right(a[0], "
                                           "(3, 3))",
    "stateless_random_crop": "tf.image.stateless_random_crop(a, [2, 2, 3, 3], (4, 5))",
}
for _name, _text in _SEEDED.items():
    for _seed in (3, 42):
        # A second call shows that the op's stream carries on, as TF's.
        MORE[f"{_name}_{_seed}"] = (["RGB"], f"(tf.random.set_seed({_seed}), {_text}, "
                                    f"{_text})[1:]", [])


def record_more(tf) -> None:
    out = {f"inputs/{k}": v for k, v in MORE_ARRAYS.items()}
    for name, (sources, text, watch) in MORE.items():
        args = [tf.constant(MORE_ARRAYS[s]) for s in sources]
        env = {"tf": tf, **dict(zip("abcdefgh", args))}
        with tf.GradientTape(persistent=True) as tape:
            for i in watch:
                tape.watch(args[i])
            result = eval(text, env)  # noqa: S307 - our own case text
            outputs = list(result) if isinstance(result, (tuple, list)) else [result]
            loss = 0.0
            for k, y in enumerate(outputs):
                if watch and y.dtype.is_floating:
                    w = more_rng.uniform(-1, 1, y.shape).astype(np.float32)
                    out[f"{name}/w/{k}"] = w
                    loss = loss + tf.reduce_sum(tf.cast(y, tf.float32) * w)
        out[f"{name}/inputs"] = np.array(sources)
        out[f"{name}/call"] = np.array(text)
        out[f"{name}/watch"] = np.array(watch, np.int64)
        for k, y in enumerate(outputs):
            out[f"{name}/out/{k}"] = y.numpy()
        for i in watch:
            grad = tape.gradient(loss, args[i])
            out[f"{name}/grad/{i}"] = np.zeros(0) if grad is None else grad.numpy()
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "image", "fixtures",
                        "image_more.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {os.path.normpath(path)}")


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
    record_more(tf)


if __name__ == "__main__":
    main()
