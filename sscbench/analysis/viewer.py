"""The trajectory viewer: each run's numbered model-visible history with its event times.

One collapsible ``<details>`` per run, grouped by operator and configuration. Every step of
the ledger is listed with its number, who produced it (user, agent, tool call, tool
observation) and its text; the steps labelled ``T_F``, ``T_E``, ``T_S`` and ``T_U`` (and the
evidence steps and classified uses behind them) carry visible markers. Everything that
comes from a run — model, user and tool text, tool arguments, identifiers, reasons — passes
through :func:`html.escape` before it reaches the page; nothing from a run is ever placed
inside a ``<script>`` or an event-handler attribute.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

from sscbench.errors import LedgerError
from sscbench.reconstruct.labels import EventTime, RunLabels
from sscbench.runs.episode import LEDGER_FILE
from sscbench.runs.events import AgentMessage, AgentToolCall, ToolObservation, UserMessage
from sscbench.runs.ledger import Ledger, read_ledger

EVENTS = ("t_f", "t_e", "t_s", "t_u")
EVENT_NAMES = {"t_f": "T_F", "t_e": "T_E", "t_s": "T_S", "t_u": "T_U"}
EVENT_MEANING = {
    "t_f": "fault-bearing observation delivered",
    "t_e": "valid refutation completely in the history",
    "t_s": "first dependent use after the fault",
    "t_u": "first erroneous reliance",
}
KIND_NAMES = {
    "user_message": "user",
    "agent_message": "agent",
    "tool_call": "tool call",
    "tool_observation": "tool result",
}

VIEWER_CSS = """
.runs-group>summary{font-weight:600;cursor:pointer;margin:.4em 0}
details.run{border:1px solid #ccc;border-radius:4px;margin:.3em 0 .3em 1em;background:#fff}
details.run>summary{cursor:pointer;padding:.3em .5em;font-family:ui-monospace,monospace;
 font-size:.85em}
details.run[open]>summary{border-bottom:1px solid #ddd;background:#f6f6f6}
.run-meta{margin:.5em 1em;font-size:.85em}
.run-meta dt{font-weight:600;float:left;clear:left;width:5.5em}
.run-meta dd{margin-left:6em}
ol.history{list-style:none;margin:0;padding:0 .5em .5em .5em}
ol.history>li{display:grid;grid-template-columns:3.2em 7em 1fr;gap:.5em;
 border-top:1px solid #eee;padding:.25em 0}
.step{font-family:ui-monospace,monospace;color:#555;text-align:right}
.who{font-size:.8em;color:#333}
.text{white-space:pre-wrap;overflow-wrap:anywhere;font-family:ui-monospace,monospace;
 font-size:.8em;margin:0}
li.k-user_message .who{color:#6a3d9a} li.k-agent_message .who{color:#1f5f99}
li.k-tool_call .who{color:#7a5a00} li.k-tool_observation .who{color:#3a6b35}
li.ev{background:#fffbe6}
.mark{display:inline-block;font:600 .75em/1.5 ui-monospace,monospace;border-radius:3px;
 padding:0 .35em;margin:0 .3em .2em 0;color:#fff}
.m-t_f{background:#b00020}.m-t_e{background:#0072B2}.m-t_s{background:#7a5a00}
.m-t_u{background:#D55E00}.m-evidence{background:#fff;color:#0072B2;border:1px solid #0072B2}
.m-use{background:#fff;color:#444;border:1px solid #888}
.badge{display:inline-block;font-size:.8em;border-radius:3px;padding:0 .3em;margin-left:.3em;
 border:1px solid #999}
.b-adopted{border-color:#D55E00;color:#D55E00}
"""


def slug(run_id: str) -> str:
    """An HTML id for a run (letters, digits, ``_.-`` only)."""
    return "run-" + re.sub(r"[^A-Za-z0-9_.-]", "_", run_id)


def load_ledgers(run_root: Path, problems: list[str] | None = None) -> dict[str, Ledger]:
    """Every ledger under ``run_root`` keyed by its header's run id (partial runs skipped).

    An unreadable ledger is skipped and described in ``problems`` (when given) rather than
    failing the whole report; its run then shows "ledger not found".
    """
    out: dict[str, Ledger] = {}
    for path in sorted(run_root.rglob(LEDGER_FILE)):
        if ".incomplete-" in path.parent.name:
            continue
        try:
            ledger = read_ledger(path)
        except LedgerError as exc:
            if problems is not None:
                problems.append(str(exc))
            continue
        out.setdefault(ledger.header.run_id, ledger)
    return out


def _time_text(t: EventTime) -> str:
    if t.status == "found":
        return f"step {t.step}"
    return {"never": "∞ (never)", "none": "no dependent use", "undecidable": "undecidable"}[
        t.status
    ]


def _short_time(t: EventTime) -> str:
    """Step number; ``∞`` never; ``–`` no dependent use; ``?`` undecidable."""
    if t.status == "found":
        return str(t.step)
    return {"never": "∞", "none": "–", "undecidable": "?"}[t.status]


@dataclass(frozen=True)
class StepMarks:
    """What to mark on each step of one run."""

    events: dict[int, list[str]]
    evidence: dict[int, list[str]]
    uses: dict[int, list[str]]


def step_marks(labels: RunLabels) -> StepMarks:
    """Event times, their evidence steps and classified uses, by step."""
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


def _event_body(event: UserMessage | AgentMessage | AgentToolCall | ToolObservation) -> str:
    if isinstance(event, AgentToolCall):
        args = json.dumps(event.arguments, ensure_ascii=False, sort_keys=False)
        return f"{event.name}({args})  [call_id {event.call_id}]"
    if isinstance(event, ToolObservation):
        prefix = "ERROR " if event.error else ""
        return f"{prefix}[call_id {event.call_id}] {event.content}"
    return event.content


def render_history(ledger: Ledger, labels: RunLabels | None) -> str:
    """The numbered model-visible history of one run as an ``<ol>`` (all text escaped)."""
    marks = step_marks(labels) if labels is not None else StepMarks({}, {}, {})
    items: list[str] = []
    for event in ledger.events:
        tags: list[str] = []
        for name in marks.events.get(event.step, []):
            tags.append(
                f'<span class="mark m-{name}" title="{escape(EVENT_MEANING[name])}">'
                f"{EVENT_NAMES[name]}</span>"
            )
        for name in marks.evidence.get(event.step, []):
            tags.append(
                f'<span class="mark m-evidence" title="evidence for {EVENT_NAMES[name]}">'
                f"{EVENT_NAMES[name]} evidence</span>"
            )
        for kind in marks.uses.get(event.step, []):
            tags.append(f'<span class="mark m-use">{escape(kind)}</span>')
        css = f"k-{event.kind}" + (" ev" if event.step in marks.events else "")
        items.append(
            f'<li class="{css}" data-step="{event.step}">'
            f'<span class="step">{event.step}</span>'
            f'<span class="who">{KIND_NAMES[event.kind]}</span>'
            f'<div>{"".join(tags)}<pre class="text">{escape(_event_body(event))}</pre></div>'
            "</li>"
        )
    return f'<ol class="history">{"".join(items)}</ol>'


def _meta(labels: RunLabels | None, ledger: Ledger | None) -> str:
    rows: list[tuple[str, str]] = []
    if labels is not None:
        for name in EVENTS:
            t: EventTime = getattr(labels, name)
            rows.append((EVENT_NAMES[name], f"{_time_text(t)} — {t.reason}"))
        adopted = {True: "yes", False: "no", None: "undefined"}[labels.adopted]
        rows += [
            ("adopted", f"{adopted} — {labels.adopted_reason}"),
            ("Z_S", str(labels.z_s)),
            ("Y_end", str(labels.y_end)),
            ("triggered", f"{labels.triggered} — {labels.triggered_reason}"),
            ("case", str(labels.case_id)),
        ]
    if ledger is not None and ledger.end is not None:
        rows.append(("end", f"{ledger.end.termination}, success={ledger.end.success}"))
    body = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows)
    return f'<dl class="run-meta">{body}</dl>'


def _summary(run_id: str, labels: RunLabels | None) -> str:
    parts = [escape(run_id)]
    if labels is not None:
        times = " ".join(f"{EVENT_NAMES[n]}={_short_time(getattr(labels, n))}" for n in EVENTS)
        parts.append(f'<span class="badge">{times}</span>')
        if labels.adopted:
            parts.append('<span class="badge b-adopted">adopted</span>')
        if labels.control:
            parts.append('<span class="badge">control</span>')
        if labels.z_s is not None:
            parts.append(f'<span class="badge">Z_S={escape(labels.z_s)}</span>')
    return " ".join(parts)


def render_run(run_id: str, ledger: Ledger | None, labels: RunLabels | None) -> str:
    """One collapsible run: summary line, labels with reasons, numbered history."""
    if ledger is None:
        body = '<p class="run-meta">ledger not found under the run directory</p>'
    else:
        body = render_history(ledger, labels)
    attrs = ""
    if labels is not None:
        attrs = (
            f' data-adopted="{escape(str(labels.adopted).lower())}"'
            f' data-zs="{escape(str(labels.z_s))}"'
        )
    return (
        f'<details class="run" id="{escape(slug(run_id))}"{attrs}>'
        f"<summary>{_summary(run_id, labels)}</summary>"
        f"{_meta(labels, ledger)}{body}</details>"
    )


def _group_key(labels: RunLabels) -> tuple[str, str]:
    return (labels.operator or "clean", labels.configuration or labels.agent)


def render_viewer(labels: Sequence[RunLabels], ledgers: Mapping[str, Ledger]) -> str:
    """All labelled runs, grouped by operator → configuration, each group collapsible."""
    groups: dict[tuple[str, str], list[RunLabels]] = {}
    for lab in labels:
        groups.setdefault(_group_key(lab), []).append(lab)
    parts: list[str] = []
    for (operator, configuration), items in sorted(groups.items()):
        items = sorted(items, key=lambda x: (x.case_id or "", x.seed, x.run_id))
        adopted = sum(x.adopted is True for x in items)
        runs = "".join(render_run(x.run_id, ledgers.get(x.run_id), x) for x in items)
        parts.append(
            '<details class="runs-group">'
            f"<summary>{escape(operator)} × {escape(configuration)} — {len(items)} runs, "
            f"{adopted} adopted</summary>{runs}</details>"
        )
    if not parts:
        parts.append("<p>No labelled runs.</p>")
    return "".join(parts)
