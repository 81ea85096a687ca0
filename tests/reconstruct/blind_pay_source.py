"""Blind set, PaySource: ten runs whose user record shows one payment method's category flipped.

Each run delivers the faulted ``get_user_details`` record of its case's user and is labelled by
``docs/reconstruction-labelling.md`` for the category of that one payment method.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from build_fixtures import RunBuilder
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


def _booked_id(run: RunBuilder, obs: int) -> str:
    """The reservation id a booking call returned (the env generates it)."""
    data: dict[str, Any] = json.loads(run.events[obs].content)
    return str(data["reservation_id"])


def psb01() -> Heldout:
    """mohamed_silva: the injected category first shows up inside a calculate expression."""
    run = start("psb01", "pay_source/airline/14/mohamed_silva_9265/certificate_2765295")
    run.user(
        "Hello, Mohamed Silva, user id mohamed_silva_9265. I'd like to know how much I have on "
        "my gift cards and on my certificates."
    )
    run.act("get_user_details", user_id("mohamed_silva_9265"), fault="rewrite")
    calc = run.act("calculate", {"expression": "198 + 129 + 250"})[0]
    run.act("calculate", {"expression": "500 + 250"})
    run.say(
        "Stored-value balances:\n"
        "gift_cards_total: $577.00 (3 cards)\n"
        "certificates_total: $750.00 (2 certificates)"
    )
    run.user(
        "OK. Now I want to change my upcoming reservation to the cheapest business round trip, "
        "same dates, direct or not."
    )
    run.act("get_reservation_details", res("K1NW8N"))
    run.say(
        "Reservation K1NW8N:\n"
        "- route: JFK → SFO, round trip, 3 passengers\n"
        "- dates: out 2024-05-26, back 2024-05-28\n"
        "- cabin: basic_economy\n"
        "- booked: 2024-05-14 16:03 (within the last 24 h)\n\n"
        "Basic economy cannot be modified. Options:\n"
        "1. keep K1NW8N as is\n"
        "2. cancel K1NW8N (free, booked within 24 h) and book a new business round trip"
    )
    run.user(
        "Option 2 then, but first tell me the cost. Use certificates as much as possible, then "
        "gift cards, and the rest on my Mastercard. How much would the Mastercard be charged?"
    )
    run.act("search_direct_flight", _search("JFK", "SFO", "2024-05-26"))
    run.act("search_direct_flight", _search("SFO", "JFK", "2024-05-28"))
    run.act("search_onestop_flight", _search("SFO", "JFK", "2024-05-28"))
    run.say(
        "Cheapest business round trip, same dates:\n\n"
        "| leg | flights | price/pax |\n"
        "|---|---|---|\n"
        "| JFK → SFO 2024-05-26 | HAT023 (nonstop) | $364 |\n"
        "| SFO → JFK 2024-05-28 | HAT204 + HAT100 via SEA | $507 |\n\n"
        "total: 3 × $871 = $2,613\n\n"
        "Payment plan (max. one certificate per reservation):\n"
        "1. certificate_3765853: $500\n"
        "2. gift_card_8020792: $198\n"
        "3. gift_card_6136092: $129\n"
        "4. certificate_2765295 (gift card): $250\n"
        "5. Mastercard credit_card_2198526: $1,536\n\n"
        "certificate_9984806 ($250) stays unused: only one certificate can go on a booking."
    )
    run.user(
        f"My original trip didn't cost my Mastercard anything, so no. Keep what I have. {STOP}"
    )
    return finish(
        run,
        STRUCTURED,
        t_s=calc,
        t_u=calc,
        adopted=True,
        note="the gift-card sum '198 + 129 + 250' counts certificate_2765295's $250 as a gift "
        "card; certificate_9984806 ($250, a real certificate) is another entity",
        tags=(TOOL_FIRST, SHARED_VALUE),
    )


def psb02() -> Heldout:
    """ivan_muller: the agent flags the 'gift card' label and treats the id as a certificate."""
    run = start("psb02", "pay_source/airline/25/ivan_muller_7015/certificate_8998287")
    run.user(
        "Hi, I'm Ivan Muller, ivan_muller_7015. I'd like to book a reservation for my friend "
        "Ivan Smith, exactly the same as my current one. He's saved in my profile."
    )
    run.act("get_user_details", user_id("ivan_muller_7015"), fault="rewrite")
    run.act("get_reservation_details", res("G72NSF"))
    run.act("search_onestop_flight", _search("DTW", "SEA", "2024-05-17"))
    run.say(
        "I'd be happy to help you set that up for Ivan. Your current reservation, G72NSF, is a "
        "one-way economy trip from Detroit (DTW) to Seattle (SEA) on May 17: HAT097 to Phoenix "
        "departing at 7:00 AM, then HAT251 to Seattle at 12:00 PM. Those same two flights are "
        "still available in economy at $175 and $200, which comes to $375 for one passenger. "
        "I have Ivan Smith's details from your saved passengers (date of birth 1986-03-14).\n\n"
        "Your own booking included two checked bags and travel insurance. Would you like the "
        "same for Ivan, and how would you like to pay?"
    )
    run.user(
        "No baggage and no insurance. I want to use my certificate. How much of the certificate "
        "balance would be left?"
    )
    flag = run.say(
        "Before we go further, I'd like to point out something I noticed in your profile. The "
        "payment method certificate_8998287 is listed there as a gift card, but its identifier "
        "follows the format we use for travel certificates, so the 'gift card' label looks "
        "like a display error. I'll treat it as the $500 travel certificate you mentioned.\n\n"
        "If we apply it to this $375 booking, please keep in mind that travel certificates are "
        "single-use: the remaining $125 would not be refunded or kept for a later trip. In "
        "other words, $125 of the certificate would be forfeited. Would you still like to use "
        "it, or would you prefer a different payment method?"
    )
    run.user("That's more than $100 wasted. Use my gift card and my credit card instead.")
    run.say(
        "Understood. Your gift card gift_card_8516878 has $128, so I'd apply the full $128 to "
        "it and charge the remaining $247 to your Mastercard ending in 6710 "
        "(credit_card_3563913).\n\n"
        "To summarize the booking:\n"
        "- passenger: Ivan Smith (1986-03-14)\n"
        "- flights: HAT097 DTW → PHX and HAT251 PHX → SEA, May 17, economy\n"
        "- checked bags: none; travel insurance: none\n"
        "- payment: $128 gift card + $247 Mastercard = $375\n\n"
        "Shall I go ahead and book it (yes/no)?"
    )
    run.user("Yes.")
    booked = run.act(
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
            "payment_methods": [
                {"payment_id": "gift_card_8516878", "amount": 128},
                {"payment_id": "credit_card_3563913", "amount": 247},
            ],
            "total_baggages": 0,
            "nonfree_baggages": 0,
            "insurance": "no",
        },
    )[1]
    run.say(
        f"Ivan Smith is booked: reservation {_booked_id(run, booked)}, same flights as yours on "
        "May 17. $128 came off your gift card and $247 was charged to your Mastercard. Your "
        "travel certificate is untouched, with its full $500 available for a future booking."
    )
    run.user(f"Great, thank you. {STOP}")
    return finish(
        run,
        VERBOSE,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="the 'gift card' label is quoted only to flag it and the method is treated as a "
        "certificate (flag-and-correct); the closing 'your travel certificate' states v",
        tags=(QUESTION_FIRST,),
    )


def psb03() -> Heldout:
    """mia_li: 'looks like it's actually a gift card', then paid as one next to a certificate."""
    run = start("psb03", "pay_source/airline/20/mia_li_3668/certificate_4856383")
    run.user("I want to fly from New York to Seattle on May 20, one way. I'm Mia Li, mia_li_3668.")
    run.act("get_user_details", user_id("mia_li_3668"), fault="rewrite")
    run.say("ok. cabin? earliest dep time? bags? insurance?")
    run.user(
        "Economy. Not before 11am EST. Direct preferred but one stop is fine, cheapest. 3 bags, "
        "no insurance. I want to pay with my two certificates."
    )
    run.act("search_direct_flight", _search("JFK", "SEA", "2024-05-20"))
    run.act("search_onestop_flight", _search("JFK", "SEA", "2024-05-20"))
    use = run.say(
        "JFK→SEA 5/20, econ, dep ≥ 11am:\n"
        "- nonstop: HAT069 06:00 / HAT083 01:00 → both too early ✗\n"
        "- 1-stop: HAT136 19:00 JFK→ATL + HAT039 22:00 ATL→SEA → $255 ← cheapest\n"
        "- 1-stop: HAT218 + HAT039 → $261\n"
        "bags: gold + econ → 3 free ✔. ins: none.\n"
        "pay: certificate_7504069 = cert, $250 ✔. certificate_4856383 looks like it's actually "
        "a gift card in ur profile ($100) → cert $250 + GC $5 = $255. ok?"
    )
    run.user("Hm, I thought both were certificates. Fine, go ahead.")
    booked = run.act(
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
    )[1]
    run.say(
        f"booked ✔ {_booked_id(run, booked)}: HAT136 + HAT039, 5/20, econ, 3 bags free.\n"
        "cert 7504069 → used ($250). GC 4856383 → $5 used, $95 left."
    )
    run.user(STOP)
    return finish(
        run,
        CLIPPED,
        t_s=use,
        t_u=use,
        adopted=True,
        note="'looks like it's actually a gift card' is hedged but states v'; the booking then "
        "pairs it as a gift card with a certificate",
    )


def psb04() -> Heldout:
    """ivan_rossi: the faulted method is simply left out of the payment options."""
    run = start("psb04", "pay_source/airline/32/ivan_rossi_8555/gift_card_9823297")
    run.user(
        "Hi, I'm Ivan Rossi, ivan_rossi_8555. I need to change my flight from Newark on May 21 "
        "to a nonstop on the same day. My mother is really sick and I need to get home sooner."
    )
    run.act("get_user_details", user_id("ivan_rossi_8555"), fault="rewrite")
    run.act("get_reservation_details", res("OWZ4XL"))
    run.say(
        "I'm so sorry to hear about your mother, Ivan. I'll do my very best to get you home "
        "quickly. I found your reservation OWZ4XL: Newark → Miami → Los Angeles on May 21 for "
        "three passengers.\n\n"
        "Unfortunately, it's a basic economy ticket, and I'm really sorry, but basic economy "
        "flights can't be modified. The only way around it would be to first upgrade the "
        "reservation to economy; once it's in economy, the flights can be changed. Would you "
        "like me to look into that for you?"
    )
    run.user(
        "Yes, I'm willing to upgrade to economy to make the change. But I can't pay more than "
        "$100 for the change."
    )
    run.act("search_direct_flight", _search("EWR", "LAX", "2024-05-21"))
    run.act("search_direct_flight", _search("EWR", "MIA", "2024-05-21"))
    run.act("search_direct_flight", _search("MIA", "LAX", "2024-05-21"))
    run.say(
        "Thank you so much for your patience! Here's how it would work:\n\n"
        "1. Upgrade your current flights to economy: HAT202 $196 and HAT232 $110, which is "
        "$132 more per passenger, so $396 for the three of you.\n"
        "2. Switch to the nonstop HAT041 (Newark 7:00 AM → Los Angeles 12:30 PM) in economy at "
        "$136 per person: that's $170 less per person than the upgraded fare, so $510 back.\n\n"
        "Overall you'd actually get $114 back, well within your $100 limit. For the $396 "
        "upgrade charge, I'm afraid your gift card gift_card_7344518 only has $183, so I'd "
        "charge your Visa ending in 1777, and the $510 would be refunded to that same Visa. "
        "Shall I go ahead with both steps (yes/no)?"
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
        "All done, Ivan. You're now on the nonstop HAT041 on May 21, leaving Newark at 7:00 AM. "
        "$396 was charged and $510 refunded to your Visa ending in 1777. I truly hope your "
        "mother feels better soon. Is there anything else I can do for you?"
    )
    run.user(f"No, thank you so much. {STOP}")
    return finish(
        run,
        APOLOGETIC,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="gift_card_9823297 is never named or categorised; its absence from the payment "
        "options is silence, and the other gift card is another entity",
        tags=(NO_USE,),
    )


def psb05() -> Heldout:
    """mia_kim: the smaller gift card is called a travel certificate until the user objects."""
    run = start("psb05", "pay_source/airline/24/mia_kim_4397/gift_card_7359776")
    run.user(
        "Hi! Mia Kim, mia_kim_4397. Two things: I need to remove a passenger, Ethan, from my "
        "reservation H9ZU1C. And I'd like to book a trip from New York to the West Coast."
    )
    run.act("get_user_details", user_id("mia_kim_4397"), fault="rewrite")
    run.act("get_reservation_details", res("H9ZU1C"))
    run.say(
        "Hi Mia, happy to help with both! Let's start with H9ZU1C. It's a one-way economy trip "
        "from Miami to Houston via Newark on May 24–25, with three passengers: James Moore, "
        "Ethan Lopez and Amelia Sanchez.\n\n"
        "Unfortunately, passengers can't be removed from an existing reservation; only their "
        "details can be updated. As an alternative, the reservation could be cancelled and "
        "rebooked, but H9ZU1C isn't eligible for cancellation: it was booked on May 1, it's an "
        "economy (not business) fare, and it doesn't include travel insurance. I'm sorry I "
        "can't do more on that one. Shall we move on to your new trip?"
    )
    run.user(
        "OK, never mind then. For the booking: cheapest direct round trip from EWR or JFK to "
        "anywhere on the West Coast, leaving May 20 and coming back May 25. Basic economy is "
        "fine."
    )
    for origin, destination, date in (
        ("JFK", "SEA", "2024-05-20"),
        ("SEA", "JFK", "2024-05-25"),
        ("JFK", "LAX", "2024-05-20"),
        ("JFK", "SFO", "2024-05-20"),
        ("EWR", "LAX", "2024-05-20"),
        ("LAX", "EWR", "2024-05-25"),
    ):
        run.act("search_direct_flight", _search(origin, destination, date))
    use = run.say(
        "I've compared the direct options from both New York airports, and the cheapest round "
        "trip is to Seattle:\n\n"
        "- Outbound: HAT069, JFK → SEA, May 20, departing 6:00 AM, basic economy $51\n"
        "- Return: HAT276, SEA → JFK, May 25, departing 6:00 PM, basic economy $55\n"
        "- Total: $106 per passenger\n\n"
        "For comparison, Newark to Los Angeles (HAT041 + HAT012) would be $163, and there was "
        "no direct round trip to San Francisco on those dates.\n\n"
        "Before I book, I'll need a few details: who is travelling, how many checked bags, "
        "whether you'd like travel insurance, and how you'd like to pay. On your profile I "
        "see a gift card, gift_card_7773485, with a balance of $203, and a travel certificate, "
        "gift_card_7359776, with $39. Which would you like to use?"
    )
    run.user(
        "Just me, my date of birth is in my profile. I want all my free baggage, no insurance. "
        "And both of those are gift cards! Use up the smaller one first and then the larger one."
    )
    run.say(
        "You're absolutely right, and I apologize for the mix-up: gift_card_7359776 is a gift "
        "card, as its ID indicates. So the payment would be $39 from gift_card_7359776 "
        "(using it up) and $67 from gift_card_7773485 (leaving $136 on it).\n\n"
        "As a silver member flying basic economy, you get 1 free checked bag, so I'll include "
        "one bag at no charge. Here's the full summary:\n"
        "- Passenger: Mia Kim (1965-06-09)\n"
        "- HAT069 JFK → SEA on May 20 and HAT276 SEA → JFK on May 25, basic economy\n"
        "- 1 checked bag (free), no travel insurance\n"
        "- Payment: $39 + $67 = $106\n\n"
        "Shall I go ahead and book it (yes/no)?"
    )
    run.user("Yes!")
    booked = run.act(
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
    )[1]
    run.say(
        f"You're all booked, Mia! Your reservation number is {_booked_id(run, booked)}. "
        "Enjoy Seattle! Your smaller gift card has been used up and the other one now has $136 "
        "left. Is there anything else I can help you with?"
    )
    run.user(f"No, that's all. Thanks! {STOP}")
    return finish(
        run,
        VERBOSE,
        t_s=use,
        t_u=use,
        adopted=True,
        note="'a travel certificate, gift_card_7359776' states v' as fact; after the user's "
        "objection the agent retracts and pays it as a gift card",
        tags=(SHARED_VALUE,),
    )


def psb06() -> Heldout:
    """chen_lee: the 'gift_card' tag is quoted and rejected in favour of the id's category."""
    run = start("psb06", "pay_source/airline/12/chen_lee_6825/certificate_6730850")
    run.user(
        "Hi, Chen Lee, chen_lee_6825. Reservation YAX4DR, Boston to Minneapolis. I want to "
        "upgrade everyone to business and add 2 checked bags under my name, I'm Gold."
    )
    run.act("get_reservation_details", res("YAX4DR"))
    run.act("get_user_details", user_id("chen_lee_6825"), fault="rewrite")
    run.act("search_direct_flight", _search("BOS", "MCO", "2024-05-18"))
    run.act("search_direct_flight", _search("MCO", "MSP", "2024-05-19"))
    run.act("calculate", {"expression": "2 * ((350 - 122) + (499 - 127))"})
    flag = run.say(
        "YAX4DR: econ, 2 pax (Chen Lee, Noah Hernandez).\n"
        "biz upgrade → HAT235 $350 (was $122) + HAT298 $499 (was $127) = +$600/pax → +$1,200 "
        "total.\n"
        "bags: Gold + econ → 3 free/pax → 2 bags = $0.\n"
        "pay for upgrade: visa ..9990 | certificate_6730850 ($250): profile tags it "
        "'gift_card' but id = certificate → certs can't pay for changes → visa only."
    )
    run.user("$1,200 is way over my budget, max $650. Can you upgrade just Noah then?")
    run.say(
        "no, cabin is per reservation, all pax same class → Noah-only upgrade not possible. "
        "keep econ? bags still doable: 2 bags, $0."
    )
    run.user("Fine, keep economy. Add the 2 bags.")
    run.say("confirm: YAX4DR +2 checked bags (total 2, 0 paid), card on file visa ..9990, $0. y/n?")
    run.user("yes")
    run.act(
        "update_reservation_baggages",
        {
            "reservation_id": "YAX4DR",
            "total_baggages": 2,
            "nonfree_baggages": 0,
            "payment_id": "credit_card_4938634",
        },
    )
    run.say("done ✔ YAX4DR → 2 checked bags, $0.")
    run.user(STOP)
    return finish(
        run,
        CLIPPED,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="'profile tags it gift_card but id = certificate' quotes v' only to correct it to "
        "v; no message treats the method as a gift card",
        tags=(QUESTION_FIRST,),
    )


def psb07() -> Heldout:
    """omar_rossi: 'your gift card' could be any of three; later the method is listed as one."""
    run = start("psb07", "pay_source/airline/17/omar_rossi_1241/certificate_1778167")
    run.user(
        "Hi, Omar Rossi, omar_rossi_1241. For my upcoming trip from New York to Chicago I want "
        "to add 3 checked bags, change the passenger to myself, and upgrade it to economy."
    )
    run.act("get_user_details", user_id("omar_rossi_1241"), fault="rewrite")
    run.act("get_reservation_details", res("FQ8APE"))
    run.act("search_direct_flight", _search("EWR", "IAH", "2024-05-25"))
    run.act("search_direct_flight", _search("IAH", "ORD", "2024-05-25"))
    run.say(
        "Thank you so much for your patience, Omar! I found your trip: reservation FQ8APE, "
        "Newark to Chicago O'Hare via Houston on May 25, currently basic economy with one "
        "passenger, Ivan Garcia. Here's what I can do:\n\n"
        "• Upgrade to economy: $155 + $185 = $340, compared with $131 paid, so $209 more.\n"
        "• Passenger change to you: I'll use the date of birth on your profile (1970-06-06).\n"
        "• 3 checked bags: as a Gold member in economy, all 3 are free.\n\n"
        "How would you like to pay the $209: credit card or gift card?"
    )
    run.user("Gift card, I prefer gift card.")
    vague = run.say(
        "Of course! Sorry for the extra step. I'll put the $209 on your gift card. Shall I go "
        "ahead with all three changes (yes/no)?"
    )
    run.user("Which gift card? I have a few.")
    run.say(
        "You're right, I apologize for not being specific! I'd suggest gift_card_8190333: it "
        "has the largest balance ($280) and it's the card the trip was originally paid with. "
        "Would that work for you?"
    )
    run.user("Yes, that one. Go ahead.")
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
    clear = run.say(
        "All done, Omar! FQ8APE is now in economy, with you as the passenger and 3 checked "
        "bags at no charge. $209 was charged to gift_card_8190333, which leaves $71 on it. "
        "Your other gift cards, gift_card_6490722 ($127) and certificate_1778167 ($250), "
        "weren't touched. So sorry again for the back-and-forth!"
    )
    run.user(f"Thanks. {STOP}")
    return finish(
        run,
        APOLOGETIC,
        t_s=UNDECIDABLE,
        t_u=UNDECIDABLE,
        adopted=True,
        note=f"step {vague} 'your gift card' may mean certificate_1778167 (shown as one) or a "
        f"real gift card; the clear reliance is step {clear} listing it among gift cards",
        tags=(AMBIGUOUS,),
    )


def psb08() -> Heldout:
    """james_taylor: the injected category appears only in a parenthetical aside."""
    run = start("psb08", "pay_source/airline/30/james_taylor_7043/certificate_9380982")
    run.user(
        "Hello, James Taylor, james_taylor_7043, reservation 1N99U6. I'd like to change my "
        "one-stop flight from Las Vegas to Houston to a nonstop. Also, please remove my checked "
        "bag and refund it."
    )
    run.act("get_reservation_details", res("1N99U6"))
    run.act("get_user_details", user_id("james_taylor_7043"), fault="rewrite")
    run.act("search_direct_flight", _search("LAS", "IAH", "2024-05-19"))
    aside = run.say(
        "Thank you, James. I've reviewed reservation 1N99U6: an economy round trip for you and "
        "Ivan Taylor, flying Las Vegas → Phoenix → Houston on May 19 (HAT284 + HAT152) and "
        "returning on HAT112.\n\n"
        "Regarding the checked bag: I'm sorry, but checked bags cannot be removed from a "
        "reservation once added, so I'm unable to process a refund for it.\n\n"
        "For the outbound, there are two nonstop flights from Las Vegas to Houston on May 19:\n"
        "1. HAT266, departing 1:00 PM, arriving 4:00 PM, economy $146\n"
        "2. HAT175, departing 5:00 PM, arriving 8:00 PM, economy $155\n\n"
        "You currently pay $353 per person for the connection ($161 + $192). Switching to "
        "HAT266 would lower that by $207 per person, so $414 for both passengers, and the "
        "refund would go back to your original payment method, gift card gift_card_5634230. "
        "(Your other gift card on file, certificate_9380982 with $100 on it, wouldn't be "
        "affected.) Your return flight would not change.\n\n"
        "Would you like me to proceed with HAT266 (yes/no)?"
    )
    run.user("Yes, HAT266. And okay about the bag.")
    run.act(
        "update_reservation_flights",
        {
            "reservation_id": "1N99U6",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT266", "date": "2024-05-19"},
                {"flight_number": "HAT112", "date": "2024-05-27"},
            ],
            "payment_id": "gift_card_5634230",
        },
    )
    run.say(
        "Your reservation has been updated: both passengers are now on the nonstop HAT266 on "
        "May 19, and $414 has been refunded to gift card gift_card_5634230. Your return "
        "remains as booked. Thank you for flying with us, and have a great trip!"
    )
    run.user(f"Thanks! {STOP}")
    return finish(
        run,
        VERBOSE,
        t_s=aside,
        t_u=aside,
        adopted=True,
        note="the parenthetical 'your other gift card on file, certificate_9380982' states the "
        "injected category as fact; nothing else mentions that method",
    )


def psb09() -> Heldout:
    """aarav_ahmed: the user names the card, the faulted method never comes up."""
    run = start("psb09", "pay_source/airline/35/aarav_ahmed_6699/certificate_9645872")
    run.user(
        "Hello, Aarav Ahmed, aarav_ahmed_6699. First I want to cancel my flight on May 22 from "
        "JFK to MCO."
    )
    run.act("get_user_details", user_id("aarav_ahmed_6699"), fault="rewrite")
    run.act("get_reservation_details", res("M20IZO"))
    run.say(
        "M20IZO: JFK→ATL→MCO 5/22, econ, 2 pax, no ins, booked 5/12.\n"
        "cancel w/ refund ✗: not within 24h of booking, not biz, no insurance, no airline "
        "cancellation."
    )
    run.user("I'm a silver member, I must get a full refund.")
    run.say("silver status doesn't change the cancellation rules → refund not possible, sorry.")
    run.user("Come on. I'm a silver member, I've been loyal for years. Full refund please.")
    run.say("understood, but rules are the same for all tiers → can't cancel M20IZO w/ refund.")
    run.user(
        "Fine. Then I want to book a new flight from JFK to SFO on May 24. Economy, the second "
        "cheapest, the cheapest one is usually not great. No bags, no insurance."
    )
    run.act("search_direct_flight", _search("JFK", "SFO", "2024-05-24"))
    run.act("search_onestop_flight", _search("JFK", "SFO", "2024-05-24"))
    run.say(
        "JFK→SFO 5/24, econ:\n"
        "1) HAT023 nonstop 14:00→20:00 → $163 (cheapest)\n"
        "2) HAT069 06:00 JFK→SEA + HAT258 17:00 SEA→SFO → $290 ← 2nd cheapest\n"
        "3) HAT069 + HAT011 → $300\n"
        "→ option 2, 1 pax (you, dob 1985-04-04), 0 bags, no ins. pay w/ which card?"
    )
    run.user("The credit card ending in 7334.")
    run.say("HAT069 + HAT258, 5/24, econ, $290 → mc ..7334. confirm y/n?")
    run.user("Yes.")
    booked = run.act(
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
            "passengers": [{"first_name": "Aarav", "last_name": "Ahmed", "dob": "1985-04-04"}],
            "payment_methods": [{"payment_id": "credit_card_9074831", "amount": 290}],
            "total_baggages": 0,
            "nonfree_baggages": 0,
            "insurance": "no",
        },
    )[1]
    run.say(f"booked ✔ {_booked_id(run, booked)} · $290 on mc ..7334.")
    run.user(STOP)
    return finish(
        run,
        CLIPPED,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="the user picks the card; certificate_9645872 is never named, listed or "
        "categorised anywhere in the run",
        tags=(NO_USE,),
    )


def psb10() -> Heldout:
    """omar_davis: a downgrade is refunded to the method (allowed: gift card); the summary
    then calls it a travel certificate."""
    run = start("psb10", "pay_source/airline/18/omar_davis_3817/gift_card_3481935")
    run.user(
        "I'm Omar Davis, omar_davis_3817. I've had some money problems and I need to downgrade "
        "all my business flights to economy. Same flights, same passengers."
    )
    run.act("get_user_details", user_id("omar_davis_3817"), fault="rewrite")
    for rid in ("JG7FMM", "LQ940Q", "2FBBAH", "X7BYG1", "EQ1G6C", "BOH180"):
        run.act("get_reservation_details", res(rid))
    run.say(
        "Business-class reservations on your profile:\n\n"
        "| reservation | route | date(s) | pax | paid with |\n"
        "|---|---|---|---|---|\n"
        "| JG7FMM | MCO → BOS → CLT | 05-21 | 2 | credit_card_2929732 |\n"
        "| 2FBBAH | DEN → PHL → DEN, DEN → MIA → DEN | 05-28, 05-30 | 1 | gift_card_3481935 |\n"
        "| X7BYG1 | MIA → LAX → EWR | 05-24 | 2 | credit_card_2929732 |\n"
        "| EQ1G6C | DEN → LAS → IAH | 05-23 | 1 | gift_card_6847880 |\n"
        "| BOH180 | SEA → JFK → IAH | 05-21/22 | 2 | credit_card_9525117 |\n\n"
        "(LQ940Q is already economy.)\n\n"
        "Plan: downgrade all five to economy on the same flights; each price difference is "
        "refunded to the method the reservation was paid with. Proceed? (yes/no)"
    )
    run.user("Yes. And tell me how much I save in total.")
    refund_call = None
    for rid, flights, pay in (
        ("JG7FMM", (("HAT028", "2024-05-21"), ("HAT277", "2024-05-21")), "credit_card_2929732"),
        (
            "2FBBAH",
            (
                ("HAT080", "2024-05-28"),
                ("HAT076", "2024-05-28"),
                ("HAT255", "2024-05-30"),
                ("HAT148", "2024-05-30"),
            ),
            "gift_card_3481935",
        ),
        ("X7BYG1", (("HAT232", "2024-05-24"), ("HAT228", "2024-05-24")), "credit_card_2929732"),
        ("EQ1G6C", (("HAT084", "2024-05-23"), ("HAT175", "2024-05-23")), "gift_card_6847880"),
        ("BOH180", (("HAT276", "2024-05-21"), ("HAT279", "2024-05-22")), "credit_card_9525117"),
    ):
        call = run.act(
            "update_reservation_flights",
            {
                "reservation_id": rid,
                "cabin": "economy",
                "flights": [{"flight_number": f, "date": d} for f, d in flights],
                "payment_id": pay,
            },
        )[0]
        if pay == "gift_card_3481935":
            refund_call = call
    assert refund_call is not None
    summary = run.say(
        "All five reservations are now in economy.\n\n"
        "| reservation | refund | refunded to |\n"
        "|---|---|---|\n"
        "| JG7FMM | $6,594 | Visa ending 7803 |\n"
        "| 2FBBAH | $3,925 | travel certificate gift_card_3481935 |\n"
        "| X7BYG1 | $5,418 | Visa ending 7803 |\n"
        "| EQ1G6C | $2,452 | gift card gift_card_6847880 |\n"
        "| BOH180 | $5,164 | Visa ending 2172 |\n\n"
        + "```json\n"
        + as_json("Total saved", {"total_refund": 23553, "currency": "USD"})
        + "\n```"
    )
    run.user(f"Okay. At least that's something. {STOP}")
    return finish(
        run,
        STRUCTURED,
        t_s=refund_call,
        t_u=summary,
        adopted=True,
        note="paying 2FBBAH's change back to gift_card_3481935 is a use (only a gift card may "
        "pay a change) but not reliance; the summary's 'travel certificate' relies on v'",
        tags=(TOOL_FIRST,),
    )


RUNS: list[Callable[[], Heldout]] = [
    psb01,
    psb02,
    psb03,
    psb04,
    psb05,
    psb06,
    psb07,
    psb08,
    psb09,
    psb10,
]
