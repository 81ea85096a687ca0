"""Agents under test: the shared protocol, the registry, scripted references."""

from sscbench.agents.base import GREETING, STOP_TOKENS, Agent, AgentTurn, EpisodeContext, User
from sscbench.agents.registry import AGENTS, make_agent

__all__ = [
    "AGENTS",
    "GREETING",
    "STOP_TOKENS",
    "Agent",
    "AgentTurn",
    "EpisodeContext",
    "User",
    "make_agent",
]
