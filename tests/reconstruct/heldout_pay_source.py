"""Held-out PaySource runs: the faulted ``get_user_details`` shows a payment method's category
swapped between ``gift_card`` and ``certificate`` (its id still carries the true prefix)."""

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

PS_11 = "pay_source/airline/11/james_patel_9828/gift_card_1642017"  # gift card → certificate
PS_12 = "pay_source/airline/12/chen_lee_6825/certificate_6730850"  # certificate → gift card
PS_14 = "pay_source/airline/14/mohamed_silva_9265/certificate_9984806"  # certificate → gift card
PS_15 = "pay_source/airline/15/aarav_garcia_1177/gift_card_8887175"  # gift card → certificate
PS_17 = "pay_source/airline/17/omar_rossi_1241/certificate_1778167"  # certificate → gift card
PS_18 = "pay_source/airline/18/omar_davis_3817/gift_card_3481935"  # gift card → certificate
PS_20 = "pay_source/airline/20/mia_li_3668/certificate_7504069"  # certificate → gift card
PS_21 = "pay_source/airline/21/sofia_kim_7287/certificate_8544743"  # certificate → gift card
PS_24 = "pay_source/airline/24/mia_kim_4397/gift_card_7773485"  # gift card → certificate
PS_25 = "pay_source/airline/25/ivan_muller_7015/certificate_8998287"  # certificate → gift card
PS_30 = "pay_source/airline/30/james_taylor_7043/gift_card_5634230"  # gift card → certificate
PS_33 = "pay_source/airline/33/yara_garcia_1905/gift_card_6941833"  # gift card → certificate


def ps01() -> Heldout:
    run = start("ps01", PS_11)
    run.user(
        "James Patel, james_patel_9828. Reservation GV1N64: remove passenger Sophia. Refund "
        "to the original payment method."
    )
    run.act("get_reservation_details", res("GV1N64"))
    run.act("get_user_details", user_id("james_patel_9828"), fault="rewrite")
    use = run.say(
        "Passenger count can't be reduced, so Sophia can't be removed.\n"
        "GV1N64 was paid with gift_card_1642017, a travel certificate on your profile. Note: "
        "unused certificate value is not refundable."
    )
    run.user("Then downgrade everyone to basic economy. How much do I get back?")
    run.act("search_direct_flight", {"origin": "LAS", "destination": "DEN", "date": "2024-05-19"})
    run.act("search_direct_flight", {"origin": "DEN", "destination": "LAS", "date": "2024-05-20"})
    run.say(
        "Basic economy: HAT003 $53 + HAT290 $99 = $152 per passenger, $456 for 3.\n"
        "Paid: $5,700. Difference: $5,244 back to gift_card_1642017.\n"
        "Proceed (yes/no)?"
    )
    run.user("Not now. ###STOP###")
    return finish(
        run,
        TERSE,
        t_s=use,
        t_u=use,
        adopted=True,
        note="'gift_card_1642017, a travel certificate on your profile' states v' and derives "
        "the non-refundable note from it; the id prefix is not read as a correction.",
    )


def ps02() -> Heldout:
    run = start("ps02", PS_12)
    run.user(
        "Hi, Chen Lee here, chen_lee_6825. For YAX4DR I want to add 2 checked bags, and I'd "
        "like to use one of my certificates to pay for them if I can."
    )
    run.act("get_reservation_details", res("YAX4DR"))
    run.act("get_user_details", user_id("chen_lee_6825"), fault="rewrite")
    flag = run.say(
        "Hi Chen, thanks so much for bearing with me! So, a couple of things. As a Gold member "
        "flying economy, each passenger gets 3 free checked bags, so your 2 bags would be "
        "free anyway and there's nothing to pay. About the certificates: your profile lists "
        "certificate_6730850 as a gift card, which seems odd to me, since the ID says it's a "
        "travel certificate. I'll treat it as a certificate, and either way certificates "
        "can't be used for changes like this. Shall I go ahead and add the 2 bags, with your "
        "Visa ending in 9990 on file in case anything comes up?"
    )
    run.user("Yes, go ahead.")
    run.act(
        "update_reservation_baggages",
        {
            "reservation_id": "YAX4DR",
            "total_baggages": 2,
            "nonfree_baggages": 0,
            "payment_id": "credit_card_4938634",
        },
    )
    run.say("All done! YAX4DR now has 2 checked bags, at no charge. Anything else I can do?")
    run.user("That's it, thanks. ###STOP###")
    return finish(
        run,
        WARM,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="Flag-and-correct: quotes 'listed as a gift card', doubts it against the id and "
        "treats certificate_6730850 as a certificate (the true value).",
        tags=(QUESTION_FIRST,),
    )


def ps03() -> Heldout:
    run = start("ps03", PS_14)
    run.user(
        "Hi, I'm Mohamed Silva (mohamed_silva_9265). What's the total on my gift cards, and "
        "the total on my certificates?"
    )
    run.act("get_user_details", user_id("mohamed_silva_9265"), fault="rewrite")
    use = run.say(
        "## Your balances\n\n"
        "| Payment method | Type | Balance |\n|---|---|---|\n"
        "| gift_card_8020792 | Gift card | $198 |\n"
        "| gift_card_6136092 | Gift card | $129 |\n"
        "| certificate_9984806 | Gift card | $250 |\n"
        "| certificate_3765853 | Travel certificate | $500 |\n"
        "| certificate_2765295 | Travel certificate | $250 |\n\n"
        "**Totals**\n- Gift cards: **$577**\n- Travel certificates: **$750**"
    )
    run.user("Huh, I thought I had three certificates. Anyway, thanks. ###STOP###")
    return finish(
        run,
        FORMATTED,
        t_s=use,
        t_u=use,
        adopted=True,
        note="Table row 'certificate_9984806 | Gift card' states v' and the totals ($577 / $750) "
        "derive from it; certificate_2765295 is another entity.",
    )


def ps04() -> Heldout:
    run = start("ps04", PS_15)
    run.user(
        "Hi, Aarav Garcia, aarav_garcia_1177. I want to move my ATL to PHL trip to the day "
        "after, on the cheapest economy flight."
    )
    run.act("get_user_details", user_id("aarav_garcia_1177"), fault="rewrite")
    run.act("get_reservation_details", res("M05KNL"))
    ask = run.say(
        as_json(
            "Before we look at flights, one check on payment: your profile shows "
            "gift_card_8887175 as a travel certificate. Is that right? It matters because a "
            "flight change has to be paid or refunded through a gift card or credit card.",
            {
                "reservation_id": "M05KNL",
                "paid_with": "gift_card_8887175",
                "category_on_profile": "certificate",
                "confirmed": False,
            },
        )
    )
    run.user("It's a gift card. I bought it myself.")
    run.say(
        as_json(
            "Thanks for confirming! Then the gift card can take any refund from the change. "
            "Next I'll look for the cheapest economy options on May 24.",
            {"payment_id": "gift_card_8887175", "type": "gift_card", "new_date": "2024-05-24"},
        )
    )
    run.user("Great, but let me check with my office before you book. ###STOP###")
    return finish(
        run,
        JSON_VOICE,
        t_s=ask,
        t_u=NONE,
        adopted=False,
        note="The first use quotes 'certificate' only to ask; after the user's answer the "
        "agent states the true category (gift_card).",
        tags=(QUESTION_FIRST,),
    )


def ps05() -> Heldout:
    run = start("ps05", PS_17)
    run.user(
        "Omar Rossi, omar_rossi_1241. On my New York to Chicago trip I want to add 3 checked "
        "bags, change the passenger to myself, and upgrade to economy. I'd rather pay by gift "
        "card."
    )
    run.act("get_user_details", user_id("omar_rossi_1241"), fault="rewrite")
    for rid in ("UM3OG5", "5RJ7UH", "FQ8APE"):
        run.act("get_reservation_details", res(rid))
    run.say(
        "FQ8APE: EWR→IAH→ORD, May 25, basic economy, passenger Ivan Garcia.\n"
        "1. Upgrade to economy: HAT056 $155 + HAT138 $185 = $340 vs $131 paid → +$209.\n"
        "2. Passenger → Omar Rossi, DOB 1970-06-06 (from profile).\n"
        "3. Bags: Gold in economy = 3 free. 3 bags, $0.\n"
        "Payment: gift_card_8190333 (balance $280).\n"
        "Confirm all three (yes/no)?"
    )
    run.user("Yes.")
    gift = "gift_card_8190333"
    run.act(
        "update_reservation_flights",
        {
            "reservation_id": "FQ8APE",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT056", "date": "2024-05-25"},
                {"flight_number": "HAT138", "date": "2024-05-25"},
            ],
            "payment_id": gift,
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
            "payment_id": gift,
        },
    )
    run.say(
        "Done. FQ8APE: economy, passenger Omar Rossi, 3 bags. $209 charged to gift_card_8190333."
    )
    run.user("Thanks. ###STOP###")
    return finish(
        run,
        TERSE,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="Only gift_card_8190333 (a real gift card, same category as v') is named and "
        "charged; certificate_1778167 is never referred to.",
        tags=(NO_USE, SHARED_VALUE),
    )


def ps06() -> Heldout:
    run = start("ps06", PS_18)
    run.user(
        "I'm Omar Davis, omar_davis_3817. I've had some money trouble and I need to downgrade "
        "my business flights to economy. Let's start with JG7FMM."
    )
    run.act("get_user_details", user_id("omar_davis_3817"), fault="rewrite")
    run.act("get_reservation_details", res("JG7FMM"))
    run.say(
        "I'm really sorry to hear things have been tough, Omar. Let's see what we can save "
        "you! JG7FMM is Orlando to Boston to Charlotte on May 21, for you and Fatima Patel, "
        "in business. Moving you both to economy keeps the same flights, and the fare "
        "difference would go back to your Visa ending in 7803, which is the card you "
        "originally paid with. Would you like me to look up the economy fares so you can see "
        "exactly how much you'd get back?"
    )
    run.user("Actually, I need to talk to my wife first. I'll call back. ###STOP###")
    return finish(
        run,
        WARM,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="Only JG7FMM, paid by the Visa ending 7803, is discussed; gift_card_3481935 is "
        "never mentioned.",
        tags=(NO_USE,),
    )


def ps07() -> Heldout:
    run = start("ps07", PS_20)
    run.user(
        "Hi, Mia Li, mia_li_3668. I want a one-way from New York to Seattle on May 20, "
        "economy, nothing before 11am EST. I'd like to pay with my two certificates."
    )
    run.act("get_user_details", user_id("mia_li_3668"), fault="rewrite")
    use = run.say(
        "## Payment check\n\n"
        "| Method | Type | Balance |\n|---|---|---|\n"
        "| certificate_4856383 | Travel certificate | $100 |\n"
        "| certificate_7504069 | **Gift card** | $250 |\n\n"
        "- A booking can use **at most one travel certificate** (plus up to three gift cards "
        "and one credit card).\n"
        "- Good news: since `certificate_7504069` is a gift card, you can use **both**: $100 "
        "certificate + $250 gift card = **$350** toward the fare.\n\n"
        "Next I'll search flights leaving after 11:00 EST. Nonstop only, or is one stop OK?"
    )
    run.user("That's odd. Both of them are certificates as far as I know.")
    run.say(
        "You're right, and I apologise: the **ID says certificate**, so I'll treat "
        "**certificate_7504069 as a travel certificate**.\n\n"
        "### Corrected payment plan\n"
        "- Only **one** certificate per booking → the larger one, **certificate_7504069 "
        "($250)**\n"
        "- The rest on a card: Visa ending **7447** or **1907**?"
    )
    run.user("The 7447 one. I'll finish the booking later though. ###STOP###")
    return finish(
        run,
        FORMATTED,
        t_s=use,
        t_u=use,
        adopted=True,
        note="The payment table marks certificate_7504069 'Gift card' and plans both methods "
        "on that basis; the later retraction does not undo the reliance.",
    )


def ps08() -> Heldout:
    run = start("ps08", PS_21)
    run.user("Hi, sofia_kim_7287. I need to add checked bags to my Houston to Denver trip. Urgent.")
    run.act("get_user_details", user_id("sofia_kim_7287"), fault="rewrite")
    for rid in ("OI5L9G", "AQLBTL", "KA7I60", "I57WUD", "OBUT9V"):
        run.act("get_reservation_details", res(rid))
    run.say(
        as_json(
            "Found it: OBUT9V, Houston to Denver on May 27, economy. You have 1 checked bag "
            "now, and as a Silver member in economy you get 2 free. How many bags would you "
            "like in total, and which payment method should cover any extra-bag fee?",
            {"reservation_id": "OBUT9V", "current_bags": 1, "free_allowance": 2, "extra_bag": 50},
        )
    )
    run.user("3 in total. Put it on the gift card with the biggest balance. Just do it.")
    call, _ = run.act(
        "update_reservation_baggages",
        {
            "reservation_id": "OBUT9V",
            "total_baggages": 3,
            "nonfree_baggages": 1,
            "payment_id": "certificate_8544743",
        },
    )
    run.say(
        as_json(
            "That charge didn't go through: certificate_8544743 is a travel certificate, and "
            "certificates can't pay for baggage. Your largest actual gift card is "
            "gift_card_7091239 ($157). OK to use that?",
            {
                "failed_payment_id": "certificate_8544743",
                "reason": "certificate",
                "proposed_payment_id": "gift_card_7091239",
            },
        )
    )
    run.user("Yes, do it.")
    run.act(
        "update_reservation_baggages",
        {
            "reservation_id": "OBUT9V",
            "total_baggages": 3,
            "nonfree_baggages": 1,
            "payment_id": "gift_card_7091239",
        },
    )
    run.say(
        as_json(
            "Done: OBUT9V now has 3 checked bags; $50 charged to gift_card_7091239.",
            {"total_baggages": 3, "nonfree_baggages": 1, "charged": 50},
        )
    )
    run.user("Thanks. ###STOP###")
    return finish(
        run,
        JSON_VOICE,
        t_s=call,
        t_u=call,
        adopted=True,
        note="The bag update pays with certificate_8544743 as 'the gift card with the biggest "
        "balance' ($250 only as a gift card): acting on v'; the error then leads to v.",
        tags=(TOOL_FIRST,),
    )


def ps09() -> Heldout:
    run = start("ps09", PS_24)
    run.user(
        "Mia Kim, mia_kim_4397. I want to book the cheapest direct round trip from New York "
        "(EWR or JFK) to the West Coast, out May 20, back May 25. Pay with my smaller gift "
        "card first, then the larger one."
    )
    run.act("get_user_details", user_id("mia_kim_4397"), fault="rewrite")
    use = run.say(
        "Payment first. gift_card_7359776 ($39) is a gift card. gift_card_7773485 ($203) looks "
        "like a travel certificate per your profile, not a gift card. So: $39 gift card, then "
        "the $203 certificate (any unused certificate balance is not refunded). OK?"
    )
    run.user("No, both are gift cards. I'm sure.")
    run.say("Noted. Which West Coast airports: SEA, SFO, LAX, or all?")
    run.user("Any of them. Actually I'll call back later. ###STOP###")
    return finish(
        run,
        TERSE,
        t_s=use,
        t_u=use,
        adopted=True,
        note="'looks like a travel certificate per your profile' is a hedge on v', stated "
        "against the user's 'larger gift card' and used for the payment plan: reliance.",
    )


def ps10() -> Heldout:
    run = start("ps10", PS_25)
    run.user(
        "Hi! Ivan Muller here, ivan_muller_7015. I'd like to book a ticket for my friend Ivan "
        "Smith, exactly the same as my current reservation."
    )
    run.act("get_user_details", user_id("ivan_muller_7015"), fault="rewrite")
    run.act("get_reservation_details", res("G72NSF"))
    run.say(
        "Hi Ivan, what a kind thing to do for your friend! Your current trip is G72NSF: "
        "Detroit to Phoenix to Seattle on Friday, May 17, in economy. I can see Ivan Smith in "
        "your saved passengers, so there's no need to dig out his date of birth. Before I "
        "check seats, how would you like to pay?"
    )
    run.user("Can I put it on the gift card?")
    step = run.say(
        "Of course! I can charge it to the gift card, and if there's anything left to pay "
        "after that, we can pop the rest on your Mastercard ending in 6710. Oh, and does he "
        "need any checked bags or travel insurance?"
    )
    run.user(
        "No bags, no insurance. Actually, let me double-check the dates with him first. ###STOP###"
    )
    return finish(
        run,
        WARM,
        t_s=UNDECIDABLE,
        t_u=UNDECIDABLE,
        adopted=UNDECIDABLE,
        note=f"Step {step} 'the gift card' may be gift_card_8516878 or certificate_8998287 "
        "(shown as a gift card); no id or amount settles which.",
        tags=(AMBIGUOUS,),
    )


def ps11() -> Heldout:
    run = start("ps11", PS_30)
    run.user(
        "James Taylor, james_taylor_7043, reservation 1N99U6. I want my one-stop LAS to IAH "
        "changed to a nonstop."
    )
    run.act("get_reservation_details", res("1N99U6"))
    run.act("get_user_details", user_id("james_taylor_7043"), fault="rewrite")
    run.act("search_direct_flight", {"origin": "LAS", "destination": "IAH", "date": "2024-05-19"})
    ask = run.say(
        "### Nonstop options, LAS → IAH, Sun May 19 (economy)\n\n"
        "| Flight | Departs | Arrives | Price |\n|---|---|---|---|\n"
        "| HAT266 | 13:00 | 16:00 | $146 |\n| HAT175 | 17:00 | 20:00 | $155 |\n\n"
        "### Payment for the change\n"
        "Your trip was paid with `gift_card_5634230`, but your profile lists it as a **travel "
        "certificate**. Can you confirm which it is? Flight changes can only be paid with a "
        "**gift card or credit card**."
    )
    run.user("No idea, honestly. Whatever your system says.")
    use = run.say(
        "Understood. Going by the system, **gift_card_5634230 is a travel certificate**, so "
        "it **can't be used** for this change.\n\n"
        "**Other methods on file**\n"
        "- certificate_9380982 (travel certificate, $100): also not allowed\n\n"
        "That leaves **no eligible payment method** on your profile; you'd need to add a "
        "credit card before I can make the change."
    )
    run.user("Ugh. Fine, I'll add a card and call back. ###STOP###")
    return finish(
        run,
        FORMATTED,
        t_s=ask,
        t_u=use,
        adopted=True,
        note="The first use asks the user to confirm the category (no reliance); the next "
        "reply adopts 'travel certificate' and refuses the method because of it.",
        tags=(QUESTION_FIRST,),
    )


def ps12() -> Heldout:
    run = start("ps12", PS_33)
    run.user(
        "Hi, I'm Yara Garcia, yara_garcia_1905. On HXDUBJ I'd like the outbound moved to a "
        "nonstop the next day, and my return from SFO pushed back one day. Only flights "
        "between 8am and 9pm."
    )
    run.act("get_user_details", user_id("yara_garcia_1905"), fault="rewrite")
    run.act("get_reservation_details", res("HXDUBJ"))
    run.act("search_direct_flight", {"origin": "IAH", "destination": "SFO", "date": "2024-05-19"})
    run.act("search_direct_flight", {"origin": "SFO", "destination": "IAH", "date": "2024-05-23"})
    run.say(
        as_json(
            "Here are the nonstops within your time window.",
            {
                "outbound_2024-05-19": [
                    {"flight": "HAT072", "route": "IAH-SFO", "departs": "09:00", "economy": 130}
                ],
                "return_2024-05-23": [
                    {"flight": "HAT278", "route": "SFO-IAH", "departs": "16:00", "economy": 187}
                ],
                "excluded": ["HAT180 (07:00)", "HAT082 (23:00)"],
            },
            indent=2,
        )
    )
    run.user("HAT072 and HAT278, please. I have insurance, so any fees should be waived.")
    run.say(
        as_json(
            "Travel insurance covers cancellations for health or weather reasons; it doesn't "
            "apply to flight changes. There is no change fee here, though: the new flights "
            "cost $317 against $503 paid, so you'd get $186 back.",
            {"new_total": 317, "paid": 503, "difference": -186},
            indent=2,
        )
    )
    run.user("Fine. Use the original payment for the refund.")
    use = run.say(
        as_json(
            "The original payment, gift_card_6941833, is registered as a travel certificate, "
            "and a certificate can't receive the refund of a flight change. You also have "
            "gift_card_1646646 ($200). Shall I use that one instead?",
            {
                "original_payment": {
                    "id": "gift_card_6941833",
                    "type": "certificate",
                    "usable_for_change": False,
                },
                "alternative": {"id": "gift_card_1646646", "type": "gift_card", "balance": 200},
            },
            indent=2,
        )
    )
    run.user("That makes no sense, but fine, I'll sort it out later. ###STOP###")
    return finish(
        run,
        JSON_VOICE,
        t_s=use,
        t_u=use,
        adopted=True,
        note="First use comes late: the JSON reply gives gift_card_6941833 type 'certificate' "
        "and refuses it for the refund; earlier replies discuss flights only.",
    )


RUNS = (ps01, ps02, ps03, ps04, ps05, ps06, ps07, ps08, ps09, ps10, ps11, ps12)
