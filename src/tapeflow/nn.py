"""`tf.nn`: activations, softmax, cross-entropy losses, normalization, dropout, embeddings."""

import types as _types
from typing import Any

from tapeflow.framework.tensor_conversion import convert_to_tensor

import tapeflow.ops  # noqa: F401 - the op families declare their public names on import
from tapeflow.framework.exports import populate as _populate

experimental = _types.ModuleType(f"{__name__}.experimental", "`tf.nn.experimental`.")
_populate(vars(experimental), "nn.experimental")
_populate(globals(), "nn")


def compute_average_loss(per_example_loss: Any, sample_weight: Any = None,
                         global_batch_size: Any = None) -> Any:
    """The per-example losses (optionally weighted) summed and divided by the global batch
    size: by default this replica's batch size times the replicas in sync, so summing the
    replicas' gradients gives the global batch's mean (as `tf.nn.compute_average_loss`)."""
    from tapeflow import distribute
    from tapeflow.framework import errors
    from tapeflow.ops import array_ops, math_ops, reduce_ops
    per_example_loss = convert_to_tensor(per_example_loss)
    input_dtype = per_example_loss.dtype
    if per_example_loss.shape.rank == 0:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with "
                         f"at least rank 1. Received per_example_loss={per_example_loss} with "
                         "rank 0")
    if sample_weight is not None:
        weight = math_ops.cast(convert_to_tensor(sample_weight), input_dtype)
        while 0 < weight.shape.rank < per_example_loss.shape.rank:  # weights per example
            weight = array_ops.expand_dims(weight, -1)
        per_example_loss = math_ops.cast(per_example_loss * weight, input_dtype)
    if global_batch_size is None:
        if distribute.has_strategy() and distribute.in_cross_replica_context():
            raise RuntimeError("You are calling `compute_average_loss` in cross replica "
                               "context, while it was expected to be called in replica "
                               "context.")
        replicas = distribute.get_strategy().num_replicas_in_sync
        global_batch_size = array_ops.shape(per_example_loss)[0] * replicas
    global_batch_size = convert_to_tensor(global_batch_size)
    if not global_batch_size.dtype.is_integer:
        raise TypeError(f"global_batch_size must be an integer..  Expected \"x\" to be integer "
                        f"type.  Found: tensor of dtype {global_batch_size.dtype}")
    if global_batch_size.shape.rank == 0 and not _is_symbolic(global_batch_size) and \
            int(global_batch_size.numpy()) < 0:
        raise errors.InvalidArgumentError(
            None, None, "global_batch_size must be non-negative..  \nCondition x >= 0 did not "
            f"hold element-wise:\nx (shape=() dtype={global_batch_size.dtype.name}) = \n"
            f"{int(global_batch_size.numpy())}")
    total = reduce_ops.reduce_sum(per_example_loss)
    if input_dtype.is_integer:  # TensorFlow divides integers in float64
        return math_ops.truediv(total, math_ops.cast(global_batch_size, input_dtype))
    return math_ops.divide_no_nan(total, math_ops.cast(global_batch_size, input_dtype))


def scale_regularization_loss(regularization_loss: Any) -> Any:
    """The regularization loss (summed) divided by the replicas in sync, so summing the
    replicas' gradients counts it once (as `tf.nn.scale_regularization_loss`)."""
    from tapeflow import distribute
    from tapeflow.ops import reduce_ops
    if distribute.has_strategy() and distribute.in_cross_replica_context():
        raise RuntimeError("You are calling `scale_regularization_loss` in cross replica "
                           "context, while it was expected to be called in replica context.")
    replicas = distribute.get_strategy().num_replicas_in_sync
    return reduce_ops.reduce_sum(regularization_loss) / replicas


def _is_symbolic(tensor: Any) -> bool:
    return not hasattr(tensor, "numpy") or getattr(tensor, "_value", None) is None
