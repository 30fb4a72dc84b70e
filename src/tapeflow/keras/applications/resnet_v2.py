"""`keras.applications.resnet_v2`: ResNet50V2, ResNet101V2 and ResNet152V2 (He et al., 2016:
pre-activation residual blocks)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from tapeflow.keras.applications import imagenet_utils as _utils
from tapeflow.keras.applications.resnet import ResNet, stack_residual_blocks_v2, stages


def _resnet_v2(blocks: tuple, weights_name: str) -> Callable:
    def build(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
              input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
              classifier_activation: Any = "softmax", name: str = weights_name) -> Any:
        return ResNet(stages(stack_residual_blocks_v2, blocks), preact=True, use_bias=True,
                      weights_name=weights_name, name=name, include_top=include_top,
                      weights=weights, input_tensor=input_tensor, input_shape=input_shape,
                      pooling=pooling, classes=classes,
                      classifier_activation=classifier_activation)
    build.__name__ = build.__qualname__ = weights_name.replace("resnet", "ResNet").replace(
        "v2", "V2")
    build.__doc__ = (f"Instantiates the {build.__name__} architecture (Keras's layer names "
                     "and ImageNet weights; inputs through `resnet_v2.preprocess_input`).")
    return build


ResNet50V2 = _resnet_v2((3, 4, 6, 3), "resnet50v2")
ResNet101V2 = _resnet_v2((3, 4, 23, 3), "resnet101v2")
ResNet152V2 = _resnet_v2((3, 8, 36, 3), "resnet152v2")


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """ResNetV2's preprocessing: pixels scaled to [-1, 1] ('tf')."""
    return _utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds: Any, top: int = 5) -> list:
    """See `imagenet_utils.decode_predictions`."""
    return _utils.decode_predictions(preds, top=top)


__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "preprocess_input", "decode_predictions"]
