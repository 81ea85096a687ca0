"""The reference mitigations on the scripted agents: they change adoption in the expected
direction (the gold agent, which trusts the latest sighting, adopts less behind either; the
hasty agent, which trusts its first sighting, no less), through the agents' own habits; a
mitigation is part of the configuration's identity and of the ledger header."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from sscbench.agents.base import EpisodeContext
from sscbench.agents.mitigations import MitigatedAgent, make_mitigation, mitigation_names
from sscbench.agents.registry import make_agent
from sscbench.agents.scripted.trust import EvidenceHabits, follow_guidance
from sscbench.analysis.mitigation import mitigation_rows, read_run_steps, split_configuration
from sscbench.analysis.results import ALL_OPERATORS, MitigationRow
from sscbench.cases.caseset import load_case_set
from sscbench.errors import ConfigError
from sscbench.experiments.inline import command_line_experiment, fault_runs
from sscbench.experiments.session import run_experiment
from sscbench.reconstruct.label import label_dir
from sscbench.records.ledger import read_ledger

CASES = (
    "write_effect/airline/11/0",
    "partial_effect/retail/0/4/status",
    "ignored_argument/airline/12/4/total_baggages",
)
MITIGATIONS = ("verify_before_write", "read_back_after_write")


@pytest.fixture(scope="module")
def run_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    case_set = load_case_set(None)
    cases = [c for c in case_set.cases if c.entry.case_id in CASES]
    assert len(cases) == len(CASES)
    experiment = command_line_experiment(
        "mitigations",
        [("scripted:gold", {}), ("scripted:hasty", {})],
        seeds=[0],
        case_set=case_set,
        mitigations=MITIGATIONS,
    )
    out = tmp_path_factory.mktemp("mitigations") / "runs"
    run_experiment(experiment, out, runs=fault_runs(experiment, [c.contract for c in cases]))
    return out


@pytest.fixture(scope="module")
def rows(run_set: Path) -> dict[tuple[str, str], MitigationRow]:
    result = mitigation_rows(
        label_dir(run_set), load_case_set(None), mitigation_names(), read_run_steps([run_set])
    )
    return {(r.configuration, r.mitigation): r for r in result if r.operator == ALL_OPERATORS}


def test_both_mitigations_lower_the_gold_agents_adoption(
    rows: dict[tuple[str, str], MitigationRow],
) -> None:
    for name in MITIGATIONS:
        row = rows[("scripted:gold", name)]
        assert row.adoption_pairs == len(CASES)
        assert row.adopted_without.numerator == len(CASES)  # each case adopted without
        assert row.adopted_with.numerator == 0, name
        assert row.adoption_difference == -1.0
        assert row.steps_with is not None and row.steps_without is not None
        assert row.steps_with > row.steps_without  # the defence costs steps


def test_the_hasty_agent_adopts_no_less_and_no_more(
    rows: dict[tuple[str, str], MitigationRow],
) -> None:
    for name in MITIGATIONS:
        row = rows[("scripted:hasty", name)]
        assert row.adoption_pairs == len(CASES)
        assert row.adoption_difference == 0.0
        assert (row.adopted_without_only, row.adopted_with_only) == (0, 0)


def test_the_ledger_header_records_the_mitigation_and_the_configuration(run_set: Path) -> None:
    headers = {
        (h.configuration, h.mitigation.name if h.mitigation else None)
        for h in (read_ledger(p).header for p in run_set.glob("*/ledger.jsonl"))
    }
    assert ("scripted:gold+verify_before_write", "verify_before_write") in headers
    assert ("scripted:gold+read_back_after_write", "read_back_after_write") in headers
    assert (None, None) in headers  # the unmitigated runs' headers are as they always were


def test_a_mitigation_is_part_of_the_configuration_identity() -> None:
    plain = command_line_experiment("x", [("scripted:gold", {})], seeds=[0])
    both = command_line_experiment("x", [("scripted:gold", {})], seeds=[0], mitigations=MITIGATIONS)
    hashes = [c.hash for c in both.configurations]
    assert hashes[0] == plain.configurations[0].hash  # unchanged without a mitigation
    assert len(set(hashes)) == 3
    assert [c.id for c in both.configurations] == [
        "scripted:gold",
        "scripted:gold+verify_before_write",
        "scripted:gold+read_back_after_write",
    ]
    with pytest.raises(ConfigError, match="unknown mitigation 'nope'"):
        command_line_experiment("x", [("scripted:gold", {})], seeds=[0], mitigations=["nope"])


def test_guidance_raises_habits_and_leaves_unknown_names_alone() -> None:
    gold = EvidenceHabits()
    guided = follow_guidance(gold, ("verify_before_write",))
    assert (guided.pre_use_lookup, guided.prefer_authoritative) == (1.0, 1.0)
    assert guided.read_back == 0.0
    assert follow_guidance(gold, ("something_else",)) == gold
    hasty = EvidenceHabits(first_sighting=True)
    assert follow_guidance(hasty, ("verify_before_write",)).first_sighting


def test_the_prompt_addendum_reaches_the_policy_and_the_agent() -> None:
    agent = MitigatedAgent(make_agent("scripted:gold"), make_mitigation("verify_before_write"))
    ctx = make_mitigation("verify_before_write").prepare(
        EpisodeContext(domain="airline", task=None, seed=0, policy="POLICY")
    )
    assert ctx.policy.startswith("POLICY\n\n") and "authoritative" in ctx.policy
    assert ctx.guidance == ("verify_before_write",)
    assert hasattr(agent, "truth")  # the scripted agent's truth is still written
    assert not hasattr(agent, "connect")  # and it does not become an external agent


def test_split_configuration() -> None:
    assert split_configuration("a+b+verify_before_write", MITIGATIONS) == (
        "a+b",
        "verify_before_write",
    )
    assert split_configuration("a+other", MITIGATIONS) is None
    assert split_configuration("verify_before_write", MITIGATIONS) is None


def test_the_analysis_report_and_terminal_show_the_comparison(run_set: Path) -> None:
    from sscbench.analysis.quantities import analyze
    from sscbench.analysis.reliability_section import reliability_section
    from sscbench.analysis.terminal_reliability import mitigation_table

    result = analyze(
        label_dir(run_set), load_case_set(None), steps=read_run_steps([run_set]), replicates=200
    )
    pooled = [r for r in result.mitigations if r.operator == ALL_OPERATORS]
    assert {(r.configuration, r.mitigation) for r in pooled} == {
        (agent, name) for agent in ("scripted:gold", "scripted:hasty") for name in MITIGATIONS
    }
    html = reliability_section(result)
    assert 'id="table-mitigations"' in html and "read_back_after_write" in html
    assert 'id="table-task-success"' not in html  # analysed without clean runs
    assert mitigation_table(result) is not None


def test_an_experiment_file_runs_each_configuration_behind_each_mitigation(
    tmp_path: Path,
) -> None:
    from sscbench.cli.main import main

    experiment = tmp_path / "e.toml"
    experiment.write_text(
        'mitigations = ["read_back_after_write"]\n[cases]\noperators = ["write_effect"]\n'
        'per_operator = 1\n[[configurations]]\nid = "gold"\nagent = "scripted:gold"\n'
    )
    out = tmp_path / "runs"
    assert main(["run", "--config", str(experiment), "--out", str(out)]) == 0
    described = json.loads((out / "experiment.json").read_text())["configurations"]
    assert [(c["id"], c.get("mitigation")) for c in described] == [
        ("gold", None),
        ("gold+read_back_after_write", "read_back_after_write"),
    ]
    headers = [read_ledger(p).header for p in out.rglob("ledger.jsonl")]
    mitigated = [h for h in headers if h.mitigation is not None]
    assert mitigated and all(h.configuration == "gold+read_back_after_write" for h in mitigated)
    assert main(["run", "--config", str(experiment), "--out", str(out), "--mitigation", "x"]) == 2


def test_an_external_agent_cannot_be_mitigated() -> None:
    with pytest.raises(ConfigError, match="external agent runs its own loop"):
        command_line_experiment(
            "x", [("external", {})], seeds=[0], mitigations=["verify_before_write"]
        )


def test_scripted_runs_cost_no_tokens_and_the_table_says_so(run_set: Path) -> None:
    from sscbench.analysis.mitigation_cost import (
        NO_PROVIDER_CALLS,
        read_run_usage,
        tokens_text,
        usd_text,
    )
    from sscbench.analysis.terminal_reliability import mitigation_table

    usage = read_run_usage([run_set])
    assert usage == {}  # no run called a provider: no provider_calls.jsonl was read
    result = mitigation_rows(
        label_dir(run_set), load_case_set(None), mitigation_names(), usage=usage
    )
    for row in result:
        assert row.cost_pairs > 0
        assert row.provider_calls_without == row.provider_calls_with == 0
        assert tokens_text(row) == usd_text(row) == NO_PROVIDER_CALLS  # not a fake "$0.00"
    # without usage read, no claim either way
    bare = mitigation_rows(label_dir(run_set), load_case_set(None), mitigation_names())
    assert all(tokens_text(r) == usd_text(r) == "–" for r in bare)
    from sscbench.analysis.quantities import analyze

    table = mitigation_table(analyze(label_dir(run_set), load_case_set(None), usage=usage))
    assert table is not None and "tokens" in [c.header for c in table.columns]


def _calls(*records: tuple[int, int, float | None, str]) -> str:
    return "".join(
        json.dumps({"input_tokens": i, "output_tokens": o, "cost_usd": usd, "status": status})
        + "\n"
        for i, o, usd, status in records
    )


def test_provider_tokens_and_usd_sit_beside_steps(run_set: Path, tmp_path: Path) -> None:
    import shutil

    from sscbench.analysis.mitigation_cost import read_run_usage, tokens_text, usd_text

    copy = tmp_path / "runs"
    shutil.copytree(run_set, copy)
    for path in copy.glob("*/ledger.jsonl"):
        header = read_ledger(path).header
        name = header.mitigation.name if header.mitigation else None
        if name is None:  # the base runs: one call, 80 + 10 tokens, $0.0005
            text = _calls((80, 10, 0.0005, "ok"))
        elif name == "verify_before_write":  # two calls, one a cache hit (tokens, no cost)
            text = _calls((100, 20, 0.001, "ok"), (100, 20, 0.0, "cache_hit"))
        else:  # read-back: calls the provider never priced
            text = _calls((50, 5, None, "ok"))
        (path.parent / "provider_calls.jsonl").write_text(text)
    usage = read_run_usage([copy])
    rows = {
        (r.configuration, r.mitigation): r
        for r in mitigation_rows(
            label_dir(copy), load_case_set(None), mitigation_names(), usage=usage, replicates=200
        )
        if r.operator == ALL_OPERATORS
    }
    verify = rows[("scripted:gold", "verify_before_write")]
    assert verify.cost_pairs > 0
    assert verify.provider_calls_without == verify.cost_pairs  # the cache hit is no call
    assert verify.provider_calls_with == verify.cost_pairs
    assert (verify.tokens_without, verify.tokens_with, verify.tokens_difference) == (
        90.0,
        240.0,
        150.0,
    )
    assert verify.usd_without == pytest.approx(0.0005) and verify.usd_with == pytest.approx(0.001)
    assert tokens_text(verify).startswith("90 → 240 (+150")
    assert usd_text(verify).startswith("$0.0005 → $0.0010 (+0.0005")
    read_back = rows[("scripted:gold", "read_back_after_write")]
    assert read_back.tokens_with == 55.0 and usd_text(read_back) == "unpriced"


def test_a_mitigation_arm_travels_to_a_remote_worker_as_its_own_job(tmp_path: Path) -> None:
    """What the Ray executor ships per run (a pickled ``EpisodeJob``) carries the arm's
    mitigation, and a worker running the job writes it into the ledger's header: the arms
    fan out as configurations do, with no executor change."""
    import pickle

    from sscbench.experiments.executors import EpisodeJob, run_job
    from sscbench.runs.episode import LEDGER_FILE

    case_set = load_case_set(None)
    case = next(c for c in case_set.cases if c.entry.case_id == CASES[0])
    experiment = command_line_experiment(
        "arms",
        [("scripted:gold", {})],
        seeds=[0],
        case_set=case_set,
        mitigations=MITIGATIONS,
    )
    runs = fault_runs(experiment, [case.contract])
    assert {r.configuration.mitigation for r in runs} == {None, *MITIGATIONS}
    headers = {}
    for run in runs:
        job = pickle.loads(
            pickle.dumps(
                EpisodeJob(run, experiment.user, experiment.records_configuration, str(tmp_path))
            )
        )
        _, staged, digest = run_job(job)
        ledger_path = Path(staged) / LEDGER_FILE
        # the worker hashed the ledger as it wrote it: the driver never reads it back
        assert digest == hashlib.sha256(ledger_path.read_bytes()).hexdigest()
        header = read_ledger(ledger_path).header
        headers[run.configuration.mitigation] = (
            header.mitigation.name if header.mitigation else None
        )
    assert headers == {m: m for m in (None, *MITIGATIONS)}
