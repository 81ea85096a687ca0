"""Typed records of the tool-contract audit: contracts (read from YAML) and results.

A contract turns one mutating τ² tool's advertised surface into clauses that a program
can evaluate over ``(pre, post, args, result)``. Every clause carries where it comes from
(a verbatim quote at a file and line of the *installed* τ² package) or says it is the
author's own reading (``inferred``); the provenance tier decides whether a violation can
be a headline finding, never the author's guess at intent.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

CONTRACT_SCHEMA_VERSION = 1
AUDIT_SCHEMA_VERSION = 1

Surface = Literal["docstring", "policy", "tool_return", "signature", "comment", "log"]
Tier = Literal["agent_visible", "maintainer", "author"]
Verdict = Literal["CONFORMS", "VIOLATES", "UNTESTABLE"]
DefectClass = Literal[
    "Phantom Effect",
    "Unenforced Precondition",
    "Ignored Argument",
    "Partial Effect",
    "Invariant Break",
    "Reset Leak",
]
ClauseKind = Literal["pre", "eff", "frame", "arg", "inv", "reset"]

SURFACE_TIER: dict[str, Tier] = {
    "docstring": "agent_visible",
    "policy": "agent_visible",
    "tool_return": "agent_visible",
    "signature": "agent_visible",
    "comment": "maintainer",
    "log": "maintainer",
}
"""What the agent can see decides the tier: τ² sends docstrings, signatures and the policy
to the model and returns tool results to it; comments and log lines never reach it."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Provenance(_Strict):
    """A verbatim quote at ``file:line`` of the installed τ² package (path under site-packages)."""

    surface: Surface
    file: str
    line: int = Field(ge=1)
    quote: str = Field(min_length=1)

    @property
    def tier(self) -> Tier:
        """The provenance tier this surface gives."""
        return SURFACE_TIER[self.surface]


class Clause(_Strict):
    """One checkable statement about the tool.

    ``fields`` names the state paths the clause is about (``collection.*.attribute``);
    score-at-risk intersects them with what graders read. ``deferred`` effects (a refund
    "in 5-7 business days", a follow-up email) have no observable state and stay
    UNTESTABLE in every denominator.
    """

    id: str
    text: str
    predicate: str
    fields: tuple[str, ...] = ()
    provenance: tuple[Provenance, ...] = ()
    inferred: bool = False
    deferred: bool = False

    @model_validator(mode="after")
    def _sourced(self) -> Clause:
        if not self.provenance and not self.inferred:
            raise ValueError(f"clause {self.id} needs a provenance quote or inferred: true")
        if self.provenance and self.inferred:
            raise ValueError(f"clause {self.id} has a quote and inferred: true; choose one")
        return self

    @property
    def kind(self) -> ClauseKind:
        """The clause family, from its id prefix (``pre.``, ``eff.``, ...)."""
        prefix = self.id.split(".", 1)[0]
        return prefix  # type: ignore[return-value]

    @property
    def tier(self) -> Tier:
        """The most visible tier among its sources; ``author`` when inferred."""
        tiers = {p.tier for p in self.provenance}
        for tier in ("agent_visible", "maintainer"):
            if tier in tiers:
                return tier
        return "author"


class Argument(_Strict):
    """An argument of the tool; ``effective`` ones must change state when they change."""

    effective: bool = False
    falsy: str | None = Field(
        default=None, description="expression of the argument's falsy value for the falsy probe"
    )


class SuccessSignal(_Strict):
    """How success is reported; ``biconditional`` (opt-in, justified) enables Phantom Effect."""

    biconditional: bool
    justification: str
    provenance: tuple[Provenance, ...] = ()


class Exclusion(_Strict):
    """An advertised non-check or simplification: benign, so no clause is written for it."""

    text: str
    provenance: tuple[Provenance, ...] = Field(min_length=1)


ProbeKind = Literal["happy", "violate", "vary", "stress", "falsy"]


class Probe(_Strict):
    """A call built from the pre-state: ``args`` and each ``setup`` entry are expressions.

    ``violate`` names the precondition it breaks (the others must hold); ``vary`` gives
    alternative values for one effective argument of the happy call; ``stress`` is a legal
    call aimed at an invariant; ``falsy`` sets every argument with a falsy value to it.
    """

    id: str
    kind: ProbeKind
    args: str | None = None
    setup: tuple[tuple[str, str], ...] = ()
    clause: str | None = None
    arg: str | None = None
    values: tuple[str, ...] = ()
    adjust: str | None = Field(
        default=None,
        description="expression over pre and args giving arguments that must follow the "
        "probe's (a payment that adds up), merged into every argument set",
    )


class Contract(_Strict):
    """One mutating tool's executable contract."""

    schema_version: int = CONTRACT_SCHEMA_VERSION
    domain: str
    tool: str
    source: str
    summary: str
    args: dict[str, Argument]
    success_signal: SuccessSignal
    preconditions: tuple[Clause, ...] = ()
    effects: tuple[Clause, ...] = ()
    frame: tuple[Clause, ...] = ()
    invariants: tuple[Clause, ...] = ()
    exclusions: tuple[Exclusion, ...] = ()
    notes: tuple[str, ...] = ()
    probes: tuple[Probe, ...] = Field(min_length=1)

    def clauses(self) -> tuple[Clause, ...]:
        """Every written clause, in file order by family."""
        return self.preconditions + self.effects + self.frame + self.invariants

    def quotes(self) -> list[Provenance]:
        """Every provenance quote of the contract (clauses, signal, exclusions)."""
        out = [p for c in self.clauses() for p in c.provenance]
        out += list(self.success_signal.provenance)
        out += [p for e in self.exclusions for p in e.provenance]
        return out


class Witness(_Strict):
    """What shows a violation: the probe's call, the state diff and the result."""

    probe: str
    setup: tuple[tuple[str, str], ...] = ()
    args: str
    result: str
    error: bool
    diff: tuple[str, ...]


class ClauseResult(_Strict):
    """The verdict on one clause (or ``arg.<name>`` / ``reset``) of one tool."""

    domain: str
    tool: str
    clause: str
    kind: ClauseKind
    tier: Tier
    verdict: Verdict
    defect_class: DefectClass | None = None
    reason: str | None = None
    witness: Witness | None = None
    fields: tuple[str, ...] = ()


class ToolResult(_Strict):
    """A tool's verdict: VIOLATES if any clause is, UNTESTABLE if none could be scored."""

    domain: str
    tool: str
    verdict: Verdict
    clauses: tuple[ClauseResult, ...]
    probes_run: int
