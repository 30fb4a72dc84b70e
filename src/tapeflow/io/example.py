"""tf.train.Example protos, parse_example / parse_single_example and TFRecord I/O for tf.io.

This module's contents are filled in separately; `tapeflow.io` re-exports its `__all__`.
"""

__all__: list[str] = []
