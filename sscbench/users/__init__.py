"""Users the agent talks to: the scripted offline user (τ²'s simulator comes later)."""

from __future__ import annotations

from collections.abc import Callable

from sscbench.agents.base import User
from sscbench.registry import Registry
from sscbench.users.scripted import ScriptedUser

USERS: Registry[Callable[..., User]] = Registry("user", group="sscbench.users")
USERS.add("scripted", ScriptedUser)


def make_user(name: str) -> User:
    """Build a registered user by name."""
    return USERS.get(name)()


__all__ = ["USERS", "ScriptedUser", "make_user"]
