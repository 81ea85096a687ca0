"""Run one episode: greeting, user and agent turns, tool calls through the choke point.

The loop mirrors τ²'s orchestrator protocol (fixed agent greeting, then the user speaks,
then the agent answers with text or tool calls until it addresses the user again) without
importing it, because τ²'s orchestrator pulls in litellm (2.4 s) and cannot host offline
agents. Each model-visible item is appended to the ledger the moment it exists.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel

from sscbench.agents.base import (
    GREETING,
    STOP_TOKENS,
    Agent,
    EpisodeContext,
    LimitReached,
    RunsOutside,
    User,
    UsesDevice,
)
from sscbench.agents.mitigations import MitigatedAgent
from sscbench.envs import EpisodeEnvironment, Intervention, load_domain
from sscbench.envs.grading import grade
from sscbench.envs.tau2_runtime import tau2_version
from sscbench.errors import ClientError, ConfigError, HarnessError, ServiceError
from sscbench.llm.errors import EmptyReply
from sscbench.records.client import CLIENT_FILE
from sscbench.records.device import DEVICE_FILE, DeviceCall
from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    Failure,
    Header,
    RunEnd,
    Termination,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)
from sscbench.records.hidden import StateCheck
from sscbench.records.ledger import JsonlWriter, redact_secrets
from sscbench.runs.arrival import ArrivalController, ArrivalPlan, ReplayDivergence

LEDGER_FILE = "ledger.jsonl"
HIDDEN_FILE = "hidden.jsonl"
TRUTH_FILE = "truth.jsonl"
PROVIDER_CALLS_FILE = "provider_calls.jsonl"
MAX_DEVICE_CALLS = 30
"""Device calls a customer may make before saying anything (more is a broken user)."""


@dataclass(frozen=True)
class EpisodeSpec:
    """Everything that identifies one run."""

    domain: str
    task_id: str
    seed: int = 0
    max_steps: int = 100
    case_id: str | None = None
    variants: dict[str, Any] = field(default_factory=dict)
    fault: dict[str, Any] | None = None
    configuration: str | None = None


def _package_version() -> str:
    from sscbench import __version__

    return __version__


class _Recorder:
    def __init__(self, writer: JsonlWriter, env: EpisodeEnvironment) -> None:
        self.writer = writer
        self.env = env
        self.history: list[VisibleEvent] = []
        self.device: list[DeviceCall] = []
        self.turn = 0

    def emit(self, event: VisibleEvent) -> None:
        vt = self.env.observe(event)
        if vt is not None:
            event = event.model_copy(update={"vt": vt})
        self.history.append(event)
        self.writer.append(event)

    @property
    def step(self) -> int:
        return len(self.history)


class _StepLimit(Exception):
    pass


def classify_failure(exc: BaseException) -> Failure:
    """The structured cause of a failed run: what the resume rule and the experiment's
    status read, instead of searching traceback text."""
    text = redact_secrets(f"{type(exc).__name__}: {exc}".splitlines()[0])[:300]
    if isinstance(exc, ServiceError):
        return Failure(kind="provider", retryable=True, message=text)
    if isinstance(exc, ConfigError):
        return Failure(kind="config", retryable=False, message=text)
    if isinstance(exc, ClientError):
        return Failure(kind="client", retryable=True, message=text)
    return Failure(kind="harness", retryable=True, message=text)


def run_episode(
    spec: EpisodeSpec,
    agent: Agent,
    user: User,
    run_dir: Path,
    *,
    run_id: str,
    intervention: Intervention | None = None,
    env: EpisodeEnvironment | None = None,
    arrival: ArrivalPlan | None = None,
    on_ledger: Callable[[str | None], None] | None = None,
) -> RunEnd:
    """Run one episode into ``run_dir`` (ledger, hidden log, agent truth) and return its end.

    Pass ``env`` to keep a handle on the episode's environment after the run (it then
    still holds the agent's final state); otherwise a fresh one is opened. ``arrival``
    delivers a refutation at a set moment (:mod:`sscbench.runs.arrival`). ``on_ledger``
    gets the finished ledger's SHA-256, computed as it was written.
    """
    domain = load_domain(spec.domain)
    task = domain.task(spec.task_id)
    ctx = EpisodeContext(
        domain=spec.domain,
        task=task,
        seed=spec.seed,
        policy=domain.policy,
        variants=dict(spec.variants),
    )
    if env is None:
        env = EpisodeEnvironment.open(spec.domain, task, intervention)
    elif intervention is not None:
        raise ValueError("pass the intervention to EpisodeEnvironment.open when passing env")
    run_dir.mkdir(parents=True, exist_ok=False)
    base = os.fspath(run_dir)  # the run's files are joined as text (pathlib's join is slower)
    outside = cast(RunsOutside, agent) if _has(agent, "connect", "finish") else None
    client = None
    not_connected: Exception | None = None
    if outside is not None:
        try:
            client = outside.connect(ctx, run_dir)
        except Exception as exc:  # recorded as the run's failure below
            not_connected = exc
    finished = False
    try:
        with JsonlWriter(f"{base}/{LEDGER_FILE}") as ledger:
            ledger.append(
                Header(
                    ts=time.time(),
                    sscbench_version=_package_version(),
                    tau2_version=tau2_version(),
                    run_id=run_id,
                    domain=spec.domain,
                    task_id=spec.task_id,
                    case_id=spec.case_id,
                    agent=agent.spec,
                    user=user.spec,
                    seed=spec.seed,
                    max_steps=spec.max_steps,
                    variants=spec.variants,
                    fault=spec.fault,
                    configuration=spec.configuration,
                    clock=None if env.clock is None else env.clock.spec.model_dump(mode="json"),
                    client=client,
                    arrival=None if arrival is None else arrival.header(),
                    mitigation=agent.mitigation.spec if isinstance(agent, MitigatedAgent) else None,
                )
            )
            rec = _Recorder(ledger, env)
            control = None if arrival is None else ArrivalController(arrival)
            termination: Termination
            error: str | None = None
            failure: Failure | None = None
            try:
                if not_connected is not None:
                    raise not_connected
                agent.start(ctx)
                user.start(ctx)
                termination = _converse(rec, agent, user, env, spec.max_steps, control)
            except _StepLimit:
                termination = "max_steps"
            except LimitReached as limit:  # a result, like the step limit
                termination = limit.termination
            except ReplayDivergence:  # recorded in the hidden log; the run is excluded
                termination = "replay_divergence"
            except Exception as exc:  # a failure, not a result: recorded, never scored
                termination = "harness_error"
                error = redact_secrets(traceback.format_exc())  # it is shown and copied on
                failure = classify_failure(exc)
            graded = None
            if termination not in ("harness_error", "replay_divergence"):
                texts = [e.content for e in rec.history if isinstance(e, AgentMessage)]
                graded = grade(env, task, texts)
            end = RunEnd(
                ts=time.time(),
                termination=termination,
                steps=rec.step,
                success=None if graded is None else graded.success,
                db_match=None if graded is None else graded.db_match,
                communicate_ok=None if graded is None else graded.communicate_ok,
                final_state_hash=None if graded is None else graded.final_state_hash,
                error=error,
                failure=failure,
            )
            if outside is not None:  # the client gets its last answer; its session closes
                finished = True
                outside.finish(tuple(rec.history), end)
            extra = [] if control is None else [control.record()]
            _write_sidecars(base, env, agent, user, end, extra)
            if env.user_toolkit is not None:  # written even when empty: "no device calls"
                with JsonlWriter(f"{base}/{DEVICE_FILE}") as device:
                    device.append_all(rec.device)
            ledger.append(end)
        if on_ledger is not None:
            on_ledger(ledger.sha256)
    finally:
        if outside is not None and not finished:  # a harness bug: still release the client
            outside.finish((), None)
    return end


def _converse(
    rec: _Recorder,
    agent: Agent,
    user: User,
    env: EpisodeEnvironment,
    max_steps: int,
    arrival: ArrivalController | None = None,
) -> Termination:
    def emit(event: VisibleEvent) -> None:
        if rec.step >= max_steps:
            raise _StepLimit
        if arrival is not None:
            arrival.check(event)
        rec.emit(event)

    emit(AgentMessage(ts=time.time(), step=rec.step, turn=rec.turn, content=GREETING))
    rec.turn += 1
    while True:
        if arrival is not None and arrival.due(rec.step, env):
            arrival.deliver(env, rec, emit)
        text = _user_says(rec, user, env)
        emit(UserMessage(ts=time.time(), step=rec.step, turn=rec.turn, content=text))
        rec.turn += 1
        if any(token in text for token in STOP_TOKENS):
            return "user_stop"
        while True:
            if arrival is not None and arrival.due(rec.step, env):
                arrival.deliver(env, rec, emit)
            try:
                turn = agent.next_turn(_view(rec.history))
            except EmptyReply:  # recorded as the empty message it was; not a choice to stop
                emit(AgentMessage(ts=time.time(), step=rec.step, turn=rec.turn, content=""))
                return "empty_reply"
            if turn.text is None and not turn.tool_calls:
                return "agent_stop"
            if turn.text or not turn.tool_calls:  # an empty reply is still a reply
                text = turn.text or ""
                emit(AgentMessage(ts=time.time(), step=rec.step, turn=rec.turn, content=text))
            for call in turn.tool_calls:
                emit(
                    AgentToolCall(
                        ts=time.time(),
                        step=rec.step,
                        turn=rec.turn,
                        call_id=call.id,
                        name=call.name,
                        arguments=call.arguments,
                    )
                )
            rec.turn += 1
            if not turn.tool_calls:
                break
            for call in turn.tool_calls:
                if rec.step >= max_steps:
                    raise _StepLimit
                obs = env.execute(call, step=rec.step)
                emit(
                    ToolObservation(
                        ts=time.time(),
                        step=rec.step,
                        turn=rec.turn,
                        call_id=obs.call_id,
                        content=obs.content,
                        error=obs.error,
                    )
                )
                rec.turn += 1


def _user_says(rec: _Recorder, user: User, env: EpisodeEnvironment) -> str:
    """The customer's next words; in a dual-control domain, after the device calls they
    make first, each through the choke point with ``requestor="user"`` at the step their
    words will carry, and recorded in the device log."""
    if env.user_toolkit is None or not _has(user, "next_user_turn", "device_result"):
        return user.next_message(_view(rec.history))
    device = cast(UsesDevice, user)
    made = 0
    while True:
        turn = device.next_user_turn(_view(rec.history))
        if not turn.tool_calls:
            return turn.text or ""
        for call in turn.tool_calls:
            made += 1
            if made > MAX_DEVICE_CALLS:
                raise HarnessError(
                    f"the user made {MAX_DEVICE_CALLS} device calls without a word to the agent"
                )
            obs = env.execute(call, step=rec.step, requestor="user")
            rec.device.append(
                DeviceCall(
                    step=rec.step,
                    call_id=call.id,
                    name=call.name,
                    arguments=call.arguments,
                    content=obs.content,
                    error=obs.error,
                )
            )
            device.device_result(call, obs.content, obs.error)


def _has(obj: object, *members: str) -> bool:
    """Whether ``obj`` has these members: a runtime-checkable protocol's check, by name.

    The episode asks its participants for their optional capabilities (the protocols of
    :mod:`sscbench.agents.base`) by attribute, not ``isinstance``: typing walks every
    attribute of the protocol on each check, and seven such checks were 3% of a scripted
    episode."""
    return all(getattr(obj, name, None) is not None for name in members)


def _view(history: list[VisibleEvent]) -> Sequence[VisibleEvent]:
    return tuple(history)


def _write_sidecars(
    base: str,
    env: EpisodeEnvironment,
    agent: Agent,
    user: User,
    end: RunEnd,
    extra: Sequence[BaseModel] = (),
) -> None:

    # Every sidecar line exists before its file is written, and the run is unfinished
    # until ``run_end`` follows them in the ledger: each file goes to the OS in one write.
    hidden: list[BaseModel] = list(env.intervention_log)
    own_records = getattr(env.intervention, "hidden_records", None)  # HasHiddenRecords
    if own_records is not None:
        hidden.extend(own_records())
    hidden.extend(extra)
    hidden.append(
        StateCheck(
            final_state_hash=end.final_state_hash,
            calls_executed=env.calls_executed,
            owned_entities=sorted(f"{c}/{k}" for c, k in env.state.owned),
        )
    )
    with JsonlWriter(f"{base}/{HIDDEN_FILE}") as out:
        out.append_all(hidden)
    truth = getattr(agent, "truth", None)  # RecordsTruth
    if truth is not None:  # written even when empty: "used nothing" is truth
        with JsonlWriter(f"{base}/{TRUTH_FILE}") as out:
            out.append_all(truth)

    client_events = getattr(agent, "client_events", None)  # RecordsClientEvents
    if client_events is not None:
        with JsonlWriter(f"{base}/{CLIENT_FILE}") as out:
            out.append_all(client_events)

    calls: list[BaseModel] = [
        call
        for participant in (agent, user)
        for call in getattr(participant, "provider_calls", None) or ()  # RecordsProviderCalls
    ]
    if calls:
        with JsonlWriter(f"{base}/{PROVIDER_CALLS_FILE}") as out:
            out.append_all(calls)
