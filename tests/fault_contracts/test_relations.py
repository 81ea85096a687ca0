"""Refutation relations on hand-made model-visible histories.

Histories are built from ledger events (a tool call and its observation on consecutive
steps) with observation content taken from real environments, clean or faulted, and edited
where a case needs it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.fault_contracts import (
    ContractIntervention,
    FaultContract,
    History,
    refutation_arrival,
)
from sscbench.json_paths import set_path
from sscbench.operators import ProposalContext, Rejection, get_operator
from sscbench.operators.variants import vary
from sscbench.records.events import AgentMessage, AgentToolCall, ToolObservation, UserMessage


def _contract(operator: str, contract_id: str, **params: Any) -> FaultContract:
    op = get_operator(operator, **params)
    domain = op.domains[0]
    for outcome in op.propose(ProposalContext(domain=domain)):
        if not isinstance(outcome, Rejection) and outcome.contract_id == contract_id:
            return outcome
    raise AssertionError(f"{contract_id} is not proposed")


def _observe(
    domain: str, tool: str, args: dict[str, Any], contract: FaultContract | None = None
) -> str:
    """Content of one call in a fresh (clean or faulted) environment."""
    intervention = ContractIntervention(contract) if contract is not None else None
    env = EpisodeEnvironment.open(domain, intervention=intervention)
    obs = env.execute(ToolCall(id="x", name=tool, arguments=dict(args)), 0)
    assert not obs.error, obs.content
    return obs.content


def _edit(content: str, edits: dict[str, Any]) -> str:
    data = json.loads(content)
    for path, value in edits.items():
        set_path(data, path, value)
    return json.dumps(data)


class Run:
    """A model-visible history under construction; steps are event indexes."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.turn = 0

    @property
    def step(self) -> int:
        return len(self.events)

    def user(self, text: str) -> int:
        self.turn += 1
        self.events.append(UserMessage(step=self.step, turn=self.turn, content=text))
        return self.step - 1

    def agent(self, text: str) -> int:
        self.turn += 1
        self.events.append(AgentMessage(step=self.step, turn=self.turn, content=text))
        return self.step - 1

    def tool(self, name: str, arguments: dict[str, Any], content: str, error: bool = False) -> int:
        """A call and its observation; returns the observation's step."""
        self.turn += 1
        call_id = f"call_{self.step}"
        self.events.append(
            AgentToolCall(
                step=self.step, turn=self.turn, call_id=call_id, name=name, arguments=arguments
            )
        )
        self.events.append(
            ToolObservation(
                step=self.step, turn=self.turn, call_id=call_id, content=content, error=error
            )
        )
        return self.step - 1

    def arrival(self, contract: FaultContract):
        return refutation_arrival(contract, History(self.events))


# -- ReturnDate: co-delivered outbound segment -------------------------------------------

RD = "return_date/airline/37/IFOYYZ"  # HAT157 out 2024-05-28, HAT215 back 2024-05-30


@pytest.fixture(scope="module")
def rd() -> FaultContract:
    return _contract("return_date", RD)


@pytest.fixture(scope="module")
def rd_records(rd: FaultContract) -> tuple[str, str]:
    args = {"reservation_id": "IFOYYZ"}
    clean = _observe("airline", "get_reservation_details", args)
    faulted = _observe("airline", "get_reservation_details", args, rd)
    assert faulted == _edit(clean, dict(rd.injected_value))
    return clean, faulted


def test_return_date_co_delivered(rd, rd_records) -> None:
    _, faulted = rd_records
    run = Run()
    run.user("I want to change my trip IFOYYZ")
    t_f = run.tool("get_reservation_details", {"reservation_id": "IFOYYZ"}, faulted)
    arrival = run.arrival(rd)
    assert arrival.status == "found"
    assert arrival.step == t_f
    assert arrival.evidence == (t_f,)


def test_return_date_earlier_unfaulted_record_arrives_first(rd, rd_records) -> None:
    _, faulted = rd_records
    # a no-op baggage update answers with the (unfaulted) reservation record
    args = {
        "reservation_id": "IFOYYZ",
        "total_baggages": 0,
        "nonfree_baggages": 0,
        "payment_id": "credit_card_4959530",
    }
    payload = _observe("airline", "update_reservation_baggages", args)
    assert json.loads(payload)["flights"][0] == json.loads(faulted)["flights"][0]
    run = Run()
    run.user("hi")
    early = run.tool("update_reservation_baggages", args, payload)
    run.agent("done; anything else?")
    t_f = run.tool("get_reservation_details", {"reservation_id": "IFOYYZ"}, faulted)
    arrival = run.arrival(rd)
    assert arrival.status == "found"
    assert arrival.step == early < t_f


def test_return_date_no_record_is_never(rd, rd_records) -> None:
    clean, _ = rd_records
    run = Run()
    run.user(f"my reservation is {clean}")  # user text never refutes
    user = _observe("airline", "get_user_details", {"user_id": "aarav_ahmed_6699"})
    run.tool("get_user_details", {"user_id": "aarav_ahmed_6699"}, user)
    run.tool("get_reservation_details", {"reservation_id": "IFOYYZ"}, "Error: boom", error=True)
    other = _observe("airline", "get_reservation_details", {"reservation_id": "4OG6T3"})
    run.tool("get_reservation_details", {"reservation_id": "4OG6T3"}, other)
    assert run.arrival(rd).status == "never"
    assert Run().arrival(rd).status == "never"


def test_return_date_record_after_flights_changed_does_not_count(rd, rd_records) -> None:
    clean, _ = rd_records
    changed = _edit(clean, {"flights.0.flight_number": "HAT999", "flights.0.date": "2024-05-27"})
    run = Run()
    run.user("move my outbound flight")
    run.tool(
        "update_reservation_flights",
        {"reservation_id": "IFOYYZ", "cabin": "basic_economy", "flights": []},
        changed,
    )
    run.tool("get_reservation_details", {"reservation_id": "IFOYYZ"}, changed)
    assert run.arrival(rd).status == "never"
    # only the date moved: still not the outbound segment the contract is about
    moved = _edit(clean, {"flights.0.date": "2024-05-29"})
    run2 = Run()
    run2.tool("get_reservation_details", {"reservation_id": "IFOYYZ"}, moved)
    assert run2.arrival(rd).status == "never"


# -- PaySource: identifier co-delivered under quoted semantics ---------------------------

PS = "pay_source/airline/21/sofia_kim_7287/gift_card_7091239"  # paid OBUT9V, not OI5L9G


@pytest.fixture(scope="module")
def ps() -> FaultContract:
    return _contract("pay_source", PS)


@pytest.fixture(scope="module")
def ps_user(ps: FaultContract) -> str:
    return _observe("airline", "get_user_details", {"user_id": "sofia_kim_7287"}, ps)


def test_pay_source_identifier_in_the_user_record(ps, ps_user) -> None:
    run = Run()
    run.user("I'm sofia_kim_7287")
    t_f = run.tool("get_user_details", {"user_id": "sofia_kim_7287"}, ps_user)
    arrival = run.arrival(ps)
    assert (arrival.status, arrival.step, arrival.evidence) == ("found", t_f, (t_f,))


def test_pay_source_identifier_before_the_user_record(ps, ps_user) -> None:
    res = _observe("airline", "get_reservation_details", {"reservation_id": "OBUT9V"})
    assert "gift_card_7091239" in res
    run = Run()
    run.user("about reservation OBUT9V")
    early = run.tool("get_reservation_details", {"reservation_id": "OBUT9V"}, res)
    t_f = run.tool("get_user_details", {"user_id": "sofia_kim_7287"}, ps_user)
    arrival = run.arrival(ps)
    assert arrival.status == "found"
    assert arrival.step == early < t_f


def test_pay_source_never_when_the_identifier_is_absent(ps) -> None:
    res = _observe("airline", "get_reservation_details", {"reservation_id": "OI5L9G"})
    assert "gift_card_7091239" not in res
    run = Run()
    run.user("pay with gift_card_7091239")  # a message is not an observation
    run.tool("get_reservation_details", {"reservation_id": "OI5L9G"}, res)
    run.tool("get_user_details", {"user_id": "gift_card_7091239"}, "Error: x", error=True)
    assert run.arrival(ps).status == "never"


def test_pay_source_undecidable_without_semantics(ps, ps_user) -> None:
    bare = ps.model_copy(update={"semantics": ()})
    run = Run()
    run.tool("get_user_details", {"user_id": "sofia_kim_7287"}, ps_user)
    arrival = run.arrival(bare)
    assert arrival.status == "undecidable" and arrival.step is None
    assert arrival.reason


# -- ItemOption: product variant plus binding --------------------------------------------


@pytest.fixture(scope="module")
def io() -> FaultContract:
    return _contract("item_option", "item_option/retail/0/#W2378156/2")


@pytest.fixture(scope="module")
def io_records(io: FaultContract) -> dict[str, str]:
    p = io.refutation.params
    order_args = {"order_id": p["order_id"]}
    product_args = {"product_id": p["product_id"]}
    aligned = vary(io, "aligned")
    return {
        "order": _observe("retail", "get_order_details", order_args, io),
        "product": _observe("retail", "get_product_details", product_args),
        "aligned_product": _observe("retail", "get_product_details", product_args, aligned),
        "aligned_order": _observe("retail", "get_order_details", order_args, aligned),
    }


def _io_run(io: FaultContract, records: dict[str, str], *which: str) -> tuple[Run, list[int]]:
    p = io.refutation.params
    run = Run()
    run.user("I want to exchange an item")
    steps = []
    for name in which:
        if "order" in name:
            steps.append(run.tool("get_order_details", {"order_id": p["order_id"]}, records[name]))
        else:
            args = {"product_id": p["product_id"]}
            steps.append(run.tool("get_product_details", args, records[name]))
    return run, steps


def test_item_option_product_before_binding_completes_at_the_order(io, io_records) -> None:
    run, (product, order) = _io_run(io, io_records, "product", "order")
    arrival = run.arrival(io)
    assert arrival.status == "found"
    assert arrival.step == order
    assert arrival.evidence == (product, order)


def test_item_option_product_after_order_completes_at_the_product(io, io_records) -> None:
    run, (order, product) = _io_run(io, io_records, "order", "product")
    arrival = run.arrival(io)
    assert (arrival.status, arrival.step) == ("found", product)
    assert arrival.evidence == (product, order)


def test_item_option_needs_both_pieces(io, io_records) -> None:
    assert _io_run(io, io_records, "order")[0].arrival(io).status == "never"
    assert _io_run(io, io_records, "product")[0].arrival(io).status == "never"


def test_item_option_aligned_product_never_refutes(io, io_records) -> None:
    p = io.refutation.params
    shown = json.loads(io_records["aligned_product"])["variants"][p["item_id"]]["options"]
    assert shown[p["option"]] == io.injected_value
    aligned = vary(io, "aligned")
    for order in ("product", "order"), ("order", "product"):
        names = ["aligned_product" if n == "product" else "aligned_order" for n in order]
        run, _ = _io_run(io, io_records, *names)
        assert run.arrival(aligned).status == "never"


# -- WriteEffect: attributable post-write read-back --------------------------------------

WE = "write_effect/airline/12/4"  # update_reservation_baggages YAX4DR 0/0 -> 2/0
RID = "YAX4DR"


@pytest.fixture(autouse=True)
def _private_base(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real writes follow suppressed ones here; give the shared base DB private copies so a
    copy-on-write regression cannot leak into other tests."""
    db = load_domain("airline").base_db
    res = db.reservations[RID]
    monkeypatch.setitem(db.reservations, RID, res.model_copy(deep=True))
    monkeypatch.setitem(db.users, res.user_id, db.users[res.user_id].model_copy(deep=True))


def _we(persistence: str = "first_attempt") -> FaultContract:
    return _contract("write_effect", WE, persistence=persistence)


def _we_run(contract: FaultContract, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Run, list]:
    """Execute ``calls`` in one faulted episode and record what the model saw."""
    env = EpisodeEnvironment.open("airline", intervention=ContractIntervention(contract))
    run = Run()
    run.user("add two checked bags to YAX4DR")
    steps = []
    for i, (name, args) in enumerate(calls):
        obs = env.execute(ToolCall(id=f"c{i}", name=name, arguments=args), run.step + 1)
        steps.append(run.tool(name, args, obs.content, obs.error))
    return run, steps


def _request(contract: FaultContract) -> tuple[str, dict[str, Any]]:
    return contract.interventions[0].tool, dict(contract.target.logical_request["match"])


READ = ("get_reservation_details", {"reservation_id": RID})


def test_write_effect_read_before_the_write_refutes_nothing() -> None:
    c = _we()
    run, _ = _we_run(c, [READ, _request(c)])
    arrival = run.arrival(c)
    assert arrival.status == "never"


def test_write_effect_read_after_the_write_refutes() -> None:
    c = _we()
    run, (before, write, after) = _we_run(c, [READ, _request(c), READ])
    assert before < write < after
    arrival = run.arrival(c)
    assert arrival.status == "found"
    assert arrival.step == after
    assert arrival.evidence == (write, after)
    shown = json.loads(run.events[after].content)
    assert {f: shown[f] for f in c.target.paths} == c.authoritative_value


def test_write_effect_intervening_write_breaks_attribution() -> None:
    c = _we()
    tool, match = _request(c)
    other = dict(match, total_baggages=1)
    run, (write, middle, read) = _we_run(c, [(tool, match), (tool, other), READ])
    assert write < middle < read
    assert not run.events[middle].error
    assert run.arrival(c).status == "never"


def test_write_effect_failed_intervening_write_keeps_attribution() -> None:
    c = _we()
    tool, match = _request(c)
    bad = dict(match, payment_id="gift_card_0000000")
    run, (_, middle, read) = _we_run(c, [(tool, match), (tool, bad), READ])
    assert run.events[middle].error
    arrival = run.arrival(c)
    assert (arrival.status, arrival.step) == ("found", read)


def test_write_effect_all_attempts_suppressed_repeat_keeps_attribution() -> None:
    c = _we("all_attempts")
    request = _request(c)
    run, (first, repeat, read) = _we_run(c, [request, request, READ])
    assert not run.events[repeat].error
    arrival = run.arrival(c)
    assert (arrival.status, arrival.step) == ("found", read)
    assert arrival.evidence == (first, read)
    # under first_attempt the repeat really happens: it is an intervening write
    c1 = _we("first_attempt")
    run1, (_, _, read1) = _we_run(c1, [request, request, READ])
    shown = json.loads(run1.events[read1].content)
    assert {f: shown[f] for f in c1.target.paths} == c1.injected_value
    assert run1.arrival(c1).status == "never"


def test_write_effect_non_json_payload_is_undecidable() -> None:
    c = _we()
    tool, match = _request(c)
    run = Run()
    run.tool(tool, match, "Baggage updated.")
    run.tool(*READ, _observe("airline", *READ))
    assert run.arrival(c).status == "undecidable"


def test_write_effect_without_a_success_payload_is_never() -> None:
    c = _we()
    tool, match = _request(c)
    run = Run()
    run.tool(tool, match, "Error: Payment method not found", error=True)
    run.tool(*READ, _observe("airline", *READ))
    assert run.arrival(c).status == "never"
