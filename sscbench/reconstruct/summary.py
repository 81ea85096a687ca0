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
            "undec.",
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
