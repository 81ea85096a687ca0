"""The plain phrasing: one fixed, literal form per message (the original scripted wording).

Every fact is spelled ``<path> of <entity type> <id> is <value>``, so the text is trivially
attributable. It must stay byte-identical: existing ledgers and tests depend on it.
"""

from __future__ import annotations

import json

from sscbench.agents.scripted.phrasing.content import (
    Closing,
    Confirmation,
    DeviceFinding,
    DeviceRequest,
    Fact,
    IdentityRequest,
    Message,
    MissingVariant,
    ReadBackFailure,
    Statement,
)

IDENTITY_QUESTION = (
    "Before I can help, please verify your identity: your user id, or your name and zip "
    "code, or your email address."
)
CLOSING_QUESTION = "Is there anything else I can help you with?"


def fact_phrase(fact: Fact) -> str:
    """``flights.1.date of reservation GV1N64 is 2024-05-20``."""
    if fact.entity_type == "result":
        return f"the {fact.entity_id} result is {fact.value}"
    return f"{fact.path} of {fact.entity_type} {fact.entity_id} is {fact.value}"


def item_label(note: MissingVariant) -> str:
    """``items.2. 1151293680 (Mechanical Keyboard)``, or ``items.2.`` without the record."""
    if not note.listed:
        return f"items.{note.item_index}."
    return f"items.{note.item_index}. {note.item_id} ({note.item_name})"


def missing_variant_note(note: MissingVariant) -> str:
    """The note that no variant has the wanted options."""
    return (
        f"I could not find a variant of item {item_label(note)} with options "
        f"{json.dumps(note.options, sort_keys=True)}; I will use the item from my notes."
    )


def _confirmation(msg: Confirmation) -> str:
    facts = "; ".join(fact_phrase(f) for f in msg.facts)
    notes = "".join(
        f" Note: {fact_phrase(c.rejected)} cannot be right ({c.reason}); "
        + (
            "I use " + repr(c.chosen.value) + " instead."
            if c.chosen is not None
            else "I do not rely on it."
        )
        for c in msg.conflicts
    )
    notes += "".join(f" {missing_variant_note(n)}" for n in msg.missing_variants)
    return (
        f"I will call {msg.tool} with {json.dumps(msg.arguments, sort_keys=True)}. "
        f"This relies on: {facts or 'no prior records'}.{notes} Shall I proceed (yes/no)?"
    )


def _read_back(msg: ReadBackFailure) -> str:
    phrases = "; ".join(fact_phrase(f) for f in msg.facts)
    if not msg.final:
        return (
            f"The record does not show the change that was confirmed ({phrases} is not "
            "what the record says). I will try again."
        )
    return (
        f"The change still does not show in the record ({phrases}); it may not have gone through."
    )


def _closing(msg: Closing) -> str:
    parts = [fact_phrase(f) for f in msg.facts]
    summary = ("Done: " + "; ".join(parts) + ". ") if parts else "Done. "
    info = "".join(f"For your information: {item}. " for item in msg.info)
    return summary + info + CLOSING_QUESTION


def _statement(msg: Statement) -> str:
    facts = "; ".join(fact_phrase(f) for f in msg.facts)
    if msg.ask:
        return f"Before I go ahead, here is what I have: {facts}. Please confirm (yes/no)."
    return f"Done so far: {facts}. I will check the record next."


def device_request(msg: DeviceRequest) -> str:
    """Name the device tool (and its arguments) so that any customer can run it."""
    args = f" {json.dumps(msg.arguments, sort_keys=True)}" if msg.arguments else ""
    return f"On your phone, please run `{msg.tool}`{args} and tell me what it shows."


def device_finding(msg: DeviceFinding) -> str:
    """The setting as the agent believes it, any reading it refuses, and the fix (named in
    backticks, so the customer runs it) or that the setting is not the cause."""
    note = ""
    if msg.conflict is not None:
        c = msg.conflict
        chosen = f"I use {c.chosen.value!r} instead." if c.chosen else "I do not rely on it."
        note = f" Note: {fact_phrase(c.rejected)} cannot be right ({c.reason}); {chosen}"
    if msg.fix is None:
        return f"Your phone shows {fact_phrase(msg.fact)}, so that is not the cause.{note}"
    return (
        f"Your phone shows {fact_phrase(msg.fact)}.{note} On your phone, please run "
        f"`{msg.fix}` and tell me what it shows."
    )


def render_plain(msg: Message) -> str:
    """The fixed literal text of a message."""
    if isinstance(msg, DeviceRequest):
        return device_request(msg)
    if isinstance(msg, DeviceFinding):
        return device_finding(msg)
    if isinstance(msg, IdentityRequest):
        return IDENTITY_QUESTION
    if isinstance(msg, Confirmation):
        return _confirmation(msg)
    if isinstance(msg, ReadBackFailure):
        return _read_back(msg)
    if isinstance(msg, Statement):
        return _statement(msg)
    return _closing(msg)
