"""`keras.preprocessing`: Keras 3.15.1's names (measured with `dir()`), the very functions
`keras.utils` has, and `image.smart_resize` with Keras's values and errors (literals measured
with TF 2.21 / Keras 3.15.1)."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras

# dir() of keras.preprocessing, keras.preprocessing.image and .sequence in Keras 3.15.1
# (`text` is only in tf.keras's legacy namespace).
KERAS_NAMES = {
    "": ["image", "image_dataset_from_directory", "sequence", "text_dataset_from_directory",
         "timeseries_dataset_from_array"],
    "image": ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"],
    "sequence": ["pad_sequences"],
}


def _public(module):
    return sorted(n for n in dir(module) if not n.startswith("_") and n != "annotations")


@pytest.mark.parametrize("path", sorted(KERAS_NAMES))
def test_names_are_keras_names(path):
    module = keras.preprocessing
    for part in filter(None, path.split(".")):
        module = getattr(module, part)
    assert _public(module) == KERAS_NAMES[path]
    assert sorted(module.__all__) == KERAS_NAMES[path]


@pytest.mark.parametrize("path,name", [
    ("", "image_dataset_from_directory"), ("", "text_dataset_from_directory"),
    ("", "timeseries_dataset_from_array"), ("image", "array_to_img"),
    ("image", "img_to_array"), ("image", "load_img"), ("image", "save_img"),
    ("sequence", "pad_sequences")])
def test_names_are_the_keras_utils_functions(path, name):
    module = getattr(keras.preprocessing, path) if path else keras.preprocessing
    assert getattr(module, name) is getattr(keras.utils, name)


def test_reachable_as_keras_and_tf_keras_attributes():
    assert tf.keras.preprocessing is keras.preprocessing
    from tapeflow.keras.preprocessing.sequence import pad_sequences
    assert pad_sequences([[1, 2], [3]]).tolist() == [[1, 2], [0, 3]]


# Keras 3.15.1: smart_resize(np.arange(70, dtype='float32').reshape(5, 7, 2), (3, 3))
CROP_RESIZE = [[[7.3333, 8.3333], [10.6667, 11.6667], [14.0, 15.0]],
               [[30.6667, 31.6667], [34.0, 35.0], [37.3333, 38.3333]],
               [[54.0, 55.0], [57.3333, 58.3333], [60.6667, 61.6667]]]


def test_smart_resize_crops_to_the_aspect_ratio_then_resizes():
    x = np.arange(70, dtype="float32").reshape(5, 7, 2)
    out = keras.preprocessing.image.smart_resize(x, (3, 3))
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_allclose(out, CROP_RESIZE, atol=1e-4)
    tensor_out = keras.preprocessing.image.smart_resize(tf.constant(x), (3, 3))
    assert isinstance(tensor_out, tf.Tensor)
    np.testing.assert_allclose(tensor_out.numpy(), CROP_RESIZE, atol=1e-4)


def test_smart_resize_of_a_traced_image_of_unknown_size():
    resize = tf.function(lambda image: keras.preprocessing.image.smart_resize(image, (3, 3)),
                         input_signature=[tf.TensorSpec([None, None, 2], "float32")])
    out = resize(tf.constant(np.arange(70, dtype="float32").reshape(5, 7, 2)))
    np.testing.assert_allclose(out.numpy(), CROP_RESIZE, atol=1e-4)


def test_smart_resize_batches_channels_first_and_uint8():
    batch = np.arange(144, dtype="float32").reshape(2, 3, 4, 6)
    out = keras.preprocessing.image.smart_resize(batch, (2, 5), interpolation="nearest",
                                                 data_format="channels_first")
    # Keras 3.15.1's values for the first image's first channel, and the shape and dtype.
    assert out.shape == (2, 3, 2, 5) and out.dtype == np.float32
    assert out[0, 0].tolist() == [[6.0, 7.0, 9.0, 10.0, 11.0], [12.0, 13.0, 15.0, 16.0, 17.0]]
    assert out[1, 2].tolist() == [[126.0, 127.0, 129.0, 130.0, 131.0],
                                  [132.0, 133.0, 135.0, 136.0, 137.0]]
    small = keras.preprocessing.image.smart_resize(
        np.arange(24, dtype="uint8").reshape(4, 6, 1), (2, 2))
    assert small.dtype == np.float32 and small.tolist() == [[[4.5], [6.5]], [[16.5], [18.5]]]


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(x=np.zeros((4, 4)), size=(2, 2)), ValueError,
     "Expected an image array with shape `(height, width, channels)`, or `(batch_size, height, "
     "width, channels)`, but got input with incorrect rank, of shape (4, 4)."),
    (dict(x=np.zeros((4, 4, 1)), size=(2, 2, 2)), ValueError,
     "Expected `size` to be a tuple of 2 integers, but got: (2, 2, 2)."),
    (dict(x=np.zeros((4, 4, 1)), size=(2, 2), foo=1), TypeError,
     "smart_resize() got unexpected keyword arguments: ['foo']"),
    (dict(x=np.zeros((4, 4, 1)), size=(2, 2), interpolation="cubic"), ValueError,
     "Invalid value for argument `interpolation`. Expected of one ('bilinear', 'nearest', "
     "'lanczos3', 'lanczos5', 'bicubic', 'area'). Received: interpolation=cubic"),
])
def test_smart_resize_errors_are_keras_errors(kwargs, error, message):
    with pytest.raises(error) as info:
        keras.preprocessing.image.smart_resize(**kwargs)
    assert str(info.value) == message
