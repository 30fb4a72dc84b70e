"""`keras.ops`: Keras 3's ops. Each runs eagerly on tensors and arrays and, given a
KerasTensor, becomes an operation node of the functional graph (as Keras 3). The names of
`numpy`, `nn` and `linalg` are also `keras.ops`'s own, as in Keras; `image` is only a
namespace."""

from tapeflow.keras.ops import core, image, linalg, nn, numpy  # noqa: F401 - namespaces
from tapeflow.keras.ops.core import *  # noqa: F401,F403 - keras.ops re-exports them
from tapeflow.keras.ops.linalg import *  # noqa: F401,F403
from tapeflow.keras.ops.nn import *  # noqa: F401,F403
from tapeflow.keras.ops.numpy import *  # noqa: F401,F403

__all__ = sorted({*core.__all__, *numpy.__all__, *nn.__all__, *linalg.__all__,
                  "image", "linalg", "nn", "numpy"})
