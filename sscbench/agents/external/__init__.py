"""Agents that run in their own loop: served over MCP (or as Inspect tools).

``external`` is registered like any agent; the MCP SDK is imported only when a run is
served (``pip install 'sscbench[mcp]'``). See ``docs/external-agents.md``.
"""

from __future__ import annotations

from typing import Any

from sscbench.agents.external.agent import ExternalAgent, ExternalParams, make_external_agent
from sscbench.agents.external.bridge import Action, Bridge, ConversationOver, Reply

__all__ = [
    "Action",
    "Bridge",
    "ConversationOver",
    "ExternalAgent",
    "ExternalParams",
    "Reply",
    "register_external_agent",
]


def register_external_agent(registry: Any) -> None:
    """Add ``external`` to the agent registry."""
    registry.add("external", make_external_agent, params=ExternalParams)
