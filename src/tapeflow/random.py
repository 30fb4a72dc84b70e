"""`tf.random`: seeding and random tensors."""

from tapeflow.ops.random_ops import (categorical, normal, set_seed, shuffle,
                                     truncated_normal, uniform)

__all__ = ["categorical", "normal", "set_seed", "shuffle", "truncated_normal", "uniform"]
