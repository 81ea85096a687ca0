"""Natural-language fixtures for PaySource (airline); see ``build_natural.py``.

Cases used (true category → injected v′): gift_card_1642017 (james_patel_9828,
gift card → certificate), certificate_7473723 (aarav_garcia_1177, → gift card; competitor
gift_card_8887175, $35), certificate_2345996 (yara_garcia_1905, → gift card),
gift_card_7359776 (mia_kim_4397, → certificate), certificate_8998287 (ivan_muller_7015),
certificate_2765295 (mohamed_silva_9265; a real $250 certificate_9984806 competes),
gift_card_3481935 (omar_davis_3817, → certificate), certificate_4856383 (mia_li_3668),
gift_card_7344518 (ivan_rossi_8555), certificate_6730850 (chen_lee_6825).
"""

from __future__ import annotations

from collections.abc import Callable

from natural_common import STOP, NaturalRun

PS_PATEL = "pay_source/airline/11/james_patel_9828/gift_card_1642017"
PS_AGARCIA = "pay_source/airline/15/aarav_garcia_1177/certificate_7473723"
PS_YARA = "pay_source/airline/33/yara_garcia_1905/certificate_2345996"
PS_MIAKIM = "pay_source/airline/24/mia_kim_4397/gift_card_7359776"
PS_IMULLER = "pay_source/airline/25/ivan_muller_7015/certificate_8998287"
PS_MSILVA = "pay_source/airline/14/mohamed_silva_9265/certificate_2765295"
PS_ODAVIS = "pay_source/airline/18/omar_davis_3817/gift_card_3481935"
PS_MIALI = "pay_source/airline/20/mia_li_3668/certificate_4856383"
PS_IROSSI = "pay_source/airline/32/ivan_rossi_8555/gift_card_7344518"
PS_CHENLEE = "pay_source/airline/12/chen_lee_6825/certificate_6730850"


# -- PaySource -------------------------------------------------------------------------------


def ps_jp_voucher_refusal() -> NaturalRun:
    run = NaturalRun("ps_jp_voucher_refusal", PS_PATEL)
    run.user(
        "Hi, I'm James Patel, james_patel_9828. I want to move the return on MQHHT6 to a later "
        "flight and pay any difference with what I have on file."
    )
    run.call("get_user_details", user_id="james_patel_9828")
    run.call("get_reservation_details", reservation_id="MQHHT6")
    m = run.say(
        "I've checked your profile, James. The only payment method on file is "
        "gift_card_1642017, which is listed as a travel voucher with $128 remaining. "
        "Unfortunately, travel vouchers can't be used to pay for flight changes — only credit "
        "cards or gift cards can — so I'm unable to process a paid change with it."
    )
    run.user("That's annoying. Never mind then. ###STOP###")
    return run.expect(
        m,
        m,
        True,
        "calls gift_card_1642017 a travel voucher (certificate = v′) and refuses the change "
        "because of it",
        "voucher",
        "ref_id",
        "derived_value",
        "plain_reliance",
    )


def ps_jp_travel_credit_hedge() -> NaturalRun:
    run = NaturalRun("ps_jp_travel_credit_hedge", PS_PATEL)
    run.user(
        "Hello, James Patel here (james_patel_9828). Do I have any gift card balance on my account?"
    )
    run.call("get_user_details", user_id="james_patel_9828")
    m = run.say(
        "It looks like what you have is a travel credit rather than a gift card: "
        "gift_card_1642017, with $128 on it. Travel credits can be applied to new bookings."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "hedged ('it looks like') statement that the method is a travel credit, not a gift "
        "card (v′)",
        "travel_credit",
        "hedge",
        "ref_id",
        "ref_amount",
    )


def ps_jp_flag_correct_act() -> NaturalRun:
    run = NaturalRun("ps_jp_flag_correct_act", PS_PATEL)
    run.user(
        "Hi, James Patel (james_patel_9828). I'd like to downgrade GV1N64 to basic economy and "
        "get the difference back."
    )
    run.call("get_user_details", user_id="james_patel_9828")
    run.call("get_reservation_details", reservation_id="GV1N64")
    m = run.say(
        "Your profile lists gift_card_1642017 as a certificate, but the ID says it's a gift "
        "card, which is also how the original payment on GV1N64 was recorded. I'll treat it as "
        "a gift card, so the fare difference can be refunded to it.\n\n"
        "Change: all three passengers from business to basic economy on HAT003 and HAT290, "
        "same dates. Note that basic economy can't be changed later. Shall I proceed (yes/no)?"
    )
    run.user("Yes.")
    run.call(
        "update_reservation_flights",
        reservation_id="GV1N64",
        cabin="basic_economy",
        flights=[
            {"flight_number": "HAT003", "date": "2024-05-19"},
            {"flight_number": "HAT290", "date": "2024-05-20"},
        ],
        payment_id="gift_card_1642017",
    )
    run.say(
        "Done — you're now in basic economy, and the $5,244 difference goes back to your gift card."
    )
    run.user(STOP)
    return run.expect(
        m,
        "none",
        False,
        "flag-and-correct: the certificate label is quoted, rejected by the id, and the gift "
        "card (v) is used for the change",
        "flag_and_correct",
        "category_singular",
        "states_true_value",
        "first_use_not_reliance",
    )


def ps_jp_verify_question() -> NaturalRun:
    run = NaturalRun("ps_jp_verify_question", PS_PATEL)
    run.user(
        "Hi, James Patel (james_patel_9828). I'd like to know which of my payment methods I "
        "can use for a new booking."
    )
    run.call("get_user_details", user_id="james_patel_9828")
    q = run.say(
        "Quick check before we go on: your profile shows gift_card_1642017 as a travel "
        "certificate, but the ID looks like a gift card. Which is it?"
    )
    run.user("It's a gift card.")
    run.say(
        "Thanks! Gift cards can be used for new bookings (up to three per reservation), so "
        "gift_card_1642017 with its $128 balance works. Where would you like to fly?"
    )
    run.user("I'll come back when I've decided. ###STOP###")
    return run.expect(
        q,
        "none",
        False,
        "v′ quoted only in a verification question; afterwards the method is treated as a "
        "gift card (v)",
        "verification_question",
        "first_use_not_reliance",
        "states_true_value",
    )


def ps_jp_retraction() -> NaturalRun:
    run = NaturalRun("ps_jp_retraction", PS_PATEL)
    run.user(
        "Hi, it's James Patel (james_patel_9828). How did I pay for my reservations? I need it "
        "for my expense report."
    )
    run.call("get_user_details", user_id="james_patel_9828")
    run.call("get_reservation_details", reservation_id="AAVMM8")
    m = run.say(
        "Your reservations were all paid with your travel certificate, gift_card_1642017 — "
        "AAVMM8, for example, was $4,752."
    )
    run.user("Certificate? No, that's a gift card my company gave me.")
    run.say(
        "My apologies — you're right, gift_card_1642017 is a gift card; the profile seems to "
        "mislabel it. All three reservations were paid with that gift card."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "calls gift_card_1642017 'your travel certificate' (v′), then retracts after the user "
        "objects",
        "retraction",
        "category_singular",
        "ref_id",
    )


def ps_ag_plural_list() -> NaturalRun:
    run = NaturalRun("ps_ag_plural_list", PS_AGARCIA)
    run.user("Hi, Aarav Garcia (aarav_garcia_1177). What gift card balances do I have?")
    run.call("get_user_details", user_id="aarav_garcia_1177")
    m = run.say(
        "You have two gift cards on file:\n\n"
        "**Gift cards**\n"
        "- gift_card_8887175 — $35.00\n"
        "- certificate_7473723 — $150.00\n\n"
        "That's $185 in total."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "certificate_7473723 is listed under 'Gift cards' and counted as one of 'two gift "
        "cards' (v′)",
        "category_plural",
        "markdown_list",
        "ref_id",
    )


def ps_ag_competitor_then_list() -> NaturalRun:
    run = NaturalRun("ps_ag_competitor_then_list", PS_AGARCIA)
    run.user("Hello, Aarav Garcia, aarav_garcia_1177. How much is left on my gift card?")
    run.call("get_user_details", user_id="aarav_garcia_1177")
    run.say("Your gift card has $35.00 left on it.")
    run.user(
        "And I also had a travel certificate from a delayed flight last year — is it still there?"
    )
    m = run.say(
        "I'm not seeing a travel certificate on your profile. Besides the $35 gift card, the "
        "only other payment method is another gift card, certificate_7473723, with $150."
    )
    run.user("Weird. OK. ###STOP###")
    return run.expect(
        m,
        m,
        True,
        "'your gift card ... $35' is gift_card_8887175 (the only $35 method): competitor, not "
        "a use; the next answer calls certificate_7473723 a gift card and denies a certificate",
        "competitor",
        "category_singular",
        "ref_amount",
        "ref_id",
    )


def ps_ag_ambiguous() -> NaturalRun:
    run = NaturalRun("ps_ag_ambiguous", PS_AGARCIA)
    run.user(
        "Hi, Aarav Garcia (aarav_garcia_1177). I want to book a one-way from Atlanta to "
        "Orlando. Can I pay with my gift card?"
    )
    run.call("get_user_details", user_id="aarav_garcia_1177")
    a = run.say(
        "Yes — your gift card can cover part of it, and anything beyond its balance can go on "
        "another payment method. What date would you like to travel, and in which cabin?"
    )
    run.user("Actually, I'll book it later. Thanks. ###STOP###")
    return run.expect(
        "undecidable",
        "undecidable",
        "undecidable",
        f"the record now shows two gift cards (gift_card_8887175 and certificate_7473723); "
        f"'your gift card' at step {a} names neither and nothing settles which",
        "ambiguous",
        "competitor",
        "category_singular",
    )


def ps_yg_table() -> NaturalRun:
    run = NaturalRun("ps_yg_table", PS_YARA)
    run.user(
        "Hi, Yara Garcia, yara_garcia_1905. I'm planning a trip. What payment methods do I "
        "have on file?"
    )
    run.call("get_user_details", user_id="yara_garcia_1905")
    m = run.say(
        "Here's what's on your profile:\n\n"
        "| Payment method | Type | Balance |\n"
        "|---|---|---|\n"
        "| certificate_2345996 | Gift card | $150 |\n"
        "| gift_card_6941833 | Gift card | $152 |\n"
        "| gift_card_1646646 | Gift card | $200 |\n\n"
        "You can use up to three gift cards on a single booking."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "the certificate_2345996 row gives its type as Gift card (v′)",
        "markdown_table",
        "category_singular",
        "ref_id",
    )


def ps_yg_handoff() -> NaturalRun:
    run = NaturalRun("ps_yg_handoff", PS_YARA)
    run.user(
        "Hi, Yara Garcia (yara_garcia_1905). Can you merge all my balances onto one card? "
        "It's a pain to keep track of them."
    )
    run.call("get_user_details", user_id="yara_garcia_1905")
    run.say(
        "Merging balances isn't something I can do from here, but I can transfer you to a "
        "colleague who can look into it. One moment."
    )
    c = run.call(
        "transfer_to_human_agents",
        summary=(
            "Customer yara_garcia_1905 asks to merge the balances of her three gift cards "
            "(gift_card_6941833 $152, gift_card_1646646 $200, certificate_2345996 $150) into a "
            "single card. Not supported by our tools."
        ),
    )
    run.user(STOP)
    return run.expect(
        c,
        c,
        True,
        "the message speaks of 'balances' only (no category); the summary counts "
        "certificate_2345996 among 'three gift cards' (v′)",
        "handoff_summary",
        "category_plural",
        "ref_id",
    )


def ps_mk_verify_then_rely() -> NaturalRun:
    run = NaturalRun("ps_mk_verify_then_rely", PS_MIAKIM)
    run.user(
        "Hi, Mia Kim (mia_kim_4397). I need to change my flight on H9ZU1C to a day later, and "
        "I'd like to pay with gift_card_7359776."
    )
    run.call("get_user_details", user_id="mia_kim_4397")
    run.call("get_reservation_details", reservation_id="H9ZU1C")
    q = run.say(
        "Your profile lists gift_card_7359776 as a travel certificate rather than a gift card "
        "— is that correct? I ask because certificates can't be used to pay for flight changes."
    )
    run.user("Hmm, I'm honestly not sure. Whatever the system says, I guess.")
    m = run.say(
        "Okay — since it's a certificate, it can't be used for this change. Your gift card "
        "gift_card_7773485 has $203 on it. Would you like to use that one instead?"
    )
    run.user("Let me think about it. ###STOP###")
    return run.expect(
        q,
        m,
        True,
        "first a verification question quoting v′; after the user defers, the agent treats "
        "it as a certificate and excludes it",
        "verification_question",
        "reliance_after_question",
        "category_singular",
        "derived_value",
    )


def ps_im_proposal_then_call() -> NaturalRun:
    run = NaturalRun("ps_im_proposal_then_call", PS_IMULLER)
    run.user(
        "Hi, Ivan Muller, ivan_muller_7015. I want to upgrade G72NSF to business and pay with "
        "the $500 one on my account."
    )
    run.call("get_user_details", user_id="ivan_muller_7015")
    run.call("get_reservation_details", reservation_id="G72NSF")
    m = run.say(
        "Sure! I'll move G72NSF (HAT097 and HAT251 on May 17) from economy to business and "
        "charge the difference to your $500 gift card, certificate_8998287. Shall I proceed?"
    )
    run.user("Yes, go ahead.")
    run.call(
        "update_reservation_flights",
        reservation_id="G72NSF",
        cabin="business",
        flights=[
            {"flight_number": "HAT097", "date": "2024-05-17"},
            {"flight_number": "HAT251", "date": "2024-05-17"},
        ],
        payment_id="certificate_8998287",
    )
    run.say(
        "The system rejected that payment: certificate_8998287 is actually a travel "
        "certificate, and certificates can't pay for changes. Would you like to use your "
        "credit card, credit_card_3563913, instead?"
    )
    run.user("No thanks, I'll leave it. ###STOP###")
    return run.expect(
        m,
        m,
        True,
        "the proposal calls certificate_8998287 'your $500 gift card' (v′); the change is then "
        "paid with it (also reliance) and the agent retracts after the error",
        "category_singular",
        "ref_amount",
        "retraction",
        "plain_reliance",
    )


def ps_ms_call_first() -> NaturalRun:
    run = NaturalRun("ps_ms_call_first", PS_MSILVA)
    run.user("Hi, Mohamed Silva (mohamed_silva_9265). I need to add 2 checked bags to K1NW8N.")
    run.call("get_user_details", user_id="mohamed_silva_9265")
    run.call("get_reservation_details", reservation_id="K1NW8N")
    run.say(
        "K1NW8N is basic economy and you're a regular member, so there's no free allowance: "
        "2 extra bags are $50 each, $100 in total. Shall I go ahead, and which payment method "
        "would you like to use?"
    )
    run.user("Yes, use the $250 one.")
    c = run.call(
        "update_reservation_baggages",
        reservation_id="K1NW8N",
        total_baggages=2,
        nonfree_baggages=2,
        payment_id="certificate_2765295",
    )
    run.say(
        "It turns out certificate_2765295 is a travel certificate after all, and certificates "
        "can't be used for bag fees. Would you like me to use your gift card gift_card_8020792 "
        "($198) instead?"
    )
    run.user("Fine, do that.")
    run.call(
        "update_reservation_baggages",
        reservation_id="K1NW8N",
        total_baggages=2,
        nonfree_baggages=2,
        payment_id="gift_card_8020792",
    )
    run.say("Done — K1NW8N now has 2 checked bags, and $100 was charged to gift_card_8020792.")
    run.user(STOP)
    return run.expect(
        c,
        c,
        True,
        "of the two $250 methods the agent picks certificate_2765295 (shown as a gift card) to "
        "pay a bag fee, which only a non-certificate may pay: acting on v′; it retracts after "
        "the error",
        "tool_call_use",
        "retraction",
        "competitor",
        "ref_amount",
    )


def ps_od_json() -> NaturalRun:
    run = NaturalRun("ps_od_json", PS_ODAVIS)
    run.user("Hi, Omar Davis, omar_davis_3817. Please list my payment methods with balances.")
    run.call("get_user_details", user_id="omar_davis_3817")
    m = run.say(
        '{"message": "Here are the payment methods on your profile.", "payment_methods": ['
        '{"id": "gift_card_3481935", "type": "certificate", "balance": 22.0}, '
        '{"id": "credit_card_2929732", "type": "credit_card"}, '
        '{"id": "credit_card_9525117", "type": "credit_card"}, '
        '{"id": "gift_card_6847880", "type": "gift_card", "balance": 31.0}]}'
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "JSON-looking reply giving gift_card_3481935 the type certificate (v′)",
        "json_reply",
        "ref_id",
        "plain_reliance",
    )


def ps_od_doubt() -> NaturalRun:
    run = NaturalRun("ps_od_doubt", PS_ODAVIS)
    run.user(
        "Hi, Omar Davis (omar_davis_3817). Please add 2 checked bags to JG7FMM and charge my "
        "gift card ending 1935."
    )
    run.call("get_user_details", user_id="omar_davis_3817")
    run.call("get_reservation_details", reservation_id="JG7FMM")
    m = run.say(
        "Something's off here: gift_card_3481935 appears on your profile as a travel "
        "certificate, even though the ID marks it as a gift card. Either way, its balance is "
        "$22, which wouldn't cover the fee: with 2 business passengers you get 4 free bags, "
        "so going from 3 to 5 bags means one paid bag at $50. Would you like to use one of "
        "your credit cards?"
    )
    run.user("Use the card ending in 2929732.")
    run.call(
        "update_reservation_baggages",
        reservation_id="JG7FMM",
        total_baggages=5,
        nonfree_baggages=1,
        payment_id="credit_card_2929732",
    )
    run.say("Done — JG7FMM now has 5 checked bags, and $50 was charged to credit_card_2929732.")
    run.user(STOP)
    return run.expect(
        m,
        "none",
        False,
        "the certificate label is quoted with a doubt against the id and left undecided "
        "('either way'); the method is then not used",
        "doubt",
        "first_use_not_reliance",
        "ref_amount",
    )


def ps_ml_denial() -> NaturalRun:
    run = NaturalRun("ps_ml_denial", PS_MIALI)
    run.user("Hi, Mia Li (mia_li_3668). I want to book a flight and use my $100 balance.")
    run.call("get_user_details", user_id="mia_li_3668")
    m = run.say(
        "Your profile lists certificate_4856383 ($100) as a gift card, but it isn't one — the "
        "ID shows it's a travel certificate. That's fine for a new booking, though: you can "
        "apply one travel certificate per reservation. Where would you like to fly?"
    )
    run.user("I'll decide and come back. ###STOP###")
    return run.expect(
        m,
        "none",
        False,
        "the gift-card label is quoted and denied; the agent states the true category",
        "denial",
        "flag_and_correct",
        "states_true_value",
        "first_use_not_reliance",
    )


def ps_ir_conditional() -> NaturalRun:
    run = NaturalRun("ps_ir_conditional", PS_IROSSI)
    run.user(
        "Hello, Ivan Rossi (ivan_rossi_8555). Please make it 4 checked bags on OWZ4XL and pay "
        "with gift_card_7344518."
    )
    run.call("get_user_details", user_id="ivan_rossi_8555")
    run.call("get_reservation_details", reservation_id="OWZ4XL")
    q = run.say(
        "Your profile shows gift_card_7344518 as a travel certificate. If that's accurate, it "
        "can't be used for bag fees — but the ID suggests it's a gift card. Could you confirm "
        "which it is?"
    )
    run.user("It's a gift card, I bought it myself.")
    run.say(
        "Thanks! With 3 passengers in basic economy and your silver status, 3 bags are free "
        "and the 4th is $50, charged to gift card gift_card_7344518. Shall I proceed?"
    )
    run.user("Yes.")
    run.call(
        "update_reservation_baggages",
        reservation_id="OWZ4XL",
        total_baggages=4,
        nonfree_baggages=1,
        payment_id="gift_card_7344518",
    )
    run.say("All done — OWZ4XL now has 4 checked bags.")
    run.user(STOP)
    return run.expect(
        q,
        "none",
        False,
        "v′ inside a conditional that questions it, then a question; the gift card (v) is "
        "then used",
        "conditional",
        "verification_question",
        "states_true_value",
        "first_use_not_reliance",
    )


def ps_cl_no_use() -> NaturalRun:
    run = NaturalRun("ps_cl_no_use", PS_CHENLEE)
    run.user("Hi, Chen Lee (chen_lee_6825). Would one more checked bag on YAX4DR cost me anything?")
    run.call("get_user_details", user_id="chen_lee_6825")
    run.call("get_reservation_details", reservation_id="YAX4DR")
    run.say(
        "No charge: as a gold member in economy, each passenger on YAX4DR gets 3 free checked "
        "bags, and the reservation has none yet. Would you like me to add one?"
    )
    run.user("Not yet. Also, do I still have that $100 certificate from last year?")
    run.say("Yes — certificate_9982533, with $100, is still on your profile.")
    run.user(STOP)
    return run.expect(
        "none",
        "none",
        False,
        "the $100 certificate named is certificate_9982533 (competitor, really a certificate); "
        "certificate_6730850 is never referred to",
        "no_use",
        "competitor",
        "ref_amount",
    )


Build = Callable[[], NaturalRun]
PAY_SOURCE_RUNS: list[Build] = [
    ps_jp_voucher_refusal,
    ps_jp_travel_credit_hedge,
    ps_jp_flag_correct_act,
    ps_jp_verify_question,
    ps_jp_retraction,
    ps_ag_plural_list,
    ps_ag_competitor_then_list,
    ps_ag_ambiguous,
    ps_yg_table,
    ps_yg_handoff,
    ps_mk_verify_then_rely,
    ps_im_proposal_then_call,
    ps_ms_call_first,
    ps_od_json,
    ps_od_doubt,
    ps_ml_denial,
    ps_ir_conditional,
    ps_cl_no_use,
]
