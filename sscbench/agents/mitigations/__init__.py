"""Mitigations: wrappers around an agent or its tools that a configuration names.

A mitigation is a defence under test, a configuration factor like the agent's model: the
same agent is run on the same cases and seeds with and without it, and the report compares
adoption, task success and cost between the two (docs/writing-a-mitigation.md). It may

* change what the agent is told at the start of an episode (:meth:`Mitigation.prepare`):
  a prompt addendum appended to the policy, and a *guidance* name in
  :attr:`~sscbench.agents.base.EpisodeContext.guidance` — the machine-readable form of the
  same instruction, which the scripted reference agents follow (an LLM reads the text);
* act between the agent and its tools (:meth:`Mitigation.intercept`): make a call of its
  own before the agent is asked again, e.g. read back what a write changed. Its calls and
  their observations are in the model-visible history and the ledger like the agent's
  own, because the mitigated agent is the system under test.

Mitigations register in :data:`MITIGATIONS`, extendable through the ``sscbench.mitigations``
entry-point group (the two reference mitigations are registered that way too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol, runtime_checkable

from sscbench.agents.base import Agent, AgentTurn, EpisodeContext
from sscbench.records.events import ParticipantSpec, VisibleEvent
from sscbench.registry import Registry

__all__ = [
    "MITIGATIONS",
    "MitigatedAgent",
    "Mitigation",
    "make_mitigation",
    "mitigate",
    "mitigation_names",
]


@runtime_checkable
class Mitigation(Protocol):
    """A defence wrapped around one agent, one instance per agent."""

    spec: ParticipantSpec

    def prepare(self, ctx: EpisodeContext) -> EpisodeContext:
        """What the agent is told at the start of an episode (default: unchanged)."""
        ...

    def intercept(self, history: Sequence[VisibleEvent]) -> AgentTurn | None:
        """A turn of the mitigation's own before the agent is asked (None: ask the agent)."""
        ...


class BaseMitigation:
    """No-op defaults; a mitigation overrides what it changes."""

    name = "base"

    def __init__(self) -> None:
        self.spec = ParticipantSpec(name=self.name)

    def prepare(self, ctx: EpisodeContext) -> EpisodeContext:
        """Unchanged."""
        return ctx

    def intercept(self, history: Sequence[VisibleEvent]) -> AgentTurn | None:
        """Never intervenes."""
        return None


def with_addendum(ctx: EpisodeContext, text: str, guidance: str) -> EpisodeContext:
    """``ctx`` with ``text`` appended to the policy and ``guidance`` named."""
    return replace(
        ctx,
        policy=f"{ctx.policy.rstrip()}\n\n{text}",
        guidance=(*ctx.guidance, guidance),
    )


MITIGATIONS: Registry[Callable[..., Mitigation]] = Registry(
    "mitigation", group="sscbench.mitigations"
)


def mitigation_names() -> list[str]:
    """Every registered mitigation (the installed plugins included)."""
    return MITIGATIONS.names()


def make_mitigation(name: str, **params: Any) -> Mitigation:
    """Build a registered mitigation, its parameters checked by its model."""
    return MITIGATIONS.get(name)(**MITIGATIONS.validate(name, params))


class MitigatedAgent:
    """An agent behind a mitigation. Everything else the episode asks of the agent (its
    truth, its provider calls, an external agent's session) is the inner agent's."""

    def __init__(self, inner: Agent, mitigation: Mitigation) -> None:
        self.inner = inner
        self.mitigation = mitigation
        self.spec = inner.spec

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes not found here: the optional capabilities.
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def start(self, ctx: EpisodeContext) -> None:
        """Start the inner agent on the context the mitigation prepares."""
        self.inner.start(self.mitigation.prepare(ctx))

    def next_turn(self, history: Sequence[VisibleEvent]) -> AgentTurn:
        """The mitigation's own turn when it has one, else the inner agent's."""
        turn = self.mitigation.intercept(history)
        return turn if turn is not None else self.inner.next_turn(history)


def mitigate(agent: Agent, name: str | None, params: dict[str, Any] | None = None) -> Agent:
    """``agent`` behind the named mitigation (``None``: the agent itself)."""
    if name is None:
        return agent
    return MitigatedAgent(agent, make_mitigation(name, **(params or {})))
