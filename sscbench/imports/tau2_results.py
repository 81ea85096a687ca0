"""``sscbench import tau2``: τ² simulation results → SSCBench ledgers.

τ²'s ``tau2 run`` writes one JSON file (``info``, ``tasks``, ``simulations``); each
simulation holds the full message list of one run. Importing turns every simulation into
an SSCBench run directory (a clean run: no fault) so the rest of the pipeline — viewer,
replay, reconstruction, audits — can read it.

Nothing is taken on trust: every recorded tool call is replayed, in order, through
SSCBench's choke point on a fresh episode of the task, and the replayed observation is
compared with the recorded one byte for byte. The ledger keeps the *recorded* text (it is
what the model saw); the comparison goes to ``import.json`` beside it, with every
difference listed. Validation-error texts that differ only in the pydantic documentation
link (it carries the pydantic version of the recording machine) are counted apart.
The final state of the replay is graded the SSCBench way (live state against the gold
hash) and shown beside τ²'s recorded reward.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.envs.domain import DOMAINS
from sscbench.envs.grading import gold_hashes, grade
from sscbench.envs.tau2_runtime import tau2_version
from sscbench.errors import ConfigError
from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    Header,
    ParticipantSpec,
    RunEnd,
    Termination,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)
from sscbench.records.hidden import StateCheck
from sscbench.records.ledger import JsonlWriter
from sscbench.runs.episode import HIDDEN_FILE, LEDGER_FILE
from sscbench.runs.layout import check_writable, finished_end, set_aside, task_token
from sscbench.user_files import read_user_bytes

IMPORT_FILE = "import.json"
IMPORT_SCHEMA_VERSION = 1
_PYDANTIC_URL = re.compile(r"https://errors\.pydantic\.dev/[^/\s]+/")
_TERMINATIONS: dict[str, Termination] = {
    "user_stop": "user_stop",
    "agent_stop": "agent_stop",
    "max_steps": "max_steps",
    "too_many_errors": "too_many_errors",
    "agent_error": "agent_error",
    "user_error": "user_error",
    "judge_stop": "judge_stop",
}


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Tau2Call(_Loose):
    id: str
    name: str
    arguments: dict[str, Any] = {}


class _Tau2Message(_Loose):
    role: Literal["assistant", "user", "tool"]
    content: str | None = None
    tool_calls: list[_Tau2Call] | None = None
    id: str | None = None
    error: bool | None = None


class _Tau2Simulation(_Loose):
    id: str
    task_id: str
    trial: int = 0
    messages: list[_Tau2Message]
    termination_reason: str
    reward_info: dict[str, Any] | None = None


class _Tau2Info(_Loose):
    environment_info: dict[str, Any]
    agent_info: dict[str, Any] = {}
    user_info: dict[str, Any] = {}
    seed: int | None = None
    max_steps: int | None = None
    git_commit: str | None = None


class _Tau2Results(_Loose):
    info: _Tau2Info
    simulations: list[_Tau2Simulation]


class Difference(BaseModel):
    """One recorded observation that the replay did not reproduce byte for byte."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int
    tool: str
    kind: Literal["validation_error_link", "content"]
    recorded: str = Field(description="the recorded text (first 300 characters)")
    replayed: str = Field(description="the replayed text (first 300 characters)")


class ImportRecord(BaseModel):
    """``import.json``: where an imported run came from and how its replay compared."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = IMPORT_SCHEMA_VERSION
    source_file: str
    source_sha256: str
    simulation_id: str
    tau2_git_commit: str | None
    recorded_termination: str
    recorded_reward: float | None
    recorded_db_match: bool | None
    observations: int
    identical: int
    differences: list[Difference]
    replayed_success: bool
    replayed_db_match: bool
    state_matches_tasks: list[str] = Field(
        default=[],
        description="when the recorded DB check and the replay disagree: the tasks whose gold "
        "final state equals the replayed one (a results file whose task ids do not belong to "
        "its conversations shows up here)",
    )


@dataclass
class ImportSummary:
    """What one ``import_tau2_results`` call did."""

    imported: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    observations: int = 0
    identical: int = 0
    link_only: int = 0
    differing: int = 0
    reward_disagreements: list[str] = field(default_factory=list)
    other_task_states: int = 0
    """Of the disagreements, runs whose final state is another task's gold state."""


RESULTS_LIMIT = 4 * 2**30
"""τ² results files hold whole simulations (far larger than a hand-written file); 4 GiB
is above any study's and still refuses a disk image passed by mistake."""


def _load(path: Path) -> tuple[_Tau2Results, str]:
    raw = read_user_bytes(path, "τ² results", limit=RESULTS_LIMIT)
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{path} is not JSON: {exc}; pass the file `tau2 run` wrote") from None
    except RecursionError:
        raise ConfigError(f"{path} is not τ² results: JSON nested too deeply") from None
    try:
        results = _Tau2Results.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(
            f"{path} is not a τ² results file ({where}: {first['msg']}); "
            "pass the JSON that `tau2 run` wrote"
        ) from None
    return results, hashlib.sha256(raw).hexdigest()


def run_id_of(domain: str, sim: _Tau2Simulation) -> str:
    """Stable run id of an imported simulation (the task id through `task_token`)."""
    return f"tau2.{domain}.{task_token(str(sim.task_id))}.trial{sim.trial}"


def _participant(kind: str, info: dict[str, Any]) -> ParticipantSpec:
    params = {k: info[k] for k in ("llm", "llm_args") if info.get(k) is not None}
    return ParticipantSpec(name=f"tau2:{info.get('implementation') or kind}", params=params)


def _same_but_link(recorded: str, replayed: str) -> bool:
    return _PYDANTIC_URL.sub("", recorded) == _PYDANTIC_URL.sub("", replayed)


class _Converter:
    """Turns one simulation's messages into ledger events while replaying its tool calls."""

    def __init__(self, domain: str, sim: _Tau2Simulation) -> None:
        task = load_domain(domain).task(sim.task_id)
        self.task = task
        self.env = EpisodeEnvironment.open(domain, task)
        self.sim = sim
        self.pending: dict[str, AgentToolCall] = {}
        self.events: list[VisibleEvent] = []
        self.differences: list[Difference] = []
        self.identical = 0
        self.observations = 0

    def convert(self) -> Iterator[VisibleEvent]:
        for turn, message in enumerate(self.sim.messages):
            yield from self._message(turn, message)

    def _message(self, turn: int, m: _Tau2Message) -> Iterator[VisibleEvent]:
        step = len(self.events)
        if m.role == "user":
            if m.tool_calls:
                raise ConfigError(
                    f"simulation {self.sim.id}: user tool calls (τ² solo/telecom mode) are not "
                    "supported; import airline or retail runs"
                )
            yield self._emit(UserMessage(step=step, turn=turn, content=m.content or ""))
        elif m.role == "assistant":
            # As in SSCBench's own runs, an empty text beside tool calls is not a message.
            if m.content or not m.tool_calls:
                yield self._emit(AgentMessage(step=step, turn=turn, content=m.content or ""))
            for call in m.tool_calls or []:
                event = AgentToolCall(
                    step=len(self.events),
                    turn=turn,
                    call_id=call.id,
                    name=call.name,
                    arguments=call.arguments,
                )
                self.pending[call.id] = event
                yield self._emit(event)
        else:
            yield self._emit(self._observation(step, turn, m))

    def _emit(self, event: VisibleEvent) -> VisibleEvent:
        self.events.append(event)
        return event

    def _observation(self, step: int, turn: int, m: _Tau2Message) -> ToolObservation:
        call = self.pending.pop(m.id or "", None)
        if call is None:
            raise ConfigError(
                f"simulation {self.sim.id}: tool result {m.id!r} answers no earlier tool call"
            )
        replay = self.env.execute(
            ToolCall(id=call.call_id, name=call.name, arguments=call.arguments), step=step
        )
        recorded = m.content or ""
        self.observations += 1
        if recorded == replay.content:
            self.identical += 1
            error = replay.error
        else:
            link = replay.error and _same_but_link(recorded, replay.content)
            self.differences.append(
                Difference(
                    step=step,
                    tool=call.name,
                    kind="validation_error_link" if link else "content",
                    recorded=recorded[:300],
                    replayed=replay.content[:300],
                )
            )
            error = m.error if m.error is not None else recorded.startswith("Error")
        return ToolObservation(
            step=step, turn=turn, call_id=call.call_id, content=recorded, error=error
        )


def _termination(sim: _Tau2Simulation) -> Termination:
    reason = sim.termination_reason
    if reason not in _TERMINATIONS:
        raise ConfigError(
            f"simulation {sim.id}: unknown τ² termination reason {reason!r}; "
            f"known: {', '.join(_TERMINATIONS)}"
        )
    return _TERMINATIONS[reason]


def _write_json_atomically(path: Path, record: BaseModel) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(record.model_dump_json(indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _import_one(
    results: _Tau2Results, sim: _Tau2Simulation, run_dir: Path, source: Path, sha: str
) -> ImportRecord:
    domain = str(results.info.environment_info["domain_name"])
    termination = _termination(sim)
    info = results.info
    conv = _Converter(domain, sim)
    run_dir.mkdir(parents=True)
    with JsonlWriter(run_dir / LEDGER_FILE) as ledger:
        agent = _participant("agent", info.agent_info)
        ledger.append(
            Header(
                sscbench_version=_package_version(),
                tau2_version=tau2_version(),
                run_id=run_dir.name,
                domain=domain,
                task_id=sim.task_id,
                agent=agent,
                user=_participant("user", info.user_info),
                seed=info.seed if info.seed is not None else 0,
                max_steps=info.max_steps if info.max_steps is not None else 0,
                configuration=f"tau2:{agent.params.get('llm', agent.name)}",
            )
        )
        for event in conv.convert():
            ledger.append(event)
        texts = [e.content for e in conv.events if isinstance(e, AgentMessage)]
        graded = grade(conv.env, conv.task, texts)
        with JsonlWriter(run_dir / HIDDEN_FILE) as hidden:
            hidden.append(
                StateCheck(
                    final_state_hash=graded.final_state_hash,
                    calls_executed=conv.env.calls_executed,
                    owned_entities=sorted(f"{c}/{k}" for c, k in conv.env.state.owned),
                )
            )
        reward = (sim.reward_info or {}).get("reward")
        db_check = (sim.reward_info or {}).get("db_check") or {}
        recorded_db = db_check.get("db_match")
        matches: list[str] = []
        if recorded_db is not None and recorded_db != graded.db_match:
            matches = sorted(
                (t for t, h in gold_hashes(domain).items() if h == graded.final_state_hash),
                key=_natural,
            )
        record = ImportRecord(
            source_file=source.name,
            source_sha256=sha,
            simulation_id=sim.id,
            tau2_git_commit=info.git_commit,
            recorded_termination=sim.termination_reason,
            recorded_reward=None if reward is None else float(reward),
            recorded_db_match=recorded_db,
            observations=conv.observations,
            identical=conv.identical,
            differences=conv.differences,
            replayed_success=graded.success,
            replayed_db_match=graded.db_match,
            state_matches_tasks=matches,
        )
        _write_json_atomically(run_dir / IMPORT_FILE, record)
        # run_end last: a finished ledger means every sidecar is complete.
        ledger.append(
            RunEnd(
                termination=termination,
                steps=len(conv.events),
                success=graded.success,
                db_match=graded.db_match,
                communicate_ok=graded.communicate_ok,
                final_state_hash=graded.final_state_hash,
            )
        )
    return record


def _natural(task_id: str) -> tuple[int, str]:
    return (int(task_id), "") if task_id.isdigit() else (1 << 30, task_id)


def _package_version() -> str:
    from sscbench import __version__

    return __version__


def import_tau2_results(source: Path, out: Path) -> ImportSummary:
    """Import every simulation of one τ² results file into run directories under ``out``.

    Re-running skips runs already imported; an unfinished import is set aside as
    ``<run>.incomplete-N`` and done again. A run directory that holds a *different*
    simulation is refused (import other results into another directory).
    """
    results, sha = _load(source)
    domain = results.info.environment_info.get("domain_name")
    if domain not in DOMAINS:
        raise ConfigError(
            f"{source}: τ² domain {domain!r} is not supported; SSCBench imports "
            f"{', '.join(DOMAINS)}"
        )
    check_writable(out)
    load_domain(str(domain))
    out.mkdir(parents=True, exist_ok=True)
    summary = ImportSummary()
    for sim in results.simulations:
        run_dir = out / run_id_of(str(domain), sim)
        if finished_end(run_dir) is not None:
            previous = _previous_simulation(run_dir)
            if previous != sim.id:
                raise ConfigError(
                    f"{run_dir} holds τ² simulation {previous}, not {sim.id}; import these "
                    "results into another directory"
                )
            summary.skipped.append(run_dir.name)
            continue
        if run_dir.exists():
            set_aside(run_dir)
        record = _import_one(results, sim, run_dir, source, sha)
        summary.imported.append(run_dir.name)
        summary.observations += record.observations
        summary.identical += record.identical
        summary.link_only += sum(d.kind == "validation_error_link" for d in record.differences)
        summary.differing += sum(d.kind == "content" for d in record.differences)
        if (
            record.recorded_db_match is not None
            and record.recorded_db_match != record.replayed_db_match
        ):
            summary.reward_disagreements.append(run_dir.name)
            if record.state_matches_tasks and sim.task_id not in record.state_matches_tasks:
                summary.other_task_states += 1
    return summary


def _previous_simulation(run_dir: Path) -> str | None:
    try:
        data = json.loads((run_dir / IMPORT_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    sim = data.get("simulation_id") if isinstance(data, dict) else None
    return sim if isinstance(sim, str) else None
