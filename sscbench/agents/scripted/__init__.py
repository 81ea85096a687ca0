"""Offline scripted reference agents (deterministic given a seed, no model calls).

Each variant takes ``phrasing`` (``plain``, the default, or ``varied``; see
:mod:`sscbench.agents.scripted.phrasing`); ``scripted:mixed`` also takes ``p``. An unknown
phrasing is a :class:`~sscbench.errors.ConfigError` when the agent is built, which is
when experiment files and ``--agent-param`` values are checked.
"""

from sscbench.agents.registry import AGENTS
from sscbench.agents.scripted.agent import HABITS, ScriptedAgent, mixed_habits
from sscbench.agents.scripted.phrasing import DEFAULT_PHRASING, PHRASINGS
from sscbench.agents.scripted.trust import EvidenceHabits

__all__ = ["HABITS", "PHRASINGS", "EvidenceHabits", "ScriptedAgent"]


def _register() -> None:
    for variant, habits in HABITS.items():

        def make(
            phrasing: str = DEFAULT_PHRASING,
            variant: str = variant,
            habits: EvidenceHabits = habits,
        ) -> ScriptedAgent:
            return ScriptedAgent(variant, habits, phrasing=phrasing)

        AGENTS.add(f"scripted:{variant}", make)

    def mixed(p: float = 0.5, phrasing: str = DEFAULT_PHRASING) -> ScriptedAgent:
        return ScriptedAgent("mixed", mixed_habits(p), p=p, phrasing=phrasing)

    AGENTS.add("scripted:mixed", mixed)


_register()
