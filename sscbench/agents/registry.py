"""The agent registry: ``scripted:careful``, and later provider-backed agents.

Third-party agents register through the ``sscbench.agents`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sscbench.agents.base import Agent
from sscbench.registry import Registry

AGENTS: Registry[Callable[..., Agent]] = Registry("agent", group="sscbench.agents")


def make_agent(name: str, **params: Any) -> Agent:
    """Build a registered agent by name (built-ins are registered on first use)."""
    import sscbench.agents.scripted  # noqa: F401  (registers the scripted agents)

    return AGENTS.get(name)(**params)
