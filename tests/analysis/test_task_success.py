"""Task success under fault, pass^k and adoption^k on hand-built labels with hand-computed
answers.

Operator write_effect, configuration A, one cluster and one task per case:

| case | seed | success | A | Z_S | clean twin |
|---|---|---|---|---|---|
| c1 | 0 | 0 | 1 | before | t1 s0: 1 |
| c2 | 0 | 1 | 0 | after | t2 s0: 1 |
| c3 | 0 | 0 | 0 | absent | t3 s1 only: 0 (no s0 run: the smallest seed) |
| c4 | 0 | 0 | 1 | before | none (unpaired) |
| c1 | 1 | 1 | 0 | before | (r1: pass^k and adoption^k only) |
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sscbench.analysis.passk import mean_with_interval, unbiased_pass_k
from sscbench.analysis.quantities import analyze
from sscbench.analysis.reliability_section import reliability_section
from sscbench.analysis.results import ALL_OPERATORS, AnalysisResult, Interval, MitigationRow, Rate
from sscbench.analysis.task_success import clean_twin, paired_difference, read_clean_outcomes
from sscbench.analysis.terminal_reliability import reliability_tables
from sscbench.cases.caseset import Case, CaseEntry, CaseSet, Manifest
from sscbench.reconstruct.label import arrival_class
from sscbench.reconstruct.labels import EventTime, RunLabels


def _entry(case_id: str, task_id: str) -> CaseEntry:
    return CaseEntry(
        case_id=case_id,
        operator="write_effect",
        domain="airline",
        task_id=task_id,
        cluster=f"res-{case_id}",
        control=False,
        relevance=None,
        contract="c.json",
        contract_sha256="0",
        witness="w.json",
        witness_sha256="0",
    )


def _case_set() -> CaseSet:
    entries = [_entry(f"c{i}", f"t{i}") for i in range(1, 5)]
    manifest = Manifest(
        name="hand-built",
        version="0",
        sscbench_version="0",
        tau2_version="0",
        data_sha256={},
        operators={},
        sampling={},
        counts={},
        cases=tuple(entries),
    )
    cases: Any = tuple(Case(entry=e, contract=None, witness=None) for e in entries)  # type: ignore[arg-type]
    return CaseSet(root=Path("/nonexistent"), manifest=manifest, cases=cases)


def _time(step: int | None) -> EventTime:
    if step is None:
        return EventTime(status="never", reason="t")
    return EventTime(status="found", step=step, reason="t", evidence=(step,))


def lab(case: str, seed: int, *, success: bool, adopted: bool, t_e: int | None) -> RunLabels:
    e, s = _time(t_e), _time(5)
    return RunLabels(
        run_id=f"{case}-A-s{seed}",
        case_id=case,
        operator="write_effect",
        control=False,
        agent="A",
        seed=seed,
        finished=True,
        success=success,
        triggered=True,
        triggered_reason="t",
        t_f=_time(2),
        t_e=e,
        t_s=s,
        t_u=_time(5) if adopted else _time(None),
        adopted=adopted,
        adopted_reason="t",
        z_s=arrival_class(e, s),
        y_end=None,
    )


LABELS = [
    lab("c1", 0, success=False, adopted=True, t_e=3),
    lab("c2", 0, success=True, adopted=False, t_e=8),
    lab("c3", 0, success=False, adopted=False, t_e=None),
    lab("c4", 0, success=False, adopted=True, t_e=3),
    lab("c1", 1, success=True, adopted=False, t_e=3),
]
CLEAN = {
    ("A", "airline", "t1"): {0: True},
    ("A", "airline", "t2"): {0: True},
    ("A", "airline", "t3"): {1: False},
}


@pytest.fixture(scope="module")
def result() -> AnalysisResult:
    return analyze(LABELS, _case_set(), clean=CLEAN, replicates=200)


def test_task_success_pairs_each_faulted_run_with_its_clean_task(result: AnalysisResult) -> None:
    (row,) = [r for r in result.task_success if r.operator == "write_effect"]
    assert (row.fault.numerator, row.fault.denominator) == (1, 4)
    assert (row.pairs, row.unpaired) == (3, 1)
    assert (row.clean.numerator, row.clean.denominator) == (2, 3)
    assert (row.fault_paired.numerator, row.fault_paired.denominator) == (1, 3)
    assert row.difference == pytest.approx(-1 / 3)
    low, high = row.difference_interval.low, row.difference_interval.high
    assert low is not None and high is not None and -1.0 <= low <= -1 / 3 <= high <= 0.0


def test_task_success_splits_by_adoption_and_arrival(result: AnalysisResult) -> None:
    (row,) = [r for r in result.task_success if r.operator == "write_effect"]
    counts = {
        name: (rate.numerator, rate.denominator)
        for name, rate in (
            ("adopted", row.fault_adopted),
            ("not adopted", row.fault_not_adopted),
            ("before", row.fault_before),
            ("after", row.fault_after),
            ("absent", row.fault_absent),
        )
    }
    assert counts == {
        "adopted": (0, 2),
        "not adopted": (1, 2),
        "before": (0, 2),
        "after": (1, 1),
        "absent": (0, 1),
    }
    pooled = [r for r in result.task_success if r.operator == ALL_OPERATORS]
    assert [r.pairs for r in pooled] == [3]


def test_clean_twin_prefers_the_same_seed_else_the_smallest() -> None:
    seeds = {("A", "airline", "t"): {2: False, 1: True, 3: False}}
    assert clean_twin(seeds, ("A", "airline", "t"), 2) is False
    assert clean_twin(seeds, ("A", "airline", "t"), 0) is True
    assert clean_twin(seeds, ("B", "airline", "t"), 0) is None


def test_paired_difference_interval_resamples_clusters() -> None:
    value, interval = paired_difference([("a", -1), ("a", -1), ("b", 0)], seed=0, key="k")
    assert value == pytest.approx(-2 / 3)
    # Cluster a is resampled whole: a replicate is −1 (a, a), −2/3 (a, b) or 0 (b, b).
    assert interval.low == pytest.approx(-1.0) and interval.high == pytest.approx(0.0)
    assert paired_difference([], seed=0, key="k")[0] is None


def test_unbiased_pass_k_is_the_share_of_all_solved_k_subsets() -> None:
    assert unbiased_pass_k(3, 2, 1) == pytest.approx(2 / 3)
    assert unbiased_pass_k(3, 2, 2) == pytest.approx(1 / 3)  # {ab} of {ab, ac, bc}
    assert unbiased_pass_k(4, 4, 3) == 1.0
    assert unbiased_pass_k(4, 2, 3) == 0.0
    with pytest.raises(ValueError):
        unbiased_pass_k(2, 1, 3)


def test_pass_k_rows(result: AnalysisResult) -> None:
    def value(metric: str, condition: str, operator: str, k: int) -> tuple[float | None, int]:
        (row,) = [
            r
            for r in result.pass_k
            if (r.metric, r.condition, r.operator, r.k) == (metric, condition, operator, k)
        ]
        return row.value, row.units

    # Clean: three tasks of one trial each.
    assert value("success", "clean", ALL_OPERATORS, 1) == (pytest.approx(2 / 3), 3)
    # Under fault: c1 has two trials (0 then 1), c2–c4 one each.
    assert value("success", "fault", "write_effect", 1) == (pytest.approx((0.5 + 1) / 4), 4)
    assert value("success", "fault", "write_effect", 2) == (0.0, 1)
    # adoption^k: c1 adopted once in two repetitions, c2 and c3 never, c4 always.
    assert value("no_adoption", "fault", "write_effect", 1) == (pytest.approx(2.5 / 4), 4)
    assert value("no_adoption", "fault", "write_effect", 2) == (0.0, 1)


def test_mean_interval_covers_the_mean() -> None:
    value, clusters, interval = mean_with_interval(
        [("a", 1.0), ("b", 0.0), ("c", 0.5)], seed=0, key="k", replicates=500
    )
    assert value == pytest.approx(0.5) and clusters == 3
    assert interval.low is not None and interval.high is not None
    assert 0.0 <= interval.low < 0.5 < interval.high <= 1.0


def test_read_clean_outcomes_takes_the_latest_observed_record(tmp_path: Path) -> None:
    def record(case: str, seed: int, success: bool | None, state: str = "observed") -> str:
        domain, task = case.removeprefix("clean:").split("+")[0].split("/")
        return json.dumps(
            {
                "kind": "run",
                "key": {"case": case, "seed": seed, "repetition": 0},
                "condition": "clean",
                "configuration": "A",
                "domain": domain,
                "task_id": task,
                "state": state,
                "success": success,
            }
        )

    lines = [
        json.dumps({"kind": "session"}),
        record("clean:airline/1", 0, False),
        record("clean:airline/1", 0, True),  # a later session's record wins
        record("clean:airline/2", 0, None, state="missing"),
        record("clean:airline/3+read_back_hint", 0, True),  # an interface variant
    ]
    (tmp_path / "schedule.jsonl").write_text("\n".join(lines) + "\n")
    assert read_clean_outcomes([tmp_path, tmp_path / "absent"]) == {
        ("A", "airline", "1"): {0: True}
    }


def test_without_clean_outcomes_the_file_is_unchanged(result: AnalysisResult) -> None:
    plain = analyze(LABELS, _case_set(), replicates=200)
    data = json.loads(plain.model_dump_json())
    assert "task_success" not in data and "pass_k" not in data
    full = json.loads(result.model_dump_json())
    assert full["task_success"] and full["pass_k"]
    assert AnalysisResult.model_validate_json(result.model_dump_json()) == result
    assert reliability_section(plain) == "" and reliability_tables(plain) == []


def test_section_and_tables_escape_and_show_the_rows(result: AnalysisResult) -> None:
    hostile = result.model_copy(
        update={
            "task_success": tuple(
                r.model_copy(update={"configuration": "<script>x</script>"})
                for r in result.task_success
            )
        }
    )
    html = reliability_section(hostile)
    assert "<script>x" not in html and "&lt;script&gt;x" in html
    assert "−0.33" in html or "-0.33" in html
    assert len(reliability_tables(result)) == 2


def test_the_report_page_has_the_section(result: AnalysisResult, tmp_path: Path) -> None:
    from sscbench.analysis.report import write_report

    runs = tmp_path / "runs"
    runs.mkdir()
    files = write_report(result, LABELS, runs, tmp_path / "report")
    html = files.report_path.read_text(encoding="utf-8")
    assert 'id="task-success"' in html and 'id="table-pass-k"' in html
    saved = AnalysisResult.model_validate_json((tmp_path / "report" / "analysis.json").read_text())
    assert saved.task_success == result.task_success


def test_report_refuses_a_clean_directory_that_is_not_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sscbench.cli.main import main
    from sscbench.reconstruct.run_set import write_labels

    runs = tmp_path / "runs"
    runs.mkdir()
    write_labels(runs / "labels.jsonl", LABELS, runs)
    assert main(["report", str(runs), "--clean", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--clean" in err[0] and "not a directory of runs" in err[0], err


def test_same_inputs_same_bytes_whatever_the_order(result: AnalysisResult) -> None:
    shuffled = dict(reversed(list(CLEAN.items())))
    again = analyze(list(reversed(LABELS)), _case_set(), clean=shuffled, replicates=200)
    assert again.model_dump_json() == result.model_dump_json()


def _mitigation_row() -> MitigationRow:
    def rate(n: int, d: int) -> Rate:
        return Rate(
            numerator=n,
            denominator=d,
            clusters=d,
            value=n / d,
            interval=Interval(low=0.1, high=0.9, method="wilson"),
        )

    return MitigationRow(
        operator="write_effect",
        configuration="A",
        mitigation="verify_before_write",
        adoption_pairs=4,
        adopted_without=rate(3, 4),
        adopted_with=rate(1, 4),
        adoption_difference=-0.5,
        adoption_interval=Interval(low=-1.0, high=0.0, method="cluster_bootstrap"),
        adopted_without_only=2,
        adopted_with_only=0,
        success_pairs=4,
        success_without=rate(1, 4),
        success_with=rate(2, 4),
        success_difference=0.25,
        success_interval=Interval(low=0.0, high=0.5, method="cluster_bootstrap"),
        steps_pairs=4,
        steps_without=10.0,
        steps_with=12.5,
        steps_difference=2.5,
        steps_interval=Interval(low=2.0, high=3.0, method="cluster_bootstrap"),
    )


def test_the_new_tables_are_written_as_csv_and_latex_and_read_back(
    result: AnalysisResult, tmp_path: Path
) -> None:
    from sscbench.analysis import tables

    full = result.model_copy(update={"mitigations": (_mitigation_row(),)})
    files = tables.write_tables(full, tmp_path / "a")
    for name in ("task_success", "pass_k", "mitigations"):
        assert files.csv[name] == f"tables/{name}.csv" and files.latex[name] == f"tables/{name}.tex"
    assert tables.read_tables(tmp_path / "a", full) == full  # the CSVs carry every row exactly
    # byte-stable: the same result writes the same bytes
    tables.write_tables(full, tmp_path / "b")
    for path in files.all():
        assert (tmp_path / "a" / path).read_bytes() == (tmp_path / "b" / path).read_bytes(), path
    header = (tmp_path / "a" / "tables" / "pass_k.csv").read_text().splitlines()[0]
    assert header.startswith("metric,condition,operator,configuration,k,units,clusters,value")
    tex = (tmp_path / "a" / "tables" / "mitigations.tex").read_text()
    assert "\\label{tab:sscbench-mitigations}" in tex
    row = next(line for line in tex.splitlines() if "verify\\_before\\_write" in line)
    assert row.count(" & ") == len(tables.PRESENTED["mitigations"][1]) + 1
    assert "-0.50 [-1.00, +0.00]" in row and "+2.50 [+2.00, +3.00]" in row
    assert "10.00 → 12.50" in row
    success = (tmp_path / "a" / "tables" / "task_success.tex").read_text()
    assert success.count(" \\\\\n") == len(full.task_success) + 1  # header + one line per row


def test_an_analysis_without_the_new_tables_writes_no_file_for_them(
    result: AnalysisResult, tmp_path: Path
) -> None:
    from sscbench.analysis import tables

    bare = result.model_copy(update={"task_success": (), "pass_k": (), "mitigations": ()})
    files = tables.write_tables(bare, tmp_path)
    assert set(files.csv) == set(tables.TABLE_MODELS)
    assert not (tmp_path / "tables" / "pass_k.csv").exists()
    assert tables.read_tables(tmp_path, bare) == bare
    full = result.model_copy(update={"mitigations": (_mitigation_row(),)})
    assert tables.read_tables(tmp_path, full) == bare  # no file: no rows, whatever the template
