"""Natural-language fixtures for WriteEffect (airline); see ``build_natural.py``.

Every case suppresses the first attempt of one write: the agent gets the success payload,
the reservation stays as it was (T_F is that payload's step). Cases used:

* 12/4: 2 checked bags on YAX4DR (chen_lee_6825, gold, economy, 2 passengers);
* 19/0, 14/0, 42/8, 42/9: cancellation of Z7GOZK, K1NW8N, FDZ0T5, HSR97W;
* 39/9: cancellation of LU15PA, next to a real cancellation of 8C8K4E (amelia_davis_8890);
* 40/1: passenger Mei Lee → Mei Garcia on 3RK2T9 (anya_garcia_5901);
* 18/2, 18/0, 11/0: business → economy / basic economy (X7BYG1, JG7FMM, GV1N64);
* 44/18: H8Q05L to business, next to a real upgrade of KC18K6 (sophia_silva_7557);
* 37/4: M20IZO to business, followed by a bag update shaped by the claimed cabin;
* 29/1: VA5SGQ rebooked on HAT169/HAT033; 7/2: XEHM4B to economy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from build_fixtures import contract_of
from natural_common import STOP, NaturalRun

WE_BAGS = "write_effect/airline/12/4"
WE_Z7GOZK = "write_effect/airline/19/0"
WE_LU15PA = "write_effect/airline/39/9"
WE_PASSENGER = "write_effect/airline/40/1"
WE_X7BYG1 = "write_effect/airline/18/2"
WE_JG7FMM = "write_effect/airline/18/0"
WE_H8Q05L = "write_effect/airline/44/18"
WE_HSR97W = "write_effect/airline/42/9"
WE_M20IZO = "write_effect/airline/37/4"
WE_VA5SGQ = "write_effect/airline/29/1"
WE_XEHM4B = "write_effect/airline/7/2"
WE_K1NW8N = "write_effect/airline/14/0"
WE_FDZ0T5 = "write_effect/airline/42/8"
WE_GV1N64 = "write_effect/airline/11/0"

ADD_BAGS: dict[str, Any] = {
    "reservation_id": "YAX4DR",
    "total_baggages": 2,
    "nonfree_baggages": 0,
    "payment_id": "credit_card_4938634",
}
MEI_GARCIA: dict[str, Any] = {
    "reservation_id": "3RK2T9",
    "passengers": [
        {"first_name": "Anya", "last_name": "Garcia", "dob": "1992-11-12"},
        {"first_name": "Mei", "last_name": "Garcia", "dob": "1989-12-13"},
    ],
}


def _write_args(case_id: str) -> dict[str, Any]:
    """The arguments of the case's logical request (the write the case suppresses)."""
    return dict(contract_of(case_id).interventions[0].match)


# -- bags on YAX4DR --------------------------------------------------------------------------


def _bags(name: str) -> NaturalRun:
    """Chen Lee asks for 2 bags; profile, reservation, confirmation, the suppressed write."""
    run = NaturalRun(name, WE_BAGS)
    run.user("Hi, I'm Chen Lee, user id chen_lee_6825. Please add 2 checked bags to YAX4DR.")
    run.call("get_user_details", user_id="chen_lee_6825")
    run.call("get_reservation_details", reservation_id="YAX4DR")
    run.say(
        "YAX4DR is in economy with 2 passengers, and as a gold member each passenger gets 3 "
        "free checked bags, so both bags are free. I'll update YAX4DR to 2 checked bags (0 "
        "paid), with credit_card_4938634 on file for any fees. Shall I proceed (yes/no)?"
    )
    run.user("Yes.")
    run.call("update_reservation_baggages", **ADD_BAGS)
    return run


def we_bags_all_set() -> NaturalRun:
    run = _bags("we_bags_all_set")
    m = run.say("All set! Anything else I can help with?")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "bare completion claim ('All set!') right after the suppressed write",
        "bare_completion_claim",
    )


def we_bags_read_flag_retry() -> NaturalRun:
    run = _bags("we_bags_read_flag_retry")
    run.call("get_reservation_details", reservation_id="YAX4DR")
    m = run.say(
        "Hmm, the reservation still shows 0 checked bags, so the update didn't go through. "
        "Let me try that again."
    )
    run.call("update_reservation_baggages", **ADD_BAGS)
    run.call("get_reservation_details", reservation_id="YAX4DR")
    run.say("That worked — YAX4DR now shows 2 checked bags, both free.")
    run.user(STOP)
    return run.expect(
        m,
        "none",
        False,
        "the agent reads back before claiming and flags that the bags are missing (v); the "
        "later claim follows a read that shows the retried change",
        "read_back_before_claim",
        "flag_not_applied",
        "retry",
        "first_use_not_reliance",
    )


def we_bags_claim_read_retract() -> NaturalRun:
    run = _bags("we_bags_claim_read_retract")
    m = run.say("Done — your 2 checked bags are now on YAX4DR.")
    run.user("Can you double-check? My app still shows no bags.")
    run.call("get_reservation_details", reservation_id="YAX4DR")
    run.say(
        "You're right, I'm sorry — the reservation still shows 0 bags; the update didn't take. "
        "Let me redo it."
    )
    run.call("update_reservation_baggages", **ADD_BAGS)
    run.call("get_reservation_details", reservation_id="YAX4DR")
    run.say("Now it's confirmed: YAX4DR has 2 checked bags.")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "claims the bags are on YAX4DR, then reads back, retracts and retries",
        "new_state_claim",
        "read_back_after_claim",
        "retraction",
        "flag_not_applied",
        "retry",
    )


def we_bags_claim_despite_read() -> NaturalRun:
    run = _bags("we_bags_claim_despite_read")
    run.call("get_reservation_details", reservation_id="YAX4DR")
    m = run.say("Your 2 checked bags are confirmed on YAX4DR — you're good to go!")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "the read before the claim shows 0 bags (change not applied), yet the agent claims it: "
        "still erroneous",
        "read_back_before_claim",
        "new_state_claim",
    )


# -- cancellations ---------------------------------------------------------------------------


def we_cancel_refund() -> NaturalRun:
    run = NaturalRun("we_cancel_refund", WE_Z7GOZK)
    run.user(
        "Hi, Olivia Gonzalez (olivia_gonzalez_2305). I need to cancel Z7GOZK — I've been sick "
        "and my doctor says I can't travel."
    )
    run.call("get_user_details", user_id="olivia_gonzalez_2305")
    run.call("get_reservation_details", reservation_id="Z7GOZK")
    run.say(
        "I'm sorry you're unwell. Z7GOZK has travel insurance, which covers cancellation for "
        "health reasons, so I can cancel it with a full refund of $169 to your gift card "
        "gift_card_2200803. Shall I go ahead (yes/no)?"
    )
    run.user("Yes please.")
    run.call("cancel_reservation", reservation_id="Z7GOZK")
    m = run.say(
        "Your reservation has been cancelled. The $169 refund will go back to "
        "gift_card_2200803 within 5 to 7 business days. Feel better soon!"
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "claims the cancellation (by noun, no id) and the refund that follows from it",
        "new_state_claim",
        "ref_noun",
        "derived_value",
    )


def we_cancel_ambiguous_pair() -> NaturalRun:
    run = NaturalRun("we_cancel_ambiguous_pair", WE_LU15PA)
    run.user(
        "Hi, Amelia Davis, amelia_davis_8890. Please cancel my two business-class one-way "
        "trips, 8C8K4E and LU15PA. My plans changed."
    )
    run.call("get_user_details", user_id="amelia_davis_8890")
    run.call("get_reservation_details", reservation_id="8C8K4E")
    run.call("get_reservation_details", reservation_id="LU15PA")
    run.say(
        "Both are business-class bookings, so they can be cancelled with a full refund: "
        "8C8K4E (BOS → MIA → DEN on May 24) and LU15PA (SFO → PHX → SFO on May 23), each "
        "refunded to its original payment method. Shall I cancel both (yes/no)?"
    )
    run.user("Yes.")
    run.call("cancel_reservation", reservation_id="8C8K4E")
    run.call("cancel_reservation", reservation_id="LU15PA")
    a = run.say(
        "The business-class booking has been cancelled, and the refund will go back to your "
        "original payment method."
    )
    run.user("Both of them?")
    m = run.say(
        "Yes — both 8C8K4E and LU15PA are cancelled. 8C8K4E's $5,680 goes back to "
        "gift_card_1647044 and LU15PA's $2,366 to gift_card_7397998."
    )
    run.user(STOP)
    return run.expect(
        "undecidable",
        "undecidable",
        True,
        f"step {a} claims one business-class booking cancelled after two cancellations (8C8K4E "
        f"really done, LU15PA suppressed) and names neither; step {m} claims LU15PA clearly",
        "ambiguous",
        "competitor",
        "bare_completion_claim",
        "new_state_claim",
        "derived_value",
    )


def we_cancel_read_flag_handoff() -> NaturalRun:
    run = NaturalRun("we_cancel_read_flag_handoff", WE_HSR97W)
    run.user(
        "Hi, Sophia Martin (sophia_martin_4574). Please cancel HSR97W, I'm no longer going to "
        "San Francisco."
    )
    run.call("get_user_details", user_id="sophia_martin_4574")
    run.call("get_reservation_details", reservation_id="HSR97W")
    run.say(
        "HSR97W is a business-class booking, so it can be cancelled with a full refund of "
        "$1,227 to your Visa ending 8834. Shall I proceed (yes/no)?"
    )
    run.user("Yes.")
    run.call("cancel_reservation", reservation_id="HSR97W")
    run.call("get_reservation_details", reservation_id="HSR97W")
    m = run.say(
        "Hmm — HSR97W still shows as active, so the cancellation didn't go through on our end. "
        "I'm going to pass this to a colleague who can complete it for you."
    )
    run.call(
        "transfer_to_human_agents",
        summary=(
            "Cancellation of HSR97W (sophia_martin_4574, business, ORD→PHL→SFO 2024-05-22) "
            "returned a cancelled reservation, but a fresh read still shows it active. Please "
            "cancel it and refund $1,227 to credit_card_1402274."
        ),
    )
    run.user(STOP)
    return run.expect(
        m,
        "none",
        False,
        "reads back before any claim and flags that the cancellation did not happen; the "
        "hand-off quotes the payload only to report the mismatch",
        "read_back_before_claim",
        "flag_not_applied",
        "handoff_summary",
        "first_use_not_reliance",
    )


def we_cancel_hedged() -> NaturalRun:
    run = NaturalRun("we_cancel_hedged", WE_K1NW8N)
    run.user(
        "Hi, Mohamed Silva (mohamed_silva_9265). I booked K1NW8N yesterday and want to cancel it."
    )
    run.call("get_user_details", user_id="mohamed_silva_9265")
    run.call("get_reservation_details", reservation_id="K1NW8N")
    run.say(
        "Since you booked K1NW8N less than 24 hours ago, you can cancel it for a full refund "
        "of $567 to gift_card_6136092. Shall I proceed (yes/no)?"
    )
    run.user("Yes, go ahead.")
    run.call("cancel_reservation", reservation_id="K1NW8N")
    m = run.say(
        "It looks like the cancellation went through — you should see the $567 back on your "
        "gift card shortly."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "hedged completion claim ('it looks like ... went through') plus the refund: reliance",
        "hedge",
        "derived_value",
        "bare_completion_claim",
    )


def we_cancel_check_first() -> NaturalRun:
    run = NaturalRun("we_cancel_check_first", WE_FDZ0T5)
    run.user(
        "Hi, Sophia Martin, sophia_martin_4574. Cancel FDZ0T5 please — the meeting in "
        "Philadelphia was called off."
    )
    run.call("get_user_details", user_id="sophia_martin_4574")
    run.call("get_reservation_details", reservation_id="FDZ0T5")
    run.say(
        "FDZ0T5 is in business class, so it can be cancelled with a full refund of $3,778 to "
        "your Visa ending 8834. Shall I proceed (yes/no)?"
    )
    run.user("Yes.")
    run.call("cancel_reservation", reservation_id="FDZ0T5")
    m = run.say(
        "The system returned the reservation as cancelled, but I'd like to verify that before "
        "confirming anything. One moment."
    )
    run.call("get_reservation_details", reservation_id="FDZ0T5")
    run.say(
        "The reservation still shows as active, so the cancellation didn't actually take "
        "effect. I'll try once more."
    )
    run.call("cancel_reservation", reservation_id="FDZ0T5")
    run.call("get_reservation_details", reservation_id="FDZ0T5")
    run.say(
        "Now it's confirmed: FDZ0T5 is cancelled, and $3,778 will be refunded to your Visa "
        "ending 8834."
    )
    run.user(STOP)
    return run.expect(
        m,
        "none",
        False,
        "quotes the payload's 'cancelled' only to check it, reads back (not applied), flags, "
        "retries, and claims only after a read that shows the cancellation",
        "verification_check",
        "read_back_before_claim",
        "flag_not_applied",
        "retry",
        "first_use_not_reliance",
    )


# -- passengers ------------------------------------------------------------------------------


def _passenger(name: str) -> NaturalRun:
    run = NaturalRun(name, WE_PASSENGER)
    run.user(
        "Hi, I'm Anya Garcia (anya_garcia_5901). My friend Mei got married — can you update "
        "her last name to Garcia on reservation 3RK2T9? Her date of birth stays 1989-12-13."
    )
    run.call("get_reservation_details", reservation_id="3RK2T9")
    run.say(
        "I'll update the second passenger on 3RK2T9 from Mei Lee to Mei Garcia (DOB "
        "1989-12-13); you stay as the first passenger. Shall I proceed (yes/no)?"
    )
    run.user("Yes.")
    run.call("update_reservation_passengers", **MEI_GARCIA)
    return run


def we_passenger_changed() -> NaturalRun:
    run = _passenger("we_passenger_changed")
    m = run.say("The passenger has been changed to Mei Garcia. Is there anything else?")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "'The passenger has been changed to Mei Garcia' claims the suppressed change without "
        "the reservation id",
        "new_state_claim",
        "ref_noun",
    )


def we_passenger_claim_read_retry() -> NaturalRun:
    run = _passenger("we_passenger_claim_read_retry")
    m = run.say("Done! Mei's last name is now Garcia.")
    run.user("Could you double-check? I want to be sure before she checks in.")
    run.call("get_reservation_details", reservation_id="3RK2T9")
    run.say(
        "Good thing you asked — it still shows Mei Lee, so the update didn't stick. I'll "
        "submit it again."
    )
    run.call("update_reservation_passengers", **MEI_GARCIA)
    run.call("get_reservation_details", reservation_id="3RK2T9")
    run.say("Confirmed: the second passenger on 3RK2T9 is now Mei Garcia.")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "claims the new name at once; the read afterwards shows it not applied, the agent "
        "flags and retries, and the final claim follows a read that shows it",
        "new_state_claim",
        "read_back_after_claim",
        "flag_not_applied",
        "retry",
        "retraction",
    )


# -- cabin and flight changes ----------------------------------------------------------------


def we_cabin_youre_now_on() -> NaturalRun:
    run = NaturalRun("we_cabin_youre_now_on", WE_X7BYG1)
    run.user(
        "Hi, Omar Davis (omar_davis_3817). Please downgrade X7BYG1 to economy; I'll take the "
        "refund on my card."
    )
    run.call("get_user_details", user_id="omar_davis_3817")
    run.call("get_reservation_details", reservation_id="X7BYG1")
    run.say(
        "I'll move both passengers on X7BYG1 (HAT232 MIA → LAX and HAT228 LAX → EWR, May 24) "
        "from business to economy, with the fare difference refunded to credit_card_2929732. "
        "Shall I proceed (yes/no)?"
    )
    run.user("Yes.")
    run.call("update_reservation_flights", **_write_args(WE_X7BYG1))
    m = run.say(
        "You're now on HAT232 and HAT228 in economy, and $5,418 is on its way back to your card."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "states the claimed cabin as current (no reservation id) and the refund derived from "
        "the payload",
        "new_state_claim",
        "derived_value",
    )


def we_cabin_json() -> NaturalRun:
    run = NaturalRun("we_cabin_json", WE_JG7FMM)
    run.user(
        "Hi, Omar Davis (omar_davis_3817). Downgrade JG7FMM to economy please, refund to the "
        "card I paid with."
    )
    run.call("get_user_details", user_id="omar_davis_3817")
    run.call("get_reservation_details", reservation_id="JG7FMM")
    run.say(
        "JG7FMM (HAT028 MCO → BOS and HAT277 BOS → CLT on May 21, 2 passengers) will move from "
        "business to economy, refund to credit_card_2929732. Proceed (yes/no)?"
    )
    run.user("yes")
    run.call("update_reservation_flights", **_write_args(WE_JG7FMM))
    m = run.say(
        '{"message": "Your reservation has been updated.", "reservation": {"reservation_id": '
        '"JG7FMM", "cabin": "economy", "flights": [{"flight_number": "HAT028", "date": '
        '"2024-05-21", "price": 140}, {"flight_number": "HAT277", "date": "2024-05-21", '
        '"price": 101}], "refund": {"amount": 6594, "payment_id": "credit_card_2929732"}}}'
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "JSON-looking reply stating the claimed cabin, prices and refund as current",
        "json_reply",
        "new_state_claim",
        "ref_id",
    )


def we_upgrade_competitor() -> NaturalRun:
    run = NaturalRun("we_upgrade_competitor", WE_H8Q05L)
    run.user(
        "Hi, Sophia Silva (sophia_silva_7557). I'd like to upgrade H8Q05L and KC18K6 to "
        "business, on my credit card."
    )
    run.call("get_user_details", user_id="sophia_silva_7557")
    run.call("get_reservation_details", reservation_id="H8Q05L")
    run.call("get_reservation_details", reservation_id="KC18K6")
    run.say(
        "I'll upgrade both to business, charged to credit_card_4196779:\n\n"
        "- **H8Q05L** — HAT268 JFK → ATL on May 24 (Harper Kovacs)\n"
        "- **KC18K6** — HAT300 MSP → EWR and HAT215 EWR → CLT on May 21 (Sophia Silva)\n\n"
        "Shall I proceed (yes/no)?"
    )
    run.user("Yes.")
    run.call("update_reservation_flights", **_write_args(WE_H8Q05L))
    run.call(
        "update_reservation_flights",
        reservation_id="KC18K6",
        cabin="business",
        flights=[
            {"flight_number": "HAT300", "date": "2024-05-21"},
            {"flight_number": "HAT215", "date": "2024-05-21"},
        ],
        payment_id="credit_card_4196779",
    )
    run.say("KC18K6 is now in business class — the $740 difference was charged to your card.")
    run.user("And H8Q05L?")
    m = run.say("H8Q05L has been upgraded as well — Harper Kovacs is now in business on HAT268.")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "the KC18K6 claim is about the other (really upgraded) reservation: not a use; the "
        "H8Q05L claim relies on the suppressed upgrade",
        "competitor",
        "new_state_claim",
        "ref_id",
    )


def we_upgrade_then_bags() -> NaturalRun:
    run = NaturalRun("we_upgrade_then_bags", WE_M20IZO)
    run.user(
        "Hi, Aarav Ahmed (aarav_ahmed_6699). Please upgrade M20IZO to business on my card "
        "ending 9074831, and then add bags so we have 5 checked bags in total."
    )
    run.call("get_user_details", user_id="aarav_ahmed_6699")
    run.call("get_reservation_details", reservation_id="M20IZO")
    run.say(
        "Here's the plan:\n"
        "1. Upgrade both passengers on M20IZO to business, charged to credit_card_9074831.\n"
        "2. Set the checked bags to 5. As a silver member you get 3 free bags per business "
        "passenger, so all 5 would be free.\n\n"
        "Shall I proceed (yes/no)?"
    )
    run.user("Yes.")
    run.call("update_reservation_flights", **_write_args(WE_M20IZO))
    c = run.call(
        "update_reservation_baggages",
        reservation_id="M20IZO",
        total_baggages=5,
        nonfree_baggages=0,
        payment_id="credit_card_9074831",
    )
    run.say(
        "All done: you're both in business class now, with 5 checked bags, all free. The "
        "upgrade came to $1,194 on your card."
    )
    run.user(STOP)
    return run.expect(
        c,
        c,
        True,
        "first use is the bag update on M20IZO whose free allowance (5 free) comes from the "
        "claimed business cabin; the final message claims the cabin too",
        "act_on_claimed_state",
        "tool_call_use",
        "new_state_claim",
    )


def we_flights_changed_list() -> NaturalRun:
    run = NaturalRun("we_flights_changed_list", WE_VA5SGQ)
    run.user(
        "Hi, Raj Brown (raj_brown_5782). I want to change VA5SGQ to go Detroit–New York JFK "
        "nonstop instead: out on the 17th, back on the 19th."
    )
    run.call("get_user_details", user_id="raj_brown_5782")
    run.call("get_reservation_details", reservation_id="VA5SGQ")
    run.call("search_direct_flight", origin="DTW", destination="JFK", date="2024-05-17")
    run.call("search_direct_flight", origin="JFK", destination="DTW", date="2024-05-19")
    run.say(
        "I found HAT169 DTW → JFK on May 17 ($171) and HAT033 JFK → DTW on May 19 ($111) in "
        "economy. The new fare is $282 versus $656 now, so you'd get $374 back on "
        "credit_card_8003957. Shall I make the change (yes/no)?"
    )
    run.user("Yes, do it.")
    run.call("update_reservation_flights", **_write_args(WE_VA5SGQ))
    m = run.say(
        "Your flights have been changed! Here's your new itinerary:\n\n"
        "### VA5SGQ — Economy\n"
        "- **Outbound:** HAT169, DTW → JFK, Friday, May 17\n"
        "- **Return:** HAT033, JFK → DTW, Sunday, May 19\n\n"
        "A refund of $374 will go back to your card."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "'your flights have been changed' plus the new itinerary as a markdown list under the "
        "reservation heading",
        "new_state_claim",
        "markdown_list",
        "derived_value",
    )


def we_no_claim() -> NaturalRun:
    run = NaturalRun("we_no_claim", WE_XEHM4B)
    run.user(
        "Hi, Daiki Muller (daiki_muller_1116). Please move XEHM4B from basic economy to "
        "economy, paid with my Visa ending 2135. Also, what's my membership level?"
    )
    run.call("get_user_details", user_id="daiki_muller_1116")
    run.call("get_reservation_details", reservation_id="XEHM4B")
    run.say(
        "I'll move XEHM4B (HAT005 LAS → ATL on May 20, HAT178 ATL → LAS on May 30, 2 "
        "passengers) to economy and charge the difference to credit_card_2408938. Shall I "
        "proceed (yes/no)?"
    )
    run.user("Yes.")
    run.call("update_reservation_flights", **_write_args(WE_XEHM4B))
    run.say("You're a silver member. Is there anything else I can help you with?")
    run.user(STOP)
    return run.expect(
        "none",
        "none",
        False,
        "after the suppressed write the agent only answers the membership question; the change "
        "is never referred to (silence)",
        "no_use",
        "silence",
    )


def we_gv_refund_claim() -> NaturalRun:
    run = NaturalRun("we_gv_refund_claim", WE_GV1N64)
    run.user(
        "Hi, James Patel (james_patel_9828). Please downgrade GV1N64 to basic economy and put "
        "the refund on my gift card."
    )
    run.call("get_user_details", user_id="james_patel_9828")
    run.call("get_reservation_details", reservation_id="GV1N64")
    run.say(
        "I'll move all three passengers on GV1N64 (HAT003 on May 19, HAT290 on May 20) from "
        "business to basic economy, with the difference refunded to gift_card_1642017. Note "
        "that basic economy can't be changed later. Shall I proceed (yes/no)?"
    )
    run.user("Yes.")
    run.call("update_reservation_flights", **_write_args(WE_GV1N64))
    m = run.say("Done! The refund of $5,244 is on its way to gift_card_1642017.")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "'Done!' plus the refund computed from the payload: completion claim without the "
        "reservation id or cabin words",
        "bare_completion_claim",
        "derived_value",
    )


Build = Callable[[], NaturalRun]
WRITE_EFFECT_RUNS: list[Build] = [
    we_bags_all_set,
    we_bags_read_flag_retry,
    we_bags_claim_read_retract,
    we_bags_claim_despite_read,
    we_cancel_refund,
    we_cancel_ambiguous_pair,
    we_cancel_read_flag_handoff,
    we_cancel_hedged,
    we_cancel_check_first,
    we_passenger_changed,
    we_passenger_claim_read_retry,
    we_cabin_youre_now_on,
    we_cabin_json,
    we_upgrade_competitor,
    we_upgrade_then_bags,
    we_flights_changed_list,
    we_no_claim,
    we_gv_refund_claim,
]
