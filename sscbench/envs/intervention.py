"""The intervention hook: how a fault enters an episode, and the hidden log it leaves.

An intervention sees every agent tool call at the single choke point
(:class:`sscbench.envs.environment.EpisodeEnvironment`). Before the tool runs it may ask
for a write to be *suppressed* (the tool validates and answers normally, its effect on
state is undone) or *edited* (the conforming tool's answer is delivered, a defective copy
of the tool makes the effect on state). After the tool runs it may *rewrite* the delivered
observation. All are recorded in the intervention log, which is kept apart from the
model-visible ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from sscbench.envs.calls import Observation, ToolCall
from sscbench.records.versioning import VersionedRecord

if TYPE_CHECKING:
    from sscbench.envs.clock import ClockSpec
    from sscbench.envs.state import EpisodeState


class WriteDecision(Enum):
    """What to do with a write call before it runs."""

    PROCEED = "proceed"
    SUPPRESS = "suppress"
    EDIT = "edit"


@dataclass(frozen=True)
class CallContext:
    """What an intervention may know about a call: its place in the run and the state.

    ``step`` is the model-visible step index the observation will be delivered at.
    ``state`` is the episode's live state (read it; never mutate it). ``now`` is the
    virtual-clock time at which the server answers the call (``None``: an unclocked run).
    """

    domain: str
    tool_kind: str | None
    step: int
    call_index: int
    state: EpisodeState
    now: float | None = None
    requestor: Literal["assistant", "user"] = "assistant"
    """Who made the call: the agent, or (in a dual-control domain) the customer on their
    device, whose reading reaches the agent only through the customer's words."""


@runtime_checkable
class Intervention(Protocol):
    """A fault's runtime behaviour at the choke point."""

    def decide_write(self, call: ToolCall, ctx: CallContext) -> WriteDecision:
        """Called before a write tool runs; return SUPPRESS to undo its effect on state."""
        ...

    def rewrite(
        self, call: ToolCall, observation: Observation, ctx: CallContext
    ) -> Observation | None:
        """Called after every tool call; return a replacement observation or ``None``."""
        ...


@runtime_checkable
class Annotates(Protocol):
    """Optional capability: add detail (its contract id, which rewrite applied) to the
    hidden log entry the choke point writes for a call."""

    def annotate(self, call: ToolCall) -> dict[str, Any]:
        """Detail for ``call``'s log entry."""
        ...


@runtime_checkable
class HasClock(Protocol):
    """Optional capability of an intervention whose fault runs on the virtual clock: the
    environment then owns a clock with this spec (``None``: no clock)."""

    @property
    def clock_spec(self) -> ClockSpec | None:
        """The clock the run needs."""


@runtime_checkable
class EditsTools(Protocol):
    """Optional capability of an intervention that answers EDIT: the defective copy of the
    toolkit (a subclass of the domain's toolkit class) that runs the call's effect."""

    def edited_toolkit(self, call: ToolCall, base: type[Any]) -> type[Any]:
        """The toolkit class whose ``call.name`` has the contract's defect."""
        ...

    def edited_reply(self, call: ToolCall) -> bool:
        """Deliver the defective copy's own answer (True) or the conforming tool's (False)."""
        ...


@runtime_checkable
class HasHiddenRecords(Protocol):
    """Optional capability of an intervention that keeps records of its own for the hidden
    log (e.g. the fault deliveries that confirm a run was triggered)."""

    def hidden_records(self) -> list[BaseModel]:
        """Records to append to ``hidden.jsonl`` after the episode."""
        ...


class InterventionRecord(VersionedRecord):
    """One entry of the hidden intervention log (never shown to the model)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["observation_rewritten", "write_suppressed", "tool_edited"]
    step: int
    call_index: int
    call_id: str
    tool: str
    original_sha256: str
    delivered_sha256: str
    state_hash_before: str | None = None
    state_hash_after: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)
