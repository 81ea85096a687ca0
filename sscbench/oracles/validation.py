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

from rich.table import Table

from sscbench.oracles.base import make_oracle, oracle_names, oracle_setting
from sscbench.oracles.dataset import Item, build_items, ledgers, truth_z_s
from sscbench.oracles.evaluate import OracleResult, run_oracle, write_results
from sscbench.reconstruct.labels import EventTime, RunLabels
from sscbench.reconstruct.validate import ground_truth
from sscbench.review.agreement import Reference
from sscbench.review.compare import Comparison, compare_with_reference
from sscbench.review.labels import Mark

SHOWN = ("Z_S", "A", "T_S status", "T_S step", "T_U status", "T_U step")
"""The compared quantities the truth stand-in can speak to (not ``T_E``)."""


@dataclass
class TruthValidation:
    """Both comparisons, with what they were computed on."""

    comparison: Comparison
    results: list[OracleResult]
    items: list[Item]
    not_run: list[str]


def _mark(event: EventTime) -> Mark:
    if event.status == "found":
        return Mark(status="found", step=event.step)
    return Mark(status=event.status)


def truth_references(rundir: Path, labels: Mapping[str, RunLabels]) -> list[Reference]:
    """One accepted reference per triggered scripted faulted run (packet id = run id)."""
    refs = []
    for run_dir, ledger in ledgers([rundir]):
        truth = ground_truth(run_dir)
        label = labels.get(ledger.header.run_id)
        if truth is None or not truth.triggered or label is None:
            continue
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
        refs.append(Reference.model_validate(reference))  # validates z_s and adopted
    return refs


def validate_against_truth(
    rundir: Path, clean_dirs: Sequence[Path], labels: Sequence[RunLabels], out: Path
) -> TruthValidation:
    """Compare the automatic labels and score the offline oracles; write the oracle
    verdicts and scores under ``out`` (as ``oracles evaluate`` does)."""
    by_id = {label.run_id: label for label in labels}
    comparison = compare_with_reference(truth_references(rundir, by_id), by_id)
    items, _ = build_items(rundir, "truth", clean_dirs, by_id)
    results, not_run = [], []
    for name in oracle_names():
        setting = oracle_setting(name)
        if setting.calls != "offline":
            not_run.append(name)
            continue
        results.append(run_oracle(name, make_oracle(name), items, setting=setting))
    write_results(out, items, results)
    return TruthValidation(comparison, results, items, not_run)


def comparison_table(comparison: Comparison, title: str) -> Table:
    """Agreement per quantity (the paper's Table III(b) layout)."""
    table = Table(title=title)
    table.add_column("quantity")
    for column in ("agree", "compared", "agreement"):
        table.add_column(column, justify="right")
    for quantity in SHOWN:
        agree, compared = comparison.agree[quantity], comparison.compared[quantity]
        share = f"{agree / compared:.1%}" if compared else "–"
        table.add_row(quantity, str(agree), str(compared), share)
    return table
