"""Users the agent talks to: the scripted offline user and τ²'s LLM user simulator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sscbench.agents.base import User
from sscbench.registry import NoParams, Registry
from sscbench.users.scripted import ScriptedUser
from sscbench.users.simulator import UserSimulator, register_simulator_user

USERS: Registry[Callable[..., User]] = Registry("user", group="sscbench.users")
USERS.add("scripted", ScriptedUser, params=NoParams, brief=True)
register_simulator_user(USERS)


def make_user(name: str, **params: Any) -> User:
    """Build a registered user by name (``simulator`` takes provider and model params)."""
    return USERS.get(name)(**USERS.validate(name, params))


__all__ = ["USERS", "ScriptedUser", "UserSimulator", "make_user"]
