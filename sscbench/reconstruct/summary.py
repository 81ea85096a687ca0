"""A compact table of reconstructed labels: triggered, adoption, arrival classes."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from rich.table import Table

from sscbench.reconstruct.labels import RunLabels
from sscbench.terminal import compact_table

KEY_COLUMNS = ("operator", "configuration")


def titled_table(title: str, columns: Iterable[str]) -> Table:
    """A compact table with the key columns left-aligned and every count right-aligned."""
    return compact_table(title, columns, left=KEY_COLUMNS)


class SummaryCounts:
    """The counts behind :func:`summary_table`, added one label at a time (a command that
    streams its labels holds these, not the labels)."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)

    def add(self, label: RunLabels) -> None:
        """Count one run under its operator × configuration."""
        counts = self._groups[(label.operator or "clean", label.configuration or label.agent)]
        counts["runs"] += 1
        if not label.triggered:
            return
        counts["triggered"] += 1
        counts[f"z:{label.z_s}"] += 1
        if not label.control and label.adopted is not None:
            counts["evaluable"] += 1
            counts["adopted"] += bool(label.adopted)

    def table(self, title: str) -> Table:
        """Per operator × configuration: runs, triggered, adopted/evaluable, Z_S counts."""
        table = titled_table(
            title,
            (
                *KEY_COLUMNS,
                "runs",
                "triggered",
                "adopted",
                "before",
                "after",
                "absent",
                "no use",
                "undec.",
            ),
        )
        for (operator, agent), c in sorted(self._groups.items()):
            table.add_row(
                operator,
                agent,
                str(c["runs"]),
                str(c["triggered"]),
                f"{c['adopted']}/{c['evaluable']}",
                str(c["z:before"]),
                str(c["z:after"]),
                str(c["z:absent"]),
                str(c["z:none"]),
                str(c["z:undecidable"]),
            )
        return table


def summary_table(labels: Iterable[RunLabels], title: str) -> Table:
    """Per operator × configuration: runs, triggered, adopted/evaluable, Z_S counts."""
    counts = SummaryCounts()
    for label in labels:
        counts.add(label)
    return counts.table(title)
