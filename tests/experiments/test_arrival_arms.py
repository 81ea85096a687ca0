"""Arrival arms through the one executor: the file keys, the seeded assignment, resume, and
the expected adoption of the scripted references per arm (analysis/arrival.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sscbench.agents import make_agent
from sscbench.analysis.arrival import ArrivalAnalysis, analyse_arrival, arrival_section
from sscbench.analysis.population import read_schedule
from sscbench.analysis.quantities import analyze
from sscbench.cases.caseset import load_case_set
from sscbench.errors import ConfigError
from sscbench.experiments import load_experiment, run_experiment
from sscbench.experiments.arrival import ArrivalDesign, assign_arms, delivery_calls
from sscbench.experiments.plan import plan_runs
from sscbench.experiments.status import STATUS_FILE, read_status
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.reconstruct.label import label_dir, label_run
from sscbench.records.events import by_agent
from sscbench.records.ledger import read_ledger
from sscbench.runs.arrival import ArrivalPlan, recorded_prefix
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user

Write = Callable[..., Path]

CASES = ["write_effect/airline/11/0", "write_effect/airline/12/4"]
ARMS = ["none", "at_fault", "before_use", "after_use", "at_k"]
EXPERIMENT = f"""
repetitions = 5
concurrency = 2
arrival_arms = {json.dumps(ARMS)}
[arrival]
k = 9
[cases]
ids = {json.dumps(CASES)}
[[configurations]]
id = "receptive"
agent = "scripted:receptive"
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
"""


def test_assignment_is_seeded_balanced_and_reproducible() -> None:
    design = ArrivalDesign(arms=("none", "at_fault", "before_use", "after_use", "at_k"))
    one = assign_arms(design, "c", "h", range(5))
    assert sorted(one.values()) == sorted(design.arms)  # every arm once in 5 repetitions
    assert one == assign_arms(design, "c", "h", range(5))
    others = [assign_arms(design, f"c{i}", "h", range(5)) for i in range(8)]
    assert any(o != one for o in others)  # shuffled per case
    assert sorted(assign_arms(design, "c", "h", range(10)).values()).count("none") == 2


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('arrival_arms = ["at_k"]\n', "the at_k arm needs a step"),
        ('arrival_arms = ["none", "none"]\n', "listed twice"),
        ('arrival_arms = ["soon"]\n', "arrival_arms[0]"),
        ("[arrival]\nk = 3\n", "set arrival_arms too"),
    ],
)
def test_bad_arrival_keys_are_one_line_each(write: Write, extra: str, message: str) -> None:
    text = extra + '[cases]\nids = ["write_effect/airline/11/0"]\n'
    text += '[[configurations]]\nid = "a"\nagent = "scripted:hasty"\n'
    with pytest.raises(ConfigError, match=r"exp\.toml:\d+: .*" + message.replace("[", r"\[")):
        load_experiment(write(text))


def test_arms_need_a_case_with_a_read_refutation(write: Write) -> None:
    text = 'arrival_arms = ["at_fault"]\n[cases]\noperators = ["return_date"]\n'
    text += '[[configurations]]\nid = "a"\nagent = "scripted:hasty"\n'
    with pytest.raises(ConfigError, match="no selected case delivers its refutation by a read"):
        load_experiment(write(text))


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ArrivalAnalysis]:
    root = tmp_path_factory.mktemp("arrival")
    source = root / "exp.toml"
    source.write_text(EXPERIMENT.lstrip(), encoding="utf-8")
    out = root / "out"
    result = run_experiment(load_experiment(source), out)
    assert not result.failed
    analysis = analyse_arrival(label_dir(out), out)
    assert analysis is not None
    return out, analysis


def _arm(analysis: ArrivalAnalysis, arm: str, config: str) -> float | None:
    (row,) = [r for r in analysis.per_arm if (r.arm, r.configuration) == (arm, config)]
    assert row.analysed == row.assigned == 2  # every unit observed, triggered, decided
    return row.adoption.value


def test_each_arm_once_per_case_and_configuration(ran: tuple[Path, ArrivalAnalysis]) -> None:
    out, _ = ran
    units = json.loads((out / "experiment.json").read_text())["arrival"]["units"]
    assert len(units) == 2 * 2 * 5
    for case in CASES:
        for config in ("receptive", "hasty"):
            arms = sorted(
                u["arm"] for u in units if (u["case"], u["configuration"]) == (case, config)
            )
            assert arms == sorted(ARMS)
    status = read_status(out / STATUS_FILE)
    tagged = [k for k in status if "+arrival." in k.case]
    assert len(tagged) == 2 * 2 * 4  # a none unit adds no run
    assert all(r.state == "observed" for k, r in status.items())


def test_scripted_references_give_the_expected_adoption(ran: tuple[Path, ArrivalAnalysis]) -> None:
    _, analysis = ran
    # receptive adopts unless the read-back is delivered before it claims the change;
    # hasty believes the write's payload whatever it is shown.
    expected = {
        "receptive": {"none": 1.0, "at_fault": 0.0, "before_use": 0.0, "after_use": 1.0},
        "hasty": {"none": 1.0, "at_fault": 1.0, "before_use": 1.0, "after_use": 1.0},
    }
    for config, arms in expected.items():
        for arm, value in arms.items():
            assert _arm(analysis, arm, config) == value, (config, arm)
    paired = {(r.arm, r.configuration): r for r in analysis.paired}
    effect = paired[("at_fault", "receptive")].difference
    assert (effect.value, effect.pairs) == (-1.0, 2)
    assert paired[("before_use", "hasty")].difference.value == 0.0
    (contrast,) = [r for r in analysis.contrast if r.configuration == "receptive"]
    assert contrast.causal.value == -1.0
    # Unmanipulated, receptive never reads back: no "before" or "after" stratum at all.
    assert contrast.descriptive is None and contrast.descriptive_after.denominator == 0
    html = arrival_section(analysis)
    assert 'id="table-arrival-arms"' in html and "before_use" in html


def test_arrival_runs_stay_out_of_the_main_analysis(ran: tuple[Path, ArrivalAnalysis]) -> None:
    out, _ = ran
    exp = load_experiment(out.parent / "exp.toml")
    schedule = read_schedule(out / STATUS_FILE)
    assert schedule is not None
    result = analyze(label_dir(out), exp.case_set, schedule=schedule.runs)
    assert sum(row.scheduled for row in result.funnel) == 2 * 2  # r0 of each main run
    assert result.paired == ()  # arms are not paired interface checks


def test_resume_runs_nothing_again(ran: tuple[Path, ArrivalAnalysis]) -> None:
    out, _ = ran
    before = (out / STATUS_FILE).read_text().count('"kind":"run"')
    again = run_experiment(load_experiment(out.parent / "exp.toml"), out)
    assert again.executed == 0
    assert (out / STATUS_FILE).read_text().count('"kind":"run"') == before
    assert len(plan_runs(load_experiment(out.parent / "exp.toml"))) == len(again.records)


def test_a_provider_agent_replays_its_prefix_from_the_response_cache(
    server: Any, key: str, tmp_path: Path
) -> None:
    """The twin fills the cache; the manipulated run is fed every prefix turn from it (no
    request reaches the model before the delivery) and continues live after it."""
    case = next(c for c in load_case_set(None).cases if c.entry.case_id == CASES[0])
    contract = case.contract
    params = {
        "model": "fake-gpt",
        "base_url": server.openai_url,
        "api_key_env": key,
        "cache_dir": str(tmp_path / "cache"),
    }
    spec = EpisodeSpec(
        domain=contract.domain,
        task_id=contract.task_id,
        max_steps=60,
        case_id=contract.contract_id,
        fault=contract.model_dump(mode="json"),
    )

    def run(name: str, plan: ArrivalPlan | None) -> Path:
        out = tmp_path / name
        run_episode(
            spec,
            make_agent("openai", **params),
            make_user("scripted"),
            out,
            run_id=name,
            intervention=ContractIntervention(contract),
            arrival=plan,
        )
        return out

    twin = run("twin", None)
    events = read_ledger(twin / "ledger.jsonl").events
    t_f = label_run(twin).t_f.step
    assert t_f is not None
    at = t_f + 1  # the agent's turn right after the faulted write's payload
    plan = ArrivalPlan(
        arm="before_use",
        calls=delivery_calls(case),
        trigger="at_step",
        at_step=at,
        prefix=recorded_prefix(events, at),
    )
    manipulated = run("manipulated", plan)
    hidden = [json.loads(x) for x in (manipulated / "hidden.jsonl").read_text().splitlines()]
    (record,) = [h for h in hidden if h["kind"] == "arrival_delivery"]
    assert (record["status"], record["replayed"], record["steps"][0]) == ("delivered", at, at)
    calls = [json.loads(x) for x in (manipulated / "provider_calls.jsonl").read_text().splitlines()]
    prefix_turns = len({e.turn for e in events[:at] if by_agent(e)}) - 1  # greeting is fixed
    assert prefix_turns >= 1
    assert [c["cache_hit"] for c in calls[:prefix_turns]] == [True] * prefix_turns
    assert calls[prefix_turns]["cache_hit"] is False  # the first request after the delivery


def test_the_report_shows_the_arrival_section(ran: tuple[Path, ArrivalAnalysis]) -> None:
    from sscbench.cli.main import main

    out, _ = ran
    assert main(["reconstruct", str(out)]) == 0
    assert main(["report", str(out), "--out", str(out.parent / "report")]) == 0
    html = (out.parent / "report" / "report.html").read_text(encoding="utf-8")
    assert '<section id="arrival-intervention">' in html
    assert 'href="#arrival-intervention"' in html and 'id="table-arrival-contrast"' in html
    saved = json.loads((out.parent / "report" / "tables" / "arrival.json").read_text())
    assert {row["arm"] for row in saved["per_arm"]} == set(ARMS)


def test_the_example_file_loads_and_plans() -> None:
    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "arrival.toml"
    exp = load_experiment(example)
    assert exp.arrival is not None and exp.arrival.arms[0] == "none"
    runs = plan_runs(exp)
    tagged = [r for r in runs if "+arrival." in r.key.case]
    # 12 cases × 3 configurations × 5 repetitions, one unit in five under none
    assert len(tagged) == 12 * 3 * 4


def test_notice_interface_through_the_executor(write: Write, tmp_path: Path) -> None:
    text = f"""
repetitions = 3
arrival_arms = ["none", "at_fault", "before_use"]
[arrival]
interface = "notice"
[cases]
ids = ["{CASES[0]}"]
[[configurations]]
id = "receptive"
agent = "scripted:receptive"
"""
    out = tmp_path / "out"
    run_experiment(load_experiment(write(text)), out)
    analysis = analyse_arrival(label_dir(out), out)
    assert analysis is not None
    values = {(r.arm, r.configuration): r.adoption.value for r in analysis.per_arm}
    assert values[("none", "receptive")] == 1.0
    assert values[("at_fault", "receptive")] == values[("before_use", "receptive")] == 0.0
    notices = list(out.glob("fault/*/*+arrival.*/*/ledger.jsonl"))
    assert len(notices) == 2
    assert all('"kind":"system_notice"' in p.read_text() for p in notices)


def test_a_diverged_replay_is_recorded_and_excluded(
    write: Write, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forced mismatch in the replayed prefix, through the executor: the run stops, is
    missing with its cause, stays out of every arm, and a re-run does not retry it."""
    import sscbench.experiments.arrival as arrival

    def forged(events: Any, at: int) -> tuple[dict[str, Any], ...]:
        prefix = list(recorded_prefix(events, at))
        prefix[1] = {**prefix[1], "content": "a user message the twin never saw"}
        return tuple(prefix)

    monkeypatch.setattr(arrival, "recorded_prefix", forged)
    text = f"""
repetitions = 2
arrival_arms = ["none", "before_use"]
[cases]
ids = ["{CASES[0]}"]
[[configurations]]
id = "receptive"
agent = "scripted:receptive"
"""
    out = tmp_path / "out"
    exp = write(text)
    result = run_experiment(load_experiment(exp), out)
    (record,) = [r for r in result.records if "+arrival." in r.key["case"]]
    assert (record.state, record.cause) == ("missing", "replay_divergence")
    hidden = (out / record.run_id / "hidden.jsonl").read_text()
    assert '"status":"diverged"' in hidden and '"step":1' in hidden
    analysis = analyse_arrival(label_dir(out), out)
    assert analysis is not None and analysis.excluded_diverged == 1
    (row,) = [r for r in analysis.per_arm if (r.arm, r.configuration) == ("before_use", "all")]
    assert (row.assigned, row.analysed) == (1, 0)
    again = run_experiment(load_experiment(exp), out)
    assert again.executed == 0


def test_paired_check_variants_are_not_units(write: Write) -> None:
    text = f"""
repetitions = 2
arrival_arms = ["none", "at_fault"]
[checks]
paired = ["aligned"]
[cases]
ids = ["{CASES[0]}"]
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
"""
    runs = plan_runs(load_experiment(write(text)))
    tagged = [r.key.case for r in runs if "+arrival." in r.key.case]
    assert tagged == [f"{CASES[0]}+arrival.at_fault"]  # one of two repetitions, main only
