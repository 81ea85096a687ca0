"""The agent registry: ``scripted:careful`` and friends, and the provider-backed agents
``openai``, ``anthropic`` and ``openai-compatible``, and ``external`` (an agent in its own
loop, served over MCP).

Third-party agents register through the ``sscbench.agents`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sscbench.agents.base import Agent
from sscbench.caching import shared_cache
from sscbench.registry import Registry

AGENTS: Registry[Callable[..., Agent]] = Registry("agent", group="sscbench.agents")


@shared_cache
def register_builtin_agents() -> None:
    """Register the scripted and provider-backed agents (once; cheap, no SDK import)."""
    import sscbench.agents.scripted  # noqa: F401  (registers the scripted agents)
    from sscbench.agents.external import register_external_agent
    from sscbench.agents.providers import register_provider_agents

    register_provider_agents(AGENTS)
    register_external_agent(AGENTS)


def make_agent(name: str, **params: Any) -> Agent:
    """Build a registered agent by name (built-ins are registered on first use), its
    parameters checked and typed by the agent's parameter model."""
    register_builtin_agents()
    return AGENTS.get(name)(**AGENTS.validate(name, params))
