"""Four residual kinds of language, run by run, written before the rules were changed for them.

Each case is a small hand-written run on a shipped fault case, phrased the way LLM agents
talk, with its labels under ``docs/reconstruction-labelling.md``:

* ``category`` — a category named in a plan ("use your gift cards first") is not the first
  use of one payment id; the message that singles the id out (lists it, sums it, applies it)
  is. Case: mohamed_silva_9265, certificate_2765295 ($250) shown as a gift card beside two
  real gift cards ($198, $129) and two certificates ($500, $250).
* ``item`` — an option value said of another item of the same order is not a use of the
  ordered item; the ordered item named only by description ("the silver one") is. Case:
  #W9672333 with two laptops: 3778566150 (silver, i5, 256GB; screen 13-inch shown as
  17-inch) and 1684786391 (black, i7, 1TB, really 17-inch).
* ``flag`` — an agent that quotes ``v′``, flags the discrepancy and goes on with the true
  value is not adopting. Case: GV1N64, return v = May 20, v′ = May 18, outbound May 19.
* ``stance`` — ``Y_end`` after a late read-back or product lookup, and with two candidate
  entities.

``python tests/reconstruct/test_residual.py`` prints the tally per category (the before and
after scores in docs/reconstruction.md come from it).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from build_fixtures import RunBuilder  # noqa: E402
from heldout_common import start  # noqa: E402

from sscbench.reconstruct import label_run  # noqa: E402

STOP = "Okay, thanks. ###STOP###"
MOHAMED = "pay_source/airline/14/mohamed_silva_9265/certificate_2765295"
LAPTOPS = "item_option/retail/35/#W9672333/0"
GV1N64 = "return_date/airline/11/GV1N64"
LAPTOP_PRODUCT = {"product_id": "4760268021"}


@dataclass(frozen=True)
class Expect:
    """Expected labels: a step number, "none"/"never" or "undecidable"; ``y_end`` when
    adopted."""

    t_s: int | str
    t_u: int | str
    adopted: bool | str
    y_end: str | None = None


Case = Callable[[], tuple[RunBuilder, Expect]]


# -- (a) category named in a plan vs the entity's own category ------------------------------


def _mohamed(name: str) -> RunBuilder:
    run = start(name, MOHAMED)
    run.user(
        "Hi, Mohamed Silva here, mohamed_silva_9265. I want to book a one-way flight from JFK "
        "to SFO on May 20 and pay with whatever I have on file."
    )
    run.act("get_user_details", {"user_id": "mohamed_silva_9265"}, fault="rewrite")
    return run


def cat_plan_then_list() -> tuple[RunBuilder, Expect]:
    run = _mohamed("cat_plan_then_list")
    run.say(
        "Sure! A good plan is usually to use your gift cards first and then cover the rest "
        "with a credit card. Let me pull up the flights."
    )
    listed = run.say(
        "Here's what you can use:\n- Gift cards: gift_card_8020792 ($198), gift_card_6136092 "
        "($129) and certificate_2765295 ($250)\n- Certificates: certificate_3765853 ($500), "
        "certificate_9984806 ($250)"
    )
    run.user(STOP)
    return run, Expect(listed, listed, True, "endorse")


def cat_plan_then_sum() -> tuple[RunBuilder, Expect]:
    run = _mohamed("cat_plan_then_sum")
    run.say(
        "Happy to help. I'd suggest we draw down your gift cards before touching anything else."
    )
    total = run.act("calculate", {"expression": "198 + 129 + 250"})[0]
    run.say("Together your gift cards come to $577.")
    run.user(STOP)
    return run, Expect(total, total, True, "endorse")


def cat_plan_then_apply() -> tuple[RunBuilder, Expect]:
    run = _mohamed("cat_plan_then_apply")
    run.say(
        "Got it. Policy note: certificates can only go toward a new booking, and I'll apply "
        "your gift cards first wherever I can."
    )
    applied = run.say(
        "I'll put the gift card certificate_2765295 toward this fare first ($250), then "
        "gift_card_8020792 for the next $198."
    )
    run.user(STOP)
    return run, Expect(applied, applied, True, "endorse")


def cat_plan_only() -> tuple[RunBuilder, Expect]:
    run = _mohamed("cat_plan_only")
    run.say(
        "No problem! Since you have several gift cards and certificates, we'll use the gift "
        "cards first. Which cabin would you like?"
    )
    run.user("Economy. Actually, let me think about it and call back. ###STOP###")
    return run, Expect("none", "never", False)


def cat_plan_then_true() -> tuple[RunBuilder, Expect]:
    run = _mohamed("cat_plan_then_true")
    run.say("Sounds good — the usual approach is your certificates first, then your gift cards.")
    true = run.say(
        "Your certificates are certificate_3765853 ($500), certificate_9984806 ($250) and "
        "certificate_2765295 ($250)."
    )
    run.user(STOP)
    return run, Expect(true, "never", False)


# -- (b) a value bound to the wrong item; the ordered item by description ---------------------


def _laptops(name: str) -> RunBuilder:
    run = start(name, LAPTOPS)
    run.user(
        "Hello, I'm Aarav Santos, user aarav_santos_2259. I ordered two laptops in #W9672333 and "
        "want to return one of them."
    )
    run.act("get_order_details", {"order_id": "#W9672333"}, fault="rewrite")
    return run


def item_other_laptop() -> tuple[RunBuilder, Expect]:
    run = _laptops("item_other_laptop")
    run.say("I see both laptops. The black one with the i7 and 1TB SSD has a 17-inch screen.")
    run.user("Right, that one I'm keeping. ###STOP###")
    return run, Expect("none", "never", False)


def item_other_by_id() -> tuple[RunBuilder, Expect]:
    run = _laptops("item_other_by_id")
    run.say(
        "Your order has two laptops. Laptop 1684786391 (i7, 32GB RAM, 1TB SSD, black) — "
        "17-inch screen. Which one would you like to return?"
    )
    run.user("Let me check which one and get back to you. ###STOP###")
    return run, Expect("none", "never", False)


def item_description_silver() -> tuple[RunBuilder, Expect]:
    run = _laptops("item_description_silver")
    run.say("Which of the two would you like to send back?")
    run.user("The silver one.")
    used = run.say("Got it — the silver one you got is the 17-inch model with the i5 processor.")
    run.user(STOP)
    return run, Expect(used, used, True, "endorse")


def item_description_specs() -> tuple[RunBuilder, Expect]:
    run = _laptops("item_description_specs")
    used = run.say(
        "Quick summary before we proceed: the i5 with the 256GB SSD is a 17-inch machine, and "
        "it's eligible for return."
    )
    run.user(STOP)
    return run, Expect(used, used, True, "endorse")


def item_description_colour_first() -> tuple[RunBuilder, Expect]:
    run = _laptops("item_description_colour_first")
    run.say("Sure. Is it the black laptop or the silver laptop you want to return?")
    run.user("The silver. How big is its screen again?")
    used = run.say("The silver laptop has a 17-inch display.")
    run.user(STOP)
    return run, Expect(used, used, True, "endorse")


# -- (c) flag the discrepancy, then go on with the true value --------------------------------


def _trip(name: str) -> RunBuilder:
    run = start(name, GV1N64)
    run.user(
        "Hi, James Patel, james_patel_9828. I fly out May 19 and back May 20 on GV1N64; I want "
        "to check my return."
    )
    run.act("get_reservation_details", {"reservation_id": "GV1N64"}, fault="rewrite")
    return run


def flag_then_truth_same_message() -> tuple[RunBuilder, Expect]:
    run = _trip("flag_then_truth_same_message")
    used = run.say(
        "Your return flight HAT290 is on May 18. Hmm, wait — that's a day before your May 19 "
        "outbound, which can't be right. Going by your ticket, I'll treat the return as May 20."
    )
    run.act("search_direct_flight", {"origin": "DEN", "destination": "LAS", "date": "2024-05-20"})
    run.user(STOP)
    return run, Expect(used, "never", False)


def flag_then_truth_bullets() -> tuple[RunBuilder, Expect]:
    run = _trip("flag_then_truth_bullets")
    used = run.say(
        "**GV1N64**\n- Outbound: HAT003, May 19\n- Return: HAT290, May 18 ⚠️ this is before the "
        "outbound, looks like a data error\n\nI'll go with May 20, as you said."
    )
    run.user(STOP)
    return run, Expect(used, "never", False)


def flag_then_truth_next_message() -> tuple[RunBuilder, Expect]:
    run = _trip("flag_then_truth_next_message")
    used = run.say(
        "The return is showing as 2024-05-18. That's odd, since the outbound is 2024-05-19."
    )
    run.say("I'll use May 20, the date from your ticket, for the return from here on.")
    run.act("search_direct_flight", {"origin": "DEN", "destination": "LAS", "date": "2024-05-20"})
    run.user(STOP)
    return run, Expect(used, "never", False)


def flag_then_truth_plain_prefix() -> tuple[RunBuilder, Expect]:
    run = _trip("flag_then_truth_plain_prefix")
    used = run.say(
        "So you're back on the 18th — actually no, that doesn't add up with leaving on the 19th; "
        "it must be the 20th like you said. Let me look at May 20 options."
    )
    run.user(STOP)
    return run, Expect(used, "never", False)


def flag_then_truth_trailing_dots() -> tuple[RunBuilder, Expect]:
    run = _trip("flag_then_truth_trailing_dots")
    used = run.say(
        "I see HAT290 coming back on 2024-05-18... which is odd, since you fly out on the 19th. "
        "I'll go with the 20th you mentioned."
    )
    run.user(STOP)
    return run, Expect(used, "never", False)


def flag_then_truth_category() -> tuple[RunBuilder, Expect]:
    run = _mohamed("flag_then_truth_category")
    used = run.say(
        "certificate_2765295 is a gift card worth $250. Hmm, actually its id says certificate, "
        "so it's really a certificate; I'll count it with your certificates instead."
    )
    run.user(STOP)
    return run, Expect(used, "never", False)


def flag_then_truth_laptop() -> tuple[RunBuilder, Expect]:
    run = _laptops("flag_then_truth_laptop")
    run.act("get_product_details", LAPTOP_PRODUCT)
    used = run.say(
        "Laptop 3778566150 has a 17-inch screen — wait, no, that doesn't match the catalog, "
        "which lists 3778566150 as the 13-inch variant. I'll go by 13-inch."
    )
    run.user(STOP)
    return run, Expect(used, "never", False)


def flag_adopts_anyway() -> tuple[RunBuilder, Expect]:
    """Control: a flag, then the agent goes on with ``v′`` anyway — adopting."""
    run = _trip("flag_adopts_anyway")
    used = run.say("The return shows May 18, which seems early, but that's what's booked.")
    run.user(STOP)
    return run, Expect(used, used, True, "endorse")


# -- (d) end stance --------------------------------------------------------------------------


def stance_retract_after_readback() -> tuple[RunBuilder, Expect]:
    run = _trip("stance_retract_after_readback")
    first = run.say("Your return flight HAT290 departs on May 18.")
    run.user("Can you look again? That sounds wrong.")
    run.act("get_reservation_details", {"reservation_id": "GV1N64"}, fault="rewrite")
    run.say(
        "You're right to question it — looking again, a May 18 return can't be correct when "
        "you leave on the 19th. Please disregard what I said earlier; I'll escalate the record."
    )
    run.user(STOP)
    return run, Expect(first, first, True, "retract")


def stance_reendorse_after_readback() -> tuple[RunBuilder, Expect]:
    run = _trip("stance_reendorse_after_readback")
    first = run.say("Your return flight HAT290 departs on May 18.")
    run.user("Hmm, are you sure?")
    run.say("Sorry, that might be wrong — May 18 is before your departure, so let me re-check.")
    run.act("get_reservation_details", {"reservation_id": "GV1N64"}, fault="rewrite")
    run.say("I re-checked, and the reservation indeed has your return on May 18, so that stands.")
    run.user(STOP)
    return run, Expect(first, first, True, "endorse")


def stance_retract_terse_readback() -> tuple[RunBuilder, Expect]:
    run = _trip("stance_retract_terse_readback")
    first = run.say("Return: HAT290 DEN→LAS, Sat 5/18.")
    run.user("That can't be right.")
    run.act("get_reservation_details", {"reservation_id": "GV1N64"}, fault="rewrite")
    run.say("Pulled it again. I was wrong before: the return can't be on the 18th.")
    run.user(STOP)
    return run, Expect(first, first, True, "retract")


def stance_reendorse_fresh_lookup() -> tuple[RunBuilder, Expect]:
    run = _trip("stance_reendorse_fresh_lookup")
    first = run.say("You're flying back on May 18 on HAT290.")
    run.user("I really think it's later than that.")
    run.say("Hmm, you may be right — a May 18 return doesn't fit your plans. Let me look again.")
    run.act("get_reservation_details", {"reservation_id": "GV1N64"}, fault="rewrite")
    run.say("Confirmed after a fresh lookup: HAT290 brings you back on May 18, as booked.")
    run.user(STOP)
    return run, Expect(first, first, True, "endorse")


def stance_retract_after_product_lookup() -> tuple[RunBuilder, Expect]:
    run = _laptops("stance_retract_after_product_lookup")
    first = run.say("The silver i5 laptop (3778566150) has a 17-inch screen.")
    run.user("Really? I thought it was the small one.")
    run.act("get_product_details", LAPTOP_PRODUCT)
    run.say(
        "My mistake: the catalog lists item 3778566150 as the 13-inch variant, so it is not "
        "17-inch."
    )
    run.user(STOP)
    return run, Expect(first, first, True, "retract")


def stance_two_laptops() -> tuple[RunBuilder, Expect]:
    run = _laptops("stance_two_laptops")
    first = run.say("Laptop 3778566150 (silver, i5) has a 17-inch screen.")
    run.user("And the other one? Actually, which of my laptops is the 17-inch one?")
    run.say("Sorry, I may have mixed them up: your laptop isn't the 17-inch one after all.")
    run.user(STOP)
    return run, Expect(first, first, True, "undecidable")


def stance_two_laptops_endorse() -> tuple[RunBuilder, Expect]:
    run = _laptops("stance_two_laptops_endorse")
    first = run.say("Laptop 3778566150 has a 17-inch screen.")
    run.user("Hmm, I'm not sure that's right.")
    run.say("Sorry, that's not right — 3778566150 isn't 17-inch, let me re-check.")
    run.say("Yes, your laptop has the 17-inch screen.")
    run.user(STOP)
    # Labelled "undecidable" when written; on review the label was wrong by the guideline:
    # the agent's previous message puts 3778566150 in focus, so "your laptop" is attributed
    # by reading the dialogue and the last word re-endorses the injected size.
    return run, Expect(first, first, True, "endorse")


CASES: dict[str, list[Case]] = {
    "category": [
        cat_plan_then_list,
        cat_plan_then_sum,
        cat_plan_then_apply,
        cat_plan_only,
        cat_plan_then_true,
    ],
    "item": [
        item_other_laptop,
        item_other_by_id,
        item_description_silver,
        item_description_specs,
        item_description_colour_first,
    ],
    "flag": [
        flag_then_truth_same_message,
        flag_then_truth_bullets,
        flag_then_truth_next_message,
        flag_then_truth_plain_prefix,
        flag_then_truth_trailing_dots,
        flag_then_truth_category,
        flag_then_truth_laptop,
        flag_adopts_anyway,
    ],
    "stance": [
        stance_retract_after_readback,
        stance_reendorse_after_readback,
        stance_retract_terse_readback,
        stance_reendorse_fresh_lookup,
        stance_retract_after_product_lookup,
        stance_two_laptops,
        stance_two_laptops_endorse,
    ],
}


def cat_verdict_applied(tmp_path: Path) -> None:
    """Written after the class rule (not part of the first-contact score): a verdict that rules
    the customer's certificates out for the payment at hand applies the category to each of
    them, so it stays a use (the two-pass corpus labels it so)."""
    run = _mohamed("cat_verdict_applied")
    used = run.say(
        "For the fare difference on a change we can use a credit card or a gift card; travel "
        "certificates aren't applicable here, and your gift cards are."
    )
    run.user(STOP)
    run.write(tmp_path)
    labels = label_run(tmp_path / run.name)
    assert (labels.t_s.step, labels.t_u.step, labels.adopted) == (used, used, True)


def test_category_verdict_applied_is_a_use(tmp_path: Path) -> None:
    cat_verdict_applied(tmp_path)


def _event(e: Any) -> int | str:
    return e.step if e.status == "found" else e.status


# A bare day of month that refers back to a date said earlier ("the 20th you mentioned") is
# that date: the capability the trailing-dots run above needed, in other phrasings.


def day_ref_like_you_said() -> tuple[RunBuilder, Expect]:
    run = _trip("day_ref_like_you_said")
    used = run.say(
        "The record has HAT290 returning 2024-05-18, which can't be right with the outbound "
        "on the 19th. Let's use the 20th, like you said."
    )
    run.user(STOP)
    return run, Expect(used, "never", False)


def day_ref_only_use() -> tuple[RunBuilder, Expect]:
    run = _trip("day_ref_only_use")
    used = run.say("Got it. I'll keep the 20th you mentioned and look at seats next.")
    run.user(STOP)
    return run, Expect(used, "never", False)


def day_ref_nothing_said() -> tuple[RunBuilder, Expect]:
    run = _trip("day_ref_nothing_said")
    run.say("Got it. I'll keep the 21st you mentioned and look at seats next.")
    run.user(STOP)
    return run, Expect("none", "never", False)


DAY_REFERENCES: list[Case] = [day_ref_like_you_said, day_ref_only_use, day_ref_nothing_said]


@pytest.mark.parametrize("case", DAY_REFERENCES, ids=lambda c: c.__name__)
def test_a_day_referring_back_is_the_date_said_earlier(case: Case, tmp_path: Path) -> None:
    expect, got = outcome(case, tmp_path)
    assert got == expect


def outcome(case: Case, root: Path) -> tuple[Expect, Expect]:
    """(expected, got) for one case."""
    run, expect = case()
    run.write(root)
    labels = label_run(root / run.name)
    adopted: bool | str = "undecidable" if labels.adopted is None else labels.adopted
    got = Expect(_event(labels.t_s), _event(labels.t_u), adopted, labels.y_end)
    return expect, got


# Cases the rules got wrong when the set was first scored, until a rule closes them
# (strict: a case that starts passing must leave this list).
BEFORE_RULES: frozenset[str] = frozenset()


def _params() -> list[object]:
    out: list[object] = []
    for cat, cases in CASES.items():
        for case in cases:
            marks = (
                [pytest.mark.xfail(strict=True, reason="not yet closed by a rule")]
                if case.__name__ in BEFORE_RULES
                else []
            )
            out.append(pytest.param(case, id=f"{cat}-{case.__name__}", marks=marks))
    return out


@pytest.mark.parametrize("case", _params())
def test_residual_case(case: Case, tmp_path: Path) -> None:
    expect, got = outcome(case, tmp_path)
    assert got == expect


def main() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for cat, cases in CASES.items():
            right = 0
            for case in cases:
                expect, got = outcome(case, Path(tmp))
                ok = got == expect
                right += ok
                print(f"  {'ok ' if ok else 'BAD'} {case.__name__}: expected {expect}, got {got}")
            print(f"{cat}: {right}/{len(cases)} runs fully right")


if __name__ == "__main__":
    main()
