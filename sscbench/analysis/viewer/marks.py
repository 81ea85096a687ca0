"""What the viewer and ``sscbench show`` mark on a run: event times, evidence, classified uses.

Kept free of HTML and of any terminal library so that the browser viewer and the terminal
printer mark the same steps with the same names.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sscbench.reconstruct.labels import EventTime, RunLabels

EVENTS = ("t_f", "t_e", "t_s", "t_u")
EVENT_NAMES = {"t_f": "T_F", "t_e": "T_E", "t_s": "T_S", "t_u": "T_U"}
EVENT_MEANING = {
    "t_f": "fault-bearing observation delivered",
    "t_e": "valid refutation completely in the history",
    "t_s": "first dependent use after the fault",
    "t_u": "first erroneous reliance",
}


def slug(run_id: str) -> str:
    """An HTML id for a run (letters, digits, ``_.-`` only)."""
    return "run-" + re.sub(r"[^A-Za-z0-9_.-]", "_", run_id)


def time_text(t: EventTime) -> str:
    """An event time in words: ``step 7``, ``∞ (never)``, ``no dependent use``, ``undecidable``."""
    if t.status == "found":
        return f"step {t.step}"
    return {"never": "∞ (never)", "none": "no dependent use", "undecidable": "undecidable"}[
        t.status
    ]


def short_time(t: EventTime) -> str:
    """Step number; ``∞`` never; ``–`` no dependent use; ``?`` undecidable."""
    if t.status == "found":
        return str(t.step)
    return {"never": "∞", "none": "–", "undecidable": "?"}[t.status]


def shown(value: Any) -> str:
    """A value as the page shows it: strings as they are, anything else as JSON (so a
    Python ``None``/``True`` never reaches a reader; they read ``null``/``true``)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def yes_no(value: bool | None, unknown: str = "undefined") -> str:
    """``yes`` / ``no`` / ``unknown``: a flag in words."""
    return unknown if value is None else ("yes" if value else "no")


@dataclass(frozen=True)
class StepMarks:
    """What to mark on each step of one run."""

    events: dict[int, list[str]]
    evidence: dict[int, list[str]]
    uses: dict[int, list[str]]

    def tags(self, step: int) -> list[tuple[str, str, str]]:
        """(css class, text, tooltip) of every mark on ``step``, events first."""
        out = [(f"m-{n}", EVENT_NAMES[n], EVENT_MEANING[n]) for n in self.events.get(step, [])]
        out += [
            ("m-evidence", f"{EVENT_NAMES[n]} evidence", f"evidence for {EVENT_NAMES[n]}")
            for n in self.evidence.get(step, [])
        ]
        out += [("m-use", kind, "classified use") for kind in self.uses.get(step, [])]
        return out


NO_MARKS = StepMarks({}, {}, {})


def step_marks(labels: RunLabels | None) -> StepMarks:
    """Event times, their evidence steps and classified uses, by step."""
    if labels is None:
        return NO_MARKS
    events: dict[int, list[str]] = {}
    evidence: dict[int, list[str]] = {}
    uses: dict[int, list[str]] = {}
    for name in EVENTS:
        t: EventTime = getattr(labels, name)
        if t.status == "found" and t.step is not None:
            events.setdefault(t.step, []).append(name)
        for step in t.evidence:
            if step != t.step:
                evidence.setdefault(step, []).append(name)
    for use in labels.uses:
        at = use.get("step")
        if not isinstance(at, int):
            continue
        kind = str(use.get("kind", "use")).replace("_", " ")
        if use.get("erroneous") is True:
            kind += " (erroneous)"
        uses.setdefault(at, []).append(kind)
    return StepMarks(events, evidence, uses)


def label_rows(labels: RunLabels) -> list[tuple[str, str]]:
    """Every label of a run with the reconstructor's reason, as (name, text) rows."""
    rows = [
        (EVENT_NAMES[n], f"{time_text(getattr(labels, n))} — {getattr(labels, n).reason}")
        for n in EVENTS
    ]
    triggered = yes_no(labels.triggered, "unknown (unfinished run)")
    rows += [
        ("adopted", f"{yes_no(labels.adopted)} — {labels.adopted_reason}"),
        ("Z_S", labels.z_s or "— (no arrival class)"),
        ("Y_end", labels.y_end or "—"),
        ("triggered", f"{triggered} — {labels.triggered_reason}"),
        ("case", labels.case_id or "— (clean run)"),
    ]
    return rows


def fault_rows(fault: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The injected fault as the viewer lists it: what it is about, v (true) and v′."""
    if not fault:
        return [("fault", "none (clean run)")]
    target = fault.get("target") or {}
    return [
        ("operator", shown(fault.get("operator", "?"))),
        ("fact", shown(target.get("scope") or ", ".join(target.get("paths") or ()))),
        ("true v", shown(fault.get("authoritative_value"))),
        ("injected v′", shown(fault.get("injected_value"))),
    ]
