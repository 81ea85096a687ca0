"""The terminal summary of an analysis: the same population and numbers as the report.

``sscbench demo`` prints it, so what the terminal says and what ``report.html`` shows are
one computation: the primary analysis (r0 of each configuration, target-value controls kept
for arrival only) unless the analysis was run for another sensitivity variant.
"""

from __future__ import annotations

from rich.table import Table

from sscbench.analysis.results import AnalysisResult, Rate
from sscbench.reconstruct.summary import KEY_COLUMNS, titled_table


def _count(rate: Rate) -> str:
    return f"{rate.numerator}/{rate.denominator}"


def population_line(result: AnalysisResult) -> str:
    """Which runs the numbers speak of, in words."""
    repetitions = "every repetition" if result.sensitivity == "all_repetitions" else "r0"
    controls = "included" if result.sensitivity == "controls_included" else "kept for arrival only"
    return (
        f"{result.sensitivity} analysis: {repetitions} of each configuration, "
        f"target-value controls {controls}"
    )


def summary_table(result: AnalysisResult, title: str) -> Table:
    """Per operator × configuration: funnel, arrival counts and adoption (as in the report)."""
    table = titled_table(
        f"{title}\n{population_line(result)}",
        (
            *KEY_COLUMNS,
            "sched.",
            "trig.",
            "A_T",
            "A_P",
            "before",
            "after",
            "absent",
            "no use",
            "undec.",
        ),
    )
    arrival = {(a.operator, a.configuration): a for a in result.arrival}
    adoption = {(a.operator, a.configuration): a for a in result.adoption}
    for f in result.funnel:
        key = (f.operator, f.configuration)
        a, p = arrival[key], adoption[key]
        table.add_row(
            f.operator,
            f.configuration,
            str(f.scheduled),
            str(f.triggered),
            _count(p.a_t),
            _count(p.a_p),
            str(a.before.numerator),
            str(a.after.numerator),
            str(a.absent.numerator),
            str(a.no_use),
            str(a.undecidable),
        )
    return table
