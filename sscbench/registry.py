"""Typed, open registries: decorator registration plus entry-point plugins.

A registry maps explicit string names to factories. Registering a name twice is an
error (never a silent overwrite). Third-party packages add entries through an
entry-point group, loaded on first lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from sscbench.errors import ConfigError

T = TypeVar("T")


class DuplicateNameError(ConfigError):
    """Two entries claimed the same registry name."""


class Registry(Generic[T]):
    """Named entries of one kind (``what``), extendable through ``group`` entry points."""

    def __init__(self, what: str, group: str | None = None) -> None:
        self.what = what
        self.group = group
        self._entries: dict[str, T] = {}
        self._plugins_loaded = group is None

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: register the decorated object under ``name``."""

        def decorator(obj: T) -> T:
            self.add(name, obj)
            return obj

        return decorator

    def add(self, name: str, obj: T) -> None:
        """Register ``obj`` under ``name``; a duplicate name raises."""
        if name in self._entries:
            raise DuplicateNameError(f"{self.what} {name!r} is already registered")
        self._entries[name] = obj

    def _load_plugins(self) -> None:
        if self._plugins_loaded or self.group is None:
            return
        self._plugins_loaded = True
        for ep in entry_points(group=self.group):
            if ep.name not in self._entries:
                ep.load()  # the module registers itself with the decorator
            if ep.name not in self._entries:
                raise ConfigError(
                    f"entry point {ep.value!r} in group {self.group!r} did not register "
                    f"a {self.what} named {ep.name!r}"
                )

    def get(self, name: str) -> T:
        """Look ``name`` up or raise a :class:`ConfigError` listing the known names."""
        self._load_plugins()
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(sorted(self._entries)) or "none"
            raise ConfigError(f"unknown {self.what} {name!r}; known: {known}") from None

    def names(self) -> list[str]:
        """All registered names, sorted."""
        self._load_plugins()
        return sorted(self._entries)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __contains__(self, name: object) -> bool:
        self._load_plugins()
        return name in self._entries
