"""``review agree``: everything a review directory yields, computed in one place.

Reads the reviewers' append-only files, computes pre-adjudication κ and exact-step
agreement, resolves the reference (unanimity or adjudication), joins it to the runs
through the key, compares it with the automatic labels, and writes ``reference.jsonl``
(what ``oracles evaluate --reference DIR`` scores against). Calibration packets (flagged
in the key) are split off first and only ever reach the calibration summary.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

from sscbench.errors import ConfigError
from sscbench.reconstruct.label import label_run
from sscbench.reconstruct.labels import RunLabels
from sscbench.review.agreement import (
    ADJUDICATOR,
    REVIEWERS,
    KappaRow,
    Reference,
    StepRow,
    kappa_table,
    reference_labels,
    step_agreement,
)
from sscbench.review.calibration import (
    CalibrationSummary,
    calibration_summary,
    calibration_table,
    split,
)
from sscbench.review.compare import COMPARED, Comparison, compare_with_reference
from sscbench.review.export import EXPORT_FILE, PACKETS_DIR, KeyEntry, read_key, read_run_labels
from sscbench.review.labels import load_labels

REFERENCE_FILE = "reference.jsonl"


@dataclass(frozen=True)
class AgreementReport:
    """κ, step agreement, the reference and its comparison with the automatic labels."""

    packets: int
    reviewers: tuple[str, ...]
    adjudicator: str
    labelled_by_all: int
    kappa: list[KappaRow]
    steps: list[StepRow]
    references: list[Reference]
    comparison: Comparison
    calibration: CalibrationSummary


def packet_ids(root: Path) -> list[str]:
    """Ids of the exported packets."""
    folder = root / PACKETS_DIR
    if not folder.is_dir():
        raise ConfigError(f"{root} has no {PACKETS_DIR}/; is it a directory from `review export`?")
    return sorted(p.stem for p in folder.glob("*.json"))


def automatic_for(root: Path, key: dict[str, KeyEntry]) -> dict[str, RunLabels]:
    """packet id → the automatic labels the sample was drawn from (or a fresh
    reconstruction when that labels file is gone)."""
    export = root / EXPORT_FILE
    by_run: dict[str, RunLabels] = {}
    if export.is_file():
        labels_file = json.loads(export.read_text(encoding="utf-8")).get("labels_file")
        if labels_file and Path(labels_file).is_file():
            by_run = {x.run_id: x for x in read_run_labels(Path(labels_file))}
    out: dict[str, RunLabels] = {}
    for pid, entry in key.items():
        label = by_run.get(entry.run_id)
        if label is None and Path(entry.run_dir).is_dir():
            label = label_run(Path(entry.run_dir))
        if label is not None:
            out[pid] = label
    return out


def agreement_report(
    root: Path, reviewers: Sequence[str] = REVIEWERS, adjudicator: str = ADJUDICATOR
) -> AgreementReport:
    """Compute the whole report of a review directory."""
    if len(reviewers) < 2:
        raise ConfigError("agreement needs at least two reviewers")
    if adjudicator in reviewers:
        raise ConfigError(f"the adjudicator {adjudicator!r} cannot also be a first-round reviewer")
    exported = packet_ids(root)
    labels = load_labels(root)
    unknown = sorted({p for by in labels.values() for p in by} - set(exported))
    if unknown:
        raise ConfigError(f"labels name packets that were not exported: {', '.join(unknown[:5])}")
    key = read_key(root)
    practice = {pid for pid, entry in key.items() if entry.calibration}
    packets = [p for p in exported if p not in practice]
    everyone = {r: labels.get(r, {}) for r in (*reviewers, adjudicator)}
    full = split(everyone, set(packets))
    references = reference_labels(packets, full, reviewers, adjudicator)
    comparison = compare_with_reference(references, automatic_for(root, key))
    return AgreementReport(
        packets=len(packets),
        reviewers=tuple(reviewers),
        adjudicator=adjudicator,
        labelled_by_all=len(set.intersection(*(set(full[r]) for r in reviewers))),
        kappa=kappa_table(full, reviewers),
        steps=step_agreement(full, reviewers),
        references=references,
        comparison=comparison,
        calibration=calibration_summary(
            sorted(practice & set(exported)), everyone, reviewers, adjudicator
        ),
    )


def write_reference(root: Path, report: AgreementReport) -> Path:
    """``reference.jsonl``: one line per packet, joined with its run id."""
    key = read_key(root)
    path = root / REFERENCE_FILE
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for ref in report.references:
            entry = key.get(ref.packet_id)
            record = {"run_id": entry.run_id if entry else None, **ref.model_dump(mode="json")}
            fh.write(json.dumps(record, separators=(",", ":")) + "\n")
    tmp.replace(path)
    return path


def _kappa_text(row: KappaRow) -> str:
    return "n/a" if row.result.kappa is None else f"{row.result.kappa:.3f}"


def report_tables(report: AgreementReport) -> list[Table]:
    """κ, step agreement, reference status and automatic-vs-reference tables."""
    who = "".join(report.reviewers)
    kappa = Table(
        title=f"pre-adjudication agreement of {', '.join(report.reviewers)} "
        f"({report.labelled_by_all} of {report.packets} packets labelled by all)"
    )
    for column in ("quantity", "Fleiss κ", "P̄ observed", "P̄ chance", "unanimous"):
        kappa.add_column(column, justify="left" if column == "quantity" else "right")
    for row in report.kappa:
        kappa.add_row(
            row.quantity,
            _kappa_text(row),
            f"{row.result.observed:.3f}",
            f"{row.result.expected:.3f}",
            f"{row.unanimous}/{row.result.subjects}",
        )
    steps = Table(title=f"exact-step agreement where {who} all located the event")
    for column in ("event", "same step", "located by all"):
        steps.add_column(column, justify="left" if column == "event" else "right")
    for s in report.steps:
        steps.add_row(s.event, str(s.exact), str(s.located_by_all))
    status = Table(title=f"reference labels (adjudicator {report.adjudicator})")
    for column in ("status", "packets"):
        status.add_column(column)
    counts: dict[str, int] = {}
    for ref in report.references:
        kind: str = ref.status
        if ref.status == "accepted":
            adjudicated = any(s == "adjudicated" for s in ref.sources.values())
            kind = "accepted (adjudicated)" if adjudicated else "accepted (unanimous)"
        counts[kind] = counts.get(kind, 0) + 1
    for kind in ("accepted (unanimous)", "accepted (adjudicated)", "pending", "inconsistent"):
        status.add_row(kind, str(counts.get(kind, 0)))
    auto = Table(title="automatic labels vs adjudicated reference")
    for column in ("quantity", "agree", "compared"):
        auto.add_column(column, justify="left" if column == "quantity" else "right")
    for q in COMPARED:
        auto.add_row(q, str(report.comparison.agree[q]), str(report.comparison.compared[q]))
    tables = [kappa, steps, status, auto]
    if report.calibration.packets:
        tables.append(calibration_table(report.calibration))
    return tables
