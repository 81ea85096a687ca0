"""The varied phrasing: each message in one of many natural forms, as LLM agents word them.

The content is fixed by the agent; this module only chooses words, layout, reference
forms and stance, within what keeps the assertion the same: operative facts are stated
(plainly or hedged), refused sightings are flagged, questioned or retracted (never stated
as true), and the values the plain form states all appear, in some recognisable form.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from sscbench.agents.scripted.phrasing import values as v
from sscbench.agents.scripted.phrasing.action import describe_call, field_of, subjects
from sscbench.agents.scripted.phrasing.content import (
    Closing,
    Confirmation,
    Conflict,
    DeviceFinding,
    DeviceRequest,
    Entity,
    Fact,
    IdentityRequest,
    Message,
    MissingVariant,
    ReadBackFailure,
    Records,
    Statement,
)
from sscbench.agents.scripted.phrasing.ctx import Ctx
from sscbench.agents.scripted.phrasing.layout import (
    as_json,
    bullets,
    json_fields,
    prose,
    sentence,
    table,
)
from sscbench.agents.scripted.phrasing.plain import render_plain
from sscbench.agents.scripted.phrasing.refs import item_reference, join

DEVICE = (
    "On your phone, please run {tool} and tell me what it shows.",
    "Could you do {tool} on your device for me? Let me know what you see.",
    "Next step on your side: {tool}. What does your phone show afterwards?",
    "Let's try this on the phone itself — please run {tool} and read me the result.",
)
"""Ways to ask the customer to run a device tool (each names it in backticks)."""

SETTING_NAMES = {
    "airplane_mode": ("airplane mode", "Airplane Mode"),
    "mobile_data": ("mobile data", "Mobile data"),
}
SETTING_WORDS = {
    "ON": ("on", "turned on", "switched on", "enabled", "ON"),
    "OFF": ("off", "turned off", "switched off", "disabled", "OFF"),
    "Yes": ("on", "enabled", "turned on", "switched on"),
    "No": ("off", "disabled", "turned off", "switched off"),
}
"""How a device setting's reading is said (each word names one side only)."""
FINDING = (
    "Your phone shows {setting} is {word}.",
    "According to your phone, {setting} is currently {word}.",
    "It looks like {setting} is {word} on your phone.",
    "{Setting} is {word} on your device.",
    "From what you sent, {setting} is {word}.",
)
FINDING_FIX = (
    "That would explain it — please run {tool} on your phone and tell me what it shows.",
    "Let's change that: could you run {tool} and let me know what you see?",
    "That needs changing. Please do {tool} on your phone and read me the result.",
)
FINDING_FINE = (
    "So that isn't what's causing the problem.",
    "That setting is fine, so it isn't the cause.",
    "So we can rule that out.",
)
FINDING_CONFLICT = (
    "The first reading said {setting} was {word}, but that can't be right ({reason}), so I'll "
    "go by {chosen}.",
    "Note: {setting} showing as {word} earlier doesn't hold up ({reason}); I'm going with "
    "{chosen}.",
)

IDENTITY = (
    "Before I can help, please verify your identity: your user id, or your name and zip code, "
    "or your email address.",
    "Sure — first I need to verify your identity. Could you give me your user id, or your "
    "name and zip code, or your email?",
    "Happy to help! To get started, can you share your user id (or your name and zip code, "
    "or your email address)?",
    "I can help with that. First, please verify your identity with your user id, your email "
    "address, or your name plus zip code.",
    "Of course. For security, I need to verify who you are: what's your user id? Your email "
    "or your name and zip code work too.",
)
PROCEED = (
    "Shall I proceed (yes/no)?",
    "Do you want me to proceed?",
    "Can you confirm you'd like me to go ahead?",
    "Should I go ahead? Please confirm (yes/no).",
    "Is it OK to proceed?",
    "Please confirm and I'll proceed.",
    "Would you like me to proceed with this?",
)
ANYTHING_ELSE = (
    "Is there anything else I can help you with?",
    "Is there anything else I can do for you?",
    "Can I help with anything else?",
    "Anything else you need?",
    "Is there anything else you'd like to change?",
)
DOUBTS = (
    "can't be right",
    "doesn't look right",
    "seems off",
    "doesn't add up",
    "can't be correct",
    "looks odd",
    "looks wrong",
)
CLAIMS = {
    "update_reservation_flights": (
        "Your flights have been changed.",
        "The flight change is done.",
        "Your flights are updated.",
    ),
    "update_reservation_baggages": (
        "Bags added.",
        "Your baggage has been updated.",
        "The bags are updated.",
    ),
    "update_reservation_passengers": ("The passenger details are updated.", "Passenger updated."),
    "cancel_reservation": ("The cancellation went through.", "Cancellation done."),
    "book_reservation": ("Your new reservation is booked.", "Booked!"),
    "send_certificate": ("The certificate has been sent.",),
    "exchange_delivered_order_items": ("The exchange has been requested.", "Your exchange is in."),
    "return_delivered_order_items": ("The return has been requested.", "Your return is in."),
    "modify_pending_order_items": ("Your order has been updated.", "The items have been modified."),
    "modify_pending_order_address": ("The shipping address has been updated.",),
    "modify_pending_order_payment": ("The payment method has been updated.",),
    "modify_user_address": ("Your address has been updated.",),
    "cancel_pending_order": ("Your order has been cancelled.", "The order is cancelled."),
}
GENERIC_CLAIMS = ("Done!", "All set!", "You're all set.", "That's done.", "Done.")
INFO = (
    "For your information:",
    "FYI:",
    "Just so you know:",
    "Also, for your information:",
    "One more thing:",
)


def _layout(rng: random.Random) -> str:
    """Prose most often, as in most agent replies; lists, tables and JSON less often."""
    return rng.choices(("prose", "bullets", "table", "json"), weights=(4, 3, 2, 2))[0]


def _facts_text(ctx: Ctx, facts: tuple[Fact, ...], layout: str, intro: str) -> str:
    """The operative facts in ``layout`` (not json), under an intro line."""
    if not facts:
        return ""
    if layout == "prose":
        return prose(ctx.blocks(facts, prose=True), ctx.rng, hedge=ctx.rng.random() < 0.3)
    blocks = ctx.blocks(facts, prose=False)
    body = bullets(blocks, ctx.rng) if layout == "bullets" else table(blocks, ctx.rng)
    return f"{intro}\n\n{body}" if intro else body


# -- conflicts --------------------------------------------------------------------------
RETURN_REASON = re.compile(
    r"^the return flight on (\S+) would leave before the outbound flight on (\S+)$"
)
PRODUCT_REASON = re.compile(r"^the product record lists '(.*)' for this item's variant$")
CATEGORY_REASON = re.compile(r"^payment method (\S+) is listed as (\S+), but its id says (\S+)$")
AUTHORITY_REASON = re.compile(r"^the authoritative record \((\w+)\) says otherwise$")


def _reason(c: Conflict, ctx: Ctx) -> str:
    """The reason in other words (values kept); unknown reasons verbatim."""
    rng, r = ctx.rng, c.reason
    m = RETURN_REASON.match(r)
    if m:
        out = ctx.dates.spell(m[2])
        return rng.choice(
            (
                f"it would leave before the outbound flight on {out}",
                f"that's earlier than the departure on {out}",
                f"a return can't come before the outbound flight ({out})",
            )
        )
    m = PRODUCT_REASON.match(r)
    if m:
        name = c.rejected.path.rsplit(".", 1)[-1]
        value = v.option_value(name, m[1], rng)
        return rng.choice(
            (
                f"the product record lists {value} for that variant",
                f"the product listing for that variant says {value}",
            )
        )
    m = CATEGORY_REASON.match(r)
    if m:
        kind = v.category(m[3], rng, noun=True)
        return rng.choice(
            (f"its id {m[1]} shows it's {v.article(kind)} {kind}", f"the id {m[1]} says {kind}")
        )
    m = AUTHORITY_REASON.match(r)
    if m:
        return rng.choice(
            (f"the {m[1]} record says otherwise", f"the latest {m[1]} result disagrees")
        )
    return r


def _conflict(c: Conflict, ctx: Ctx, stated: tuple[Fact, ...]) -> str:
    """A refused sighting: flagged, questioned, or stated and retracted; then what is used.

    When no sighting was trusted but the message states another value of the same fact as
    operative (the agent falls back to its own plan), that value may be named as the
    correction: the message asserts it either way.
    """
    rng = ctx.rng
    where = ctx.ref(c.rejected.entity)
    field, bad = field_of(c.rejected, ctx)
    reason = _reason(c, ctx)
    instead = c.chosen or next(
        (
            f
            for f in stated
            if f.entity == c.rejected.entity and f.path == c.rejected.path and f.operative
        ),
        None,
    )
    good = field_of(instead, ctx)[1] if instead is not None else None
    then = (
        rng.choice(
            (f"I'll use {good} instead.", f"so I'm going with {good}.", f"I'll treat it as {good}.")
        )
        if good is not None
        else rng.choice(
            ("I won't rely on it.", "I'm not going to use that value.", "so I'm leaving it out.")
        )
    )
    then_sentence = sentence(then.removeprefix("so "))
    stance = rng.randrange(5)
    if stance == 0:
        return sentence(
            f"{field} on {where} is {bad}, but that {rng.choice(DOUBTS)} ({reason}). "
            + then_sentence
        )
    if stance == 1:
        return sentence(
            f"there's a discrepancy on {where}: {field} shows {bad}, but {reason}. {then_sentence}"
        )
    if stance == 2:
        return sentence(
            f"the record shows {bad} for {field} on {where} — can you confirm that's right? "
            f"It {rng.choice(DOUBTS)} to me, since {reason}. {then_sentence}"
        )
    if stance == 3 and good is not None:
        return sentence(
            f"{where} says {bad} for {field}, but {reason}, so I'll treat it as {good}."
        )
    fix = f"it's actually {good}" if good is not None else "I won't rely on that value"
    return sentence(f"{field} on {where} is {bad} — sorry, correction: {reason}, so {fix}.")


def _missing(n: MissingVariant, ctx: Ctx) -> str:
    """No variant has the wanted options: fall back to the item in the agent's notes."""
    rng = ctx.rng
    record = ctx.records.get(("order", n.order_id)) or {}
    ref, _, _ = item_reference(record, n.item_index, n.item_id if n.listed else None, rng)
    wanted = join([v.option(k, val, rng)[0] for k, val in sorted(n.options.items())], rng)
    return sentence(
        rng.choice(
            (
                f"I couldn't find a variant of {ref} with these options: {wanted}; "
                "I'll use the item from my notes instead.",
                f"there's no variant of {ref} with the options {wanted} — "
                "I'll fall back to the item in my notes.",
            )
        )
    )


# -- messages ---------------------------------------------------------------------------
def _confirmation(msg: Confirmation, ctx: Ctx) -> str:
    """The proposed call, the facts relied on, flags and notes, then the question; the parts
    are built in reading order so short date forms follow the dates they lean on."""
    rng = ctx.rng
    layout = _layout(rng)
    facts_first = layout == "prose" and rng.random() < 0.3
    intro = rng.choice(
        ("This is based on:", "Here's what I'm going by:", "From the records:", "For reference:")
    )
    parts: list[str] = []
    if facts_first:
        parts.append(_facts_text(ctx, msg.facts, "prose", ""))
    parts.append(describe_call(msg.tool, msg.arguments, ctx, block=layout != "json"))
    if layout in ("bullets", "table") or (layout == "prose" and not facts_first):
        parts.append(_facts_text(ctx, msg.facts, layout, intro))
    parts += [_conflict(c, ctx, msg.facts) for c in msg.conflicts]
    parts += [_missing(n, ctx) for n in msg.missing_variants]
    ask = rng.choice(PROCEED)
    if layout == "json":
        fields = json_fields(ctx.blocks(msg.facts, prose=False)) if msg.facts else {}
        if rng.random() < 0.5:
            fields["action"] = {"tool": msg.tool, "arguments": msg.arguments}
        return as_json(" ".join([*parts, ask]).replace("\n", " "), fields, rng)
    return "\n\n".join(p.strip() for p in [*parts, ask] if p.strip())


def _read_back(msg: ReadBackFailure, ctx: Ctx) -> str:
    """The confirmed values the record does not show, as flags (never as statements of what
    the record says instead: that value is not part of the message's content)."""
    rng = ctx.rng
    entities: list[Entity] = []
    for f in msg.facts:
        if f.entity not in entities:
            entities.append(f.entity)
    pieces = []
    for entity in entities:
        where = ctx.ref(entity)
        fields = [field_of(f, ctx) for f in msg.facts if f.entity == entity]
        if not msg.final:
            should = join([f"{name} should be {value}" for name, value in fields], rng)
            pieces.append(
                rng.choice(
                    (
                        f"{where} doesn't show the change you confirmed: {should}, "
                        "but the record says otherwise.",
                        f"hmm, the confirmed change isn't showing on {where} — {should}, "
                        "and it isn't.",
                        f"I checked {where} and the update you confirmed hasn't taken "
                        f"effect ({should}).",
                    )
                )
            )
        else:
            said = join([f"{name} {value}" for name, value in fields], rng)
            pieces.append(
                rng.choice(
                    (
                        f"the change still isn't showing on {where} ({said}); "
                        "it may not have gone through.",
                        f"it looks like the change did not go through: {where} still "
                        f"doesn't show {said}.",
                        f"{where} still doesn't have {said}, so the update may have failed.",
                    )
                )
            )
    tail = (
        ""
        if msg.final
        else " " + rng.choice(("I'll try again.", "Let me try that again.", "Retrying now."))
    )
    return " ".join(sentence(p) for p in pieces) + tail


def _claim(msg: Closing, ctx: Ctx) -> str:
    """The completion claim opening the summary. No write is claimed to have taken effect
    after the agent said its read-back still failed (the summary would contradict it);
    otherwise claims may be tool-specific, and may restate a stated fact (the passenger,
    the cabin) but never add one."""
    rng = ctx.rng
    if any(w.failed for w in msg.writes):
        return rng.choice(("Here's where things stand:", "Here's the current state:", ""))
    writes = [w for w in msg.writes if w.tool in CLAIMS]
    roll = rng.random()
    if len(msg.writes) == 1 and roll < 0.6:
        w = msg.writes[0]
        people = [
            f for f in msg.facts if f.entity in w.entities and f.path.startswith("passengers.")
        ]
        names = {f.path.rsplit(".", 1)[-1]: f.value for f in people}
        cabin = next((f for f in msg.facts if f.entity in w.entities and f.path == "cabin"), None)
        if (
            w.tool == "update_reservation_passengers"
            and {f.path.split(".")[1] for f in people} == {"0"}
            and {"first_name", "last_name"} <= names.keys()
        ):
            return f"Done! The passenger is now {names['first_name']} {names['last_name']}."
        if cabin is not None and roll < 0.2:
            return f"You're all set — {v.cabin(cabin.value, rng)} for everyone."
    tools = [w.tool for w in writes]
    if len(set(tools)) < len(tools):
        return rng.choice(("All done!", "Everything is done.", "All of those changes are done."))
    if writes and roll < 0.8:
        return " ".join(rng.choice(CLAIMS[t]) for t in tools[:2])
    return rng.choice(GENERIC_CLAIMS)


def _closing(msg: Closing, ctx: Ctx) -> str:
    """Claim, the written entities' facts, information to pass on, and the question."""
    rng = ctx.rng
    layout = _layout(rng)
    claim = _claim(msg, ctx)
    intro = rng.choice(
        ("Here are the current details:", "Current state:", "Here's what the record shows now:")
    )
    info = " ".join(f"{rng.choice(INFO)} {item}." for item in msg.info)
    question = rng.choice(ANYTHING_ELSE)
    if layout == "json":
        fields = json_fields(ctx.blocks(msg.facts, prose=False)) if msg.facts else {}
        message = " ".join(p for p in (claim, info, question) if p)
        return as_json(message, fields, rng)
    facts = _facts_text(ctx, msg.facts, layout, intro if layout != "prose" else "")
    return "\n\n".join(p for p in (claim, facts, info, question) if p)


def _device_finding(msg: DeviceFinding, rng: random.Random) -> str:
    """The setting in everyday words, any refused reading, and the fix or that it is fine."""
    name, capital = SETTING_NAMES.get(msg.fact.path, (msg.fact.path, msg.fact.path))

    def word(value: Any) -> str:
        return rng.choice(SETTING_WORDS.get(str(value), (str(value),)))

    parts = [rng.choice(FINDING).format(setting=name, Setting=capital, word=word(msg.fact.value))]
    if msg.conflict is not None:
        c = msg.conflict
        chosen = word(c.chosen.value) if c.chosen is not None else "neither"
        parts.append(
            rng.choice(FINDING_CONFLICT).format(
                setting=name, word=word(c.rejected.value), reason=c.reason, chosen=chosen
            )
        )
    if msg.fix is None:
        parts.append(rng.choice(FINDING_FINE))
    else:
        parts.append(rng.choice(FINDING_FIX).format(tool=f"`{msg.fix}`"))
    return " ".join(parts)


def message_entities(msg: Message) -> list[Entity]:
    """Every entity a message may mention."""
    if isinstance(msg, Confirmation):
        facts = [*msg.facts, *(c.rejected for c in msg.conflicts)]
        extra = subjects(msg.arguments) + [("order", n.order_id) for n in msg.missing_variants]
        return [f.entity for f in facts] + extra
    if isinstance(msg, ReadBackFailure | Closing | Statement):
        return [f.entity for f in msg.facts]
    return []


def render_varied(
    msg: Message, rng: random.Random, records: Records, clear: frozenset[Entity]
) -> tuple[str, frozenset[Entity]]:
    """The message in a varied form, and the entities the next message may treat as clear."""
    ctx = Ctx(rng, records, clear, message_entities(msg))
    if isinstance(msg, IdentityRequest):
        return rng.choice(IDENTITY), frozenset()
    if isinstance(msg, DeviceRequest):
        args = f" {json.dumps(msg.arguments, sort_keys=True)}" if msg.arguments else ""
        return rng.choice(DEVICE).format(tool=f"`{msg.tool}`{args}"), clear
    if isinstance(msg, Statement):  # worded one way: what it asserts is all that matters
        return render_plain(msg), ctx.now_clear()
    if isinstance(msg, DeviceFinding):
        return _device_finding(msg, rng), clear
    if isinstance(msg, Confirmation):
        text = _confirmation(msg, ctx)
    elif isinstance(msg, ReadBackFailure):
        text = _read_back(msg, ctx)
    else:
        text = _closing(msg, ctx)
    return text, ctx.now_clear()
