"""`keras.applications.resnet_v2`: ResNet50V2, ResNet101V2 and ResNet152V2 (He et al., 2016:
pre-activation residual blocks)."""

from __future__ import annotations

from typing import Any, Optional

from tapeflow.keras.applications import imagenet_utils as _utils
from tapeflow.keras.applications.resnet import constructor


ResNet50V2 = constructor((3, 4, 6, 3), "resnet50v2", "ResNet50V2", preact=True)
ResNet101V2 = constructor((3, 4, 23, 3), "resnet101v2", "ResNet101V2", preact=True)
ResNet152V2 = constructor((3, 8, 36, 3), "resnet152v2", "ResNet152V2", preact=True)


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """ResNetV2's preprocessing: pixels scaled to [-1, 1] ('tf')."""
    return _utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "preprocess_input", "decode_predictions"]
