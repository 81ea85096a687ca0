"""The defect-class relations on hand-made histories: scope windows, repeats, failed writes."""

from __future__ import annotations

import json
from typing import Any

from sscbench.envs.tool_edit import SourceEdit
from sscbench.fault_contracts import FaultContract, History, refutation_arrival
from sscbench.fault_contracts.contract import Refutation, Target, ToolEdit
from sscbench.records.events import AgentToolCall, ToolObservation

RID = "HXDUBJ"
BAGS = {"reservation_id": RID, "total_baggages": 2, "nonfree_baggages": 2, "payment_id": "p"}


def _contract(relation: str, params: dict[str, Any]) -> FaultContract:
    return FaultContract(
        contract_id="x",
        operator="ignored_argument",
        operator_version="1",
        domain="airline",
        task_id="33",
        cluster=RID,
        target=Target(
            entity_type="reservation", entity_id=RID, paths=("nonfree_baggages",), scope="s"
        ),
        authoritative_value={"nonfree_baggages": 0},
        injected_value={"nonfree_baggages": 2},
        persistence="all_attempts",
        interventions=(
            ToolEdit(
                tool="update_reservation_baggages",
                match=BAGS,
                edits=(SourceEdit(op="delete", line="x"),),
                affected_fields=("nonfree_baggages",),
            ),
        ),
        refutation=Refutation(relation=relation, acquisition="post_write_read_back", params=params),
    )


READ_BACK = _contract(
    "effect_read_back",
    {
        "entity_key": "reservation_id",
        "entity_id": RID,
        "read_tool": "get_reservation_details",
        "tool": "update_reservation_baggages",
        "match": BAGS,
        "affected_fields": ["nonfree_baggages"],
        "writes": ["update_reservation_baggages", "cancel_reservation"],
    },
)


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

    def reservation(self, nonfree: int) -> dict[str, Any]:
        return {"reservation_id": RID, "flights": [], "nonfree_baggages": nonfree}

    def read(self, nonfree: int) -> int:
        return self.tool(
            "get_reservation_details", {"reservation_id": RID}, self.reservation(nonfree)
        )

    def write(
        self, nonfree: int, name: str = "update_reservation_baggages", error: bool = False
    ) -> int:
        data = "Error: no" if error else self.reservation(nonfree)
        return self.tool(name, dict(BAGS), data, error)

    def arrival(self, contract: FaultContract = READ_BACK) -> Any:
        return refutation_arrival(contract, History(self.events))


def test_a_read_after_the_claimed_success_refutes_it() -> None:
    run = Run()
    run.read(0)  # before the write: refutes nothing
    fault = run.write(2)
    read = run.read(0)
    arrival = run.arrival()
    assert (arrival.status, arrival.step, arrival.evidence) == ("found", read, (fault, read))


def test_a_repeat_or_a_failed_write_keeps_the_window_and_another_write_ends_it() -> None:
    run = Run()
    run.write(2)
    run.write(2)  # the same request again: still about it
    run.write(2, error=True)  # a failed write changed nothing
    read = run.read(0)
    assert run.arrival().step == read
    other = Run()
    other.write(2)
    other.tool("cancel_reservation", {"reservation_id": RID}, other.reservation(0))
    other.read(0)
    assert other.arrival().status == "never"


def test_no_success_no_refutation_and_an_agreeing_read_refutes_nothing() -> None:
    run = Run()
    run.write(2, error=True)
    run.read(0)
    assert run.arrival().status == "never"
    agreeing = Run()
    agreeing.write(2)
    agreeing.read(2)
    assert agreeing.arrival().status == "never"


def _guard(window: str) -> FaultContract:
    piece = {
        "entity_key": "reservation_id",
        "entity_id": RID,
        "path": "nonfree_baggages",
        "op": "lt",
        "value": 1,
        "window": window,
    }
    return _contract(
        "precondition_records",
        {"tool": "update_reservation_baggages", "match": BAGS, "pieces": [piece]},
    )


def test_guard_facts_count_only_for_the_state_the_request_met() -> None:
    run = Run()
    before = run.read(0)
    run.write(2)
    assert run.arrival(_guard("before_request")).step == before  # T_E precedes the fault
    late = Run()
    late.write(2)
    after = late.read(0)
    assert late.arrival(_guard("before_request")).status == "never"
    assert late.arrival(_guard("same_state")).step == after
    moved = Run()
    moved.read(0)
    moved.tool("cancel_reservation", {"reservation_id": RID}, moved.reservation(1))
    moved.write(2)
    assert moved.arrival(_guard("before_request")).status == "never"  # another state
    refused = Run()
    refused.read(0)
    refused.write(2, error=True)
    assert refused.arrival(_guard("before_request")).status == "never"  # never accepted
