"""The report's section on task success under fault and trial reliability (pass^k,
adoption^k), shown only when the analysis has those tables (it was given the clean runs)."""

from __future__ import annotations

from sscbench.analysis.mitigation_cost import tokens_text, usd_text
from sscbench.analysis.results import AnalysisResult, Interval, PassKRow, Rate
from sscbench.analysis.templating import render

TITLE = "Task success, pass^k, mitigations"
METHOD = {"wilson": "W", "cluster_bootstrap": "B", "none": ""}


def _interval(interval: Interval) -> str | None:
    low, high = interval.low, interval.high
    return None if low is None or high is None else f"[{low:.2f}, {high:.2f}]"


def rate_cell(rate: Rate) -> dict[str, str | None]:
    """A rate as the table macro shows it: share, interval and method, counts."""
    counts = f"{rate.numerator}/{rate.denominator}/{rate.clusters}"
    if rate.value is None:
        return {"share": None, "ci": None, "method": None, "counts": counts}
    return {
        "share": f"{rate.value:.2f}",
        "ci": _interval(rate.interval),
        "method": METHOD[rate.interval.method],
        "counts": counts,
    }


def _difference(value: float | None, interval: Interval, pairs: int) -> dict[str, str | None]:
    if value is None:
        return {"share": None, "ci": None, "method": None, "counts": f"{pairs} pairs"}
    low, high = interval.low, interval.high
    ci = None if low is None or high is None else f"[{low:+.2f}, {high:+.2f}]"
    return {
        "share": f"{value:+.2f}",
        "ci": ci,
        "method": METHOD[interval.method],
        "counts": f"{pairs} pairs",
    }


def _steps(without: float | None, with_: float | None) -> str:
    if without is None or with_ is None:
        return "–"
    return f"{without:.1f} → {with_:.1f}"


def _pass_cell(row: PassKRow) -> dict[str, str | None]:
    return {
        "share": None if row.value is None else f"{row.value:.2f}",
        "ci": _interval(row.interval),
        "method": METHOD[row.interval.method],
        "counts": f"{row.units} units / {row.clusters} clusters",
    }


def reliability_section(result: AnalysisResult, collapse: int = 12) -> str:
    """The section's body (``templates/reliability.html.j2``), or ``""`` without rows."""
    if not result.task_success and not result.pass_k and not result.mitigations:
        return ""
    success_rows = [
        [
            row.operator,
            row.configuration,
            rate_cell(row.clean),
            rate_cell(row.fault_paired),
            _difference(row.difference, row.difference_interval, row.pairs),
            str(row.unpaired),
            rate_cell(row.fault_adopted),
            rate_cell(row.fault_not_adopted),
            rate_cell(row.fault_before),
            rate_cell(row.fault_after),
            rate_cell(row.fault_absent),
        ]
        for row in result.task_success
    ]
    names = {
        ("success", "clean"): "pass^k clean",
        ("success", "fault"): "pass^k under fault",
        ("no_adoption", "fault"): "adoption^k",
    }
    passk_rows = [
        [
            row.operator,
            row.configuration,
            names[(row.metric, row.condition)],
            str(row.k),
            _pass_cell(row),
        ]
        for row in result.pass_k
    ]
    return render(
        "reliability.html.j2",
        success_caption="Task success under fault beside the same task's clean run",
        success_head=[
            "operator",
            "configuration",
            "clean",
            "fault",
            "fault − clean",
            "unpaired",
            "fault, adopted",
            "fault, not adopted",
            "fault, before",
            "fault, after",
            "fault, absent",
        ],
        success_rows=success_rows,
        passk_caption="pass^k and adoption^k per k",
        passk_head=["operator", "configuration", "measure", "k", "value"],
        passk_rows=passk_rows,
        mitigation_caption="Mitigations: with against without on the same cases and seeds",
        mitigation_head=[
            "operator",
            "configuration",
            "mitigation",
            "adopted without",
            "adopted with",
            "with − without",
            "one side (without / with)",
            "solved without",
            "solved with",
            "with − without",
            "steps without → with",
            "with − without",
            "tokens per run without → with (with − without)",
            "USD per run without → with (with − without)",
        ],
        mitigation_rows=[
            [
                row.operator,
                row.configuration,
                row.mitigation,
                rate_cell(row.adopted_without),
                rate_cell(row.adopted_with),
                _difference(row.adoption_difference, row.adoption_interval, row.adoption_pairs),
                f"{row.adopted_without_only} / {row.adopted_with_only}",
                rate_cell(row.success_without),
                rate_cell(row.success_with),
                _difference(row.success_difference, row.success_interval, row.success_pairs),
                _steps(row.steps_without, row.steps_with),
                _difference(row.steps_difference, row.steps_interval, row.steps_pairs),
                tokens_text(row),
                usd_text(row),
            ]
            for row in result.mitigations
        ],
        collapse=collapse,
    ).strip()
