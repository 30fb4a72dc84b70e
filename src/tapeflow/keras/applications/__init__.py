"""`keras.applications`: Keras 3.15's image classification architectures, built with the same
layers and names, so that Keras's ImageNet weight files load (`weights="imagenet"` reads them
from Keras's cache, `~/.keras/models` or `$KERAS_HOME/models`, downloading them there when
missing); each family's module has its `preprocess_input` and `decode_predictions`."""

from tapeflow.keras.applications import (convnext, densenet, efficientnet, efficientnet_v2,
                                         imagenet_utils, inception_resnet_v2, inception_v3,
                                         mobilenet, mobilenet_v2, mobilenet_v3, nasnet, resnet,
                                         resnet50, resnet_v2, vgg16, vgg19, xception)
from tapeflow.keras.applications.convnext import (ConvNeXtBase, ConvNeXtLarge, ConvNeXtSmall,
                                                  ConvNeXtTiny, ConvNeXtXLarge)
from tapeflow.keras.applications.densenet import DenseNet121, DenseNet169, DenseNet201
from tapeflow.keras.applications.efficientnet import (
    EfficientNetB0, EfficientNetB1, EfficientNetB2, EfficientNetB3, EfficientNetB4,
    EfficientNetB5, EfficientNetB6, EfficientNetB7)
from tapeflow.keras.applications.efficientnet_v2 import (
    EfficientNetV2B0, EfficientNetV2B1, EfficientNetV2B2, EfficientNetV2B3, EfficientNetV2L,
    EfficientNetV2M, EfficientNetV2S)
from tapeflow.keras.applications.inception_resnet_v2 import InceptionResNetV2
from tapeflow.keras.applications.inception_v3 import InceptionV3
from tapeflow.keras.applications.mobilenet import MobileNet
from tapeflow.keras.applications.mobilenet_v2 import MobileNetV2
from tapeflow.keras.applications.mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
from tapeflow.keras.applications.nasnet import NASNetLarge, NASNetMobile
from tapeflow.keras.applications.resnet import ResNet50, ResNet101, ResNet152
from tapeflow.keras.applications.resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2
from tapeflow.keras.applications.vgg16 import VGG16
from tapeflow.keras.applications.vgg19 import VGG19
from tapeflow.keras.applications.xception import Xception

__all__ = ["ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtSmall", "ConvNeXtTiny", "ConvNeXtXLarge",
           "DenseNet121", "DenseNet169", "DenseNet201", "EfficientNetB0", "EfficientNetB1",
           "EfficientNetB2", "EfficientNetB3", "EfficientNetB4", "EfficientNetB5",
           "EfficientNetB6", "EfficientNetB7", "EfficientNetV2B0", "EfficientNetV2B1",
           "EfficientNetV2B2", "EfficientNetV2B3", "EfficientNetV2L", "EfficientNetV2M",
           "EfficientNetV2S", "InceptionResNetV2", "InceptionV3", "MobileNet", "MobileNetV2",
           "MobileNetV3Large", "MobileNetV3Small", "NASNetLarge", "NASNetMobile", "ResNet50",
           "ResNet101", "ResNet152", "ResNet50V2", "ResNet101V2", "ResNet152V2", "VGG16", "VGG19",
           "Xception", "convnext", "densenet", "efficientnet", "efficientnet_v2", "imagenet_utils",
           "inception_resnet_v2", "inception_v3", "mobilenet", "mobilenet_v2", "mobilenet_v3",
           "nasnet", "resnet", "resnet50", "resnet_v2", "vgg16", "vgg19", "xception"]
