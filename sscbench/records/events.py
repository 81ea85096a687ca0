"""Ledger records: the header and the model-visible events of one run.

Every event carries ``step``, its index in the model-visible history (the order in which
the model receives items, starting at 0), and ``turn``, the index of the message it belongs
to. Wall-clock time lives only in ``ts`` so that two runs with the same seed and inputs
produce identical lines once ``ts`` is dropped. Records are frozen and reject unknown
fields; ``schema_version`` in the header selects how older ledgers are read.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

SCHEMA_VERSION = 6
"""2: the header gained ``fault`` (the run's fault contract); 3: ``configuration`` (the
configuration's display id); 4: ``run_end.failure`` (a structured cause for a failed run,
written only when the run failed); 5: the header's ``clock`` and each event's ``vt`` (the
virtual clock of a run whose fault declares one), and delivered refutations — ``origin`` on
tool calls and observations the harness made, the ``system_notice`` event, the header's
``arrival`` and the ``replay_divergence`` termination; each written only when present.
Older ledgers still load, with those fields ``None``."""


def _absent(value: Any) -> bool:
    """Optional fields are left out of a line when absent (``None``), so lines without
    them keep earlier bytes; a field-level exclusion is a Python call per such field, where
    a wrap serializer was a call and a dict edit per line."""
    return value is None


Origin = Literal["harness"]
"""Who made an event that is not the agent's own: only the harness (a delivered refutation)."""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    ts: float | None = Field(
        default=None, description="wall-clock seconds; excluded from comparisons"
    )


class ParticipantSpec(BaseModel):
    """An agent or user configuration as recorded: registry name plus its parameters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    params: dict[str, Any] = {}


class ExternalClient(BaseModel):
    """The program on the other side of an external agent's session, as it described
    itself (since v6): the agent ran in its own loop and reached SSCBench's tools through
    ``transport``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    transport: Literal["stdio", "streamable-http", "inspect"]
    name: str = Field(description="the client's self-reported name (MCP clientInfo.name)")
    version: str = Field(description="the client's self-reported version")
    protocol_version: str | None = Field(
        default=None, description="the MCP protocol revision negotiated for the session"
    )


class Header(_Record):
    """Line 1 of every ledger."""

    kind: Literal["header"] = "header"
    schema_version: int = Field(default=SCHEMA_VERSION, ge=1)
    sscbench_version: str
    tau2_version: str
    run_id: str
    domain: str
    task_id: str
    case_id: str | None = None
    agent: ParticipantSpec
    user: ParticipantSpec
    seed: int
    max_steps: int
    variants: dict[str, Any] = {}
    configuration: str | None = Field(
        default=None, description="display id of the configuration (None: the agent's name)"
    )
    fault: dict[str, Any] | None = Field(
        default=None, description="the fault contract injected in this run (None: clean run)"
    )
    clock: dict[str, Any] | None = Field(
        default=None,
        exclude_if=_absent,
        description="since v5: the virtual clock's spec (cost model, seed) when the fault "
        "declares one",
    )
    client: ExternalClient | None = Field(
        default=None,
        exclude_if=_absent,
        description="since v6: the external agent's client (absent: an in-process agent)",
    )
    arrival: dict[str, Any] | None = Field(
        default=None,
        exclude_if=_absent,
        description="since v5: the arrival intervention of this run (arm, interface, replay "
        "source); absent when the run was not manipulated",
    )
    mitigation: ParticipantSpec | None = Field(
        default=None,
        exclude_if=_absent,
        description="the mitigation the agent ran behind (docs/writing-a-mitigation.md); "
        "absent when there was none",
    )


class _Visible(_Record):
    step: int = Field(ge=0)
    turn: int = Field(ge=0)
    vt: float | None = Field(
        default=None,
        exclude_if=_absent,
        description="virtual-clock seconds when the item happened (clocked runs)",
    )


class UserMessage(_Visible):
    """A message from the user (simulated or scripted) to the agent."""

    kind: Literal["user_message"] = "user_message"
    content: str


class AgentMessage(_Visible):
    """Text the agent sent to the user."""

    kind: Literal["agent_message"] = "agent_message"
    content: str


class AgentToolCall(_Visible):
    """One tool call the agent issued (several may share a turn)."""

    kind: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str
    arguments: dict[str, Any]
    origin: Origin | None = Field(
        default=None,
        exclude_if=_absent,
        description="since v5: 'harness' for a call the harness made (absent: the agent's)",
    )


class ToolObservation(_Visible):
    """The observation delivered for ``call_id``, exactly as the model received it."""

    kind: Literal["tool_observation"] = "tool_observation"
    call_id: str
    content: str
    error: bool
    origin: Origin | None = Field(
        default=None,
        exclude_if=_absent,
        description="since v5: 'harness' when it answers a harness call",
    )


class SystemNotice(_Visible):
    """A notice the harness put in the agent's context (since v5): a delivered refutation.

    ``content`` is exactly what the model received; ``tool``, ``arguments`` and
    ``observation`` are the read it reports (run by the harness through the fault choke
    point), so refutation relations can treat it as a delivered observation. Never an
    agent action, never a use.
    """

    kind: Literal["system_notice"] = "system_notice"
    content: str
    tool: str
    arguments: dict[str, Any]
    observation: str
    error: bool = False


Termination = Literal[
    "user_stop",
    "agent_stop",
    "max_steps",
    "harness_error",
    "empty_reply",
    "replay_divergence",  # since v5: a replayed prefix differed from its recording
    "time_limit",  # since v6: an external agent's run outlasted its wall-clock limit
    "limit",  # since v6: a limit of the agent's own harness (Inspect's) ended the run
    # τ²'s other reasons, for runs imported from τ² results (`sscbench import tau2`):
    "too_many_errors",
    "agent_error",
    "user_error",
    "judge_stop",
]


FailureKind = Literal["harness", "provider", "config", "client"]


class Failure(BaseModel):
    """Why a run failed, as data rather than traceback text.

    ``provider``: the model provider gave no usable reply (retries exhausted, the run's
    wall-clock limit spent); ``config``: the run could not start as configured (a missing
    key, a rejected parameter); ``client``: an external agent's client broke the session (it
never connected, went silent, disconnected or its program failed; since v6); ``harness``: a
bug in SSCBench or a participant. Every failed
    run is run again by the next invocation of the same command; ``retryable`` says whether
    that can succeed without changing anything (``config`` needs a fix first).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: FailureKind
    retryable: bool
    message: str = Field(description="one line: the exception's class and message")


class RunEnd(_Record):
    """Last line of a finished run: why it ended and how it was graded on live state."""

    kind: Literal["run_end"] = "run_end"
    termination: Termination
    steps: int
    success: bool | None
    db_match: bool | None
    communicate_ok: bool | None
    final_state_hash: str | None
    error: str | None = None
    failure: Failure | None = Field(default=None, exclude_if=_absent)
    """Set exactly when ``termination`` is ``harness_error`` (schema 4 on); left out
    otherwise, so successful runs keep the exact bytes earlier versions wrote."""


VisibleEvent = UserMessage | AgentMessage | AgentToolCall | ToolObservation | SystemNotice


def by_agent(event: VisibleEvent) -> bool:
    """Whether ``event`` is the agent's own action: a message, or a call it made (a call
    the harness made to deliver a refutation is not; it can never be a use)."""
    return isinstance(event, AgentMessage) or (
        isinstance(event, AgentToolCall) and event.origin is None
    )


LedgerRecord = Annotated[
    Header | UserMessage | AgentMessage | AgentToolCall | ToolObservation | SystemNotice | RunEnd,
    Field(discriminator="kind"),
]
RECORD_ADAPTER: TypeAdapter[LedgerRecord] = TypeAdapter(LedgerRecord)
