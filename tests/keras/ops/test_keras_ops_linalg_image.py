"""`keras.ops.linalg` and `keras.ops.image` against Keras 3.15.1 (TF 2.21 backend): every
recorded case (fixtures/linalg_image.npz, written by tools/record_keras_ops_linalg_image.py)
gives Keras's values, dtypes and shapes, or Keras's error class and text; gradients match
central finite differences; traced calls match eager ones; the names and parameters are
Keras's."""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any, Callable

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras import ops

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from record_keras_ops_linalg_image import flat_outputs, resolve  # noqa: E402

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "linalg_image.npz"))
CASES = json.loads(str(FIXTURE["meta"]))
INPUTS = {k[3:]: FIXTURE[k] for k in FIXTURE.files if k.startswith("in/")}
with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "keras_api.json")) as _f:
    KERAS_API = json.load(_f)["namespaces"]

# Outputs whose columns (rows for vh) are defined up to a sign or, complex, a phase: both
# sides are compared with each vector scaled so that its largest entry is real and positive.
VECTOR_OUTPUTS = {"linalg.eig": {1: -2}, "linalg.eigh": {1: -2}, "linalg.svd": {0: -2, 2: -1}}


def op_of(name: str) -> Callable:
    namespace, fn = name.split(".")
    return getattr(getattr(ops, namespace), fn)


def run_case(case: dict) -> list:
    args = [resolve(a, INPUTS, tf.convert_to_tensor) for a in case["args"]]
    return flat_outputs(op_of(case["op"])(*args, **case["kwargs"]))


def canonical(vectors: np.ndarray, axis: int) -> np.ndarray:
    """Each vector along `axis` times the phase that makes its largest entry positive."""
    v = np.moveaxis(vectors.astype(np.complex128), axis, -1)
    pivot = np.take_along_axis(v, np.abs(v).argmax(-1)[..., None], -1)
    return np.moveaxis(v * (np.abs(pivot) / pivot), -1, axis)


def error_core(message: str) -> str:
    """An error's text without TF's runtime decorations (the kernel's node name, ' name: '),
    cut before the first '{' or '[' (set orders, index formats differ) or the list after
    'allowed values:' (tapeflow's dtype lists go in another order)."""
    message = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", message)
    return re.split(r"[{\[]|(?<=allowed values):", message, maxsplit=1)[0].strip()


def tolerance(dtype: str) -> dict:
    return {"float64": dict(rtol=1e-10, atol=1e-12), "complex128": dict(rtol=1e-10, atol=1e-12),
            "float32": dict(rtol=1e-5, atol=1e-6), "complex64": dict(rtol=1e-5, atol=1e-6)
            }.get(dtype, dict(rtol=0, atol=0))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_matches_keras(case: dict) -> None:
    if "error" in case:
        cls, message = case["error"]
        with pytest.raises(Exception) as info:
            run_case(case)
        assert type(info.value).__name__ == cls, info.value
        assert error_core(message) in str(info.value)
        return
    outputs = run_case(case)
    assert len(outputs) == len(case["outputs"])
    for i, (out, (dtype, shape)) in enumerate(zip(outputs, case["outputs"])):
        assert (str(out.dtype), list(out.shape)) == (dtype, shape), i
        expected = FIXTURE[f"out/{case['id']}/{i}"]
        axis = VECTOR_OUTPUTS.get(case["op"], {}).get(i)
        if axis is not None:
            out, expected = canonical(out, axis), canonical(expected, axis)
        np.testing.assert_allclose(out, expected, **tolerance(dtype), equal_nan=True,
                                   err_msg=f"output {i}")


def test_every_op_is_recorded() -> None:
    recorded = {c["op"] for c in CASES if "error" not in c}
    expected = {f"{ns}.{name}" for ns in ("linalg", "image") for name in KERAS_API[f"ops.{ns}"]}
    assert recorded == expected


@pytest.mark.parametrize("namespace", ["linalg", "image"])
def test_names_and_parameters_are_keras(namespace: str) -> None:
    import inspect
    module = getattr(ops, namespace)
    for name, recorded in KERAS_API[f"ops.{namespace}"].items():
        assert list(inspect.signature(getattr(module, name)).parameters) == recorded["params"]
    assert sorted(module.__all__) == sorted(KERAS_API[f"ops.{namespace}"])
    if namespace == "linalg":   # keras.ops re-exports them
        assert all(getattr(ops, name) is getattr(module, name) for name in module.__all__)


# -- gradients ---------------------------------------------------------------------------------
RNG = np.random.default_rng(7)
SPD = (lambda a: a @ a.T + 3 * np.eye(3))(RNG.normal(size=(3, 3)))
M3 = RNG.normal(size=(3, 3)) + 2 * np.eye(3)
M43 = RNG.normal(size=(4, 3))
V3 = RNG.normal(size=3)
IMG = RNG.uniform(size=(1, 5, 6, 3))
IMG12 = RNG.uniform(size=(1, 12, 12, 1))
IMG12_B = RNG.uniform(size=(1, 12, 12, 1))
COORDS = RNG.uniform(0.2, 4.3, size=(2, 3, 2))
LINALG = ops.linalg
IMAGE = ops.image
# (label, f(x), x): f of one float64 input; the loss is a fixed random weighting of f's outputs
GRADIENT_CASES = [
    ("cholesky", lambda x: LINALG.cholesky((x + tf.transpose(x)) / 2), SPD),
    ("cholesky_inverse", lambda x: LINALG.cholesky_inverse(tf.linalg.band_part(x, -1, 0)),
     np.linalg.cholesky(SPD)),
    ("det", LINALG.det, M3),
    ("eigh_values", lambda x: LINALG.eigh((x + tf.transpose(x)) / 2)[0], SPD),
    ("inv", LINALG.inv, M3),
    ("lstsq_a", lambda x: LINALG.lstsq(x, M43[:, 0]), M43),
    ("lstsq_b", lambda x: LINALG.lstsq(M43, x), M43[:, :2].copy()),
    ("norm_2", LINALG.norm, M3),
    ("norm_fro_axis", lambda x: LINALG.norm(x, axis=(0, 1), keepdims=True), M3),
    ("norm_3", lambda x: LINALG.norm(x, ord=3), V3),
    ("norm_nuc", lambda x: LINALG.norm(x, ord="nuc", axis=(0, 1)), M43),
    ("norm_1", lambda x: LINALG.norm(x, ord=1, axis=(0, 1)), M43),
    ("pinv", LINALG.pinv, M43),
    ("qr", LINALG.qr, M43),
    ("solve_a", lambda x: LINALG.solve(x, V3), M3),
    ("solve_b", lambda x: LINALG.solve(M3, x), V3),
    ("solve_triangular", lambda x: LINALG.solve_triangular(np.triu(M3), x), V3),
    ("svd_values", lambda x: LINALG.svd(x, compute_uv=False), M43),
    ("crop_images", lambda x: IMAGE.crop_images(x, 1, 2, target_height=3, target_width=3), IMG),
    ("pad_images", lambda x: IMAGE.pad_images(x, 1, 2, target_height=7, target_width=9), IMG),
    ("extract_patches", lambda x: IMAGE.extract_patches(x, 2, padding="same"), IMG),
    ("extract_patches_3d", lambda x: IMAGE.extract_patches_3d(tf.reshape(x, (1, 3, 5, 2, 3)), 2),
     IMG),
    ("gaussian_blur", lambda x: IMAGE.gaussian_blur(x, (3, 5), (1.0, 0.7)), IMG),
    ("rgb_to_grayscale", IMAGE.rgb_to_grayscale, IMG),
    ("rgb_to_hsv", IMAGE.rgb_to_hsv, IMG),
    ("resize", lambda x: IMAGE.resize(x, (7, 4)), IMG),
    ("resize_bicubic", lambda x: IMAGE.resize(x, (3, 8), interpolation="bicubic"), IMG),
    ("map_coordinates", lambda x: IMAGE.map_coordinates(x, COORDS, 1), IMG[0, :, :, 0]),
    ("map_coordinates_at", lambda c: IMAGE.map_coordinates(IMG[0, :, :, 0], c, 1), COORDS),
    ("scale_and_translate", lambda x: IMAGE.scale_and_translate(
        x, (1, 8, 4, 3), np.array([1.5, 0.7]), np.array([0.3, -0.2]), (1, 2), "bicubic"),
     IMG),
    ("sobel_edges", IMAGE.sobel_edges, IMG),
    ("ssim", lambda x: IMAGE.ssim(x, IMG12_B, filter_size=5), IMG12),
    ("elastic_transform", lambda x: IMAGE.elastic_transform(x, 2.0, 1.0, seed=1), IMG),
]


# tf.image.resize computes in float32 whatever the input: finite differences there take a wide
# step, which is exact since resizing is linear in the pixel values.
FLOAT32_INSIDE = {"resize", "resize_bicubic"}


def weighted_loss(fn: Callable, x: Any) -> Any:
    outputs = tf.nest.flatten(fn(x))
    rng = np.random.default_rng(3)
    return sum(tf.reduce_sum(o * rng.normal(size=tuple(o.shape))) for o in outputs)


@pytest.mark.parametrize("label, fn, x", GRADIENT_CASES, ids=[c[0] for c in GRADIENT_CASES])
def test_gradient_matches_finite_differences(label: str, fn: Callable, x: np.ndarray) -> None:
    x = np.asarray(x, np.float64)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = weighted_loss(fn, xt)
    grad = tape.gradient(loss, xt).numpy()
    numeric = np.zeros_like(x)
    eps, rtol = (0.1, 1e-4) if label in FLOAT32_INSIDE else (1e-6, 1e-5)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        up = weighted_loss(fn, tf.constant(x + step)).numpy()
        down = weighted_loss(fn, tf.constant(x - step)).numpy()
        numeric[index] = (up - down) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=rtol, atol=1e-6)


def test_hsv_to_rgb_has_no_gradient_as_in_tf() -> None:
    """TF registers no gradient for HSVToRGB (measured: None with Keras 3.15.1 / TF 2.21)."""
    x = tf.constant(IMG)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = IMAGE.hsv_to_rgb(x)
    assert tape.gradient(y, x) is None


def test_jvp_is_the_forward_derivative() -> None:
    x, v = tf.constant(M3), tf.constant(np.ones((3, 3)))
    out, tangent = LINALG.jvp(lambda a: LINALG.inv(a), (x,), (v,))
    inv = np.linalg.inv(M3)
    np.testing.assert_allclose(out, inv, rtol=1e-12)
    np.testing.assert_allclose(tangent, -inv @ np.ones((3, 3)) @ inv, rtol=1e-10)


# -- tracing -----------------------------------------------------------------------------------
TRACED = [next(c for c in CASES if c["op"] == op and "error" not in c)
          for op in dict.fromkeys(c["op"] for c in CASES) if op != "linalg.jvp"]


@pytest.mark.parametrize("case", TRACED, ids=[c["op"] for c in TRACED])
def test_traced_call_matches_eager(case: dict) -> None:
    """The array arguments become the tf.function's inputs (traced tensors)."""
    args = [resolve(a, INPUTS, tf.convert_to_tensor) for a in case["args"]]
    slots = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

    @tf.function
    def traced(*arrays: Any) -> Any:
        filled = list(args)
        for i, a in zip(slots, arrays):
            filled[i] = a
        return op_of(case["op"])(*filled, **case["kwargs"])

    got = flat_outputs(traced(*[args[i] for i in slots]))
    for out, expected in zip(got, run_case(case)):
        np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-7)


def test_keras_tensor_gives_a_graph_node() -> None:
    x = keras.Input((3, 3))
    y = LINALG.det(x)
    model = keras.Model(x, y)
    np.testing.assert_allclose(model(INPUTS["mb"]), np.linalg.det(INPUTS["mb"]), rtol=1e-5)
    img = keras.Input((8, 8, 3))
    model = keras.Model(img, IMAGE.rgb_to_grayscale(img))
    np.testing.assert_allclose(model(INPUTS["img"]), FIXTURE["out/gray/0"], rtol=1e-6)


def test_bad_input_leaves_the_global_seed_alone() -> None:
    """A refused call draws nothing: the global generator's state is unchanged."""
    from tapeflow.keras import backend
    state = backend.global_seed_generator().state.numpy().copy()
    with pytest.raises(ValueError):
        IMAGE.elastic_transform(INPUTS["img"], fill_mode="mirror")
    np.testing.assert_array_equal(backend.global_seed_generator().state.numpy(), state)


# Traced with unknown batch (and image height and width): the sizes are read as the graph runs.
BATCH = np.random.default_rng(5).normal(size=(2, 3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
SPD_BATCH = BATCH @ np.swapaxes(BATCH, -1, -2)
IMAGES = np.random.default_rng(6).uniform(size=(2, 8, 9, 3)).astype(np.float32)
CORNERS = [[0, 0], [7, 0], [0, 7], [7, 7]]
UNKNOWN_DIMS = [
    ("det", LINALG.det, BATCH), ("inv", LINALG.inv, BATCH), ("cholesky", LINALG.cholesky, SPD_BATCH),
    ("cholesky_inverse", lambda a: LINALG.cholesky_inverse(LINALG.cholesky(a)), SPD_BATCH),
    ("eigh", LINALG.eigh, SPD_BATCH), ("eig", LINALG.eig, SPD_BATCH), ("qr", LINALG.qr, BATCH),
    ("svd", LINALG.svd, BATCH), ("norm_2", lambda a: LINALG.norm(a, ord=2, axis=(1, 2)), BATCH),
    ("norm_1", lambda a: LINALG.norm(a, ord=1, axis=(1, 2)), BATCH),
    ("solve", lambda a: LINALG.solve(a, a[:, 0]), BATCH),
    ("solve_triangular", lambda a: LINALG.solve_triangular(a, a), BATCH),
    ("matrix_rank", LINALG.matrix_rank, BATCH), ("pinv", LINALG.pinv, BATCH),
    ("pad_images", lambda im: IMAGE.pad_images(im, 1, 2, target_height=12, target_width=13), IMAGES),
    ("crop_images", lambda im: IMAGE.crop_images(im, 1, 2, bottom_cropping=1, right_cropping=2),
     IMAGES),
    ("resize_crop", lambda im: IMAGE.resize(im, (4, 5), crop_to_aspect_ratio=True), IMAGES),
    ("affine_transform", lambda im: IMAGE.affine_transform(im, [1, 0, 1, 0, 1, 0, 0, 0]), IMAGES),
    ("perspective_transform", lambda im: IMAGE.perspective_transform(im, CORNERS, CORNERS[::-1]),
     IMAGES),
    ("gaussian_blur", IMAGE.gaussian_blur, IMAGES), ("rgb_to_grayscale", IMAGE.rgb_to_grayscale, IMAGES),
    ("rgb_to_hsv", IMAGE.rgb_to_hsv, IMAGES), ("sobel_edges", IMAGE.sobel_edges, IMAGES),
    ("extract_patches", lambda im: IMAGE.extract_patches(im, 2), IMAGES),
    ("ssim", lambda im: IMAGE.ssim(im, im[::-1], filter_size=3), IMAGES),
]


@pytest.mark.parametrize("label, fn, x", UNKNOWN_DIMS, ids=[c[0] for c in UNKNOWN_DIMS])
def test_traced_with_unknown_dims_matches_eager(label: str, fn: Callable, x: np.ndarray) -> None:
    spec = tf.TensorSpec([None] * (x.ndim - 1) + [x.shape[-1]], tf.float32)
    if x.ndim == 3:   # matrices: only the batch is unknown
        spec = tf.TensorSpec([None, *x.shape[1:]], tf.float32)
    traced = tf.function(fn, input_signature=[spec])
    for got, expected in zip(tf.nest.flatten(traced(x)), tf.nest.flatten(fn(x))):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
