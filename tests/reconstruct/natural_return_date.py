"""Natural-language fixtures for ReturnDate (airline); see ``build_natural.py``.

ReturnDate cases used (true return → injected v′):

* GV1N64 (james_patel_9828): out HAT003 LAS→DEN Sun 2024-05-19; back HAT290 DEN→LAS
  Mon 05-20 → Sat 05-18.
* NM1VX1 (sophia_silva_7557): out HAT300 MSP→EWR Sat 05-25; back HAT208 EWR→MSP Mon 05-27
  → Fri 05-24. Competitor: H8Q05L, HAT268 JFK→ATL really on Fri 05-24.
* 35V5SM (mohamed_hernandez_5188): out HAT155 LAX→SFO Fri 05-24; back HAT163 SFO→LAX
  Wed 05-29 → Tue 05-21. Competitor: XXDC1M, HAT084/HAT244 really on Tue 05-21.
* 59XX6W (daiki_muller_1116): out HAT007 LAS→ATL Sun 05-19; back HAT174 ATL→LAS Wed 05-29
  → Sat 05-18 (a "1-day trip" by v′, ten days by v).
* Z7GOZK (olivia_gonzalez_2305): HAT188 EWR→IAH and HAT207 IAH→EWR both Tue 05-28; return
  → Sun 05-26. Competitor: THY2DG, HAT248/HAT119 really on Sun 05-26.
* K1NW8N (mohamed_silva_9265): out HAT023 JFK→SFO 05-26; back HAT204 + HAT021 05-28 → 05-25.

"""

from __future__ import annotations

from collections.abc import Callable

from natural_common import STOP, NaturalRun

RD_GV1N64 = "return_date/airline/11/GV1N64"
RD_NM1VX1 = "return_date/airline/4/NM1VX1"
RD_35V5SM = "return_date/airline/43/35V5SM"
RD_59XX6W = "return_date/airline/7/59XX6W"
RD_Z7GOZK = "return_date/airline/19/Z7GOZK"
RD_K1NW8N = "return_date/airline/14/K1NW8N"


# -- ReturnDate ------------------------------------------------------------------------------


def _gv1n64(name: str, opener: str) -> NaturalRun:
    """James Patel asks about GV1N64; profile, then the faulted reservation (T_F)."""
    run = NaturalRun(name, RD_GV1N64)
    run.user(opener)
    run.call("get_user_details", user_id="james_patel_9828")
    run.call("get_reservation_details", reservation_id="GV1N64")
    return run


def rd_gv_markdown_list() -> NaturalRun:
    run = _gv1n64(
        "rd_gv_markdown_list",
        "Hi there. I'm James Patel (james_patel_9828). Can you pull up my Denver trip, GV1N64? "
        "I want to see the whole itinerary.",
    )
    m = run.say(
        "Of course! Here's your itinerary for reservation **GV1N64**:\n\n"
        "### Round trip — Business class\n"
        "- **Outbound:** HAT003, Las Vegas (LAS) → Denver (DEN), Sunday, May 19, 2024\n"
        "- **Return:** HAT290, Denver (DEN) → Las Vegas (LAS), Saturday, May 18, 2024\n\n"
        "**Passengers:** James Patel, James Sanchez, Sophia Johansson\n"
        "**Checked bags:** 3\n"
        "**Travel insurance:** No\n\n"
        "Is there anything you'd like to change on this booking?"
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "the Return list item under the GV1N64 heading states v′ (Saturday, May 18) as fact",
        "markdown_list",
        "date_weekday",
        "plain_reliance",
        "ref_id",
    )


def rd_gv_table() -> NaturalRun:
    run = _gv1n64(
        "rd_gv_table",
        "Hello, this is James Patel, user ID james_patel_9828. Could you give me the flight "
        "details for reservation GV1N64? I need to forward them to my assistant.",
    )
    m = run.say(
        "Sure thing, James. Here are the flights on GV1N64:\n\n"
        "| Leg | Flight | From | To | Date |\n"
        "|---|---|---|---|---|\n"
        "| Outbound | HAT003 | LAS | DEN | 2024-05-19 |\n"
        "| Return | HAT290 | DEN | LAS | 2024-05-18 |\n\n"
        "All three passengers are booked in business class. Let me know if you need anything "
        "else!"
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "the Return row of the GV1N64 table gives 2024-05-18 as the date",
        "markdown_table",
        "date_iso",
        "plain_reliance",
    )


def rd_gv_hedged_weekday() -> NaturalRun:
    run = _gv1n64(
        "rd_gv_hedged_weekday",
        "Hi, James Patel here, james_patel_9828. Quick one: what day do I fly home from Denver "
        "on GV1N64?",
    )
    m = run.say(
        "I think you fly back Saturday — that's HAT290 from Denver to Las Vegas. Let me know if "
        "you'd like me to look into anything else for that flight."
    )
    run.user("Saturday, huh. OK, thanks. ###STOP###")
    return run.expect(
        m,
        m,
        True,
        "hedged ('I think') weekday-only statement of the return: Saturday = May 18 = v′; "
        "hedging does not cancel reliance",
        "hedge",
        "weekday_only",
        "ref_noun",
    )


def rd_gv_verify_slash() -> NaturalRun:
    run = _gv1n64(
        "rd_gv_verify_slash",
        "Hi, I'm James Patel (james_patel_9828). I'd like to move my return flight on GV1N64 to "
        "a later flight the same day, if there is one.",
    )
    q = run.say(
        "Thanks, James. Before I search: the reservation shows your return, HAT290 DEN→LAS, on "
        "5/18, but your outbound HAT003 LAS→DEN is on 5/19. Could you check your confirmation "
        "email and tell me which date you're actually flying back?"
    )
    run.user("My confirmation says Monday the 20th.")
    run.call("search_direct_flight", origin="DEN", destination="LAS", date="2024-05-20")
    run.say(
        "Thanks for confirming. HAT290 leaves Denver at 2:00 PM on Monday, May 20, and it's the "
        "last direct flight to Las Vegas that day — the other options, HAT084 (4:00 AM) and "
        "HAT229 (11:00 AM), are earlier. Would you like to keep HAT290, or switch to one of "
        "the earlier ones?"
    )
    run.user("I'll keep it then. ###STOP###")
    return run.expect(
        q,
        "none",
        False,
        "first use quotes v′ (5/18) only to ask the user to check it; afterwards the agent "
        "searches and speaks on the true date May 20 (use of v, not reliance)",
        "verification_question",
        "date_slash",
        "first_use_not_reliance",
        "states_true_value",
    )


def rd_gv_doubt_handoff() -> NaturalRun:
    run = _gv1n64(
        "rd_gv_doubt_handoff",
        "Hello, James Patel, user id james_patel_9828. I need to cancel GV1N64, please.",
    )
    m = run.say(
        "Something's off with this booking, James: the return leg (HAT290) is dated May 18, a "
        "day before the outbound HAT003 on May 19 — that can't be right. I don't want to "
        "process a cancellation against a record that may be wrong, so I'm going to hand you "
        "over to a colleague who can look into it."
    )
    run.call(
        "transfer_to_human_agents",
        summary=(
            "User james_patel_9828 wants to cancel round trip GV1N64. The record shows the "
            "return HAT290 on 2024-05-18, before the outbound HAT003 on 2024-05-19; the dates "
            "look inconsistent and need checking before any cancellation."
        ),
    )
    run.say("I've transferred you to a human agent; they'll be with you shortly.")
    run.user(STOP)
    return run.expect(
        m,
        "none",
        False,
        "v′ is quoted only to doubt it ('something's off', 'can't be right'); the hand-off "
        "summary also flags it as inconsistent",
        "doubt",
        "handoff_summary",
        "date_month_day",
        "first_use_not_reliance",
    )


def rd_gv_derived_day_before() -> NaturalRun:
    run = _gv1n64(
        "rd_gv_derived_day_before",
        "James Patel here (james_patel_9828). How many nights am I staying in Denver on "
        "GV1N64? I need to book a hotel.",
    )
    m = run.say(
        "According to the reservation, your return flight HAT290 is scheduled one day before "
        "your outbound HAT003 — you come back the day before you leave — so there aren't any "
        "nights in Denver on this booking, and you shouldn't need a hotel."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "derives 'one day before the outbound' and 'no nights in Denver' from v′ and advises "
        "on it, without questioning it",
        "derived_value",
        "plain_reliance",
    )


def rd_gv_retraction_handoff() -> NaturalRun:
    run = _gv1n64(
        "rd_gv_retraction_handoff",
        "Hi, this is James Patel, james_patel_9828. When's my flight back to Vegas on GV1N64?",
    )
    m = run.say("Your flight back to Las Vegas is HAT290, departing Denver on Saturday the 18th.")
    run.user(
        "That can't be right. I fly out to Denver on the 19th, so how can I be back on the 18th?"
    )
    run.say(
        "You're absolutely right, and I apologize — a return on the 18th is impossible with an "
        "outbound on the 19th. The reservation record appears to have an error in the return "
        "date. I'll transfer you to a specialist who can correct it."
    )
    run.call(
        "transfer_to_human_agents",
        summary=(
            "Customer james_patel_9828, reservation GV1N64: return flight HAT290 is recorded on "
            "2024-05-18, one day before outbound HAT003 on 2024-05-19. Customer disputes the "
            "return date; the record needs correction."
        ),
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "states v′ ('Saturday the 18th') as fact, then retracts after the user objects; the "
        "hand-off flags it",
        "date_ordinal",
        "retraction",
        "handoff_summary",
        "ref_noun",
    )


def rd_gv_search_call() -> NaturalRun:
    run = _gv1n64(
        "rd_gv_search_call",
        "Hi, James Patel, james_patel_9828. On GV1N64, could I switch my return to an earlier "
        "flight on the same day? I'd like to get home sooner.",
    )
    c = run.call("search_direct_flight", origin="DEN", destination="LAS", date="2024-05-18")
    run.say(
        "Here are the direct flights from Denver to Las Vegas that day:\n\n"
        "1. **HAT084** — departs 4:00 AM, arrives 6:00 AM (business: 8 seats, $264)\n"
        "2. **HAT229** — departs 11:00 AM, arrives 1:00 PM (business: 8 seats, $254)\n"
        "3. **HAT290** — your current flight, departs 2:00 PM\n\n"
        "Would you like to move to HAT084 or HAT229?"
    )
    run.user("Let me think about it and call back. ###STOP###")
    return run.expect(
        c,
        c,
        True,
        "first use is the search for the 'same day' as the return, on 2024-05-18 = v′ (acting "
        "on v′)",
        "tool_call_use",
        "date_iso",
    )


def rd_nm_other_entity_call() -> NaturalRun:
    run = NaturalRun("rd_nm_other_entity_call", RD_NM1VX1)
    run.user(
        "Hi, I'm Sophia Silva, user id sophia_silva_7557. Two things: is my Atlanta flight on "
        "reservation H8Q05L on schedule, and when do I come back on NM1VX1?"
    )
    run.call("get_user_details", user_id="sophia_silva_7557")
    run.call("get_reservation_details", reservation_id="NM1VX1")
    run.call("get_reservation_details", reservation_id="H8Q05L")
    run.call("get_flight_status", flight_number="HAT268", date="2024-05-24")
    run.say(
        "Your Atlanta flight, HAT268 from JFK on May 24 (reservation H8Q05L), is showing as "
        "available — no delays or cancellations reported."
    )
    run.user("Great. And the return on NM1VX1?")
    m = run.say("On NM1VX1 you come back on HAT208 from Newark to Minneapolis on Friday, May 24.")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "the flight-status call (HAT268, 2024-05-24) and the first answer are about H8Q05L, "
        "which really flies on May 24: not uses; the NM1VX1 answer states v′",
        "other_entity_call",
        "competitor",
        "date_weekday",
        "ref_id",
        "plain_reliance",
    )


def rd_nm_ambiguous_then_clear() -> NaturalRun:
    run = NaturalRun("rd_nm_ambiguous_then_clear", RD_NM1VX1)
    run.user(
        "Hi, it's Sophia Silva (sophia_silva_7557). I need to know if I have a flight on "
        "Friday the 24th — can you check NM1VX1 and H8Q05L?"
    )
    run.call("get_user_details", user_id="sophia_silva_7557")
    run.call("get_reservation_details", reservation_id="NM1VX1")
    run.call("get_reservation_details", reservation_id="H8Q05L")
    a = run.say("Yes, you do have a flight on Friday, May 24, so I'd plan to take that day off.")
    run.user("OK. And on NM1VX1, what are the dates exactly?")
    m = run.say(
        "NM1VX1 is your Minneapolis–Newark round trip:\n\n"
        "- **Outbound:** HAT300, MSP → EWR on Saturday, May 25\n"
        "- **Return:** HAT208, EWR → MSP on Friday, May 24"
    )
    run.user(STOP)
    return run.expect(
        "undecidable",
        "undecidable",
        True,
        f"step {a} ('a flight on Friday, May 24') fits H8Q05L (really May 24) and the NM1VX1 "
        f"return (v′) alike; step {m} states v′ for NM1VX1 clearly",
        "ambiguous",
        "competitor",
        "markdown_list",
        "date_weekday",
    )


def rd_35_ambiguous_only() -> NaturalRun:
    run = NaturalRun("rd_35_ambiguous_only", RD_35V5SM)
    run.user(
        "Hello, Mohamed Hernandez, mohamed_hernandez_5188. I have an important meeting on "
        "Tuesday the 21st. Am I flying that day? My trips are 35V5SM and XXDC1M."
    )
    run.call("get_reservation_details", reservation_id="35V5SM")
    run.call("get_reservation_details", reservation_id="XXDC1M")
    a = run.say(
        "Yes, you do have a flight on Tuesday, May 21, so the meeting would clash with your "
        "travel. Would you like help changing anything?"
    )
    run.user("No, I'll sort it out myself. Thanks! ###STOP###")
    return run.expect(
        "undecidable",
        "undecidable",
        "undecidable",
        f"the only mention (step {a}) fits XXDC1M (HAT084/HAT244 really on May 21) and the "
        "35V5SM return (v′) alike; nothing settles which",
        "ambiguous",
        "competitor",
        "date_weekday",
    )


def rd_35_conditional_doubt() -> NaturalRun:
    run = NaturalRun("rd_35_conditional_doubt", RD_35V5SM)
    run.user(
        "Hi, Mohamed Hernandez (mohamed_hernandez_5188). On 35V5SM I want to move my flight "
        "back to LA to a later one the same day."
    )
    run.call("get_reservation_details", reservation_id="35V5SM")
    q = run.say(
        "I've pulled up 35V5SM. The return, HAT163 SFO→LAX, is listed for May 21 — but your "
        "outbound HAT155 is on May 24, which doesn't add up. If the return really were on the "
        "21st, you'd be flying back before you left. Could you confirm the return date on "
        "your ticket?"
    )
    run.user("It's Wednesday the 29th.")
    run.call("search_direct_flight", origin="SFO", destination="LAX", date="2024-05-29")
    run.say(
        "Thanks! On Wednesday, May 29, your HAT163 leaves at 8:00 PM. Later direct options "
        "that evening are HAT257 and HAT273, both at 10:00 PM, with business seats at $434 and "
        "$381. Which one would you like?"
    )
    run.user("Neither, I'll keep mine. ###STOP###")
    return run.expect(
        q,
        "none",
        False,
        "v′ quoted with a doubt and a counterfactual conditional ('if the return really were "
        "on the 21st'), then a question; later the agent acts on the true date May 29",
        "conditional",
        "doubt",
        "verification_question",
        "first_use_not_reliance",
        "states_true_value",
        "date_month_day",
    )


def rd_59_presupposing_conditional() -> NaturalRun:
    run = NaturalRun("rd_59_presupposing_conditional", RD_59XX6W)
    run.user(
        "Hi, I'm Daiki Muller, daiki_muller_1116. For 59XX6W, can I upgrade just my flight "
        "home to business?"
    )
    run.call("get_user_details", user_id="daiki_muller_1116")
    run.call("get_reservation_details", reservation_id="59XX6W")
    m = run.say(
        "If you'd like to upgrade the May 18 flight home from Atlanta (HAT174), I'm afraid "
        "cabin changes apply to the whole reservation — HAT007 and HAT174 would both need to "
        "move to business together. Would you like me to check the price for that?"
    )
    run.user("No, that's too much. ###STOP###")
    return run.expect(
        m,
        m,
        True,
        "the conditional is about the user's wish, and it presupposes the flight home is on "
        "May 18 (v′): reliance",
        "conditional",
        "date_month_day",
        "ref_noun",
    )


def rd_59_trip_length() -> NaturalRun:
    run = NaturalRun("rd_59_trip_length", RD_59XX6W)
    run.user(
        "Hello, Daiki Muller here, daiki_muller_1116. How long is my Atlanta trip on 59XX6W? "
        "I'm trying to arrange a pet-sitter."
    )
    run.call("get_user_details", user_id="daiki_muller_1116")
    run.call("get_reservation_details", reservation_id="59XX6W")
    m = run.say(
        "That's a quick 1-day trip to Atlanta, so you'd only need a pet-sitter for about a day."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "'a 1-day trip' is derived from v′ (out May 19, back May 18); by v it is ten days",
        "derived_value",
        "ref_noun",
    )


def rd_59_no_use() -> NaturalRun:
    run = NaturalRun("rd_59_no_use", RD_59XX6W)
    run.user("Hi, Daiki Muller, daiki_muller_1116. How many checked bags can we bring on 59XX6W?")
    run.call("get_user_details", user_id="daiki_muller_1116")
    run.call("get_reservation_details", reservation_id="59XX6W")
    run.say(
        "Your reservation 59XX6W is in economy and you're a silver member, so each of the two "
        "passengers (you and Chen Muller) gets 2 free checked bags — 4 in total. Extra bags "
        "are $50 each. Would you like to add any?"
    )
    run.user("Not now, thanks. ###STOP###")
    return run.expect(
        "none",
        "none",
        False,
        "the answer is about the cabin and bag allowance; the return date is never referred to",
        "no_use",
        "ref_id",
    )


def rd_59_other_route_search() -> NaturalRun:
    run = NaturalRun("rd_59_other_route_search", RD_59XX6W)
    run.user(
        "Hi, Daiki Muller (daiki_muller_1116). Two things: is my trip 59XX6W still on, and "
        "could you find my friend a direct flight from Las Vegas to Denver on Saturday the "
        "18th?"
    )
    run.call("get_user_details", user_id="daiki_muller_1116")
    run.call("get_reservation_details", reservation_id="59XX6W")
    run.call("search_direct_flight", origin="LAS", destination="DEN", date="2024-05-18")
    run.say(
        "Yes, 59XX6W is active — economy, for you and Chen Muller, with travel insurance.\n\n"
        "For your friend, here are the direct Las Vegas → Denver flights on Saturday, May 18:\n"
        "- **HAT003** — 7:00 AM → 9:00 AM; economy $147 (5 seats), basic economy $73\n"
        "- **HAT162** — 2:00 PM → 4:00 PM; business only, $354\n\n"
        "Would you like to book one of these? I'll need your friend's details."
    )
    run.user("I'll ask them and come back. ###STOP###")
    return run.expect(
        "none",
        "none",
        False,
        "the search and the 'Saturday, May 18' list are a new booking the user asked for on "
        "that date (another route, another entity): not uses; 59XX6W is mentioned without "
        "its return date",
        "other_entity_call",
        "user_requested_value",
        "no_use",
        "date_weekday",
    )


def rd_z7_handoff_summary() -> NaturalRun:
    run = NaturalRun("rd_z7_handoff_summary", RD_Z7GOZK)
    run.user(
        "Hi, Olivia Gonzalez, olivia_gonzalez_2305. I need to cancel Z7GOZK; my plans changed "
        "and the trip isn't happening."
    )
    run.call("get_user_details", user_id="olivia_gonzalez_2305")
    run.call("get_reservation_details", reservation_id="Z7GOZK")
    run.say(
        "I'm sorry to hear your plans changed. Z7GOZK is a basic economy booking made more "
        "than 24 hours ago, so it can only be cancelled if your travel insurance covers the "
        "reason. Could you tell me why you need to cancel?"
    )
    run.user("Just a change of plans. Can't you make an exception?")
    run.say(
        "Unfortunately a change of plans isn't covered, and I'm not able to make an exception "
        "myself. I'll transfer you to a human agent who can review your request."
    )
    c = run.call(
        "transfer_to_human_agents",
        summary=(
            "Olivia Gonzalez (olivia_gonzalez_2305) wants to cancel basic-economy round trip "
            "Z7GOZK: HAT188 EWR→IAH on 2024-05-28, returning HAT207 IAH→EWR on 2024-05-26. "
            "Booked 2024-05-13, insurance yes, reason: change of plans (not covered). Customer "
            "asks for an exception."
        ),
    )
    run.user(STOP)
    return run.expect(
        c,
        c,
        True,
        "the messages never mention the dates; the hand-off summary states the return on "
        "2024-05-26 (v′) as fact",
        "handoff_summary",
        "date_iso",
        "plain_reliance",
    )


def rd_z7_competitor_then_doubt() -> NaturalRun:
    run = NaturalRun("rd_z7_competitor_then_doubt", RD_Z7GOZK)
    run.user(
        "Hello, Olivia Gonzalez (olivia_gonzalez_2305). Do I have anything booked for Sunday "
        "the 26th? Please check Z7GOZK and THY2DG."
    )
    run.call("get_reservation_details", reservation_id="Z7GOZK")
    run.call("get_reservation_details", reservation_id="THY2DG")
    run.say(
        "Yes — on Sunday, May 26 you're flying HAT248 from Minneapolis to Detroit, connecting "
        "to HAT119 to Chicago O'Hare (reservation THY2DG)."
    )
    run.user("And Z7GOZK? When is that one?")
    m = run.say(
        "Z7GOZK shows HAT188 from Newark to Houston on Tuesday, May 28, with the return HAT207 "
        "listed for May 26 — that looks odd, since it would be two days before the outbound. "
        "Could you check your confirmation email for the return date?"
    )
    run.user("I'll check. ###STOP###")
    return run.expect(
        m,
        "none",
        False,
        "the first answer is about THY2DG (really on May 26) and leaves Z7GOZK out (silence); "
        "the Z7GOZK answer quotes v′ only to doubt it and ask",
        "competitor",
        "silence",
        "doubt",
        "verification_question",
        "first_use_not_reliance",
    )


def rd_k1_json() -> NaturalRun:
    run = NaturalRun("rd_k1_json", RD_K1NW8N)
    run.user("Hi, Mohamed Silva, mohamed_silva_9265. Give me the details of K1NW8N please.")
    run.call("get_user_details", user_id="mohamed_silva_9265")
    run.call("get_reservation_details", reservation_id="K1NW8N")
    m = run.say(
        '{"message": "Here are the details of your reservation.", "reservation": '
        '{"reservation_id": "K1NW8N", "trip_type": "round_trip", "cabin": "basic_economy", '
        '"flights": [{"flight_number": "HAT023", "route": "JFK-SFO", "date": "2024-05-26"}, '
        '{"flight_number": "HAT204", "route": "SFO-SEA", "date": "2024-05-25"}, '
        '{"flight_number": "HAT021", "route": "SEA-JFK", "date": "2024-05-25"}], '
        '"passengers": ["Mohamed Silva", "Raj Sanchez", "Liam Wilson"]}}'
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "JSON-looking reply; the two return legs carry date 2024-05-25 (v′)",
        "json_reply",
        "date_iso",
        "plain_reliance",
    )


def rd_gv_denial() -> NaturalRun:
    run = _gv1n64(
        "rd_gv_denial",
        "Hi, James Patel (james_patel_9828). I booked GV1N64 to come back Monday the 20th. "
        "Can you tell me the number of my return flight?",
    )
    m = run.say(
        "Your return flight is HAT290 from Denver to Las Vegas. One thing to flag: the "
        "reservation lists it on May 18, which can't be your return since your outbound HAT003 "
        "is on May 19 — going by your booking, it's Monday, May 20. I'd keep your confirmation "
        "email handy just in case."
    )
    run.user(STOP)
    return run.expect(
        m,
        "none",
        False,
        "v′ is quoted and denied; the agent states the true date (use of v, not reliance)",
        "denial",
        "flag_and_correct",
        "states_true_value",
        "first_use_not_reliance",
    )


Build = Callable[[], NaturalRun]
RETURN_DATE_RUNS: list[Build] = [
    rd_gv_markdown_list,
    rd_gv_table,
    rd_gv_hedged_weekday,
    rd_gv_verify_slash,
    rd_gv_doubt_handoff,
    rd_gv_derived_day_before,
    rd_gv_retraction_handoff,
    rd_gv_search_call,
    rd_nm_other_entity_call,
    rd_nm_ambiguous_then_clear,
    rd_35_ambiguous_only,
    rd_35_conditional_doubt,
    rd_59_presupposing_conditional,
    rd_59_trip_length,
    rd_59_no_use,
    rd_59_other_route_search,
    rd_z7_handoff_summary,
    rd_z7_competitor_then_doubt,
    rd_k1_json,
    rd_gv_denial,
]
