"""The report's first answer: per configuration, every operator pooled, and its reading."""

from __future__ import annotations

from pathlib import Path

from sscbench.analysis.answer import answer_rows, reading
from sscbench.analysis.quantities import analyze
from sscbench.analysis.results import ALL_OPERATORS, AdoptionRow, Interval, Rate
from sscbench.analysis.synthetic import synthetic_labels
from sscbench.cases.caseset import load_case_set


def _rate(n: int, d: int, low: float | None, high: float | None) -> Rate:
    return Rate(
        numerator=n,
        denominator=d,
        clusters=d,
        value=None if d == 0 else n / d,
        interval=Interval(low=low, high=high, method="wilson" if d else "none"),
    )


def _row(before: Rate, after: Rate, absent: Rate) -> AdoptionRow:
    empty = _rate(0, 0, None, None)
    return AdoptionRow(
        operator=ALL_OPERATORS,
        configuration="m",
        a_t=empty,
        a_p=empty,
        a_before=before,
        a_after=after,
        a_absent=absent,
    )


def test_pooled_rows_add_up_the_operators_of_each_configuration() -> None:
    case_set = load_case_set()
    labels = synthetic_labels(case_set, runs=500, configurations=(("a", 1), ("b", 1)))
    result = analyze(labels, case_set)
    assert [r.configuration for r in result.overall_adoption] == ["a", "b"]
    for pooled, funnel in zip(result.overall_adoption, result.overall_funnel, strict=True):
        own = [r for r in result.adoption if r.configuration == pooled.configuration]
        for name in ("a_t", "a_p", "a_before", "a_after", "a_absent"):
            rate = getattr(pooled, name)
            assert rate.numerator == sum(getattr(r, name).numerator for r in own)
            assert rate.denominator == sum(getattr(r, name).denominator for r in own)
            # entity clusters of different operators stay apart
            assert rate.clusters == sum(getattr(r, name).clusters for r in own)
        rows = [f for f in result.funnel if f.configuration == funnel.configuration]
        assert funnel.triggered == sum(f.triggered for f in rows)
        assert funnel.population == sum(f.population for f in rows)
    assert [a.configuration for a in answer_rows(result)] == ["a", "b"]


def test_an_analysis_file_without_pooled_rows_reads_and_writes_back_unchanged() -> None:
    text = (
        Path(__file__).resolve().parents[1] / "fixtures" / "analysis" / "analysis.json"
    ).read_text()
    from sscbench.analysis.results import AnalysisResult

    result = AnalysisResult.model_validate_json(text)
    assert result.overall_adoption == () and answer_rows(result) == []
    assert "overall_adoption" not in result.model_dump_json()


def test_the_reading_says_lower_only_when_the_intervals_part() -> None:
    lower = reading(
        "m", _row(_rate(2, 20, 0.03, 0.3), _rate(0, 0, None, None), _rate(18, 20, 0.7, 0.97))
    )
    assert lower.startswith("m: less adoption when the refutation came before first use than")
    overlap = reading(
        "m", _row(_rate(8, 20, 0.2, 0.6), _rate(0, 0, None, None), _rate(10, 20, 0.3, 0.7))
    )
    assert "no difference shown (the intervals overlap)" in overlap
    small = reading(
        "m", _row(_rate(0, 3, 0.0, 0.56), _rate(3, 4, 0.3, 0.95), _rate(0, 0, None, None))
    )
    assert "after" in small and "(small: before: 3 runs, after: 4 runs)" in small
    none = reading("m", _row(*(_rate(0, 0, None, None),) * 3))
    assert "nothing to compare" in none
