"""The native suite at a glance: every scripted solution on the families it plays, its
verifier labels counted — what ``sscbench demo`` prints and writes (``native.json``), so
that the reference passes every seeded run and each scripted mistake is caught by the
label made for it, in one table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict
from rich.table import Table

from sscbench.native.solutions import PLAYS, SOLUTIONS, run_suite
from sscbench.native.verifier import SEVERITY


class SolutionRow(BaseModel):
    """One solution's verdicts over its families' tasks and the seeds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    solution: str
    families: tuple[str, ...]
    runs: int
    labels: dict[str, int]
    """Primary label → runs, in the verifier's severity order; labels no run got left out."""


class NativeSummary(BaseModel):
    """``native.json``: the demo's native-suite table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seeds: int
    rows: tuple[SolutionRow, ...]

    @property
    def reference_passed(self) -> bool:
        """Whether the reference solution succeeded on every seeded run (the oracle check
        ``sscbench native`` exits 1 on)."""
        (reference,) = (r for r in self.rows if r.solution == "reference")
        return reference.labels.get("SUCCESS", 0) == reference.runs


def summarise(seeds: Iterable[int]) -> NativeSummary:
    """Run every scripted solution (the reference first) on the families it plays."""
    chosen = list(seeds)
    rows = []
    for name, solution in SOLUTIONS.items():
        counts = Counter(v.primary for v in run_suite(solution, seeds=chosen, families=PLAYS[name]))
        ordered: dict[str, int] = {label: counts[label] for label, _ in SEVERITY if counts[label]}
        rows.append(
            SolutionRow(
                solution=name,
                families=PLAYS[name],
                runs=sum(counts.values()),
                labels=ordered,
            )
        )
    return NativeSummary(seeds=len(chosen), rows=tuple(rows))


def summary_table(summary: NativeSummary) -> Table:
    """Solutions as rows with the verifier's primary labels they got, by count (one
    column, so the table fits a 100-column terminal whatever labels appear)."""
    table = Table(title=f"native suite: scripted solutions, {summary.seeds} seed(s) per task")
    for column in ("solution", "families", "runs", "primary labels (runs)"):
        table.add_column(column, justify="right" if column == "runs" else "left")
    for row in summary.rows:
        table.add_row(
            row.solution,
            "all" if row.solution == "reference" else ", ".join(row.families),
            str(row.runs),
            ", ".join(f"{label} {n}" for label, n in row.labels.items()),
        )
    return table
