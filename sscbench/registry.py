"""Typed, open registries: decorator registration plus entry-point plugins.

A registry maps explicit string names to factories. Registering a name twice is an
error (never a silent overwrite). Third-party packages add entries through an
entry-point group, loaded on first lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench.errors import ConfigError

T = TypeVar("T")


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


class DuplicateNameError(ConfigError):
    """Two entries claimed the same registry name."""


class Params(BaseModel):
    """Base of a registered component's parameter model: frozen, no unknown keys.

    Parameters arrive as text from the command line (``--agent-param p=0.3``) or typed from
    an experiment file (``p = 0.3``); validating both through one model gives the component
    the same values — ``"0.3"`` becomes 0.3 for a float field, ``"007"`` stays ``"007"`` for a
    text field — and the configuration hash the same input.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")


class NoParams(Params):
    """A component that takes no parameters."""


class Registry(Generic[T]):
    """Named entries of one kind (``what``), extendable through ``group`` entry points."""

    def __init__(self, what: str, group: str | None = None) -> None:
        self.what = what
        self.group = group
        self._entries: dict[str, T] = {}
        self._params: dict[str, type[BaseModel]] = {}
        self._brief: set[str] = set()
        self._plugins_loaded = group is None

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: register the decorated object under ``name``."""

        def decorator(obj: T) -> T:
            self.add(name, obj)
            return obj

        return decorator

    def add(
        self, name: str, obj: T, params: type[BaseModel] | None = None, *, brief: bool = False
    ) -> None:
        """Register ``obj`` under ``name`` (with the model its parameters must satisfy); a
        duplicate name raises. ``brief``: what it does in an episode is brief work in this
        process — no model call, no network, no other process to wait for (the scripted
        agents and user) — so the engine may play its episodes on its own thread."""
        if name in self._entries:
            raise DuplicateNameError(f"{self.what} {name!r} is already registered")
        self._entries[name] = obj
        if params is not None:
            self._params[name] = params
        if brief:
            self._brief.add(name)

    def is_brief(self, name: str) -> bool:
        """Whether ``name`` was registered as brief (an unknown name is not)."""
        return name in self._brief

    def validate(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` checked and converted by ``name``'s parameter model: the keys given,
        with typed values. A component registered without a model gets them unchanged.
        Problems are one :class:`ConfigError` line each, naming the parameter."""
        self.get(name)  # an unknown name fails here, listing the known ones
        model = self._params.get(name)
        if model is None:
            return dict(params)
        try:
            checked = model.model_validate(dict(params))
        except ValidationError as exc:
            problems = [
                f"{'.'.join(str(p) for p in e['loc']) or 'parameters'}: {e['msg']}"
                for e in exc.errors(include_url=False, include_input=False)
            ]
            raise ConfigError(f"{self.what} {name}: " + "; ".join(problems)) from None
        return checked.model_dump(exclude_unset=True)

    def _load_plugins(self) -> None:
        """Import every entry point of the group once; each must register its own name.

        A plugin claiming a name that something else already holds is an error, as is a
        plugin that fails to import; the load is retried (and fails again) on the next
        lookup rather than silently continuing without the remaining plugins.
        """
        if self._plugins_loaded or self.group is None:
            return
        for ep in sorted(entry_points(group=self.group), key=lambda e: e.name):
            holder = self._entries.get(ep.name)
            if holder is not None:
                if getattr(holder, "__module__", None) != ep.module:
                    raise DuplicateNameError(
                        f"plugin entry point {ep.value!r} (group {self.group!r}) claims the "
                        f"{self.what} name {ep.name!r}, which {getattr(holder, '__module__', '?')} "
                        "already registered"
                    )
                continue
            try:
                ep.load()  # the module registers itself with the decorator
            except ConfigError:
                raise
            except Exception as exc:  # a broken plugin: report it by name, not as a traceback
                raise ConfigError(
                    f"plugin entry point {ep.value!r} (group {self.group!r}) failed to load: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            if ep.name not in self._entries:
                raise ConfigError(
                    f"entry point {ep.value!r} in group {self.group!r} did not register "
                    f"{_article(self.what)} {self.what} named {ep.name!r}"
                )
        self._plugins_loaded = True

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
