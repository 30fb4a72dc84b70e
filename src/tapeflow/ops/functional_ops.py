"""`tf.map_fn`, `tf.scan`, `tf.foldl`, `tf.foldr`."""
