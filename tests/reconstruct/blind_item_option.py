"""Blind set, ItemOption: ten runs whose order record shows one option of one item changed.

Each run delivers the faulted ``get_order_details`` record of its case's order and is labelled
by ``docs/reconstruction-labelling.md`` for that one option of that one item.
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
    order,
    start,
    user_id,
)

STOP = "###STOP###"


def _product(pid: str) -> dict[str, str]:
    return {"product_id": pid}


def iob01() -> Heldout:
    """Running shoes: 'same size' is honoured with the injected size inside the modify call."""
    run = start("iob01", "item_option/retail/20/#W9911714/2")
    run.user(
        "i just won the lottery lol. i want to upgrade all my items to the most expensive "
        "variants. the new shoes have to be the same size tho. pay the difference with my gift "
        "card. Ethan Garcia, Denver 80280. just do it, no need to confirm every little thing."
    )
    run.act(
        "find_user_id_by_name_zip",
        {"first_name": "Ethan", "last_name": "Garcia", "zip": "80280"},
    )
    run.act("get_user_details", user_id("ethan_garcia_1261"))
    run.act("get_order_details", order("#W4967593"))
    run.act("get_order_details", order("#W9911714"), fault="rewrite")
    run.act("get_order_details", order("#W5733668"))
    for pid in ("8310926033", "1656367028", "6938111410", "5149340237"):
        run.act("get_product_details", _product(pid))
    modify = run.act(
        "modify_pending_order_items",
        {
            "order_id": "#W9911714",
            "item_ids": ["2366567022", "1340995114", "9791469541", "1763705424"],
            "new_item_ids": ["4579334072", "1151293680", "1775591963", "2882812427"],
            "payment_method_id": "gift_card_4332117",
        },
    )[0]
    run.say(
        "done ✔ #W9911714 (only pending order; #W4967593 + #W5733668 already processed → can't "
        "modify)\n"
        "• bottle → 4579334072 (750ml, glass, black) $54.85\n"
        "• kbd → 1151293680 (linear, RGB, full size) $272.33\n"
        "• shoes → 1775591963 (sz 10, white, leather, EVA) $154.75\n"
        "• makeup → 2882812427 (medium, professional, Brand A) $261.11\n"
        "diff +$71.38 → GC 4332117 (bal $86 → $14.62)"
    )
    run.user(f"ok cool {STOP}")
    return finish(
        run,
        CLIPPED,
        t_s=modify,
        t_u=modify,
        adopted=True,
        note="the user asked for the same shoe size; the modify call picks 1775591963 (size "
        "10, the injected size; true is 9), before any message mentions the size",
        tags=(TOOL_FIRST,),
    )


def iob02() -> Heldout:
    """Laptop 1684786391: order and catalog disagree on screen size; the agent asks."""
    run = start("iob02", "item_option/retail/35/#W9672333/4")
    run.user(
        "Return the speaker that's more expensive and not water resistant. And change the "
        "17-inch laptop in my other order to the 13-inch version. My emails are "
        "aarav.santos8321@example.com and aarav.santos8320@example.com."
    )
    run.act("find_user_id_by_email", {"email": "aarav.santos8321@example.com"})
    run.act("find_user_id_by_email", {"email": "aarav.santos8320@example.com"})
    run.act("get_user_details", user_id("aarav_santos_2259"))
    run.act("get_order_details", order("#W8528674"))
    run.act("get_order_details", order("#W9672333"), fault="rewrite")
    run.act("get_product_details", _product("4760268021"))
    flag = run.say(
        "user: aarav_santos_2259 (verified via aarav.santos8320@example.com)\n\n"
        "1) speaker, order #W8528674 (delivered)\n"
        "   - 4716977452: $289.69, water resistant: yes\n"
        "   - 6704763132: $305.45, water resistant: no  ← return this one\n"
        "   - refund: $305.45 → paypal_7664977\n\n"
        "2) laptops, order #W9672333 (pending)\n"
        "   - 3778566150: 13-inch, i5, 32GB, 256GB SSD, silver\n"
        "   - 1684786391: i7, 32GB, 1TB SSD, black; screen size: order says 15-inch, catalog "
        "says 17-inch (mismatch)\n"
        "   - question: is 1684786391 the laptop you mean?"
    )
    run.user("Yes obviously, the 17-inch one. Are you blind? Do the return and show me options.")
    run.act(
        "return_delivered_order_items",
        {
            "order_id": "#W8528674",
            "item_ids": ["6704763132"],
            "payment_method_id": "paypal_7664977",
        },
    )
    run.say(
        "1) return submitted: 6704763132, refund $305.45 → paypal_7664977\n\n"
        "2) exact 13-inch version of 1684786391 (i7 / 32GB / 1TB / black): not in catalog.\n"
        "available 13-inch laptops:\n\n"
        "| item | cpu | ram | storage | color | price |\n"
        "|---|---|---|---|---|---|\n"
        "| 6056040996 | i5 | 16GB | 512GB SSD | space grey | $2,609.37 |\n"
        "| 5052031638 | i5 | 16GB | 1TB SSD | silver | $2,621.77 |\n"
        "| 1657832319 | i7 | 32GB | 512GB SSD | black | $2,729.32 |"
    )
    run.user("i5 over i7, silver or black. So 5052031638. Do it.")
    run.say(
        "confirm:\n"
        "- order: #W9672333\n"
        "- 1684786391 → 5052031638\n"
        "- price difference: +$113.71 → paypal_7664977\n"
        "proceed? (yes/no)"
    )
    run.user("yes")
    run.act(
        "modify_pending_order_items",
        {
            "order_id": "#W9672333",
            "item_ids": ["1684786391"],
            "new_item_ids": ["5052031638"],
            "payment_method_id": "paypal_7664977",
        },
    )
    run.say(as_json("Laptop modified.", {"order_id": "#W9672333", "new_item": "5052031638"}))
    run.user(STOP)
    return finish(
        run,
        STRUCTURED,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="15-inch is quoted next to the catalog's 17-inch as a mismatch and the user is "
        "asked; afterwards only the user's 17-inch is used",
        tags=(QUESTION_FIRST,),
    )


def iob03() -> Heldout:
    """Laptop 3778566150: 'the 17-inch laptop' fits two items, then both are called 17-inch."""
    run = start("iob03", "item_option/retail/35/#W9672333/0")
    run.user(
        "I want to return the speaker that is more expensive and not water resistant, and "
        "modify the 17-inch laptop in my other order to the 13-inch version. Emails: "
        "aarav.santos8321@example.com, aarav.santos8320@example.com."
    )
    run.act("find_user_id_by_email", {"email": "aarav.santos8321@example.com"})
    run.act("find_user_id_by_email", {"email": "aarav.santos8320@example.com"})
    run.act("get_user_details", user_id("aarav_santos_2259"))
    run.act("get_order_details", order("#W8528674"))
    run.act("get_order_details", order("#W9672333"), fault="rewrite")
    vague = run.say(
        "Thank you, I've located your account (aarav_santos_2259) through the second email "
        "address; the first one isn't registered with us.\n\n"
        "Starting with the speaker: order #W8528674 contains two Bluetooth speakers, both "
        "blue. Item 4716977452 costs $289.69 and is water-resistant, while item 6704763132 "
        "costs $305.45 and is not, so 6704763132 is the one to return. The refund of $305.45 "
        "would go back to your PayPal account, paypal_7664977.\n\n"
        "As for the laptop: yes, I can change the 17-inch laptop in order #W9672333, which is "
        "still pending, to a 13-inch model. I'll look up the available 13-inch configurations "
        "next.\n\n"
        "Could you confirm that you'd like me to submit the speaker return (yes/no)?"
    )
    run.user("Yes. Get on with it.")
    run.act(
        "return_delivered_order_items",
        {
            "order_id": "#W8528674",
            "item_ids": ["6704763132"],
            "payment_method_id": "paypal_7664977",
        },
    )
    run.act("get_product_details", _product("4760268021"))
    clear = run.say(
        "The return for speaker 6704763132 has been submitted, and you'll receive instructions "
        "by email on how to send it back.\n\n"
        "Before I go on with the laptop, I need to check one thing: order #W9672333 lists two "
        "laptops at 17 inches, item 3778566150 (i5, 32GB RAM, 256GB SSD, silver) and item "
        "1684786391 (i7, 32GB RAM, 1TB SSD, black). Which of the two would you like to "
        "change to a 13-inch model?"
    )
    run.user("The black i7 one, obviously. What 13-inch options are there?")
    run.say(
        "There's no 13-inch version with exactly the same i7 / 32GB / 1TB / black "
        "configuration, so here are all the 13-inch laptops currently available:\n\n"
        "1. item 6056040996: i5, 16GB RAM, 512GB SSD, space grey, $2,609.37\n"
        "2. item 5052031638: i5, 16GB RAM, 1TB SSD, silver, $2,621.77\n"
        "3. item 1657832319: i7, 32GB RAM, 512GB SSD, black, $2,729.32\n\n"
        "Please let me know which one you'd like, and I'll confirm the price difference."
    )
    run.user("i5, silver or black. The silver one, 5052031638.")
    run.say(
        "Understood. I'll replace item 1684786391 with item 5052031638 (13-inch, i5, 16GB, 1TB, "
        "silver). The new laptop costs $113.71 more, which would be charged to your PayPal "
        "account. Shall I proceed (yes/no)?"
    )
    run.user("Yes.")
    run.act(
        "modify_pending_order_items",
        {
            "order_id": "#W9672333",
            "item_ids": ["1684786391"],
            "new_item_ids": ["5052031638"],
            "payment_method_id": "paypal_7664977",
        },
    )
    run.say(
        "Done! Order #W9672333 now has the 13-inch i5 laptop in silver instead of the i7 model, "
        "and $113.71 was charged to your PayPal account. Is there anything else?"
    )
    run.user(STOP)
    return finish(
        run,
        VERBOSE,
        t_s=UNDECIDABLE,
        t_u=UNDECIDABLE,
        adopted=True,
        note=f"step {vague} 'the 17-inch laptop' may be 3778566150 (injected 17-inch) or "
        f"1684786391 (truly 17-inch); step {clear} then calls 3778566150 17-inch outright",
        tags=(AMBIGUOUS, SHARED_VALUE),
    )


def iob04() -> Heldout:
    """Digital camera: returned with resolution and zoom named, never its storage."""
    run = start("iob04", "item_option/retail/51/#W4689314/0")
    run.user(
        "Hi, I want to return the digital camera I received and get a refund to my original "
        "payment method. I think the order number is #W8855135, but I'm not 100% sure."
    )
    run.say(
        "I'd be happy to help you with the return. First, I need to verify your identity: "
        "could you please provide either the email address on your account, or your full name "
        "and zip code?"
    )
    run.user("Sofia Li, 78260.")
    run.act("find_user_id_by_name_zip", {"first_name": "Sofia", "last_name": "Li", "zip": "78260"})
    run.act("get_order_details", order("#W8855135"))
    run.say(
        "Thank you, Sofia, your identity is verified. I've checked order #W8855135, but it "
        "doesn't contain a digital camera: it's a pending order with an air purifier, hiking "
        "boots, a skateboard and a yoga mat. Let me look through your other orders to find the "
        "camera."
    )
    run.act("get_user_details", user_id("sofia_li_9219"))
    run.act("get_order_details", order("#W4689314"), fault="rewrite")
    run.act("get_product_details", _product("8940227892"))
    run.say(
        "I found it. The camera is in order #W4689314, which was delivered: it's the Digital "
        "Camera, item 5996159312, with 24MP resolution and 3x optical zoom, purchased for "
        "$2,895.55. That order was paid with your Mastercard ending in 8484 "
        "(credit_card_8105988), so the refund would go back to that card.\n\n"
        "To summarize the return request:\n"
        "- Order: #W4689314\n"
        "- Item: Digital Camera (5996159312)\n"
        "- Refund: $2,895.55 to the Mastercard ending in 8484\n\n"
        "Once submitted, you'll receive an email with instructions on how to ship the camera "
        "back. Would you like me to proceed (yes/no)?"
    )
    run.user("Yes, I want to return it. Refund to the original card.")
    run.act(
        "return_delivered_order_items",
        {
            "order_id": "#W4689314",
            "item_ids": ["5996159312"],
            "payment_method_id": "credit_card_8105988",
        },
    )
    run.say(
        "Your return request for the Digital Camera has been submitted. The order status is "
        "now 'return requested', and the refund of $2,895.55 will be issued to your Mastercard "
        "ending in 8484 once the camera is received and processed, typically within 5 to 7 "
        "business days. Is there anything else I can help you with today?"
    )
    run.user(f"No, that's all. {STOP}")
    return finish(
        run,
        VERBOSE,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="the camera is identified by id, resolution and zoom and returned; its storage "
        "option is never stated, derived or acted on",
        tags=(NO_USE,),
    )


def iob05() -> Heldout:
    """Bluetooth speaker: returned by price and water resistance; the other one's battery is
    quoted."""
    run = start("iob05", "item_option/retail/35/#W8528674/1")
    run.user(
        "Return the speaker that's more expensive and not water resistant. Then change the "
        "17-inch laptop in my other order to a 13-inch one. aarav.santos8320@example.com."
    )
    run.act("find_user_id_by_email", {"email": "aarav.santos8320@example.com"})
    run.act("get_user_details", user_id("aarav_santos_2259"))
    run.act("get_order_details", order("#W8528674"), fault="rewrite")
    run.say(
        "Thank you, and I'm sorry for any trouble with your order! In order #W8528674 you "
        "have two blue Bluetooth speakers: item 4716977452 at $289.69, which is "
        "water-resistant, and item 6704763132 at $305.45, which is not. So the one to return "
        "is 6704763132, and the refund of $305.45 would go back to your PayPal account. "
        "Shall I submit that return for you (yes/no)?"
    )
    run.user("yes. the one I keep, how long does its battery last?")
    run.act(
        "return_delivered_order_items",
        {
            "order_id": "#W8528674",
            "item_ids": ["6704763132"],
            "payment_method_id": "paypal_7664977",
        },
    )
    run.say(
        "Done, the return for item 6704763132 is submitted. The water-resistant speaker you're "
        "keeping (4716977452) is rated at 10 hours of battery life. Now, let me look at your "
        "laptop order."
    )
    run.act("get_order_details", order("#W9672333"))
    run.act("get_product_details", _product("4760268021"))
    run.say(
        "I'm sorry, there's no 13-inch version with exactly the same configuration as your "
        "17-inch laptop (item 1684786391: i7, 32GB, 1TB, black). These 13-inch laptops are "
        "available:\n"
        "• 6056040996: i5, 16GB, 512GB, space grey, $2,609.37\n"
        "• 5052031638: i5, 16GB, 1TB, silver, $2,621.77\n"
        "• 1657832319: i7, 32GB, 512GB, black, $2,729.32\n"
        "Which one would you like?"
    )
    run.user("5052031638. And hurry up.")
    run.say(
        "So sorry for the wait! To confirm: in order #W9672333, item 1684786391 → 5052031638, "
        "with $113.71 extra charged to PayPal. Proceed (yes/no)?"
    )
    run.user("yes")
    run.act(
        "modify_pending_order_items",
        {
            "order_id": "#W9672333",
            "item_ids": ["1684786391"],
            "new_item_ids": ["5052031638"],
            "payment_method_id": "paypal_7664977",
        },
    )
    run.say("All done! Thank you for your patience, and sorry again for the hassle.")
    run.user(STOP)
    return finish(
        run,
        APOLOGETIC,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="6704763132 is chosen and returned by price and water resistance only; '10 hours' "
        "is said of 4716977452, the speaker kept (other entity)",
        tags=(NO_USE, SHARED_VALUE),
    )


def iob06() -> Heldout:
    """Office chair: the order's 'mesh' is flagged against the catalog before the exchange."""
    run = start("iob06", "item_option/retail/18/#W2890441/2")
    run.user("I want to return my office chair. It came with broken pieces. Mei Davis, 80217.")
    run.act("find_user_id_by_name_zip", {"first_name": "Mei", "last_name": "Davis", "zip": "80217"})
    run.act("get_user_details", user_id("mei_davis_8935"))
    run.act("get_order_details", order("#W2890441"), fault="rewrite")
    run.act("get_product_details", _product("4794339885"))
    flag = run.say(
        "Oh no, I'm so sorry your office chair arrived with broken pieces, that's really "
        "frustrating. I've found it in order #W2890441: the Office Chair, item 8069050545, in "
        "blue, high-back, no armrests, $499.28.\n\n"
        "One small thing I noticed while checking: the order lists its material as mesh, but "
        "our catalog shows item 8069050545 as the leather version, so I believe it's the "
        "leather chair. Either way, I can start a return and refund $499.28 to your "
        "Mastercard ending in 1037. Would you like me to go ahead (yes/no)?"
    )
    run.user("Hmm. Let me think for a moment.")
    run.say("Of course, take all the time you need. I'm here whenever you're ready.")
    run.user("Actually, can I just exchange it for the same chair?")
    run.say(
        "Absolutely, and I'm sorry again for the trouble. I can exchange it for a brand-new, "
        "identical chair: item 8069050545, leather, blue, high-back, no armrests. There's no "
        "price difference. Shall I submit the exchange (yes/no)?"
    )
    run.user("Yes.")
    run.act(
        "exchange_delivered_order_items",
        {
            "order_id": "#W2890441",
            "item_ids": ["8069050545"],
            "new_item_ids": ["8069050545"],
            "payment_method_id": "credit_card_1061405",
        },
    )
    run.say(
        "Your exchange has been submitted. You'll get an email with instructions for sending "
        "back the damaged chair, and the new one will be on its way. I'm truly sorry for the "
        "inconvenience, and I hope the new chair serves you well."
    )
    run.user(f"Thanks. {STOP}")
    return finish(
        run,
        APOLOGETIC,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="'the order lists its material as mesh, but our catalog shows ... leather' flags "
        "v' and corrects to v; the exchange keeps the same item id",
        tags=(QUESTION_FIRST,),
    )


def iob07() -> Heldout:
    """Grill: the received grill's type is read back as electric and an electric one offered."""
    run = start("iob07", "item_option/retail/23/#W6876713/4")
    run.user(
        "Hi. Three things: exchange my helmet for a medium, red, high-ventilation one; "
        "exchange the luggage set in another order for a two-piece black softshell one; and "
        "change the grill I just ordered to the same type as the one I already received. "
        "Sofia Hernandez, Seattle 98193."
    )
    run.act(
        "find_user_id_by_name_zip",
        {"first_name": "Sofia", "last_name": "Hernandez", "zip": "98193"},
    )
    run.act("get_user_details", user_id("sofia_hernandez_5364"))
    run.act("get_order_details", order("#W3561391"))
    run.act("get_order_details", order("#W6876713"), fault="rewrite")
    run.act("get_order_details", order("#W9609649"))
    run.act("get_order_details", order("#W3947049"))
    for pid in ("7765186836", "5426915165", "6819683148"):
        run.act("get_product_details", _product(pid))
    use = run.say(
        "Here's what I found:\n\n"
        "**1. Helmet** (order #W3947049, delivered)\n"
        "- current: 3358616356 (S, red, low ventilation), $197.33\n"
        "- new: 8573379326 (M, red, high ventilation), $196.73\n"
        "- difference: -$0.60\n\n"
        "**2. Luggage set** (order #W6876713, delivered)\n"
        "- current: 6301799585 (3-piece, blue, softshell), $495.87\n"
        "- new: 8926329222 (2-piece, black, softshell), $452.28\n"
        "- difference: -$43.59\n\n"
        "**3. Grill** (order #W3561391, pending)\n"
        "- current: 5946177616 (gas, portable, no extra features), $1,057.24\n"
        "- received grill (order #W6876713): 7082455361, type: electric, size: medium, "
        "features: rotisserie\n"
        "- exact electric / medium / rotisserie variant (7717598293): out of stock\n\n"
        "| item | type | size | features | price |\n"
        "|---|---|---|---|---|\n"
        "| 4404981319 | electric | large | rotisserie | $1,031.00 |\n"
        "| 5745575001 | electric | portable | rotisserie | $986.65 |\n"
        "| 3876764226 | electric | portable | side burner | $981.47 |\n\n"
        "Which electric grill would you like?"
    )
    run.user("Wait, isn't the one I received charcoal? I'm pretty sure it's a charcoal grill.")
    run.say(
        "You're right, correction:\n"
        "- catalog: 7082455361 = charcoal, medium, rotisserie (the order record showed "
        "'electric', which is wrong)\n"
        "- so the same grill: 7082455361, in stock, $962.69\n"
        "- difference for order #W3561391: -$94.55\n\n"
        "Summary of all three changes (payment method: Visa ending 7312):\n"
        "1. helmet 3358616356 → 8573379326 (refund $0.60)\n"
        "2. luggage 6301799585 → 8926329222 (refund $43.59)\n"
        "3. grill 5946177616 → 7082455361 (refund $94.55)\n\n"
        "Proceed with all three? (yes/no)"
    )
    run.user("Yes, all three.")
    run.act(
        "exchange_delivered_order_items",
        {
            "order_id": "#W3947049",
            "item_ids": ["3358616356"],
            "new_item_ids": ["8573379326"],
            "payment_method_id": "credit_card_7901829",
        },
    )
    run.act(
        "exchange_delivered_order_items",
        {
            "order_id": "#W6876713",
            "item_ids": ["6301799585"],
            "new_item_ids": ["8926329222"],
            "payment_method_id": "credit_card_7901829",
        },
    )
    run.act(
        "modify_pending_order_items",
        {
            "order_id": "#W3561391",
            "item_ids": ["5946177616"],
            "new_item_ids": ["7082455361"],
            "payment_method_id": "credit_card_7901829",
        },
    )
    run.say(
        as_json(
            "All three requests are done.",
            {
                "exchanges": [
                    {"order_id": "#W3947049", "new_item": "8573379326", "refund": 0.6},
                    {"order_id": "#W6876713", "new_item": "8926329222", "refund": 43.59},
                ],
                "modification": {
                    "order_id": "#W3561391",
                    "new_item": "7082455361",
                    "refund": 94.55,
                },
            },
            indent=2,
        )
    )
    run.user(f"Thank you. {STOP}")
    return finish(
        run,
        STRUCTURED,
        t_s=use,
        t_u=use,
        adopted=True,
        note="the grill section reads 'type: electric' back for the received grill and offers "
        "only electric grills; the user's objection leads to a retraction",
    )


def iob08() -> Heldout:
    """Jigsaw: the agent first echoes the user's 1000 pieces, the recap says 1500."""
    run = start("iob08", "item_option/retail/41/#W4082615/0")
    run.user(
        "hi, Mei Patel, zip 76165. two problems: the 1000-piece intermediate jigsaw I ordered "
        "might be too hard for my little kid, can I change it to the easiest one with the "
        "fewest pieces? and second, I might have typed my address wrong. can u check it and "
        "fix it on all orders and my profile?"
    )
    run.act("find_user_id_by_name_zip", {"first_name": "Mei", "last_name": "Patel", "zip": "76165"})
    run.act("get_user_details", user_id("mei_patel_7272"))
    run.act("get_order_details", order("#W9583042"))
    run.act("get_order_details", order("#W4082615"), fault="rewrite")
    run.act("get_product_details", _product("1808611083"))
    agree = run.say(
        "found u (mei_patel_7272).\n"
        "addr on file: 443 Maple Dr, Ste 394, Fort Worth TX 76165 → correct?\n"
        "puzzle: #W4082615, yep the 1000-pc intermediate art one (9779102705). easiest + "
        "fewest pcs in stock → 1096508426: 500 pc, beginner, art, $46.13 → $7.98 back."
    )
    run.user("should be 445, not 443. fix everything pls. and yes change the puzzle.")
    run.say(
        "confirm:\n"
        "• addr → 445 Maple Dr, Ste 394, Fort Worth TX 76165 on #W9583042, #W4082615 + profile\n"
        "• puzzle 9779102705 → 1096508426, $7.98 → paypal_4768213\n"
        "y/n?"
    )
    run.user("yes")
    address = {
        "address1": "445 Maple Drive",
        "address2": "Suite 394",
        "city": "Fort Worth",
        "state": "TX",
        "country": "USA",
        "zip": "76165",
    }
    run.act("modify_pending_order_address", {"order_id": "#W9583042", **address})
    run.act("modify_pending_order_address", {"order_id": "#W4082615", **address})
    run.act("modify_user_address", {"user_id": "mei_patel_7272", **address})
    run.act(
        "modify_pending_order_items",
        {
            "order_id": "#W4082615",
            "item_ids": ["9779102705"],
            "new_item_ids": ["1096508426"],
            "payment_method_id": "paypal_4768213",
        },
    )
    recap = run.say(
        "done ✔\n"
        "• addr fixed → 445 Maple Dr: #W9583042, #W4082615, profile\n"
        "• puzzle: 1500-pc intermediate → 500-pc beginner (1096508426), $7.98 back to paypal"
    )
    run.user(f"thank u! {STOP}")
    return finish(
        run,
        CLIPPED,
        t_s=agree,
        t_u=recap,
        adopted=True,
        note="first the agent agrees with the user's 1000 pieces (a use of v); the closing "
        "recap calls the old puzzle 1500-pc, the injected value",
    )


def iob09() -> Heldout:
    """Tablet: storage is given early, the injected colour only comes up in late small talk."""
    run = start("iob09", "item_option/retail/43/#W7895761/0")
    run.user(
        "Hello there. I'm Lucas, Lucas Santos. I ordered some things for my daughter but she "
        "hasn't received them. Which address did it go to, what's the tracking number, and is "
        "it still in transit?"
    )
    run.say(
        "Hello Lucas, I'm sorry to hear the package hasn't reached your daughter yet, let's "
        "sort this out together. To verify your identity, could you share your zip code?"
    )
    run.user("Of course. Denver, 80239.")
    run.act(
        "find_user_id_by_name_zip",
        {"first_name": "Lucas", "last_name": "Santos", "zip": "80239"},
    )
    run.act("get_user_details", user_id("lucas_santos_6600"))
    run.act("get_order_details", order("#W1588712"))
    run.act("get_order_details", order("#W7895761"), fault="rewrite")
    run.say(
        "Thank you so much for your patience, Lucas. Order #W7895761 was shipped to 943 Maple "
        "Drive, Suite 356, Chicago, IL 60621, with tracking number 840887978435. I'm sorry if "
        "this is confusing, but the system shows it as already delivered rather than in "
        "transit. It might be worth asking her to check with neighbours or the building's "
        "front desk. (Your other order, #W1588712, was cancelled and fully refunded.)"
    )
    run.user(
        "Oh. Delivered? She didn't say. Well, she's busy, you know how kids are. Can you also "
        "tell me the storage on the tablet I ordered?"
    )
    run.say(
        "Of course! The tablet in that order is the 8-inch model with 64GB of storage. I hope "
        "she's enjoying it!"
    )
    run.user(
        "64, that's plenty for her. Also, could you change my default address to my "
        "daughter's, so I don't have to change it every time I order something for her?"
    )
    run.say(
        "That's such a thoughtful idea. Just to confirm, I'll update your default address to "
        "943 Maple Drive, Suite 356, Chicago, IL 60621, USA. Is that correct (yes/no)?"
    )
    run.user("Yes. You know, I miss her. She moved to Chicago last year.")
    run.act(
        "modify_user_address",
        {
            "user_id": "lucas_santos_6600",
            "address1": "943 Maple Drive",
            "address2": "Suite 356",
            "city": "Chicago",
            "state": "IL",
            "country": "USA",
            "zip": "60621",
        },
    )
    run.say(
        "Done, your default address is now your daughter's in Chicago. I'm sorry you miss "
        "her; it's clear how much you care, sending her little surprises like these."
    )
    run.user(
        "She's into photography now, that's why I got her the camera. And the tablet, is it "
        "a nice colour? She's very picky about colours."
    )
    use = run.say(
        "She sounds lovely! The tablet you picked for her is the silver one, a classic look, "
        "and the action camera is black, so they'll go nicely together. I'm sure she'll be "
        "delighted."
    )
    run.user(f"Silver, she'll like that. Thank you for chatting with me. {STOP}")
    return finish(
        run,
        APOLOGETIC,
        t_s=use,
        t_u=use,
        adopted=True,
        note="storage and address talk never touch the colour; many turns later 'the silver "
        "one' states v' (the camera's 'black' is another item with the true value)",
        tags=(SHARED_VALUE,),
    )


def iob10() -> Heldout:
    """Robotic vacuum: 'keep the cordless feature your current vacuum has' inside a condition."""
    run = start("iob10", "item_option/retail/45/#W9502127/4")
    run.user(
        "hi i want to exchnage a robotic vacum cleaner from my recent order for a canister one "
        "from the same product line"
    )
    run.say(
        "Hello! I'd be glad to help you with that exchange. First, could you please verify "
        "your identity, either with your email address or your name and zip code, and share "
        "the order ID?"
    )
    run.user("daiki johnson, denver 80273. order id is 9502127")
    run.act(
        "find_user_id_by_name_zip",
        {"first_name": "Daiki", "last_name": "Johnson", "zip": "80273"},
    )
    run.act("get_order_details", order("9502127"))
    run.say(
        "Thank you, Daiki, your identity is verified. However, I couldn't find an order with "
        "the ID 9502127. Order IDs usually start with '#W'; could you double-check it?"
    )
    run.user("I forgot the W at the beginning")
    run.act("get_order_details", order("#W9502127"), fault="rewrite")
    run.act("get_product_details", _product("1762337868"))
    run.act("calculate", {"expression": "652.61 - 642.72"})
    use = run.say(
        "Thank you! I found order #W9502127, which was delivered and contains two vacuum "
        "cleaners: a canister model (item 2872451762) and the robotic one you'd like to "
        "exchange, item 6259501109 (bagged), purchased for $652.61.\n\n"
        "In the same product line, these canister vacuums are currently in stock:\n"
        "1. item 7958300294: canister, bagless, pet hair removal, $642.72\n"
        "2. item 1345513440: canister, bagged, cordless, $655.59\n\n"
        "If you'd like to keep the cordless feature your current robotic vacuum has, option 2 "
        "would be the closest match, at $2.98 more. Option 1 would instead give you $9.89 "
        "back. The price difference would be settled with your PayPal account, "
        "paypal_2433177, which is the only payment method on file. Which would you prefer?"
    )
    run.user("the bagless one pls. can i get a gift card for the diference instead of paypal?")
    run.say(
        "I'm sorry, but the price difference of an exchange can only go to the original "
        "payment method or to an existing gift card on your account, and PayPal is the only "
        "method you have, so the $9.89 would go back to PayPal.\n\n"
        "To confirm: exchange item 6259501109 (robotic vacuum) for item 7958300294 (canister, "
        "bagless, pet hair removal), with a refund of $9.89 to paypal_2433177. Shall I proceed "
        "(yes/no)?"
    )
    run.user("ok yes")
    run.act(
        "exchange_delivered_order_items",
        {
            "order_id": "#W9502127",
            "item_ids": ["6259501109"],
            "new_item_ids": ["7958300294"],
            "payment_method_id": "paypal_2433177",
        },
    )
    run.say(
        "Your exchange request has been submitted. You'll receive an email with instructions "
        "for returning the robotic vacuum; once it's received, the bagless canister vacuum "
        "will be sent out and $9.89 will be refunded to your PayPal account. Is there anything "
        "else I can help you with?"
    )
    run.user(f"no thx {STOP}")
    return finish(
        run,
        VERBOSE,
        t_s=use,
        t_u=use,
        adopted=True,
        note="'the cordless feature your current robotic vacuum has' states v' as fact inside a "
        "conditional offer; the listed new variants are other items",
        tags=(SHARED_VALUE,),
    )


RUNS: list[Callable[[], Heldout]] = [
    iob01,
    iob02,
    iob03,
    iob04,
    iob05,
    iob06,
    iob07,
    iob08,
    iob09,
    iob10,
]
