"""Write audit records as JSON and a self-contained, escaped HTML page — all or nothing.

Files are written to temporary names and renamed only once every file is complete, so a
failure leaves nothing partial behind. Outputs carry no timestamps: the same inputs give
byte-identical files.
"""

from __future__ import annotations

import os
from html import escape
from pathlib import Path

from pydantic import BaseModel

from sscbench.audit.checks import CHECK_TEXT, CHECKS
from sscbench.audit.records import AuditRecord, MatrixRecord
from sscbench.errors import ConfigError

_STYLE = (
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:72em}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.3em .5em;"
    "text-align:left;vertical-align:top}.pass{background:#e3f4e1}.violated{background:#f8d7d7}"
    ".not_applicable{background:#eee}.unresolved{background:#fff3cd}"
)


def write_outputs(out: Path, files: dict[str, str]) -> list[Path]:
    """Write ``files`` (name → text) into ``out``; refuse to replace different content."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; pass a directory")
    for name, text in files.items():
        path = out / name
        if path.exists() and path.read_text(encoding="utf-8") != text:
            raise ConfigError(
                f"{path} exists with other content; pass another --out (nothing is overwritten)"
            )
    out.mkdir(parents=True, exist_ok=True)
    temps = []
    for name, text in files.items():
        tmp = out / f".{name}.tmp"
        tmp.write_text(text, encoding="utf-8")
        temps.append((tmp, out / name))
    for tmp, final in temps:
        os.replace(tmp, final)
    return [final for _, final in temps]


def to_json(record: BaseModel) -> str:
    """Stable JSON text of a record."""
    return record.model_dump_json(indent=1) + "\n"


def _page(title: str, body: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}'
        f"</title><style>{_STYLE}</style></head><body><h1>{escape(title)}</h1>{body}"
        "</body></html>\n"
    )


def _row(cells: list[str], cls: str = "") -> str:
    attr = f' class="{escape(cls)}"' if cls else ""
    return f"<tr{attr}>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>"


def _head(cells: list[str]) -> str:
    return "<tr>" + "".join(f"<th>{escape(c)}</th>" for c in cells) + "</tr>"


def audit_html(record: AuditRecord) -> str:
    """The audit as a page: checks × tasks grid, then every non-passing detail."""
    grid = [_head(["check", "meaning", *record.tasks])]
    by = {(r.check, r.task_id): r for r in record.results}
    for check in CHECKS:
        cells = "".join(
            f'<td class="{escape(by[(check, t)].status)}">{escape(by[(check, t)].status)}</td>'
            for t in record.tasks
        )
        grid.append(f"<tr><td>{escape(check)}</td><td>{escape(CHECK_TEXT[check])}</td>{cells}</tr>")
    details = [_head(["check", "task", "status", "detail"])]
    details += [
        _row([r.check, r.task_id, r.status, r.detail], r.status)
        for r in record.results
        if r.status != "pass"
    ]
    faults = [_head(["task", "fault plans"])] + [
        _row([t, ", ".join(p) or "none"]) for t, p in record.fault_plans.items()
    ]
    body = (
        f"<p>Grader: <code>{escape(record.grader)}</code>; target {escape(record.target)}, "
        f"domain {escape(record.domain)}.</p><table>{''.join(grid)}</table>"
        f"<h2>Violations and not-applicable checks</h2><table>{''.join(details)}</table>"
        f"<h2>Fault plans</h2><table>{''.join(faults)}</table>"
    )
    return _page(f"Grader audit: {record.target}/{record.domain}", body)


def matrix_html(record: MatrixRecord) -> str:
    """The matrix as a page: per-class table, unique detections, every combination."""
    d, n = record.detected_of_distinguishable
    a, m = record.detected_of_all
    classes = [
        _head(
            [
                "class",
                "combinations",
                "distinguishable",
                "detected",
                "detected / dist.",
                "triggered by",
                "necessary",
            ]
        )
    ] + [
        _row(
            [
                c.description,
                str(c.combinations),
                str(c.distinguishable),
                str(c.detected),
                f"{c.detected_of_distinguishable}/{c.distinguishable}",
                ", ".join(c.triggered_by) or "none",
                ", ".join(c.necessary) or "none",
            ]
        )
        for c in record.classes
    ]
    unique = [_head(["check", "unique detections"])] + [
        _row([k, str(v)]) for k, v in record.unique_detections.items()
    ]
    combos = [_head(["variant", "class", "target", "probe", "detected by", "evidence"])] + [
        _row(
            [
                c.variant,
                c.defect_class,
                c.target,
                c.distinguishable,
                ", ".join(c.detected_by) or "none",
                c.probe_evidence[:300],
            ],
            "unresolved" if c.distinguishable == "unresolved" else "",
        )
        for c in record.combinations
    ]
    base = "".join(
        f"<li>{escape(t)}: {escape(', '.join(v) or 'none')}</li>"
        for t, v in record.base_violations.items()
    )
    body = (
        f"<p>{record.variants} variants × {len(record.targets)} targets. Detected {d} of {n} "
        f"distinguishable combinations; {a} of all {m} (unresolved counted as misses).</p>"
        f"<p>Missed: {escape(', '.join(record.missed) or 'none')}</p>"
        f"<h2>Per defect class</h2><table>{''.join(classes)}</table>"
        f"<h2>Unique detections (ablation)</h2><table>{''.join(unique)}</table>"
        f"<h2>Violations of the unmodified graders (not counted)</h2><ul>{base}</ul>"
        f"<h2>Every combination</h2><table>{''.join(combos)}</table>"
    )
    return _page("Grader defect-injection matrix", body)
