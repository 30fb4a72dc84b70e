"""`tf.py_function` and `tf.numpy_function`."""
