"""`keras.utils.Config`: a dict whose keys are also attributes, which can be frozen."""

from __future__ import annotations

import copy
import difflib
import json
from typing import Any, Iterator


class Config:
    """A configuration: `Config(a=1)`, then `config.a`, `config["a"]`, `config.b = 2`;
    `freeze()` makes it read-only (a change raises ValueError), `unfreeze()` undoes it."""

    __attrs__ = None  # the object's own attribute names, set once constructed

    def __init__(self, **kwargs: Any) -> None:
        self._config = kwargs
        self._frozen = False
        self.__attrs__ = set(dir(self))

    @property
    def frozen(self) -> bool:
        """Whether the config is read-only."""
        return self._frozen

    def freeze(self) -> None:
        """Makes the config read-only."""
        self._frozen = True

    def unfreeze(self) -> None:
        """Makes the config editable again."""
        self._frozen = False

    def _raise_if_frozen(self) -> None:
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")

    def as_dict(self) -> dict:
        """A shallow copy of the entries as a dict."""
        return copy.copy(self._config)

    def to_json(self) -> str:
        """The entries as a JSON string."""
        return json.dumps(self._config)

    def keys(self) -> Any:
        """The entries' names."""
        return self._config.keys()

    def values(self) -> Any:
        """The entries' values."""
        return self._config.values()

    def items(self) -> Any:
        """The (name, value) pairs."""
        return self._config.items()

    def pop(self, *args: Any) -> Any:
        """Removes an entry and returns its value (as dict.pop)."""
        self._raise_if_frozen()
        return self._config.pop(*args)

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Adds or replaces entries (as dict.update)."""
        self._raise_if_frozen()
        self._config.update(*args, **kwargs)

    def get(self, keyname: str, value: Any = None) -> Any:
        """The entry's value, else `value`."""
        return self._config.get(keyname, value)

    def __setattr__(self, name: str, value: Any) -> None:
        attrs = object.__getattribute__(self, "__attrs__")
        if attrs is None or name in attrs:
            object.__setattr__(self, name, value)
            return
        self._raise_if_frozen()
        self._config[name] = value

    def __getattr__(self, name: str) -> Any:
        attrs = object.__getattribute__(self, "__attrs__")
        if attrs is None or name in attrs:
            return object.__getattribute__(self, name)
        config = object.__getattribute__(self, "_config")
        if name in config:
            return config[name]
        msg = f"Unknown attribute: '{name}'."
        close = difflib.get_close_matches(name, config.keys(), n=1, cutoff=0.7)
        if close:
            msg += f" Did you mean '{close[0]}'?"
        raise AttributeError(msg)

    def __setitem__(self, key: str, item: Any) -> None:
        self._raise_if_frozen()
        self._config[key] = item

    def __getitem__(self, key: str) -> Any:
        return self._config[key]

    def __delitem__(self, key: str) -> None:
        self._raise_if_frozen()
        del self._config[key]

    def __contains__(self, item: Any) -> bool:
        return item in self._config

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._config))

    def __len__(self) -> int:
        return len(self._config)

    def __repr__(self) -> str:
        return f"<Config {self._config}>"


__all__ = ["Config"]
