"""Offline scripted reference agents (deterministic given a seed, no model calls).

Each variant takes ``phrasing`` (``plain``, the default, or ``varied``; see
:mod:`sscbench.agents.scripted.phrasing`); ``scripted:mixed`` also takes ``p``. An unknown
phrasing, an unknown parameter or a ``p`` outside 0..1 is a
:class:`~sscbench.errors.ConfigError` when the agent is built, which is when experiment
files and ``--agent-param`` values are checked.
"""

from collections.abc import Callable

from sscbench.agents.registry import AGENTS
from sscbench.agents.scripted.agent import HABITS, ScriptedAgent, mixed_habits
from sscbench.agents.scripted.phrasing import DEFAULT_PHRASING, PHRASINGS
from sscbench.agents.scripted.trust import EvidenceHabits
from sscbench.errors import ConfigError

__all__ = ["HABITS", "PHRASINGS", "EvidenceHabits", "ScriptedAgent"]


def _fixed(variant: str, habits: EvidenceHabits) -> Callable[..., ScriptedAgent]:
    """The factory of a fixed-habit variant: ``phrasing`` is its only parameter (the
    variant and habits are closed over, so no parameter can override them)."""

    def make(phrasing: str = DEFAULT_PHRASING) -> ScriptedAgent:
        return ScriptedAgent(variant, habits, phrasing=phrasing)

    return make


def _probability(p: object) -> float:
    """``p`` of ``scripted:mixed``, checked when the agent is built (so before any run): a
    number from 0 to 1; a bad value would otherwise fail mid-episode or be silently
    treated as certainty."""
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0.0 <= p <= 1.0:
        raise ConfigError(f"scripted:mixed: p must be a number from 0 to 1, got {p!r}")
    return float(p)


def _register() -> None:
    for variant, habits in HABITS.items():
        AGENTS.add(f"scripted:{variant}", _fixed(variant, habits))

    def mixed(p: float = 0.5, phrasing: str = DEFAULT_PHRASING) -> ScriptedAgent:
        return ScriptedAgent("mixed", mixed_habits(_probability(p)), p=p, phrasing=phrasing)

    AGENTS.add("scripted:mixed", mixed)


_register()
