"""`tf.data.Options`: accepted and kept; tapeflow's pipelines are always deterministic and
run their own way, so the options do not change results."""

from __future__ import annotations

import enum
from typing import Any


class AutoShardPolicy(enum.IntEnum):
    """How a dataset is split over the workers of a distribution strategy
    (`tf.data.experimental.AutoShardPolicy`, set in
    `Options().experimental_distribute.auto_shard_policy`)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class _OptionGroup:
    """A group of options (threading, optimization, ...): any attribute may be set."""

    def __init__(self) -> None:
        self.__dict__["_values"] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        values = self.__dict__["_values"]
        if name not in values:
            values[name] = None
        return values[name]

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__["_values"][name] = value


class Options:
    """tf.data.Options: `deterministic`, `threading`, `optimization`, `autotune`,
    `experimental_distribute`, ... accepted and recorded."""

    def __init__(self) -> None:
        self.deterministic = None
        self.experimental_slack = False
        self.experimental_optimization = self.optimization = _OptionGroup()
        self.threading = _OptionGroup()
        self.autotune = _OptionGroup()
        self.experimental_distribute = _OptionGroup()

    def merge(self, options: "Options") -> "Options":
        """These options overridden by the ones `options` sets."""
        merged = Options()
        merged.__dict__.update(self.__dict__)
        merged.__dict__.update({k: v for k, v in options.__dict__.items() if v is not None})
        return merged

    def __repr__(self) -> str:
        return f"<tensorflow.python.data.ops.options.Options object at 0x{id(self):x}>"


__all__ = ["AutoShardPolicy", "Options"]
