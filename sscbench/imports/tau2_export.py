"""``sscbench export tau2``: clean SSCBench runs as τ²-bench results files.

A τ² user opens them with τ²'s own tools (``tau2 view``, its metrics): one results file per
(domain, configuration), built with τ²'s data models (``tau2.data_model.simulation``), so
what is written is what τ² reads. Only clean runs are exported — a faulted run's
observations are not the task's, and τ² has no field to say so — and only finished ones
(a harness error is not a result). The reward is SSCBench's grade of the live final state
(``run_end``: DB match × communicate), recorded with its DB check; the messages are the
ledger's model-visible history, an agent turn's text and tool calls as one assistant
message, as τ² records them. ``sscbench import tau2`` reads the files back and replays
every call (a test does the round trip).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sscbench.envs import load_domain
from sscbench.envs.tau2_runtime import prepare_tau2
from sscbench.errors import ConfigError
from sscbench.records.events import AgentMessage, AgentToolCall, ToolObservation, UserMessage
from sscbench.records.ledger import Ledger, read_ledger
from sscbench.runs.episode import LEDGER_FILE


@dataclass
class ExportSummary:
    """What was written, and what was left out and why."""

    files: list[Path] = field(default_factory=list)
    runs: int = 0
    faulted: int = 0
    unfinished: int = 0


def _messages(ledger: Ledger) -> list[Any]:
    from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage
    from tau2.data_model.message import UserMessage as Tau2User

    out: list[Any] = []
    pending: dict[str, Any] | None = None  # the assistant turn being assembled

    def flush() -> None:
        nonlocal pending
        if pending is not None:
            out.append(
                AssistantMessage(
                    role="assistant",
                    content=pending["content"],
                    tool_calls=pending["calls"] or None,
                    turn_idx=len(out),
                )
            )
            pending = None

    for event in ledger.events:
        if isinstance(event, AgentMessage):
            flush()
            pending = {"turn": event.turn, "content": event.content, "calls": []}
        elif isinstance(event, AgentToolCall):
            if pending is None or pending["turn"] != event.turn:
                flush()
                pending = {"turn": event.turn, "content": None, "calls": []}
            pending["calls"].append(
                ToolCall(
                    id=event.call_id,
                    name=event.name,
                    arguments=dict(event.arguments),
                    requestor="assistant",
                )
            )
        elif isinstance(event, ToolObservation):
            flush()
            out.append(
                ToolMessage(
                    id=event.call_id,
                    role="tool",
                    content=event.content,
                    requestor="assistant",
                    error=bool(event.error),
                    turn_idx=len(out),
                )
            )
        elif isinstance(event, UserMessage):
            flush()
            out.append(Tau2User(role="user", content=event.content, turn_idx=len(out)))
    flush()
    return out


def _simulation(ledger: Ledger, trial: int) -> Any:
    from tau2.data_model.simulation import DBCheck, RewardInfo, SimulationRun

    end = ledger.end
    assert end is not None
    reward = 1.0 if end.success else 0.0
    return SimulationRun(
        id=ledger.header.run_id,
        task_id=ledger.header.task_id,
        timestamp="",
        start_time="",
        end_time="",
        duration=0.0,
        termination_reason=end.termination,
        reward_info=RewardInfo(
            reward=reward,
            db_check=None
            if end.db_match is None
            else DBCheck(db_match=end.db_match, db_reward=1.0 if end.db_match else 0.0),
            info={
                "grader": "sscbench live final state (DB match x communicate)",
                "communicate_ok": end.communicate_ok,
            },
        ),
        messages=_messages(ledger),
        trial=trial,
        seed=ledger.header.seed,
    )


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]", ".", text)


def export_tau2(run_root: Path, out: Path) -> ExportSummary:
    """Write one τ² results file per (domain, configuration) of the clean, finished runs
    under ``run_root`` into the directory ``out``."""
    prepare_tau2()
    from tau2.data_model.simulation import AgentInfo, Info, Results, UserInfo
    from tau2.environment.environment import EnvironmentInfo

    summary = ExportSummary()
    groups: dict[tuple[str, str], list[Ledger]] = defaultdict(list)
    for path in sorted(run_root.rglob(LEDGER_FILE)):
        if ".incomplete-" in str(path.parent):
            continue
        ledger = read_ledger(path)
        header = ledger.header
        if header.fault is not None or header.case_id is not None:
            summary.faulted += 1
            continue
        end = ledger.end
        if end is None or end.termination in ("harness_error", "replay_divergence"):
            summary.unfinished += 1
            continue
        groups[(header.domain, header.configuration or header.agent.name)].append(ledger)
    if not groups:
        raise ConfigError(
            f"{run_root} holds no finished clean run; τ² results can only carry clean runs "
            "(run some with `sscbench run --domain …`)"
        )
    out.mkdir(parents=True, exist_ok=True)
    for (domain, configuration), ledgers in sorted(groups.items()):
        spec = ledgers[0].header
        seeds = sorted({x.header.seed for x in ledgers})
        task_ids = sorted({x.header.task_id for x in ledgers}, key=lambda t: (len(t), t))
        domain_model = load_domain(domain)
        llm = spec.agent.params.get("model")
        results = Results(
            info=Info(
                git_commit="",
                num_trials=len(seeds),
                max_steps=max(x.header.max_steps for x in ledgers),
                max_errors=10,
                user_info=UserInfo(implementation=spec.user.name, llm_args=spec.user.params),
                agent_info=AgentInfo(
                    implementation=spec.agent.name,
                    llm=llm if isinstance(llm, str) else None,
                    llm_args=dict(spec.agent.params),
                ),
                environment_info=EnvironmentInfo(domain_name=domain, policy=domain_model.policy),
                seed=seeds[0],
            ),
            tasks=[domain_model.task(t) for t in task_ids],
            simulations=[
                _simulation(x, seeds.index(x.header.seed))
                for x in sorted(ledgers, key=lambda x: (x.header.task_id, x.header.seed))
            ],
        )
        path = out / f"{_safe(configuration)}.{domain}.json"
        path.write_text(results.model_dump_json(indent=1), encoding="utf-8")
        summary.files.append(path)
        summary.runs += len(ledgers)
    return summary
