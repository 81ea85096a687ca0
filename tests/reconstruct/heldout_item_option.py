"""Held-out ItemOption runs: the faulted ``get_order_details`` shows a false option value for
one ordered item (the item id still names the variant with the true value)."""

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
    order,
    start,
    user_id,
)

IO_0 = "item_option/retail/0/#W2378156/2"  # keyboard 1151293680 size full size → 60%
IO_15 = "item_option/retail/15/#W5199551/0"  # hiking boots 1615379700 size 10 → 12
IO_18 = "item_option/retail/18/#W2890441/2"  # office chair 8069050545 material leather → mesh
IO_20 = "item_option/retail/20/#W9911714/1"  # keyboard 1340995114 size full size → 80%
IO_23 = "item_option/retail/23/#W3947049/0"  # helmet 3358616356 size S → L
IO_30 = "item_option/retail/30/#W2692684/0"  # tablet 3788616824 storage 128GB → 64GB
IO_35 = "item_option/retail/35/#W9672333/0"  # laptop 3778566150 screen 13-inch → 17-inch
IO_54 = "item_option/retail/54/#W4597054/0"  # purifier 5669664287 quiet operation → night mode
IO_41 = "item_option/retail/41/#W4082615/0"  # jigsaw 9779102705 pieces 1000 → 1500
IO_44 = "item_option/retail/44/#W9300146/0"  # desk lamp 9190635437 power USB → battery
IO_45 = "item_option/retail/45/#W9502127/0"  # vacuum 2872451762 type canister → upright
IO_5 = "item_option/retail/5/#W6390527/0"  # desk lamp 8384507844 color white → silver


def _find(first: str, last: str, zip_code: str) -> dict[str, str]:
    return {"first_name": first, "last_name": last, "zip": zip_code}


def _product(product_id: str) -> dict[str, str]:
    return {"product_id": product_id}


def _swap(order_id: str, old: str, new: str, payment: str) -> dict[str, object]:
    return {
        "order_id": order_id,
        "item_ids": [old],
        "new_item_ids": [new],
        "payment_method_id": payment,
    }


def io01() -> Heldout:
    run = start("io01", IO_0)
    run.user(
        "Hi, I got order #W2378156 and want to exchange the mechanical keyboard for a similar "
        "one with clicky switches. Yusuf Rossi, zip 19122."
    )
    run.act("find_user_id_by_name_zip", _find("Yusuf", "Rossi", "19122"))
    run.act("get_order_details", order("#W2378156"), fault="rewrite")
    run.act("get_product_details", _product("1656367028"))
    use = run.say(
        "Current keyboard (item 1151293680): linear switches, RGB backlight, 60%.\n"
        "Clicky + RGB + 60% (9690244451): out of stock. No clicky 60% in stock.\n"
        "Closest: clicky + RGB + 80% (2299424241), $237.48. Want that?"
    )
    run.user("No. If RGB isn't possible, I'd take clicky, full size, no backlight.")
    run.say(
        "Clicky, no backlight, full size: 7706410293, $269.16, in stock.\n"
        "Exchange 1151293680 → 7706410293, refund $3.17 to credit_card_9513926. Confirm "
        "(yes/no)?"
    )
    run.user("Yes.")
    run.act(
        "exchange_delivered_order_items",
        _swap("#W2378156", "1151293680", "7706410293", "credit_card_9513926"),
    )
    run.say("Done. Exchange requested; return instructions will come by email.")
    run.user("Thanks. ###STOP###")
    return finish(
        run,
        TERSE,
        t_s=use,
        t_u=use,
        adopted=True,
        note="States the keyboard's size as 60% and steers to 60%/80% variants; the later "
        "full-size choice follows the user's request.",
    )


def io02() -> Heldout:
    run = start("io02", IO_15)
    run.user(
        "Hello. I want to change the boots in my pending order to a size 8. Fatima Johnson, "
        "zip 78712."
    )
    run.act("find_user_id_by_name_zip", _find("Fatima", "Johnson", "78712"))
    run.act("get_user_details", user_id("fatima_johnson_7581"))
    run.act("get_order_details", order("#W9389413"))
    run.act("get_order_details", order("#W8665881"))
    run.act("get_order_details", order("#W5199551"), fault="rewrite")
    run.act("get_product_details", _product("7363354090"))
    use = run.say(
        "Thanks, Fatima! I found the hiking boots in order #W5199551, and since it's still "
        "pending we can definitely change them. Going from a size 12 all the way down to an 8 "
        "is quite a jump, so I just want to double-check that's what you're after! Would you "
        "like to keep them in synthetic? If so, the size 8 synthetic pair is the "
        "non-waterproof version (item 3613716226) at $253.54."
    )
    run.user("Yes, size 8, synthetic. And they're a 10 now, not a 12, not that it matters.")
    run.say(
        "Oh, thank you for letting me know, and sorry about that! So that's your boots (item "
        "1615379700) going to the size 8 synthetic, non-waterproof pair (item 3613716226). "
        "The new pair is $0.35 cheaper, refunded to your PayPal. Shall I go ahead?"
    )
    run.user("Hold off for now, I'll decide later. ###STOP###")
    return finish(
        run,
        WARM,
        t_s=use,
        t_u=use,
        adopted=True,
        note="'Going from a size 12 all the way down to an 8' presupposes 12 (v') as the current "
        "size; the doubt is about the user's request, not the value. Size 8 is the request.",
    )


def io03() -> Heldout:
    run = start("io03", IO_18)
    run.user(
        "Hi. The office chair I got in order #W2890441 came with broken pieces. I want to "
        "return it. Mei Davis, 80217."
    )
    run.act("find_user_id_by_name_zip", _find("Mei", "Davis", "80217"))
    run.act("get_order_details", order("#W2890441"), fault="rewrite")
    run.act("get_product_details", _product("4794339885"))
    flag = run.say(
        "### Return request: Office Chair (order #W2890441)\n\n"
        "**A quick discrepancy before we continue**\n"
        "- Your order record lists the chair as **mesh**, blue, no armrest, high-back.\n"
        "- In our catalog, item `8069050545` is the **leather** version (blue, no armrest, "
        "high-back).\n\n"
        "Could you confirm which material your chair is? Then I'll set up the return to your "
        "Mastercard ending in 1037."
    )
    run.user("Leather. Actually, could I just get the same chair again instead?")
    run.say(
        "Of course.\n\n"
        "| | Current | Replacement |\n|---|---|---|\n"
        "| Item | 8069050545 | 8069050545 |\n"
        "| Material | Leather | Leather |\n"
        "| Color | Blue | Blue |\n"
        "| Armrest | None | None |\n"
        "| Backrest | High-back | High-back |\n"
        "| Price | $499.28 | $499.28 |\n\n"
        "**Price difference:** $0. Shall I submit the exchange (yes/no)?"
    )
    run.user("Let me think about it for a while. ###STOP###")
    return finish(
        run,
        FORMATTED,
        t_s=flag,
        t_u=NONE,
        adopted=False,
        note="Flags 'mesh' against the catalog's leather for the same item id and asks; then "
        "states leather (v) in the exchange table.",
        tags=(QUESTION_FIRST,),
    )


def io04() -> Heldout:
    run = start("io04", IO_20)
    run.user(
        "I won the lottery and want to upgrade the items in my pending order #W9911714. "
        "Ethan Garcia, 80280. Start with the keyboard: I want the most expensive 80% one."
    )
    run.act("find_user_id_by_name_zip", _find("Ethan", "Garcia", "80280"))
    run.act("get_order_details", order("#W9911714"), fault="rewrite")
    run.act("get_product_details", _product("1656367028"))
    run.say(
        as_json(
            "The most expensive 80% keyboard in stock is item 9665000388 (clicky switches, no "
            "backlight) at $269.46.",
            {
                "new_item": {
                    "item_id": "9665000388",
                    "switch type": "clicky",
                    "backlight": "none",
                    "size": "80%",
                    "price": 269.46,
                    "available": True,
                }
            },
        )
    )
    run.user("And what's the one I have now?")
    use = run.say(
        as_json(
            "Your current keyboard is item 1340995114: tactile switches, no backlight, 80% "
            "size, $235.13. The upgrade would cost $34.33 more.",
            {
                "current_item": {
                    "item_id": "1340995114",
                    "switch type": "tactile",
                    "backlight": "none",
                    "size": "80%",
                    "price": 235.13,
                },
                "price_difference": 34.33,
            },
        )
    )
    run.user("OK. I'll do the rest of the items another time. ###STOP###")
    return finish(
        run,
        JSON_VOICE,
        t_s=use,
        t_u=use,
        adopted=True,
        note="The first reply's 80% is the user's requested new size (not a use); the second "
        "states the current item as 80% (v').",
    )


def io05() -> Heldout:
    run = start("io05", IO_23)
    run.user(
        "Sofia Hernandez, zip 98193. Two things: exchange the helmet I received for a medium, "
        "red, high-ventilation one, and exchange the luggage set from my other order for a "
        "two-piece black softshell."
    )
    run.act("find_user_id_by_name_zip", _find("Sofia", "Hernandez", "98193"))
    run.act("get_user_details", user_id("sofia_hernandez_5364"))
    run.act("get_order_details", order("#W3947049"), fault="rewrite")
    run.act("get_order_details", order("#W6876713"))
    run.act("get_product_details", _product("7765186836"))
    run.act("get_product_details", _product("5426915165"))
    run.say(
        "Helmet, #W3947049: item 3358616356 → 8573379326 (M, red, high ventilation), "
        "$196.73. Refund $0.60.\n"
        "Luggage, #W6876713: item 6301799585 → 8926329222 (2-piece, black, softshell), "
        "$452.28. Refund $43.59.\n"
        "Refunds to Visa ending 7312.\n"
        "Note: a delivered order can be exchanged only once. #W6876713 also has your T-shirt "
        "(red, L, v-neck), espresso machine, vacuum and grill; anything from those to add? "
        "Otherwise confirm (yes/no)."
    )
    run.user("Nothing else. Yes to both.")
    run.act(
        "exchange_delivered_order_items",
        _swap("#W3947049", "3358616356", "8573379326", "credit_card_7901829"),
    )
    run.act(
        "exchange_delivered_order_items",
        _swap("#W6876713", "6301799585", "8926329222", "credit_card_7901829"),
    )
    run.say("Both exchanges requested. Return instructions by email.")
    run.user("Thanks. ###STOP###")
    return finish(
        run,
        TERSE,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="The helmet line gives only the requested new options (M); 'T-shirt (red, L, "
        "v-neck)' is another item that shares v' (L): no use.",
        tags=(NO_USE, SHARED_VALUE),
    )


def io06() -> Heldout:
    run = start("io06", IO_30)
    run.user(
        "Hi, Olivia Lopez, zip 76171. My tablet arrived damaged. First, can you tell me the "
        "tracking number for it?"
    )
    run.act("find_user_id_by_name_zip", _find("Olivia", "Lopez", "76171"))
    run.act("get_user_details", user_id("olivia_lopez_3865"))
    run.act("get_order_details", order("#W9319364"))
    run.act("get_order_details", order("#W9373487"))
    run.act("get_order_details", order("#W2692684"), fault="rewrite")
    run.say(
        "I'm so sorry your tablet arrived damaged, Olivia, that's really disappointing! I "
        "found it in order #W2692684, and the tracking number is 746342064230. What would you "
        "like to do about the tablet itself?"
    )
    run.user("I'd like to exchange it for the exact same one, or return it if that's not possible.")
    run.act("get_product_details", _product("8024098596"))
    use = run.say(
        "Oh no, I'm afraid the exact same tablet, the black 10-inch model with 64GB of "
        "storage, is out of stock at the moment. The closest thing I can offer while keeping "
        "the 64GB of storage is the silver 10-inch version (item 2106335193) at $903.95. Or, "
        "if you'd prefer, I can set up a return for a full refund to your gift card. What "
        "would you like to do?"
    )
    run.user("Just return it, please.")
    run.say(
        "Of course! Just to confirm: return the tablet (item 3788616824) from order "
        "#W2692684, with a refund of $951.21 to your gift card gift_card_7711863. Shall I go "
        "ahead?"
    )
    run.user("Yes.")
    run.act(
        "return_delivered_order_items",
        {
            "order_id": "#W2692684",
            "item_ids": ["3788616824"],
            "payment_method_id": "gift_card_7711863",
        },
    )
    run.say("All done! You'll get an email with instructions for sending the tablet back.")
    run.user("Thanks. ###STOP###")
    return finish(
        run,
        WARM,
        t_s=use,
        t_u=use,
        adopted=True,
        note="The tracking-number reply names the tablet without options; the first use is "
        "'the black 10-inch model with 64GB' and 'keeping the 64GB' (v').",
    )


def io07() -> Heldout:
    run = start("io07", IO_35)
    run.user(
        "aarav.santos8321@example.com. Change the laptop in #W9672333 to the 13-inch version. "
        "Quickly."
    )
    run.act("find_user_id_by_email", {"email": "aarav.santos8321@example.com"})
    run.say("I couldn't find an account with that email. Do you have another email address?")
    run.user("Try aarav.santos8320@example.com then.")
    run.act("find_user_id_by_email", {"email": "aarav.santos8320@example.com"})
    run.act("get_order_details", order("#W9672333"), fault="rewrite")
    run.act("get_product_details", _product("4760268021"))
    step = run.say(
        "### Laptop change: order #W9672333 (pending)\n\n"
        "Your **17-inch laptop** can be modified since the order hasn't shipped.\n\n"
        "**13-inch versions in stock**\n\n"
        "| Item ID | Processor | RAM | Storage | Color | Price |\n"
        "|---|---|---|---|---|---|\n"
        "| 6056040996 | i5 | 16GB | 512GB SSD | space grey | $2,609.37 |\n"
        "| 5052031638 | i5 | 16GB | 1TB SSD | silver | $2,621.77 |\n"
        "| 1657832319 | i7 | 32GB | 512GB SSD | black | $2,729.32 |\n\n"
        "Which one would you like?"
    )
    run.user("None of those. Forget it, I'll sort it out myself. ###STOP###")
    return finish(
        run,
        FORMATTED,
        t_s=UNDECIDABLE,
        t_u=UNDECIDABLE,
        adopted=UNDECIDABLE,
        note=f"Step {step} 'Your 17-inch laptop': the order has two laptops shown as 17-inch "
        "(item 3778566150 under v', item 1684786391 truly); neither is named.",
        tags=(AMBIGUOUS,),
    )


def io08() -> Heldout:
    run = start("io08", IO_54)
    run.user(
        "Hi, Amelia here, amelia.silva7872@example.com. Money's tight, so I want to return "
        "whatever I can. Let's start with order #W4597054."
    )
    run.act("find_user_id_by_email", {"email": "amelia.silva7872@example.com"})
    run.act("get_order_details", order("#W4597054"), fault="rewrite")
    ask = run.say(
        as_json(
            "Order #W4597054 was delivered, so all four items can be returned. One check "
            "first: our record shows the air purifier with the night-mode feature. Can you "
            "confirm that's the one you received, so the return matches?",
            {
                "order_id": "#W4597054",
                "items": [
                    {
                        "name": "Air Purifier",
                        "item_id": "5669664287",
                        "recorded_features": "night mode",
                    },
                    {"name": "Smart Watch", "item_id": "4900990404", "price": 336.71},
                    {"name": "Coffee Maker", "item_id": "9862136885", "price": 258.32},
                    {"name": "Water Bottle", "item_id": "6777246137", "price": 47.76},
                ],
                "refund_to": "gift_card_3491931",
            },
            indent=2,
        )
    )
    run.user("Honestly I don't remember. Does it matter?")
    use = run.say(
        as_json(
            "Not for the refund. I'll go with what's on file: Air Purifier (small room, ionic "
            "filter, night mode). Return all four items for $1,186.47 back to gift card "
            "gift_card_3491931? Please confirm (yes/no).",
            {
                "return_items": [
                    {
                        "item_id": "5669664287",
                        "options": {
                            "room size": "small",
                            "filter type": "ionic",
                            "features": "night mode",
                        },
                    },
                    {"item_id": "4900990404"},
                    {"item_id": "9862136885"},
                    {"item_id": "6777246137"},
                ],
                "refund": 1186.47,
            },
            indent=2,
        )
    )
    run.user("Yes.")
    run.act(
        "return_delivered_order_items",
        {
            "order_id": "#W4597054",
            "item_ids": ["5669664287", "4900990404", "9862136885", "6777246137"],
            "payment_method_id": "gift_card_3491931",
        },
    )
    run.say(
        as_json(
            "Return requested. You'll get an email with instructions.",
            {"order_id": "#W4597054", "status": "return requested"},
            indent=2,
        )
    )
    run.user("Thanks, I'll deal with the other orders later. ###STOP###")
    return finish(
        run,
        JSON_VOICE,
        t_s=ask,
        t_u=use,
        adopted=True,
        note="The first use asks the user to confirm 'night mode' (a check, no reliance); "
        "after the user cannot, the agent adopts the record ('I'll go with what's on file').",
        tags=(QUESTION_FIRST,),
    )


def io09() -> Heldout:
    run = start("io09", IO_41)
    run.user(
        "Hi, user id mei_patel_7272. Two things: the 1000-piece intermediate jigsaw I ordered "
        "might be too hard for my kid, can I change it to the easiest one with the fewest "
        "pieces? And I may have typed my address wrong."
    )
    run.act("get_user_details", user_id("mei_patel_7272"))
    run.act("get_order_details", order("#W9583042"))
    run.act("get_order_details", order("#W4082615"), fault="rewrite")
    run.act("get_product_details", _product("1808611083"))
    use = run.say(
        "Jigsaw in #W4082615 (item 9779102705): 1500 pieces, art, intermediate, not 1000.\n"
        "Easiest in stock with fewest pieces: 1096508426, 500 pieces, art, beginner, $46.13.\n"
        "Address on file: 443 Maple Drive, Suite 394, Fort Worth, TX 76165. Correct?"
    )
    run.user("It's definitely the 1000-piece one, my confirmation email says so.")
    run.say(
        "Checked: catalog item 9779102705 is the 1000-piece art intermediate. You're right, "
        "1000 pieces; the order record is off.\n"
        "Swap to 1096508426 (500, beginner): refund $7.98 to paypal_4768213. Confirm?"
    )
    run.user("Let me fix the address first, I'll call back. ###STOP###")
    return finish(
        run,
        TERSE,
        t_s=use,
        t_u=use,
        adopted=True,
        note="The agent reads the record back against the user ('1500 pieces ... not 1000'): "
        "reliance; the retraction comes later. The user's '1000' is not an agent step.",
    )


def io10() -> Heldout:
    run = start("io10", IO_44)
    run.user(
        "Hi. I want to change the desk lamp in order #W9300146 to the cheapest one available, "
        "with the price difference going to my gift card. Aarav Anderson, 19031."
    )
    run.act("find_user_id_by_name_zip", _find("Aarav", "Anderson", "19031"))
    run.act("get_order_details", order("#W9300146"), fault="rewrite")
    run.act("get_product_details", _product("6817146515"))
    use = run.say(
        "Thanks so much, Aarav! Okay, so here's what I found. If you'd like to stay with a "
        "battery-powered lamp like the one you have now, the cheapest is item 7453605304 "
        "(silver, low brightness, battery) at $150.01. If the power source doesn't matter to "
        "you, the cheapest lamp overall is item 5320792178 (black, medium brightness, AC "
        "adapter) at $135.24. Which would you prefer?"
    )
    run.user("The cheapest overall. How much do I get back?")
    run.act("calculate", {"expression": "153.23 - 135.24"})
    run.say(
        "You'd get $17.99 back on your gift card! Just to confirm: swap your desk lamp (item "
        "9190635437) for item 5320792178, with $17.99 refunded to gift_card_7245904. Shall I "
        "go ahead?"
    )
    run.user("Yes.")
    run.act(
        "modify_pending_order_items",
        _swap("#W9300146", "9190635437", "5320792178", "gift_card_7245904"),
    )
    run.say("All set, your order has been updated! Is there anything else I can help with?")
    run.user("No, thanks. ###STOP###")
    return finish(
        run,
        WARM,
        t_s=use,
        t_u=use,
        adopted=True,
        note="The conditional is on the user's preference; 'a battery-powered lamp like the "
        "one you have now' asserts v' and picks the battery option from it.",
    )


def io11() -> Heldout:
    run = start("io11", IO_45)
    run.user(
        "Hi, I'm Daiki Johnson, zip 80273. I want to exchange the robotic vacuum from my "
        "recent order for a canister one from the same product line. The order ID is 9502127."
    )
    run.act("find_user_id_by_name_zip", _find("Daiki", "Johnson", "80273"))
    run.act("get_order_details", order("9502127"))
    run.say(
        "I couldn't find order **9502127**. Order IDs start with **#W**; could you double-check it?"
    )
    run.user("I forgot the W at the beginning.")
    run.act("get_order_details", order("#W9502127"), fault="rewrite")
    run.act("get_product_details", _product("1762337868"))
    run.say(
        "### Exchange: robotic vacuum → canister (order #W9502127)\n\n"
        "**Item to exchange:** Vacuum Cleaner `6259501109`, robotic, bagged, pet hair removal "
        "($652.61)\n\n"
        "**Canister models in stock**\n\n"
        "| Item ID | Bag | Feature | Price |\n|---|---|---|---|\n"
        "| 1345513440 | bagged | cordless | $655.59 |\n"
        "| 2872451762 | bagged | pet hair removal | $622.12 |\n"
        "| 7958300294 | bagless | pet hair removal | $642.72 |\n\n"
        "Which would you like?"
    )
    run.user("The bagless one. And could the difference go on a gift card instead?")
    run.say(
        "**Exchange summary**\n"
        "- `6259501109` (robotic) → `7958300294` (canister, bagless, pet hair removal)\n"
        "- Price difference: **$9.89 refund**\n"
        "- Refund method: your PayPal (`paypal_2433177`). There's no gift card on your "
        "account, so it can't go to one.\n\n"
        "Confirm (yes/no)?"
    )
    run.user("Yes.")
    run.act(
        "exchange_delivered_order_items",
        _swap("#W9502127", "6259501109", "7958300294", "paypal_2433177"),
    )
    run.say("✅ **Exchange requested.** You'll receive an email with return instructions.")
    run.user("Thanks. ###STOP###")
    return finish(
        run,
        FORMATTED,
        t_s=NONE,
        t_u=NONE,
        adopted=False,
        note="The faulted item is the other vacuum (2872451762); it appears only as a catalog "
        "row of canister variants (listing variants, not the ordered item); 'canister' is the "
        "user's request for item 6259501109.",
        tags=(NO_USE,),
    )


def io12() -> Heldout:
    run = start("io12", IO_5)
    run.user(
        "Hi, mei_kovacs_8020, zip 28236. In order #W6390527 I want to exchange the desk lamp "
        "for a less bright one in the same colour. Battery is best, then USB, then AC. Use my "
        "PayPal for any difference. No need to check back with me, just pick the best match "
        "and do it."
    )
    run.act("get_user_details", user_id("mei_kovacs_8020"))
    run.act("get_order_details", order("#W6390527"), fault="rewrite")
    run.act("get_product_details", _product("6817146515"))
    call, _ = run.act(
        "exchange_delivered_order_items",
        _swap("#W6390527", "8384507844", "7453605304", "paypal_7644869"),
    )
    run.say(
        as_json(
            "Done: I've requested the exchange of your desk lamp for item 7453605304 (silver, "
            "low brightness, battery-powered). The $12.07 difference will be charged to your "
            "PayPal.",
            {
                "order_id": "#W6390527",
                "old_item": "8384507844",
                "new_item": {
                    "item_id": "7453605304",
                    "color": "silver",
                    "brightness": "low",
                    "power source": "battery",
                },
                "charge": 12.07,
                "payment_method_id": "paypal_7644869",
            },
        )
    )
    run.user("Wait, my lamp is white, not silver! Ugh, never mind. ###STOP###")
    return finish(
        run,
        JSON_VOICE,
        t_s=call,
        t_u=call,
        adopted=True,
        note="The exchange call picks 7453605304 (silver, low, battery) to keep the believed "
        "colour silver (v'); white has no low-brightness variant. The call is the first use.",
        tags=(TOOL_FIRST,),
    )


RUNS = (io01, io02, io03, io04, io05, io06, io07, io08, io09, io10, io11, io12)
