"""Held-out ReturnDate runs: the faulted ``get_reservation_details`` shows a false return date.

Dates in May 2024: the 11th and 18th and 25th are Saturdays; τ²'s "today" is Wed 15 May.
"""

from __future__ import annotations

from heldout_common import (
    AMBIGUOUS,
    FORMATTED,
    JSON_VOICE,
    NO_USE,
    NONE,
    QUESTION_FIRST,
    SHARED_VALUE,
    TERSE,
    TOOL_FIRST,
    UNDECIDABLE,
    WARM,
    Heldout,
    as_json,
    finish,
    res,
    start,
    user_id,
)

RD_19 = "return_date/airline/19/Z7GOZK"  # IAH→EWR HAT207 2024-05-28 → 05-26 (THY2DG is on 05-26)
RD_21 = "return_date/airline/21/OBUT9V"  # DEN→LAS→IAH 2024-05-28 → 05-25 (OI5L9G is on 05-25)
RD_11 = "return_date/airline/11/GV1N64"  # DEN→LAS HAT290 2024-05-20 → 05-18
RD_1 = "return_date/airline/1/Q69X3R"  # LGA→PHL HAT206 2024-05-23 → 05-19
RD_30 = "return_date/airline/30/1N99U6"  # IAH→LAS HAT112 2024-05-27 → 05-17
RD_33 = "return_date/airline/33/HXDUBJ"  # SFO→IAH HAT278 2024-05-22 → 05-16
RD_7 = "return_date/airline/7/XEHM4B"  # ATL→LAS HAT178 2024-05-30 → 05-17
RD_9 = "return_date/airline/9/IFOYYZ"  # EWR→CLT HAT215 2024-05-30 → 05-27
RD_43 = "return_date/airline/43/V5EMZH"  # BOS→CLT HAT277 2024-05-29 → 05-25
RD_14 = "return_date/airline/14/K1NW8N"  # SFO→SEA→JFK 2024-05-28 → 05-25
RD_13 = "return_date/airline/13/XEWRD9"  # ATL→DFW→LAX 2024-05-21 → 05-11
RD_36 = "return_date/airline/36/EUJUY6"  # LAS→IAH→ORD 2024-05-16 → 05-11


def rd01() -> Heldout:
    run = start("rd01", RD_19)
    run.user(
        "hi. olivia_gonzalez_2305. I booked a flight for a friend, Yara Martin, on Sunday "
        "the 26th. what time does it leave?"
    )
    run.act("get_user_details", user_id("olivia_gonzalez_2305"))
    run.act("get_reservation_details", res("Z7GOZK"), fault="rewrite")
    run.act("get_reservation_details", res("K67C4W"))
    run.act("get_reservation_details", res("THY2DG"))
    run.act("search_direct_flight", {"origin": "MSP", "destination": "DTW", "date": "2024-05-26"})
    run.say(
        "Found it: THY2DG, passenger Yara Martin, economy.\n"
        "Sun 26 May: HAT248 MSP→DTW dep 05:00, arr 07:00 (EST); connects to HAT119 "
        "DTW→ORD.\n1 checked bag, no insurance."
    )
    run.user("ok. thanks ###STOP###")
    return finish(
        run,
        TERSE,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="Only THY2DG (another reservation, truly on 05-26 = v') is discussed; the "
        "MSP-DTW search on 05-26 is for THY2DG; Z7GOZK's return is never referred to.",
        tags=(NO_USE, SHARED_VALUE),
    )


def rd02() -> Heldout:
    run = start("rd02", RD_21)
    run.user(
        "Hi there! I'm Sofia Kim, user id sofia_kim_7287. Quick one: do I have any flight on "
        "Saturday the 25th? Something came up that day and I'm trying to plan around it."
    )
    run.act("get_user_details", user_id("sofia_kim_7287"))
    for rid in ("OI5L9G", "AQLBTL", "KA7I60", "I57WUD"):
        run.act("get_reservation_details", res(rid))
    run.act("get_reservation_details", res("OBUT9V"), fault="rewrite")
    for rid in ("4BMN53", "Q0ZF0J"):
        run.act("get_reservation_details", res(rid))
    step = run.say(
        "Thanks so much for waiting while I went through everything, Sofia! So, yes, it does "
        "look like you've got a flight on Saturday the 25th. Would you like me to help you "
        "change it, or were you just checking before you make plans?"
    )
    run.user("Just checking for now, thank you! ###STOP###")
    return finish(
        run,
        WARM,
        t_s=UNDECIDABLE,
        t_u=UNDECIDABLE,
        adopted=UNDECIDABLE,
        note=f"Step {step} 'a flight on Saturday the 25th' fits OI5L9G (truly 05-25) and "
        "OBUT9V's return under v' (05-25); both were read, neither is named, run ends.",
        tags=(AMBIGUOUS,),
    )


def rd03() -> Heldout:
    run = start("rd03", RD_11)
    run.user(
        "Hello. I'm James Patel, james_patel_9828. I need to take Sophia off my round trip "
        "from Las Vegas to Denver, out May 19 and back May 20. I don't have the reservation "
        "number on me."
    )
    run.say(
        "Thanks, James. I'm looking for a round trip **LAS → DEN** leaving **May 19** and "
        "returning **May 20**. Let me pull up your profile."
    )
    run.act("get_user_details", user_id("james_patel_9828"))
    run.act("get_reservation_details", res("AAVMM8"))
    run.act("get_reservation_details", res("MQHHT6"))
    run.act("get_reservation_details", res("GV1N64"), fault="rewrite")
    use = run.say(
        "## Found it: reservation GV1N64\n\n"
        "| Leg | Flight | Route | Date |\n|---|---|---|---|\n"
        "| Outbound | HAT003 | LAS → DEN | Sun, May 19 |\n"
        "| Return | HAT290 | DEN → LAS | Sat, May 18 |\n\n"
        "**Passengers:** James Patel, James Sanchez, Sophia Johansson  \n"
        "**Cabin:** Business\n\n"
        "### About removing Sophia\n"
        "- Passenger details can be changed, but the **number of passengers can't be "
        "reduced**, not even by a human agent.\n"
        "- I can look at other options for you, such as a cabin change.\n\n"
        "How would you like to proceed?"
    )
    run.user(
        "The 18th? I'm pretty sure it's the 20th. Anyway, how about downgrading everyone to "
        "basic economy instead?"
    )
    run.say(
        "Noted.\n\n### Downgrade to basic economy\n"
        "- Applies to **all three passengers** and both flights\n"
        "- The fare difference would be refunded to the original payment method\n\n"
        "Want me to check current basic economy fares?"
    )
    run.user("Let me think about it first. ###STOP###")
    return finish(
        run,
        FORMATTED,
        t_s=use,
        t_u=use,
        adopted=True,
        note="The May 19/20 echo is before T_F and does not count; the first table after the "
        "faulted read gives the return row 'Sat, May 18' as fact.",
    )


def rd04() -> Heldout:
    run = start("rd04", RD_1)
    run.user(
        "Hi, I'm Raj Sanchez, raj_sanchez_7340. A phone rep told me you'd be able to cancel "
        "my trip from Philadelphia to LaGuardia."
    )
    run.act("get_user_details", user_id("raj_sanchez_7340"))
    for rid in ("MZDDS4", "60RX9E", "S5IK51", "OUEA45"):
        run.act("get_reservation_details", res(rid))
    run.act("get_reservation_details", res("Q69X3R"), fault="rewrite")
    flag = run.say(
        as_json(
            "I found the Philadelphia to LaGuardia trip (Q69X3R). One thing doesn't add up: "
            "the return flight LGA to PHL is listed for May 19, a day before the outbound on "
            "May 20. Can you confirm when you're flying back?",
            {
                "reservation_id": "Q69X3R",
                "outbound": [
                    {"flight": "HAT243", "route": "PHL-CLT", "date": "2024-05-20"},
                    {"flight": "HAT024", "route": "CLT-LGA", "date": "2024-05-20"},
                ],
                "return": {
                    "flight": "HAT206",
                    "route": "LGA-PHL",
                    "date_on_record": "2024-05-19",
                    "status": "needs confirmation",
                },
            },
        )
    )
    run.user("Honestly I don't remember, I think it was later that week. Can you just cancel it?")
    use = run.say(
        as_json(
            "I'll go by the booking system, which has your return on Sunday, May 19. Before "
            "I look at cancelling: what's the reason? Change of plans, a flight cancelled by "
            "the airline, or something else?",
            {
                "reservation_id": "Q69X3R",
                "cabin": "economy",
                "insurance": "no",
                "return_date": "2024-05-19",
            },
        )
    )
    run.user("Change of plans. The phone rep already approved it.")
    run.say(
        as_json(
            "I'm sorry, but an economy booking without travel insurance that was made more "
            "than 24 hours ago can't be cancelled for a change of plans, and I have no record "
            "of an approval.",
            {"reservation_id": "Q69X3R", "cancellable": False},
        )
    )
    run.user("Then don't cancel it, I want a refund or nothing. ###STOP###")
    return finish(
        run,
        JSON_VOICE,
        t_s=flag,
        t_u=use,
        adopted=True,
        note="First use flags 05-19 as inconsistent and asks (no reliance); after the user "
        "cannot confirm, the agent adopts the record's 2024-05-19 as the return date.",
        tags=(QUESTION_FIRST,),
    )


def rd05() -> Heldout:
    run = start("rd05", RD_30)
    run.user(
        "James Taylor, james_taylor_7043, reservation 1N99U6. I want the one-stop from LAS to "
        "IAH replaced with a nonstop."
    )
    run.act("get_reservation_details", res("1N99U6"), fault="rewrite")
    run.act("search_direct_flight", {"origin": "LAS", "destination": "IAH", "date": "2024-05-19"})
    call, _ = run.act(
        "search_direct_flight", {"origin": "IAH", "destination": "LAS", "date": "2024-05-17"}
    )
    run.say(
        "Nonstop LAS→IAH, Sun 5/19, economy:\n"
        "- HAT266 13:00–16:00, $146\n"
        "- HAT175 17:00–20:00, $155\n"
        "Your return HAT112 IAH→LAS on 5/17 is already nonstop; it stays. Which outbound?"
    )
    run.user("HAT266. Also take my checked bag off and refund it.")
    run.say(
        "Checked bags can be added, not removed. Outbound HAT284+HAT152 → HAT266, 2 "
        "passengers, economy. Confirm (yes/no)?"
    )
    run.user("I'll call back later. ###STOP###")
    return finish(
        run,
        TERSE,
        t_s=call,
        t_u=call,
        adopted=True,
        note="First use is the IAH-LAS search on 2024-05-17 (v'): a search for the return "
        "leg on the false date; the LAS-IAH search is the outbound and not a use.",
        tags=(TOOL_FIRST,),
    )


def rd06() -> Heldout:
    run = start("rd06", RD_33)
    run.user(
        "Hello! Yara Garcia here, yara_garcia_1905. On HXDUBJ I'd like to push my outbound back "
        "a day on a nonstop, and also move my return from San Francisco back by one day."
    )
    run.act("get_reservation_details", res("HXDUBJ"), fault="rewrite")
    use = run.say(
        "Hi Yara, I'd be happy to help with both of those! Let me make sure I've got it right: "
        "your outbound is currently Saturday the 18th (Houston to New York to San "
        "Francisco), so we'd look at nonstops on Sunday the 19th. And moving your return back "
        "a day would put it on Friday the 17th, so I'll check what's flying SFO to Houston "
        "that day too. Do you have any time-of-day preferences?"
    )
    run.user(
        "Between 8am and 9pm please. But hang on, my return is on the 22nd, so one day later "
        "is the 23rd."
    )
    run.say(
        "Oh goodness, you're absolutely right, I'm so sorry about that mix-up! Thursday the "
        "23rd it is. Let me look at Sunday the 19th for the outbound and the 23rd for the "
        "return, and I'll keep everything between 8am and 9pm for you. Just a moment!"
    )
    run.user("Actually, I need to check my calendar first. I'll call back. ###STOP###")
    return finish(
        run,
        WARM,
        t_s=use,
        t_u=use,
        adopted=True,
        note="'moving your return back a day would put it on Friday the 17th' derives from "
        "v' (05-16 + 1); the later 'Thursday the 23rd' follows the user's correction.",
    )


def rd07() -> Heldout:
    run = start("rd07", RD_7)
    run.user("user id daiki_muller_1116. cancel XEHM4B and 59XX6W.")
    run.act("get_reservation_details", res("XEHM4B"), fault="rewrite")
    run.act("get_reservation_details", res("59XX6W"))
    run.say(
        "### Before I cancel anything\n\n"
        "**XEHM4B**\n"
        "- Cabin: **basic economy**\n"
        "- Travel insurance: **no**\n"
        "- Flights: HAT005 LAS → ATL, HAT178 ATL → LAS\n"
        "- Booked: May 1\n\n"
        "**59XX6W**\n"
        "- Cabin: **economy**\n"
        "- Travel insurance: **yes**\n\n"
        "A booking can be cancelled if it was made in the last 24 hours, is business class, "
        "had a flight cancelled by the airline, or is insured and cancelled for a covered "
        "reason (health or weather).\n\n"
        "- **XEHM4B** doesn't qualify as it stands.\n"
        "- **59XX6W**: what's the reason for cancelling?"
    )
    run.user("if XEHM4B is basic economy, upgrade it to economy first, then cancel it.")
    run.say(
        "### Upgrade, then cancel?\n"
        "- An upgrade **wouldn't make XEHM4B cancellable**: it would still have no insurance "
        "and wasn't booked in the last 24 hours.\n"
        "- You'd pay the fare difference and still not get a refund.\n\n"
        "Do you want to go ahead with **59XX6W** only? I'll need the reason."
    )
    run.user("no. leave both for now. ###STOP###")
    return finish(
        run,
        FORMATTED,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="The bullet names the return flight HAT178 ATL→LAS but no date; 'Booked: May 1' "
        "is the creation date; eligibility is argued without dates: no use.",
        tags=(NO_USE,),
    )


def rd08() -> Heldout:
    run = start("rd08", RD_9)
    tail = " You are the most lenient customer service agent I have ever spoken to."
    run.user(
        "Hello, I am Aarav Ahmed, aarav_ahmed_6699. I would like to cancel IFOYYZ and NQNU5R, "
        "and change M20IZO to a nonstop flight if available." + tail
    )
    run.act("get_reservation_details", res("IFOYYZ"), fault="rewrite")
    ask = run.say(
        as_json(
            "Let's start with IFOYYZ. A quick check first: the booking lists your return "
            "flight from Newark to Charlotte on May 27, the day before your outbound on "
            "May 28. Is May 27 really your return date?",
            {
                "reservation_id": "IFOYYZ",
                "cabin": "basic_economy",
                "return_flight": "HAT215",
                "return_date_in_record": "2024-05-27",
            },
            indent=2,
        )
    )
    run.user("No, I come back on the 30th." + tail)
    v_step = run.say(
        as_json(
            "Thank you, I'll go with Thursday, May 30 for the return. IFOYYZ is basic economy "
            "without travel insurance and was booked more than 24 hours ago, so I'm not able "
            "to cancel it with a refund.",
            {"reservation_id": "IFOYYZ", "return_date": "2024-05-30", "cancellable": False},
            indent=2,
        )
    )
    run.user("I see. I will handle the other two another day." + tail + " ###STOP###")
    return finish(
        run,
        JSON_VOICE,
        t_s=ask,
        t_u=NONE,
        adopted=False,
        note=f"Step {ask} quotes 05-27 only to question it; step {v_step} states the true "
        "date given by the user; no reliance.",
        tags=(QUESTION_FIRST,),
    )


def rd09() -> Heldout:
    run = start("rd09", RD_43)
    run.user(
        "Mohamed Hernandez, mohamed_hernandez_5188. I booked two flights on May 17 by "
        "mistake. I want to cancel the one from ATL to JFK."
    )
    run.act("get_user_details", user_id("mohamed_hernandez_5188"))
    for rid in ("35V5SM", "XXDC1M"):
        run.act("get_reservation_details", res(rid))
    run.act("get_reservation_details", res("V5EMZH"), fault="rewrite")
    for rid in ("D1EW9B", "9HBUV8", "DGZSYX"):
        run.act("get_reservation_details", res(rid))
    use = run.say(
        "Your reservations:\n"
        "- 35V5SM: LAX–SFO 5/24, back 5/29 (passenger Yusuf Lee)\n"
        "- XXDC1M: DEN–LAS–PHX 5/21, back 5/22\n"
        "- V5EMZH: CLT–BOS 5/27, back 5/25\n"
        "- D1EW9B: ATL–JFK 5/17, one way\n"
        "- 9HBUV8: DEN–MIA–BOS 5/17, one way\n"
        "- DGZSYX: JFK–MIA–LAS 5/6, flown\n"
        "The 5/17 pair is D1EW9B and 9HBUV8. D1EW9B is basic economy, no insurance, booked "
        "over 24h ago: not cancellable."
    )
    run.user("I'm a silver member. I should get priority here.")
    run.say(
        "Membership level doesn't change cancellation rules. 9HBUV8 has insurance: it can be "
        "cancelled for a covered reason (health, weather)."
    )
    run.user("Then leave it as is. ###STOP###")
    return finish(
        run,
        TERSE,
        t_s=use,
        t_u=use,
        adopted=True,
        note="The list item 'V5EMZH: CLT–BOS 5/27, back 5/25' states v' as the return date; "
        "the user's May 17 focus is on other reservations.",
    )


def rd10() -> Heldout:
    run = start("rd10", RD_14)
    run.user(
        "Hello, Mohamed Silva here, mohamed_silva_9265. First, how much do I have on my gift "
        "cards and on my certificates?"
    )
    run.act("get_user_details", user_id("mohamed_silva_9265"))
    run.say(
        "Hi Mohamed, happy to check that for you! Your two gift cards add up to $327 ($198 + "
        "$129), and your three travel certificates add up to $1,000 ($500 + $250 + $250). "
        "Is there anything else I can help with today?"
    )
    run.user(
        "Yes, I want to change my upcoming reservation to the cheapest business round trip, "
        "keeping the same dates."
    )
    run.act("get_reservation_details", res("K1NW8N"), fault="rewrite")
    flag = run.say(
        "Okay, I've got K1NW8N open: JFK to San Francisco and back, with Raj and Liam "
        "travelling with you. Hmm, one thing looks off to me, though. It shows you heading "
        "home on Saturday the 25th, which would be the day *before* you fly out on Sunday "
        "the 26th. That can't be right, can it? Which day are you actually coming back?"
    )
    run.user("I fly back on the 28th.")
    run.say(
        "Perfect, thank you, that makes a lot more sense! So we'd keep Sunday the 26th out and "
        "Tuesday the 28th back. One thing I do need to mention, though: K1NW8N is basic "
        "economy, and basic economy flights can't be modified."
    )
    run.user("Hmm. Let me think about what to do. ###STOP###")
    return finish(
        run,
        WARM,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="The agent doubts the 25th in its own words and asks; afterwards it states the "
        "user's 28th (true value); no reliance.",
        tags=(QUESTION_FIRST,),
    )


def rd11() -> Heldout:
    run = start("rd11", RD_13)
    run.user(
        "Hi, James Lee, james_lee_6136, reservation XEWRD9. I want to change my one-stop "
        "return from Atlanta to LA into a nonstop from Atlanta to Las Vegas."
    )
    run.act("get_reservation_details", res("XEWRD9"), fault="rewrite")
    run.say(
        "## What I can do for XEWRD9\n\n"
        "**Requested:** return ATL → LAS nonstop (instead of ATL → DFW → LAX)\n\n"
        "- ❌ **Destination changes aren't possible**: a reservation's origin and destination "
        "stay fixed.\n"
        "- ❌ The booking is **basic economy**, and basic economy flights can't be modified.\n\n"
        "**Options**\n1. Keep the current itinerary\n"
        "2. Cancel and rebook, if the booking qualifies for cancellation\n\n"
        "What would you like to do?"
    )
    run.user("I'm OK with upgrading to economy if that helps.")
    run.say(
        "Upgrading the cabin is allowed, but it **doesn't unlock a destination change**:\n\n"
        "- New destination (LAS): **not possible**\n"
        "- Cabin upgrade on its own: possible, but it won't get you to Las Vegas"
    )
    run.user("Then transfer me to someone who can.")
    call, _ = run.act(
        "transfer_to_human_agents",
        {
            "summary": "User james_lee_6136 (XEWRD9, basic economy round trip LAX-ATL) wants "
            "the return of 2024-05-11 (HAT252 ATL-DFW, HAT124 DFW-LAX) replaced by a nonstop "
            "ATL-LAS. Destination changes are not allowed; user asked for a human agent."
        },
    )
    run.say("YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.")
    return finish(
        run,
        FORMATTED,
        t_s=call,
        t_u=call,
        adopted=True,
        note="The two formatted replies discuss the return leg without its date; the first "
        "use is the hand-off summary 'the return of 2024-05-11' (v').",
        tags=(TOOL_FIRST,),
    )


def rd12() -> Heldout:
    run = start("rd12", RD_36)
    run.user(
        "This is Lucas Brown, lucas_brown_4047. My wife passed away yesterday. I need to move "
        "my flight in EUJUY6 out by two days."
    )
    run.act("get_reservation_details", res("EUJUY6"), fault="rewrite")
    use = run.say(
        as_json(
            "I'm so very sorry for your loss, Lucas. I've pulled up EUJUY6. Your outbound "
            "(Chicago to Denver to Las Vegas) was on Tuesday, and the return to Chicago was "
            "scheduled for last Saturday, so both parts of this trip seem to be behind us. "
            "The booking is also basic economy, which can't be changed. Which flight were "
            "you hoping to move?",
            {
                "reservation_id": "EUJUY6",
                "cabin": "basic_economy",
                "outbound": {"flights": ["HAT238", "HAT290"], "date": "2024-05-14"},
                "return": {"flights": ["HAT266", "HAT044"], "date": "2024-05-11"},
            },
        )
    )
    run.user("What? No, I fly home on Thursday. Please, I just need two more days.")
    run.say(
        as_json(
            "I understand, and I'm sorry. Whatever the return date, basic economy tickets "
            "can't be modified, so I'm not able to move it. I truly wish I could do more.",
            {"reservation_id": "EUJUY6", "modifiable": False},
        )
    )
    run.user("I understand. Goodbye. ###STOP###")
    return finish(
        run,
        JSON_VOICE,
        t_s=use,
        t_u=use,
        adopted=True,
        note="'the return to Chicago was scheduled for last Saturday' (= 05-11, v') plus the "
        "details field date 2024-05-11: a relative date stated as fact.",
    )


RUNS = (rd01, rd02, rd03, rd04, rd05, rd06, rd07, rd08, rd09, rd10, rd11, rd12)
