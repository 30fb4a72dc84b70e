"""`keras.applications.vgg16`: VGG16 and its preprocessing."""

from tapeflow.keras.applications._vgg import decode_predictions, preprocess_input, vgg

VGG16 = vgg(16)

__all__ = ["VGG16", "preprocess_input", "decode_predictions"]
