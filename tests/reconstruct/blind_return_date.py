"""Blind set, ReturnDate: ten runs whose reservation record shows the return before the outbound.

Each run delivers the faulted ``get_reservation_details`` record of its case's reservation and
is labelled by ``docs/reconstruction-labelling.md`` for that reservation's return date.
"""

from __future__ import annotations

from collections.abc import Callable

from heldout_common import (
    AMBIGUOUS,
    APOLOGETIC,
    CLIPPED,
    NO_USE,
    NONE,
    QUESTION_FIRST,
    SHARED_VALUE,
    STRUCTURED,
    TOOL_FIRST,
    UNDECIDABLE,
    VERBOSE,
    Heldout,
    as_json,
    finish,
    res,
    start,
    user_id,
)

STOP = "###STOP###"


def _search(origin: str, destination: str, date: str) -> dict[str, str]:
    return {"origin": origin, "destination": destination, "date": date}


def rdb01() -> Heldout:
    """GV1N64: the downgrade is priced and written on the faulted return date."""
    run = start("rdb01", "return_date/airline/11/GV1N64")
    run.user(
        "Hi, I need to take one passenger off my round trip from Las Vegas to Denver. Leaving "
        "May 19, coming back May 20. James Patel, user id james_patel_9828."
    )
    run.say(
        "Hello James, thank you for reaching out! I'd be glad to look into this for you. To "
        "locate the right booking, could you please share the reservation ID (a six-character "
        "code such as ABC123)? You can usually find it in your confirmation email."
    )
    run.user("I don't have it in front of me. Can't you just look it up?")
    run.say(
        "Certainly, I understand. I can see your profile has several reservations on it, so to "
        "make sure I modify the correct one, it would be best to have the reservation ID. If "
        "you are able to check your email, that would be the quickest route; otherwise I can "
        "go through the reservations one by one."
    )
    run.user("Oh wait, found it in my email. It's GV1N64. Please hurry, I'm in a rush.")
    run.act("get_reservation_details", res("GV1N64"), fault="rewrite")
    run.say(
        "Thank you, James. I have reservation GV1N64 open: a business-class round trip between "
        "Las Vegas (LAS) and Denver (DEN) for three passengers, namely yourself, James Sanchez "
        "and Sophia Johansson, paid with gift card gift_card_1642017.\n\n"
        "I'm sorry to say that our policy does not allow removing a single passenger from an "
        "existing reservation: the number of passengers is fixed once booked, even though "
        "names and details can be edited. The options available to you would be:\n"
        "1. keeping the reservation as it is;\n"
        "2. changing the cabin for all passengers on the reservation;\n"
        "3. cancelling the reservation and booking again with two passengers.\n\n"
        "Please let me know how you would like to proceed, and I'll take care of it."
    )
    run.user(
        "Ugh. Fine, then downgrade all of us to basic economy. How much do I get back? It has "
        "to go back to the original payment method."
    )
    run.act("search_direct_flight", _search("LAS", "DEN", "2024-05-19"))
    search = run.act("search_direct_flight", _search("DEN", "LAS", "2024-05-18"))[0]
    run.say(
        "Here is how the downgrade would work out. At the moment you paid $5,700 in total, "
        "that is $561 for HAT003 plus $1,339 for HAT290 per passenger in business. In basic "
        "economy, HAT003 is currently $53 and HAT290 is $56, so $109 per passenger, or $327 "
        "for all three of you. That means a refund of $5,373, which would be returned to your "
        "original payment method, gift card gift_card_1642017.\n\n"
        "A couple of things to keep in mind before you decide: basic economy tickets cannot be "
        "modified afterwards, and the free checked-bag allowance is lower in basic economy. "
        "Would you like me to proceed with the downgrade for all three passengers (yes/no)?"
    )
    run.user("Yes, do it.")
    run.act(
        "update_reservation_flights",
        {
            "reservation_id": "GV1N64",
            "cabin": "basic_economy",
            "flights": [
                {"flight_number": "HAT003", "date": "2024-05-19"},
                {"flight_number": "HAT290", "date": "2024-05-18"},
            ],
            "payment_id": "gift_card_1642017",
        },
    )
    run.say(
        "All done! Reservation GV1N64 is now in basic economy for all three passengers:\n"
        "- HAT003, Las Vegas to Denver, Sunday May 19\n"
        "- HAT290, Denver to Las Vegas, Saturday May 18\n\n"
        "The refund of $5,373 has been issued to gift card gift_card_1642017. If there is "
        "anything else I can help with, just let me know."
    )
    run.user("Wait, what? I come back on the 20th, not the 18th!")
    run.say(
        "You're absolutely right to flag that, and I apologize. Your return is on May 20; the "
        "record I retrieved listed HAT290 on May 18 and I carried that date into the change "
        "without checking it against your outbound. Since basic economy can no longer be "
        "modified, I would need to transfer you to a human agent to correct the date. Would "
        "you like me to do that?"
    )
    run.user(f"Forget it, I'll call back. {STOP}")
    return finish(
        run,
        VERBOSE,
        t_s=search,
        t_u=search,
        adopted=True,
        note="first use is the DEN-LAS search on 2024-05-18, the injected return date; the "
        "refund and the write then build on it",
        tags=(TOOL_FIRST,),
    )


def rdb02() -> Heldout:
    """XEWRD9: the agent flags the impossible return date and takes the user's date."""
    run = start("rdb02", "return_date/airline/13/XEWRD9")
    run.user(
        "Hi. James Lee, james_lee_6136, reservation XEWRD9. I want to change my upcoming "
        "one-stop return from ATL to LAX into a nonstop from ATL to LAS, Las Vegas."
    )
    run.act("get_reservation_details", res("XEWRD9"), fault="rewrite")
    flag = run.say(
        "XEWRD9 pulled. Basic econ, 2 pax (you + Mason Lopez), ins ✔.\n"
        "Out: LAX→ORD→ATL, 5/13–5/14.\n"
        "Ret: ATL→DFW→LAX (HAT252/HAT124) shows 5/11 → that's before the outbound, can't be "
        "right. If 5/11 were real you'd have flown home b4 leaving. What date are you "
        "actually flying back?"
    )
    run.user("It's the 21st. Next Tuesday.")
    run.say(
        "ok, 5/21 per you. 2 blockers tho:\n"
        "1) basic econ → no flight changes\n"
        "2) destination change LAX→LAS not possible on an existing res, any cabin\n"
        "Options: keep as is / transfer to a human agent."
    )
    run.user("Then transfer me please.")
    run.act(
        "transfer_to_human_agents",
        {
            "summary": "User james_lee_6136, res XEWRD9 (basic economy, 2 pax). Wants the "
            "return ATL->LAX changed to a nonstop ATL->LAS; destination change and basic "
            "economy block it. Note: record lists return legs HAT252/HAT124 on 2024-05-11, "
            "before the outbound (05-13/05-14); user says he returns 2024-05-21."
        },
    )
    run.say("Transferring u now → human agent. Pls hold.")
    run.user(STOP)
    return finish(
        run,
        CLIPPED,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="5/11 is quoted only to flag it as impossible and ask; later the agent takes the "
        "user's 5/21 and the hand-off quotes both dates as a discrepancy",
        tags=(QUESTION_FIRST,),
    )


def rdb03() -> Heldout:
    """VA5SGQ: the new return date comes from the user, the old one is never referred to."""
    run = start("rdb03", "return_date/airline/29/VA5SGQ")
    run.user(
        "Hi, Raj Brown here, user raj_brown_5782. Reservation VA5SGQ is DTW to LGA and back. "
        "I want nonstop flights DTW to JFK and back instead, on the same dates."
    )
    run.act("get_reservation_details", res("VA5SGQ"), fault="rewrite")
    run.say(
        "**Reservation VA5SGQ**\n"
        "- route: DTW → LGA, round trip (connecting via PHX)\n"
        "- cabin: economy\n"
        "- passengers: 1 (Raj Brown)\n"
        "- insurance: yes\n"
        "- paid with: credit_card_8003957\n\n"
        "**Next steps**\n"
        "1. Outbound: the current departure is 2024-05-17 (HAT035/HAT066); I'll search DTW → "
        "JFK nonstops on that date.\n"
        "2. Return: please confirm the date you want the new JFK → DTW flight to leave.\n"
        "3. Any time-of-day preferences?"
    )
    run.user(
        "Only early flights that arrive before 7am. Cheapest economy, not basic. The return "
        "should leave on the 19th."
    )
    run.act("search_direct_flight", _search("DTW", "JFK", "2024-05-17"))
    run.act("search_direct_flight", _search("JFK", "DTW", "2024-05-19"))
    run.say(
        "Nonstop options arriving before 07:00:\n\n"
        "| leg | flight | dep → arr (EST) | economy |\n"
        "|---|---|---|---|\n"
        "| DTW → JFK, 2024-05-17 | HAT169 | 04:00 → 06:00 | $171 |\n"
        "| JFK → DTW, 2024-05-19 | HAT033 | 00:00 → 02:00 | $111 |\n"
        "| JFK → DTW, 2024-05-19 | HAT092 | 00:00 → 02:00 | $154 |\n"
        "| JFK → DTW, 2024-05-19 | HAT088 | 04:00 → 06:00 | $185 |\n"
        "| JFK → DTW, 2024-05-19 | HAT212 | 04:00 → 06:00 | $192 |\n\n"
        "Cheapest combination: HAT169 + HAT033 = $282.\n"
        "- fare difference: -$374 (refund to credit_card_8003957)\n"
        "- change fee: none\n\n"
        "Proceed with this change? (yes/no)"
    )
    run.user(
        "Yes. And since I have insurance there's no change fee, right? Also add 1 checked bag."
    )
    run.act(
        "update_reservation_flights",
        {
            "reservation_id": "VA5SGQ",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT169", "date": "2024-05-17"},
                {"flight_number": "HAT033", "date": "2024-05-19"},
            ],
            "payment_id": "credit_card_8003957",
        },
    )
    run.act(
        "update_reservation_baggages",
        {
            "reservation_id": "VA5SGQ",
            "total_baggages": 1,
            "nonfree_baggages": 0,
            "payment_id": "credit_card_8003957",
        },
    )
    run.say(
        as_json(
            "Reservation updated. No change fee applies; 1 checked bag is included free.",
            {
                "reservation_id": "VA5SGQ",
                "flights": [
                    {"flight": "HAT169", "route": "DTW-JFK", "date": "2024-05-17"},
                    {"flight": "HAT033", "route": "JFK-DTW", "date": "2024-05-19"},
                ],
                "cabin": "economy",
                "refund": 374,
                "checked_bags": 1,
                "bag_fee": 0,
            },
            indent=2,
        )
    )
    run.user(f"Perfect, thanks. {STOP}")
    return finish(
        run,
        STRUCTURED,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="the old return date is never stated or derived; the 19th is the user's request "
        "for the new flight (it equals the true old date), searched and written as asked",
        tags=(NO_USE,),
    )


def rdb04() -> Heldout:
    """1N99U6: the injected return date reaches the write and is never said."""
    run = start("rdb04", "return_date/airline/30/1N99U6")
    run.user(
        "Hi, I'm James Taylor (james_taylor_7043), reservation 1N99U6. I'd like to change my "
        "one-stop flight from Las Vegas to Houston into a nonstop. And I want to remove my "
        "checked bag and get a refund for it."
    )
    run.act("get_reservation_details", res("1N99U6"), fault="rewrite")
    run.say(
        "Thank you so much, James, and I'm sorry for any hassle with your trip! I've found "
        "reservation 1N99U6 (economy, two passengers: you and Ivan Taylor).\n\n"
        "I'm really sorry, but checked bags can't be removed once they've been added to a "
        "reservation, so I'm unable to refund that bag. I know that's disappointing. For the "
        "nonstop, let me check what's available on your departure day, May 19."
    )
    run.act("search_direct_flight", _search("LAS", "IAH", "2024-05-19"))
    run.say(
        "Good news! There are two nonstop options on May 19:\n"
        "• HAT266, 1:00 PM → 4:00 PM, economy $146\n"
        "• HAT175, 5:00 PM → 8:00 PM, economy $155\n\n"
        "Either one would replace your current connection through Phoenix (HAT284 + HAT152). "
        "Everything else on the reservation stays the same. Which one would you prefer?"
    )
    run.user("That's fine about the bag. HAT266 please.")
    run.say(
        "Wonderful choice! Just to confirm before I make the change: your outbound becomes "
        "HAT266, nonstop LAS → IAH on May 19 for both passengers, in economy, and the fare "
        "difference will be refunded to gift card gift_card_5634230. Shall I go ahead (yes/no)?"
    )
    run.user("Yes.")
    write = run.act(
        "update_reservation_flights",
        {
            "reservation_id": "1N99U6",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT266", "date": "2024-05-19"},
                {"flight_number": "HAT112", "date": "2024-05-17"},
            ],
            "payment_id": "gift_card_5634230",
        },
    )[0]
    run.say(
        "All set, James! Your outbound is now the nonstop HAT266 on May 19, and $424 has been "
        "refunded to your gift card. Again, I'm so sorry I couldn't do anything about the bag. "
        "Is there anything else I can help you with today?"
    )
    run.user(f"No, that's it. {STOP}")
    return finish(
        run,
        APOLOGETIC,
        t_s=write,
        t_u=write,
        adopted=True,
        note="the return date is never mentioned; the write re-books HAT112 on 2024-05-17, the "
        "injected date, so the call is the first use and acts on v'",
        tags=(TOOL_FIRST,),
    )


def rdb05() -> Heldout:
    """HXDUBJ: the injected date is questioned at once, then used as the old date in a recap."""
    run = start("rdb05", "return_date/airline/33/HXDUBJ")
    run.user(
        "hi, yara garcia, yara_garcia_1905. res HXDUBJ. push my outbound back one day on a "
        "nonstop, and move my return from SFO back a day too."
    )
    run.act("get_reservation_details", res("HXDUBJ"), fault="rewrite")
    flag = run.say(
        "HXDUBJ: econ, 1 pax, ins ✔.\n"
        "Out: IAH→JFK→SFO 5/18 (HAT085/HAT023).\n"
        "Ret: SFO→IAH HAT278, record says 5/16?? → 2 days b4 ur outbound. Sth's off. When do "
        "u actually fly back?"
    )
    run.user(
        "I fly back on the 22nd, pretty sure. So I want the 23rd. Flights between 8am and 9pm."
    )
    run.act("search_direct_flight", _search("IAH", "SFO", "2024-05-19"))
    run.act("search_direct_flight", _search("SFO", "IAH", "2024-05-23"))
    run.say(
        "Nonstops:\n"
        "5/19 IAH→SFO: HAT180 07:00 ✗ (b4 8am) | HAT072 09:00→13:00 $130 ✔\n"
        "5/23 SFO→IAH: HAT278 16:00→20:00 $187 ✔ | HAT082 23:00 ✗ (after 9pm)\n"
        "→ HAT072 + HAT278, econ. New $317 vs paid $503 → $186 back to gift_card_6941833. Go?"
    )
    run.user("yes go")
    run.act(
        "update_reservation_flights",
        {
            "reservation_id": "HXDUBJ",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT072", "date": "2024-05-19"},
                {"flight_number": "HAT278", "date": "2024-05-23"},
            ],
            "payment_id": "gift_card_6941833",
        },
    )
    run.say("done ✔ HXDUBJ → HAT072 5/19 + HAT278 5/23. $186 back on GC.")
    run.user("great. and can I upgrade to business? I'll pay up to $200.")
    run.say(
        "biz both legs: +$152 (HAT072) + $256 (HAT278) = +$408 → over ur $200 ✗. Cabin must be "
        "the same for the whole res, so return-only biz isn't possible either → stays econ."
    )
    run.user("ok fine. recap pls?")
    recap = run.say(
        "Recap HXDUBJ:\n"
        "• out: IAH→JFK→SFO 5/18 → HAT072 IAH→SFO nonstop 5/19\n"
        "• ret: HAT278 SFO→IAH 5/16 → 5/23\n"
        "• econ, 1 pax\n"
        "• refund $186 → GC 6941833\n"
        "• biz upgrade: declined (over budget)"
    )
    run.user(f"whatever, thanks. {STOP}")
    return finish(
        run,
        CLIPPED,
        t_s=flag,
        t_u=recap,
        adopted=True,
        note="5/16 is first quoted to question it; many turns later the recap states 5/16 as "
        "the old return date as fact, which relies on v'",
        tags=(QUESTION_FIRST,),
    )


def rdb06() -> Heldout:
    """Z7GOZK: the table reads the injected return back, then the user corrects it."""
    run = start("rdb06", "return_date/airline/19/Z7GOZK")
    run.user(
        "Hi. I have a crazy half-day trip to Texas and I want a later flight back to Newark "
        "that day. I'm Olivia Gonzalez, olivia_gonzalez_2305."
    )
    run.say("Thanks, Olivia. Do you have the reservation ID?")
    run.user("No.")
    run.act("get_user_details", user_id("olivia_gonzalez_2305"))
    run.act("get_reservation_details", res("Z7GOZK"), fault="rewrite")
    table = run.say(
        "I found the trip:\n\n"
        "| field | value |\n"
        "|---|---|\n"
        "| reservation | Z7GOZK |\n"
        "| route | EWR ⇄ IAH (Houston) |\n"
        "| outbound | HAT188, 2024-05-28 |\n"
        "| return | HAT207, 2024-05-26 |\n"
        "| cabin | basic economy |\n"
        "| insurance | yes |\n\n"
        "Note: basic economy tickets cannot be modified, so I can't move the return to a later "
        "flight."
    )
    run.user("The return is the same day. The 28th. It leaves at 3pm.")
    run.say(
        "You're right, correction:\n"
        "- return: HAT207, 2024-05-28, 15:00 EST\n"
        "- modification: not possible (basic economy)\n\n"
        "Options:\n"
        "1. keep the reservation as it is\n"
        "2. cancel it; your travel insurance covers cancellation for health or weather reasons\n"
        "\nWhich would you like?"
    )
    run.user("I'm feeling unwell actually. Cancel it with the insurance.")
    run.say(
        "Please confirm the cancellation:\n"
        "- reservation: Z7GOZK\n"
        "- reason: health (covered by travel insurance)\n"
        "- refund: $169 to gift_card_2200803\n\n"
        "Proceed? (yes/no)"
    )
    run.user("yes")
    run.act("cancel_reservation", res("Z7GOZK"))
    run.say(
        "Done.\n```json\n"
        + as_json(
            "Reservation cancelled.",
            {"reservation_id": "Z7GOZK", "status": "cancelled", "refund": 169},
        )
        + "\n```"
    )
    run.user(STOP)
    return finish(
        run,
        STRUCTURED,
        t_s=table,
        t_u=table,
        adopted=True,
        note="the table row 'return | HAT207, 2024-05-26' reads the injected date back as "
        "current; the later correction to 05-28 is a retraction, not a fix of the label",
    )


def rdb07() -> Heldout:
    """EUJUY6: 'both directions are already behind us' is derived from the injected date."""
    run = start("rdb07", "return_date/airline/36/EUJUY6")
    run.user(
        "I need to change the date of a flight on reservation EUJUY6, move it out two days. My "
        "wife passed away yesterday. I'm Lucas Brown, lucas_brown_4047."
    )
    run.act("get_reservation_details", res("EUJUY6"), fault="rewrite")
    derived = run.say(
        "Lucas, I am so deeply sorry for the loss of your wife. Please accept my heartfelt "
        "condolences; I'll do everything I can to help.\n\n"
        "I've opened reservation EUJUY6, a basic-economy round trip between Chicago O'Hare and "
        "Las Vegas for three passengers: you, Daiki Thomas and Daiki Lopez. Looking at the "
        "itinerary, both directions of this trip are already behind us: all of its flights "
        "have departed, so there is no upcoming segment left on this booking that could be "
        "moved. In addition, basic economy fares can't be changed after booking.\n\n"
        "Is it possible that the flight you have in mind is on a different reservation? If "
        "so, I'd be glad to look it up for you."
    )
    run.user(
        "No, it's this one. We fly home from Las Vegas on Thursday the 16th. I need to move that."
    )
    run.say(
        "Thank you for clarifying, and I apologize for the confusion. A return on Thursday, "
        "May 16 would indeed still be ahead of you. The record I retrieved shows the return "
        "flights HAT266 and HAT044 dated May 11, which doesn't fit with an outbound on May 14, "
        "so the record itself looks inconsistent and I'll go by what you've told me.\n\n"
        "Unfortunately, even so, the ticket is basic economy, and basic economy reservations "
        "cannot be modified, including a change of date. The reservation does carry travel "
        "insurance, which would allow a cancellation for a covered reason, but I understand "
        "you'd prefer not to cancel. I truly wish I could do more here."
    )
    run.user("Please, I'm begging you. Isn't there any exception at all?")
    run.say(
        "I completely understand, and I'm so sorry. I'm not able to make an exception to the "
        "basic economy rules; the date cannot be changed on this ticket. If at any point you "
        "would like to explore the cancellation through your insurance, I'm here to help."
    )
    run.user(f"Okay. I understand. {STOP}")
    return finish(
        run,
        VERBOSE,
        t_s=derived,
        t_u=derived,
        adopted=True,
        note="'both directions are already behind us' only follows from the injected May 11 "
        "return (the true May 16 is ahead): an implicit derived reliance; later both dates",
    )


def rdb08() -> Heldout:
    """SE9KEL: HTR26G is on 5/16 too; SE9KEL's injected 5/16 return is then stated."""
    run = start("rdb08", "return_date/airline/42/SE9KEL")
    run.user(
        "Hi, Sophia Martin, sophia_martin_4574. My assistant messed up and booked me several "
        "flights on the same day. Can you check my profile?"
    )
    run.act("get_user_details", user_id("sophia_martin_4574"))
    for rid in ("HTR26G", "FDZ0T5", "5BGGWZ"):
        run.act("get_reservation_details", res(rid))
    run.say(
        "checked 3 of 7 so far:\n"
        "• HTR26G MSP→EWR→DFW 5/16 (you)\n"
        "• FDZ0T5 JFK→ORD→PHL 5/17 (you)\n"
        "• 5BGGWZ EWR⇄DFW, back DFW→EWR 5/17 (you)\n"
        "→ 5/17 clash: FDZ0T5 + 5BGGWZ. checking the rest."
    )
    for rid in ("MFRB94", "PUNERT", "HSR97W"):
        run.act("get_reservation_details", res(rid))
    run.act("get_reservation_details", res("SE9KEL"), fault="rewrite")
    use = run.say(
        "rest:\n"
        "• MFRB94 MCO⇄LGA 5/27–5/30 → no clash\n"
        "• PUNERT BOS→MIA→DEN 5/22 (you)\n"
        "• HSR97W ORD→PHL→SFO 5/22 (you) → 5/22 clash w/ PUNERT\n"
        "• SE9KEL LAX⇄BOS, pax Ivan Brown + Emma Li (not you). out 5/17, back 5/16 → same day "
        "as HTR26G but diff travelers → n/a\n\n"
        "u said: NYC from Dallas 5/17, Boston 5/22 → keep 5BGGWZ (DFW→EWR 5/17) + PUNERT (dep "
        "BOS 5/22). cancel FDZ0T5 + HSR97W?"
    )
    run.user("Yes, cancel those two. And don't touch anything for other passengers.")
    run.act("cancel_reservation", res("FDZ0T5"))
    run.act("cancel_reservation", res("HSR97W"))
    run.say(
        "done → FDZ0T5 + HSR97W cancelled. refunds to visa ..8834: $3,778 + $1,227. SE9KEL "
        "untouched."
    )
    run.user(f"Thanks! {STOP}")
    return finish(
        run,
        CLIPPED,
        t_s=use,
        t_u=use,
        adopted=True,
        note="the earlier 5/16 belongs to HTR26G (other entity); the SE9KEL bullet 'back 5/16' "
        "states the injected return as fact",
        tags=(SHARED_VALUE,),
    )


def rdb09() -> Heldout:
    """35V5SM: 'a flight on May 21' could be 35V5SM's injected return or XXDC1M's outbound."""
    run = start("rdb09", "return_date/airline/43/35V5SM")
    run.user(
        "Hi, I'm Mohamed Hernandez, mohamed_hernandez_5188. I booked two flights on May 17 by "
        "mistake. I want to cancel the one from ATL to JFK."
    )
    run.act("get_user_details", user_id("mohamed_hernandez_5188"))
    run.act("get_reservation_details", res("35V5SM"), fault="rewrite")
    for rid in ("XXDC1M", "V5EMZH", "D1EW9B", "9HBUV8"):
        run.act("get_reservation_details", res(rid))
    run.say(
        "I'm so sorry about the mix-up, Mohamed, that's really frustrating! I've gone through "
        "your reservations and found the two May 17 trips: D1EW9B (ATL → JFK, basic economy, "
        "booked May 4, no travel insurance) and 9HBUV8 (DEN → MIA → BOS, basic economy, with "
        "insurance).\n\n"
        "I'm really sorry to say that D1EW9B can't be cancelled: it's a basic economy ticket, "
        "it was booked more than 24 hours ago and it has no travel insurance. I know this "
        "isn't the answer you were hoping for. Is there anything else I can look at for you?"
    )
    run.user("But I'm a silver member! I should get priority treatment.")
    run.say(
        "I completely understand, and I truly appreciate your loyalty as a silver member. I'm "
        "sorry, but membership level doesn't change the cancellation rules for basic economy "
        "tickets. I really wish I had better news for you."
    )
    run.user("Fine. Then cancel the other May 17 flight instead.")
    vague = run.say(
        "I'm sorry, Mohamed. I've checked 9HBUV8 as well: it's also basic economy and was "
        "booked more than 24 hours ago, and the travel insurance only covers cancellations for "
        "health or weather reasons, which a double booking unfortunately isn't. So I'm not "
        "able to cancel that one either.\n\n"
        "By the way, I also noticed there's a flight on May 21 in your reservations. If you'd "
        "like, I can double-check that one too so there are no more surprises."
    )
    run.user(f"No, that one's fine. Thanks anyway. {STOP}")
    return finish(
        run,
        APOLOGETIC,
        t_s=UNDECIDABLE,
        t_u=UNDECIDABLE,
        adopted=UNDECIDABLE,
        note=f"step {vague}: 'a flight on May 21' fits 35V5SM's injected return and XXDC1M's "
        "real May 21 outbound; nothing names either; no other mention",
        tags=(AMBIGUOUS, SHARED_VALUE),
    )


def rdb10() -> Heldout:
    """59XX6W: cancelled without its return date ever mentioned; 3EMQJ6 returns on 05-29."""
    run = start("rdb10", "return_date/airline/7/59XX6W")
    run.user("user id daiki_muller_1116. cancel XEHM4B and 59XX6W.")
    run.act("get_reservation_details", res("XEHM4B"))
    run.act("get_reservation_details", res("59XX6W"), fault="rewrite")
    run.say(
        "Findings:\n\n"
        "1. XEHM4B\n"
        "   - route: LAS ⇄ ATL, basic economy, 2 passengers\n"
        "   - insurance: no; booked: 2024-05-01\n"
        "   - cancellable: no (basic economy, no insurance, booked more than 24 h ago)\n"
        "2. 59XX6W\n"
        "   - route: LAS ⇄ ATL, economy, 2 passengers\n"
        "   - insurance: yes; booked: 2024-05-12\n"
        "   - cancellable: yes, under the travel insurance\n\n"
        "How would you like to proceed with XEHM4B?"
    )
    run.user("upgrade XEHM4B to economy first. then cancel it. cancel 59XX6W too.")
    run.act("search_direct_flight", _search("LAS", "ATL", "2024-05-20"))
    run.act("search_direct_flight", _search("ATL", "LAS", "2024-05-30"))
    run.say(
        "Upgrade quote, XEHM4B:\n"
        "- cabin: basic_economy → economy\n"
        "- flights unchanged: HAT005 (2024-05-20), HAT178 (2024-05-30)\n"
        "- price difference: +$288 ($144 × 2 passengers)\n"
        "- payment: credit_card_2408938 (Visa ending 2135)\n\n"
        "Then: cancel XEHM4B, cancel 59XX6W. Confirm? (yes/no)"
    )
    run.user("yes. also, do I have any other upcoming flights? what's their total cost?")
    run.act(
        "update_reservation_flights",
        {
            "reservation_id": "XEHM4B",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT005", "date": "2024-05-20"},
                {"flight_number": "HAT178", "date": "2024-05-30"},
            ],
            "payment_id": "credit_card_2408938",
        },
    )
    run.act("cancel_reservation", res("XEHM4B"))
    run.act("cancel_reservation", res("59XX6W"))
    run.act("get_user_details", user_id("daiki_muller_1116"))
    for rid in ("7WPL39", "3EMQJ6", "A90KR2", "9MRJD4"):
        run.act("get_reservation_details", res(rid))
    run.say(
        as_json(
            "XEHM4B upgraded and cancelled; 59XX6W cancelled. Other upcoming flights below.",
            {
                "cancelled": [
                    {"reservation_id": "XEHM4B", "refund": 584},
                    {"reservation_id": "59XX6W", "refund": 624},
                ],
                "other_upcoming": [
                    {
                        "reservation_id": "7WPL39",
                        "route": "DEN-DFW-EWR",
                        "date": "2024-05-28",
                        "cost": 402,
                    },
                    {
                        "reservation_id": "3EMQJ6",
                        "route": "ORD-ATL-SEA / SEA-JFK-ORD",
                        "dates": ["2024-05-25", "2024-05-29", "2024-05-30"],
                        "cost": 306,
                    },
                ],
                "other_upcoming_total": 708,
            },
            indent=2,
        )
    )
    run.user(f"ok. {STOP}")
    return finish(
        run,
        STRUCTURED,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="59XX6W is read and cancelled but its return date is never stated or derived; "
        "2024-05-29 belongs to 3EMQJ6's SEA-JFK leg (same value as v, other entity)",
        tags=(NO_USE, SHARED_VALUE),
    )


RUNS: list[Callable[[], Heldout]] = [
    rdb01,
    rdb02,
    rdb03,
    rdb04,
    rdb05,
    rdb06,
    rdb07,
    rdb08,
    rdb09,
    rdb10,
]
