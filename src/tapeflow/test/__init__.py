"""`tf.test`: the gradient checker, for users and for tapeflow's own tests."""

from tapeflow.test.gradient_checker import compute_gradient

__all__ = ["compute_gradient"]
