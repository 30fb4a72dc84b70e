"""`tf.nn`: activations, softmax and cross-entropy losses."""

from tapeflow.ops.conv_ops import (avg_pool, avg_pool2d, conv1d, conv2d,  # noqa: F401
                                   conv2d_transpose, convolution, depthwise_conv2d, max_pool,
                                   max_pool2d)

from tapeflow.ops.math_ops import sigmoid, softplus, tanh  # noqa: F401
from tapeflow.ops.nn_ops import (elu, gelu, leaky_relu, log_softmax, relu, relu6,  # noqa: F401
                                 selu, sigmoid_cross_entropy_with_logits, silu, softmax,
                                 softmax_cross_entropy_with_logits,
                                 sparse_softmax_cross_entropy_with_logits, swish)
