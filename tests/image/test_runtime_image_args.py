"""tf.image's sizes, offsets and image heights/widths known only when a traced graph runs.

Each op is traced with an input_signature whose height and width are None and with tensor
sizes/offsets, called with two different values and compared with the eager result; the traced
static output shapes and the run-time errors are TF's (measured with TF 2.21, written here as
literals)."""

import re

import numpy as np
import pytest

import tapeflow as tf

IMG = np.arange(5 * 6 * 3, dtype=np.float32).reshape(5, 6, 3)
SMALL = IMG[:3, :4] * 0.5 + 1.0
ANY_HW = tf.TensorSpec([None, None, 3])
INT = tf.TensorSpec([], tf.int32)


def traced(fn, *specs):
    return tf.function(fn, input_signature=list(specs))


def static_shape(fn):
    return fn.get_concrete_function().structured_outputs.shape.as_list()


def assert_eager_equal(fn, op, *args):
    np.testing.assert_array_equal(fn(*args).numpy(), op(*args).numpy())


# -- crops and pads ------------------------------------------------------------------------------

CROP_ERRORS = [((-1, 0, 1, 1), "offset_height must be >= 0."),
               ((0, -1, 1, 1), "offset_width must be >= 0."),
               ((0, 0, 0, 1), "target_height must be > 0."),
               ((0, 0, 1, 0), "target_width must be > 0."),
               ((3, 0, 3, 1), "height must be >= target + offset."),
               ((0, 4, 1, 3), "width must be >= target + offset.")]


def test_crop_to_bounding_box_tensor_offsets_and_sizes():
    fn = traced(tf.image.crop_to_bounding_box, ANY_HW, INT, INT, INT, INT)
    assert static_shape(fn) == [None, None, 3]   # TF 2.21
    assert_eager_equal(fn, tf.image.crop_to_bounding_box, IMG, 1, 2, 3, 3)
    assert_eager_equal(fn, tf.image.crop_to_bounding_box, SMALL, 0, 1, 2, 3)


@pytest.mark.parametrize("args, message", CROP_ERRORS)
def test_crop_to_bounding_box_checks_run_when_the_graph_runs(args, message):
    fn = traced(tf.image.crop_to_bounding_box, ANY_HW, INT, INT, INT, INT)
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(f"assertion failed: [{message}]")):
        fn(IMG, *args)


def test_crop_with_python_sizes_keeps_static_shape():
    fn = traced(lambda x, oh: tf.image.crop_to_bounding_box(x, oh, 0, 2, 2),
                tf.TensorSpec([5, 6, 3]), INT)
    assert static_shape(fn) == [2, 2, 3]   # TF 2.21
    np.testing.assert_array_equal(fn(IMG, 3).numpy(), IMG[3:5, :2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="height must be >= target"):
        fn(IMG, 4)
    unknown = traced(lambda x: tf.image.crop_to_bounding_box(x, 1, 2, 3, 3), ANY_HW)
    assert static_shape(unknown) == [3, 3, 3]   # TF 2.21
    np.testing.assert_array_equal(unknown(IMG).numpy(), IMG[1:4, 2:5])


def test_crop_with_random_offsets_in_dataset_map():
    """The CutMix pattern: offsets from tf.random.uniform inside Dataset.map."""
    def cut(x):
        top = tf.random.uniform([], 0, 4, tf.int32)
        left = tf.random.uniform([], 0, 5, tf.int32)
        return tf.image.crop_to_bounding_box(x, top, left, 2, 2), top, left

    ds = tf.data.Dataset.from_tensor_slices(np.stack([IMG] * 4)).map(cut)
    assert ds.element_spec[0].shape.as_list() == [2, 2, 3]
    for box, top, left in ds:
        top, left = int(top), int(left)
        np.testing.assert_array_equal(box.numpy(), IMG[top:top + 2, left:left + 2])


def test_crop_gradient_through_traced_function():
    def loss(x, oh, ow):
        return tf.reduce_sum(tf.image.crop_to_bounding_box(x, oh, ow, 2, 3) ** 2)

    fn = traced(lambda x, oh, ow: _grad(loss, x, oh, ow), ANY_HW, INT, INT)
    np.testing.assert_array_equal(fn(IMG, 1, 2).numpy(), _grad(loss, tf.constant(IMG), 1, 2))


def _grad(loss, x, *args):
    x = tf.convert_to_tensor(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        value = loss(x, *args)
    return tape.gradient(value, x)


PAD_ERRORS = [((-1, 0, 7, 9), "offset_height must be >= 0"),
              ((0, -1, 7, 9), "offset_width must be >= 0"),
              ((0, 0, 4, 9), "height must be <= target - offset"),
              ((0, 0, 7, 5), "width must be <= target - offset")]


def test_pad_to_bounding_box_tensor_offsets_and_sizes():
    fn = traced(tf.image.pad_to_bounding_box, ANY_HW, INT, INT, INT, INT)
    assert static_shape(fn) == [None, None, 3]   # TF 2.21
    assert_eager_equal(fn, tf.image.pad_to_bounding_box, IMG, 1, 2, 7, 9)
    assert_eager_equal(fn, tf.image.pad_to_bounding_box, SMALL, 0, 3, 3, 8)
    fixed = traced(lambda x: tf.image.pad_to_bounding_box(x, 1, 2, 8, 9), ANY_HW)
    assert static_shape(fixed) == [8, 9, 3]   # TF 2.21
    np.testing.assert_array_equal(fixed(IMG).numpy(),
                                  tf.image.pad_to_bounding_box(IMG, 1, 2, 8, 9).numpy())


@pytest.mark.parametrize("args, message", PAD_ERRORS)
def test_pad_to_bounding_box_checks_run_when_the_graph_runs(args, message):
    fn = traced(tf.image.pad_to_bounding_box, ANY_HW, INT, INT, INT, INT)
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(f"assertion failed: [{message}]")):
        fn(IMG, *args)


def test_pad_gradient_through_traced_function():
    def loss(x, oh, ow):
        return tf.reduce_sum(tf.image.pad_to_bounding_box(x, oh, ow, 8, 9) * 3.0)

    fn = traced(lambda x, oh, ow: _grad(loss, x, oh, ow), ANY_HW, INT, INT)
    np.testing.assert_array_equal(fn(IMG, 1, 2).numpy(), np.full(IMG.shape, 3.0, np.float32))


def test_central_crop_unknown_height_and_width():
    fn = traced(lambda x: tf.image.central_crop(x, 0.5), ANY_HW)
    assert static_shape(fn) == [None, None, 3]   # TF 2.21
    batched = traced(lambda x: tf.image.central_crop(x, 0.5), tf.TensorSpec([None, None, None, 3]))
    assert static_shape(batched) == [None, None, None, 3]   # TF 2.21
    for image in (IMG, SMALL, IMG[:, :1]):
        np.testing.assert_array_equal(fn(image).numpy(), tf.image.central_crop(image, 0.5).numpy())
    np.testing.assert_array_equal(batched(IMG[None]).numpy()[0],
                                  tf.image.central_crop(IMG, 0.5).numpy())


def test_resize_with_crop_or_pad_tensor_targets():
    fn = traced(tf.image.resize_with_crop_or_pad, ANY_HW, INT, INT)
    assert static_shape(fn) == [None, None, 3]   # TF 2.21
    assert_eager_equal(fn, tf.image.resize_with_crop_or_pad, IMG, 3, 9)
    assert_eager_equal(fn, tf.image.resize_with_crop_or_pad, SMALL, 8, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="target_height must be > 0"):
        fn(IMG, 0, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="target_width must be > 0"):
        fn(IMG, 2, -1)
    fixed = traced(lambda x: tf.image.resize_with_crop_or_pad(x, 4, 4), ANY_HW)
    assert static_shape(fixed) == [4, 4, 3]   # TF 2.21
    for image in (IMG, SMALL[:2, :3]):
        np.testing.assert_array_equal(fixed(image).numpy(),
                                      tf.image.resize_with_crop_or_pad(image, 4, 4).numpy())


def test_resize_with_pad_tensor_targets():
    fn = traced(tf.image.resize_with_pad, ANY_HW, INT, INT)
    assert static_shape(fn) == [None, None, 3]   # TF 2.21
    assert_eager_equal(fn, tf.image.resize_with_pad, IMG, 3, 9)
    assert_eager_equal(fn, tf.image.resize_with_pad, SMALL, 8, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="target_height must be > 0"):
        fn(IMG, 0, 2)
    fixed = traced(lambda x: tf.image.resize_with_pad(x, 4, 4), ANY_HW)
    assert static_shape(fixed) == [4, 4, 3]   # TF 2.21
    # TF 2.21's sums of the two results: 1601.9999990463257 and 312.0
    np.testing.assert_allclose(float(tf.reduce_sum(fixed(IMG))), 1601.9999990463257, rtol=1e-6)
    np.testing.assert_allclose(float(tf.reduce_sum(fixed(IMG[:2, :3]))), 312.0, rtol=1e-6)


# -- resize ---------------------------------------------------------------------------------------

METHODS = ["bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
           "mitchellcubic"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("antialias", [False, True])
def test_resize_unknown_image_size_equals_eager(method, antialias):
    fn = traced(lambda x: tf.image.resize(x, [4, 7], method, antialias=antialias), ANY_HW)
    assert static_shape(fn) == [4, 7, 3]   # TF 2.21
    for image in (IMG, SMALL):
        np.testing.assert_array_equal(
            fn(image).numpy(), tf.image.resize(image, [4, 7], method, antialias=antialias).numpy())


@pytest.mark.parametrize("method", METHODS)
def test_resize_tensor_size_equals_eager(method):
    fn = traced(lambda x, h, w: tf.image.resize(x, [h, w], method, antialias=True), ANY_HW, INT, INT)
    assert static_shape(fn) == [None, None, 3]   # TF 2.21
    for image, h, w in ((IMG, 3, 9), (SMALL, 8, 2)):
        np.testing.assert_array_equal(
            fn(image, h, w).numpy(),
            tf.image.resize(image, [h, w], method, antialias=True).numpy())


def test_resize_size_vector_and_batch():
    fn = traced(tf.image.resize, ANY_HW, tf.TensorSpec([2], tf.int32))
    assert static_shape(fn) == [None, None, 3]   # TF 2.21
    np.testing.assert_array_equal(fn(IMG, [3, 9]).numpy(), tf.image.resize(IMG, [3, 9]).numpy())
    batch = traced(lambda x: tf.image.resize(x, [4, 4]), tf.TensorSpec([None, None, None, 3]))
    assert static_shape(batch) == [None, 4, 4, 3]   # TF 2.21
    np.testing.assert_array_equal(batch(IMG[None]).numpy()[0], tf.image.resize(IMG, [4, 4]).numpy())


def test_resize_preserve_aspect_ratio_unknown_image():
    fn = traced(lambda x: tf.image.resize(x, [4, 4], preserve_aspect_ratio=True), ANY_HW)
    assert static_shape(fn) == [None, None, 3]   # TF 2.21
    for image in (IMG, SMALL):
        np.testing.assert_array_equal(
            fn(image).numpy(), tf.image.resize(image, [4, 4], preserve_aspect_ratio=True).numpy())


@pytest.mark.parametrize("size", [(0, 2), (-1, 2), (3, 0)])
def test_resize_nonpositive_size_raises_when_the_graph_runs(size):
    fn = traced(lambda x, h, w: tf.image.resize(x, [h, w]), ANY_HW, INT, INT)
    with pytest.raises(tf.errors.InvalidArgumentError, match="output dimensions must be positive"):
        fn(IMG, *size)


def test_resize_of_decoded_png_in_dataset_map():
    png = tf.io.encode_png(IMG.astype(np.uint8)).numpy()
    ds = tf.data.Dataset.from_tensor_slices([png]).map(
        lambda s: tf.image.resize(tf.io.decode_png(s), [4, 4]))
    assert ds.element_spec.shape.as_list() == [4, 4, None]   # TF 2.21
    out = next(iter(ds)).numpy()
    np.testing.assert_array_equal(out, tf.image.resize(IMG.astype(np.uint8), [4, 4]).numpy())


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "lanczos3"])
def test_resize_gradient_through_traced_function(method):
    def loss(x, h, w):
        return tf.reduce_sum(tf.image.resize(x, [h, w], method) ** 2)

    fn = traced(lambda x, h, w: _grad(loss, x, h, w), ANY_HW, INT, INT)
    for h, w in ((3, 9), (7, 2)):
        np.testing.assert_allclose(fn(IMG, h, w).numpy(), _grad(loss, IMG, h, w).numpy(),
                                   rtol=1e-6)


def test_eager_calls_take_the_static_path():
    """No ResizeTaps op eagerly or with static sizes: the weights stay NumPy constants."""
    fn = traced(lambda x: tf.image.resize(x, [4, 4]), tf.TensorSpec([5, 6, 3]))
    ops = [op.type for op in fn.get_concrete_function().graph.get_operations()]
    assert "ResizeTaps" not in ops


# -- crop_and_resize and extract_glimpse --------------------------------------------------------

BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.5, -0.2, 1.3, 0.4]], np.float32)
ANY_BATCH = tf.TensorSpec([None, None, None, 3])


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize_tensor_crop_size(method):
    def op(x, h, w):
        return tf.image.crop_and_resize(x, BOXES, [0, 0], [h, w], method)

    fn = traced(op, ANY_BATCH, INT, INT)
    assert static_shape(fn) == [2, None, None, 3]   # TF 2.21
    for h, w in ((3, 4), (1, 1), (1, 5)):
        np.testing.assert_array_equal(fn(IMG[None], h, w).numpy(), op(IMG[None], h, w).numpy())
    # TF 2.21's sums for [3, 4]: 2478.599977493286 (bilinear), 2457.0 (nearest)
    expected = {"bilinear": 2478.599977493286, "nearest": 2457.0}[method]
    np.testing.assert_allclose(float(tf.reduce_sum(fn(IMG[None], 3, 4))), expected, rtol=1e-6)
    for h, w in ((0, 4), (2, -1)):
        with pytest.raises(tf.errors.InvalidArgumentError, match="crop dimensions must be positive"):
            fn(IMG[None], h, w)
    fixed = traced(lambda x: tf.image.crop_and_resize(x, BOXES, [0, 0], [3, 4], method), ANY_BATCH)
    assert static_shape(fixed) == [2, 3, 4, 3]   # TF 2.21
    np.testing.assert_array_equal(fixed(IMG[None]).numpy(), op(IMG[None], 3, 4).numpy())


def test_crop_and_resize_box_index_checked_when_the_graph_runs():
    fn = traced(lambda x: tf.image.crop_and_resize(x, BOXES, [0, 1], [2, 2]), ANY_BATCH)
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape("outside [0, batch_size)")):
        fn(IMG[None])


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize_gradient_through_traced_function(method):
    def loss(x, h, w):
        return tf.reduce_sum(tf.image.crop_and_resize(x, BOXES, [0, 0], [h, w], method) ** 2)

    fn = traced(lambda x, h, w: _grad(loss, x, h, w), ANY_BATCH, INT, INT)
    for h, w in ((3, 4), (1, 2)):
        np.testing.assert_allclose(fn(IMG[None], h, w).numpy(),
                                   _grad(loss, IMG[None], h, w).numpy(), rtol=1e-6)


def test_extract_glimpse_tensor_size():
    def op(x, h, w):
        return tf.image.extract_glimpse(x, [h, w], [[0.0, 0.0]], noise="zero")

    fn = traced(op, ANY_BATCH, INT, INT)
    assert static_shape(fn) == [1, None, None, 3]   # TF 2.21
    for h, w in ((3, 4), (0, 4), (7, 9)):
        np.testing.assert_array_equal(fn(IMG[None], h, w).numpy(), op(IMG[None], h, w).numpy())
    # TF 2.21: 1602.0 for [3, 4]
    assert float(tf.reduce_sum(fn(IMG[None], 3, 4))) == 1602.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected a non-negative size, got -1"):
        fn(IMG[None], -1, 4)
    fixed = traced(lambda x: op(x, 3, 4), ANY_BATCH)
    assert static_shape(fixed) == [1, 3, 4, 3]   # TF 2.21


# -- rot90, extract_patches, affine_transform, non_max_suppression_padded -----------------------

def test_rot90_tensor_k():
    fn = traced(tf.image.rot90, ANY_HW, INT)
    assert static_shape(fn) == [None, None, 3]   # TF 2.21
    for image in (IMG, SMALL):
        for k in (-1, 0, 1, 2, 3, 5):
            np.testing.assert_array_equal(fn(image, k).numpy(), np.rot90(image, k))
    batched = traced(tf.image.rot90, ANY_BATCH, INT)
    assert static_shape(batched) == [None, None, None, 3]   # TF 2.21
    np.testing.assert_array_equal(batched(IMG[None], 1).numpy()[0], np.rot90(IMG))


def test_rot90_gradient_through_traced_function():
    weights = np.arange(90, dtype=np.float32).reshape(6, 5, 3)

    def loss(x, k):
        return tf.reduce_sum(tf.image.rot90(x, k) * weights)

    fn = traced(lambda x, k: _grad(loss, x, k), ANY_HW, INT)
    np.testing.assert_array_equal(fn(IMG, 1).numpy(), _grad(loss, IMG, 1).numpy())


@pytest.mark.parametrize("sizes, strides, rates, padding, depth", [
    ([1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID", 12),
    ([1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 2, 1], "SAME", 18)])
def test_extract_patches_unknown_height_and_width(sizes, strides, rates, padding, depth):
    def op(x):
        return tf.image.extract_patches(x, sizes, strides, rates, padding)

    fn = traced(op, ANY_BATCH)
    assert static_shape(fn) == [None, None, None, depth]   # TF 2.21
    for image in (IMG, SMALL):
        np.testing.assert_array_equal(fn(image[None]).numpy(), op(image[None]).numpy())


@pytest.mark.parametrize("fill_mode", ["constant", "nearest", "reflect", "wrap"])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_affine_transform_unknown_height_and_width(fill_mode, interpolation):
    from tapeflow.image.transforms import affine_transform
    transform = np.array([[0.9, -0.3, 1.2, 0.25, 1.1, -0.7, 0.01, -0.02]], np.float32)

    def op(x):
        return affine_transform(x, transform, interpolation, fill_mode, 0.5)

    fn = traced(op, ANY_BATCH)
    assert static_shape(fn) == [None, None, None, 3]
    for image in (IMG, SMALL, IMG[:1, :1]):
        np.testing.assert_array_equal(fn(image[None]).numpy(), op(image[None]).numpy())


def test_affine_transform_gradient_through_traced_function():
    from tapeflow.image.transforms import affine_transform
    transform = np.array([[0.9, -0.3, 1.2, 0.25, 1.1, -0.7, 0.0, 0.0]], np.float32)

    def loss(x):
        return tf.reduce_sum(affine_transform(x, transform, "bilinear", "reflect") ** 2)

    fn = traced(lambda x: _grad(loss, x), ANY_BATCH)
    np.testing.assert_allclose(fn(IMG[None]).numpy(), _grad(loss, IMG[None]).numpy(), rtol=1e-6)


def test_non_max_suppression_padded_unknown_batch():
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 0.9, 0.9], [0.5, 0.5, 1, 1]]], np.float32)
    scores = np.array([[0.9, 0.8, 0.7]], np.float32)

    def op(b, s, m):
        return tf.image.non_max_suppression_padded(b, s, m, pad_to_max_output_size=True)

    fn = traced(op, tf.TensorSpec([None, None, 4]), tf.TensorSpec([None, None]), INT)
    shapes = [o.shape.as_list() for o in fn.get_concrete_function().structured_outputs]
    assert shapes == [[None, None], [None]]   # TF 2.21
    for m in (1, 2):
        for got, want in zip(fn(boxes, scores, m), op(boxes, scores, m)):
            np.testing.assert_array_equal(got.numpy(), want.numpy())


# -- eager checks of tensor arguments and sizes ---------------------------------------------------

def test_eager_tensor_offsets_are_checked_as_tf():
    # TF 2.21: Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data:
    # b'offset_height must be >= 0.'
    with pytest.raises(tf.errors.InvalidArgumentError, match="b'offset_height must be >= 0.'"):
        tf.image.crop_to_bounding_box(IMG, tf.constant(-1), 0, 1, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="b'offset_height must be >= 0'"):
        tf.image.pad_to_bounding_box(IMG, tf.constant(-1), 0, 7, 9)
    with pytest.raises(ValueError, match="offset_height must be >= 0."):
        tf.image.crop_to_bounding_box(IMG, -1, 0, 1, 1)
    np.testing.assert_array_equal(
        tf.image.crop_to_bounding_box(IMG, tf.constant(1), 1, 2, 2).numpy(), IMG[1:3, 1:3])


@pytest.mark.parametrize("method, antialias, op", [
    ("bilinear", False, "ResizeBilinear"), ("bilinear", True, "ScaleAndTranslate"),
    ("nearest", True, "ResizeNearestNeighbor"), ("bicubic", False, "ResizeBicubic"),
    ("area", True, "ResizeArea"), ("lanczos3", False, "ScaleAndTranslate")])
def test_eager_resize_nonpositive_size(method, antialias, op):
    for size in ([0, 2], [2, -1]):   # TF 2.21's error text and op
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=re.escape(f"output dimensions must be positive [Op:{op}]")):
            tf.image.resize(IMG, size, method, antialias=antialias)


def test_eager_resize_with_pad_nonpositive_target():
    with pytest.raises(ValueError, match="target_height must be > 0."):
        tf.image.resize_with_pad(IMG, 0, 2)
    with pytest.raises(ValueError, match="target_width must be > 0."):
        tf.image.resize_with_pad(IMG, 2, 0)


def test_run_time_resize_memory_stays_near_eager():
    """A strong antialiased downscale has ~150 taps per output; traced with unknown sizes,
    the taps are summed one at a time, not gathered all at once (which took ~12x eager's)."""
    import tracemalloc
    image = np.random.default_rng(0).random((400, 300, 3), np.float32)

    def op(x):
        return tf.image.resize(x, [16, 16], "lanczos3", antialias=True)

    fn = traced(op, ANY_HW)
    fn(SMALL)   # traced and compiled before measuring

    def peak(call):
        tracemalloc.start()
        call()
        used = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return used

    eager_peak, traced_peak = peak(lambda: op(image)), peak(lambda: fn(image))
    assert traced_peak < 2 * eager_peak + image.nbytes, (traced_peak, eager_peak)
    np.testing.assert_array_equal(fn(image).numpy(), op(image).numpy())


BATCH = np.arange(2 * 5 * 6 * 3, dtype=np.float32).reshape(2, 5, 6, 3)


@pytest.mark.parametrize("name, op, tensor_args, shape, total", [
    # static shapes and sums measured with TF 2.21 on BATCH
    ("crop", lambda x, a, b: tf.image.crop_to_bounding_box(x, a, b, 2, 3), (1, 2),
     [None, 2, 3, 3], 2952.0),
    ("crop_sizes", lambda x, a, b: tf.image.crop_to_bounding_box(x, 0, 0, a, b), (1, 2),
     [None, None, None, 3], 570.0),
    ("pad", lambda x, a, b: tf.image.pad_to_bounding_box(x, a, b, 8, 9), (1, 2),
     [None, 8, 9, 3], 16110.0),
    ("crop_or_pad", lambda x: tf.image.resize_with_crop_or_pad(x, 4, 8), (), [None, 4, 8, 3],
     11592.0),
    ("with_pad", lambda x, a: tf.image.resize_with_pad(x, a, 8), (4,), [None, None, 8, 3],
     8592.0),
    ("central", lambda x: tf.image.central_crop(x, 0.3), (), [None, None, None, 3], 3222.0),
    ("nearest_uint8", lambda x, a: tf.image.resize(tf.cast(x, tf.uint8), [a, 3], "nearest"), (4,),
     [None, None, 3, 3], 6552.0),
])
def test_batches_of_unknown_size(name, op, tensor_args, shape, total):
    fn = traced(op, tf.TensorSpec([None, None, None, 3]), *[INT] * len(tensor_args))
    assert static_shape(fn) == shape
    out = fn(BATCH, *tensor_args)
    assert float(np.sum(out.numpy(), dtype=np.float64)) == total
    np.testing.assert_array_equal(out.numpy(), op(BATCH, *tensor_args).numpy())


def test_per_image_standardization_counts_pixels_as_the_graph_runs():
    fn = traced(tf.image.per_image_standardization, ANY_HW)
    assert static_shape(fn) == [None, None, 3]   # TF 2.21
    assert_eager_equal(fn, tf.image.per_image_standardization, IMG)
    assert_eager_equal(fn, tf.image.per_image_standardization, SMALL)
    batched = traced(tf.image.per_image_standardization, tf.TensorSpec([None, None, None, 3]))
    assert static_shape(batched) == [None, None, None, 3]   # TF 2.21
    assert_eager_equal(batched, tf.image.per_image_standardization, np.stack([IMG, IMG * 2]))
