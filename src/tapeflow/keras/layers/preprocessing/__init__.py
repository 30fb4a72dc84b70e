"""Keras 3's preprocessing layers that need no strings: feature layers (Rescaling,
Normalization, Discretization, CategoryEncoding) and image layers (Resizing, CenterCrop, the
seeded augmentations RandomFlip/Rotation/Zoom/Translation/Contrast/Brightness/Crop, and
image_augment's colour, geometry, mixing and policy layers)."""

from tapeflow.keras.layers.preprocessing.features import (CategoryEncoding, Discretization,
                                                          Normalization, Rescaling)
from tapeflow.keras.layers.preprocessing.image import (CenterCrop, RandomBrightness,
                                                       RandomContrast, RandomCrop, RandomFlip,
                                                       RandomRotation, RandomTranslation,
                                                       RandomZoom, Resizing)
from tapeflow.keras.layers.preprocessing.image_augment import (
    AugMix, AutoContrast, ContrastLimitedAdaptiveHistogramEqualization, CutMix, Equalization,
    MaxNumBoundingBoxes, MixUp, RandAugment, RandomColorDegeneration, RandomColorJitter,
    RandomElasticTransform, RandomErasing, RandomGaussianBlur, RandomGrayscale, RandomHue,
    RandomInvert, RandomPerspective, RandomPosterization, RandomSaturation, RandomSharpness,
    RandomShear, Solarization)
from tapeflow.keras.layers.preprocessing.text import (HashedCrossing, Hashing, IntegerLookup,
                                                      StringLookup, TextVectorization)

__all__ = ["Rescaling", "Normalization", "Discretization", "CategoryEncoding", "Resizing",
           "CenterCrop", "RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation",
           "RandomContrast", "RandomBrightness", "RandomCrop", "StringLookup", "IntegerLookup",
           "Hashing", "HashedCrossing", "TextVectorization", "AutoContrast", "Equalization",
           "Solarization", "RandomInvert", "RandomGrayscale", "RandomPosterization", "MixUp",
           "RandomSaturation", "RandomHue", "RandomColorDegeneration", "RandomSharpness", "CutMix",
           "RandomErasing", "RandomColorJitter", "RandomGaussianBlur", "RandomShear",
           "RandomPerspective", "RandAugment", "AugMix", "RandomElasticTransform",
           "ContrastLimitedAdaptiveHistogramEqualization", "MaxNumBoundingBoxes"]
