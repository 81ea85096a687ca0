"""DeviceReading (telecom): screening, the fault on the customer's device call, the relayed
second-check relation, and witnesses that ask the customer for a device check."""

from __future__ import annotations

from typing import Any

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.fault_contracts.refutation import get_relation
from sscbench.operators import operator_names
from sscbench.operators.device_reading import DeviceReading
from sscbench.operators.screen import screen
from sscbench.records.events import UserMessage
from sscbench.witnesses.search import search_witness
from sscbench.witnesses.verify import verify_witness


def _contracts() -> list[FaultContract]:
    return [o for o in screen(DeviceReading()) if isinstance(o, FaultContract)]


def test_registered_and_screened_with_reasons() -> None:
    assert "device_reading" in operator_names()
    outcomes = list(screen(DeviceReading()))
    contracts = [o for o in outcomes if isinstance(o, FaultContract)]
    assert len(outcomes) == 228 and len(contracts) == 63
    checks = {getattr(o, "check", None) for o in outcomes if not isinstance(o, FaultContract)}
    assert checks == {"task_relevance", "sufficiency"}
    for c in contracts:
        assert c.injected_value != c.authoritative_value
        assert c.refutation.relation == "device_second_check" and len(c.semantics) == 2


def _say(step: int, text: str) -> UserMessage:
    return UserMessage(step=step, turn=step, content=text)


def test_second_check_relation_on_hand_made_histories() -> None:
    c = next(x for x in _contracts() if x.target.paths == ("airplane_mode",))
    relation = get_relation("device_second_check")
    fault = "I did `check_network_status` on my phone. It shows: Airplane Mode: OFF\nSIM ..."
    bar = "I did `check_status_bar` on my phone. It shows: Status Bar: ✈️ Airplane Mode | 🔋 80%"
    toggle = "I did `toggle_airplane_mode` on my phone. It shows: x\nStatus Bar: ✈️ Airplane Mode"
    found = relation(c, History([_say(1, fault), _say(3, bar)]))
    assert (found.status, found.step) == ("found", 3)
    earlier = relation(c, History([_say(1, bar), _say(3, fault)]))
    assert (earlier.status, earlier.step) == ("found", 1)
    # a device write between the readings: the status bar is about another state
    assert relation(c, History([_say(1, fault), _say(3, toggle)])).status == "never"
    # a second network status is the same rewritten tool: not independent
    assert relation(c, History([_say(1, fault), _say(3, fault)])).status == "never"
    assert relation(c, History([_say(1, bar)])).status == "never"


def test_mobile_data_needs_a_network_type_beside_data_disabled() -> None:
    c = next(x for x in _contracts() if x.target.paths == ("mobile_data",))
    relation = get_relation("device_second_check")
    fault = "I did `check_network_status` on my phone. It shows: Mobile Data Enabled: Yes"
    said = "I did `check_status_bar` on my phone. It shows: Status Bar: "
    vague = said + "📵 No Signal | 📵 Data Disabled"
    clear = said + "📶³ Good | 4G | 📵 Data Disabled"
    assert relation(c, History([_say(1, fault), _say(3, vague)])).status == "never"
    assert relation(c, History([_say(1, fault), _say(3, clear)])).step == 3


def test_the_fault_sits_on_the_users_call_only_and_witnesses_verify() -> None:
    c = _contracts()[0]
    task = load_domain("telecom").task(c.task_id)
    env = EpisodeEnvironment.open("telecom", task, ContractIntervention(c))
    call = ToolCall(id="u", name="check_network_status", arguments={})
    shown = env.execute(call, 0, requestor="user").content
    spec: Any = c.interventions[0]
    assert spec.reads in shown.splitlines() and spec.shows not in shown.splitlines()
    bar = env.execute(ToolCall(id="b", name="check_status_bar", arguments={}), 1, "user")
    assert "Airplane Mode" in bar.content or "Data Disabled" in bar.content
    witness = search_witness(c)
    assert hasattr(witness, "continuation"), witness
    assert [w.name for w in witness.continuation] == ["check_status_bar"]
    assert verify_witness(c, witness) == []


def test_the_false_reading_is_one_coherent_answer() -> None:
    """Every rewritten network status is, line for line, the answer τ²'s phone gives once
    the customer has really reversed the setting (its own toggle): the connection, signal
    and network type agree with "Airplane Mode: OFF", and nothing else moves."""
    from sscbench.operators.device_reading import READINGS

    dependent = {"Cellular Connection", "Cellular Signal", "Cellular Network Type"}
    moved_with_it = 0
    for c in _contracts():
        task = load_domain("telecom").task(c.task_id)
        faulted = EpisodeEnvironment.open("telecom", task, ContractIntervention(c))
        clean = EpisodeEnvironment.open("telecom", task)
        status = ToolCall(id="s", name="check_network_status", arguments={})
        true = clean.execute(status, 0, requestor="user").content
        shown = faulted.execute(status, 0, requestor="user").content
        fix = READINGS[c.target.paths[0]][3]
        clean.execute(ToolCall(id="f", name=fix, arguments={}), 1, requestor="user")
        assert shown == clean.execute(status, 2, requestor="user").content, c.contract_id
        pairs = zip(true.split("\n"), shown.split("\n"), strict=True)
        changed = {a.split(":")[0] for a, b in pairs if a != b}
        assert changed - dependent == {READINGS[c.target.paths[0]][0]}, c.contract_id
        moved_with_it += bool(changed & dependent)
        if c.target.paths == ("mobile_data",):
            assert not changed & dependent  # τ² derives no other line from mobile data
    assert moved_with_it == 27  # airplane mode on an active SIM with towers around


def test_a_state_the_search_would_not_derive_keeps_its_true_line() -> None:
    """Only lines the reversed setting changes are rewritten: a line that τ²'s network
    search alone would change (not the setting's doing) keeps the phone's true value."""
    from sscbench.fault_contracts.device_state import reversed_reading

    c = next(x for x in _contracts() if x.target.paths == ("airplane_mode",))
    env = EpisodeEnvironment.open("telecom", load_domain("telecom").task(c.task_id))
    toolkit = env.user_toolkit
    shown = toolkit.check_network_status()
    odd = shown.replace("Cellular Signal: none", "Cellular Signal: fair")
    out = reversed_reading(
        type(toolkit), env.state.user_db, "check_network_status", "airplane_mode", odd
    )
    assert out is not None and "Cellular Signal: fair" in out.split("\n")
    assert "Airplane Mode: OFF" in out.split("\n")
    status = "check_network_status"
    assert reversed_reading(type(toolkit), env.state.user_db, status, "x", shown) is None
