"""`tf.TensorArray`."""
