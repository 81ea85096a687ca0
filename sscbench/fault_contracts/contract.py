"""The fault contract: one typed, serialisable record per candidate case.

A contract says what is false (target entity, attribute paths, authoritative value ``v``,
injected value ``v′``), where and how the fault enters (a declarative intervention spec the
runtime executes at the choke point), how long it persists, which refutation relation
decides arrival, and which agent-visible semantics ground that relation (quoted, with
their source). Everything needed to rebuild a faulted run is in the contract, so a ledger
header that embeds it is enough to re-run the case.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sscbench.envs.clock import ClockSpec
from sscbench.envs.tool_edit import SourceEdit

CONTRACT_SCHEMA_VERSION = 1

Acquisition = Literal["co_delivered", "cross_record", "post_write_read_back"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Target(_Frozen):
    """The affected fact: entity, attribute path(s) and the state scope of the claim."""

    entity_type: str
    entity_id: str
    paths: tuple[str, ...] = Field(min_length=1)
    scope: str = Field(description="which state the false assertion is about, in words")
    logical_request: dict[str, Any] | None = Field(
        default=None, description="write faults: the request whose effect is misreported"
    )


class Edit(_Frozen):
    """Set the value at a dotted JSON path of a delivered observation."""

    path: str
    value: Any


class ObservationRewrite(_Frozen):
    """Rewrite delivered observations of ``tool`` whose arguments match ``match``.

    ``expect`` maps each edited path to the value it must hold before the edit; an
    observation that does not show those values (the state moved on) is left untouched,
    so the fault never asserts something about a different state.
    """

    kind: Literal["observation_rewrite"] = "observation_rewrite"
    tool: str
    match: dict[str, Any]
    edits: tuple[Edit, ...] = Field(min_length=1)
    expect: dict[str, Any]
    role: Literal["fault", "alignment"] = "fault"


class WriteSuppression(_Frozen):
    """Suppress writes matching the logical request (tool plus matched arguments)."""

    kind: Literal["write_suppression"] = "write_suppression"
    tool: str
    match: dict[str, Any]
    affected_fields: tuple[str, ...]


class ArtifactTTL(_Frozen):
    """Issue a time-bounded artifact (an observation contract) and enforce its window.

    Every delivered record of ``tool`` whose arguments match ``match`` carries a fresh
    artifact under ``field`` (its id, issue time, TTL, expiry and the server time, on the
    virtual clock ``clock``); a ``gate_tool`` call matching ``gate_match`` made when the
    latest artifact is outside ``[issued, issued + ttl)`` is not executed and is answered
    with the expiry response. A write made before any artifact was issued is not gated.
    """

    kind: Literal["artifact_ttl"] = "artifact_ttl"
    tool: str
    match: dict[str, Any]
    field: str = "quote"
    ttl_seconds: float = Field(gt=0)
    gate_tool: str
    gate_match: dict[str, Any]
    clock: ClockSpec = ClockSpec()


class ToolEdit(_Frozen):
    """Run writes matching the logical request with a defective copy of the tool.

    The copy is ``method`` (the tool itself unless named) with ``edits`` applied
    (:mod:`sscbench.envs.tool_edit`). Its effect on state is what the episode keeps. With
    ``reply="conforming"`` the answer delivered is the conforming tool's, so the success
    reply claims the advertised effect while ``affected_fields`` of the record are left as
    the defect leaves them (Partial Effect, Ignored Argument). With ``reply="edited"`` it is
    the defective copy's own answer: a success where the conforming tool refuses the request
    (Unenforced Precondition, Invariant Break).
    """

    kind: Literal["tool_edit"] = "tool_edit"
    tool: str
    match: dict[str, Any]
    method: str | None = None
    edits: tuple[SourceEdit, ...] = Field(min_length=1)
    affected_fields: tuple[str, ...] = Field(min_length=1)
    reply: Literal["conforming", "edited"] = "conforming"


class StaleRead(_Frozen):
    """Serve reads of one record from a cache that outlived the previous episode.

    A matching read of ``tool`` is answered with ``content``, the record as an earlier
    episode left it (τ²'s own serialisation, computed when the contract was built), until a
    successful write of ``writes`` names the record in this episode: the cache is
    invalidated on write, so later reads are fresh. Every other tool reads the fresh state.
    """

    kind: Literal["stale_read"] = "stale_read"
    tool: str
    match: dict[str, Any]
    content: str
    entity_key: str
    writes: tuple[str, ...] = Field(min_length=1)
    role: Literal["fault"] = "fault"


class ReadingRewrite(_Frozen):
    """Rewrite one line of a text reading the customer's device delivers (telecom).

    A device tool answers in text, not JSON: every delivery of ``tool`` made by
    ``requestor`` whose answer holds the line ``shows`` (the true reading) is delivered with
    that line replaced by ``reads``. An answer without the line (the state moved on: the
    customer toggled the setting) is left untouched. The reading reaches the agent only
    through the customer's words.

    ``setting`` (a boolean field of τ²'s device, e.g. ``airplane_mode``) names the setting
    the line shows: the other lines that follow from it (connection, signal, network type)
    are then delivered as the phone would show them with that setting reversed, so the one
    answer stays coherent (:mod:`sscbench.fault_contracts.device_state`).
    """

    kind: Literal["reading_rewrite"] = "reading_rewrite"
    tool: str
    shows: str
    reads: str
    setting: str | None = None
    requestor: Literal["user"] = "user"
    role: Literal["fault"] = "fault"


InterventionSpec = Annotated[
    ObservationRewrite | WriteSuppression | ArtifactTTL | ToolEdit | StaleRead | ReadingRewrite,
    Field(discriminator="kind"),
]


class Quote(_Frozen):
    """A piece of agent-visible text that grounds authority or sufficiency."""

    claim: str
    text: str
    source: str = Field(description="where the agent sees it, e.g. 'airline policy' or a tool doc")


class Refutation(_Frozen):
    """Which registered relation decides refutation, with its parameters."""

    relation: str
    acquisition: Acquisition
    params: dict[str, Any] = {}


class FaultContract(_Frozen):
    """One candidate case's fault, fully specified."""

    schema_version: int = Field(default=CONTRACT_SCHEMA_VERSION, ge=1)
    contract_id: str
    operator: str
    operator_version: str
    params: dict[str, Any] = {}
    domain: str
    task_id: str
    cluster: str = Field(description="entity cluster for sampling and intervals")
    target: Target
    authoritative_value: Any
    injected_value: Any
    control: bool = Field(
        default=False,
        description="target-value control: v′ is the value the task itself asks for, so relying "
        "on it and pursuing the user's goal coincide (kept for arrival, not for primary adoption)",
    )
    persistence: Literal["every_delivery", "first_delivery", "first_attempt", "all_attempts"]
    interventions: tuple[InterventionSpec, ...] = Field(min_length=1)
    refutation: Refutation
    semantics: tuple[Quote, ...] = ()
    variant: dict[str, Any] = {}

    def content_hash(self) -> str:
        """SHA-256 of the canonical JSON of the contract (what a case file pins)."""
        payload = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode()).hexdigest()
