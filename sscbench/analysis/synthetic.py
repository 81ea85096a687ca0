"""Seeded synthetic run sets shaped like the paper's execution matrix.

The analysis and the report must be timed and stress-tested at the paper's scale (1,191
faulted runs, five configurations, three or one repetitions, missing runs, undecidable
events) and far beyond it (100,000 runs) without running agents. The labels here are
internally consistent — ``Z_S`` is derived from ``T_E``/``T_S`` by the reconstructor's own
rule, ``T_F < T_S ≤ T_U`` — and :func:`write_run_set` gives each a valid ledger whose
header carries the case's real fault contract, but their rates and texts are invented: use
them for timing and invariants, never as results.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from sscbench import __version__
from sscbench.cases.caseset import CaseEntry, CaseSet
from sscbench.reconstruct.label import arrival_class
from sscbench.reconstruct.labels import EventStatus, EventTime, RunLabels
from sscbench.runs.episode import LEDGER_FILE

PAPER_RUNS = 1191
PAPER_CONFIGURATIONS: tuple[tuple[str, int], ...] = (
    ("F", 3),
    ("V", 3),
    ("L", 3),
    ("T", 1),
    ("S", 1),
)
"""Configuration ids and planned repetitions, as in the paper's Table I."""

# Chance that a refutation arrives at all, per operator (co-delivered ones always do).
_REFUTED = {"return_date": 1.0, "pay_source": 1.0, "item_option": 0.8, "write_effect": 0.45}
# Chance of adoption given the arrival class.
_ADOPT = {"before": 0.45, "after": 0.85, "absent": 0.9}
Stance = Literal["endorse", "retract", "undecidable"]
_STANCES: tuple[Stance, ...] = ("endorse", "endorse", "retract", "undecidable")


def _event(
    status: EventStatus, step: int | None = None, evidence: tuple[int, ...] = ()
) -> EventTime:
    return EventTime(status=status, step=step, reason="synthetic", evidence=evidence)


def _labels(entry: CaseEntry, configuration: str, repetition: int, rnd: random.Random) -> RunLabels:
    base: dict[str, Any] = {
        "run_id": f"{entry.case_id}-{configuration}-s{repetition}",
        "case_id": entry.case_id,
        "operator": entry.operator,
        "control": entry.control,
        "agent": configuration,
        "seed": repetition,
        "success": rnd.random() < 0.6,
        "triggered_reason": "synthetic",
        "adopted_reason": "synthetic",
    }
    finished = rnd.random() >= 0.03
    triggered = finished and rnd.random() < 0.9
    if not triggered:
        nothing = _event("none")
        return RunLabels(
            **base,
            finished=finished,
            triggered=False if finished else None,
            t_f=_event("never"),
            t_e=nothing,
            t_s=nothing,
            t_u=nothing,
            adopted=None,
            z_s=None,
            y_end=None,
        )
    t_f = rnd.randint(3, 9)
    draw = rnd.random()
    if draw < 0.15:
        t_s = _event("none")
    elif draw < 0.18:
        t_s = _event("undecidable")
    else:
        t_s = _event("found", t_f + rnd.randint(1, 8))
    if rnd.random() < 0.02:
        t_e = _event("undecidable")
    elif rnd.random() >= _REFUTED.get(entry.operator, 0.7):
        t_e = _event("never")
    elif entry.operator in ("return_date", "pay_source"):
        t_e = _event("found", t_f, (t_f,))
    else:
        step = t_f + rnd.randint(-2, 9)
        other = rnd.randint(max(0, step - 5), step)
        # Item options carry (product step, binding step): either may come last.
        evidence = (step, other) if rnd.random() < 0.6 else (other, step)
        t_e = _event("found", step, evidence)
    z_s = arrival_class(t_e, t_s)
    adopted: bool | None
    if t_s.status == "undecidable":
        adopted = None
    elif t_s.status == "none":
        adopted = False
    else:
        adopted = rnd.random() < _ADOPT.get(z_s, 0.7)
    t_u = _event("never")
    y_end: Stance | None = None
    if adopted and t_s.step is not None:
        t_u = _event("found", t_s.step + (0 if rnd.random() < 0.9 else rnd.randint(1, 4)))
        y_end = rnd.choice(_STANCES)
    return RunLabels(
        **base,
        finished=True,
        triggered=True,
        t_f=_event("found", t_f, (t_f,)),
        t_e=t_e,
        t_s=t_s,
        t_u=t_u,
        adopted=adopted,
        z_s=z_s,
        y_end=y_end,
    )


def synthetic_labels(
    case_set: CaseSet,
    *,
    runs: int = PAPER_RUNS,
    seed: int = 0,
    configurations: tuple[tuple[str, int], ...] = PAPER_CONFIGURATIONS,
    solved: float = 0.95,
) -> list[RunLabels]:
    """``runs`` scheduled runs over ``case_set``'s cases (and so its entity clusters).

    Each configuration "solves" a random share ``solved`` of the cases clean and is
    scheduled under fault for those, at each planned repetition; ``runs`` of these keys
    are kept. About 3% come back unfinished (missing), about 10% are not triggered.
    """
    rnd = random.Random(seed)
    keys = [
        (entry, configuration, repetition)
        for configuration, repetitions in configurations
        for entry in (c.entry for c in case_set.cases)
        if rnd.random() < solved
        for repetition in range(repetitions)
    ]
    if runs > len(keys):
        raise ValueError(f"only {len(keys)} runs can be scheduled on this case set, not {runs}")
    chosen = sorted(rnd.sample(range(len(keys)), runs))
    return [_labels(*keys[i], rnd) for i in chosen]


LABELS_FILE = "labels.jsonl"


def _run_dir(run_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", run_id)


def _ledger_lines(label: RunLabels, header: dict[str, Any]) -> Iterable[dict[str, Any]]:
    """A header, a plausible alternating history long enough for every labelled step, and
    (for a finished run) its end."""
    steps = [t.step for t in (label.t_f, label.t_e, label.t_s, label.t_u) if t.step is not None]
    length = max([*steps, 5]) + 3
    yield {**header, "run_id": label.run_id, "seed": label.seed}
    for step in range(length):
        turn, kind = divmod(step, 4)
        base = {"step": step, "turn": turn}
        if kind == 0:
            yield {**base, "kind": "user_message", "content": f"Please help with request {turn}."}
        elif kind == 1:
            yield {**base, "kind": "agent_message", "content": f"Looking into it (step {step})."}
        elif kind == 2:
            arguments = {"id": f"E{turn}"}
            yield {
                **base,
                "kind": "tool_call",
                "call_id": f"c{turn}",
                "name": "get_details",
                "arguments": arguments,
            }
        else:
            content = json.dumps({"id": f"E{turn}", "status": "ok", "note": "synthetic"})
            yield {
                **base,
                "kind": "tool_observation",
                "call_id": f"c{turn}",
                "content": content,
                "error": False,
            }
    if label.finished:
        yield {
            "kind": "run_end",
            "termination": "agent_stop",
            "steps": length,
            "success": label.success,
            "db_match": label.success,
            "communicate_ok": True,
            "final_state_hash": None,
        }


def write_run_set(root: Path, labels: Iterable[RunLabels], case_set: CaseSet) -> int:
    """Write a ledger per label (``root/<run>/ledger.jsonl``) and ``root/labels.jsonl``, one
    run at a time (memory stays flat); return the number of runs written."""
    contracts = {c.entry.case_id: c.contract.model_dump(mode="json") for c in case_set.cases}
    root.mkdir(parents=True, exist_ok=True)
    written = 0
    with (root / LABELS_FILE).open("w", encoding="utf-8") as out:
        for label in labels:
            fault = contracts.get(label.case_id or "")
            header = {
                "kind": "header",
                "schema_version": 4,
                "sscbench_version": __version__,
                "tau2_version": "synthetic",
                "domain": (fault or {}).get("domain", "airline"),
                "task_id": (fault or {}).get("task_id", "0"),
                "case_id": label.case_id,
                "agent": {"name": label.agent, "params": {}},
                "user": {"name": "scripted", "params": {}},
                "max_steps": 100,
                "configuration": label.configuration or None,
                "fault": fault,
            }
            run = root / _run_dir(label.run_id)
            run.mkdir(exist_ok=True)
            text = "".join(
                json.dumps(x, ensure_ascii=False) + "\n" for x in _ledger_lines(label, header)
            )
            (run / LEDGER_FILE).write_text(text, encoding="utf-8")
            out.write(label.model_dump_json() + "\n")
            written += 1
    return written
