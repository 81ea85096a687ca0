"""Second blind set, ItemOption: ten hand-written runs with exact labels.

Each run is on a shipped ``item_option`` case: the delivered ``get_order_details`` record
shows one option of one ordered item with another value of the same product, its item id
kept. Labels follow ``docs/reconstruction-labelling.md``; every labelled step is one the
builder returned.
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
    order,
    start,
    user_id,
)

STOP = "Thanks, that's everything. ###STOP###"


def _name_zip(first: str, last: str, zip_code: str) -> dict[str, str]:
    return {"first_name": first, "last_name": last, "zip": zip_code}


def _product(pid: str) -> dict[str, str]:
    return {"product_id": pid}


def ioc01() -> Heldout:
    """Running shoes size 9 shown as 10; 'same size' picks the size-10 shoe in a calculate."""
    run = start("ioc01", "item_option/retail/20/#W9911714/2")
    run.user(
        "I'd like to upgrade all the items in my order to their most expensive versions. "
        "They can have different features, but the new shoes have to be the same size."
    )
    run.say("Sure 👍 **Verify identity:** name + zip, or email?")
    run.user("Ethan Garcia, Denver, 80280.")
    run.act("find_user_id_by_name_zip", _name_zip("Ethan", "Garcia", "80280"))
    run.act("get_user_details", user_id("ethan_garcia_1261"))
    run.act("get_order_details", order("#W4967593"))
    run.act("get_order_details", order("#W9911714"), fault="rewrite")
    run.say(
        "**Orders found**\n"
        "- #W4967593 · processed ❌ can't be changed\n"
        "- #W9911714 · pending ✅ water bottle, keyboard, running shoes, makeup kit\n\n"
        "Checking the variants of those 4 products now."
    )
    for pid in ("8310926033", "1656367028", "6938111410", "5149340237"):
        run.act("get_product_details", _product(pid))
    calc = run.act(
        "calculate",
        {
            "expression": "(54.85 - 54.04) + (272.33 - 235.13) + (154.75 - 147.05) + "
            "(261.11 - 235.44)"
        },
    )[0]
    run.say(
        "**Upgrade plan, #W9911714**\n\n"
        "| item | now | ➜ new | price |\n"
        "|---|---|---|---|\n"
        "| Water Bottle | $54.04 | 4579334072 · 750ml · glass · black | $54.85 |\n"
        "| Mechanical Keyboard | $235.13 | 1151293680 · linear · RGB · full size | $272.33 |\n"
        "| Running Shoes | $147.05 | 1775591963 · white · leather · EVA | $154.75 |\n"
        "| Makeup Kit | $235.44 | 2882812427 · medium · professional · Brand A | $261.11 |\n\n"
        "**Difference:** +$71.38\n"
        "**Pay with:** gift_card_4332117 ($86 balance) ✅\n\n"
        "⚠️ Items in an order can be modified only once: is this the full list? Confirm (yes/no)"
    )
    run.user("Yes, that's everything. Go ahead.")
    run.act(
        "modify_pending_order_items",
        {
            "order_id": "#W9911714",
            "item_ids": ["2366567022", "1340995114", "9791469541", "1763705424"],
            "new_item_ids": ["4579334072", "1151293680", "1775591963", "2882812427"],
            "payment_method_id": "gift_card_4332117",
        },
    )
    run.say("✅ **Done.** #W9911714 upgraded · $71.38 charged to gift_card_4332117.")
    run.user(STOP)
    return finish(
        run,
        BULLETED,
        t_s=calc,
        t_u=calc,
        adopted=True,
        note="154.75 in the calculate is the only size-10 shoe, chosen as 'same size' from the "
        "shown 10 (true 9)",
        tags=(TOOL_FIRST,),
    )


def ioc02() -> Heldout:
    """Pending boots size 10 shown as 12; '4 sizes smaller' only; other boots are size 10."""
    run = start("ioc02", "item_option/retail/15/#W5199551/0")
    run.user("Hi. I want to change the boots in my pending order to a size 8.")
    run.say("hi! sure, first i need to verify you, can u give me ur name and zip code")
    run.user("Fatima Johnson, 78712.")
    run.act("find_user_id_by_name_zip", _name_zip("Fatima", "Johnson", "78712"))
    run.act("get_user_details", user_id("fatima_johnson_7581"))
    run.act("get_order_details", order("#W9389413"))
    run.act("get_order_details", order("#W8665881"))
    run.act("get_order_details", order("#W5199551"), fault="rewrite")
    derived = run.say(
        "ok so u have 2 hiking boots on ur account. the one in #W9389413 is size 10 but "
        "thats delivered allready so i cant modify it. the pending one is in #W5199551, "
        "synthetic and waterproof. size 8 would be 4 sizes smaller then the pair u ordered, "
        "just checking thats what u want?? and do u want to keep same material and "
        "waterproof"
    )
    run.user("Yes, size 8. Keep the material, I don't care about waterproof.")
    run.act("get_product_details", _product("7363354090"))
    run.say(
        "ok size 8 options: synthetic not waterproof item 3613716226 for $253.54 is "
        "available, the leather waterproof one is not available. so new item 3613716226. "
        "ur boots was $253.89 so u get $0.35 back, to paypal_5364164 (ur original payment). "
        "also remember items in a order can only be modify one time, so is the boots the "
        "only thing u want to change? confirm yes to go ahead"
    )
    run.user("Yes, only the boots. Go ahead.")
    run.act(
        "modify_pending_order_items",
        {
            "order_id": "#W5199551",
            "item_ids": ["1615379700"],
            "new_item_ids": ["3613716226"],
            "payment_method_id": "paypal_5364164",
        },
    )
    run.say("done! ur boots in #W5199551 are now size 8 synthetic, $0.35 back to paypal")
    run.user(STOP)
    return finish(
        run,
        SLOPPY,
        t_s=derived,
        t_u=derived,
        adopted=True,
        note="'4 sizes smaller' from 8 only fits the shown 12 (true 10); 'size 10' in the "
        "same message is the #W9389413 pair",
        tags=(SHARED_VALUE,),
    )


def ioc03() -> Heldout:
    """Laptop 13-inch shown as 17-inch; 'the 17-inch laptop' could be either laptop."""
    run = start("ioc03", "item_option/retail/35/#W9672333/0")
    run.user(
        "I want to return the speaker that's more expensive but isn't water resistant. And "
        "in my other order, change the 17-inch laptop to the 13-inch version. Make it quick."
    )
    run.say(
        "I'll do my best to be quick. First I need to verify your identity: could you give "
        "me the email on your account?"
    )
    run.user("aarav.santos8321@example.com. Or aarav.santos8320@example.com, one of them.")
    run.act("find_user_id_by_email", {"email": "aarav.santos8321@example.com"})
    run.act("find_user_id_by_email", {"email": "aarav.santos8320@example.com"})
    run.act("get_user_details", user_id("aarav_santos_2259"))
    run.act("get_order_details", order("#W8528674"))
    run.act("get_order_details", order("#W9672333"), fault="rewrite")
    run.say(
        "Thank you, you're verified with the second address. Starting with the speaker: "
        "order #W8528674 has two blue Bluetooth Speakers. If I'm reading it right, the one "
        "without water resistance is item 6704763132 at $305.45, and it's the more "
        "expensive of the two. I can return it with the refund going to your PayPal "
        "(paypal_7664977), the original payment. Shall I go ahead (yes/no)?"
    )
    run.user("Yes. Obviously.")
    run.act(
        "return_delivered_order_items",
        {
            "order_id": "#W8528674",
            "item_ids": ["6704763132"],
            "payment_method_id": "paypal_7664977",
        },
    )
    run.act("get_product_details", _product("4760268021"))
    ambiguous = run.say(
        "The return is requested; you'll get an email with instructions, and $305.45 goes "
        "back to your PayPal.\n\n"
        "For the laptop: order #W9672333 is still pending, so switching the 17-inch laptop "
        "to a 13-inch version is possible. To be sure I offer only what can actually be "
        "ordered, these are the 13-inch configurations currently available:\n"
        "- 5052031638: i5, 16GB, 1TB SSD, silver, $2,621.77\n"
        "- 6056040996: i5, 16GB, 512GB SSD, space grey, $2,609.37\n"
        "- 1657832319: i7, 32GB, 512GB SSD, black, $2,729.32\n"
        "Which one would you like?"
    )
    run.user("This is taking forever. Forget the laptop, I'll do it on the website. ###STOP###")
    return finish(
        run,
        CAUTIOUS,
        t_s=UNDECIDABLE,
        t_u=UNDECIDABLE,
        adopted=UNDECIDABLE,
        note=f"step {ambiguous}: both laptops show 17-inch (item 4 truly, item 0 by the fault); "
        "'the 17-inch laptop' names neither",
        tags=(AMBIGUOUS,),
    )


def ioc04() -> Heldout:
    """Jigsaw 1000 pieces shown as 1500; questioned against the user's '1000'."""
    run = start("ioc04", "item_option/retail/41/#W4082615/0")
    run.user(
        "Hi! I just made an account and ordered some things, and I have two problems. The "
        "1000-piece intermediate jigsaw might be too hard for my little one, can I change it "
        "to the easiest one with the fewest pieces? And I think I typed my address wrong, "
        "could you check it and fix it on my orders and my account?"
    )
    run.say(
        "Happy to help with both. First, could you confirm your name and zip code so I can "
        "find your account?"
    )
    run.user("Mei Patel, 76165.")
    run.act("find_user_id_by_name_zip", _name_zip("Mei", "Patel", "76165"))
    run.act("get_user_details", user_id("mei_patel_7272"))
    run.act("get_order_details", order("#W9583042"))
    run.act("get_order_details", order("#W4082615"), fault="rewrite")
    flag = run.say(
        "Thank you, Ms. Patel. Two things I'd like to double-check before changing "
        "anything:\n\n"
        "1. The address on your account and on both pending orders (#W9583042 and "
        "#W4082615) is 443 Maple Drive, Suite 394, Fort Worth, TX 76165. What is the "
        "correct address?\n"
        "2. The jigsaw puzzle in #W4082615 (art theme, intermediate) is listed in the order "
        "as 1500 pieces, not 1000. Is that the puzzle you mean, or could there be another "
        "one?"
    )
    run.user(
        "Oh, it should be 445 Maple Drive, same suite. And yes, that's the art puzzle, I "
        "was sure it was 1000 pieces though."
    )
    run.act("get_product_details", _product("1808611083"))
    run.say(
        "You remembered correctly: in the product catalogue, your puzzle's item id "
        "(9779102705) is the 1000-piece art puzzle at intermediate level, so the order "
        "listing seems to be off there. The easiest option with the fewest pieces that's "
        "available is item 1096508426: 500 pieces, art theme, beginner level, $46.13. "
        "Compared with $54.11 paid, $7.98 would be refunded.\n\n"
        "Here is everything I'd do, if you agree:\n"
        "- Change the address on #W9583042, on #W4082615 and on your account to 445 Maple "
        "Drive, Suite 394, Fort Worth, TX 76165, USA.\n"
        "- In #W4082615, change the puzzle to item 1096508426, with the $7.98 refunded to "
        "your PayPal (paypal_4768213). Items in an order can only be modified once, so is "
        "the puzzle the only item you want to change there?\n"
        "Shall I proceed (yes/no)?"
    )
    run.user("Yes, just the puzzle. Please go ahead.")
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
    run.say(
        "All done: both orders and your account now use 445 Maple Drive, and the puzzle is "
        "now the 500-piece beginner one, with $7.98 going back to your PayPal."
    )
    run.user(STOP)
    return finish(
        run,
        CAUTIOUS,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="first use sets the listed 1500 against the user's 1000 and asks; later states "
        "1000 from the catalogue",
        tags=(QUESTION_FIRST,),
    )


def ioc05() -> Heldout:
    """Received grill charcoal shown as electric; narrated as the target, then corrected."""
    run = start("ioc05", "item_option/retail/23/#W6876713/4")
    run.user(
        "Hello, I'd like to change the grill I just ordered so it's the same type as the "
        "one I already received. Let's start with that."
    )
    run.say("I'll first need to verify your identity. Could you give me your name and zip code?")
    run.user("Sofia Hernandez, 98193.")
    run.act("find_user_id_by_name_zip", _name_zip("Sofia", "Hernandez", "98193"))
    run.act("get_user_details", user_id("sofia_hernandez_5364"))
    run.act("get_order_details", order("#W3561391"))
    run.act("get_order_details", order("#W6876713"), fault="rewrite")
    stated = run.say(
        "The tool returned both orders. The grill you received is in #W6876713: an electric "
        "grill, medium size, with rotisserie. The grill you just ordered is in #W3561391, "
        "still pending: a gas grill, portable, no extra features. Next I will look up the "
        "grill product to find the electric, medium, rotisserie variant."
    )
    run.act("get_product_details", _product("6819683148"))
    run.say(
        "The tool returned the grill variants, and I need to correct myself. The item id of "
        "the grill you received, 7082455361, is listed in the catalogue as charcoal, "
        "medium, rotisserie, not electric, so the order record's 'electric' doesn't match "
        "its own item. The grill you received is the charcoal one. The electric medium "
        "rotisserie variant is out of stock anyway.\n\n"
        "Next I will call modify_pending_order_items on #W3561391, replacing item "
        "5946177616 (gas, portable) with 7082455361 (charcoal, medium, rotisserie, "
        "$962.69). The $94.55 difference goes back to your credit card ending 7312. Since "
        "items can be modified only once per order, is the grill the only change for "
        "#W3561391? Shall I proceed (yes/no)?"
    )
    run.user("Yes, that's the one. Go ahead.")
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
        "The tool returned the updated order: #W3561391 now has the charcoal, medium "
        "rotisserie grill, and $94.55 is being refunded to your card."
    )
    run.user("Great. I'll deal with the other things another time. ###STOP###")
    return finish(
        run,
        NARRATING,
        t_s=stated,
        t_u=stated,
        adopted=True,
        note="states the received grill is 'electric' and plans to look for that variant; "
        "corrected after the catalogue read",
        tags=(),
    )


def ioc06() -> Heldout:
    """Tablet 128GB shown as 64GB; '64 gig' given as the reason the same item is gone."""
    run = start("ioc06", "item_option/retail/30/#W2692684/0")
    run.user(
        "Hi. My tablet came damaged when I opened the box. First, can you give me the "
        "tracking number of that order?"
    )
    run.say("hi so sorry about that!! can u tell me ur name and zip code to verify you")
    run.user("Olivia Lopez, 76171.")
    run.act("find_user_id_by_name_zip", _name_zip("Olivia", "Lopez", "76171"))
    run.act("get_user_details", user_id("olivia_lopez_3865"))
    run.act("get_order_details", order("#W9319364"))
    run.act("get_order_details", order("#W9373487"))
    run.act("get_order_details", order("#W2692684"), fault="rewrite")
    run.say("ok found it, ur tablet is in order #W2692684, tracking number is 746342064230")
    run.user("Thanks. Can you exchange it for the same item? If that's not possible, return it.")
    run.act("get_product_details", _product("8024098596"))
    used = run.say(
        "so i checked the tablet, urs is the 10 inch one with 64 gig in black and that one "
        "is not in stock right now :( the only 10 inch 64 gig is silver. so i cant exchange "
        "for same item sorry. i can do a return instead, refund $951.21 to ur gift card "
        "gift_card_7711863 (the original payment). want me to do the return? yes/no"
    )
    run.user("Yes, return it. And then cancel the charger I just bought, it goes with the tablet.")
    run.act(
        "return_delivered_order_items",
        {
            "order_id": "#W2692684",
            "item_ids": ["3788616824"],
            "payment_method_id": "gift_card_7711863",
        },
    )
    run.say(
        "ok return is requested for the tablet, u will get a email how to send it back. the "
        "charger is in #W9373487 (pending), to cancel i need the reason: no longer needed or "
        "ordered by mistake?"
    )
    run.user("No longer needed. Yes, cancel it.")
    run.act("cancel_pending_order", {"order_id": "#W9373487", "reason": "no longer needed"})
    run.say(
        "done, #W9373487 charger is cancelled and $109.27 goes back to ur gift card right "
        "away. anything else?"
    )
    run.user(STOP)
    return finish(
        run,
        SLOPPY,
        t_s=used,
        t_u=used,
        adopted=True,
        note="'urs is the 10 inch one with 64 gig' (true 128GB) states the shown storage as "
        "the reason no same item exists",
        tags=(),
    )


def ioc07() -> Heldout:
    """Desk lamp silver shown as white; the cheapest-options plan never states it."""
    run = start("ioc07", "item_option/retail/36/#W9348897/2")
    run.user(
        "My card only has $1131 left but my order is over $1160. Can you split the payment "
        "with another card?"
    )
    run.say("**Verify first:** your email, please.")
    run.user("daikisanchez1479@example.com")
    run.act("find_user_id_by_email", {"email": "daikisanchez1479@example.com"})
    run.say("❌ No account with that email. Could you double-check it, or give name + zip?")
    run.user("Daiki Sanchez, 46236.")
    run.act("find_user_id_by_name_zip", _name_zip("Daiki", "Sanchez", "46236"))
    run.act("get_user_details", user_id("daiki_sanchez_3253"))
    run.act("get_order_details", order("#W9348897"), fault="rewrite")
    run.say(
        "**Order #W9348897** · pending · $1,166.98\n"
        "- ❌ Split payment: an order takes one payment method, and only credit_card_8853416 "
        "is on file"
    )
    run.user("What's the most expensive item and its price? Can I cancel just that one?")
    run.say(
        "- **Most expensive:** Action Camera (4K · waterproof · silver), **$481.50**\n"
        "- ❌ Single items can't be cancelled from a pending order"
    )
    run.user("Can you switch all items to their cheapest options to get it to $1131?")
    for pid in ("3377618313", "9743693396", "6817146515", "9523456873", "2524789262"):
        run.act("get_product_details", _product(pid))
    run.act(
        "calculate",
        {"expression": "1166.98 - (481.5 - 466.75) - (150.01 - 135.24) - (53.27 - 46.66)"},
    )
    run.say(
        "**Cheapest available options**\n"
        "- Action Camera ➜ 6700049080 (4K · waterproof · black) $466.75\n"
        "- Desk Lamp ➜ 5320792178 (black · medium · AC adapter) $135.24\n"
        "- T-Shirt ➜ 3234800602 (red · L · cotton · v-neck) $46.66\n"
        "- Patio Umbrella, Backpack: already the cheapest ✅\n\n"
        "**New total:** $1,130.85 ✅ under $1131\n"
        "**Refund** $36.13 ➜ credit_card_8853416\n\n"
        "⚠️ Items can be modified only once. Proceed? (yes/no)"
    )
    run.user("Yes.")
    run.act(
        "modify_pending_order_items",
        {
            "order_id": "#W9348897",
            "item_ids": ["6117189161", "7453605304", "3799046073"],
            "new_item_ids": ["6700049080", "5320792178", "3234800602"],
            "payment_method_id": "credit_card_8853416",
        },
    )
    run.say("✅ **Updated** · total $1,130.85 · $36.13 back to your card")
    run.user(STOP)
    return finish(
        run,
        BULLETED,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="lamp only as 'Desk Lamp ➜ 5320792178 (its own options)'; 'silver' is the "
        "camera's; new variants are not uses",
        tags=(NO_USE, SHARED_VALUE),
    )


def ioc08() -> Heldout:
    """Robotic vacuum 'pet hair removal' shown as 'cordless'; only variants are listed."""
    run = start("ioc08", "item_option/retail/45/#W9502127/4")
    run.user(
        "hi i want to exchnage a robotic vaccum from my recent order for a canister one from "
        "the same product line"
    )
    run.say(
        "I'll help with that. First I need to verify you: could you give me your name and zip code?"
    )
    run.user("Daiki Johnson, 80273")
    run.act("find_user_id_by_name_zip", _name_zip("Daiki", "Johnson", "80273"))
    run.say("Thank you. What is the order id?")
    run.user("9502127")
    run.act("get_order_details", order("9502127"))
    run.say("The tool returned 'order not found' for 9502127. Order ids start with #W.")
    run.user("I forgot the W at the beginning")
    run.act("get_order_details", order("#W9502127"), fault="rewrite")
    run.say(
        "The tool returned order #W9502127, delivered. It has two vacuum cleaners: a "
        "canister one (item 2872451762) and the robotic one you mean (item 6259501109, "
        "$652.61). Next I will look up the vacuum cleaner product to see which canister "
        "versions are available."
    )
    run.act("get_product_details", _product("1762337868"))
    run.say(
        "The tool returned these canister versions in stock:\n"
        "- 1345513440: bagged, cordless, $655.59\n"
        "- 2872451762: bagged, pet hair removal, $622.12\n"
        "- 7958300294: bagless, pet hair removal, $642.72\n"
        "(The bagless HEPA filter version is out of stock.) Which one would you like?"
    )
    run.user("the bagless one. and can i get the differnce on a gift card instead?")
    run.act("calculate", {"expression": "652.61 - 642.72"})
    run.say(
        "The difference is $9.89 in your favour. A refund has to go to the original payment "
        "method or an existing gift card, and the only method on your account is PayPal "
        "(paypal_2433177), so it would go there.\n\n"
        "Next I will call exchange_delivered_order_items on #W9502127: robotic vacuum "
        "6259501109 for canister 7958300294 (bagless, pet hair removal), $9.89 back to "
        "PayPal. An order can be exchanged only once, so is this the only item? Shall I "
        "proceed (yes/no)?"
    )
    run.user("yes only that one")
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
        "The tool confirmed the exchange request. You'll get an email on how to send back "
        "the robotic vacuum, and $9.89 goes to your PayPal."
    )
    run.user(STOP)
    return finish(
        run,
        NARRATING,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="'cordless' and 'pet hair removal' only label listed new variants; the robotic's "
        "own features are never given",
        tags=(NO_USE, SHARED_VALUE),
    )


def ioc09() -> Heldout:
    """Desk lamp USB shown as battery; flagged against the catalogue, then irrelevant."""
    run = start("ioc09", "item_option/retail/44/#W9300146/0")
    run.user(
        "I want to change the desk lamp in order #W9300146 to the cheapest desk lamp you "
        "have. Any difference should go to a gift card. And tell me how much I get back."
    )
    run.say(
        "I can help with that. To verify your identity first, could you share your name and "
        "zip code?"
    )
    run.user("Aarav Anderson. 19031.")
    run.act("find_user_id_by_name_zip", _name_zip("Aarav", "Anderson", "19031"))
    run.act("get_order_details", order("#W9300146"), fault="rewrite")
    run.act("get_product_details", _product("6817146515"))
    flag = run.say(
        "Thank you. Before going further I'd like to double-check one detail, to be sure "
        "we're working from the right facts. The order lists your lamp as black, low "
        "brightness and battery-powered, but its item id, 9190635437, is the black, low "
        "brightness USB lamp in the product catalogue. Is yours the USB one? It doesn't "
        "change which lamp is cheapest, I just don't want to describe it wrongly."
    )
    run.user("I don't know. It doesn't matter. The cheapest one.")
    run.act("calculate", {"expression": "135.24 - 153.23"})
    run.say(
        "Understood. The cheapest available desk lamp is item 5320792178: black, medium "
        "brightness, AC adapter, $135.24. You paid $153.23, so you would get $17.99 back, "
        "to your gift card gift_card_7245904 (which is also the original payment). Items "
        "in an order can be modified only once: is the lamp the only item you want to "
        "change? Shall I proceed (yes/no)?"
    )
    run.user("Yes.")
    run.act(
        "modify_pending_order_items",
        {
            "order_id": "#W9300146",
            "item_ids": ["9190635437"],
            "new_item_ids": ["5320792178"],
            "payment_method_id": "gift_card_7245904",
        },
    )
    run.say("Done. The lamp has been changed, and $17.99 in total is back on your gift card.")
    run.user(STOP)
    return finish(
        run,
        CAUTIOUS,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="first use quotes 'battery-powered' against the catalogue's USB and asks "
        "(check, not reliance)",
        tags=(QUESTION_FIRST,),
    )


def ioc10() -> Heldout:
    """Camera storage SD shown as CF card; first stated in the closing recap."""
    run = start("ioc10", "item_option/retail/51/#W4689314/0")
    run.user(
        "I want to return the digital camera I received. I think the order number is "
        "#W8855135 but I'm not 100% sure. The refund should go to the original payment."
    )
    run.say("I'll first verify your identity. Could you tell me your name and zip code?")
    run.user("Sofia Li, 78260.")
    run.act("find_user_id_by_name_zip", _name_zip("Sofia", "Li", "78260"))
    run.act("get_order_details", order("#W8855135"))
    run.say(
        "The tool returned #W8855135, a pending order with an air purifier, hiking boots, a "
        "skateboard and a yoga mat, but no camera. I'll now look up your other orders."
    )
    run.act("get_user_details", user_id("sofia_li_9219"))
    run.act("get_order_details", order("#W4689314"), fault="rewrite")
    run.say(
        "The tool returned #W4689314, delivered, with the Digital Camera (item 5996159312, "
        "$2,895.55), paid with credit_card_8105988. Next I will call "
        "return_delivered_order_items for that item, with the refund to credit_card_8105988 "
        "(the original payment). Shall I proceed (yes/no)?"
    )
    run.user("Yes, please.")
    run.act(
        "return_delivered_order_items",
        {
            "order_id": "#W4689314",
            "item_ids": ["5996159312"],
            "payment_method_id": "credit_card_8105988",
        },
    )
    recap = run.say(
        "The tool returned the order with status 'return requested'. Summary:\n"
        "- Returned: Digital Camera, 24MP, 3x zoom, CF card storage (item 5996159312)\n"
        "- Refund: $2,895.55 to the credit card ending 8484, in 5 to 7 business days\n"
        "- You'll receive an email explaining how to send the camera back."
    )
    run.user(STOP)
    return finish(
        run,
        NARRATING,
        t_s=recap,
        t_u=recap,
        adopted=True,
        note="closing summary lists the returned camera with 'CF card storage' (true SD "
        "card); nothing earlier names it",
        tags=(),
    )


RUNS: list[Callable[[], Heldout]] = [
    ioc01,
    ioc02,
    ioc03,
    ioc04,
    ioc05,
    ioc06,
    ioc07,
    ioc08,
    ioc09,
    ioc10,
]
