"""`tf.nn`: activations, softmax, cross-entropy losses, normalization, dropout, embeddings."""

from tapeflow.ops.conv_ops import avg_pool1d, max_pool1d
from tapeflow.ops.conv_ops import (avg_pool, avg_pool2d, conv1d, conv2d,
                                   conv2d_transpose, convolution, depthwise_conv2d, max_pool,
                                   max_pool2d)
from tapeflow.ops.manip_ops import in_top_k, top_k  # in tf.nn as well as tf.math, as TF
from tapeflow.ops.math_ops import sigmoid, softplus, tanh
from tapeflow.ops.nn_ops import (batch_normalization, bias_add, dropout, elu,
                                 embedding_lookup, gelu, l2_loss, l2_normalize, leaky_relu,
                                 log_softmax, moments, relu, relu6, selu,
                                 sigmoid_cross_entropy_with_logits, silu, softmax,
                                 softmax_cross_entropy_with_logits, softsign,
                                 sparse_softmax_cross_entropy_with_logits, swish)

__all__ = ["avg_pool", "avg_pool2d", "conv1d", "conv2d", "conv2d_transpose", "convolution",
           "depthwise_conv2d", "max_pool", "max_pool2d", "sigmoid", "softplus", "tanh",
           "batch_normalization", "bias_add", "dropout", "elu", "embedding_lookup", "gelu",
           "l2_loss", "l2_normalize", "leaky_relu", "log_softmax", "moments", "relu", "relu6",
           "selu", "sigmoid_cross_entropy_with_logits", "silu", "softmax",
           "softmax_cross_entropy_with_logits", "softsign",
           "sparse_softmax_cross_entropy_with_logits", "swish", "top_k", "in_top_k", "avg_pool1d",
           "max_pool1d"]
