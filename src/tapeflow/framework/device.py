"""`tf.device`: device scopes (tapeflow has one device, the local CPU)."""
