"""`keras.ops.linalg`: Keras 3's linear-algebra ops."""

from __future__ import annotations

__all__: list = []
