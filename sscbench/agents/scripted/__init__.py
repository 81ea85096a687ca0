"""Offline scripted reference agents (deterministic given a seed, no model calls)."""

from sscbench.agents.registry import AGENTS
from sscbench.agents.scripted.agent import HABITS, EvidenceHabits, ScriptedAgent

__all__ = ["HABITS", "EvidenceHabits", "ScriptedAgent"]


def _register() -> None:
    for variant, habits in HABITS.items():

        def make(variant: str = variant, habits: EvidenceHabits = habits) -> ScriptedAgent:
            return ScriptedAgent(variant, habits)

        AGENTS.add(f"scripted:{variant}", make)

    def mixed(p: float = 0.5) -> ScriptedAgent:
        habits = EvidenceHabits(pre_use_lookup=p, read_back=p, prefer_authoritative=p)
        return ScriptedAgent("mixed", habits, p=p)

    AGENTS.add("scripted:mixed", mixed)


_register()
