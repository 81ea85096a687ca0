"""Measurement validation without humans: the scripted agents' truth as the reference.

The paper validates its automatic labels against an adjudicated human reference (Table
III(b)) and scores automatic oracles against the same reference (Table V). ``sscbench
review`` and ``sscbench oracles evaluate --reference REVIEWDIR`` do exactly that once
reviewers have labelled. The offline demo has no reviewers, but its scripted agents record
what they really did, so this module runs both comparisons with that truth standing in for
the adjudicated reference — always labelled as such:

* **automatic vs reference** — the reconstruction's ``Z_S``, ``A``, and ``T_S``/``T_U``
  (status on every run; step where both located the event) against the truth. ``T_E`` is
  not compared: the stand-in takes it from the reconstructor (a deterministic relation on
  the delivered history), so comparing it would compare the reconstructor with itself.
* **oracle scores** — every offline oracle (no API key needed) on the truth items plus
  clean negative controls; LLM oracles are listed as not run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict
from rich.table import Table

from sscbench.oracles.base import make_oracle, oracle_names, oracle_setting
from sscbench.oracles.dataset import Item, clean_items, ledgers, truth_items, truth_z_s
from sscbench.oracles.evaluate import OracleResult, run_oracle, write_results
from sscbench.oracles.reconstructor import ReconstructorOracle
from sscbench.reconstruct.labels import EventTime, LabelView, RunLabels
from sscbench.reconstruct.validate import GroundTruth, ground_truths, truth_of
from sscbench.records.ledger import Ledger
from sscbench.records.versioning import DerivedDocument
from sscbench.review.agreement import Reference
from sscbench.review.compare import Comparison, compare_with_reference
from sscbench.review.labels import Mark
from sscbench.terminal import compact_table

SHOWN = ("Z_S", "A", "T_S status", "T_S step", "T_U status", "T_U step")
"""The compared quantities the truth stand-in can speak to (not ``T_E``)."""
COMPARISON_FILE = "comparison.json"


class Agreement(BaseModel):
    """Agree / compared for one quantity."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agree: int
    compared: int


class ComparisonRecord(DerivedDocument):
    """``comparison.json``: the automatic labels against a reference (Table III(b))."""

    REGENERATE: ClassVar[str] = "`sscbench oracles evaluate` (or `sscbench demo`)"

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = 1
    reference: Literal["truth", "review"]
    quantities: dict[str, Agreement]
    mismatches: list[tuple[str, str, str, str]]
    """(packet or run id, quantity, automatic, reference), at most the first 200."""


def comparison_record(kind: Literal["truth", "review"], comparison: Comparison) -> ComparisonRecord:
    """The record of ``comparison``; the truth stand-in omits ``T_E`` (see the module doc)."""
    shown = SHOWN if kind == "truth" else tuple(comparison.compared)
    return ComparisonRecord(
        reference=kind,
        quantities={
            q: Agreement(agree=comparison.agree[q], compared=comparison.compared[q]) for q in shown
        },
        mismatches=[m for m in comparison.mismatches if m[1] in shown][:200],
    )


def review_comparison(review_dir: Path, labels: Mapping[str, RunLabels]) -> Comparison:
    """The automatic labels of the reviewed runs against the accepted human reference."""
    from sscbench.review.export import read_key
    from sscbench.review.report import agreement_report

    key = read_key(review_dir)
    by_packet = {
        packet: labels[entry.run_id] for packet, entry in key.items() if entry.run_id in labels
    }
    return compare_with_reference(agreement_report(review_dir).references, by_packet)


@dataclass
class TruthValidation:
    """Both comparisons, with what they were computed on."""

    comparison: ComparisonRecord
    results: list[OracleResult]
    items: list[Item]
    not_run: list[str]
    truths: dict[Path, GroundTruth | None]
    """Each run directory's ground truth, for callers that compare more."""


def _mark(event: EventTime) -> Mark:
    if event.status == "found":
        return Mark(status="found", step=event.step)
    return Mark(status=event.status)


def truth_references(
    runs: Sequence[tuple[Path, Ledger]],
    labels: Mapping[str, LabelView],
    truths: Mapping[Path, GroundTruth | None] | None = None,
) -> list[Reference]:
    """One accepted reference per triggered scripted faulted run (packet id = run id);
    ``truths``: the runs' ground truths by directory, when already derived."""
    refs = []
    for run_dir, ledger in runs:
        truth = truth_of(run_dir, truths, ledger)
        label = labels.get(ledger.header.run_id)
        if truth is None or not truth.triggered or label is None:
            continue
        refs.append(truth_reference(truth, label))
    return refs


def truth_reference(truth: GroundTruth, label: LabelView) -> Reference:
    """The accepted reference a triggered scripted run's ground truth stands for (packet
    id = run id), its arrival class from the run's automatic ``T_E``."""
    t_s = Mark(status="found", step=truth.t_s) if truth.t_s is not None else None
    t_u = Mark(status="found", step=truth.t_u) if truth.t_u is not None else None
    adopted = None if truth.adopted is None else ("yes" if truth.adopted else "no")
    reference = {
        "packet_id": truth.run_id,
        "status": "accepted",
        "t_e": _mark(label.t_e),
        "t_s": t_s or Mark(status="none"),
        "t_u": t_u or Mark(status="never"),
        "adopted": adopted,
        "z_s": truth_z_s(label.t_e, truth),
        "sources": {},
        "note": "scripted ground truth",
    }
    return Reference.model_validate(reference)  # validates z_s and adopted


def validate_against_truth(
    rundir: Path,
    clean_dirs: Sequence[Path],
    labels: Sequence[RunLabels],
    out: Path,
    runs: Sequence[tuple[Path, Ledger]] | None = None,
) -> TruthValidation:
    """Compare the automatic labels and score the offline oracles; write the oracle
    verdicts and scores under ``out`` (as ``oracles evaluate`` does).

    ``labels`` are the rule-based labels of ``rundir``'s runs (the reconstructor oracle
    takes them rather than labelling again); ``runs``: its (run directory, ledger) pairs
    when the caller has already parsed them."""
    by_id = {label.run_id: label for label in labels}
    if runs is None:
        runs = ledgers([rundir])  # each ledger read, and each ground truth derived, once
    truths = ground_truths(runs)
    comparison = compare_with_reference(truth_references(runs, by_id, truths), by_id)
    out.mkdir(parents=True, exist_ok=True)
    record = comparison_record("truth", comparison)
    (out / COMPARISON_FILE).write_text(record.model_dump_json(indent=1) + "\n", encoding="utf-8")
    faulted = truth_items(runs, by_id, truths)
    items = faulted + clean_items([*runs, *ledgers(clean_dirs)], faulted)
    results, not_run = [], []
    for name in oracle_names():
        setting = oracle_setting(name)
        if setting.calls != "offline":
            not_run.append(name)
            continue
        oracle = make_oracle(name)
        if isinstance(oracle, ReconstructorOracle):
            oracle.reuse(by_id)
        results.append(run_oracle(name, oracle, items, setting=setting))
    write_results(out, items, results)
    return TruthValidation(record, results, items, not_run, truths)


def comparison_table(record: ComparisonRecord, title: str) -> Table:
    """Agreement per quantity (the paper's Table III(b) layout)."""
    table = compact_table(title, ("quantity", "agree", "compared", "agreement"), left=("quantity",))
    for quantity, a in record.quantities.items():
        share = f"{a.agree / a.compared:.1%}" if a.compared else "–"
        table.add_row(quantity, str(a.agree), str(a.compared), share)
    return table
