"""Calibration packets in ``review agree``: reported on their own, never in κ or the reference.

The paper's reviewers first label a handful of calibration trajectories, then review the
sample independently. Calibration is practice: reviewers may compare notes on it, so
counting it would inflate the pre-adjudication agreement, and it is not part of the sample
the reference validates. It is reported apart — how many calibration packets each reviewer
labelled and how often they agreed with each other reviewer on them — so a coordinator can
see whether calibration did its job before the sample is labelled.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from rich.table import Table

from sscbench.review.labels import ReviewLabel

Labels = Mapping[str, Mapping[str, ReviewLabel]]

QUANTITIES: dict[str, Callable[[ReviewLabel], object]] = {
    "A": lambda x: x.adopted,
    "Z_S": lambda x: x.z_s,
    "T_E": lambda x: (x.t_e.status, x.t_e.step),
    "T_S": lambda x: (x.t_s.status, x.t_s.step),
    "T_U": lambda x: (x.t_u.status, x.t_u.step),
}
"""Compared per pair of reviewers; an event agrees only with the same status and step."""


@dataclass(frozen=True)
class CalibrationRow:
    """One reviewer on the calibration packets: labelled, and pairwise agreement with the
    first-round reviewers (other than themselves) per quantity."""

    reviewer: str
    labelled: int
    agree: dict[str, int]
    pairs: dict[str, int]


@dataclass(frozen=True)
class CalibrationSummary:
    """Calibration packets of a review directory and each reviewer's row."""

    packets: int
    rows: tuple[CalibrationRow, ...]


def split(labels: Labels, packets: Collection[str]) -> dict[str, dict[str, ReviewLabel]]:
    """``labels`` restricted to ``packets`` (every reviewer kept, possibly empty)."""
    return {r: {p: x for p, x in by.items() if p in packets} for r, by in labels.items()}


def calibration_summary(
    packets: Collection[str], labels: Labels, reviewers: Sequence[str], adjudicator: str
) -> CalibrationSummary:
    """Per reviewer (and the adjudicator, if they labelled any): calibration packets
    labelled, and agreements / comparisons with each first-round reviewer per quantity."""
    own = split(labels, packets)
    rows = []
    for reviewer in (*reviewers, adjudicator):
        mine = own.get(reviewer, {})
        if reviewer == adjudicator and not mine:
            continue
        agree = dict.fromkeys(QUANTITIES, 0)
        pairs = dict.fromkeys(QUANTITIES, 0)
        for pid, label in mine.items():
            for other in reviewers:
                theirs = own.get(other, {}).get(pid)
                if other == reviewer or theirs is None:
                    continue
                for quantity, read in QUANTITIES.items():
                    pairs[quantity] += 1
                    agree[quantity] += read(label) == read(theirs)
        rows.append(CalibrationRow(reviewer, len(mine), agree, pairs))
    return CalibrationSummary(packets=len(packets), rows=tuple(rows))


def calibration_table(summary: CalibrationSummary) -> Table:
    """Rich table: reviewer, labelled, and ``agree/pairs`` per quantity."""
    table = Table(
        title=f"calibration ({summary.packets} packets; not in κ, step agreement or the "
        "reference): pairwise agreement with the other reviewers"
    )
    table.add_column("reviewer")
    table.add_column("labelled", justify="right")
    for quantity in QUANTITIES:
        table.add_column(quantity, justify="right")
    for row in summary.rows:
        table.add_row(
            row.reviewer,
            f"{row.labelled}/{summary.packets}",
            *(f"{row.agree[q]}/{row.pairs[q]}" for q in QUANTITIES),
        )
    return table
