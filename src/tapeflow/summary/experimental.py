"""`tf.summary.experimental`: the default step and summary scopes."""

from tapeflow.summary._ops import get_step, set_step, summary_scope  # noqa: F401


def write_raw_pb(tensor, step=None, name=None):  # noqa: ANN001, ANN201
    """TF writes serialized Summary protos here; tapeflow does not (NotImplementedError)."""
    raise NotImplementedError("tf.summary.experimental.write_raw_pb is not implemented in "
                              "tapeflow: use tf.summary.write with a tensor and metadata.")


__all__ = ["get_step", "set_step", "summary_scope", "write_raw_pb"]
