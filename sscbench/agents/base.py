"""What every agent implements, and what it is told at the start of an episode."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from sscbench.envs.calls import ToolCall
from sscbench.records.events import (
    ExternalClient,
    ParticipantSpec,
    RunEnd,
    Termination,
    VisibleEvent,
)

GREETING = "Hi! How can I help you today?"
"""τ²'s fixed opening agent message, shared by every configuration."""


@dataclass(frozen=True)
class EpisodeContext:
    """The scaffold of one episode: domain, τ² task, seed and the domain policy text.

    LLM agents see only ``policy`` and the tool schemas; scripted reference agents also
    read the task's gold plan (that is what makes them references). ``variants`` are the
    run's interface variants (e.g. ``read_back_hint``), which change the tool schemas.
    """

    domain: str
    task: Any
    seed: int
    policy: str
    variants: dict[str, Any] = field(default_factory=dict)
    tools: tuple[dict[str, Any], ...] | None = None
    """OpenAI-format tool schemas of an environment that is not a τ² domain (the native
    observation-contract suite); None: the domain's τ² tools."""
    tool_kinds: dict[str, str] | None = None
    """τ²'s kind (read, write, generic) of each tool in ``tools``; None: the domain's."""
    guidance: tuple[str, ...] = ()
    """Named instructions a mitigation added to ``policy`` (e.g. ``verify_before_write``),
    in a form the scripted reference agents can follow (docs/writing-a-mitigation.md)."""


@dataclass(frozen=True)
class AgentTurn:
    """One agent message: text for the user, or tool calls (or both)."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()


@runtime_checkable
class Agent(Protocol):
    """An agent under test."""

    spec: ParticipantSpec

    def start(self, ctx: EpisodeContext) -> None:
        """Prepare for a new episode."""
        ...

    def next_turn(self, history: Sequence[VisibleEvent]) -> AgentTurn:
        """Produce the next message given the full model-visible history so far."""
        ...


@runtime_checkable
class User(Protocol):
    """The user the agent talks to; a message containing a stop token ends the run."""

    spec: ParticipantSpec

    def start(self, ctx: EpisodeContext) -> None:
        """Prepare for a new episode."""
        ...

    def next_message(self, history: Sequence[VisibleEvent]) -> str:
        """Produce the next user message given the history."""
        ...


@dataclass(frozen=True)
class UserTurn:
    """One customer turn in a dual-control domain: words for the agent, or calls on the
    customer's own device (whose answers go back to the customer, never to the agent)."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()


@runtime_checkable
class UsesDevice(Protocol):
    """Optional capability of a user who operates their own device (telecom): the episode
    asks for :meth:`next_user_turn` instead of ``next_message`` and hands every device
    answer back through :meth:`device_result` before asking again."""

    def next_user_turn(self, history: Sequence[VisibleEvent]) -> UserTurn:
        """Words for the agent, or device calls to make first."""
        ...

    def device_result(self, call: ToolCall, content: str, error: bool) -> None:
        """What the device answered to one of the customer's calls."""
        ...


@runtime_checkable
class RecordsTruth(Protocol):
    """Optional capability of a participant that knows what it really did (the scripted
    reference agents): the episode writes ``truth`` to ``truth.jsonl``."""

    truth: list[Any]


@runtime_checkable
class RecordsProviderCalls(Protocol):
    """Optional capability of a provider-backed participant: the episode writes its
    ``provider_calls`` (one record per attempt) to ``provider_calls.jsonl``."""

    provider_calls: list[Any]


@runtime_checkable
class RunsOutside(Protocol):
    """Optional capability of an agent whose loop runs outside SSCBench (an MCP client, an
    Inspect agent): the episode connects it before writing the ledger header, which records
    the client, and tells it how the run ended, so the client gets its last answer and the
    session is closed however the run ended."""

    def connect(self, ctx: EpisodeContext, run_dir: Path) -> ExternalClient:
        """Serve the run and wait for the client; raise ClientError if none comes."""
        ...

    def finish(self, history: Sequence[VisibleEvent], end: RunEnd | None) -> None:
        """Answer the client's last action with the end of the run (``None``: the harness
        broke before the run could end) and release the session."""
        ...


@runtime_checkable
class RecordsClientEvents(Protocol):
    """Optional capability of an external agent: the episode writes its session log
    (``client_events``) to ``client.jsonl``."""

    client_events: list[Any]


class LimitReached(Exception):
    """A limit the agent's own harness imposes (an Inspect message, token, time or cost
    limit) ended the run: a result (graded, like the step limit), not a failure. The run's
    ``termination`` says which kind of end it was; the client log says which limit."""

    termination: Termination = "limit"


class TimeLimitReached(LimitReached):
    """An external agent's run outlasted its wall-clock limit (``time_limit``)."""

    termination: Termination = "time_limit"


STOP_TOKENS = ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###")
"""τ²'s user-simulator stop tokens."""
