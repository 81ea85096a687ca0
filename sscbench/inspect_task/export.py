"""SSCBench runs as Inspect eval logs: ``sscbench export inspect RUNDIR --out LOGDIR``.

Runs made anywhere (``sscbench run``, an experiment, the demo, served or imported runs)
become one Inspect log per configuration, written by Inspect itself: each configuration is
replayed as an Inspect task whose samples are its runs — the messages are the run's
model-visible history (as the agent saw it: its greeting, the user's messages, its own
messages and tool calls, τ²'s observations), the score is the run's reconstructed labels
(``labels.jsonl`` when ``sscbench reconstruct`` wrote one, else labelled now). So
``inspect view`` opens them and ``inspect_ai.log.read_eval_log`` reads them back; reading a
log back gives the same labels. No model is called.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
)
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolCall

from sscbench.errors import ConfigError
from sscbench.inspect_task.scorer import adoption_metrics, first_repetition, labels_score
from sscbench.llm.transcript import agent_transcript
from sscbench.reconstruct.label import label_run, run_dirs
from sscbench.reconstruct.labels import RunLabels, read_labels
from sscbench.records.ledger import read_ledger
from sscbench.runs.episode import LEDGER_FILE

LABELS_FILE = "labels.jsonl"


def transcript_messages(run_dir: Path) -> list[ChatMessage]:
    """The run's model-visible history as the agent's conversation (Inspect messages)."""
    ledger = read_ledger(run_dir / LEDGER_FILE)
    names: dict[str, str] = {}
    out: list[ChatMessage] = []
    for m in agent_transcript(ledger.events):
        if m.role == "user":
            out.append(ChatMessageUser(content=m.text or ""))
        elif m.role == "assistant":
            calls = [
                ToolCall(id=c.call_id, function=c.name, arguments=dict(c.arguments))
                for c in m.calls
            ]
            names.update({c.call_id: c.name for c in m.calls})
            out.append(ChatMessageAssistant(content=m.text or "", tool_calls=calls or None))
        else:
            out.append(
                ChatMessageTool(
                    content=m.text or "",
                    tool_call_id=m.call_id,
                    function=names.get(m.call_id or ""),
                    metadata={"sscbench_error": m.error},
                )
            )
    return out


@solver
def _replay() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.messages = transcript_messages(Path(state.metadata["run_dir"]))
        state.completed = True
        return state

    return solve


@scorer(metrics=adoption_metrics())
def archived_labels(labels: dict[str, Any]) -> Scorer:
    """The runs' labels as recorded (keyed by run id)."""

    async def score(state: TaskState, target: Target) -> Score:
        label = RunLabels.model_validate(labels[state.metadata["run_id"]])
        return labels_score(label, state.metadata["run_dir"])

    return score


def _labels(root: Path, dirs: list[Path]) -> dict[str, RunLabels]:
    path = root / LABELS_FILE
    if path.exists():
        found = {label.run_id: label for label in read_labels(path)}
        if all(_run_id(d) in found for d in dirs):
            return found
    return {_run_id(d): label_run(d) for d in dirs}


def _run_id(run_dir: Path) -> str:
    return read_ledger(run_dir / LEDGER_FILE).header.run_id


def export_inspect(root: Path, out: Path) -> list[Path]:
    """Write one Inspect log per configuration of the runs under ``root`` into ``out``;
    returns the log files."""
    if not root.is_dir():
        raise ConfigError(f"{root} is not a directory of SSCBench runs")
    dirs = run_dirs(root)
    if not dirs:
        raise ConfigError(
            f"no SSCBench runs under {root} (a run directory holds {LEDGER_FILE}); "
            "give the directory that sscbench run, demo or serve wrote"
        )
    labels = _labels(root, dirs)
    groups: dict[str, list[Sample]] = defaultdict(list)
    for run_dir in dirs:
        label = labels[_run_id(run_dir)]
        groups[label.configuration or label.agent].append(
            Sample(
                id=label.run_id,
                input=f"SSCBench run {label.run_id}",
                metadata={
                    "run_id": label.run_id,
                    "run_dir": str(run_dir),
                    "case_id": label.case_id,
                    "operator": label.operator,
                    "agent": label.agent,
                },
            )
        )
    tasks = [
        Task(
            dataset=MemoryDataset(samples, name=f"sscbench-{name}"),
            solver=_replay(),
            scorer=archived_labels({r: labels[r].model_dump(mode="json") for r in labels}),
            epochs=Epochs(1, reducer=first_repetition()),  # each run is its own sample
            name=f"sscbench-{_slug(name)}",
            metadata={"sscbench": "export", "configuration": name, "runs": str(root)},
        )
        for name, samples in sorted(groups.items())
    ]
    out.mkdir(parents=True, exist_ok=True)
    logs = inspect_eval(tasks, model="none", log_dir=str(out), display="none", max_tasks=1)
    failed = [log for log in logs if log.status != "success"]
    if failed:
        raise ConfigError(f"Inspect could not write the log of {failed[0].eval.task}")
    return [Path(log.location) for log in logs]


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
