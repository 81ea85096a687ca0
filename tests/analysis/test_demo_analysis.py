"""The analysis on a real ``sscbench demo`` run set: internal consistency of every table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.analysis.population import SENSITIVITIES
from sscbench.analysis.quantities import POOLED, analyze, analyze_all
from sscbench.analysis.results import AnalysisResult, Rate
from sscbench.cases.caseset import load_case_set
from sscbench.cli.main import main
from sscbench.experiments.inline import control_tasks
from sscbench.reconstruct.labels import RunLabels, read_labels
from sscbench.runs.episode import LEDGER_FILE

OBSERVATION_CONTRACTS = ("expiry", "transport")


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "demo"
    assert main(["demo", "--out", str(out)]) == 0  # 2,440 scripted runs + clean controls
    return out


@pytest.fixture(scope="module")
def demo_labels(demo_dir: Path) -> list[RunLabels]:
    return read_labels(demo_dir / "labels.jsonl")


def test_demo_scores_the_offline_oracles_against_the_truth(demo_dir: Path) -> None:
    scores = json.loads((demo_dir / "oracle_eval" / "scores.json").read_text())["oracles"]
    assert sorted(scores) == ["anomaly_detector", "db_invariants", "reconstructor"]
    recon = scores["reconstructor"]["strata"]["all"]
    assert recon["f1"] == 1.0 and recon["t_u_exact"] == 1.0
    assert recon["clean"] > 0 and recon["fpr_clean"] == 0.0, "clean controls were scored"
    assert scores["db_invariants"]["setting"]["baseline"] == "B5"
    clean = demo_dir.with_name("demo-clean")
    tasks = control_tasks(load_case_set(), 10)
    assert len(list(clean.glob(f"*/{LEDGER_FILE}"))) == len(tasks) > 0
    operators = {c.contract.operator for c in load_case_set().cases}
    assert len(tasks) >= len(operators)


@pytest.fixture(scope="module")
def results(demo_labels: list[RunLabels]) -> dict[str, AnalysisResult]:
    return {str(k): v for k, v in analyze_all(demo_labels, load_case_set()).items()}


def _keys(rows: tuple[object, ...]) -> list[tuple[str, str]]:
    return [(r.operator, r.configuration) for r in rows]  # type: ignore[attr-defined]


def _consistent(rate: Rate) -> None:
    assert 0 <= rate.numerator <= rate.denominator
    assert rate.clusters <= rate.denominator
    if rate.denominator == 0:
        assert (rate.clusters, rate.value, rate.interval.method) == (0, None, "none")
    else:
        assert rate.clusters >= 1
        assert rate.value == pytest.approx(rate.numerator / rate.denominator)
        low, high = rate.interval.low, rate.interval.high
        assert low is not None and high is not None
        assert 0.0 <= low <= high <= 1.0
        expected = "wilson" if rate.clusters == rate.denominator else "cluster_bootstrap"
        assert rate.interval.method == expected


@pytest.mark.parametrize("variant", SENSITIVITIES)
def test_tables_are_consistent(results: dict[str, AnalysisResult], variant: str) -> None:
    result = results[variant]
    assert result.sensitivity == variant
    groups = _keys(result.funnel)
    assert len(groups) == 65  # 13 operators × 5 scripted configurations
    for table in (result.arrival, result.adoption, result.stance, result.noise):
        assert _keys(table) == groups
    pooled = sorted({op for op, _ in groups})
    with_pooled = sorted(groups + [(op, POOLED) for op in pooled])
    assert sorted(_keys(result.timing)) == with_pooled
    assert sorted(_keys(result.reformulation)) == with_pooled

    for f in result.funnel:  # monotone funnel
        assert f.scheduled >= f.observed >= f.triggered >= f.decidable_use >= f.population
        assert f.missing == f.scheduled - f.observed
        assert f.not_triggered == f.observed - f.triggered
        # Every scripted run with a use has a decidable Z_S, so decidable use splits into
        # P, the runs without a use (reported apart) and the controls.
        if variant == "controls_included":
            assert f.no_use + f.population == f.decidable_use
        elif variant == "strict_item_option":
            assert f.controls + f.no_use + f.population <= f.decidable_use
        else:
            assert f.controls + f.no_use + f.population == f.decidable_use

    funnel = {(f.operator, f.configuration): f for f in result.funnel}
    for a in result.arrival:  # strata sum to the decided runs; with the rest, to triggered
        rates = (a.before, a.after, a.absent)
        for rate in rates:
            _consistent(rate)
        assert len({(r.denominator, r.clusters) for r in rates}) == 1
        assert sum(r.numerator for r in rates) == a.before.denominator
        f = funnel[(a.operator, a.configuration)]
        if variant != "strict_item_option":
            assert a.before.denominator + a.no_use + a.undecidable == f.triggered

    stance = {(s.operator, s.configuration): s for s in result.stance}
    for row in result.adoption:
        for rate in (row.a_t, row.a_p, row.a_before, row.a_after, row.a_absent):
            _consistent(rate)
        strata = (row.a_before, row.a_after, row.a_absent)
        # P is the union of the three strata: A_P adds up by stratum.
        assert sum(r.denominator for r in strata) == row.a_p.denominator
        assert sum(r.numerator for r in strata) == row.a_p.numerator
        assert row.a_p.denominator <= funnel[(row.operator, row.configuration)].population
        assert row.a_p.denominator <= row.a_t.denominator
        s = stance[(row.operator, row.configuration)]
        assert s.endorse + s.retract + s.undecidable == row.a_p.numerator

    adoption = {(a.operator, a.configuration): a for a in result.adoption}
    for r in result.reformulation:
        for rate in (r.adoption, r.adoption_eventually_refuted, r.adoption_refuted_before_use):
            _consistent(rate)
        assert r.adoption_refuted_before_use.numerator <= r.adoption_eventually_refuted.numerator
        assert r.adoption_eventually_refuted.numerator <= r.adoption.numerator
        if r.configuration != POOLED:
            assert r.adoption == adoption[(r.operator, r.configuration)].a_p
    for t in result.timing:
        _consistent(t.q_u)
        assert len(t.gaps) == t.q_u.denominator
        assert sum(1 for g in t.gaps if g is not None and g > 0) == t.q_u.numerator
        assert t.refuted_between_use_and_reliance <= t.q_u.numerator
    for n in result.noise:
        assert n.changed <= n.pairs_with_repetitions <= n.pairs


def test_empty_strata_are_shown(results: dict[str, AnalysisResult]) -> None:
    # On the τ² facts only scripted:eager produces an "after" arrival: every other
    # after-stratum is still a row, shown as 0/0/0 with no value rather than dropped or
    # shown as 0 %. An observation contract's expiry is only shown once the write that
    # relied on the quote is answered, so there every agent populates it. A ResetLeak
    # refutation comes with the write, after the careful agent has voiced its doubt.
    rows = results["primary"].adoption
    for row in rows:
        if row.configuration == "scripted:eager" or row.operator in OBSERVATION_CONTRACTS:
            continue
        if row.operator == "reset_leak":
            continue
        assert (row.a_after.numerator, row.a_after.denominator, row.a_after.clusters) == (0, 0, 0)
        assert row.a_after.value is None
    eager = {r.operator: r for r in rows if r.configuration == "scripted:eager"}
    assert eager["write_effect"].a_after.denominator > 0
    expiry = [r for r in rows if r.operator == "expiry"]
    assert sum(r.a_after.denominator for r in expiry) > 0


def test_known_demo_figures(results: dict[str, AnalysisResult]) -> None:
    primary = results["primary"]
    funnel = {(f.operator, f.configuration): f for f in primary.funnel}
    assert sum(f.scheduled for f in primary.funnel) == 1670  # 334 cases × 5 agents, r0
    assert sum(f.scheduled for f in results["all_repetitions"].funnel) == 3340
    assert sum(f.missing for f in primary.funnel) == 0
    assert funnel[("write_effect", "scripted:gold")].population == 30
    careful = {a.operator: a for a in primary.adoption if a.configuration == "scripted:careful"}
    reference = ("return_date", "pay_source", "item_option", "write_effect")
    assert all(careful[op].a_p.numerator == 0 for op in reference)
    assert careful["partial_effect"].a_p.numerator == 0  # it reads every write back
    # No scripted agent checks a precondition against the policy: careful relies too.
    assert careful["unenforced_precondition"].a_p.numerator == 3
    # ResetLeak: careful doubts a handled-looking status and lets the write decide (its
    # doubt comes before the write's refutation); hasty believes it on every triggered run.
    assert careful["reset_leak"].a_p.numerator == 0
    assert careful["reset_leak"].a_after.denominator == 30
    hasty = {a.operator: a for a in primary.adoption if a.configuration == "scripted:hasty"}
    assert hasty["reset_leak"].a_p.numerator == hasty["reset_leak"].a_p.denominator > 0
    # careful's confirmation exchange outlasts an Expiry quote
    assert careful["expiry"].a_p.numerator > 0
    # Write-effect adoptions by gold/hasty are never refuted (no read-back): q_U = 0.
    timing = {(t.operator, t.configuration): t for t in primary.timing}
    gold = timing[("write_effect", "scripted:gold")]
    assert gold.q_u.numerator == 0 and set(gold.gaps) == {None}
    # Controls: kept for arrival, out of P unless controls_included.
    controls = sum(f.controls for f in primary.funnel)
    assert controls > 0
    with_controls = results["controls_included"].funnel
    included = sum(f.population + f.no_use for f in with_controls)
    assert included == sum(f.population + f.no_use for f in primary.funnel) + controls
    # Runs without a dependent use are never in P.
    assert sum(f.no_use for f in primary.funnel) > 0
    # LineUsage (telecom): careful reads the usage record before refuelling but states the
    # line record's figure (adoption with pre-use refutation); eager never reads the usage
    # record (absent); gold and hasty never read the line, so the fault never fires.
    usage = {f.configuration: f for f in primary.funnel if f.operator == "line_usage"}
    assert usage["scripted:gold"].triggered == usage["scripted:hasty"].triggered == 0
    line = {a.configuration: a for a in primary.adoption if a.operator == "line_usage"}
    before = line["scripted:careful"].a_before
    assert before.numerator == before.denominator == usage["scripted:careful"].population > 0
    absent = line["scripted:eager"].a_absent
    assert absent.numerator == absent.denominator == usage["scripted:eager"].population > 0


def test_deterministic(demo_labels: list[RunLabels], results: dict[str, AnalysisResult]) -> None:
    again = analyze(demo_labels, load_case_set(), replicates=2000, seed=0)
    assert again == results["primary"]


def test_demo_fills_every_arrival_stratum(demo_labels: list[RunLabels]) -> None:
    """The main job shows the paper's central contrast: WriteEffect and ItemOption runs
    with the refutation before, after and never, and adopted PaySource runs."""
    strata: dict[str, set[str]] = {}
    for x in demo_labels:
        if x.seed == 0 and x.z_s in ("before", "after", "absent"):
            strata.setdefault(str(x.operator), set()).add(str(x.z_s))
    assert strata["write_effect"] == {"before", "after", "absent"}
    assert strata["item_option"] == {"before", "after", "absent"}
    # DeviceReading (telecom, the customer's own phone): careful checks the status bar first,
    # eager after telling the customer, hasty never
    assert strata["device_reading"] == {"before", "after", "absent"}
    assert any(x.operator == "pay_source" and x.adopted for x in demo_labels)


def test_the_readme_figures_of_the_demo_are_the_demos(
    demo_dir: Path, demo_labels: list[RunLabels]
) -> None:
    """The README's figures that this run set determines are re-derived from it: the
    offline oracles' F1 and the runs' counts."""
    import re

    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    scores = json.loads((demo_dir / "oracle_eval" / "scores.json").read_text())["oracles"]
    found = re.search(
        r"reconstructor scores F1 (\d\.\d\d), the invariant checker (\d\.\d\d) and the "
        r"anomaly detector (\d\.\d\d)",
        readme,
    )
    assert found is not None
    shown = [float(x) for x in found.groups()]
    names = ("reconstructor", "db_invariants", "anomaly_detector")
    assert shown == [round(scores[n]["strata"]["all"]["f1"], 2) for n in names]
    clean = len(list(demo_dir.with_name("demo-clean").glob(f"*/{LEDGER_FILE}")))
    assert f"({len(demo_labels):,} faulted runs of" in readme
    assert f"and {clean} clean controls" in readme


def test_demo_writes_a_results_bundle_that_compare_reads(demo_dir: Path, tmp_path: Path) -> None:
    """The demo's results bundle is the one ``export results`` writes: its cards are the
    five agents with their run counts, its analysis is the demo's, and ``compare`` renders
    it (against itself, the simplest leaderboard)."""
    from sscbench.analysis.bundle import read_bundle
    from sscbench.cli.demo import DEMO_AGENTS

    bundle_dir = demo_dir.with_name("demo-results")
    bundle, analysis = read_bundle(bundle_dir)
    labels = read_labels(demo_dir / "labels.jsonl")
    assert {c.id for c in bundle.configurations} == set(DEMO_AGENTS)
    assert sum(c.runs for c in bundle.configurations) == len(labels)
    assert (bundle_dir / "labels.jsonl").read_bytes() == (demo_dir / "labels.jsonl").read_bytes()
    report = json.loads((demo_dir / "report" / "analysis.json").read_text())
    assert json.loads(analysis.model_dump_json()) == report
    assert not bundle.ledgers and not list(bundle_dir.rglob(LEDGER_FILE))
    page = tmp_path / "compare.html"
    assert main(["compare", str(bundle_dir), str(bundle_dir), "--html", str(page)]) == 0
    assert "scripted:hasty" in page.read_text(encoding="utf-8")


def test_demo_plays_the_native_suite_and_each_mistake_is_caught(demo_dir: Path) -> None:
    """``native.json``: the reference succeeds on every seeded run of every family; every
    scripted mistake gets the verifier label made for it on its families' tasks."""
    from sscbench.native import PLAYS
    from sscbench.native.summary import NativeSummary

    summary = NativeSummary.model_validate_json((demo_dir / "native.json").read_bytes())
    rows = {r.solution: r for r in summary.rows}
    assert set(rows) == set(PLAYS) and summary.reference_passed
    assert rows["reference"].runs > 0
    assert rows["reference"].labels == {"SUCCESS": rows["reference"].runs}
    expected = {
        "ignores_maintenance": "ACTED_DURING_MAINTENANCE",
        "retries_at_once": "RETRY_BEFORE_ALLOWED",
        "rewrites_blindly": "STALE_WRITE",
        "retries_stale": "STALE_WRITE",
        "fabricates_link": "FABRICATED_ARTIFACT",
        "fetch_then_prepare": "EXPIRED_BEFORE_USE",
    }
    for solution, label in expected.items():
        assert rows[solution].labels.get(label, 0) > 0, (solution, rows[solution].labels)
    for name, row in rows.items():
        if name != "reference":
            assert row.labels.get("SUCCESS", 0) < row.runs, f"{name} is never caught"
