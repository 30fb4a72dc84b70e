"""`tf.random`: seeding and random tensors."""

from tapeflow.ops.random_ops import (categorical, normal, set_seed, shuffle,  # noqa: F401
                                     truncated_normal, uniform)
