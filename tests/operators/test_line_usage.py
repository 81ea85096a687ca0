"""LineUsage (telecom): screening, the fault at the choke point, and the usage relation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sscbench.agents.registry import make_agent
from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.fault_contracts.refutation import get_relation
from sscbench.operators import get_operator, operator_names
from sscbench.operators.screen import screen
from sscbench.records.events import AgentToolCall, ToolObservation
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user


def _contracts() -> list[FaultContract]:
    return [o for o in screen(get_operator("line_usage")) if isinstance(o, FaultContract)]


def test_registered_through_its_entry_point_and_screened() -> None:
    assert "line_usage" in operator_names()
    outcomes = list(screen(get_operator("line_usage")))
    contracts = [o for o in outcomes if isinstance(o, FaultContract)]
    assert len(outcomes) == 114 and len(contracts) == 36
    assert (
        len({o.candidate_id if hasattr(o, "candidate_id") else o.contract_id for o in outcomes})
        == 114
    )
    domain = load_domain("telecom")
    for c in contracts:
        assert c.injected_value != c.authoritative_value
        assert c.refutation.relation == "usage_record" and len(c.semantics) == 2
        env = EpisodeEnvironment.open("telecom", domain.task(c.task_id))
        line = next(ln for ln in env.state.db.lines if ln.line_id == c.target.entity_id)
        plan = next(p for p in env.state.db.plans if p.plan_id == line.plan_id)
        limit = plan.data_limit_gb + line.data_refueling_gb
        # the false figure is on the other side of the limit
        assert (c.authoritative_value >= limit) != (c.injected_value >= limit), c.contract_id
    assert [c.model_dump() for c in contracts] == [c.model_dump() for c in _contracts()]


def _history(contract: FaultContract, usage_first: bool, usage_value: Any) -> History:
    lid = contract.target.entity_id
    line = {"line_id": lid, "data_used_gb": contract.injected_value}
    usage = {"line_id": lid, "data_used_gb": str(usage_value)}
    pairs = [
        ("get_details_by_id", {"id": lid}, line),
        ("get_data_usage", {"customer_id": "C1001", "line_id": lid}, usage),
    ]
    if usage_first:
        pairs.reverse()
    events: list[Any] = []
    for i, (name, args, data) in enumerate(pairs):
        events.append(
            AgentToolCall(ts=0, step=2 * i, turn=i, call_id=f"c{i}", name=name, arguments=args)
        )
        events.append(
            ToolObservation(
                ts=0, step=2 * i + 1, turn=i, call_id=f"c{i}", content=json.dumps(data), error=False
            )
        )
    return History(events)


def test_usage_record_relation_on_hand_made_histories() -> None:
    contract = _contracts()[0]
    relation = get_relation("usage_record")
    found = relation(contract, _history(contract, False, contract.authoritative_value))
    assert (found.status, found.step) == ("found", 3)
    earlier = relation(contract, _history(contract, True, contract.authoritative_value))
    assert (earlier.status, earlier.step) == ("found", 1)
    agreeing = relation(contract, _history(contract, False, contract.injected_value))
    assert agreeing.status == "never"
    assert relation(contract, History([])).status == "never"


def test_the_fault_fires_at_the_choke_point_and_the_usage_record_stays_true(tmp_path: Path) -> None:
    contract = next(
        c
        for c in _contracts()
        if "refuel"
        in json.dumps(
            [a.name for a in load_domain("telecom").task(c.task_id).evaluation_criteria.actions]
        )
    )
    task = load_domain("telecom").task(contract.task_id)
    env = EpisodeEnvironment.open("telecom", task, ContractIntervention(contract))
    lid = contract.target.entity_id
    line = json.loads(
        env.execute(ToolCall(id="a", name="get_details_by_id", arguments={"id": lid}), 0).content
    )
    assert line["data_used_gb"] == contract.injected_value
    usage = json.loads(
        env.execute(
            ToolCall(
                id="b", name="get_data_usage", arguments={"customer_id": "C1001", "line_id": lid}
            ),
            1,
        ).content
    )
    assert float(usage["data_used_gb"]) == contract.authoritative_value
    # a careful agent reads the line before refuelling: the fault is delivered in its run
    run = tmp_path / "r"
    run_episode(
        EpisodeSpec("telecom", task.id, fault=contract.model_dump(mode="json")),
        make_agent("scripted:careful"),
        make_user("scripted"),
        run,
        run_id="r",
        intervention=ContractIntervention(contract),
    )
    hidden = [json.loads(x) for x in (run / "hidden.jsonl").read_text().splitlines()]
    assert [h["kind"] for h in hidden].count("fault_delivery") >= 1
