"""The comparison of results bundles: a terminal table and a self-contained HTML page
(escaped: configuration names and models are text)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from sscbench.analysis.page import page
from sscbench.analysis.reliability_section import rate_cell
from sscbench.analysis.results import Rate
from sscbench.analysis.templating import render
from sscbench.terminal import compact_table

HEAD = (
    "bundle",
    "case set",
    "configuration",
    "model",
    "mitigation",
    "A_P",
    "before",
    "after",
    "absent",
    "solved (fault)",
    "solved (clean)",
    "pass^k (fault)",
    "adoption^k",
)
RATES = ("a_p", "before", "after", "absent", "success_fault", "success_clean")


def _share(rate: Rate | None) -> str:
    return "–" if rate is None or rate.value is None else f"{rate.value:.2f}"


def _k(value: tuple[int, float | None] | None) -> str:
    if value is None or value[1] is None:
        return "–"
    return f"{value[1]:.2f} (k={value[0]})"


def compare_table(rows: Sequence[dict[str, Any]]) -> Table:
    """Bundle × configuration: pooled adoption and its strata, task success, pass^k."""
    table = compact_table(
        "results bundles side by side (every operator pooled)",
        (
            "bundle",
            "configuration",
            "mitigation",
            "A_P",
            "before",
            "after",
            "absent",
            "solved",
            "pass^k",
            "adopt.^k",
        ),
        left=("bundle", "configuration", "mitigation"),
    )
    for row in rows:
        table.add_row(
            row["bundle"],
            row["configuration"],
            row["mitigation"],
            *(_share(row[name]) for name in ("a_p", "before", "after", "absent", "success_fault")),
            _k(row["pass_k"]),
            _k(row["adoption_k"]),
        )
    return table


def compare_page(rows: Sequence[dict[str, Any]]) -> str:
    """The comparison as one page that loads nothing from anywhere else."""
    body_rows = [
        [
            row["bundle"],
            row["case_set"],
            row["configuration"],
            row["model"],
            row["mitigation"],
            *("–" if row[name] is None else rate_cell(row[name]) for name in RATES),
            _k(row["pass_k"]),
            _k(row["adoption_k"]),
        ]
        for row in rows
    ]
    body = render("compare.html.j2", head=list(HEAD), rows=body_rows)
    return page("SSCBench results compared", body)
