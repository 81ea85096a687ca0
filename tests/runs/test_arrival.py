"""Delivered refutations (runs/arrival.py): both interfaces, how they are recorded and
reconstructed, and the step-by-step check of a replayed prefix."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from sscbench.agents import make_agent
from sscbench.cases.caseset import Case, load_case_set
from sscbench.experiments.arrival import ArrivalDesign, delivery_calls, replay_plan
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.llm.transcript import agent_transcript, user_transcript
from sscbench.reconstruct.label import label_run
from sscbench.records.events import AgentToolCall, SystemNotice, ToolObservation
from sscbench.records.ledger import read_ledger
from sscbench.runs.arrival import Arm, ArrivalPlan
from sscbench.runs.episode import HIDDEN_FILE, LEDGER_FILE, EpisodeSpec, run_episode
from sscbench.users import make_user

CASE = "write_effect/airline/11/0"  # T_F = 7 (the suppressed write's success payload)


@cache
def _case(case_id: str = CASE) -> Case:
    return next(c for c in load_case_set(None).cases if c.entry.case_id == case_id)


def _run(out: Path, agent: str, plan: ArrivalPlan | None, case: Case | None = None) -> Path:
    c = (case or _case()).contract
    spec = EpisodeSpec(
        domain=c.domain,
        task_id=c.task_id,
        seed=0,
        max_steps=60,
        case_id=c.contract_id,
        fault=c.model_dump(mode="json"),
    )
    run_episode(
        spec,
        make_agent(agent),
        make_user("scripted"),
        out,
        run_id=out.name,
        intervention=ContractIntervention(c),
        arrival=plan,
    )
    return out


def _at_fault(interface: str = "tool_call") -> ArrivalPlan:
    return ArrivalPlan.model_validate(
        {
            "arm": "at_fault",
            "interface": interface,
            "calls": delivery_calls(_case()),
            "trigger": "after_fault",
        }
    )


def _hidden(run_dir: Path) -> dict[str, Any]:
    lines = (run_dir / HIDDEN_FILE).read_text().splitlines()
    return next(o for o in map(json.loads, lines) if o["kind"] == "arrival_delivery")


def _lines_without_ts(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text().splitlines():
        obj = json.loads(line)
        obj.pop("ts", None)
        out.append(obj)
    return out


def test_tool_call_delivery_is_the_harness_s_and_an_arrival(tmp_path: Path) -> None:
    run = _run(tmp_path / "r", "scripted:receptive", _at_fault())
    ledger = read_ledger(run / LEDGER_FILE)
    call, obs = ledger.events[8], ledger.events[9]
    assert isinstance(call, AgentToolCall) and call.origin == "harness"
    assert call.name == "get_reservation_details" and call.call_id == "harness_0"
    assert isinstance(obs, ToolObservation) and obs.origin == "harness"
    # Agent events carry no origin at all: their bytes are those of schema 4.
    raw = (run / LEDGER_FILE).read_text().splitlines()
    assert sum('"origin":"harness"' in line for line in raw) == 2
    assert ledger.header.arrival is not None and ledger.header.arrival["arm"] == "at_fault"
    hidden = _hidden(run)
    assert hidden["status"] == "delivered" and hidden["steps"] == [8, 9]
    witness = _case().witness.continuation[0].observation_sha256
    assert hidden["observation_sha256"] == [witness]  # the witness's own observation
    labels = label_run(run)
    assert (labels.t_f.step, labels.t_e.step) == (7, 9)  # the delivery is the arrival
    assert labels.adopted is False and labels.z_s == "before"
    assert all(use["step"] != 8 for use in labels.uses)  # the harness's call is no use


def test_notice_delivery_is_an_observation_for_relations(tmp_path: Path) -> None:
    run = _run(tmp_path / "r", "scripted:receptive", _at_fault("notice"))
    ledger = read_ledger(run / LEDGER_FILE)
    notice = ledger.events[8]
    assert isinstance(notice, SystemNotice)
    assert notice.content.startswith("[System notice]") and notice.observation in notice.content
    delivered = History(ledger.events).delivered
    assert [d.step for d in delivered if d.call.origin == "harness"] == [8]
    labels = label_run(run)
    assert (labels.t_e.step, labels.adopted) == (8, False)
    # A model sees the notice as a user-role message; the user simulator never sees it.
    assert any(
        m.role == "user" and m.text == notice.content for m in agent_transcript(ledger.events)
    )
    assert all(notice.content != m.text for m in user_transcript(ledger.events))


@pytest.mark.parametrize("interface", ["tool_call", "notice"])
def test_reference_agents_respond_as_known(tmp_path: Path, interface: str) -> None:
    """receptive adopts unless a refutation is delivered before it acts; hasty ignores it."""
    adopted = {
        (agent, arm): label_run(
            _run(tmp_path / f"{agent[9:]}-{arm}", agent, _at_fault(interface) if arm else None)
        ).adopted
        for agent in ("scripted:receptive", "scripted:hasty")
        for arm in (None, "at_fault")
    }
    assert adopted == {
        ("scripted:receptive", None): True,
        ("scripted:receptive", "at_fault"): False,
        ("scripted:hasty", None): True,
        ("scripted:hasty", "at_fault"): True,
    }


def test_delivery_is_deterministic(tmp_path: Path) -> None:
    a = _run(tmp_path / "a", "scripted:receptive", _at_fault())
    b = _run(tmp_path / "b", "scripted:receptive", _at_fault())
    for name in (LEDGER_FILE, HIDDEN_FILE):
        left, right = _lines_without_ts(a / name), _lines_without_ts(b / name)
        left[0].pop("run_id", None) if name == LEDGER_FILE else None
        right[0].pop("run_id", None) if name == LEDGER_FILE else None
        assert left == right


def test_at_step_delivery_waits_for_a_turn_boundary(tmp_path: Path) -> None:
    plan = ArrivalPlan(
        arm="at_k", calls=delivery_calls(_case()), trigger="at_step", at_step=7
    )  # step 7 is the write's observation: the next boundary is after it
    run = _run(tmp_path / "r", "scripted:receptive", plan)
    assert _hidden(run)["steps"] == [8, 9]


@pytest.mark.parametrize("arm", ["before_use", "after_use"])
def test_replayed_prefix_matches_and_delivers_at_the_point(tmp_path: Path, arm: Arm) -> None:
    twin = _run(tmp_path / "twin", "scripted:receptive", None)
    t_s = label_run(twin).t_s.step
    assert t_s is not None
    plan = replay_plan(arm, _design(), delivery_calls(_case()), twin)
    assert isinstance(plan, ArrivalPlan) and plan.at_step is not None
    assert plan.at_step <= t_s if arm == "before_use" else plan.at_step > t_s
    run = _run(tmp_path / "run", "scripted:receptive", plan)
    hidden = _hidden(run)
    assert hidden["status"] == "delivered" and hidden["replayed"] == plan.at_step
    assert hidden["steps"][0] == plan.at_step and hidden["source_run_id"] == "twin"
    events = _lines_without_ts(run / LEDGER_FILE)[1 : plan.at_step + 1]
    assert events == _lines_without_ts(twin / LEDGER_FILE)[1 : plan.at_step + 1]
    labels = label_run(run)
    assert labels.adopted is (arm == "after_use")  # after its use, receptive has adopted


def test_forced_mismatch_is_caught_and_the_run_stops(tmp_path: Path) -> None:
    twin = _run(tmp_path / "twin", "scripted:receptive", None)
    plan = replay_plan("before_use", _design(), delivery_calls(_case()), twin)
    assert isinstance(plan, ArrivalPlan)
    prefix = [dict(e) for e in plan.prefix]
    prefix[3] = {**prefix[3], "content": prefix[3]["content"] + " (edited)"}
    forged = plan.model_copy(update={"prefix": tuple(prefix)})
    run = _run(tmp_path / "run", "scripted:receptive", forged)
    ledger = read_ledger(run / LEDGER_FILE)
    assert ledger.end is not None and ledger.end.termination == "replay_divergence"
    assert ledger.end.success is None  # not graded: the run is excluded
    assert len(ledger.events) == 3  # stopped before writing the diverging event
    hidden = _hidden(run)
    assert hidden["status"] == "diverged" and hidden["replayed"] == 3
    divergence = hidden["divergence"]
    assert isinstance(divergence, dict) and divergence["step"] == 3
    assert "(edited)" in divergence["expected"] and "(edited)" not in divergence["got"]


def _design() -> ArrivalDesign:
    return ArrivalDesign(arms=("before_use", "after_use"))


def test_a_call_marked_as_the_harness_s_is_never_a_use(tmp_path: Path) -> None:
    """The same call is a use when the agent made it and none when the harness did."""
    case = _case("write_effect/airline/32/3")  # hasty uses the claim in a later call
    run = _run(tmp_path / "r", "scripted:hasty", None, case)
    ledger = read_ledger(run / LEDGER_FILE)
    calls = {e.step for e in ledger.events if isinstance(e, AgentToolCall)}
    step = next(int(str(u["step"])) for u in label_run(run).uses if u["step"] in calls)
    lines = (run / LEDGER_FILE).read_text().splitlines()
    marked = json.loads(lines[step + 1])
    marked["origin"] = "harness"
    lines[step + 1] = json.dumps(marked, separators=(",", ":"))
    (run / LEDGER_FILE).write_text("\n".join(lines) + "\n")
    assert all(u["step"] != step for u in label_run(run).uses)


def test_a_replay_plan_does_not_depend_on_when_the_twin_ran(tmp_path: Path) -> None:
    """Same twin content, run twice: the same plan, so the manipulated ledgers agree."""
    plans = [
        replay_plan(
            "before_use",
            _design(),
            delivery_calls(_case()),
            _run(tmp_path / str(i) / "twin", "scripted:receptive", None),
        )
        for i in range(2)
    ]
    assert plans[0] == plans[1]
