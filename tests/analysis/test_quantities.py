"""Funnel, populations and every §7 quantity on hand-built labels with hand-computed answers.

The scenario (write_effect, configuration A, repetition r0 unless said):

| case | T_E | T_S | T_U | A | Z_S | note |
|---|---|---|---|---|---|---|
| w1 | 3 | 5 | 5 | 1 | before | r1: absent, adopted (arrival changes) |
| w2 | 8 | 5 | 5 | 1 | after | r1: after, adopted |
| w3 | ∞ | 5 | 5 | 1 | absent | r1: no use |
| w4 | 6 | 5 | 7 | 1 | after | T_S < T_E < T_U |
| w5 | 3 | 5 | ∞ | 0 | before | |
| w6 | 3 | none | ∞ | 0 | none | no dependent use: reported apart, not in P |
| w7 | – | – | – | – | – | not triggered |
| w8 | – | – | – | – | – | unfinished: missing |
| w9 | 3 | undec. | undec. | ? | undecidable | T_S undecidable: not in P |
| w10 | undec. | 5 | 5 | 1 | undecidable | T_E undecidable, so Z_S too: not in P |

Configuration B ran only w1 (r0). Every write_effect case has its own cluster.
"""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any

import pytest

from sscbench.analysis.intervals import wilson
from sscbench.analysis.population import (
    RunKey,
    build_population,
    harness_error,
    strict_item_option_excludes,
)
from sscbench.analysis.quantities import POOLED, analyze, analyze_all
from sscbench.analysis.results import AnalysisResult, Rate
from sscbench.cases.caseset import Case, CaseEntry, CaseSet, Manifest
from sscbench.errors import ConfigError
from sscbench.reconstruct.label import arrival_class
from sscbench.reconstruct.labels import EventTime, RunLabels

Step = int | str | None


def _entry(
    case_id: str, operator: str, cluster: str, control: bool = False, relevance: str | None = None
) -> CaseEntry:
    return CaseEntry(
        case_id=case_id,
        operator=operator,
        domain="airline" if operator == "write_effect" else "retail",
        task_id="0",
        cluster=cluster,
        control=control,
        relevance=relevance,
        contract="c.json",
        contract_sha256="0",
        witness="w.json",
        witness_sha256="0",
    )


ENTRIES = [_entry(f"w{i}", "write_effect", f"res{i}") for i in range(1, 12)] + [
    _entry("i1", "item_option", "k1", relevance="indirect"),  # the task only mentions it
    _entry("i2", "item_option", "k1", relevance="direct"),
    _entry("i3", "item_option", "k2", relevance="direct"),
    _entry("i1+control", "item_option", "k1", control=True, relevance="direct"),
]


def _case_set(entries: list[CaseEntry]) -> CaseSet:
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
    # Analysis reads only the manifest entries; contracts and witnesses are not needed.
    cases: Any = tuple(Case(entry=e, contract=None, witness=None) for e in entries)  # type: ignore[arg-type]
    return CaseSet(root=Path("/nonexistent"), manifest=manifest, cases=cases)


CASES = _case_set(ENTRIES)


def _time(value: Step, *, none: str = "never", evidence: tuple[int, ...] = ()) -> EventTime:
    if isinstance(value, int):
        return EventTime(status="found", step=value, reason="t", evidence=evidence or (value,))
    if value == "undecidable":
        return EventTime(status="undecidable", reason="t")
    return EventTime(status=none, reason="t")  # type: ignore[arg-type]


def lab(
    case: str,
    agent: str = "A",
    seed: int = 0,
    *,
    t_e: Step = None,
    t_s: Step = None,
    t_u: Step = None,
    adopted: bool | None = None,
    y_end: str | None = None,
    finished: bool = True,
    triggered: bool | None = True,
    evidence: tuple[int, ...] = (),
) -> RunLabels:
    operator = "item_option" if case.startswith("i") else "write_effect"
    e = _time(t_e, evidence=evidence)
    s = _time(t_s, none="none")
    return RunLabels(
        run_id=f"{case}-{agent}-s{seed}",
        case_id=case,
        operator=operator,
        control=case.endswith("+control"),
        agent=agent,
        seed=seed,
        finished=finished,
        success=True,
        triggered=triggered,
        triggered_reason="t",
        t_f=_time(2),
        t_e=e,
        t_s=s,
        t_u=_time(t_u),
        adopted=adopted,
        adopted_reason="t",
        z_s=arrival_class(e, s) if triggered else None,
        y_end=y_end,  # type: ignore[arg-type]
    )


WRITE = [
    lab("w1", t_e=3, t_s=5, t_u=5, adopted=True, y_end="endorse"),
    lab("w2", t_e=8, t_s=5, t_u=5, adopted=True, y_end="retract"),
    lab("w3", t_e="never", t_s=5, t_u=5, adopted=True, y_end="endorse"),
    lab("w4", t_e=6, t_s=5, t_u=7, adopted=True, y_end="undecidable"),
    lab("w5", t_e=3, t_s=5, t_u="never", adopted=False),
    lab("w6", t_e=3, t_s="none", t_u="never", adopted=False),
    lab("w7", triggered=False),
    lab("w8", finished=False, triggered=None),
    lab("w9", t_e=3, t_s="undecidable", t_u="undecidable", adopted=None),
    lab("w10", t_e="undecidable", t_s=5, t_u=5, adopted=True),
    lab("w1", seed=1, t_e="never", t_s=5, t_u=5, adopted=True, y_end="endorse"),
    lab("w2", seed=1, t_e=9, t_s=6, t_u=6, adopted=True, y_end="endorse"),
    lab("w3", seed=1, t_e="never", t_s="none", t_u="never", adopted=False),
    lab("w1", agent="B", t_e=3, t_s=5, t_u="never", adopted=False),
]
ITEM = [
    # Product record (step 4) before the binding (step 6): T_E = 6, dropped by the strict rule.
    lab("i1", t_e=6, t_s=8, t_u=8, adopted=True, y_end="endorse", evidence=(4, 6)),
    lab("i2", t_e=9, t_s=10, t_u="never", adopted=False, evidence=(9, 6)),
    lab("i3", t_e=12, t_s=8, t_u=8, adopted=True, y_end="endorse", evidence=(12, 6)),
    lab("i1+control", t_e=7, t_s=8, t_u="never", adopted=False, evidence=(7, 6)),
]
CLEAN = RunLabels.model_validate(
    {**lab("w1").model_dump(), "case_id": None, "operator": None, "run_id": "clean"}
)
LABELS = [*WRITE, *ITEM, CLEAN]


def _row(rows: tuple[Any, ...], operator: str, configuration: str) -> Any:
    (row,) = [r for r in rows if r.operator == operator and r.configuration == configuration]
    return row


def _counts(rate: Rate) -> tuple[int, int, int]:
    return rate.numerator, rate.denominator, rate.clusters


@pytest.fixture(scope="module")
def primary() -> AnalysisResult:
    return analyze(LABELS, CASES)


def test_funnel(primary: AnalysisResult) -> None:
    f = _row(primary.funnel, "write_effect", "A")
    assert (f.scheduled, f.observed, f.missing) == (10, 9, 1)
    # P = w1..w5: w6 has no use (its own column), w9 no decidable T_S, w10 no decidable Z_S.
    assert (f.triggered, f.not_triggered, f.decidable_use, f.no_use, f.population) == (
        8,
        1,
        7,
        1,
        5,
    )
    assert f.controls == 0
    i = _row(primary.funnel, "item_option", "A")
    assert (i.scheduled, i.triggered, i.decidable_use, i.population, i.controls) == (4, 4, 4, 3, 1)
    # Rows per operator × configuration, sorted; the clean run is not in any of them.
    assert [(r.operator, r.configuration) for r in primary.funnel] == [
        ("item_option", "A"),
        ("write_effect", "A"),
        ("write_effect", "B"),
    ]


def test_arrival(primary: AnalysisResult) -> None:
    a = _row(primary.arrival, "write_effect", "A")
    assert _counts(a.before) == (2, 5, 5)
    assert _counts(a.after) == (2, 5, 5)
    assert _counts(a.absent) == (1, 5, 5)
    assert (a.no_use, a.undecidable) == (1, 2)
    assert a.before.value == pytest.approx(0.4)
    assert a.before.interval.method == "wilson"
    assert (a.before.interval.low, a.before.interval.high) == pytest.approx(wilson(2, 5))
    # Controls are kept for arrival: i1+control (before) counts; clusters k1, k2.
    i = _row(primary.arrival, "item_option", "A")
    assert _counts(i.before) == (3, 4, 2)
    assert _counts(i.after) == (1, 4, 2)
    assert _counts(i.absent) == (0, 4, 2)
    assert i.before.interval.method == "cluster_bootstrap"


def test_adoption(primary: AnalysisResult) -> None:
    a = _row(primary.adoption, "write_effect", "A")
    assert _counts(a.a_t) == (5, 7, 7)  # w9's A is undecidable
    assert _counts(a.a_p) == (4, 5, 5)  # adds up by stratum: 1/2 + 2/2 + 1/1
    assert _counts(a.a_before) == (1, 2, 2)
    assert _counts(a.a_after) == (2, 2, 2)
    assert _counts(a.a_absent) == (1, 1, 1)
    assert (a.a_t.interval.low, a.a_t.interval.high) == pytest.approx(wilson(5, 7))
    # Controls are out of adoption; i1 and i2 share cluster k1.
    i = _row(primary.adoption, "item_option", "A")
    assert _counts(i.a_p) == (2, 3, 2)
    assert i.a_p.interval.method == "cluster_bootstrap"
    assert _counts(i.a_before) == (1, 2, 1)
    assert (i.a_before.interval.low, i.a_before.interval.high) == pytest.approx((0.5, 0.5))
    assert _counts(i.a_after) == (1, 1, 1)


def test_empty_strata_are_zero_rows(primary: AnalysisResult) -> None:
    b = _row(primary.adoption, "write_effect", "B")
    assert _counts(b.a_after) == (0, 0, 0)
    assert _counts(b.a_absent) == (0, 0, 0)
    assert b.a_after.value is None
    assert b.a_after.interval.method == "none"
    i = _row(primary.adoption, "item_option", "A")
    assert _counts(i.a_absent) == (0, 0, 0)


def test_timing(primary: AnalysisResult) -> None:
    t = _row(primary.timing, "write_effect", "A")
    assert _counts(t.q_u) == (2, 4, 4)  # w1 and w4 refuted before reliance; w10 left out
    assert t.refuted_between_use_and_reliance == 1  # w4
    assert t.gaps == (2, -3, None, 1)
    pooled = _row(primary.timing, "write_effect", POOLED)
    assert _counts(pooled.q_u) == (2, 4, 4)
    assert _row(primary.timing, "write_effect", "B").gaps == ()


def test_reformulation(primary: AnalysisResult) -> None:
    r = _row(primary.reformulation, "write_effect", "A")
    assert _counts(r.adoption) == (4, 5, 5)
    assert _counts(r.adoption_eventually_refuted) == (3, 5, 5)  # w1 w2 w4
    assert _counts(r.adoption_refuted_before_use) == (1, 5, 5)  # w1
    pooled = _row(primary.reformulation, "write_effect", POOLED)
    # B's w1 shares cluster res1 with A's w1: 6 runs on 5 clusters → bootstrap.
    assert _counts(pooled.adoption) == (4, 6, 5)
    assert pooled.adoption.interval.method == "cluster_bootstrap"


def test_stance(primary: AnalysisResult) -> None:
    s = _row(primary.stance, "write_effect", "A")
    assert (s.endorse, s.retract, s.undecidable) == (2, 1, 1)  # w1 w3, w2, w4
    i = _row(primary.stance, "item_option", "A")
    assert (i.endorse, i.retract, i.undecidable) == (2, 0, 0)


def test_noise_floor_uses_every_repetition(primary: AnalysisResult) -> None:
    n = _row(primary.noise, "write_effect", "A")
    # w1 (before → absent) and w2 (after, after) have two decided arrivals; w3's r1 has none.
    assert (n.pairs, n.pairs_with_repetitions, n.changed) == (5, 2, 1)


def test_all_repetitions() -> None:
    result = analyze(LABELS, CASES, sensitivity="all_repetitions")
    f = _row(result.funnel, "write_effect", "A")
    assert (f.scheduled, f.triggered, f.no_use, f.population) == (13, 11, 2, 7)
    a = _row(result.adoption, "write_effect", "A")
    assert _counts(a.a_p) == (6, 7, 5)
    assert a.a_p.interval.method == "cluster_bootstrap"
    assert _counts(a.a_absent) == (2, 2, 2)
    arrival = _row(result.arrival, "write_effect", "A")
    assert _counts(arrival.before) == (2, 7, 5)
    assert arrival.no_use == 2


def test_common_seeds() -> None:
    result = analyze(LABELS, CASES, sensitivity="common_seeds")
    # Only w1 was scheduled for both A and B; item_option has one configuration.
    assert _row(result.funnel, "write_effect", "A").scheduled == 1
    assert _row(result.funnel, "write_effect", "B").scheduled == 1
    assert _row(result.funnel, "item_option", "A").scheduled == 4


def test_strict_item_option() -> None:
    # Case-level: the ItemOption case whose item the task only mentions is dropped.
    assert strict_item_option_excludes(ENTRIES[11])
    assert not strict_item_option_excludes(ENTRIES[12])
    # Operators opt in by recording relevance; one that records none is never dropped.
    assert not strict_item_option_excludes(_entry("w", "write_effect", "r"))
    assert strict_item_option_excludes(_entry("x", "third_party", "r", relevance="indirect"))
    assert not strict_item_option_excludes(_entry("old", "item_option", "k"))  # schema 1
    result = analyze(LABELS, CASES, sensitivity="strict_item_option")
    f = _row(result.funnel, "item_option", "A")
    assert (f.decidable_use, f.population, f.controls) == (4, 2, 1)
    arrival = _row(result.arrival, "item_option", "A")
    assert _counts(arrival.before) == (2, 3, 2)
    assert _counts(_row(result.adoption, "item_option", "A").a_p) == (1, 2, 2)
    # Other operators are untouched.
    assert _row(result.funnel, "write_effect", "A") == _row(
        analyze(LABELS, CASES).funnel, "write_effect", "A"
    )


def test_controls_included() -> None:
    result = analyze(LABELS, CASES, sensitivity="controls_included")
    f = _row(result.funnel, "item_option", "A")
    assert (f.population, f.controls) == (4, 1)
    # A target-value control has an adoption of its own: it joins the denominators.
    assert _counts(_row(result.adoption, "item_option", "A").a_p) == (2, 4, 2)
    primary = analyze(LABELS, CASES)
    assert _counts(_row(primary.adoption, "item_option", "A").a_p) == (2, 3, 2)


def test_analyze_all_and_determinism(primary: AnalysisResult) -> None:
    results = analyze_all(LABELS, CASES, replicates=500)
    assert set(results) == {
        "primary",
        "common_seeds",
        "all_repetitions",
        "strict_item_option",
        "controls_included",
    }
    assert results["primary"].bootstrap_replicates == 500
    assert analyze(LABELS, CASES) == primary
    assert analyze(list(reversed(LABELS)), CASES) == primary
    assert AnalysisResult.model_validate_json(primary.model_dump_json()) == primary
    other_seed = analyze(LABELS, CASES, seed=1)
    assert other_seed.seed == 1
    assert other_seed.funnel == primary.funnel


def test_schedule_counts_unrecorded_runs_as_missing() -> None:
    schedule = [RunKey(label.case_id or "", label.agent, label.seed) for label in WRITE + ITEM]
    schedule.append(RunKey("w11", "A", 0))
    result = analyze(LABELS, CASES, schedule=schedule)
    f = _row(result.funnel, "write_effect", "A")
    assert (f.scheduled, f.observed, f.missing) == (11, 9, 2)
    with pytest.warns(UserWarning, match="not in the schedule"):
        narrowed = analyze(LABELS, CASES, schedule=schedule[:3])
    assert sum(r.scheduled for r in narrowed.funnel) == 3


def test_bad_inputs_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="not in case set"):
        analyze([lab("w99")], CASES)
    with pytest.raises(ConfigError, match="two finished records"):
        analyze([WRITE[0], WRITE[0]], CASES)
    with pytest.raises(ConfigError, match="unknown sensitivity"):
        build_population(LABELS, CASES, sensitivity="nope")  # type: ignore[arg-type]


def test_unfinished_duplicate_is_not_a_conflict() -> None:
    rerun = lab("w8", t_e=3, t_s=5, t_u="never", adopted=False)
    result = analyze([*WRITE, rerun], CASES)
    f = _row(result.funnel, "write_effect", "A")
    assert (f.observed, f.missing) == (10, 0)


def test_harness_error_runs_are_missing() -> None:
    assert harness_error(types.SimpleNamespace(termination="harness_error"))  # type: ignore[arg-type]
    assert not harness_error(WRITE[0])


def test_the_primary_repetition_is_r0_not_the_smallest_seed() -> None:
    # An experiment with seeds = [5, 1]: r0 is seed 5, r1 seed 1.
    runs = [
        lab("w1", seed=5, t_e=3, t_s=5, t_u=5, adopted=True),
        lab("w2", seed=5, t_e=3, t_s=5, t_u="never", adopted=False),
        lab("w1", seed=1, t_e=3, t_s=5, t_u="never", adopted=False),
    ]
    r0 = analyze(runs, CASES, first_seeds={"A": 5})
    f = _row(r0.funnel, "write_effect", "A")
    assert (f.scheduled, f.population) == (2, 2)
    assert _counts(_row(r0.adoption, "write_effect", "A").a_p) == (1, 2, 2)
    # Without the schedule's repetition order, the smallest seed stands for r0.
    smallest = analyze(runs, CASES)
    assert _row(smallest.funnel, "write_effect", "A").scheduled == 1
    assert _counts(_row(smallest.adoption, "write_effect", "A").a_p) == (0, 1, 1)


def _status(path: Path, rows: list[tuple[str, str, int, int, str, str | None]]) -> None:
    """A hand-written experiment status file: (case, configuration, repetition, seed,
    state, cause) per faulted run, after a session record and a clean run."""
    lines = [
        {"kind": "session", "ts": 0.0, "experiment": "e.toml", "name": "e", "scheduled": 9},
        {
            "kind": "run",
            "condition": "clean",
            "configuration": "A",
            "key": {"case": "clean:airline/0", "repetition": 0, "seed": 5},
            "state": "observed",
        },
    ]
    for case, configuration, repetition, seed, state, cause in rows:
        lines.append(
            {
                "kind": "run",
                "condition": "fault",
                "configuration": configuration,
                "key": {"case": case, "repetition": repetition, "seed": seed},
                "state": state,
                "cause": cause,
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_gating_precedes_scheduling_and_r0_comes_from_the_schedule(tmp_path: Path) -> None:
    from sscbench.analysis.population import read_schedule

    path = tmp_path / "schedule.jsonl"
    _status(
        path,
        [
            ("w1", "A", 0, 5, "observed", None),
            ("w2", "A", 0, 5, "observed", None),
            ("w1", "A", 1, 1, "observed", None),
            ("w3", "A", 0, 5, "missing", "gated"),  # clean task not solved: never scheduled
            ("w3", "A", 1, 1, "missing", "gated"),
            ("w4", "A", 0, 5, "missing", "provider_error"),  # scheduled, then missing
            ("w5", "B", 0, 5, "missing", "gated"),  # B solved no clean task at all
        ],
    )
    schedule = read_schedule(path)
    assert schedule is not None
    assert schedule.first_seeds == {"A": 5, "B": 5}
    assert sorted(schedule.gated) == [("w3", "A", 1), ("w3", "A", 5), ("w5", "B", 5)]
    runs = [
        lab("w1", seed=5, t_e=3, t_s=5, t_u=5, adopted=True),
        lab("w2", seed=5, t_e=3, t_s=5, t_u="never", adopted=False),
        lab("w1", seed=1, t_e=3, t_s=5, t_u="never", adopted=False),
    ]
    result = analyze(
        runs,
        CASES,
        schedule=schedule.runs,
        first_seeds=schedule.first_seeds,
        gated=schedule.gated,
    )
    a = _row(result.funnel, "write_effect", "A")
    # r0 only: w1, w2 observed, w4 missing; w3 gated beside the funnel, not missing.
    assert (a.gated, a.scheduled, a.observed, a.missing, a.population) == (1, 3, 2, 1, 2)
    b = _row(result.funnel, "write_effect", "B")  # a fully gated configuration keeps its row
    assert (b.gated, b.scheduled, b.population) == (1, 0, 0)
    assert _counts(_row(result.adoption, "write_effect", "B").a_p) == (0, 0, 0)
    every = analyze(
        runs, CASES, sensitivity="all_repetitions", schedule=schedule.runs, gated=schedule.gated
    )
    assert _row(every.funnel, "write_effect", "A").gated == 2
    assert read_schedule(tmp_path / "absent.jsonl") is None


def test_common_seeds_drop_cases_gated_for_any_configuration(tmp_path: Path) -> None:
    from sscbench.analysis.population import read_schedule

    path = tmp_path / "schedule.jsonl"
    _status(
        path,
        [
            ("w1", "A", 0, 0, "observed", None),
            ("w1", "B", 0, 0, "observed", None),
            ("w2", "A", 0, 0, "observed", None),
            ("w2", "B", 0, 0, "missing", "gated"),  # B did not solve w2's clean task
        ],
    )
    schedule = read_schedule(path)
    assert schedule is not None
    runs = [
        lab("w1", t_e=3, t_s=5, t_u=5, adopted=True),
        lab("w1", agent="B", t_e=3, t_s=5, t_u="never", adopted=False),
        lab("w2", t_e=3, t_s=5, t_u=5, adopted=True),
    ]
    kwargs: dict[str, Any] = {"schedule": schedule.runs, "gated": schedule.gated}
    primary = analyze(runs, CASES, **kwargs)
    assert _row(primary.funnel, "write_effect", "A").scheduled == 2
    common = analyze(runs, CASES, sensitivity="common_seeds", **kwargs)
    a = _row(common.funnel, "write_effect", "A")
    assert (a.scheduled, a.population) == (1, 1)  # w2 is not a common clean-solved seed
    assert _counts(_row(common.adoption, "write_effect", "A").a_p) == (1, 1, 1)


def test_paired_rows_on_hand_built_pairs() -> None:
    from sscbench.analysis.paired import paired_rows

    hint = "+read_back_hint"
    runs = [
        # w1: no read-back and adopted on the main interface; the hint brings both around
        lab("w1", t_e="never", t_s=5, t_u=5, adopted=True),
        lab("w1" + hint, t_e=6, t_s=8, t_u="never", adopted=False),
        # w2: read back on both sides, adopted on neither
        lab("w2", t_e=6, t_s=8, t_u="never", adopted=False),
        lab("w2" + hint, t_e=6, t_s=8, t_u="never", adopted=False),
        # w3: the variant run was not triggered, so there is no pair
        lab("w3", t_e="never", t_s=5, t_u=5, adopted=True),
        lab("w3" + hint, triggered=False),
        # w4: adoption undecidable on one side: a pair for read-back, not for adoption
        lab("w4", t_e="never", t_s=5, t_u=5, adopted=True),
        lab("w4" + hint, t_e="never", t_s="undecidable", t_u="undecidable", adopted=None),
        # w5: a variant run without its main-interface twin
        lab("w5" + hint, t_e=6, t_s=8, t_u="never", adopted=False),
    ]
    rows = {(r.check, r.configuration): r for r in paired_rows(runs)}
    row = rows[("read_back_hint", "A")]
    assert (row.operator, row.pairs, row.read_back_main, row.read_back_variant) == (
        "write_effect",
        3,
        1,
        2,
    )
    assert (row.adoption_pairs, row.adopted_main, row.adopted_variant) == (2, 1, 0)
    assert (row.adopted_main_only, row.adopted_variant_only) == (1, 0)
    assert rows[("read_back_hint", "all")].pairs == 3
    # the variant runs stay out of the main population
    result = analyze(runs, CASES)
    assert _row(result.funnel, "write_effect", "A").scheduled == 4
    assert result.paired == paired_rows(runs)


def test_paper_counts_n_z_u_z_u_q_and_first_use_reliance(primary: AnalysisResult) -> None:
    f = _row(primary.funnel, "write_effect", "A")
    # runs with a use: w1..w5 decidable Z_S (n_Z), w10 undecidable (u_Z)
    assert (f.arrival_decided, f.arrival_undecidable) == (5, 1)
    t = _row(primary.timing, "write_effect", "A")
    # adopted in P: w1 w2 w3 w4, all timed (u_q = 0); T_S = T_U for w1 w2 w3, not w4
    assert (t.order_undecidable, t.first_use_is_reliance) == (0, 3)
    strata = {
        r.stratum: (r.endorse, r.retract, r.undecidable)
        for r in primary.stance_by_stratum
        if (r.operator, r.configuration) == ("write_effect", "A")
    }
    # w1 before/endorse; w2 after/retract, w4 after/undecidable; w3 absent/endorse
    assert strata == {"before": (1, 0, 0), "after": (0, 1, 1), "absent": (1, 0, 0)}


def test_u_q_counts_adopted_runs_whose_order_is_undecidable() -> None:
    runs = [
        lab("w1", t_e=3, t_s=5, t_u=5, adopted=True),
        # adopted, in P (T_S found, Z_S before), but T_U undecidable: order unknown
        lab("w2", t_e=3, t_s=5, t_u="undecidable", adopted=True),
    ]
    t = _row(analyze(runs, CASES).timing, "write_effect", "A")
    assert (_counts(t.q_u)[1], t.order_undecidable) == (1, 1)


def test_configurations_and_execution_scale(primary: AnalysisResult) -> None:
    rows = {r.configuration: r for r in primary.configurations}
    a, b = rows["A"], rows["B"]
    # A: write_effect w1..w10 at r0 (w8 unfinished, w7 untriggered) and w1..w3 at r1, plus
    # the four item_option runs; every repetition counts here.
    assert (a.agent, a.repetitions, a.scheduled, a.observed) == ("A", 2, 17, 16)
    assert a.triggered == 16 - 1  # w7
    assert (b.repetitions, b.scheduled, b.triggered, b.gated) == (1, 1, 1, 0)


def test_common_seeds_with_a_configuration_gated_on_every_case_of_an_operator(
    tmp_path: Path,
) -> None:
    from sscbench.analysis.population import read_schedule

    path = tmp_path / "schedule.jsonl"
    _status(
        path,
        [
            ("w1", "A", 0, 0, "observed", None),
            ("w1", "B", 0, 0, "observed", None),
            ("i1", "A", 0, 0, "observed", None),
            ("i1", "B", 0, 0, "missing", "gated"),  # B solved no ItemOption task
        ],
    )
    schedule = read_schedule(path)
    assert schedule is not None
    runs = [
        lab("w1", t_e=3, t_s=5, t_u=5, adopted=True),
        lab("w1", agent="B", t_e=3, t_s=5, t_u="never", adopted=False),
        lab("i1", t_e=6, t_s=8, t_u=8, adopted=True, evidence=(4, 6)),
    ]
    common = analyze(
        runs, CASES, sensitivity="common_seeds", schedule=schedule.runs, gated=schedule.gated
    )
    # i1 is not a seed both configurations solved: ItemOption has no common seed at all
    assert sum(r.scheduled for r in common.funnel if r.operator == "item_option") == 0
    primary = analyze(runs, CASES, schedule=schedule.runs, gated=schedule.gated)
    assert _row(primary.funnel, "item_option", "A").scheduled == 1
    assert _row(common.funnel, "write_effect", "A").scheduled == 1
