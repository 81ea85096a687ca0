"""What the viewer shows of each run, taken from its ledger while the ledgers stream past.

The viewer's index page holds only one short row per run; a run's labelled rows and
numbered, marked history (its *payload*) are loaded when it is opened, from the shard file
holding it (:mod:`.shards`). Each ledger is parsed once, turned into its payload and
dropped: memory stays flat in the number of runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sscbench.analysis.viewer.marks import fault_rows, label_rows, step_marks, yes_no
from sscbench.analysis.viewer.shards import ShardWriter
from sscbench.errors import LedgerError
from sscbench.reconstruct.labels import LabelView, RunLabels
from sscbench.records.events import AgentToolCall, ToolObservation, VisibleEvent
from sscbench.records.ledger import Ledger, read_ledger
from sscbench.runs.episode import LEDGER_FILE
from sscbench.user_files import iter_files

KIND_NAMES = {
    "user_message": "user",
    "agent_message": "agent",
    "tool_call": "tool call",
    "tool_observation": "tool result",
    "system_notice": "harness notice",
}
NOT_FOUND = "ledger not found under the run directory"


def model_of(ledger: Ledger) -> str:
    """Model and decoding of a run's agent, as its ledger header records them."""
    params = ledger.header.agent.params
    parts = [str(params["model"])] if params.get("model") else [ledger.header.agent.name]
    for key in ("temperature", "top_p", "max_tokens"):
        if key in params:
            parts.append(f"{key}={params[key]}")
    return ", ".join(parts)


def event_text(event: VisibleEvent) -> str:
    """One history item as the model received it, as plain text."""
    # A delivered refutation (docs/arrival-interventions.md) is marked as the harness's.
    by = "[harness] " if getattr(event, "origin", None) == "harness" else ""
    if isinstance(event, AgentToolCall):
        args = json.dumps(event.arguments, ensure_ascii=False)
        return f"{by}{event.name}({args})  [call_id {event.call_id}]"
    if isinstance(event, ToolObservation):
        prefix = "ERROR " if event.error else ""
        return f"{by}{prefix}[call_id {event.call_id}] {event.content}"
    return event.content


def run_payload(run_id: str, ledger: Ledger | None, labels: RunLabels | None) -> dict[str, Any]:
    """What the page needs to draw one run: labelled rows and the marked, numbered history."""
    meta: list[tuple[str, str]] = []
    if ledger is not None:
        meta += fault_rows(ledger.header.fault)
    if labels is not None:
        meta += label_rows(labels)
    if ledger is not None:
        h = ledger.header
        meta.append(("agent", h.configuration or h.agent.name))
        meta.append(("task", f"{h.domain} {h.task_id}, seed {h.seed}"))
        end = ledger.end
        meta.append(
            (
                "end",
                "unfinished (no run_end)"
                if end is None
                else f"{end.termination} after {end.steps} steps, success "
                f"{yes_no(end.success, 'ungraded')}",
            )
        )
    marks = step_marks(labels)
    events = [
        [e.step, e.kind, KIND_NAMES[e.kind], event_text(e), marks.tags(e.step)]
        for e in (ledger.events if ledger is not None else ())
    ]
    payload: dict[str, Any] = {"id": run_id, "meta": meta, "events": events}
    if ledger is None:
        payload["missing"] = NOT_FOUND
    return payload


def ledger_paths(run_root: Path) -> Iterator[Path]:
    """Every finished-or-not ledger under ``run_root`` in path order (runs set aside by the
    executor as ``.incomplete-*`` are skipped)."""
    yield from iter_files(run_root, LEDGER_FILE)


def load_ledgers(run_root: Path, problems: list[str] | None = None) -> dict[str, Ledger]:
    """Every ledger under ``run_root`` keyed by its header's run id (first one wins); an
    unreadable one is described in ``problems`` and skipped. Holds them all: for tests and
    small sets — the report streams through :func:`write_run_files` instead."""
    out: dict[str, Ledger] = {}
    for path in ledger_paths(run_root):
        try:
            ledger = read_ledger(path)
        except LedgerError as exc:
            if problems is not None:
                problems.append(str(exc))
            continue
        out.setdefault(ledger.header.run_id, ledger)
    return out


@dataclass
class RunFiles:
    """What streaming the ledgers found: labelled runs without a ledger, each
    configuration's model (from the first of its ledgers), unreadable ledgers."""

    missing: list[str] = field(default_factory=list)
    models: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def write_run_files(
    out_dir: Path,
    order: Sequence[LabelView],
    run_root: Path,
    ledgers: Mapping[str, Ledger] | None = None,
    full: Callable[[str], RunLabels | None] | None = None,
) -> RunFiles:
    """Every labelled run in ``order`` (by its index row number; run ids are unique there)
    in its shard file, parsing each ledger under ``run_root`` once — or taking them from
    ``ledgers`` when given. ``full`` reads a run's full labels (reasons, uses, evidence:
    what its page shows) when ``order`` holds summaries
    (:class:`~sscbench.reconstruct.labels.LabelIndex`), one run at a time."""

    # One map from run id to row: the label is the row's, and a byte per row says
    # whether its file is written (a run's memory here is its map entry, not three).
    number = {lab.run_id: i for i, lab in enumerate(order)}
    done = bytearray(len(order))
    found = RunFiles()
    shards = ShardWriter(out_dir, len(order))

    def labels_of(n: int) -> RunLabels | None:
        if full is not None:
            return full(order[n].run_id)
        label = order[n]
        return label if isinstance(label, RunLabels) else None

    def row_of(ledger: Ledger) -> int | None:
        """The ledger's index row (``None``: not labelled); the first ledger seen of a
        configuration names its model."""
        n = number.get(ledger.header.run_id)
        if n is not None:
            key = order[n].configuration or order[n].agent
            if key not in found.models:
                found.models[key] = model_of(ledger)
        return n

    def emit(n: int, ledger: Ledger) -> None:
        if not done[n]:
            done[n] = 1
            shards.put(n, run_payload(order[n].run_id, ledger, labels_of(n)))

    try:
        if ledgers is not None:
            # Written in row order, so no payload waits in the spool (one JSON dump per
            # run instead of three steps); the models are still named in the map's order,
            # as when streaming.
            for ledger in ledgers.values():
                row_of(ledger)
            for n, label in enumerate(order):
                given = ledgers.get(label.run_id)
                if given is not None:
                    emit(n, given)
        else:
            for path in ledger_paths(run_root):
                try:
                    ledger = read_ledger(path)
                except LedgerError as exc:
                    found.problems.append(str(exc))
                    continue
                row = row_of(ledger)
                if row is not None:
                    emit(row, ledger)
        for n, label in enumerate(order):
            if not done[n]:
                found.missing.append(label.run_id)
                shards.put(n, run_payload(label.run_id, None, labels_of(n)))
    finally:
        shards.close()
    return found
