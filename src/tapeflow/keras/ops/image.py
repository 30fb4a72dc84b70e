"""`keras.ops.image`: Keras 3's image ops."""

from __future__ import annotations

__all__: list = []
