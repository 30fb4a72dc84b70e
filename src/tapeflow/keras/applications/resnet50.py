"""`keras.applications.resnet50`: ResNet50 and its preprocessing (as `resnet`'s)."""

from tapeflow.keras.applications.resnet import ResNet50, decode_predictions, preprocess_input

__all__ = ["ResNet50", "preprocess_input", "decode_predictions"]
