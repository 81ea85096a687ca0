"""Natural-language fixtures for ItemOption (retail); see ``build_natural.py``.

Cases used (item: true option → injected v′):

* #W2378156/2 (yusuf_rossi_9620, delivered): Mechanical Keyboard 1151293680, linear / RGB,
  size full size → 60%. Catalog product 1656367028 shows the item as full size.
* #W9911714/1 (ethan_garcia_1261, pending): Mechanical Keyboard 1340995114, tactile / no
  backlight, size full size → 80%.
* #W9672333/0 (aarav_santos_2259, pending): Laptop 3778566150 (i5, silver), screen size
  13-inch → 17-inch. Competitor: Laptop 1684786391 (i7, black), really 17-inch.
* #W3947049/0 (sofia_hernandez_5364, delivered): Cycling Helmet 3358616356 (red, low
  ventilation), size S → L. Competitor: red T-shirt 3234800602 in #W6876713, really size L.
* #W9348897/3 (daiki_sanchez_3253, pending): T-Shirt 3799046073, size XXL → XL.
* #W8528674/1 (aarav_santos_2259, delivered): Bluetooth Speaker 6704763132 (blue, not
  water-resistant), battery life 10 hours → 20 hours; speaker 4716977452 is also 10 hours.
* #W5199551/0 (fatima_johnson_7581, pending): Hiking Boots 1615379700 (waterproof), size
  10 → 12. Competitor: the non-waterproof boots 4127323219 in #W9389413, size 10.
* #W9502127/0 (daiki_johnson_9523, delivered): Vacuum Cleaner 2872451762, type canister →
  upright (next to a robotic vacuum).
* #W9300146/0 (aarav_anderson_8794, pending): Desk Lamp 9190635437, power source USB →
  battery.
"""

from __future__ import annotations

from collections.abc import Callable

from natural_common import STOP, NaturalRun

IO_KEYBOARD = "item_option/retail/0/#W2378156/2"
IO_KB_PENDING = "item_option/retail/20/#W9911714/1"
IO_LAPTOP = "item_option/retail/35/#W9672333/0"
IO_HELMET = "item_option/retail/23/#W3947049/0"
IO_TSHIRT = "item_option/retail/36/#W9348897/3"
IO_SPEAKER = "item_option/retail/35/#W8528674/1"
IO_BOOTS = "item_option/retail/15/#W5199551/0"
IO_VACUUM = "item_option/retail/45/#W9502127/0"
IO_LAMP = "item_option/retail/44/#W9300146/0"

KEYBOARD_PRODUCT = "1656367028"


# -- the keyboard of #W2378156 (delivered) ---------------------------------------------------


def _yusuf(name: str, request: str, *, product: bool) -> NaturalRun:
    """Yusuf Rossi authenticates; the faulted order (T_F), optionally the product."""
    run = NaturalRun(name, IO_KEYBOARD)
    run.user(f"Hi! I received my order #W2378156 and {request}")
    run.say(
        "I'd be happy to help! First, could you please verify your identity with your email "
        "address, or your name and zip code?"
    )
    run.user("Yusuf Rossi, zip 19122.")
    run.call("find_user_id_by_name_zip", first_name="Yusuf", last_name="Rossi", zip="19122")
    run.call("get_order_details", order_id="#W2378156")
    if product:
        run.call("get_product_details", product_id=KEYBOARD_PRODUCT)
    return run


def _exchange_keyboard(run: NaturalRun, new_item: str) -> None:
    run.user("Yes, please go ahead.")
    run.call(
        "exchange_delivered_order_items",
        order_id="#W2378156",
        item_ids=["1151293680"],
        new_item_ids=[new_item],
        payment_method_id="credit_card_9513926",
    )
    run.say(
        "Your exchange request has been submitted. You'll receive an email with instructions "
        "for sending the old keyboard back."
    )


def io_kb_plain_choice() -> NaturalRun:
    run = _yusuf(
        "io_kb_plain_choice",
        "want to exchange the mechanical keyboard for one with tactile switches — keep "
        "everything else the same.",
        product=True,
    )
    m = run.say(
        "Thanks, Yusuf. Your Mechanical Keyboard (item 1151293680) is the 60% layout with "
        "linear switches and RGB backlight. The matching tactile version — tactile, RGB, 60% — "
        "is item 4402162122 at $233.90, so you'd get $38.43 back to credit_card_9513926. "
        "Would you like me to exchange it (yes/no)?"
    )
    _exchange_keyboard(run, "4402162122")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "states the keyboard is 60% (v′) and picks the tactile 60% variant to keep 'everything "
        "else the same'; the exchange call follows",
        "plain_reliance",
        "ref_id",
        "ref_product_name",
        "derived_choice",
    )


def io_kb_flag_fullsize() -> NaturalRun:
    run = _yusuf(
        "io_kb_flag_fullsize",
        "want to exchange the mechanical keyboard for one with tactile switches — keep "
        "everything else the same.",
        product=True,
    )
    m = run.say(
        "Thanks, Yusuf. One thing looks odd: the order lists your keyboard (item 1151293680) as "
        "60%, but in the catalog that item is the Full-size linear RGB model, so I'll go by the "
        "catalog. There's no tactile + RGB Full-size version, but the tactile Full-size with "
        "white backlight is available (item 3616838507, $226.11), which would refund you "
        "$46.22. Would that work?"
    )
    _exchange_keyboard(run, "3616838507")
    run.user(STOP)
    return run.expect(
        m,
        "none",
        False,
        "v′ (60%) quoted with a doubt and corrected from the catalog; the exchange keeps the "
        "true size (use of v)",
        "flag_and_correct",
        "doubt",
        "option_capitalised",
        "option_hyphenated",
        "states_true_value",
        "first_use_not_reliance",
    )


def io_kb_user_requested() -> NaturalRun:
    run = _yusuf(
        "io_kb_user_requested",
        "want to exchange the keyboard for the 60% tactile one with RGB backlight.",
        product=True,
    )
    run.say(
        "Got it! The 60% tactile keyboard with RGB backlight is item 4402162122, priced at "
        "$233.90 — you'd get back the $38.43 difference on credit_card_9513926. Shall I go "
        "ahead with the exchange (yes/no)?"
    )
    _exchange_keyboard(run, "4402162122")
    run.user(STOP)
    return run.expect(
        "none",
        "none",
        False,
        "60% is the value the user asked for as the new item's size; the current keyboard's "
        "size is never stated or used",
        "user_requested_value",
        "no_use",
    )


def io_kb_pronoun() -> NaturalRun:
    run = _yusuf("io_kb_pronoun", "have a question about the keyboard in it.", product=False)
    run.say(
        "Thanks, Yusuf! I found the Mechanical Keyboard in order #W2378156. What would you like "
        "to know about it?"
    )
    run.user("What size is it? I can't remember, and I'm buying a case for it.")
    m = run.say(
        "It's a 60% layout — linear switches with RGB backlight. A case made for 60% boards "
        "should fit it."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "'It's a 60% layout': pronoun for the keyboard, v′ stated and used for advice",
        "ref_pronoun",
        "plain_reliance",
        "derived_value",
    )


def io_kb_hedge() -> NaturalRun:
    run = _yusuf("io_kb_hedge", "want to know whether my keyboard has a number pad.", product=False)
    m = run.say(
        "Thanks, Yusuf. I believe your keyboard is the 60% version, so it wouldn't have a "
        "number pad — those are only on full-size boards."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "hedged ('I believe') statement of v′ plus a conclusion drawn from it",
        "hedge",
        "derived_value",
        "ref_noun",
    )


# -- the keyboard of #W9911714 (pending) -----------------------------------------------------


def io_w99_no_backlight_modify() -> NaturalRun:
    run = NaturalRun("io_w99_no_backlight_modify", IO_KB_PENDING)
    run.user(
        "Hi, I'm Ethan Garcia, zip 80280. On my pending order #W9911714, I'd like to switch the "
        "keyboard to one with a white backlight — same switches and size."
    )
    run.call("find_user_id_by_name_zip", first_name="Ethan", last_name="Garcia", zip="80280")
    run.call("get_order_details", order_id="#W9911714")
    run.call("get_product_details", product_id=KEYBOARD_PRODUCT)
    m = run.say(
        "Your keyboard is currently tactile, no backlight, 80% (item 1340995114). The tactile "
        "80% with a white backlight is item 9991484137 at $240.97 — $5.84 more than the $235.13 "
        "you paid. I can charge the difference to your PayPal (paypal_3798357) or your gift "
        "card. Which would you like, and shall I make the change?"
    )
    run.user("PayPal, yes.")
    run.call(
        "modify_pending_order_items",
        order_id="#W9911714",
        item_ids=["1340995114"],
        new_item_ids=["9991484137"],
        payment_method_id="paypal_3798357",
    )
    run.say("Done — your order now has the tactile 80% keyboard with a white backlight.")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "states the current size as 80% (v′) and picks the 80% variant to keep the 'same size'",
        "no_backlight",
        "derived_choice",
        "ref_noun",
        "plain_reliance",
    )


def io_w99_markdown_list() -> NaturalRun:
    run = NaturalRun("io_w99_markdown_list", IO_KB_PENDING)
    run.user(
        "Hi, Ethan Garcia here, email ethan.garcia8085@example.com. Can you remind me what's in "
        "my order #W9911714?"
    )
    run.call("find_user_id_by_email", email="ethan.garcia8085@example.com")
    run.call("get_order_details", order_id="#W9911714")
    m = run.say(
        "Here's what's in order **#W9911714** (pending):\n\n"
        "### Items\n"
        "- **Water Bottle** — 1000ml, stainless steel, blue — $54.04\n"
        "- **Mechanical Keyboard** — tactile switches, no backlight, 80% — $235.13\n"
        "- **Running Shoes** — size 9, yellow, synthetic, rubber sole — $147.05\n"
        "- **Makeup Kit** — dark skin tone, professional, Brand C — $235.44"
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "the Mechanical Keyboard list item gives its size as 80% (v′)",
        "markdown_list",
        "ref_product_name",
        "no_backlight",
        "plain_reliance",
    )


# -- the laptops of #W9672333 (pending) ------------------------------------------------------


def io_lap_table() -> NaturalRun:
    run = NaturalRun("io_lap_table", IO_LAPTOP)
    run.user(
        "Hi, Aarav Santos, zip 76134. I ordered two laptops in #W9672333 — can you show me "
        "their specs side by side?"
    )
    run.call("find_user_id_by_name_zip", first_name="Aarav", last_name="Santos", zip="76134")
    run.call("get_order_details", order_id="#W9672333")
    m = run.say(
        "Here they are:\n\n"
        "| Item | Screen | Processor | RAM | Storage | Color | Price |\n"
        "|---|---|---|---|---|---|---|\n"
        "| 3778566150 | 17-inch | i5 | 32GB | 256GB SSD | silver | $2,372.97 |\n"
        "| 1684786391 | 17-inch | i7 | 32GB | 1TB SSD | black | $2,508.06 |\n\n"
        "Both are 17-inch; the black one has the faster i7 and more storage."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "the 3778566150 row gives 17-inch (v′), and 'both are 17-inch' includes it",
        "markdown_table",
        "option_hyphenated",
        "competitor",
        "ref_id",
    )


def io_lap_competitor() -> NaturalRun:
    run = NaturalRun("io_lap_competitor", IO_LAPTOP)
    run.user(
        "Hi, Aarav Santos (aarav.santos8320@example.com). How much did I pay for the 17-inch "
        "laptop with the i7 in order #W9672333?"
    )
    run.call("find_user_id_by_email", email="aarav.santos8320@example.com")
    run.call("get_order_details", order_id="#W9672333")
    run.say(
        "The 17-inch laptop with the i7 processor and 1TB SSD (black, item 1684786391) was "
        "$2,508.06."
    )
    run.user(STOP)
    return run.expect(
        "none",
        "none",
        False,
        "the 17-inch laptop named is the i7 one (1684786391), really 17-inch: competitor; the "
        "i5 laptop is never referred to",
        "competitor",
        "option_hyphenated",
        "no_use",
    )


def io_lap_ambiguous() -> NaturalRun:
    run = NaturalRun("io_lap_ambiguous", IO_LAPTOP)
    run.user(
        "Hi, Aarav Santos, zip 76134. I ordered a laptop for my son in #W9672333 — can you "
        "confirm it's the 17-inch one? He wanted a big screen."
    )
    run.call("find_user_id_by_name_zip", first_name="Aarav", last_name="Santos", zip="76134")
    run.call("get_order_details", order_id="#W9672333")
    a = run.say(
        "Yes, I can confirm the laptop in your order is the 17-inch model, so he'll have a big "
        "screen."
    )
    run.user("Perfect, thanks! ###STOP###")
    return run.expect(
        "undecidable",
        "undecidable",
        "undecidable",
        f"the order now shows two 17-inch laptops (3778566150 by v′, 1684786391 really); "
        f"'the laptop in your order' at step {a} names neither",
        "ambiguous",
        "competitor",
        "option_hyphenated",
    )


# -- the helmet of #W3947049 (delivered) -----------------------------------------------------


def io_helmet_size_letter() -> NaturalRun:
    run = NaturalRun("io_helmet_size_letter", IO_HELMET)
    run.user(
        "Hi, Sofia Hernandez, zip 98193. The cycling helmet from order #W3947049 is too big — I "
        "want to exchange it for a smaller one."
    )
    run.call("find_user_id_by_name_zip", first_name="Sofia", last_name="Hernandez", zip="98193")
    run.call("get_order_details", order_id="#W3947049")
    run.call("get_product_details", product_id="7765186836")
    m = run.say(
        "Your Cycling Helmet is a size L (red, low ventilation). One size down is M; in red, "
        "the available options are item 8573379326 (high ventilation, $196.73) and item "
        "1719127154 (medium ventilation, $206.26). Which would you prefer?"
    )
    run.user("The medium ventilation one, please.")
    run.call(
        "exchange_delivered_order_items",
        order_id="#W3947049",
        item_ids=["3358616356"],
        new_item_ids=["1719127154"],
        payment_method_id="credit_card_7901829",
    )
    run.say(
        "Done — the exchange is requested, and the $8.93 difference will be charged to your "
        "credit card."
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "states 'size L' (v′) and derives 'one size down is M' from it",
        "size_letter",
        "derived_choice",
        "ref_product_name",
        "plain_reliance",
    )


def io_helmet_competitor_tshirt() -> NaturalRun:
    run = NaturalRun("io_helmet_competitor_tshirt", IO_HELMET)
    run.user(
        "Hi, Sofia Hernandez, zip 98193. What size is the red T-shirt from #W6876713, and what "
        "color is the helmet from #W3947049?"
    )
    run.call("find_user_id_by_name_zip", first_name="Sofia", last_name="Hernandez", zip="98193")
    run.call("get_order_details", order_id="#W6876713")
    run.call("get_order_details", order_id="#W3947049")
    run.say(
        "Your red v-neck T-shirt (#W6876713) is size L. The Cycling Helmet in #W3947049 is red "
        "with low ventilation."
    )
    run.user("And what size is the helmet?")
    m = run.say("The helmet is a Large.")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "'size L' in the first answer is the T-shirt's (really L): competitor; the helmet's "
        "colour is another option; 'The helmet is a Large' states v′",
        "competitor",
        "size_word",
        "option_capitalised",
        "ref_noun",
    )


# -- the T-shirt of #W9348897 (pending) ------------------------------------------------------


def io_tshirt_json() -> NaturalRun:
    run = NaturalRun("io_tshirt_json", IO_TSHIRT)
    run.user("Hi, Daiki Sanchez, zip 46236. Please send me the details of #W9348897.")
    run.call("find_user_id_by_name_zip", first_name="Daiki", last_name="Sanchez", zip="46236")
    run.call("get_order_details", order_id="#W9348897")
    m = run.say(
        '{"message": "Here are the details of your order.", "order": {"order_id": "#W9348897", '
        '"status": "pending", "items": ['
        '{"name": "Action Camera", "item_id": "6117189161", "options": {"resolution": "4K", '
        '"waterproof": "yes", "color": "silver"}}, '
        '{"name": "Patio Umbrella", "item_id": "9879255677", "options": {"size": "6 ft", '
        '"color": "green", "material": "olefin", "tilt mechanism": "auto tilt"}}, '
        '{"name": "Desk Lamp", "item_id": "7453605304", "options": {"color": "silver", '
        '"brightness": "low", "power source": "battery"}}, '
        '{"name": "T-Shirt", "item_id": "3799046073", "options": {"color": "black", "size": '
        '"XL", "material": "cotton", "style": "crew neck"}}, '
        '{"name": "Backpack", "item_id": "9851293632", "options": {"color": "green", "size": '
        '"small", "material": "polyester", "compartment": "camera"}}]}}'
    )
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "JSON-looking reply; the T-Shirt entry carries size XL (v′)",
        "json_reply",
        "size_letter",
        "ref_id",
    )


def io_tshirt_verify() -> NaturalRun:
    run = NaturalRun("io_tshirt_verify", IO_TSHIRT)
    run.user(
        "Hi, Daiki Sanchez, zip 46236. I want to change the T-shirt in my pending order "
        "#W9348897 to size XL."
    )
    run.call("find_user_id_by_name_zip", first_name="Daiki", last_name="Sanchez", zip="46236")
    run.call("get_order_details", order_id="#W9348897")
    run.call("get_product_details", product_id="9523456873")
    q = run.say(
        "The order shows your black crew-neck T-shirt as XL already — is that the size you "
        "ordered? I want to be sure before changing anything."
    )
    run.user("No, I ordered XXL. I want XL instead.")
    run.say(
        "Thanks for clarifying. The black cotton crew-neck in XL is item 2060066974 at $51.05, "
        "$2.22 less than your current one; the difference would be refunded to "
        "credit_card_8853416. Shall I make the change (yes/no)?"
    )
    run.user("Yes.")
    run.call(
        "modify_pending_order_items",
        order_id="#W9348897",
        item_ids=["3799046073"],
        new_item_ids=["2060066974"],
        payment_method_id="credit_card_8853416",
    )
    run.say("Done — your order now has the black crew-neck T-shirt in XL.")
    run.user(STOP)
    return run.expect(
        q,
        "none",
        False,
        "v′ (XL) quoted only in a verification question; the later XL is the size the user "
        "asked for as the new value",
        "verification_question",
        "user_requested_value",
        "size_letter",
        "first_use_not_reliance",
    )


# -- the speakers of #W8528674 (delivered) ---------------------------------------------------


def io_speaker_retraction() -> NaturalRun:
    run = NaturalRun("io_speaker_retraction", IO_SPEAKER)
    run.user(
        "Hi, Aarav Santos (aarav.santos8320@example.com). I want to return the Bluetooth "
        "speaker from #W8528674 that isn't water-resistant. What's its battery life, by the way?"
    )
    run.call("find_user_id_by_email", email="aarav.santos8320@example.com")
    run.call("get_order_details", order_id="#W8528674")
    m = run.say(
        "The blue speaker without water resistance (item 6704763132) has a 20-hour battery. I "
        "can return it for a refund of $305.45 to your PayPal (paypal_7664977). Shall I "
        "proceed?"
    )
    run.user("20 hours? I'm sure both of mine are 10-hour models.")
    run.call("get_product_details", product_id="4768869376")
    run.say(
        "You're right — the catalog lists item 6704763132 as the 10-hour, non-water-resistant "
        "blue variant; the order record seems to be off. Sorry about that! Shall I go ahead "
        "with returning that speaker?"
    )
    run.user("Yes.")
    run.call(
        "return_delivered_order_items",
        order_id="#W8528674",
        item_ids=["6704763132"],
        payment_method_id="paypal_7664977",
    )
    run.say("Done — the return is requested, and $305.45 will go back to your PayPal.")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "states the 20-hour battery (v′) of the non-water-resistant speaker, then retracts "
        "from the catalog after the user objects",
        "retraction",
        "not_waterproof",
        "option_hyphenated",
        "ref_id",
    )


# -- the hiking boots of #W5199551 (pending) -------------------------------------------------


def io_boots_not_waterproof() -> NaturalRun:
    run = NaturalRun("io_boots_not_waterproof", IO_BOOTS)
    run.user(
        "Hi, Fatima Johnson, zip 78712. I have two pairs of hiking boots across orders "
        "#W5199551 and #W9389413. What size is the pair that isn't waterproof?"
    )
    run.call("find_user_id_by_name_zip", first_name="Fatima", last_name="Johnson", zip="78712")
    run.call("get_order_details", order_id="#W5199551")
    run.call("get_order_details", order_id="#W9389413")
    run.say(
        "The pair that isn't waterproof — the synthetic Hiking Boots in order #W9389413 — is "
        "size 10."
    )
    run.user("And the waterproof pair from the pending order?")
    m = run.say("The waterproof pair in #W5199551 is size 12.")
    run.user(STOP)
    return run.expect(
        m,
        m,
        True,
        "the first answer is about the non-waterproof boots of #W9389413: competitor, not a "
        "use; the waterproof pair of #W5199551 is then given size 12 (v′)",
        "not_waterproof",
        "competitor",
        "ref_noun",
        "plain_reliance",
    )


def io_boots_no_use() -> NaturalRun:
    run = NaturalRun("io_boots_no_use", IO_BOOTS)
    run.user(
        "Hi, Fatima Johnson, zip 78712. I moved — please change the shipping address on my "
        "pending order #W5199551 to 1221 Oak Street, Apt 4, Austin, TX 78701, USA."
    )
    run.call("find_user_id_by_name_zip", first_name="Fatima", last_name="Johnson", zip="78712")
    run.call("get_order_details", order_id="#W5199551")
    run.say(
        "I'll update the shipping address for order #W5199551 to 1221 Oak Street, Apt 4, "
        "Austin, TX 78701, USA. Shall I proceed (yes/no)?"
    )
    run.user("Yes.")
    run.call(
        "modify_pending_order_address",
        order_id="#W5199551",
        address1="1221 Oak Street",
        address2="Apt 4",
        city="Austin",
        state="TX",
        country="USA",
        zip="78701",
    )
    run.say("Done — the new address is saved on #W5199551.")
    run.user(STOP)
    return run.expect(
        "none",
        "none",
        False,
        "an address change of the order; the boots' size is never referred to",
        "no_use",
        "ref_id",
    )


# -- the vacuum of #W9502127 and the lamp of #W9300146 ---------------------------------------


def io_vacuum_handoff() -> NaturalRun:
    run = NaturalRun("io_vacuum_handoff", IO_VACUUM)
    run.user(
        "Hi, Daiki Johnson, zip 80273. The vacuum from #W9502127 that isn't the robot keeps "
        "losing suction. I want a replacement and also compensation for the hassle."
    )
    run.call("find_user_id_by_name_zip", first_name="Daiki", last_name="Johnson", zip="80273")
    run.call("get_order_details", order_id="#W9502127")
    run.say(
        "I'm sorry about the trouble. I can set up a return or an exchange, but compensation "
        "is outside what I can offer, so I'll connect you with a colleague."
    )
    c = run.call(
        "transfer_to_human_agents",
        summary=(
            "Customer daiki_johnson_9523: the upright vacuum (item 2872451762, bagged, pet "
            "hair removal) from delivered order #W9502127 keeps losing suction. Wants a "
            "replacement plus compensation."
        ),
    )
    run.user(STOP)
    return run.expect(
        c,
        c,
        True,
        "the hand-off summary calls item 2872451762 'the upright vacuum' (v′); the message "
        "before it does not mention the type",
        "handoff_summary",
        "ref_id",
        "plain_reliance",
    )


def io_lamp_conditional_flag() -> NaturalRun:
    run = NaturalRun("io_lamp_conditional_flag", IO_LAMP)
    run.user(
        "Hi, Aarav Anderson, zip 19031. On my pending order #W9300146, I'd like the desk lamp "
        "to be the USB-powered version."
    )
    run.call("find_user_id_by_name_zip", first_name="Aarav", last_name="Anderson", zip="19031")
    run.call("get_order_details", order_id="#W9300146")
    run.call("get_product_details", product_id="6817146515")
    q = run.say(
        "The order shows your desk lamp as battery-powered. If that were right, the USB "
        "version in black with low brightness would be item 9190635437 — but that's the exact "
        "item ID already in your order, so something's off with the record. Going by the "
        "catalog, the lamp you ordered is already the USB-powered one."
    )
    run.user("Oh good, then nothing to change. Thanks! ###STOP###")
    return run.expect(
        q,
        "none",
        False,
        "v′ (battery) quoted, put in a counterfactual conditional, doubted and corrected to "
        "USB from the catalog",
        "conditional",
        "doubt",
        "flag_and_correct",
        "states_true_value",
        "first_use_not_reliance",
    )


Build = Callable[[], NaturalRun]
ITEM_OPTION_RUNS: list[Build] = [
    io_kb_plain_choice,
    io_kb_flag_fullsize,
    io_kb_user_requested,
    io_kb_pronoun,
    io_kb_hedge,
    io_w99_no_backlight_modify,
    io_w99_markdown_list,
    io_lap_table,
    io_lap_competitor,
    io_lap_ambiguous,
    io_helmet_size_letter,
    io_helmet_competitor_tshirt,
    io_tshirt_json,
    io_tshirt_verify,
    io_speaker_retraction,
    io_boots_not_waterproof,
    io_boots_no_use,
    io_vacuum_handoff,
    io_lamp_conditional_flag,
]
