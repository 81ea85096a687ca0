"""The terminal summary of an analysis: the same population and numbers as the report.

``sscbench demo`` prints it, so what the terminal says and what ``report.html`` shows are
one computation: the primary analysis (r0 of each configuration, target-value controls kept
for arrival only) unless the analysis was run for another sensitivity variant.
"""

from __future__ import annotations

from rich.table import Table

from sscbench.analysis.results import ALL_OPERATORS, AnalysisResult, Rate
from sscbench.analysis.tables import rate_text
from sscbench.reconstruct.summary import KEY_COLUMNS, titled_table
from sscbench.terminal import compact_table


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


def _stacked(rate: Rate) -> str:
    """``0.42 [0.30, 0.55]`` over ``12/52/20``: a rate in two short lines."""
    text = rate_text(rate)
    head, counts = text.rsplit(" ", 1)
    return f"{head}\n{counts}"


def answer_table(result: AnalysisResult) -> Table | None:
    """The report's first table for the terminal: per configuration, every operator pooled,
    ``a_s`` per arrival stratum with its interval and counts (None without pooled rows)."""
    from sscbench.analysis.answer import answer_rows

    rows = answer_rows(result)
    if not rows:
        return None
    table = compact_table(
        f"adoption by arrival, every operator pooled\n{population_line(result)}",
        ("configuration", "triggered/decidable", "P", "before", "after", "absent"),
        left=("configuration",),
    )
    from sscbench.analysis.correction_view import by_key, corrected_text

    corrected = by_key(result)
    for row in rows:
        cells = []
        for stratum, rate in zip(
            ("before", "after", "absent"),
            (row.adoption.a_before, row.adoption.a_after, row.adoption.a_absent),
            strict=True,
        ):
            fixed = corrected.get((ALL_OPERATORS, row.configuration, stratum))
            cells.append(_stacked(rate) + ("" if fixed is None else f"\n{corrected_text(fixed)}"))
        table.add_row(
            row.configuration, f"{row.triggered}/{row.decidable}", str(row.population), *cells
        )
    return table


def answer_readings(result: AnalysisResult) -> list[str]:
    """The one-sentence readings under the answer table, then which validation sample the
    corrected figures used (or that nothing was corrected)."""
    from sscbench.analysis.answer import answer_rows
    from sscbench.analysis.correction_view import validation_line

    return [row.reading for row in answer_rows(result)] + [validation_line(result)]
