"""The virtual clock: server time owned by the harness, advanced by turns and tool calls.

τ²'s own time is frozen (its tools answer as of 2024-05-15 15:00 EST) and wall-clock
latency says nothing about what an agent *did*, so observation contracts (artifacts valid
for τ seconds) need a clock of their own. The harness owns it; it moves only when a
model-visible item is emitted, by the amount a declared :class:`CostModel` charges for
that item (an agent message, a user message, a tool call by its τ² kind). A tool call's
observation carries the time at which the server answered: the call's time plus its cost.

Times are a pure function of the visible history and the :class:`ClockSpec` (optional
jitter is drawn from a generator seeded by the spec's seed and the step), so the clock is
deterministic under a seed and a relation can recompute any event's time from a ledger
alone; the ledger also records each event's time (``vt``) and the spec in its header.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

from sscbench.records.events import AgentMessage, AgentToolCall, UserMessage, VisibleEvent

EPOCH = "2024-05-15T15:00:00"
"""Virtual time 0: τ²'s frozen "now" in both airline and retail."""


class CostModel(BaseModel):
    """Virtual seconds charged per model-visible item (never wall time)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent_message: float = Field(default=20.0, ge=0)
    user_message: float = Field(default=30.0, ge=0)
    tool_call: dict[str, float] = Field(
        default_factory=lambda: {"read": 5.0, "write": 10.0, "generic": 5.0, "think": 0.0},
        description="seconds per tool call by τ² tool kind; an unknown kind costs 'read'",
    )
    jitter: float = Field(
        default=0.0, ge=0, lt=1, description="each cost is scaled by 1 + U(-jitter, jitter)"
    )


class ClockSpec(BaseModel):
    """A run's clock: its cost model and the seed of its jitter."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cost: CostModel = CostModel()
    seed: int = 0
    epoch: str = EPOCH

    def describe(self) -> str:
        """The cost model in words, as an artifact's envelope shows it to the agent."""
        c = self.cost
        calls = ", ".join(f"{k} {v:g} s" for k, v in sorted(c.tool_call.items()))
        return (
            f"server time starts at {self.epoch} and advances {c.agent_message:g} s per agent "
            f"message, {c.user_message:g} s per user message and per tool call ({calls})"
        )


def iso(spec: ClockSpec, seconds: float) -> str:
    """Virtual seconds as an ISO timestamp after the spec's epoch."""
    return (datetime.fromisoformat(spec.epoch) + timedelta(seconds=seconds)).isoformat()


def _cost(spec: ClockSpec, event: VisibleEvent, kinds: Mapping[str, str]) -> float:
    c = spec.cost
    if isinstance(event, AgentMessage):
        base = c.agent_message
    elif isinstance(event, UserMessage):
        base = c.user_message
    elif isinstance(event, AgentToolCall):
        kind = kinds.get(event.name, "read")
        base = c.tool_call.get(kind, c.tool_call.get("read", 0.0))
    else:
        return 0.0  # an observation is the answer's arrival: the call's cost covered it
    if c.jitter and base:
        base *= 1 + random.Random(f"{spec.seed}:{event.step}").uniform(-c.jitter, c.jitter)
    return base


class VirtualClock:
    """The running clock of one episode (see the module docstring)."""

    def __init__(self, spec: ClockSpec, kinds: Mapping[str, str]) -> None:
        self.spec = spec
        self.kinds = dict(kinds)
        self.now = 0.0

    def observe(self, event: VisibleEvent) -> float:
        """Charge ``event`` and return its time: when it happened (before its cost)."""
        at = self.now
        self.now = round(at + _cost(self.spec, event, self.kinds), 6)
        return at


def event_times(
    events: Sequence[VisibleEvent], spec: ClockSpec, kinds: Mapping[str, str]
) -> list[float]:
    """Each event's virtual time, recomputed from the history alone (equals ``vt``)."""
    clock = VirtualClock(spec, kinds)
    return [clock.observe(e) for e in events]


def in_window(t_issue: float, ttl: float, t_use: float) -> bool:
    """Is ``t_use`` inside the artifact's validity window ``[t_issue, t_issue + ttl)``?

    Half-open on purpose: at exactly ``t_issue + ttl`` the artifact has lived τ seconds and
    is expired. ContractBench's definition and its reference implementation
    (``now < expires_at``) are strict; only one figure draws the end as inclusive. The
    half-open form also makes consecutive windows of a re-fetched artifact tile time without
    overlap, so no instant has two valid artifacts by accident.
    """
    return t_issue <= t_use < t_issue + ttl
