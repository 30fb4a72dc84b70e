"""Every public layer of `tapeflow.keras.layers` is tested against numbers recorded from
Keras 3: each has an entry below naming a Keras fixture (a file in tests/keras/fixtures,
written by a tools/record_keras_*.py script) and the entry in it that builds the layer. A
layer added without such a fixture fails here; the ones that still lack one are listed (and
must leave the list once they get one)."""

import inspect
import json
import os
import re
import zipfile

import pytest

from tapeflow.keras import layers as L
from tapeflow.keras.layers import Layer

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")

# layer class -> (fixture file, entry). In a .json fixture the entry is a path of keys
# ('cases/lstm') whose text builds the layer ('L.LSTM(' or its serialized class_name); in a
# .keras file it is the archive member holding the config.
COVERED = {
    "Dense": ("layers_basic.json", "cases/dense"),
    "Concatenate": ("layers_basic.json", "cases/concatenate_masks"),
    "InputLayer": ("functional.keras", "config.json"),
    "BatchNormalization": ("layers_basic.json", "cases/batch_norm_training"),
    "Dropout": ("layers_basic.json", "cases/dropout_noise_shape"),
    "LayerNormalization": ("layers_more.json", "model"),
    "Embedding": ("layers_more.json", "model"),
    "Add": ("layers_basic.json", "cases/add_masks"),
    "Subtract": ("layers_basic.json", "cases/subtract_masks"),
    "Multiply": ("layers_basic.json", "cases/multiply_masks"),
    "Average": ("layers_basic.json", "cases/average_three_masks"),
    "Maximum": ("layers_basic.json", "cases/maximum_masks"),
    "Minimum": ("layers_basic.json", "cases/minimum_masks"),
    "Activation": ("layers_basic.json", "cases/activation_masked"),
    "MaxPooling1D": ("layers_basic.json", "cases/max_pool1d_same"),
    "AveragePooling2D": ("layers_basic.json", "cases/avg_pool2d_same"),
    "GlobalMaxPooling1D": ("layers_basic.json", "cases/gmax1d_first_keepdims"),
    "GlobalAveragePooling2D": ("layers_basic.json", "cases/gavg2d_first"),
    "GaussianNoise": ("layers_basic.json", "cases/gaussian_noise"),
    "GaussianDropout": ("layers_basic.json", "cases/gaussian_dropout"),
    "SimpleRNN": ("rnn.json", "cases/simple_rnn"),
    "LSTM": ("rnn.json", "cases/lstm"),
    "GRU": ("rnn.json", "cases/gru"),
    "SimpleRNNCell": ("rnn.json", "cases/rnn_cell_state"),
    "LSTMCell": ("rnn.json", "cases/stacked"),
    "GRUCell": ("rnn.json", "cases/stacked"),
    "RNN": ("rnn.json", "cases/stacked"),
    "StackedRNNCells": ("rnn.json", "cases/stacked"),
    "Bidirectional": ("rnn.json", "cases/bidi_concat"),
    "TimeDistributed": ("rnn.json", "cases/time_distributed"),
    "Masking": ("rnn.json", "models/masking_lstm"),
    "EinsumDense": ("layers_more.json", "cases/einsum_dense_heads"),
    "MultiHeadAttention": ("layers_more.json", "cases/mha_keras_masks"),
    "Attention": ("layers_more.json", "cases/attention_masks"),
    "AdditiveAttention": ("layers_more.json", "cases/additive"),
    "GroupedQueryAttention": ("layers_more.json", "cases/gqa_masks_scores"),
    "ReLU": ("layers_more.json", "cases/relu_options"),
    "LeakyReLU": ("layers_more.json", "cases/leaky_relu"),
    "PReLU": ("layers_more.json", "cases/prelu_shared"),
    "ELU": ("layers_more.json", "cases/elu"),
    "Softmax": ("layers_more.json", "cases/softmax_mask"),
    "Permute": ("layers_more.json", "cases/permute"),
    "RepeatVector": ("layers_more.json", "cases/repeat_vector"),
    "Identity": ("layers_more.json", "cases/identity"),
    "Reshape": ("layers_more.json", "cases/reshape"),
    "Flatten": ("layers_more.json", "cases/flatten"),
    "Lambda": ("layers_more.json", "cases/lambda"),
    "UpSampling1D": ("layers_more.json", "cases/up_sampling_1d"),
    "UpSampling2D": ("layers_more.json", "cases/up_sampling_2d_bilinear"),
    "ZeroPadding1D": ("layers_more.json", "cases/zero_padding_1d"),
    "ZeroPadding2D": ("layers_more.json", "cases/zero_padding_2d"),
    "Cropping1D": ("layers_more.json", "cases/cropping_1d"),
    "Cropping2D": ("layers_more.json", "cases/cropping_2d"),
    "SpatialDropout1D": ("layers_more.json", "cases/spatial_dropout_1d"),
    "SpatialDropout2D": ("layers_more.json", "cases/spatial_dropout_2d"),
    "AlphaDropout": ("layers_more.json", "cases/alpha_dropout"),
    "UnitNormalization": ("layers_more.json", "cases/unit_normalization"),
    "GroupNormalization": ("layers_more.json", "cases/group_normalization"),
    "AveragePooling1D": ("conv_more.json", "cases/avg_pool1d_first"),
    "AveragePooling3D": ("conv_more.json", "cases/avg_pool3d"),
    "Conv1D": ("conv_more.json", "cases/conv1d_first_dil"),
    "Conv1DTranspose": ("conv_more.json", "cases/conv1d_transpose"),
    "Conv2D": ("conv_more.json", "cases/conv2d_first"),
    "Conv2DTranspose": ("conv_more.json", "cases/conv2d_transpose_dil"),
    "Conv3D": ("conv_more.json", "cases/conv3d"),
    "Conv3DTranspose": ("conv_more.json", "cases/conv3d_transpose"),
    "DepthwiseConv1D": ("conv_more.json", "cases/depthwise1d"),
    "DepthwiseConv2D": ("conv_more.json", "cases/depthwise2d"),
    "GlobalAveragePooling1D": ("conv_more.json", "cases/gavg1d_first"),
    "GlobalAveragePooling3D": ("conv_more.json", "cases/gavg3d_first"),
    "GlobalMaxPooling2D": ("conv_more.json", "cases/gmax2d_first"),
    "GlobalMaxPooling3D": ("conv_more.json", "cases/gmax3d"),
    "MaxPooling2D": ("conv_more.json", "cases/max_pool2d_first"),
    "MaxPooling3D": ("conv_more.json", "cases/max_pool3d"),
    "SeparableConv1D": ("conv_more.json", "cases/separable1d"),
    "SeparableConv2D": ("conv_more.json", "cases/separable2d"),
    "Rescaling": ("preprocessing.json", "cases/rescaling"),
    "Normalization": ("preprocessing.json", "cases/normalization_adapt"),
    "Discretization": ("preprocessing.json", "cases/discretization_adapt"),
    "CategoryEncoding": ("preprocessing.json", "cases/category_count"),
    "Resizing": ("preprocessing.json", "cases/resizing_bilinear"),
    "CenterCrop": ("preprocessing.json", "cases/center_crop"),
    "RandomFlip": ("preprocessing.json", "cases/random_flip"),
    "RandomRotation": ("preprocessing.json", "cases/random_rotation"),
    "RandomZoom": ("preprocessing.json", "cases/random_zoom"),
    "RandomTranslation": ("preprocessing.json", "cases/random_translation"),
    "RandomContrast": ("preprocessing.json", "cases/random_contrast"),
    "RandomBrightness": ("preprocessing.json", "cases/random_brightness"),
    "RandomCrop": ("preprocessing.json", "cases/random_crop"),
    "StringLookup": ("text_layers.json", "cases/string_lookup_int"),
    "IntegerLookup": ("text_layers.json", "cases/integer_lookup_adapt"),
    "Hashing": ("text_layers.json", "cases/hashing"),
    "HashedCrossing": ("text_layers.json", "cases/hashed_crossing"),
    "TextVectorization": ("text_layers.json", "cases/text_vectorization_int"),
    "AugMix": ("image_augment.json", "aug_mix"),
    "AutoContrast": ("image_augment.json", "auto_contrast"),
    "ContrastLimitedAdaptiveHistogramEqualization": ("image_augment.json", "clahe"),
    "CutMix": ("image_augment.json", "cut_mix"),
    "Equalization": ("image_augment.json", "equalization"),
    "MaxNumBoundingBoxes": ("image_augment.json", "max_boxes"),
    "MixUp": ("image_augment.json", "mix_up"),
    "RandAugment": ("image_augment.json", "rand_augment"),
    "RandomColorDegeneration": ("image_augment.json", "color_degeneration"),
    "RandomColorJitter": ("image_augment.json", "jitter"),
    "RandomElasticTransform": ("image_augment.json", "elastic"),
    "RandomErasing": ("image_augment.json", "erasing"),
    "RandomGaussianBlur": ("image_augment.json", "gaussian_blur"),
    "RandomGrayscale": ("image_augment.json", "grayscale"),
    "RandomHue": ("image_augment.json", "hue"),
    "RandomInvert": ("image_augment.json", "invert"),
    "RandomPerspective": ("image_augment.json", "perspective"),
    "RandomPosterization": ("image_augment.json", "posterization"),
    "RandomSaturation": ("image_augment.json", "saturation"),
    "RandomSharpness": ("image_augment.json", "sharpness"),
    "RandomShear": ("image_augment.json", "shear"),
    "Solarization": ("image_augment.json", "solarization"),
    # tools/record_keras_layers_keras3_more.py
    "ActivityRegularization": ("layers_keras3_more.json", "cases/activity_regularization"),
    "AdaptiveAveragePooling1D": ("layers_keras3_more.json", "cases/adaptive_avg_1d"),
    "AdaptiveAveragePooling2D": ("layers_keras3_more.json", "cases/adaptive_avg_2d"),
    "AdaptiveAveragePooling3D": ("layers_keras3_more.json", "cases/adaptive_avg_3d"),
    "AdaptiveMaxPooling1D": ("layers_keras3_more.json", "cases/adaptive_max_1d_first"),
    "AdaptiveMaxPooling2D": ("layers_keras3_more.json", "cases/adaptive_max_2d"),
    "AdaptiveMaxPooling3D": ("layers_keras3_more.json", "cases/adaptive_max_3d_first"),
    "ConvLSTM1D": ("layers_keras3_more.json", "cases/conv_lstm1d"),
    "ConvLSTM2D": ("layers_keras3_more.json", "cases/conv_lstm2d"),
    "ConvLSTM3D": ("layers_keras3_more.json", "cases/conv_lstm3d"),
    "Cropping3D": ("layers_keras3_more.json", "cases/cropping3d"),
    "Dot": ("layers_keras3_more.json", "cases/dot_3d"),
    "MelSpectrogram": ("layers_keras3_more.json", "cases/mel"),
    "Pipeline": ("layers_keras3_more.json", "cases/pipeline"),
    "RMSNormalization": ("layers_keras3_more.json", "cases/rms_norm"),
    "ReversibleEmbedding": ("layers_keras3_more.json", "cases/reversible_embedding"),
    "STFTSpectrogram": ("layers_keras3_more.json", "cases/stft_log"),
    "SpatialDropout3D": ("layers_keras3_more.json", "cases/spatial_dropout3d"),
    "SpectralNormalization": ("layers_keras3_more.json", "cases/spectral_norm_dense"),
    "UpSampling3D": ("layers_keras3_more.json", "cases/up_sampling3d"),
    "Wrapper": ("layers_keras3_more.json", "wrapper"),
    "ZeroPadding3D": ("layers_keras3_more.json", "cases/zero_padding3d"),
}

# Public layers that no Keras fixture covers yet (their tests, if any, hard-code a few
# values). Empty: a layer added without a fixture entry in COVERED fails the test below.
WITHOUT_FIXTURES: set = set()


def _public_layers():
    """Class name -> class of every public Layer subclass (aliases count once)."""
    out = {}
    for name in dir(L):
        obj = getattr(L, name)
        if not name.startswith("_") and inspect.isclass(obj) and issubclass(obj, Layer) \
                and obj is not Layer:
            out[obj.__name__] = obj
    return out


def _entry_text(file, entry):
    path = os.path.join(FIXTURES, file)
    if file.endswith(".keras"):
        with zipfile.ZipFile(path) as archive:
            return archive.read(entry).decode()
    node = json.load(open(path))
    for key in entry.split("/"):
        node = node[key]
    return json.dumps(node)


def test_every_public_layer_has_a_keras_fixture():
    layers = _public_layers()
    missing = sorted(set(layers) - set(COVERED) - WITHOUT_FIXTURES)
    assert not missing, (f"layers without a Keras fixture (record one with a "
                         f"tools/record_keras_*.py script and list it in COVERED): {missing}")


def test_the_lists_name_existing_layers_only():
    layers = _public_layers()
    assert not set(COVERED) - set(layers)
    assert not WITHOUT_FIXTURES - set(layers)
    assert not WITHOUT_FIXTURES & set(COVERED)


@pytest.mark.parametrize("name", sorted(COVERED))
def test_fixture_entry_builds_the_layer(name):
    file, entry = COVERED[name]
    text = _entry_text(file, entry)
    public = [n for n in dir(L) if getattr(L, n) is getattr(L, name)]  # aliases too
    assert any(re.search(rf"\b{n}\(", text) for n in public) or f'"class_name": "{name}"' in text \
        or f'\\"class_name\\": \\"{name}\\"' in text, f"{file}:{entry} does not build {name}"


def test_layers_namespace_holds_no_modules():
    """As Keras's: `keras.layers.core` and friends are AttributeErrors."""
    assert not [n for n in dir(L) if inspect.ismodule(getattr(L, n))]
    for name in ("core", "recurrent", "convolutional", "attention", "layer"):
        assert not hasattr(L, name)
