"""`keras.applications.vgg19`: VGG19 and its preprocessing."""

from tapeflow.keras.applications._vgg import decode_predictions, preprocess_input, vgg

VGG19 = vgg(19)

__all__ = ["VGG19", "preprocess_input", "decode_predictions"]
