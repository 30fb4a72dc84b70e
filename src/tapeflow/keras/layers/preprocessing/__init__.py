"""Keras 3's preprocessing layers that need no strings: feature layers (Rescaling,
Normalization, Discretization, CategoryEncoding) and image layers (Resizing, CenterCrop and
the seeded augmentations RandomFlip/Rotation/Zoom/Translation/Contrast/Brightness/Crop)."""

from tapeflow.keras.layers.preprocessing.features import (CategoryEncoding, Discretization,
                                                          Normalization, Rescaling)
from tapeflow.keras.layers.preprocessing.image import (CenterCrop, RandomBrightness,
                                                       RandomContrast, RandomCrop, RandomFlip,
                                                       RandomRotation, RandomTranslation,
                                                       RandomZoom, Resizing)
from tapeflow.keras.layers.preprocessing.text import (HashedCrossing, Hashing, IntegerLookup,
                                                      StringLookup, TextVectorization)

__all__ = ["Rescaling", "Normalization", "Discretization", "CategoryEncoding", "Resizing",
           "CenterCrop", "RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation",
           "RandomContrast", "RandomBrightness", "RandomCrop", "StringLookup", "IntegerLookup",
           "Hashing", "HashedCrossing", "TextVectorization"]
