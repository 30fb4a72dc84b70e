"""`tf.linalg.LinearOperator` and its subclasses (TF 2.21's classes on tapeflow's ops)."""

from tapeflow.ops.linear_operator import base, basic, structured  # noqa: F401 - they export
