"""The calls tools/record_keras_applications.py records with Keras and the test repeats with
tapeflow, and the seeded weights and images both use (so no weights are stored)."""

from __future__ import annotations

import math

import numpy as np

SMALL = (32, 32, 3)
TOP = {"include_top": True, "classes": 10, "input_shape": SMALL}
LOGITS = {**TOP, "classifier_activation": None}

# key: (constructor, its arguments besides weights=None)
CALLS = {
    "resnet50": ("ResNet50", LOGITS),
    "resnet101": ("ResNet101", TOP),
    "resnet152": ("ResNet152", {"include_top": False, "input_shape": SMALL, "pooling": "max"}),
    "resnet50v2": ("ResNet50V2", LOGITS),
    "resnet101v2": ("ResNet101V2", TOP),
    "resnet152v2": ("ResNet152V2", {"include_top": False, "input_shape": (64, 48, 3)}),
    "vgg16": ("VGG16", LOGITS),
    "vgg19": ("VGG19", {"include_top": False, "input_shape": SMALL, "pooling": "avg"}),
    "densenet121": ("DenseNet121", LOGITS),
    "densenet169": ("DenseNet169", TOP),
    "densenet201": ("DenseNet201", {"include_top": False, "input_shape": SMALL}),
    "mobilenet": ("MobileNet", {**LOGITS, "alpha": 0.5}),
    "mobilenet_1": ("MobileNet", {"include_top": False, "input_shape": (40, 40, 3),
                                  "pooling": "avg", "depth_multiplier": 2}),
    "mobilenetv2": ("MobileNetV2", {**LOGITS, "alpha": 0.35}),
    "mobilenetv2_1": ("MobileNetV2", {"include_top": False, "input_shape": (33, 35, 3),
                                      "alpha": 1.3}),
    "mobilenetv3small": ("MobileNetV3Small", LOGITS),
    "mobilenetv3large": ("MobileNetV3Large", TOP),
    "efficientnetb0": ("EfficientNetB0", LOGITS),
    "efficientnetb3": ("EfficientNetB3", TOP),
    "efficientnetv2b0": ("EfficientNetV2B0", LOGITS),
    "efficientnetv2s": ("EfficientNetV2S", TOP),
    "efficientnetv2b3": ("EfficientNetV2B3", {"include_top": False, "input_shape": (33, 35, 3),
                                              "pooling": "max"}),
    # one channel: the B variants' ImageNet standardization gives way to scaling to [-1, 1]
    "efficientnetv2b1_1": ("EfficientNetV2B1", {**LOGITS, "input_shape": (32, 32, 1)}),
    "convnexttiny": ("ConvNeXtTiny", LOGITS),
    "xception": ("Xception", {**LOGITS, "input_shape": (71, 71, 3)}),
    "inceptionv3": ("InceptionV3", {**LOGITS, "input_shape": (75, 75, 3)}),
    "inceptionresnetv2": ("InceptionResNetV2", {**TOP, "input_shape": (75, 75, 3)}),
    "nasnetmobile": ("NASNetMobile", {**TOP, "input_shape": SMALL}),
    "nasnetlarge": ("NASNetLarge", {"include_top": False, "input_shape": SMALL, "pooling": "avg"}),
}
# The calls whose output on seeded weights and images is recorded (one or two per family).
FORWARD = {"resnet50", "resnet50v2", "vgg16", "densenet121", "mobilenet", "mobilenetv2",
           "mobilenetv3small", "efficientnetb0", "efficientnetv2b0", "efficientnetv2b1_1",
           "convnexttiny", "xception", "inceptionv3", "inceptionresnetv2", "nasnetmobile"}


def _leaf(name: str) -> str:
    return name.split("/")[-1].split(":")[0]


def deterministic_weights(weights: list) -> list:
    """A value for each (name, shape) of `model.weights`, from its position: kernels scaled
    by their fan-in (so deep networks neither vanish nor overflow), positive variances."""
    values = []
    for index, (name, shape) in enumerate(weights):
        rng = np.random.default_rng(index)
        leaf = _leaf(name)
        if leaf == "count":
            values.append(np.ones(shape, "int64"))
        elif "variance" in leaf or leaf in ("gamma", "scale"):
            values.append(rng.uniform(0.8, 1.2, shape).astype("float32"))
        elif len(shape) <= 1:
            values.append(rng.uniform(-0.1, 0.1, shape).astype("float32"))
        else:
            fan_in = math.prod(shape[:-2] if "depthwise" in leaf else shape[:-1])
            bound = math.sqrt(3.0 / fan_in)
            values.append(rng.uniform(-bound, bound, shape).astype("float32"))
    return values


def seeded_images(shape: tuple) -> np.ndarray:
    return np.random.default_rng(0).uniform(0.0, 1.0, (2, *shape)).astype("float32")


def sample_pixels(data_format: str) -> np.ndarray:
    """A batch of two 2x3 RGB images with pixel values in [0, 255]."""
    pixels = np.arange(36, dtype="float32").reshape(2, 2, 3, 3) * 7.0
    return pixels if data_format == "channels_last" else pixels.transpose(0, 3, 1, 2).copy()
