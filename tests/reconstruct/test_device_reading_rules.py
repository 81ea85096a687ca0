"""DeviceReading reconstruction on hand-written telecom runs: what an agent says about the
customer's airplane mode or mobile data after the customer relays a false network status.

The phrasings below were written as an LLM support agent would word them (states, quoted
readings, negations, "in airplane mode", fixes that presume a state), not copied from the
scripted agents' templates, and kept as written. The cases: airplane mode on, read as OFF
(v = ON, v′ = OFF); mobile data off, read as enabled (v = No, v′ = Yes)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sscbench.fault_contracts.contract import FaultContract
from sscbench.operators.device_reading import DeviceReading
from sscbench.operators.screen import screen
from sscbench.reconstruct import label_run
from sscbench.reconstruct.rules.device_reading import device_mentions

sys.path.insert(0, str(Path(__file__).parent))
from build_fixtures import RunBuilder  # the hand-built-run writer beside this file

V_PRIME, V, NONE = "v_prime", "v", None

AIRPLANE: list[tuple[str, str | None]] = [
    ("Thanks! I can see Airplane Mode is OFF on your device, so that's not the blocker.", V_PRIME),
    ("Your network status shows Airplane Mode: OFF and a 5G connection.", V_PRIME),
    ("Good — airplane mode isn't on, so we can rule it out.", V_PRIME),
    ("Since airplane mode is already disabled, let's move on to your roaming settings.", V_PRIME),
    ("Your phone is not in airplane mode.", V_PRIME),
    ("It looks like your phone is in airplane mode, which cuts all cellular service.", V),
    ("Please turn off Airplane Mode on your phone and tell me what you see.", V),
    ("Airplane mode appears to be enabled on your handset.", V),
    ("You have flight mode switched on.", V),
    ("Let me look at the network settings on your side next.", NONE),
    ("On your phone, please open Settings and tell me what you see.", NONE),
]

MOBILE_DATA: list[tuple[str, str | None]] = [
    ("Mobile data is enabled on your phone, so the switch isn't the issue.", V_PRIME),
    ("Your cellular data is switched on.", V_PRIME),
    ("I see Mobile Data Enabled: Yes in what you sent.", V_PRIME),
    ("Your mobile data is turned off — that's why nothing loads.", V),
    ("Please enable mobile data in your settings.", V),
    ("Mobile data isn't enabled right now.", V),
    ("Could you tell me what your status bar shows?", NONE),
]


def _contract(reading: str) -> FaultContract:
    return next(
        c
        for c in screen(DeviceReading())
        if isinstance(c, FaultContract) and c.target.paths == (reading,)
    )


def _labels(reading: str, text: str, root: Path) -> object:
    contract = _contract(reading)
    run = RunBuilder("r", "telecom", contract.task_id, contract.contract_id, contract)
    run.user("Hi, my mobile data is not working. I am John Smith, phone number 555-123-2002.")
    run.say("Could you check your network status for me?")
    run.device("check_network_status", fault=True)
    run.say(text)
    run.user("###STOP###")
    run.write(root)
    return label_run(root / "r")


@pytest.mark.parametrize(
    ("reading", "text", "expected"),
    [("airplane_mode", t, e) for t, e in AIRPLANE]
    + [("mobile_data", t, e) for t, e in MOBILE_DATA],
)
def test_device_statements_in_varied_phrasing(
    reading: str, text: str, expected: str | None, tmp_path: Path
) -> None:
    assert_statement(reading, text, expected, tmp_path)


def assert_statement(reading: str, text: str, expected: str | None, root: Path) -> None:
    """``text``, said after the false reading, is a use of ``expected`` (``v`` or ``v′``),
    or no use at all (``None``)."""
    labels = _labels(reading, text, root)
    assert labels.triggered is True  # type: ignore[attr-defined]
    t_s = labels.t_s  # type: ignore[attr-defined]
    if expected is None:
        assert t_s.status == "none", t_s.reason
        return
    assert t_s.status == "found", t_s.reason
    assert labels.adopted is (expected == V_PRIME), t_s.reason  # type: ignore[attr-defined]


def test_the_relayed_status_bar_refutes_in_the_same_state(tmp_path: Path) -> None:
    contract = _contract("airplane_mode")
    run = RunBuilder("r", "telecom", contract.task_id, contract.contract_id, contract)
    run.user("Hi, my mobile data is not working. I am John Smith, phone number 555-123-2002.")
    run.say("Could you check your network status for me?")
    t_f = run.device("check_network_status", fault=True)
    run.say("Airplane mode is off on your phone, so that isn't it.")
    run.say("Actually, let me double-check: what does your status bar show?")
    bar = run.device("check_status_bar")
    run.user("###STOP###")
    run.write(tmp_path)
    labels = label_run(tmp_path / "r")
    assert labels.t_f.step == t_f and labels.t_e.step == bar
    assert labels.adopted is True and labels.z_s == "after"


def test_bare_words_never_count_and_a_negation_is_the_other_state() -> None:
    assert (
        device_mentions("On your phone, please run the check.", "airplane_mode", "v", "v_prime")
        == []
    )
    assert device_mentions("Yes, no problem.", "mobile_data", "v_prime", "v") == []
    [m] = device_mentions("Airplane mode isn't on.", "airplane_mode", "v", "v_prime")
    assert m.which == "v_prime"  # on_is = v: "not on" is the other side
    [m] = device_mentions("Please turn your airplane mode off.", "airplane_mode", "v", "v_prime")
    assert m.which == "v"  # asking to turn it off relies on its being on
