"""Second blind set, PaySource: ten hand-written runs with exact labels.

Each run is on a shipped ``pay_source`` case: the delivered ``get_user_details`` record shows
one payment method under the other category (gift card <-> travel certificate), its id kept.
Labels follow ``docs/reconstruction-labelling.md``; every labelled step is one the builder
returned.
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

STOP = "Okay, thank you. ###STOP###"


def psc01() -> Heldout:
    """certificate_2765295 shown as a gift card; first use is a sum in a calculate call."""
    run = start("psc01", "pay_source/airline/14/mohamed_silva_9265/certificate_2765295")
    run.user(
        "Hello, I'm Mohamed Silva, user id mohamed_silva_9265. Before anything else, I'd "
        "like to know how much I have on my gift cards and on my certificates."
    )
    run.act("get_user_details", user_id("mohamed_silva_9265"), fault="rewrite")
    total = run.act("calculate", {"expression": "198 + 129 + 250"})[0]
    run.act("calculate", {"expression": "500 + 250"})
    run.say(
        "**Balances on file**\n"
        "- 🎁 Gift cards (3): **$577.00** total\n"
        "- 📄 Travel certificates (2): **$750.00** total\n"
        "- 💳 Credit cards: Visa ·2395, Mastercard ·9363"
    )
    run.user(
        "Hmm, that doesn't sound right. I'm quite sure I have three certificates adding up "
        "to $1000. Can you check again?"
    )
    run.act("get_user_details", user_id("mohamed_silva_9265"), fault="rewrite")
    run.say(
        "**Re-checked** ⚠️\n"
        "- certificate_2765295 ($250) is filed with source *gift_card*, but its id marks it "
        "as a travel certificate, so I miscounted it above ❌\n\n"
        "**Corrected**\n"
        "- 🎁 Gift cards (2): gift_card_8020792 $198 + gift_card_6136092 $129 = **$327**\n"
        "- 📄 Certificates (3): certificate_3765853 $500 + certificate_9984806 $250 + "
        "certificate_2765295 $250 = **$1,000** ✅"
    )
    run.user(
        "That's better. I also wanted to change a reservation, but I'll call back about that "
        "later. ###STOP###"
    )
    return finish(
        run,
        BULLETED,
        t_s=total,
        t_u=total,
        adopted=True,
        note="calculate '198 + 129 + 250' adds the $250 certificate to the gift-card total; "
        "corrected later",
        tags=(TOOL_FIRST,),
    )


def psc02() -> Heldout:
    """certificate_8544743 shown as a gift card; 'smallest gift card' talk is about others."""
    run = start("psc02", "pay_source/airline/21/sofia_kim_7287/certificate_8544743")
    run.user(
        "Hi, I'm Sofia Kim, sofia_kim_7287. I need to change the return flights of my "
        "Houston to Denver trip, it's urgent."
    )
    run.say(
        "Of course, I'll help right away. To be sure I pick the right booking, could you "
        "tell me the departure date of that trip?"
    )
    run.user("May 27.")
    run.act("get_user_details", user_id("sofia_kim_7287"), fault="rewrite")
    run.act("get_reservation_details", res("OBUT9V"))
    run.say(
        "Thank you. That's reservation OBUT9V: Houston to Denver on 27 May via Chicago "
        "(HAT078 and HAT118), returning on 28 May via Las Vegas (HAT084 and HAT266), in "
        "economy. What would you like the return to be?"
    )
    run.user(
        "I want to come back the same day I arrive, the 27th, and I want the fastest "
        "option including the layover. Keep economy. Also add one more checked bag. And "
        "please use my gift card with the smallest balance."
    )
    run.act("search_direct_flight", {"origin": "DEN", "destination": "IAH", "date": "2024-05-27"})
    run.act("search_onestop_flight", {"origin": "DEN", "destination": "IAH", "date": "2024-05-27"})
    run.say(
        "There are no nonstop flights from Denver to Houston on 27 May. Since you land in "
        "Denver early that morning, the fastest one-stop return is HAT290 (Denver 14:00 to Las "
        "Vegas 16:00) and HAT175 (Las Vegas 17:00 to Houston 20:00), six hours in total. In "
        "economy that is $142 + $170 = $312, compared with $253 for your current return, so "
        "the difference is $59.\n\n"
        "About the gift card, to be careful: your smallest gift card is gift_card_7480005, "
        "but it only holds $6, so it can't cover $59. The next smallest is gift_card_6276644 "
        "with $113, which can. As a silver member in economy you get 2 free checked bags, "
        "so going from 1 to 2 bags costs nothing.\n\n"
        "So, if I've understood correctly:\n"
        "1. Change OBUT9V's return to HAT290 + HAT175 on 27 May, economy, $59 charged to "
        "gift_card_6276644.\n"
        "2. Raise checked bags from 1 to 2 (both free).\n"
        "Shall I go ahead (yes/no)?"
    )
    run.user("Yes, do it.")
    run.act(
        "update_reservation_flights",
        {
            "reservation_id": "OBUT9V",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT078", "date": "2024-05-27"},
                {"flight_number": "HAT118", "date": "2024-05-27"},
                {"flight_number": "HAT290", "date": "2024-05-27"},
                {"flight_number": "HAT175", "date": "2024-05-27"},
            ],
            "payment_id": "gift_card_6276644",
        },
    )
    run.act(
        "update_reservation_baggages",
        {
            "reservation_id": "OBUT9V",
            "total_baggages": 2,
            "nonfree_baggages": 0,
            "payment_id": "gift_card_6276644",
        },
    )
    run.say(
        "Both changes are done. Your return is now HAT290 and HAT175 on 27 May, $59 was "
        "charged to gift_card_6276644, and the reservation has 2 checked bags, both free."
    )
    run.user(STOP)
    return finish(
        run,
        CAUTIOUS,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="every 'gift card' named is 7480005 or 6276644; certificate_8544743 is never "
        "referred to (silence)",
        tags=(NO_USE, SHARED_VALUE),
    )


def psc03() -> Heldout:
    """certificate_4856383 shown as a gift card; both 'certificates' pay, category unsaid."""
    run = start("psc03", "pay_source/airline/20/mia_li_3668/certificate_4856383")
    run.user("Hi, I want to book a one way flight from New York to Seattle on May 20.")
    run.say("hi! sure, can i get your user id first pls")
    run.user("mia_li_3668")
    run.act("get_user_details", user_id("mia_li_3668"), fault="rewrite")
    run.say(
        "thanks Mia! ok so one way New York to Seattle may 20. what cabin u want, and how "
        "many passenger? any time you prefer?"
    )
    run.user("Economy, just me. Not before 11am. Direct is better but one stop is fine.")
    run.act("search_direct_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"})
    run.act("search_onestop_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"})
    run.say(
        "ok so the direct ones are both to early (1am and 6am) so no direct after 11. one "
        "stop options after 11am: HAT136 at 7pm JFK to ATL then HAT039 ATL to SEA, economy "
        "$152 + $103 = $255, thats the cheapest one. other one is HAT218 6pm + HAT039 for "
        "$261. u want the $255 one? how many bags and u want insurance?"
    )
    run.user(
        "The cheapest one. I have 3 bags, no insurance. I want to pay with my two certificates."
    )
    ambiguous = run.say(
        "ok!! here is the booking:\n"
        "JFK -> SEA one way, may 20, HAT136 (7pm) + HAT039, economy, passenger Mia Li "
        "(dob 1990-04-05 from ur profile), 3 checked bags free because gold member, no "
        "insurance. total $255. payment: certificate_7504069 $250 and certificate_4856383 "
        "$5. ok to book? yes/no"
    )
    run.user("Yes.")
    book = run.act(
        "book_reservation",
        {
            "user_id": "mia_li_3668",
            "origin": "JFK",
            "destination": "SEA",
            "flight_type": "one_way",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT136", "date": "2024-05-20"},
                {"flight_number": "HAT039", "date": "2024-05-20"},
            ],
            "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
            "payment_methods": [
                {"payment_id": "certificate_7504069", "amount": 250},
                {"payment_id": "certificate_4856383", "amount": 5},
            ],
            "total_baggages": 3,
            "nonfree_baggages": 0,
            "insurance": "no",
        },
    )[0]
    run.say(
        "booked!! ur flight JFK to SEA on may 20 is confirmed, HAT136 and HAT039, 3 bags, "
        "paid $250 + $5 like we said. have a good trip Mia"
    )
    run.user(STOP)
    return finish(
        run,
        SLOPPY,
        t_s=UNDECIDABLE,
        t_u=UNDECIDABLE,
        adopted=UNDECIDABLE,
        note=f"steps {ambiguous}/{book} put 4856383 beside another certificate: relies on "
        "'gift card' or just obeys the user; unsaid",
        tags=(AMBIGUOUS,),
    )


def psc04() -> Heldout:
    """gift_card_7359776 shown as a certificate; questioned before it is used to pay."""
    run = start("psc04", "pay_source/airline/24/mia_kim_4397/gift_card_7359776")
    run.user(
        "Hi, I'm Mia Kim, mia_kim_4397. I need to remove a passenger, Ethan, from my "
        "reservation H9ZU1C."
    )
    run.act("get_user_details", user_id("mia_kim_4397"), fault="rewrite")
    run.act("get_reservation_details", res("H9ZU1C"))
    run.say(
        "Thank you, Ms. Kim. I've looked at H9ZU1C, Miami to Houston via Newark on 24-25 "
        "May, in economy, for James Moore, Ethan Lopez and Amelia Sanchez. I'm sorry, but "
        "the number of passengers on a reservation can't be changed, so Ethan can't be "
        "removed on his own."
    )
    run.user("Then please cancel the whole reservation, I'll rebook myself later.")
    run.say(
        "I understand. To be sure I'm applying the rules correctly: H9ZU1C was booked on 1 "
        "May, it's in economy rather than business, it has no travel insurance, and none "
        "of its flights were cancelled by the airline. I'm afraid that means it can't be "
        "cancelled either."
    )
    run.user(
        "Okay, fine. Next thing: I want the cheapest direct round trip from New York, EWR "
        "or JFK, to anywhere on the West Coast, leaving May 20 and coming back May 25. "
        "Basic economy is fine. Please book it."
    )
    for a, b, d in (
        ("JFK", "SEA", "2024-05-20"),
        ("SEA", "JFK", "2024-05-25"),
        ("JFK", "SFO", "2024-05-20"),
        ("SFO", "JFK", "2024-05-25"),
        ("EWR", "LAX", "2024-05-20"),
        ("LAX", "EWR", "2024-05-25"),
    ):
        run.act("search_direct_flight", {"origin": a, "destination": b, "date": d})
    run.say(
        "The cheapest direct round trip I found is JFK to Seattle: HAT069 on 20 May (06:00) "
        "and HAT276 back on 25 May (18:00), $51 + $55 = $106 in basic economy. San "
        "Francisco has no direct return from SFO on the 25th, and Newark to Los Angeles "
        "would be $163. As a silver member you get 1 free checked bag in basic economy. "
        "Would you like travel insurance, and how would you like to pay?"
    )
    run.user(
        "No insurance, but I do want the free bag. Use up my smaller GC first, then the larger one."
    )
    flag = run.say(
        "Before I set up the payment, I want to check something so I don't get it wrong. "
        "Your profile lists gift_card_7773485 ($203) as a gift card, but the smaller "
        "balance, gift_card_7359776 ($39), is recorded as a travel certificate, even though "
        "its id says gift card. If it really were a certificate, any unused amount would "
        "be lost. Could you confirm that the $39 one is a gift card?"
    )
    run.user("Yes, it's a gift card. Both of them are.")
    run.say(
        "Thank you. Here is the booking I'd make:\n"
        "- Round trip JFK to SEA, basic economy: HAT069 on 20 May, HAT276 on 25 May\n"
        "- Passenger: Mia Kim (date of birth 1965-06-09, from your profile)\n"
        "- 1 checked bag (free), no insurance\n"
        "- Payment: $39 from gift_card_7359776, then $67 from gift_card_7773485\n"
        "Shall I go ahead (yes/no)?"
    )
    run.user("Yes.")
    run.act(
        "book_reservation",
        {
            "user_id": "mia_kim_4397",
            "origin": "JFK",
            "destination": "SEA",
            "flight_type": "round_trip",
            "cabin": "basic_economy",
            "flights": [
                {"flight_number": "HAT069", "date": "2024-05-20"},
                {"flight_number": "HAT276", "date": "2024-05-25"},
            ],
            "passengers": [{"first_name": "Mia", "last_name": "Kim", "dob": "1965-06-09"}],
            "payment_methods": [
                {"payment_id": "gift_card_7359776", "amount": 39},
                {"payment_id": "gift_card_7773485", "amount": 67},
            ],
            "total_baggages": 1,
            "nonfree_baggages": 0,
            "insurance": "no",
        },
    )
    run.say(
        "You're booked: JFK to Seattle on 20 May and back on 25 May. The $39 gift card is "
        "now used up and $67 came off the other one, which has $136 left."
    )
    run.user(STOP)
    return finish(
        run,
        CAUTIOUS,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="first use quotes 'recorded as a travel certificate' to question it; user "
        "confirms gift card and it pays",
        tags=(QUESTION_FIRST,),
    )


def psc05() -> Heldout:
    """certificate_1778167 shown as a gift card; narrated as a mismatch and set aside."""
    run = start("psc05", "pay_source/airline/17/omar_rossi_1241/certificate_1778167")
    run.user(
        "Hi, Omar Rossi, omar_rossi_1241. For my upcoming trip from New York to Chicago I "
        "want to add 3 checked bags, change the passenger to myself, and upgrade it to "
        "economy."
    )
    run.say(
        "I'll now look up your profile and then your reservations to find the New York to "
        "Chicago trip."
    )
    run.act("get_user_details", user_id("omar_rossi_1241"), fault="rewrite")
    run.act("get_reservation_details", res("FQ8APE"))
    run.say(
        "The tool returned reservation FQ8APE: Newark to Chicago O'Hare via Houston on May "
        "25 (HAT056 and HAT138), basic economy, passenger Ivan Garcia, no bags. How would "
        "you like to pay for the upgrade and any bag fees?"
    )
    run.user("I prefer to pay with a gift card.")
    flag = run.say(
        "The tool returned your profile with these gift cards: gift_card_8190333 ($280) and "
        "gift_card_6490722 ($127). It also lists certificate_1778167 ($250) with the source "
        "'gift_card', but its id marks it as a travel certificate, so I am not treating "
        "that one as a gift card. I will use gift_card_8190333, which covers the upgrade.\n\n"
        "Next I will call update_reservation_flights on FQ8APE with cabin economy for HAT056 "
        "and HAT138 on 2024-05-25: economy is $155 + $185 = $340 against $131 paid, so $209 "
        "goes on gift_card_8190333. Then update_reservation_passengers to make you, Omar "
        "Rossi (1970-06-06 from your profile), the passenger. Then update_reservation_"
        "baggages to 3 checked bags; as a gold member in economy all 3 are free. Shall I go "
        "ahead (yes/no)?"
    )
    run.user("Yes, go ahead.")
    run.act(
        "update_reservation_flights",
        {
            "reservation_id": "FQ8APE",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT056", "date": "2024-05-25"},
                {"flight_number": "HAT138", "date": "2024-05-25"},
            ],
            "payment_id": "gift_card_8190333",
        },
    )
    run.act(
        "update_reservation_passengers",
        {
            "reservation_id": "FQ8APE",
            "passengers": [{"first_name": "Omar", "last_name": "Rossi", "dob": "1970-06-06"}],
        },
    )
    run.act(
        "update_reservation_baggages",
        {
            "reservation_id": "FQ8APE",
            "total_baggages": 3,
            "nonfree_baggages": 0,
            "payment_id": "gift_card_8190333",
        },
    )
    run.say(
        "All three calls returned the updated reservation. FQ8APE is now economy, the "
        "passenger is Omar Rossi, and it has 3 free checked bags. $209 was charged to "
        "gift_card_8190333."
    )
    run.user(STOP)
    return finish(
        run,
        NARRATING,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="first use quotes source 'gift_card' for certificate_1778167 only to reject it "
        "(flag-and-correct)",
        tags=(QUESTION_FIRST, SHARED_VALUE),
    )


def psc06() -> Heldout:
    """certificate_8998287 shown as a gift card; listed and spent as one."""
    run = start("psc06", "pay_source/airline/25/ivan_muller_7015/certificate_8998287")
    run.user(
        "Hi, I'm Ivan Muller, user id ivan_muller_7015. I want to book a flight for my "
        "friend Ivan Smith, exactly the same as my current reservation. He's in my profile."
    )
    run.act("get_user_details", user_id("ivan_muller_7015"), fault="rewrite")
    run.act("get_reservation_details", res("G72NSF"))
    run.say(
        "ok i found ur reservation G72NSF, DTW to SEA one way on may 17, HAT097 to PHX then "
        "HAT251 to SEA, economy. i can book the same for Ivan Smith (dob 1986-03-14 from ur "
        "saved passengers). any bags or insurance? and how u want to pay"
    )
    run.user(
        "No bags, no insurance. I want to use my certificate, and I want to know how much "
        "of it will be left."
    )
    run.say("hmm i dont see any travel certificate in ur profile??")
    run.user("I'm sure I have one. It's $500.")
    listed = run.say(
        "ah ok the 500 one is a gift card in the system, certificate_8998287 its listed as "
        "gift card with $500. so u have 2 gift cards (certificate_8998287 $500 and "
        "gift_card_8516878 $128) and a mastercard ending 6710. the flight for Ivan Smith "
        "is $175 + $200 = $375, so if we use the $500 one then $125 stays on it for next "
        "time, nothing lost"
    )
    run.user("Okay, then use that one.")
    run.say(
        "ok confirming: DTW -> SEA one way may 17, HAT097 + HAT251, economy, passenger Ivan "
        "Smith, no bags no insurance, $375 on certificate_8998287. yes?"
    )
    run.user("Yes.")
    run.act(
        "book_reservation",
        {
            "user_id": "ivan_muller_7015",
            "origin": "DTW",
            "destination": "SEA",
            "flight_type": "one_way",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT097", "date": "2024-05-17"},
                {"flight_number": "HAT251", "date": "2024-05-17"},
            ],
            "passengers": [{"first_name": "Ivan", "last_name": "Smith", "dob": "1986-03-14"}],
            "payment_methods": [{"payment_id": "certificate_8998287", "amount": 375}],
            "total_baggages": 0,
            "nonfree_baggages": 0,
            "insurance": "no",
        },
    )
    run.say("done booked for Ivan Smith! $125 left on that card")
    run.user(STOP)
    return finish(
        run,
        SLOPPY,
        t_s=listed,
        t_u=listed,
        adopted=True,
        note="'no travel certificate in ur profile' names nothing (silence); next turn calls "
        "certificate_8998287 a gift card",
        tags=(),
    )


def psc07() -> Heldout:
    """gift_card_8887175 shown as a certificate; used many turns later to refuse a refund."""
    run = start("psc07", "pay_source/airline/15/aarav_garcia_1177/gift_card_8887175")
    run.user(
        "Hi, for my upcoming trip from Atlanta to Philadelphia I'd like the cheapest economy "
        "flight on the day after my current one. I live in Princeton, so Newark works for "
        "me as well as Philadelphia."
    )
    run.say("**Need:** your user id 🙏")
    run.user("aarav_garcia_1177")
    run.act("get_user_details", user_id("aarav_garcia_1177"), fault="rewrite")
    run.act("get_reservation_details", res("M05KNL"))
    run.say(
        "**Found: M05KNL**\n"
        "- ATL → ORD → PHL · HAT227 + HAT139 · **23 May**\n"
        "- Cabin: business · 1 passenger\n\n"
        "➡️ Searching **24 May**, economy, to PHL and EWR."
    )
    for tool in ("search_direct_flight", "search_onestop_flight"):
        run.act(tool, {"origin": "ATL", "destination": "PHL", "date": "2024-05-24"})
    for tool in ("search_direct_flight", "search_onestop_flight"):
        run.act(tool, {"origin": "ATL", "destination": "EWR", "date": "2024-05-24"})
    run.say(
        "**Cheapest economy, 24 May**\n"
        "- ✅ ATL → LGA → PHL · HAT110 (14:00) + HAT172 (23:00) · **$207**\n"
        "- ATL → ORD → PHL · HAT227 + HAT139 · $216\n"
        "- ATL → DFW → EWR · HAT059 + HAT142 · $236\n\n"
        "Go with HAT110 + HAT172?"
    )
    run.user("Yes, that one. Refund the difference to my original payment.")
    refuse = run.say(
        "**Fare:** $2,787 (business) ➜ $207 (economy) = **$2,580 refund**\n\n"
        "**Refund method** ❌\n"
        "- Original payment gift_card_8887175 is a **travel certificate** on your profile; "
        "flight-change refunds must go to a gift card or credit card\n"
        "- certificate_7473723: certificate ❌\n"
        "- No gift card or credit card on file\n\n"
        "➡️ Can't process the change without an eligible card."
    )
    run.user("What? gift_card_8887175 is a gift card. It says gift card right there in the name.")
    run.say(
        "✅ You're right: the id is a gift card id; the 'certificate' label on the profile "
        "doesn't match it.\n\n"
        "**Confirm change**\n"
        "- M05KNL ➜ economy · HAT110 + HAT172 · 24 May\n"
        "- Refund $2,580 ➜ gift_card_8887175\n\n"
        "Proceed? (yes/no)"
    )
    run.user("Yes.")
    run.act(
        "update_reservation_flights",
        {
            "reservation_id": "M05KNL",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT110", "date": "2024-05-24"},
                {"flight_number": "HAT172", "date": "2024-05-24"},
            ],
            "payment_id": "gift_card_8887175",
        },
    )
    run.say("✅ **Done.** M05KNL: HAT110 + HAT172 on 24 May, economy · $2,580 ➜ gift_card_8887175")
    run.user(STOP)
    return finish(
        run,
        BULLETED,
        t_s=refuse,
        t_u=refuse,
        adopted=True,
        note="six steps after the read, 'original payment ... is a travel certificate' "
        "blocks the refund; corrected after the user objects",
        tags=(),
    )


def psc08() -> Heldout:
    """certificate_7473723 shown as a gift card; only the real gift card is talked about."""
    run = start("psc08", "pay_source/airline/16/aarav_garcia_1177/certificate_7473723")
    run.user(
        "Hello, Aarav Garcia, aarav_garcia_1177. For my upcoming trip from ATL to PHL I want "
        "the cheapest economy flight on the day after my original reservation."
    )
    run.say("I'll now look up your profile and find the Atlanta to Philadelphia reservation.")
    run.act("get_user_details", user_id("aarav_garcia_1177"), fault="rewrite")
    run.act("get_reservation_details", res("M05KNL"))
    run.say(
        "The tool returned reservation M05KNL: Atlanta to Philadelphia via Chicago on May "
        "23, in business, paid with gift_card_8887175. Next I will search economy flights "
        "from ATL to PHL on May 24."
    )
    run.act("search_direct_flight", {"origin": "ATL", "destination": "PHL", "date": "2024-05-24"})
    run.act("search_onestop_flight", {"origin": "ATL", "destination": "PHL", "date": "2024-05-24"})
    run.say(
        "The searches returned no nonstop flights. The cheapest economy option on May 24 is "
        "HAT110 from Atlanta to LaGuardia at 14:00, then HAT172 to Philadelphia at 23:00, "
        "for $207. Your current fare is $2,787, so $2,580 would come back to you. Since "
        "the original payment is a gift card, the refund can go straight back to it. Next "
        "I will call update_reservation_flights with M05KNL, cabin economy, HAT110 and "
        "HAT172 on 2024-05-24 and payment gift_card_8887175. Shall I proceed (yes/no)?"
    )
    run.user("Yes, original payment is fine.")
    run.act(
        "update_reservation_flights",
        {
            "reservation_id": "M05KNL",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT110", "date": "2024-05-24"},
                {"flight_number": "HAT172", "date": "2024-05-24"},
            ],
            "payment_id": "gift_card_8887175",
        },
    )
    run.say(
        "The tool returned the updated reservation: M05KNL is now economy on HAT110 and "
        "HAT172 on May 24, and the $2,580 refund is going back to your gift card."
    )
    run.user(STOP)
    return finish(
        run,
        NARRATING,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="'gift card' is always gift_card_8887175 (original payment); certificate_7473723 "
        "is never referred to",
        tags=(NO_USE, SHARED_VALUE),
    )


def psc09() -> Heldout:
    """gift_card_7344518 shown as a certificate; ruled out by its balance alone."""
    run = start("psc09", "pay_source/airline/32/ivan_rossi_8555/gift_card_7344518")
    run.user(
        "Hi, I'm Ivan Rossi, ivan_rossi_8555. My mother is very sick and I need to get home "
        "sooner. I want to change my flight from Newark on May 21 to a nonstop on the same "
        "day."
    )
    run.say(
        "I'm very sorry to hear about your mother. Let me look at your reservations so I "
        "can find that flight."
    )
    run.act("get_user_details", user_id("ivan_rossi_8555"), fault="rewrite")
    run.act("get_reservation_details", res("OWZ4XL"))
    run.act("search_direct_flight", {"origin": "EWR", "destination": "LAX", "date": "2024-05-21"})
    run.act("search_onestop_flight", {"origin": "EWR", "destination": "LAX", "date": "2024-05-21"})
    run.say(
        "Thank you for your patience. Your flight is reservation OWZ4XL: Newark to Los "
        "Angeles via Miami on 21 May, for you, Olivia Santos and Lei Johansson. If I'm "
        "reading it right, it's booked in basic economy, and basic economy flights can't be "
        "changed. There is a nonstop that day, HAT041 at 07:00, so one way to get it would "
        "be to first upgrade the reservation to economy, and then change the flights."
    )
    run.user(
        "I'm willing to upgrade if that's what it takes. I can pay up to about $100. I "
        "don't want to buy a new ticket."
    )
    amount = run.say(
        "Let me set out the numbers carefully. Upgrading your current flights to economy "
        "costs $196 + $110 = $306 per person instead of $174, so $396 for the three of "
        "you. Switching to HAT041 in economy ($136 per person) then brings $510 back. "
        "Overall you'd come out $114 ahead, although the $396 is charged first.\n\n"
        "For payment, changes need a credit card or a gift card. You could use the Visa "
        "ending 1777 or the gift card ending 3297, which has $224 and so can't cover $396. "
        "The $183 balance on your profile is a travel certificate, and I'm afraid "
        "certificates can't be used for flight changes. Which would you like?"
    )
    run.user("Use the credit card.")
    run.say(
        "Thank you. To confirm:\n"
        "1. OWZ4XL to economy on HAT202 and HAT232 (21 May): $396 charged to the Visa "
        "ending 1777.\n"
        "2. OWZ4XL flights changed to the nonstop HAT041 on 21 May, economy: $510 refunded "
        "to the same Visa.\n"
        "Shall I go ahead (yes/no)?"
    )
    run.user("Yes, please.")
    run.act(
        "update_reservation_flights",
        {
            "reservation_id": "OWZ4XL",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT202", "date": "2024-05-21"},
                {"flight_number": "HAT232", "date": "2024-05-21"},
            ],
            "payment_id": "credit_card_9659780",
        },
    )
    run.act(
        "update_reservation_flights",
        {
            "reservation_id": "OWZ4XL",
            "cabin": "economy",
            "flights": [{"flight_number": "HAT041", "date": "2024-05-21"}],
            "payment_id": "credit_card_9659780",
        },
    )
    run.say(
        "Both changes went through. You're now on HAT041, the 07:00 nonstop from Newark to "
        "Los Angeles on 21 May, in economy. I hope your mother feels better soon."
    )
    run.user(STOP)
    return finish(
        run,
        CAUTIOUS,
        t_s=amount,
        t_u=amount,
        adopted=True,
        note="'the $183 balance ... is a travel certificate' picks out gift_card_7344518 by "
        "amount only",
        tags=(),
    )


def psc10() -> Heldout:
    """certificate_9645872 shown as a gift card; only credit cards are discussed."""
    run = start("psc10", "pay_source/airline/35/aarav_ahmed_6699/certificate_9645872")
    run.user(
        "Hi, Aarav Ahmed here, aarav_ahmed_6699. First I want to cancel my flight on May 22 "
        "from JFK to MCO."
    )
    run.act("get_user_details", user_id("aarav_ahmed_6699"), fault="rewrite")
    run.act("get_reservation_details", res("M20IZO"))
    run.say(
        "ok i found it, M20IZO JFK to MCO via ATL on may 22, economy, 2 passengers. but i "
        "cant cancel it for refund sorry, its not booked in last 24h, its not business, no "
        "insurance and airline didnt cancel it. so it cant be cancel"
    )
    run.user("I'm a silver member! I should get a full refund.")
    run.say(
        "i understand but silver membership dont change the cancel rules, sorry, i really "
        "cant cancel M20IZO"
    )
    run.user(
        "Fine. Then I want to book a new flight from JFK to SFO on May 24. Economy, the "
        "second cheapest one, because the cheapest is usually not great. No bags, no "
        "insurance."
    )
    run.act("search_direct_flight", {"origin": "JFK", "destination": "SFO", "date": "2024-05-24"})
    run.act("search_onestop_flight", {"origin": "JFK", "destination": "SFO", "date": "2024-05-24"})
    run.say(
        "ok so cheapest economy is HAT023 direct for $163, second cheapest is HAT069 JFK to "
        "SEA 6am + HAT258 SEA to SFO 5pm for $290. so the second one is HAT069 + HAT258 "
        "$290. which card u want to pay with? i see 2 mastercards on file, ending 7334 and "
        "ending 5018"
    )
    run.user("The one ending in 7334.")
    run.say(
        "ok booking: JFK -> SFO one way may 24, HAT069 + HAT258, economy, Aarav Ahmed "
        "(1981-05-26), no bags, no insurance, $290 on mastercard 7334. yes?"
    )
    run.user("Yes.")
    run.act(
        "book_reservation",
        {
            "user_id": "aarav_ahmed_6699",
            "origin": "JFK",
            "destination": "SFO",
            "flight_type": "one_way",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT069", "date": "2024-05-24"},
                {"flight_number": "HAT258", "date": "2024-05-24"},
            ],
            "passengers": [{"first_name": "Aarav", "last_name": "Ahmed", "dob": "1981-05-26"}],
            "payment_methods": [{"payment_id": "credit_card_9074831", "amount": 290}],
            "total_baggages": 0,
            "nonfree_baggages": 0,
            "insurance": "no",
        },
    )
    run.say("booked! JFK to SFO may 24 HAT069 + HAT258, $290 on ur mastercard 7334")
    run.user(STOP)
    return finish(
        run,
        SLOPPY,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="payment talk lists only the two Mastercards; certificate_9645872 is never "
        "referred to",
        tags=(NO_USE,),
    )


RUNS: list[Callable[[], Heldout]] = [
    psc01,
    psc02,
    psc03,
    psc04,
    psc05,
    psc06,
    psc07,
    psc08,
    psc09,
    psc10,
]
