"""A compact table of reconstructed labels: triggered, adoption, arrival classes."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from rich.table import Table

from sscbench.reconstruct.labels import RunLabels

KEY_COLUMNS = ("operator", "configuration")


def titled_table(title: str, columns: Iterable[str]) -> Table:
    """A rich table with the key columns left-aligned and every count right-aligned."""
    table = Table(title=title)
    for column in columns:
        table.add_column(column, justify="left" if column in KEY_COLUMNS else "right")
    return table


def summary_table(labels: Iterable[RunLabels], title: str) -> Table:
    """Per operator × configuration: runs, triggered, adopted/evaluable, Z_S counts."""
    groups: dict[tuple[str, str], list[RunLabels]] = defaultdict(list)
    for label in labels:
        groups[(label.operator or "clean", label.configuration or label.agent)].append(label)
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
            "undecidable",
        ),
    )
    for (operator, agent), items in sorted(groups.items()):
        triggered = [x for x in items if x.triggered]
        z = Counter(x.z_s for x in triggered)
        evaluable = [x for x in triggered if not x.control and x.adopted is not None]
        table.add_row(
            operator,
            agent,
            str(len(items)),
            str(len(triggered)),
            f"{sum(bool(x.adopted) for x in evaluable)}/{len(evaluable)}",
            str(z["before"]),
            str(z["after"]),
            str(z["absent"]),
            str(z["none"]),
            str(z["undecidable"]),
        )
    return table
