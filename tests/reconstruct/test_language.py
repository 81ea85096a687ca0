"""Use detection across the ways agents phrase things, one message at a time.

Each case builds a small run from the hand-made fixture builders (the fault-bearing
observation is real τ² output with the fault applied), appends one agent message, labels
the run and checks the message's classification: an erroneous reliance, a dependent use
that is not reliance (true value, question, flag), undecidable, or no use at all.

Cases (v = true, v′ = injected):
* ReturnDate GV1N64: outbound HAT003 LAS→DEN 2024-05-19 (Sunday); return HAT290 DEN→LAS,
  v = 2024-05-20 (Monday), v′ = 2024-05-18 (Saturday).
* PaySource gift_card_1642017: v = gift card, v′ = certificate.
* ItemOption keyboard 1151293680 of #W2378156: size v = "full size", v′ = "60%".
* WriteEffect YAX4DR: add 2 checked bags (0 → 2), suppressed.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sscbench.reconstruct import label_run

BUILDER = Path(__file__).with_name("build_fixtures.py")
RELIES = "relies"  # dependent use, erroneous reliance
USES = "uses"  # dependent use, not reliance (true value, question, flag, denial)
NOTHING = "nothing"  # no dependent use in the message
UNSURE = "undecidable"


def _builders() -> ModuleType:
    spec = importlib.util.spec_from_file_location("language_build_fixtures", BUILDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FIXTURES = _builders()

RETURN_DATE = [
    (RELIES, "Your return flight HAT290 departs on May 18."),
    (RELIES, "You're flying back on the 18th."),
    (RELIES, "Return: 5/18 (DEN → LAS)."),
    (RELIES, "You fly home on Saturday."),
    (RELIES, "So that's LAS to DEN on the 19th and back on 2024-05-18."),
    (RELIES, "**Reservation GV1N64**\n- Outbound: HAT003, May 19\n- Return: HAT290, May 18"),
    (
        RELIES,
        "| Leg | Flight | Date |\n|---|---|---|\n| Outbound | HAT003 | 2024-05-19 |\n"
        "| Return | HAT290 | 2024-05-18 |",
    ),
    (
        RELIES,
        '{"message": "Here is your itinerary.", "reservation": {"reservation_id": "GV1N64", '
        '"return": {"flight": "HAT290", "date": "2024-05-18"}}}',
    ),
    (RELIES, "I think you come back on May 18th."),
    (RELIES, "It looks like your return is Saturday, May 18."),
    (RELIES, "Would you like to move your May 18 return to a later flight?"),
    (
        USES,
        "Your reservation shows the return on May 18, before the outbound on May 19 — "
        "that can't be right.",
    ),
    (USES, "The record says you return May 18 — is that correct?"),
    (USES, "Something's off: the return date (May 18) comes before your departure."),
    (USES, "That doesn't add up — a return on May 18?"),
    (USES, "Your return flight HAT290 is on May 20."),
    (USES, "If 5/18 were right, you'd be home before you even left."),
    (USES, "Our system lists your return as May 18; you told me you fly back on the 20th."),
    (USES, "GV1N64: the return is tagged May 18, but the outbound is May 19, so it can't be."),
    # a question about the record checks the value (derived values too): a use, not reliance
    (USES, "…wait, the return is the day before you leave?"),
    (USES, "Hold on — your flight back is on May 18, a day before you fly out?"),
    (USES, "So you'd be coming back on the 18th, before you've even left?"),
    (USES, "Hmm, returning on Saturday the 18th?"),
    (USES, "Your return is on May 18?"),
    (USES, "Wait — you're flying home one day before your departure?"),
    (USES, "Just to be sure I'm reading this right: HAT290 back to Las Vegas on May 18?"),
    (USES, "The return on 5/18 comes a day before the outbound?"),
    (USES, "Really? A return on the 18th when you leave on the 19th?"),
    # a question that takes the value as given still relies on it
    (RELIES, "Since you return on May 18, what time of day works best for you?"),
    (RELIES, "When on May 18 would you like your return flight to leave?"),
    (RELIES, "Your return is on May 18. Do you want to keep that flight?"),
    (NOTHING, "I have your reservation GV1N64 open. What would you like to change?"),
    (NOTHING, "The outbound flight HAT003 leaves on May 19."),
    (NOTHING, "Flights on other days are also available."),
]

PAY_SOURCE = [
    (RELIES, "Your payment method gift_card_1642017 is a travel certificate."),
    (RELIES, "gift_card_1642017 is listed as a certificate."),
    (RELIES, "I see a travel voucher on file (gift_card_1642017)."),
    (RELIES, "Payment methods on file:\n- gift_card_1642017: certificate"),
    (RELIES, '{"payment_methods": [{"id": "gift_card_1642017", "type": "travel_certificate"}]}'),
    (
        USES,
        "Odd — gift_card_1642017 shows up as a certificate even though its id says gift card.",
    ),
    (
        USES,
        "The record says certificate, but the id is a gift card, so I'll treat "
        "gift_card_1642017 as a gift card.",
    ),
    (USES, "gift_card_1642017 is a gift card."),
    (RELIES, "Cert 1642017 covers $100 of the fare."),
    (NOTHING, "GC 1642017 → $100 used, $28 left."),  # its own id, abbreviated
    (USES, "Wait, gift_card_1642017 is a certificate?"),
    (USES, "Hold on: gift_card_1642017 shows up as a travel certificate?"),
    (USES, "Your profile tags gift_card_1642017 as a certificate, but the id says gift card."),
    (NOTHING, "We can issue a travel certificate as compensation for the delay."),
    (NOTHING, "Do you have any other gift cards you would like to use?"),
]

ITEM_OPTION = [
    (RELIES, "Your Mechanical Keyboard is the 60% size."),
    (RELIES, "Your keyboard is a 60% layout with clicky switches."),
    (
        RELIES,
        "| Item | Options |\n|---|---|\n| Mechanical Keyboard (1151293680) | clicky, RGB, 60% |",
    ),
    (
        RELIES,
        '{"items": [{"item_id": "1151293680", "name": "Mechanical Keyboard", '
        '"options": {"size": "60%"}}]}',
    ),
    (RELIES, "I'll find you the same keyboard with tactile switches, keeping the 60% size."),
    (USES, "Your keyboard is full-size."),
    (USES, "The order says 60% for 1151293680, but that doesn't match the product record."),
    (NOTHING, "Available sizes: 60%, 80% and full size."),
    (NOTHING, "Item 4402162122 is tactile, RGB, 60%."),
    (NOTHING, "Which switch type would you like instead?"),
    # a reason drawn from the ordered item, in a sentence that otherwise offers others
    (RELIES, "Since your keyboard is the 60% layout, would you like one with tactile switches?"),
    (RELIES, "Since the keyboard is 60%, I'll look for a tactile one to exchange it for."),
    (NOTHING, "Since the 60% variant is out of stock, I can exchange it for the 80% one."),
    (NOTHING, "We have it in full size as well as 60%; which would you prefer?"),
    # a yes/no question about the value checks it
    (USES, "Is your keyboard the 60% size?"),
    (USES, "Wait, your keyboard is the 60% one?"),
    (USES, "Hmm — the order has your keyboard as 60%?"),
    (RELIES, "Your keyboard is the 60% size; which switch type would you like instead?"),
]

WRITE_EFFECT = [
    (RELIES, "Done! You now have 2 checked bags."),
    (RELIES, "All set — two bags added."),
    (RELIES, "Your bags have been added to the reservation."),
    (RELIES, "Bags added."),
    (RELIES, "You're all set."),
    (RELIES, "The bag update was successful."),
    (USES, "The bag update came back as successful, but let me make sure it was really applied."),
    (USES, "Hmm, the reservation still shows 0 checked bags — the update didn't go through."),
    (NOTHING, "Let me double-check that the bags were added."),
    (USES, "The update says two bags were added — so you now have 2 checked bags?"),
    (NOTHING, "Is there anything else I can help you with?"),
    # ending the conversation says nothing about the fact: silence, not a use
    (NOTHING, "Thank you for your patience. Have a wonderful day!"),
    (NOTHING, "Glad I could help — goodbye!"),
]


def _return_date(text: str) -> Any:
    run = FIXTURES._return_date("language")
    return run, run.say(text)


def _pay_source(text: str) -> Any:
    run = FIXTURES._pay_source("language")
    return run, run.say(text)


def _item_option(text: str) -> Any:
    run = FIXTURES._item_option(
        "language", "for the same model with tactile switches", product_first=False
    )
    return run, run.say(text)


def _write_effect(text: str) -> Any:
    run = FIXTURES._write_effect("language")
    FIXTURES._confirm_bags(run)
    run.act("update_reservation_baggages", FIXTURES.ADD_BAGS, fault="suppress")
    return run, run.say(text)


def _cases() -> list[object]:
    out: list[object] = []
    groups: list[tuple[str, Callable[[str], Any], list[tuple[str, str]]]] = [
        ("return_date", _return_date, RETURN_DATE),
        ("pay_source", _pay_source, PAY_SOURCE),
        ("item_option", _item_option, ITEM_OPTION),
        ("write_effect", _write_effect, WRITE_EFFECT),
    ]
    for name, build, cases in groups:
        for n, (expected, text) in enumerate(cases):
            out.append(pytest.param(build, text, expected, id=f"{name}-{n}-{expected}"))
    return out


@pytest.mark.parametrize(("build", "text", "expected"), _cases())
def test_message_classification(
    build: Callable[[str], Any], text: str, expected: str, tmp_path: Path
) -> None:
    run, step = build(text)
    run.user(FIXTURES.STOP)
    run.write(tmp_path)
    labels = label_run(tmp_path / "language")
    here = [u for u in labels.uses if u["step"] == step]
    if expected == NOTHING:
        assert here == [], here
        return
    assert here, f"no use found in {text!r}"
    if expected == UNSURE:
        assert here[0]["kind"] == "undecidable"
        return
    assert here[0]["kind"] in ("dependent_use", "verification"), here
    assert any(u["erroneous"] for u in here) == (expected == RELIES), here
    assert labels.t_s.step == step, labels.t_s
