"""`keras.datasets`: Keras 3's small NumPy datasets (MNIST, Fashion-MNIST, CIFAR-10/100, IMDB,
Reuters, Boston and California housing), read from Keras's cache (`$KERAS_HOME/datasets` or
`~/.keras/datasets`, downloaded there with a hash check when missing) and returned as Keras
returns them. Files holding pickles are read without running their code."""

from tapeflow.keras.datasets import (
    boston_housing, california_housing, cifar10, cifar100, fashion_mnist, imdb, mnist, reuters)

__all__ = ["boston_housing", "california_housing", "cifar10", "cifar100", "fashion_mnist",
           "imdb", "mnist", "reuters"]
