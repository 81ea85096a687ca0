"""``external``: an agent that runs in its own loop and reaches the run through a front end.

The agent under test is a program SSCBench did not write — a LangGraph graph, an OpenAI
Agents SDK agent, an Inspect solver, a loop of the researcher's own — that talks to the
injected environment over MCP (or as Inspect tools). To SSCBench's episode loop it is an
ordinary :class:`~sscbench.agents.base.Agent`: each ``next_turn`` answers the client's last
action from the events the loop just recorded and returns the client's next action (see
:mod:`~sscbench.agents.external.bridge`). So every tool call goes through the one fault
choke point, every event lands in the usual ledger, and reconstruction, reports and review
read served runs exactly like in-process ones.

Where the client comes from is the front end's business: a program launched per run with
the run's address in ``SSCBENCH_MCP_URL`` (``command``), any client that connects to the
waiting endpoint (no ``command``), the process's own stdin/stdout (``transport = "stdio"``,
``sscbench serve``), or an Inspect task (which hands its own front end in).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from sscbench.agents.base import AgentTurn, EpisodeContext, LimitReached
from sscbench.agents.external.bridge import Action, Bridge, Reply
from sscbench.agents.providers.agent import unique_call_ids
from sscbench.envs.calls import ToolCall
from sscbench.errors import ClientError, HarnessError
from sscbench.llm.errors import EmptyReply
from sscbench.records.client import ClientEvent, ClientEventKind
from sscbench.records.events import (
    AgentToolCall,
    ExternalClient,
    ParticipantSpec,
    RunEnd,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)
from sscbench.records.ledger import redact_secrets

ENDINGS = {
    "user_stop": "the customer ended the conversation",
    "agent_stop": "the agent ended the conversation",
    "max_steps": "the run reached its step limit",
    "time_limit": "the run reached its time limit",
    "empty_reply": "the agent sent an empty reply",
    "harness_error": "the run failed on the server",
    "replay_divergence": "the run failed on the server",
}
"""What the client is told when the run ends, by termination."""

END = "end_conversation"
"""The tool that ends the conversation (its action's text, so the log can tell it from a
client that left)."""


class ExternalParams(BaseModel):
    """Parameters of the ``external`` agent (``--agent-param KEY=VALUE``, or a configuration's
    ``params`` table)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    command: str | None = Field(
        default=None,
        description="program to launch for each run (split like a shell command line); it "
        "finds the run's MCP endpoint in SSCBENCH_MCP_URL. Without it, the run waits for a "
        "client to connect to the server's /mcp endpoint",
    )
    transport: Literal["streamable-http", "stdio"] = Field(
        default="streamable-http",
        description="streamable-http on 127.0.0.1, or stdio: this process's own stdin and "
        "stdout (sscbench serve --transport stdio; one run per process)",
    )
    host: str = Field(default="127.0.0.1", description="address the HTTP server listens on")
    port: int = Field(default=0, ge=0, le=65535, description="its port (0: any free port)")
    cwd: str | None = Field(default=None, description="working directory of the program")
    connect_timeout: float | None = Field(
        default=None,
        gt=0,
        description="seconds a run waits for its client to connect (default: 120 for a "
        "launched program, no limit when waiting for clients)",
    )
    idle_timeout: float = Field(
        default=600.0, gt=0, description="seconds of client silence that fail the run"
    )
    time_limit: float | None = Field(
        default=None, gt=0, description="wall-clock seconds a run may last (ends as time_limit)"
    )
    grace: float = Field(
        default=10.0, ge=0, description="seconds the client has to leave after the run ends"
    )
    max_message_bytes: int = Field(
        default=1 << 20, ge=1024, description="largest request body the server accepts"
    )


OPERATIONAL = frozenset(
    {"transport", "host", "port", "connect_timeout", "idle_timeout", "grace", "max_message_bytes"}
)
"""Parameters that say where and how patiently a run is served, not which agent it is: left
out of the configuration's hash (changing the port does not orphan finished runs)."""

UNRECORDED = frozenset({"host", "port"})
"""Parameters a ledger header does not keep (they name this session's socket)."""


def behavioural_params(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters that identify the agent under test (the program and its time limit)."""
    return {k: v for k, v in params.items() if k not in OPERATIONAL}


class FrontEnd(Protocol):
    """Where the external agent's client reaches a run's :class:`Bridge`."""

    def open(self, bridge: Bridge, ctx: EpisodeContext, run_dir: Path, log: ClientLog) -> None:
        """Start serving the run (and launch the client, if it is launched)."""
        ...

    def exited(self) -> int | None:
        """The launched program's exit status once it ended (None: running, or none)."""
        ...

    def close(self, bridge: Bridge, grace: float) -> None:
        """Stop serving the run: give the client ``grace`` seconds to leave, then stop it."""
        ...


class ClientLog:
    """The session log the run writes to ``client.jsonl`` (thread-safe appends)."""

    def __init__(self) -> None:
        self.events: list[ClientEvent] = []

    def add(self, event: ClientEventKind, **detail: Any) -> None:
        """Record one event now; text is redacted of every registered secret."""
        clean = {k: redact_secrets(v) if isinstance(v, str) else v for k, v in detail.items()}
        self.events.append(ClientEvent(ts=time.time(), event=event, detail=clean))


def _default_front_end(params: ExternalParams) -> FrontEnd:
    if params.transport == "stdio":
        from sscbench.agents.external.stdio import StdioFrontEnd

        return StdioFrontEnd(params)
    from sscbench.agents.external.hub import HttpFrontEnd

    return HttpFrontEnd(params)


class ExternalAgent:
    """The ``external`` agent (module docstring). One instance runs one episode at a time."""

    def __init__(
        self,
        params: ExternalParams,
        front_end: FrontEnd | None = None,
        bridge: Bridge | None = None,
    ) -> None:
        """``front_end``: where the client comes from (default: by ``params``); ``bridge``:
        the channel of the first run, for a front end that holds it before the run starts
        (an Inspect sample); each later run opens a new one."""
        self.params = params
        self._first_bridge = bridge
        recorded = {
            k: v for k, v in params.model_dump(exclude_defaults=True).items() if k not in UNRECORDED
        }
        if "command" in recorded:
            recorded["command"] = redact_secrets(recorded["command"])
        self.spec = ParticipantSpec(name="external", params=recorded)
        self.client_events: list[ClientEvent] = []
        self._front_end = front_end
        self._front: FrontEnd | None = None
        self._bridge: Bridge | None = None
        self._log = ClientLog()
        self._last: Action | None = None
        self._seen = 0
        self._calls = 0
        self._deadline: float | None = None

    # -- RunsOutside ----------------------------------------------------------------------
    def connect(self, ctx: EpisodeContext, run_dir: Path) -> ExternalClient:
        """Serve the run, launch or await the client, return it once it has initialised."""
        self._bridge, self._first_bridge = self._first_bridge or Bridge(), None
        self._log = ClientLog()
        self.client_events = self._log.events
        self._last, self._seen, self._calls = None, 0, 0
        front = self._front_end or _default_front_end(self.params)
        self._front = front
        front.open(self._bridge, ctx, run_dir, self._log)
        timeout = self.params.connect_timeout
        if timeout is None and self.params.command is not None:
            timeout = 120.0
        limit = None if timeout is None else time.monotonic() + timeout
        while not self._bridge.wait_attached(0.1):
            status = front.exited()
            if status is not None:
                raise ClientError(
                    f"the agent program exited with status {status} before connecting "
                    "(its output is in agent.log)"
                )
            if limit is not None and time.monotonic() >= limit:
                raise ClientError(f"no client connected within {timeout:g} s")
        client = self._bridge.client
        assert client is not None
        if self.params.time_limit is not None:
            self._deadline = time.monotonic() + self.params.time_limit
        return client

    def finish(self, history: Sequence[VisibleEvent], end: RunEnd | None) -> None:
        """Answer the pending action with how the run ended; close the session."""
        if self._bridge is None or self._front is None:
            return
        reason = "harness_error" if end is None else end.termination
        self._bridge.close(reason, self._final_reply(history[self._seen :], reason))
        try:
            self._front.close(self._bridge, self.params.grace)
        finally:
            self._bridge = None
            self._front = None

    # -- Agent ----------------------------------------------------------------------------
    def start(self, ctx: EpisodeContext) -> None:
        """Nothing to prepare: :meth:`connect` opened the session."""
        if self._bridge is None:
            raise HarnessError("external agent: start before connect")

    def next_turn(self, history: Sequence[VisibleEvent]) -> AgentTurn:
        """Answer the client's last action from what the loop recorded; wait for its next."""
        bridge = self._bridge
        if bridge is None:
            raise HarnessError("external agent: next_turn before connect")
        bridge.open(history)
        if self._last is not None:
            bridge.answer(self._reply(self._last, history[self._seen :]))
        self._seen = len(history)
        action = bridge.next_action(self.params.idle_timeout, self._deadline)
        self._last = action
        if action.kind == "say":
            return AgentTurn(text=action.text)
        if action.kind == "call":
            call_id = f"call_{self._calls}"
            self._calls += 1
            return AgentTurn(
                tool_calls=(ToolCall(id=call_id, name=action.name, arguments=action.arguments),)
            )
        if action.kind == "turn":  # the model's own ids, made unique as for provider agents
            taken = {e.call_id for e in history if isinstance(e, AgentToolCall)}
            ids = unique_call_ids([c.id for c in action.calls], taken)
            calls = tuple(
                c.model_copy(update={"id": i}) for c, i in zip(action.calls, ids, strict=True)
            )
            return AgentTurn(text=action.text or None, tool_calls=calls)
        if action.kind == "empty":
            raise EmptyReply("the external agent's model replied with nothing")
        if action.kind == "limit":
            self._log.add("limit", limit=action.text)
            raise LimitReached(action.text)
        if action.text == END:  # a departure was logged where it was seen
            self._log.add("closed", how=END)
        return AgentTurn()  # the agent ended the conversation: agent_stop

    # -- replies --------------------------------------------------------------------------
    @staticmethod
    def _reply(action: Action, new: Sequence[VisibleEvent]) -> Reply:
        """The answer to ``action`` among the events the loop recorded for it."""
        observed = [e for e in new if isinstance(e, ToolObservation)]
        if action.kind == "call":
            if not observed:
                raise HarnessError("external agent: a tool call was answered with no observation")
            return Reply(content=observed[-1].content, error=observed[-1].error)
        if action.kind == "turn" and action.calls:
            if len(observed) != len(action.calls):
                raise HarnessError("external agent: a turn's calls were not all answered")
            return Reply(
                content=observed[-1].content,
                error=observed[-1].error,
                observations=tuple((e.content, e.error) for e in observed),
            )
        said = next((e for e in reversed(new) if isinstance(e, UserMessage)), None)
        if said is None:
            raise HarnessError("external agent: a message got no reply from the user")
        return Reply(content=said.content)

    def _final_reply(self, new: Sequence[VisibleEvent], reason: str) -> Reply | None:
        """The last action's answer at the end of the run: the user's closing message when
        the user ended it, otherwise a notice of how it ended."""
        if self._last is None:
            return None
        ending = ENDINGS.get(reason, reason)
        if reason == "user_stop" and self._last.kind in ("say", "turn"):
            said = next((e for e in reversed(new) if isinstance(e, UserMessage)), None)
            if said is not None:
                return Reply(content=said.content, ended=True, reason=reason)
        return Reply(
            content=f"The conversation has ended: {ending}.",
            error=reason not in ("user_stop", "agent_stop"),
            ended=True,
            reason=reason,
        )


def make_external_agent(**params: Any) -> ExternalAgent:
    """The registry's factory: parameters already checked by :class:`ExternalParams`."""
    return ExternalAgent(ExternalParams.model_validate(params))
