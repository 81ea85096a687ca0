"""ResetLeak: candidates and validity, the stale cache at the choke point, ``fresh_record`` on
hand-made histories, the use rules' phrasings, and one run through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sscbench.cases.caseset import load_case_set
from sscbench.cli.main import main
from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.experiments.arrival import eligible
from sscbench.fault_contracts import (
    ContractIntervention,
    FaultContract,
    History,
    refutation_arrival,
    write_contract,
)
from sscbench.fault_contracts.contract import StaleRead
from sscbench.fault_contracts.hidden_log import read_fault_deliveries
from sscbench.operators import ProposalContext, Rejection, get_operator
from sscbench.operators.validity import check_validity
from sscbench.reconstruct.label import label_run
from sscbench.reconstruct.rules.base import RunView
from sscbench.reconstruct.rules.reset_leak import ResetLeakRules
from sscbench.reconstruct.validate import ground_truth
from sscbench.records.events import AgentToolCall, ToolObservation
from sscbench.witnesses.verify import verify_witness

ORDER = "#W8665881"
ADDRESS = "reset_leak/retail/17/5/16"  # task 17 moves #W8665881; task 16's gold cancelled it
CANCEL = "reset_leak/retail/16/6/15"  # task 16 cancels #W5199551; task 15 modified its items
EXCHANGE = "reset_leak/retail/0/4/2"  # task 0 exchanges #W2378156; task 2 returned items of it


@pytest.fixture(scope="module")
def proposals() -> list[FaultContract | Rejection]:
    return list(get_operator("reset_leak").propose(ProposalContext(domain="retail")))


def _contract(proposals: list[Any], cid: str) -> FaultContract:
    return next(o for o in proposals if isinstance(o, FaultContract) and o.contract_id == cid)


def _stale(contract: FaultContract) -> StaleRead:
    (spec,) = contract.interventions
    assert isinstance(spec, StaleRead)
    return spec


def test_candidates_pair_tasks_that_write_the_same_order(proposals: list[Any]) -> None:
    ids = [o.contract_id if isinstance(o, FaultContract) else o.candidate_id for o in proposals]
    assert len(ids) == len(set(ids)) == 172
    assert proposals == list(get_operator("reset_leak").propose(ProposalContext("retail")))
    contracts = [o for o in proposals if isinstance(o, FaultContract)]
    assert len(contracts) == 51
    handled = {"cancelled", "return requested", "exchange requested", "pending (item modified)"}
    for c in contracts:
        assert c.target.paths == ("status",) and c.refutation.relation == "fresh_record"
        assert c.authoritative_value in {"pending", "delivered"}
        assert c.injected_value in handled
        assert check_validity(c) is None, c.contract_id
    c = _contract(proposals, ADDRESS)
    assert (c.authoritative_value, c.injected_value) == ("pending", "cancelled")
    assert c.target.logical_request is not None
    assert c.target.logical_request["previous_task"] == "16"
    checks = {o.candidate_id: o.check for o in proposals if isinstance(o, Rejection)}
    # task 17's own address change leaves the status as it was: nothing the write depends on
    assert checks["reset_leak/retail/16/7/17"] == "distinct_value"
    # both variants exchange the same order: "exchange requested" is true after the write
    assert checks["reset_leak/retail/0/4/1"] == "same_effect"
    # τ² refuses task 12's gold return: no write to depend on the status
    assert checks["reset_leak/retail/12/4/11"] == "write_succeeds"


def test_the_leaked_record_is_the_other_tasks_gold_end_state(proposals: list[Any]) -> None:
    """Computed by running task 16's gold actions through τ²'s tools on a fresh database."""
    task = load_domain("retail").task("16")
    env = EpisodeEnvironment.open("retail", task)
    for i, a in enumerate(task.evaluation_criteria.actions):
        env.execute(ToolCall(id=f"g{i}", name=a.name, arguments=a.arguments), i)
    read = env.execute(ToolCall(id="r", name="get_order_details", arguments={"order_id": ORDER}), 9)
    cached = _stale(_contract(proposals, ADDRESS)).content
    assert cached == read.content
    assert json.loads(cached)["status"] == "cancelled"


def test_validity_refuses_a_cache_that_shows_the_truth(proposals: list[Any]) -> None:
    c = _contract(proposals, ADDRESS)
    fresh = EpisodeEnvironment.open("retail").execute(
        ToolCall(id="r", name="get_order_details", arguments={"order_id": ORDER}), 0
    )
    spec = _stale(c).model_copy(update={"content": fresh.content})
    failed = check_validity(c.model_copy(update={"interventions": (spec,)}))
    assert failed is not None and failed[0] == "stale_read"


def _read(env: EpisodeEnvironment, order: str, step: int) -> Any:
    call = ToolCall(id=f"r{step}", name="get_order_details", arguments={"order_id": order})
    return env.execute(call, step)


def test_the_cache_serves_reads_until_a_write_invalidates_it(proposals: list[Any]) -> None:
    c = _contract(proposals, ADDRESS)
    task = load_domain("retail").task("17")
    intervention = ContractIntervention(c)
    env = EpisodeEnvironment.open("retail", task, intervention)
    cached = _stale(c).content
    assert _read(env, ORDER, 1).content == cached
    assert _read(env, ORDER, 2).content == cached  # a second read meets the same cache
    assert _read(env, "#W5199551", 3).content != cached  # other records are fresh
    refused = env.execute(
        ToolCall(id="x", name="cancel_pending_order", arguments={"order_id": ORDER, "reason": "?"}),
        4,
    )
    assert refused.error  # a failed write changed nothing: the entry stays
    assert _read(env, ORDER, 5).content == cached
    gold = task.evaluation_criteria.actions[5]
    reply = env.execute(ToolCall(id="w", name=gold.name, arguments=gold.arguments), 6)
    assert not reply.error and json.loads(reply.content)["status"] == "pending"
    after = _read(env, ORDER, 7)
    assert after.content == reply.content  # invalidated: the fresh record
    assert [(d.step, d.effective, d.action) for d in intervention.deliveries] == [
        (1, True, "rewrite"),
        (2, True, "rewrite"),
        (5, True, "rewrite"),
    ]
    logged = [r for r in env.intervention_log if r.detail.get("stale_cache")]
    assert [r.step for r in logged] == [1, 2, 5]


class Run:
    """A history under construction: each tool call is followed by its observation."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def tool(self, name: str, arguments: dict[str, Any], data: Any, error: bool = False) -> int:
        step = len(self.events)
        cid = f"c{step}"
        self.events.append(
            AgentToolCall(step=step, turn=step, call_id=cid, name=name, arguments=arguments)
        )
        content = data if isinstance(data, str) else json.dumps(data)
        self.events.append(
            ToolObservation(step=step + 1, turn=step + 1, call_id=cid, content=content, error=error)
        )
        return step + 1

    def order(self, order: str, status: str, tool: str = "get_order_details") -> int:
        record = {"order_id": order, "items": [], "status": status}
        return self.tool(tool, {"order_id": order}, record)

    def arrival(self, contract: FaultContract) -> tuple[str, int | None]:
        a = refutation_arrival(contract, History(self.events))
        return a.status, a.step


def test_fresh_record_counts_only_observations_that_show_the_truth(proposals: list[Any]) -> None:
    address = _contract(proposals, ADDRESS)  # v pending, v′ cancelled
    run = Run()
    assert run.arrival(address) == ("never", None)  # nothing asserted v′ yet
    run.order(ORDER, "cancelled")
    assert run.arrival(address) == ("never", None)
    run.order(ORDER, "cancelled")  # the cache again: no refutation
    run.tool("modify_pending_order_address", {"order_id": ORDER}, "Error: x", error=True)
    assert run.arrival(address) == ("never", None)  # a refusal states no status
    reply = run.order(ORDER, "pending", tool="modify_pending_order_address")
    assert run.arrival(address) == ("found", reply)

    # A write that moves the status elsewhere, with no guard that establishes v: the window
    # ends (the address tool accepts any pending status).
    moved = Run()
    moved.order(ORDER, "cancelled")
    moved.order(ORDER, "processed", tool="modify_pending_order_address")
    moved.order(ORDER, "pending")
    assert moved.arrival(address)[0] == "never"

    cancel = _contract(proposals, CANCEL)  # v pending, v′ pending (item modified)
    order = cancel.target.entity_id
    run = Run()
    run.order(order, "pending (item modified)")
    reply = run.order(order, "cancelled", tool="cancel_pending_order")
    # the reply shows "cancelled", but cancel_pending_order refuses anything not pending
    assert run.arrival(cancel) == ("found", reply)
    assert run.arrival(cancel.model_copy(update={"refutation": _no_guard(cancel)}))[0] == "never"

    exchange = _contract(proposals, EXCHANGE)  # v delivered, v′ return requested
    order = exchange.target.entity_id
    run = Run()
    run.order(order, "return requested")
    reply = run.order(order, "exchange requested", tool="exchange_delivered_order_items")
    assert run.arrival(exchange) == ("found", reply)


def _no_guard(contract: FaultContract) -> Any:
    params = {**contract.refutation.params, "requires": {}}
    return contract.refutation.model_copy(update={"params": params})


def _uses(contract: FaultContract, text: str) -> list[Any]:
    run = Run()
    run.tool("get_order_details", {"order_id": contract.target.entity_id}, _stale(contract).content)
    view = RunView(history=History(run.events), t_f=1, contract=contract)
    return ResetLeakRules().message(view, text, 2)


def _relies(contract: FaultContract, text: str) -> bool:
    return any(u.kind == "dependent_use" and u.erroneous for u in _uses(contract, text))


@pytest.mark.parametrize(
    "text",
    [
        f"Order {ORDER} is already cancelled, so I can't change its address.",
        f"It looks like order {ORDER} was canceled.",
        f"I'm sorry, but {ORDER} has already been cancelled.",
        f"Order {ORDER} shows as cancelled.",
        f"status of order {ORDER} is cancelled",
        f"Since {ORDER} is cancelled, modifying the shipping address isn't possible.",
    ],
)
def test_stating_the_leaked_status_is_a_use(proposals: list[Any], text: str) -> None:
    assert _relies(_contract(proposals, ADDRESS), text)


@pytest.mark.parametrize(
    "text",
    [
        f"Was order {ORDER} cancelled?",
        f"The record shows {ORDER} as cancelled, but I won't rely on that; the store will check "
        "it when I submit the change.",
        f"Order {ORDER} is not cancelled.",
        f"I will cancel order {ORDER} for you now.",
        f"Note: status of order {ORDER} is cancelled cannot be right (the store checks the "
        "order's status when I submit the request); I do not rely on it.",
        f"The cached record for {ORDER} says cancelled, but that may be stale, so I'll try the "
        "update anyway.",
    ],
)
def test_a_questioned_or_refused_status_is_not_a_use(proposals: list[Any], text: str) -> None:
    assert not _relies(_contract(proposals, ADDRESS), text)


@pytest.mark.parametrize(
    ("cid", "text"),
    [
        (EXCHANGE, "A return has already been requested for order #W2378156."),
        (EXCHANGE, "There is a pending return request on #W2378156, so I can't exchange it."),
        (EXCHANGE, "#W2378156 already has a return in progress, so an exchange isn't possible."),
        (CANCEL, "The items of #W5199551 were already modified, so it can't be cancelled."),
    ],
)
def test_paraphrases_of_other_statuses(proposals: list[Any], cid: str, text: str) -> None:
    assert _relies(_contract(proposals, cid), text)


@pytest.mark.parametrize(("agent", "adopted"), [("scripted:hasty", True), ("careful", False)])
def test_a_run_is_reconstructed_as_its_truth(
    proposals: list[Any], tmp_path: Path, agent: str, adopted: bool
) -> None:
    """hasty believes the status and never writes (the end state fails); careful says it will
    not rely on it, writes, and the write's reply refutes the cache."""
    path = tmp_path / "case.yaml"
    write_contract(_contract(proposals, ADDRESS), path)
    out = tmp_path / "runs"
    name = agent if ":" in agent else f"scripted:{agent}"
    assert main(["run", "--contract", str(path), "--agent", name, "--out", str(out)]) == 0
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    deliveries = read_fault_deliveries(run_dir / "hidden.jsonl")
    assert deliveries and all(d.effective for d in deliveries)
    labels, truth = label_run(run_dir), ground_truth(run_dir)
    assert truth is not None and truth.triggered and labels.triggered
    assert (labels.t_f.step, labels.t_s.step, labels.t_u.step) == (truth.t_f, truth.t_s, truth.t_u)
    assert labels.adopted == truth.adopted == adopted
    assert labels.t_e.status == ("never" if adopted else "found")
    assert labels.success is (not adopted)


def test_every_shipped_case_verifies() -> None:
    cases = load_case_set().by_operator("reset_leak")
    assert len(cases) == 30
    for case in cases:
        assert verify_witness(case.contract, case.witness) == [], case.entry.case_id
        (write,) = case.witness.continuation  # the gold write; a read meets the cache
        assert case.contract.target.logical_request is not None
        assert write.name == case.contract.target.logical_request["tool"]
        # the harness cannot deliver a write as a refutation (arrival interventions)
        assert not eligible(case)
