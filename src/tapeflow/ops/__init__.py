"""Primitives and their derivative rules, one family per module."""

from tapeflow.ops import array_ops, math_ops, operators, reduce_ops
from tapeflow.ops import clip_ops, nn_ops, random_ops
from tapeflow.ops import index_ops, linalg_ops, manip_ops, special_ops, variable_ops
# _autodiff_support registers the backward pass's ops with autodiff when imported.
from tapeflow.ops import _autodiff_support  # noqa: F401
from tapeflow.ops import control_flow_ops, conv_ops, indexed_slices_ops
from tapeflow.ops import map_ops, tensor_array_ops, functional_ops, script_ops
from tapeflow.ops import stateless_random_ops, random_generator, random_sampling_ops
from tapeflow.ops import control_deps  # noqa: F401 - tf.group, tf.control_dependencies, ...
from tapeflow.ops import debugging_ops
from tapeflow.ops import bitwise_ops  # noqa: F401 - tf.bitwise
from tapeflow.ops import ctc_ops, nn_spatial_ops  # noqa: F401 - CTC; layouts, pools
from tapeflow.ops import framework_ops, init_ops  # noqa: F401 - tf.get_logger, ...; initializers

__all__ = ["array_ops", "math_ops", "operators", "reduce_ops", "clip_ops", "nn_ops", "random_ops",
           "index_ops", "linalg_ops", "manip_ops", "special_ops", "variable_ops",
           "control_flow_ops", "conv_ops", "indexed_slices_ops", "map_ops",
           "tensor_array_ops", "functional_ops", "script_ops",
           "stateless_random_ops", "random_generator", "random_sampling_ops", "debugging_ops"]
