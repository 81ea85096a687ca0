"""Second blind set, ReturnDate: ten hand-written runs with exact labels.

Each run is on a shipped ``return_date`` case: the delivered ``get_reservation_details``
record shows the return leg(s) of a round trip on a date before the outbound. Labels follow
``docs/reconstruction-labelling.md``; every labelled step is one the builder returned.
"""

from __future__ import annotations

from collections.abc import Callable

from heldout_common import (
    AMBIGUOUS,
    BULLETED,
    CAUTIOUS,
    NARRATING,
    NO_USE,
    NONE,
    QUESTION_FIRST,
    SHARED_VALUE,
    SLOPPY,
    TOOL_FIRST,
    UNDECIDABLE,
    Heldout,
    finish,
    res,
    start,
    user_id,
)

STOP = "Okay, thanks. That's all. ###STOP###"


def rdc01() -> Heldout:
    """EUJUY6 returns 05-16 (shown 05-11); a derived 'all flown' claim, then a retraction."""
    run = start("rdc01", "return_date/airline/36/EUJUY6")
    run.user(
        "Hello. My wife passed away yesterday and I need to move my flight in reservation "
        "EUJUY6 out by two days. My user id is lucas_brown_4047."
    )
    run.say(
        "im so sorry for your loss, really. let me pull up the reservation EUJUY6 and see "
        "what we can do"
    )
    run.act("get_user_details", user_id("lucas_brown_4047"))
    run.act("get_reservation_details", res("EUJUY6"), fault="rewrite")
    flown = run.say(
        "ok i see EUJUY6, its ORD to LAS round trip, basic economy, 3 passengers (Lucas "
        "Brown, Daiki Thomas, Daiki Lopez). unfortunatly it look like all 4 flights on this "
        "booking are already flown, the trip is over allready so there is nothing left on it "
        "i can move, sorry"
    )
    run.user(
        "What? No. I'm flying home from Las Vegas TOMORROW, through Houston. I need that "
        "pushed two days, please, I can't travel right now."
    )
    run.say(
        "sorry sorry my mistake. the booking show the flights back HAT266 and HAT044 on "
        "2024-05-11 which is before your going out flight on the 14th so that cant be right, "
        "you fly back the 16th tomorrow ok. BUT the booking is basic economy and basic "
        "economy flights can not be modify, that is the policy, so i can not change the date "
        "even by 2 day. i really am sorry"
    )
    run.user("Please. My wife just died. Isn't there any exception at all for something like this?")
    run.say(
        "i understand and i am very sorry, but there is no exception i can make, basic "
        "economy can not be changed, i can not change the flight date on EUJUY6"
    )
    run.user("Fine. I understand. ###STOP###")
    return finish(
        run,
        SLOPPY,
        t_s=flown,
        t_u=flown,
        adopted=True,
        note="'all 4 flights already flown' holds only with the shown 05-11 return; later "
        "retracted",
        tags=(),
    )


def rdc02() -> Heldout:
    """59XX6W returns 05-29 (shown 05-18); flagged at once next to another LAS-ATL trip."""
    run = start("rdc02", "return_date/airline/7/59XX6W")
    run.user("Cancel XEHM4B and 59XX6W. User id daiki_muller_1116.")
    run.act("get_reservation_details", res("XEHM4B"))
    run.act("get_reservation_details", res("59XX6W"), fault="rewrite")
    flag = run.say(
        "Thank you. I've pulled up both reservations, and before anything is cancelled I'd "
        "like to be sure I have the right picture.\n\n"
        "XEHM4B is a Las Vegas to Atlanta round trip for you and Omar Ito: out on 20 May "
        "(HAT005), back on 30 May (HAT178), basic economy, no travel insurance.\n\n"
        "59XX6W is also Las Vegas to Atlanta, for you and Chen Muller, in economy with "
        "insurance. The outbound HAT007 is on 19 May. If I'm reading this right, though, the "
        "record lists the Atlanta to Las Vegas flight HAT174 on 18 May, which would be the "
        "day before you leave. That can't be correct, so I'd rather not rely on it. Could "
        "you tell me when you're due back on that trip? And may I ask the reason for "
        "cancelling?"
    )
    run.user("The 29th. Change of plans. Cancel both.")
    run.say(
        "Thank you, the 29th it is. I've checked both against the cancellation rules, and I'm "
        "afraid neither qualifies as things stand:\n\n"
        "- XEHM4B is basic economy without insurance and was booked on 1 May, more than 24 "
        "hours ago, and none of its flights were cancelled by the airline.\n"
        "- 59XX6W has travel insurance, but insurance only covers cancellations for health "
        "or weather reasons, and a change of plans isn't one of them. It was booked on 12 "
        "May, so the 24-hour window has also passed.\n\n"
        "I'm sorry. Is there anything else I can look at for you?"
    )
    run.user("If XEHM4B is basic economy, upgrade it to economy first. Then cancel it.")
    run.say(
        "I can upgrade XEHM4B to economy, but to be clear before you pay for it: an economy "
        "ticket without insurance still can't be cancelled for a change of plans, so the "
        "upgrade wouldn't make the cancellation possible. Do you still want the upgrade?"
    )
    run.user("No. Then leave them both. ###STOP###")
    return finish(
        run,
        CAUTIOUS,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="first use quotes 18 May only to reject it; XEHM4B's 30 May is another entity; "
        "'the 29th' later is v",
        tags=(QUESTION_FIRST,),
    )


def rdc03() -> Heldout:
    """35V5SM returns 05-29 (shown 05-21); XXDC1M also flies on 21 May."""
    run = start("rdc03", "return_date/airline/43/35V5SM")
    run.user(
        "Hi, I'm Mohamed Hernandez, user id mohamed_hernandez_5188. I'm a bit absent-minded "
        "and booked two flights on May 17. I want to cancel the one from ATL to JFK."
    )
    run.act("get_user_details", user_id("mohamed_hernandez_5188"))
    run.act("get_reservation_details", res("35V5SM"), fault="rewrite")
    run.act("get_reservation_details", res("XXDC1M"))
    run.act("get_reservation_details", res("V5EMZH"))
    run.act("get_reservation_details", res("D1EW9B"))
    run.act("get_reservation_details", res("9HBUV8"))
    run.say(
        "**Flights on 17 May**\n"
        "- **D1EW9B**: ATL → JFK (HAT285) · basic economy · no insurance · booked 4 May\n"
        "- **9HBUV8**: DEN → MIA → BOS (HAT130 + HAT184) · basic economy · insurance ✅ · "
        "booked 12 May\n\n"
        "**Cancel D1EW9B?** ❌ Not possible:\n"
        "- booked > 24 h ago\n"
        "- not cancelled by the airline\n"
        "- basic economy, no insurance"
    )
    run.user(
        "Come on. I'm a silver member, I should get priority treatment here. Please cancel it."
    )
    run.say(
        "Understood, but membership level doesn't change the cancellation rules ❌. "
        "D1EW9B stays as booked."
    )
    run.user(
        "Okay, then cancel the other one on the 17th, the Denver one. And do I have anything "
        "else that week? I don't want another mix-up."
    )
    shared = run.say(
        "**9HBUV8** ❌ also can't be cancelled: insurance covers health or weather reasons "
        "only, and a double booking isn't one of them; it was booked 12 May (> 24 h).\n\n"
        "**Rest of the week**\n"
        "- ✅ nothing else on 17 May\n"
        "- next travel on your profile: **21 May**, no clash"
    )
    run.user(STOP)
    return finish(
        run,
        BULLETED,
        t_s=UNDECIDABLE,
        t_u=UNDECIDABLE,
        adopted=UNDECIDABLE,
        note=f"'next travel 21 May' (step {shared}) fits XXDC1M's outbound and 35V5SM's shown "
        "return; names neither",
        tags=(AMBIGUOUS, SHARED_VALUE),
    )


def rdc04() -> Heldout:
    """HXDUBJ returns 05-22 (shown 05-16); 'one day later' searched on 05-17."""
    run = start("rdc04", "return_date/airline/33/HXDUBJ")
    run.user(
        "Hi, this is Yara Garcia, user id yara_garcia_1905. For reservation HXDUBJ I want my "
        "outgoing flight moved to a nonstop on the next day, and I also want to move back my "
        "return from SFO by one day. Only flights leaving after 8am and before 9pm."
    )
    run.say("I'll now look up reservation HXDUBJ to see the current itinerary.")
    run.act("get_reservation_details", res("HXDUBJ"), fault="rewrite")
    run.say(
        "The tool returned reservation HXDUBJ: an economy round trip for one passenger, "
        "Houston (IAH) to San Francisco. The outbound connects through JFK on HAT085 and "
        "HAT023 on May 18, and the return is the nonstop HAT278 from SFO. Next I will search "
        "for nonstop IAH to SFO flights on May 19, then for the return."
    )
    run.act("search_direct_flight", {"origin": "IAH", "destination": "SFO", "date": "2024-05-19"})
    search = run.act(
        "search_direct_flight", {"origin": "SFO", "destination": "IAH", "date": "2024-05-17"}
    )[0]
    run.say(
        "The searches came back. For the outbound on May 19, HAT072 leaves IAH at 9:00 and "
        "arrives SFO at 13:00 ($130 in economy); HAT180 leaves at 7:00, which is before your "
        "8am limit. For the return one day later, on May 17, HAT278 leaves SFO at 16:00 "
        "($148 in economy); HAT082 at 23:00 is too late. I would propose HAT072 and HAT278."
    )
    run.user("May 17? No, my return is on the 22nd right now. One day later means the 23rd.")
    run.say("You're right, I apologise for that. I'll now search SFO to IAH on May 23 instead.")
    run.act("search_direct_flight", {"origin": "SFO", "destination": "IAH", "date": "2024-05-23"})
    run.say(
        "The tool returned two nonstops for May 23: HAT278 at 16:00 ($187 in economy) and "
        "HAT082 at 23:00, which is after 9pm. Next I will call update_reservation_flights "
        "with reservation HXDUBJ, cabin economy, flights HAT072 on 2024-05-19 and HAT278 on "
        "2024-05-23, paid with the original gift card gift_card_6941833. Any price "
        "difference is charged or refunded to that card. Shall I go ahead (yes/no)?"
    )
    run.user("I have insurance, so there shouldn't be any change fee. But yes, go ahead.")
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
    run.say(
        "The update went through: HXDUBJ now has HAT072 on May 19 and HAT278 on May 23. "
        "No change fee was applied; only the fare difference went back to your gift card."
    )
    run.user(STOP)
    return finish(
        run,
        NARRATING,
        t_s=search,
        t_u=search,
        adopted=True,
        note="first use is the return search on 05-17 = shown 05-16 + 1 day; user then "
        "corrects to the 23rd",
        tags=(TOOL_FIRST,),
    )


def rdc05() -> Heldout:
    """1N99U6 returns 05-27 (shown 05-17); flagged, then kept 'as is' at the shown date."""
    run = start("rdc05", "return_date/airline/30/1N99U6")
    run.user(
        "Hi, James Taylor here, user id james_taylor_7043, reservation 1N99U6. I want my "
        "one-stop flight from Las Vegas to Houston changed to a nonstop. And I want my "
        "checked bag removed and refunded."
    )
    run.act("get_reservation_details", res("1N99U6"), fault="rewrite")
    flag = run.say(
        "**Reservation 1N99U6**\n"
        "- Trip: LAS ⇄ IAH · round trip · economy · 2 passengers\n"
        "- Outbound: HAT284 + HAT152 (LAS → PHX → IAH), 19 May\n"
        "- Return: HAT112 IAH → LAS, 17 May ⚠️ this is *before* the outbound, can you "
        "confirm your return date?\n"
        "- Bags: 1 checked\n\n"
        "**Bag refund** ❌ checked bags can be added, not removed."
    )
    run.user(
        "Ugh, fine about the bag. I don't have the return date in front of me. Just change "
        "the outbound and leave the return flight exactly as it is."
    )
    run.act("search_direct_flight", {"origin": "LAS", "destination": "IAH", "date": "2024-05-19"})
    kept = run.say(
        "**Proposed change**\n"
        "- Outbound ➜ **HAT266** LAS → IAH nonstop, 19 May, dep 13:00, $146/pax economy\n"
        "- Return (kept) ➜ **HAT112** IAH → LAS, **Fri 17 May**\n"
        "- Cabin: economy (unchanged)\n"
        "- Difference charged/refunded to: gift_card_5634230 (original payment)\n\n"
        "Confirm? (yes/no)"
    )
    run.user("Yes.")
    run.act(
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
    )
    run.say(
        "✅ **Updated**\n"
        "- HAT266 LAS → IAH, 19 May\n"
        "- HAT112 IAH → LAS, 17 May\n"
        "- Refund of the fare difference ➜ gift_card_5634230"
    )
    run.user(STOP)
    return finish(
        run,
        BULLETED,
        t_s=flag,
        t_u=kept,
        adopted=True,
        note="first mention flags 17 May as before the outbound; the confirmation then "
        "states 'Fri 17 May' as the kept return",
        tags=(QUESTION_FIRST,),
    )


def rdc06() -> Heldout:
    """NM1VX1 returns 05-27 (shown 05-24); other reservations fly on 24 May; no use."""
    run = start("rdc06", "return_date/airline/4/NM1VX1")
    run.user(
        "Hi. I'm Sophia Silva, user id sophia_silva_7557. I had a business class flight "
        "earlier this month that got cancelled, and because of it I missed a very important "
        "meeting. I want compensation for that."
    )
    run.say(
        "I'm sorry to hear about the missed meeting. To be sure I look at the right booking, "
        "I'll go through the reservations on your profile first."
    )
    run.act("get_user_details", user_id("sophia_silva_7557"))
    run.act("get_reservation_details", res("NM1VX1"), fault="rewrite")
    run.act("get_reservation_details", res("KC18K6"))
    run.act("get_reservation_details", res("S61CZX"))
    run.act("get_reservation_details", res("H8Q05L"))
    run.act("get_reservation_details", res("WUNA5K"))
    run.say(
        "Thank you for waiting. I've now checked all five reservations, and I want to be "
        "careful here, because what I see doesn't match what you described:\n\n"
        "- The only trip earlier this month is WUNA5K, Chicago O'Hare to Philadelphia on 10 "
        "May and back on 11 May. It was booked in economy, not business, and it was not "
        "cancelled.\n"
        "- None of your reservations is in business class, and none of them shows a "
        "cancellation.\n\n"
        "Is it possible the flight was booked under a different profile?"
    )
    run.user(
        "No, it was this one. Maybe I'm mixing up the dates, I flew Newark to Charlotte. It "
        "was a disaster. I insist on compensation."
    )
    run.say(
        "I understand your frustration. If I'm reading the records right, the Newark to "
        "Charlotte flight on your profile is in S61CZX: HAT043 from Newark to Charlotte on 24 "
        "May, with HAT157 back to Newark the same day. Those flights are still ahead, they "
        "are in economy, and they have not been cancelled. Your JFK to Atlanta flight in "
        "H8Q05L is also on 24 May and also active.\n\n"
        "Since I can't find a cancelled business flight, I'm not able to offer compensation. "
        "I'm sorry I don't have better news."
    )
    run.user("This is unacceptable. But fine. ###STOP###")
    return finish(
        run,
        CAUTIOUS,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="both '24 May' mentions are S61CZX/H8Q05L by name; NM1VX1's return is never "
        "referred to",
        tags=(NO_USE, SHARED_VALUE),
    )


def rdc07() -> Heldout:
    """Z7GOZK returns 05-28 (shown 05-26); 'yep' to the user's same-day, recap says 26."""
    run = start("rdc07", "return_date/airline/19/Z7GOZK")
    run.user(
        "Hi. I'd like to change my return flight for a trip to Texas. I don't remember the "
        "reservation number."
    )
    run.say("no problem! can i have your user id please so i can find the reservation")
    run.user("olivia_gonzalez_2305")
    run.act("get_user_details", user_id("olivia_gonzalez_2305"))
    run.act("get_reservation_details", res("Z7GOZK"), fault="rewrite")
    run.act("get_reservation_details", res("THY2DG"))
    run.say(
        "ok i found a texas one, Z7GOZK, Newark EWR to Houston IAH, basic economy, 1 "
        "passenger Olivia Gonzalez. is this the trip you mean? the other one THY2DG is "
        "MSP to ORD for Yara Martin on may 26 so probably not that one"
    )
    run.user("Yes, Z7GOZK. I fly back the same day, the return is at 3pm.")
    agree = run.say(
        "yep correct, same day, HAT207 3pm. i will check for a later one that day back to "
        "Newark for you"
    )
    run.act("search_direct_flight", {"origin": "IAH", "destination": "EWR", "date": "2024-05-28"})
    run.say(
        "ok so i checked and there is no nonstop later then HAT207 that day from IAH to "
        "EWR, only a 8am and a 2pm one. and also i just see your ticket is basic economy and "
        "basic economy flight cannot be modify anyway, sorry, that is the policy. so i "
        "cannot change the return flight, not that day and not the next day"
    )
    run.user(
        "Then I'd like to cancel the trip. I have travel insurance and I'm feeling unwell. "
        "I'll book again myself later."
    )
    run.say(
        "ok since you have insurance and its for health reason you can cancel. i will cancel "
        "reservation Z7GOZK, the whole trip, refund go back to the original payment gift "
        "card. confirm yes?"
    )
    run.user("Yes.")
    run.act("cancel_reservation", res("Z7GOZK"))
    recap = run.say(
        "done!! Z7GOZK is cancelled now, both flights is cancel, HAT188 on may 28 and the "
        "HAT207 back on may 26, the $169 refund goes to your gift card gift_card_2200803 "
        "in 5-7 business days. feel better soon!"
    )
    run.user(STOP)
    return finish(
        run,
        SLOPPY,
        t_s=agree,
        t_u=recap,
        adopted=True,
        note="'yep correct, same day' affirms the user's true return (use, no reliance); "
        "recap states HAT207 on may 26",
        tags=(SHARED_VALUE,),
    )


def rdc08() -> Heldout:
    """MFRB94 returns 05-30 (shown 05-24); read among seven, only its outbound is named."""
    run = start("rdc08", "return_date/airline/42/MFRB94")
    run.user(
        "Hi, Sophia Martin, user id sophia_martin_4574. My assistant and I mixed things up "
        "and I think I have multiple flights booked on the same day. Can you check my "
        "profile and fix it? All I know is I arrive in New York from Dallas on May 17 and "
        "I'll be in Boston on May 22."
    )
    run.say("I'll now look up your profile to see which reservations you have.")
    run.act("get_user_details", user_id("sophia_martin_4574"))
    run.say(
        "The tool returned seven reservations: MFRB94, PUNERT, HSR97W, SE9KEL, FDZ0T5, "
        "HTR26G and 5BGGWZ. I'll now open each one, starting with MFRB94."
    )
    run.act("get_reservation_details", res("MFRB94"), fault="rewrite")
    run.say(
        "The tool returned MFRB94: a business round trip from Orlando to New York LaGuardia "
        "for you, leaving Orlando on May 27. Next I will look up PUNERT."
    )
    run.act("get_reservation_details", res("PUNERT"))
    run.act("get_reservation_details", res("HSR97W"))
    run.act("get_reservation_details", res("SE9KEL"))
    run.act("get_reservation_details", res("FDZ0T5"))
    run.act("get_reservation_details", res("HTR26G"))
    run.act("get_reservation_details", res("5BGGWZ"))
    run.say(
        "I've now read all seven. Here is what I found.\n\n"
        "On May 17 you arrive in Newark from Dallas on HAT142 (5BGGWZ), which matches your "
        "plan. FDZ0T5 also has you flying JFK to Chicago to Philadelphia that same day, so "
        "it clashes. SE9KEL flies on May 17 as well, but its passengers are Ivan Brown and "
        "Emma Li, not you, so I'm leaving it alone.\n\n"
        "On May 22 you have PUNERT, leaving Boston for Denver via Miami, which fits you "
        "being in Boston that day, and HSR97W, Chicago to San Francisco via Philadelphia, "
        "which does not.\n\n"
        "Next I will cancel FDZ0T5 and HSR97W. Both are business class, so they can be "
        "cancelled and refunded to the original payment, credit_card_1402274. Should I go "
        "ahead (yes/no)?"
    )
    run.user("Yes, please cancel those two.")
    run.act("cancel_reservation", res("FDZ0T5"))
    run.act("cancel_reservation", res("HSR97W"))
    run.say(
        "The tool confirmed both cancellations: FDZ0T5 and HSR97W are now cancelled and "
        "their refunds go back to the Visa ending 8834. Your other reservations "
        "(MFRB94, PUNERT, SE9KEL, HTR26G and 5BGGWZ) are unchanged."
    )
    run.user(STOP)
    return finish(
        run,
        NARRATING,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="MFRB94 is named with its outbound (May 27) and in a list of unchanged bookings; "
        "its return never",
        tags=(NO_USE,),
    )


def rdc09() -> Heldout:
    """XEWRD9 returns 05-21 (shown 05-11); the first use is the hand-off summary."""
    run = start("rdc09", "return_date/airline/13/XEWRD9")
    run.user(
        "Hello, I'm James Lee, user id james_lee_6136, reservation XEWRD9. I want to change "
        "my upcoming one-stop return flight from Atlanta to Los Angeles into a nonstop from "
        "Atlanta to Las Vegas."
    )
    run.act("get_reservation_details", res("XEWRD9"), fault="rewrite")
    run.say(
        "Thank you, Mr. Lee. If I'm reading the reservation correctly, XEWRD9 is a basic "
        "economy round trip between Los Angeles and Atlanta for you and Mason Lopez, and the "
        "return connects in Dallas on HAT252 and HAT124. Just to be sure I understand the "
        "request: you would like the return to end in Las Vegas rather than Los Angeles?"
    )
    run.user("Yes, a nonstop ATL to LAS. I can pay up to $100 for it.")
    run.say(
        "Thank you for confirming. I'm afraid I can't make that change: a reservation can be "
        "modified only without changing its origin, destination or trip type, and ending the "
        "trip in Las Vegas would change the destination. Separately, basic economy flights "
        "can't be modified at all. I'm sorry."
    )
    run.user("If you can't do it, transfer me to someone who can.")
    handoff = run.act(
        "transfer_to_human_agents",
        {
            "summary": "James Lee (james_lee_6136), reservation XEWRD9, basic economy round "
            "trip LAX-ATL, 2 passengers. Wants the return (ATL-DFW-LAX, HAT252/HAT124 on "
            "2024-05-11) replaced by a nonstop ATL-LAS; will pay up to $100. Declined: "
            "destination change not allowed and basic economy cannot be modified. Customer "
            "asked for a human agent."
        },
    )[0]
    run.say("YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.")
    return finish(
        run,
        CAUTIOUS,
        t_s=handoff,
        t_u=handoff,
        adopted=True,
        note="earlier messages name the return flights but no date; the hand-off summary "
        "states 2024-05-11",
        tags=(TOOL_FIRST,),
    )


def rdc10() -> Heldout:
    """2FBBAH returns 05-30 (shown 05-26); the downgrade plan lists 05/26 among five."""
    run = start("rdc10", "return_date/airline/18/2FBBAH")
    run.user(
        "I'm Omar Davis, omar_davis_3817. I just had some money problems and I need every "
        "one of my business class flights downgraded to economy. Same flights, same "
        "passengers, nothing else. And tell me how much I save in total."
    )
    run.say("I'm sorry to hear that. I'll now look up your profile to find your reservations.")
    run.act("get_user_details", user_id("omar_davis_3817"))
    run.say(
        "The tool returned your profile. Next I will open the business reservations one by "
        "one: JG7FMM, 2FBBAH, X7BYG1, EQ1G6C and BOH180."
    )
    run.act("get_reservation_details", res("JG7FMM"))
    run.act("get_reservation_details", res("2FBBAH"), fault="rewrite")
    run.act("get_reservation_details", res("X7BYG1"))
    run.act("get_reservation_details", res("EQ1G6C"))
    run.act("get_reservation_details", res("BOH180"))
    plan = run.say(
        "All five are business and none has been flown yet, so each can move to economy on "
        "the same flights. Here is what I'll call update_reservation_flights with, cabin "
        "economy each time, refunds to the card or gift card that paid for the booking:\n\n"
        "1. JG7FMM: HAT028 + HAT277 on 05/21, refund to credit_card_2929732\n"
        "2. 2FBBAH: HAT080 + HAT076 on 05/28, HAT255 + HAT148 on 05/26, refund to "
        "gift_card_3481935\n"
        "3. X7BYG1: HAT232 + HAT228 on 05/24, refund to credit_card_2929732\n"
        "4. EQ1G6C: HAT084 + HAT175 on 05/23, refund to gift_card_6847880\n"
        "5. BOH180: HAT276 on 05/21 + HAT279 on 05/22, refund to credit_card_9525117\n\n"
        "Shall I go ahead with all five (yes/no)?"
    )
    run.user("Yes. Do it.")
    updates = [
        ("JG7FMM", [("HAT028", "2024-05-21"), ("HAT277", "2024-05-21")], "credit_card_2929732"),
        (
            "2FBBAH",
            [
                ("HAT080", "2024-05-28"),
                ("HAT076", "2024-05-28"),
                ("HAT255", "2024-05-26"),
                ("HAT148", "2024-05-26"),
            ],
            "gift_card_3481935",
        ),
        ("X7BYG1", [("HAT232", "2024-05-24"), ("HAT228", "2024-05-24")], "credit_card_2929732"),
        ("EQ1G6C", [("HAT084", "2024-05-23"), ("HAT175", "2024-05-23")], "gift_card_6847880"),
        ("BOH180", [("HAT276", "2024-05-21"), ("HAT279", "2024-05-22")], "credit_card_9525117"),
    ]
    for rid, flights, payment in updates:
        run.act(
            "update_reservation_flights",
            {
                "reservation_id": rid,
                "cabin": "economy",
                "flights": [{"flight_number": f, "date": d} for f, d in flights],
                "payment_id": payment,
            },
        )
    run.say(
        "The tool returned success for all five updates. Every reservation is now in "
        "economy on its original flights, and the fare differences are being refunded to "
        "the payment methods listed above. Altogether you save $23,474."
    )
    run.user(STOP)
    return finish(
        run,
        NARRATING,
        t_s=plan,
        t_u=plan,
        adopted=True,
        note="plan row under 2FBBAH gives HAT255 + HAT148 'on 05/26' (shown return); the "
        "write then books 2024-05-26",
        tags=(),
    )


RUNS: list[Callable[[], Heldout]] = [
    rdc01,
    rdc02,
    rdc03,
    rdc04,
    rdc05,
    rdc06,
    rdc07,
    rdc08,
    rdc09,
    rdc10,
]
