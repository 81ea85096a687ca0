"""The report's first screen: per configuration, adoption by arrival and what it says.

One row per configuration with every operator's runs pooled (``AnalysisResult.
overall_adoption`` and ``overall_funnel``): triggered runs, runs with a decidable dependent
use, the analysis population ``P``, and ``a_s`` per arrival stratum with its interval —
then one sentence per configuration that reads the strata against each other. The
sentence only compares intervals: it says a stratum's adoption was lower when the two
intervals do not overlap, and otherwise that no difference is shown at this size.
"""

from __future__ import annotations

from dataclasses import dataclass

from sscbench.analysis.results import AdoptionRow, AnalysisResult, FunnelRow, Rate
from sscbench.analysis.tables import fmt_share

SMALL = 5
"""A stratum with fewer evaluable runs than this is called small in the reading."""
STRATA = (("before", "a_before"), ("after", "a_after"), ("absent", "a_absent"))


@dataclass(frozen=True)
class AnswerRow:
    """One configuration's line of the answer."""

    configuration: str
    triggered: int
    decidable: int
    population: int
    adoption: AdoptionRow
    reading: str


def _share(rate: Rate) -> str:
    low, high = rate.interval.low, rate.interval.high
    ci = "" if low is None or high is None else f" [{low:.2f}, {high:.2f}]"
    return f"{fmt_share(rate.value)}{ci}"


def _lower(a: Rate, b: Rate) -> bool:
    """Whether ``a``'s interval lies wholly below ``b``'s."""
    return (
        a.interval.high is not None
        and b.interval.low is not None
        and a.interval.high < b.interval.low
    )


def reading(configuration: str, row: AdoptionRow) -> str:
    """One sentence comparing the arrival strata of ``row``: the refutation before first
    use against none at all (or, without absent runs, against one that came after)."""
    rates = {name: getattr(row, field) for name, field in STRATA}
    present = [name for name, rate in rates.items() if rate.denominator > 0]
    if not present:
        return f"{configuration}: no run of P has a decidable arrival yet — nothing to compare."
    small = [
        f"{name}: {rates[name].denominator} run{'' if rates[name].denominator == 1 else 's'}"
        for name in present
        if rates[name].denominator < SMALL
    ]
    caveat = f" (small: {', '.join(small)})" if small else ""
    if len(present) == 1:
        only = present[0]
        return (
            f"{configuration}: every decidable run is in one stratum ({only} "
            f"{_share(rates[only])}); nothing to compare it with{caveat}."
        )
    first = "before" if "before" in present else present[0]
    other = "absent" if "absent" in present and first != "absent" else present[-1]
    a, b = rates[first], rates[other]
    words = {"before": "before first use", "after": "after first use", "absent": "never"}
    if _lower(a, b):
        verdict = f"less adoption when the refutation came {words[first]} than {words[other]}"
    elif _lower(b, a):
        verdict = f"more adoption when the refutation came {words[first]} than {words[other]}"
    else:
        verdict = "no difference shown (the intervals overlap)"
    return f"{configuration}: {verdict} — {first} {_share(a)}, {other} {_share(b)}{caveat}."


def answer_rows(result: AnalysisResult) -> list[AnswerRow]:
    """The answer's rows, one per configuration (empty for an analysis written before the
    pooled rows existed)."""
    funnels: dict[str, FunnelRow] = {f.configuration: f for f in result.overall_funnel}
    rows = []
    for adoption in result.overall_adoption:
        funnel = funnels.get(adoption.configuration)
        rows.append(
            AnswerRow(
                configuration=adoption.configuration,
                triggered=0 if funnel is None else funnel.triggered,
                decidable=0 if funnel is None else funnel.decidable_use,
                population=0 if funnel is None else funnel.population,
                adoption=adoption,
                reading=reading(adoption.configuration, adoption),
            )
        )
    return rows
