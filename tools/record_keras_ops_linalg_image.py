"""Records Keras 3.15's (TF 2.21 backend) answers for `keras.ops.linalg` and `keras.ops.image`
into tests/keras/ops/fixtures/linalg_image.npz (run with a Python that has Keras 3 +
TensorFlow; tests/keras/ops/test_keras_ops_linalg_image.py calls tapeflow.keras.ops with the
same arguments and compares):

  TF_CPP_MIN_LOG_LEVEL=3 python tools/record_keras_ops_linalg_image.py

The inputs come from a seeded NumPy generator (`make_inputs`) and are stored too. A case is
(id, namespace.op, args, kwargs): an argument "$name" is the input `name`, "$fn:<src>" the
Python lambda `src` (plain arithmetic, so it runs on either library's tensors); other values
are passed as they are. Each case records its outputs (flattened; values, dtype, shape) or
the class and text of the error Keras raises. The npz holds "in/<name>", "out/<id>/<i>" and
"meta" (a JSON string: the cases and what they gave).
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "ops", "fixtures",
                   "linalg_image.npz")


def _spd(rng: np.random.Generator, n: int, dtype: Any, batch: tuple = ()) -> np.ndarray:
    a = rng.normal(size=batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def make_inputs() -> dict:
    """The arrays the cases use (seeded: the same on every run)."""
    rng = np.random.default_rng(1234)
    normal = lambda *shape: rng.normal(size=shape).astype(np.float32)  # noqa: E731
    spd3 = _spd(rng, 3, np.float32)
    inputs = {
        "spd3": spd3, "spd3_64": _spd(rng, 3, np.float64), "spdb": _spd(rng, 3, np.float32, (2,)),
        "chol3": np.linalg.cholesky(spd3.astype(np.float64)).astype(np.float32),
        "m3": normal(3, 3), "m3_64": rng.normal(size=(3, 3)), "m34": normal(3, 4),
        "m43": normal(4, 3), "mb": normal(2, 3, 3), "v3": normal(3), "v4": normal(4),
        "b32": normal(3, 2), "b42": normal(4, 2), "bb": normal(2, 3, 2),
        "rank2": (normal(3, 1) @ normal(1, 3) + normal(3, 1) @ normal(1, 3)),
        "i33": rng.integers(-5, 6, size=(3, 3)).astype(np.int32),
        "i64": rng.integers(-5, 6, size=(2, 3)).astype(np.int64),
        "t234": normal(2, 3, 4), "neg3": -spd3,
        "img": rng.uniform(size=(2, 8, 8, 3)).astype(np.float32),
        "img1": rng.uniform(size=(8, 8, 3)).astype(np.float32),
        "img_cf": rng.uniform(size=(2, 3, 8, 8)).astype(np.float32),
        "img_64": rng.uniform(size=(1, 6, 6, 3)),
        "img_u8": rng.integers(0, 256, size=(8, 8, 3)).astype(np.uint8),
        "img_i32": rng.integers(0, 256, size=(1, 6, 6, 1)).astype(np.int32),
        "img_gray": rng.uniform(size=(2, 5, 5, 1)).astype(np.float32),
        "img_b": rng.uniform(size=(2, 8, 8, 3)).astype(np.float32),
        "hsv": rng.uniform(size=(2, 4, 4, 3)).astype(np.float32),
        "img5": rng.uniform(size=(2, 8, 8, 5)).astype(np.float32),
        "img2d": rng.uniform(size=(6, 7)).astype(np.float32),
        "img2d_i": rng.integers(0, 100, size=(6, 7)).astype(np.int32),
        "coords": rng.uniform(-1.5, 7.5, size=(2, 3, 4)).astype(np.float32),
        "transform": np.array([[1.1, 0.1, -1.0, -0.1, 0.9, 0.5, 0.0, 0.0],
                               [0.8, -0.2, 1.5, 0.3, 1.2, -0.7, 0.01, -0.02]], np.float32),
        "transform1": np.array([1.0, 0.0, 2.0, 0.0, 1.0, -1.0, 0.0, 0.0], np.float32),
        "start": np.array([[0, 0], [7, 0], [0, 7], [7, 7]], np.float32),
        "end": np.array([[1, 0.5], [6.5, 1], [0, 6], [7, 7.5]], np.float32),
        "start_b": np.array([[[0, 0], [7, 0], [0, 7], [7, 7]]] * 2, np.float32),
        "end_b": np.array([[[1, 0.5], [6.5, 1], [0, 6], [7, 7.5]],
                           [[0, 1], [7, 0], [1, 7], [6, 6]]], np.float32),
        "vol": rng.uniform(size=(1, 4, 4, 4, 2)).astype(np.float32),
        "vol_cf": rng.uniform(size=(2, 4, 4, 4)).astype(np.float32),
        "scale2": np.array([1.5, 0.75], np.float32),
        "trans2": np.array([0.5, -1.0], np.float32),
        "v3b": normal(3),
        "big": rng.uniform(size=(2, 16, 14, 3)).astype(np.float32),
        "big_b": rng.uniform(size=(2, 16, 14, 3)).astype(np.float32),
        "big1": rng.uniform(size=(13, 12, 2)).astype(np.float32),
        "big_cf": rng.uniform(size=(1, 2, 12, 12)).astype(np.float32),
        "big_u8": rng.integers(0, 256, size=(12, 12, 1)).astype(np.uint8),
        "bools": rng.integers(0, 2, size=(4, 2)).astype(bool),
        "m3_16": rng.normal(size=(3, 3)).astype(np.float16),
        "v3_64": rng.normal(size=3),
    }
    return inputs


SQUARE = "$fn:lambda x, y: x * x * y + y"
AUX = "$fn:lambda x: (x * x * x, x + 1.0)"
LINALG = [
    ("cholesky", "linalg.cholesky", ["$spd3"], {}),
    ("cholesky_upper", "linalg.cholesky", ["$spd3"], {"upper": True}),
    ("cholesky_64", "linalg.cholesky", ["$spd3_64"], {}),
    ("cholesky_batch", "linalg.cholesky", ["$spdb"], {}),
    ("cholesky_not_square", "linalg.cholesky", ["$m34"], {}),
    ("cholesky_vector", "linalg.cholesky", ["$v3"], {}),
    ("cholesky_not_pd", "linalg.cholesky", ["$neg3"], {}),
    ("cholesky_inverse", "linalg.cholesky_inverse", ["$chol3"], {}),
    ("cholesky_inverse_upper", "linalg.cholesky_inverse", ["$chol3"], {"upper": True}),
    ("det", "linalg.det", ["$m3"], {}),
    ("det_64", "linalg.det", ["$m3_64"], {}),
    ("det_batch", "linalg.det", ["$mb"], {}),
    ("det_not_square", "linalg.det", ["$m34"], {}),
    ("eig_sym", "linalg.eig", ["$spd3"], {}),
    ("eigh", "linalg.eigh", ["$spd3"], {}),
    ("eigh_batch", "linalg.eigh", ["$spdb"], {}),
    ("eigh_64", "linalg.eigh", ["$spd3_64"], {}),
    ("inv", "linalg.inv", ["$m3"], {}),
    ("inv_64", "linalg.inv", ["$m3_64"], {}),
    ("inv_batch", "linalg.inv", ["$mb"], {}),
    ("inv_not_square", "linalg.inv", ["$m34"], {}),
    ("lu_factor", "linalg.lu_factor", ["$m3"], {}),
    ("lu_factor_batch", "linalg.lu_factor", ["$mb"], {}),
    ("lu_factor_not_square", "linalg.lu_factor", ["$m34"], {}),
    ("matrix_rank", "linalg.matrix_rank", ["$m3"], {}),
    ("matrix_rank_deficient", "linalg.matrix_rank", ["$rank2"], {}),
    ("matrix_rank_tol", "linalg.matrix_rank", ["$m3"], {"tol": 0.5}),
    ("norm", "linalg.norm", ["$m3"], {}),
    ("norm_vector", "linalg.norm", ["$v3"], {}),
    ("norm_axis0", "linalg.norm", ["$m3"], {"axis": 0}),
    ("norm_axis1_keep", "linalg.norm", ["$m3"], {"axis": 1, "keepdims": True}),
    ("norm_inf", "linalg.norm", ["$v3"], {"ord": float("inf")}),
    ("norm_ninf", "linalg.norm", ["$v3"], {"ord": float("-inf")}),
    ("norm_0", "linalg.norm", ["$v3"], {"ord": 0}),
    ("norm_3", "linalg.norm", ["$v3"], {"ord": 3}),
    ("norm_fro", "linalg.norm", ["$m34"], {"ord": "fro", "axis": (0, 1)}),
    ("norm_nuc", "linalg.norm", ["$m34"], {"ord": "nuc", "axis": (0, 1)}),
    ("norm_1", "linalg.norm", ["$m34"], {"ord": 1, "axis": (0, 1)}),
    ("norm_n1", "linalg.norm", ["$m34"], {"ord": -1, "axis": (0, 1)}),
    ("norm_minf", "linalg.norm", ["$m34"], {"ord": float("inf"), "axis": (0, 1)}),
    ("norm_mninf", "linalg.norm", ["$m34"], {"ord": float("-inf"), "axis": (0, 1)}),
    ("norm_2", "linalg.norm", ["$m34"], {"ord": 2, "axis": (0, 1)}),
    ("norm_n2", "linalg.norm", ["$m34"], {"ord": -2, "axis": (0, 1)}),
    ("norm_2_batch_keep", "linalg.norm", ["$t234"], {"ord": 2, "axis": (1, 2),
                                                     "keepdims": True}),
    ("norm_1_swapped", "linalg.norm", ["$t234"], {"ord": 1, "axis": (2, 0)}),
    ("norm_inf_keep", "linalg.norm", ["$t234"], {"ord": float("inf"), "axis": (-1, -2),
                                                 "keepdims": True}),
    ("norm_int32", "linalg.norm", ["$i33"], {}),
    ("norm_int64", "linalg.norm", ["$i64"], {"axis": 1}),
    ("norm_64", "linalg.norm", ["$m3_64"], {"ord": "nuc", "axis": (0, 1)}),
    ("norm_bool", "linalg.norm", ["$bools"], {"axis": 0}),
    ("norm_float16", "linalg.norm", ["$m3_16"], {"ord": 1, "axis": (0, 1)}),
    ("norm_list", "linalg.norm", [[3.0, 4.0]], {}),
    ("det_int", "linalg.det", ["$i33"], {}),
    ("inv_list", "linalg.inv", [[[2.0, 0.0], [0.0, 4.0]]], {}),
    ("solve_mixed_dtypes", "linalg.solve", ["$m3", "$v3_64"], {}),
    ("solve_triangular_mixed_dtypes", "linalg.solve_triangular", ["$m3_64", "$v3"], {}),
    ("norm_bad_ord", "linalg.norm", ["$v3"], {"ord": "fro"}),
    ("norm_bad_matrix_ord", "linalg.norm", ["$m3"], {"ord": 3, "axis": (0, 1)}),
    ("norm_bad_axis", "linalg.norm", ["$m3"], {"axis": 2}),
    ("norm_three_axes", "linalg.norm", ["$t234"], {}),
    ("pinv", "linalg.pinv", ["$m34"], {}),
    ("pinv_rcond", "linalg.pinv", ["$rank2"], {"rcond": 1e-3}),
    ("qr", "linalg.qr", ["$m43"], {}),
    ("qr_complete", "linalg.qr", ["$m43"], {"mode": "complete"}),
    ("qr_wide", "linalg.qr", ["$m34"], {}),
    ("qr_batch", "linalg.qr", ["$mb"], {}),
    ("qr_bad_mode", "linalg.qr", ["$m3"], {"mode": "r"}),
    ("solve_vector", "linalg.solve", ["$m3", "$v3"], {}),
    ("solve_matrix", "linalg.solve", ["$m3", "$b32"], {}),
    ("solve_batch", "linalg.solve", ["$mb", "$bb"], {}),
    ("solve_not_square", "linalg.solve", ["$m34", "$v3"], {}),
    ("solve_incompatible", "linalg.solve", ["$m3", "$b42"], {}),
    ("solve_incompatible_vector", "linalg.solve", ["$m3", "$v4"], {}),
    ("solve_triangular", "linalg.solve_triangular", ["$m3", "$v3"], {}),
    ("solve_triangular_lower", "linalg.solve_triangular", ["$m3", "$b32"], {"lower": True}),
    ("solve_triangular_batch", "linalg.solve_triangular", ["$mb", "$bb"], {"lower": True}),
    ("svd", "linalg.svd", ["$m34"], {}),
    ("svd_reduced", "linalg.svd", ["$m43"], {"full_matrices": False}),
    ("svd_values", "linalg.svd", ["$mb"], {"compute_uv": False}),
    ("svd_vector", "linalg.svd", ["$v3"], {}),
    ("lstsq_vector", "linalg.lstsq", ["$m43", "$v4"], {}),
    ("lstsq_matrix", "linalg.lstsq", ["$m43", "$b42"], {}),
    ("lstsq_rcond", "linalg.lstsq", ["$rank2", "$b32"], {"rcond": 0.1}),
    ("lstsq_leading", "linalg.lstsq", ["$m43", "$v3"], {}),
    ("lstsq_rank3", "linalg.lstsq", ["$mb", "$bb"], {}),
    ("jvp", "linalg.jvp", [SQUARE, ["$tensor:v3", "$tensor:v3b"], ["$v3b", "$v3"]], {}),
    ("jvp_aux", "linalg.jvp", [AUX, ["$tensor:m3"], ["$m3"]], {"has_aux": True}),
]

IMAGE = [
    ("affine", "image.affine_transform", ["$img", "$transform"], {}),
    ("affine_nearest_wrap", "image.affine_transform", ["$img", "$transform"],
     {"interpolation": "nearest", "fill_mode": "wrap"}),
    ("affine_reflect_single", "image.affine_transform", ["$img1", "$transform1"],
     {"fill_mode": "reflect"}),
    ("affine_fill_cf", "image.affine_transform", ["$img_cf", "$transform"],
     {"fill_mode": "nearest", "fill_value": 0.5, "data_format": "channels_first"}),
    ("affine_bad_interp", "image.affine_transform", ["$img", "$transform"],
     {"interpolation": "bicubic"}),
    ("affine_bad_fill", "image.affine_transform", ["$img", "$transform"], {"fill_mode": "mirror"}),
    ("affine_bad_rank", "image.affine_transform", ["$img2d", "$transform"], {}),
    ("crop", "image.crop_images", ["$img"], {"top_cropping": 1, "left_cropping": 2,
                                            "target_height": 4, "target_width": 5}),
    ("crop_bottom_right", "image.crop_images", ["$img1"], {"top_cropping": 2,
                                                          "bottom_cropping": 1,
                                                          "left_cropping": 0,
                                                          "right_cropping": 3}),
    ("crop_cf", "image.crop_images", ["$img_cf"], {"bottom_cropping": 2, "target_height": 3,
                                                  "right_cropping": 1, "target_width": 6,
                                                  "data_format": "channels_first"}),
    ("crop_three_given", "image.crop_images", ["$img"], {"top_cropping": 1,
                                                        "bottom_cropping": 1,
                                                        "target_height": 6,
                                                        "left_cropping": 1,
                                                        "target_width": 2}),
    ("crop_negative", "image.crop_images", ["$img"], {"top_cropping": -1, "target_height": 2,
                                                     "left_cropping": 1, "target_width": 2}),
    ("crop_too_far", "image.crop_images", ["$img"], {"top_cropping": 7, "bottom_cropping": 3,
                                                    "left_cropping": 1, "target_width": 2}),
    ("elastic", "image.elastic_transform", ["$img"], {"seed": 3}),
    ("elastic_nearest", "image.elastic_transform", ["$img1"],
     {"alpha": 5.0, "sigma": 1.0, "interpolation": "nearest", "fill_mode": "constant",
      "seed": 7}),
    ("elastic_cf", "image.elastic_transform", ["$img_cf"],
     {"alpha": 3.0, "sigma": 2.0, "fill_mode": "wrap", "seed": 11,
      "data_format": "channels_first"}),
    ("patches", "image.extract_patches", ["$img"], {"size": 3}),
    ("patches_strides_same", "image.extract_patches", ["$img"],
     {"size": (2, 3), "strides": 2, "padding": "same"}),
    ("patches_dilation", "image.extract_patches", ["$img1"], {"size": 2, "strides": 1,
                                                             "dilation_rate": 2}),
    ("patches_cf", "image.extract_patches", ["$img_cf"], {"size": 4,
                                                         "data_format": "channels_first"}),
    ("patches_3d_via_2d", "image.extract_patches", ["$vol"], {"size": (2, 2, 2)}),
    ("patches_bad_size", "image.extract_patches", ["$img"], {"size": (2, 2, 2, 2)}),
    ("patches_size_str", "image.extract_patches", ["$img"], {"size": "3"}),
    ("patches_3d", "image.extract_patches_3d", ["$vol"], {"size": 2}),
    ("patches_3d_strides", "image.extract_patches_3d", ["$vol"],
     {"size": (2, 3, 2), "strides": (1, 1, 2), "padding": "same"}),
    ("patches_3d_unbatched_cf", "image.extract_patches_3d", ["$vol_cf"],
     {"size": 2, "data_format": "channels_first"}),
    ("patches_3d_bad_strides", "image.extract_patches_3d", ["$vol"], {"size": 2,
                                                                     "strides": (1, 1)}),
    ("blur", "image.gaussian_blur", ["$img"], {}),
    ("blur_5x3", "image.gaussian_blur", ["$img1"], {"kernel_size": (5, 3),
                                                   "sigma": (2.0, 0.5)}),
    ("blur_cf", "image.gaussian_blur", ["$img_cf"], {"kernel_size": (3, 5),
                                                    "sigma": (1.0, 1.5),
                                                    "data_format": "channels_first"}),
    ("blur_64", "image.gaussian_blur", ["$img_64"], {}),
    ("hsv_to_rgb", "image.hsv_to_rgb", ["$hsv"], {}),
    ("hsv_to_rgb_int", "image.hsv_to_rgb", ["$img_u8"], {}),
    ("rgb_to_hsv", "image.rgb_to_hsv", ["$img"], {}),
    ("rgb_to_hsv_cf", "image.rgb_to_hsv", ["$img_cf"], {"data_format": "channels_first"}),
    ("rgb_to_hsv_rank", "image.rgb_to_hsv", ["$img2d"], {}),
    ("gray", "image.rgb_to_grayscale", ["$img"], {}),
    ("gray_u8", "image.rgb_to_grayscale", ["$img_u8"], {}),
    ("gray_cf", "image.rgb_to_grayscale", ["$img_cf"], {"data_format": "channels_first"}),
    ("gray_one", "image.rgb_to_grayscale", ["$img_gray"], {}),
    ("gray_five", "image.rgb_to_grayscale", ["$img5"], {}),
    ("map_linear", "image.map_coordinates", ["$img2d", "$coords", 1], {}),
    ("map_nearest", "image.map_coordinates", ["$img2d", "$coords", 0], {}),
    ("map_fill", "image.map_coordinates", ["$img2d", "$coords", 1], {"fill_value": -1.0}),
    ("map_nearest_mode", "image.map_coordinates", ["$img2d", "$coords", 1],
     {"fill_mode": "nearest"}),
    ("map_wrap", "image.map_coordinates", ["$img2d", "$coords", 1], {"fill_mode": "wrap"}),
    ("map_mirror", "image.map_coordinates", ["$img2d", "$coords", 1], {"fill_mode": "mirror"}),
    ("map_reflect", "image.map_coordinates", ["$img2d", "$coords", 0],
     {"fill_mode": "reflect"}),
    ("map_int", "image.map_coordinates", ["$img2d_i", "$coords", 1], {}),
    ("map_bad_order", "image.map_coordinates", ["$img2d", "$coords", 3], {}),
    ("map_bad_mode", "image.map_coordinates", ["$img2d", "$coords", 1], {"fill_mode": "edge"}),
    ("map_bad_leading", "image.map_coordinates", ["$img", "$coords", 1], {}),
    ("pad", "image.pad_images", ["$img"], {"top_padding": 1, "left_padding": 2,
                                          "target_height": 10, "target_width": 11}),
    ("pad_single", "image.pad_images", ["$img1"], {"top_padding": 1, "bottom_padding": 2,
                                                  "left_padding": 0, "right_padding": 3}),
    ("pad_cf", "image.pad_images", ["$img_cf"], {"bottom_padding": 1, "target_height": 9,
                                                "right_padding": 2, "target_width": 12,
                                                "data_format": "channels_first"}),
    ("pad_two_missing", "image.pad_images", ["$img"], {"top_padding": 1,
                                                      "left_padding": 1,
                                                      "target_width": 9}),
    ("pad_too_small", "image.pad_images", ["$img"], {"top_padding": 1, "target_height": 5,
                                                    "left_padding": 1, "target_width": 9}),
    ("perspective", "image.perspective_transform", ["$img", "$start", "$end"], {}),
    ("perspective_batch_nearest", "image.perspective_transform",
     ["$img", "$start_b", "$end_b"], {"interpolation": "nearest", "fill_value": 0.25}),
    ("perspective_single_cf", "image.perspective_transform", ["$img_cf", "$start", "$end"],
     {"data_format": "channels_first"}),
    ("perspective_bad_points", "image.perspective_transform", ["$img", "$transform", "$end"],
     {}),
    ("resize", "image.resize", ["$img", (5, 6)], {}),
    ("resize_nearest", "image.resize", ["$img", (12, 10)], {"interpolation": "nearest"}),
    ("resize_bicubic_aa", "image.resize", ["$img", (4, 3)], {"interpolation": "bicubic",
                                                            "antialias": True}),
    ("resize_area", "image.resize", ["$img1", (3, 5)], {"interpolation": "area"}),
    ("resize_lanczos3", "image.resize", ["$img", (6, 10)], {"interpolation": "lanczos3"}),
    ("resize_crop", "image.resize", ["$img", (4, 6)], {"crop_to_aspect_ratio": True}),
    ("resize_pad", "image.resize", ["$img", (4, 6)], {"pad_to_aspect_ratio": True,
                                                     "fill_value": 0.5}),
    ("resize_u8", "image.resize", ["$img_u8", (5, 5)], {}),
    ("resize_cf", "image.resize", ["$img_cf", (5, 4)], {"data_format": "channels_first"}),
    ("resize_64", "image.resize", ["$img_64", (4, 4)], {}),
    ("resize_bad_interp", "image.resize", ["$img", (4, 4)], {"interpolation": "cubic"}),
    ("resize_bad_fill", "image.resize", ["$img", (4, 4)], {"fill_mode": "reflect"}),
    ("resize_zero", "image.resize", ["$img", (0, 4)], {}),
    ("resize_both", "image.resize", ["$img", (4, 4)], {"crop_to_aspect_ratio": True,
                                                      "pad_to_aspect_ratio": True}),
    ("scale_translate", "image.scale_and_translate",
     ["$img", (2, 12, 6, 3), "$scale2", "$trans2", (1, 2), "bilinear"], {}),
    ("scale_translate_cubic", "image.scale_and_translate",
     ["$img", (2, 5, 9, 3), "$scale2", "$trans2", (1, 2), "cubic"], {"antialias": False}),
    ("scale_translate_lanczos", "image.scale_and_translate",
     ["$img1", (4, 8, 3), "$scale2", "$trans2", (0, 1), "lanczos5"], {}),
    ("scale_translate_int", "image.scale_and_translate",
     ["$img_i32", (1, 9, 4, 1), "$scale2", "$trans2", (1, 2), "linear"], {}),
    ("scale_translate_bad", "image.scale_and_translate",
     ["$img", (2, 5, 5, 3), "$scale2", "$trans2", (1, 2), "nearest"], {}),
    ("sobel", "image.sobel_edges", ["$img"], {}),
    ("sobel_cf", "image.sobel_edges", ["$img_cf"], {"data_format": "channels_first"}),
    ("ssim", "image.ssim", ["$big", "$big_b"], {}),
    ("ssim_single", "image.ssim", ["$big1", "$big1"], {"max_val": 2.0}),
    ("ssim_small_filter", "image.ssim", ["$img", "$img_b"], {"filter_size": 5,
                                                            "filter_sigma": 1.0,
                                                            "k1": 0.02, "k2": 0.05}),
    ("ssim_cf", "image.ssim", ["$big_cf", "$big_cf"], {"data_format": "channels_first"}),
    ("ssim_u8", "image.ssim", ["$big_u8", "$big_u8"], {"max_val": 255.0}),
    ("ssim_too_small", "image.ssim", ["$img", "$img_b"], {}),
    ("ssim_rank", "image.ssim", ["$img2d", "$img2d"], {}),
]
CASES = LINALG + IMAGE


def resolve(value: Any, inputs: dict, to_tensor: Any = None) -> Any:
    """An argument as the op takes it: "$name" an input, "$tensor:name" the input as a
    tensor (`to_tensor`), "$fn:src" a lambda, lists recursively."""
    if isinstance(value, str) and value.startswith("$fn:"):
        return eval(value[4:])  # noqa: S307 - the sources are this file's literals
    if isinstance(value, str) and value.startswith("$tensor:"):
        return to_tensor(inputs[value[8:]])
    if isinstance(value, str) and value.startswith("$"):
        return inputs[value[1:]]
    if isinstance(value, list):
        return [resolve(v, inputs, to_tensor) for v in value]
    return value


def flat_outputs(result: Any) -> list:
    """The outputs of one call as NumPy arrays, nested tuples/lists flattened in order."""
    if isinstance(result, (tuple, list)):
        return [a for r in result for a in flat_outputs(r)]
    return [np.asarray(result)]


def call(ops: Any, op: str, args: list, kwargs: dict, inputs: dict) -> Any:
    namespace, name = op.split(".")
    fn = getattr(getattr(ops, namespace), name)
    return fn(*[resolve(a, inputs, ops.convert_to_tensor) for a in args], **kwargs)


def main() -> None:
    from keras import ops
    inputs = make_inputs()
    arrays = {f"in/{k}": v for k, v in inputs.items()}
    meta = []
    for case_id, op, args, kwargs in CASES:
        args, kwargs = json.loads(json.dumps([args, kwargs]))  # as the test reads them
        entry = {"id": case_id, "op": op, "args": args, "kwargs": kwargs}
        try:
            outputs = flat_outputs(call(ops, op, args, kwargs, inputs))
        except Exception as e:  # the error is the answer
            entry["error"] = [type(e).__name__, str(e)]
        else:
            entry["outputs"] = [[str(o.dtype), list(o.shape)] for o in outputs]
            for i, o in enumerate(outputs):
                arrays[f"out/{case_id}/{i}"] = o
        meta.append(entry)
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    errors = sum("error" in m for m in meta)
    print(f"{len(meta)} cases ({errors} errors) -> {OUT}")


if __name__ == "__main__":
    main()
