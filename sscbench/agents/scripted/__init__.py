"""Offline scripted reference agents (deterministic given a seed, no model calls).

Each variant takes ``phrasing`` (``plain``, the default, or ``varied``; see
:mod:`sscbench.agents.scripted.phrasing`); ``scripted:mixed`` also takes ``p``. An unknown
phrasing, an unknown parameter or a ``p`` outside 0..1 is a
:class:`~sscbench.errors.ConfigError` when the agent is built, which is when experiment
files and ``--agent-param`` values are checked.
"""

from collections.abc import Callable

from pydantic import Field, field_validator

from sscbench.agents.registry import AGENTS
from sscbench.agents.scripted.agent import HABITS, ScriptedAgent, mixed_habits
from sscbench.agents.scripted.phrasing import DEFAULT_PHRASING, PHRASINGS
from sscbench.agents.scripted.trust import EvidenceHabits
from sscbench.registry import Params

__all__ = ["HABITS", "PHRASINGS", "EvidenceHabits", "ScriptedAgent"]


def _fixed(variant: str, habits: EvidenceHabits) -> Callable[..., ScriptedAgent]:
    """The factory of a fixed-habit variant: ``phrasing`` is its only parameter (the
    variant and habits are closed over, so no parameter can override them)."""

    def make(phrasing: str = DEFAULT_PHRASING) -> ScriptedAgent:
        return ScriptedAgent(variant, habits, phrasing=phrasing)

    return make


class ScriptedParams(Params):
    """Parameters of every scripted agent."""

    phrasing: str = DEFAULT_PHRASING

    @field_validator("phrasing")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in PHRASINGS:
            raise ValueError(f"unknown phrasing {value!r}; choose from {', '.join(PHRASINGS)}")
        return value


class MixedParams(ScriptedParams):
    """``scripted:mixed`` also takes ``p``, each careful habit's probability — checked
    when the agent is built (so before any run): a bad value would otherwise fail
    mid-episode or be silently treated as certainty."""

    p: float = Field(default=0.5, ge=0.0, le=1.0)

    @field_validator("p", mode="before")
    @classmethod
    def _not_a_flag(cls, value: object) -> object:
        if isinstance(value, bool):  # True would pass as 1.0: certainty by accident
            raise ValueError("p must be a number from 0 to 1, not true/false")
        return value


def _register() -> None:
    for variant, habits in HABITS.items():
        AGENTS.add(
            f"scripted:{variant}", _fixed(variant, habits), params=ScriptedParams, brief=True
        )

    def mixed(p: float = 0.5, phrasing: str = DEFAULT_PHRASING) -> ScriptedAgent:
        # make_agent has checked p and phrasing against MixedParams
        return ScriptedAgent("mixed", mixed_habits(p), p=p, phrasing=phrasing)

    AGENTS.add("scripted:mixed", mixed, params=MixedParams, brief=True)


_register()

# The observation-contract behaviours wrap the gold agent defined above.
from sscbench.agents.scripted import observation  # noqa: E402,F401
