"""`tf.data`: input pipelines (datasets, their transformations and iterators)."""
