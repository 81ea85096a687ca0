"""Offline scripted reference agents (deterministic given a seed, no model calls)."""

from sscbench.agents.registry import AGENTS
from sscbench.agents.scripted.agent import HABITS, ScriptedAgent, mixed_habits
from sscbench.agents.scripted.trust import EvidenceHabits

__all__ = ["HABITS", "EvidenceHabits", "ScriptedAgent"]


def _register() -> None:
    for variant, habits in HABITS.items():

        def make(variant: str = variant, habits: EvidenceHabits = habits) -> ScriptedAgent:
            return ScriptedAgent(variant, habits)

        AGENTS.add(f"scripted:{variant}", make)

    def mixed(p: float = 0.5) -> ScriptedAgent:
        return ScriptedAgent("mixed", mixed_habits(p), p=p)

    AGENTS.add("scripted:mixed", mixed)


_register()
