"""Claims that a request took effect, in the words agents use: an order's handled status
("an exchange has been submitted", "it's already cancelled") and money sent back ("you've
been refunded", "the $567 went back to your gift card").

The generic rules find a fact's *values* in text. A status or a refund is seldom said by
its value: "return requested" is "your return is being processed", and a refund entry in a
payment history is "a refund of $567" or just "you'll get your money back". The operators
whose fact is such an effect — PartialEffect (the success reply claims it, the state lacks
it) and ResetLeak (a stale read claims an earlier request's status) — add these forms as
mentions of ``v′``.

A form is a claim only where the agent states it: not in a yes/no question or an offer
("Would you like a refund to your gift card?"), not in a clause that plans the agent's own
action ("I'll submit a return request"), not negated ("no refund was issued", "it hasn't
been refunded"), and not beside a refusal to rely on it. Doubt and contrast are the shared
stance machinery's to judge, as for every mention.
"""

from __future__ import annotations

import re

from sscbench.reconstruct.detector import ValueMention
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.stance import ACTION_REQUEST, PLAN
from sscbench.reconstruct.values import Mention, fold, occurs

_DONE = r"(?:already\s+|been\s+|already\s+been\s+)?"
_HANDLED = (
    r"(?:requested|initiated|submitted|placed|processed|filed|logged|registered|created|"
    r"opened|started|confirmed|accepted|approved|set\s+up|arranged|in\s+progress|pending|"
    r"open|under\s*way|in\s+place|on\s+its\s+way)"
)
_BE = r"(?:has\s+|have\s+|was\s+|were\s+|is\s+|are\s+|'s\s+)?(?:now\s+)?"
_ADVERB = r"(?:successfully\s+|being\s+|also\s+)?"


def _request(noun: str) -> str:
    """A handled request of ``noun`` ("return", "exchange") in its usual forms."""
    return (
        rf"\b{noun}(?:\s+request)?(?:\s+(?:for|on|of)\s+[^.;,!?]{{1,40}}?)?\s+{_BE}{_DONE}"
        rf"{_ADVERB}{_HANDLED}\b"
        rf"|\b(?:requested|initiated|submitted|placed|filed|logged|registered|created|opened|"
        rf"started|processed|set\s+up|arranged)\s+(?:an?\s+|the\s+|your\s+)?{noun}\b"
        rf"|\b(?:pending|open|existing|active)\s+{noun}(?:\s+request)?\b|\b{noun}\s+request\b"
    )


STATUS_FORMS: dict[str, re.Pattern[str]] = {
    "cancelled": re.compile(r"\bcancell?ed\b"),
    "return requested": re.compile(_request("return")),
    "exchange requested": re.compile(_request("exchange")),
    "pending (item modified)": re.compile(
        rf"\bitems?\s+(?:has\s+|have\s+|were\s+|was\s+)?{_DONE}(?:modified|changed)\b"
        r"|\bitems?\b[^.;,?!]{0,40}?\b(?:were|was|has\s+been|have\s+been)\s+(?:already\s+)?"
        r"(?:modified|changed)\b|\bmodified\s+items?\b"
    ),
}
"""Surface forms of the statuses a handled request leaves (matched on folded text)."""

Claim = tuple[re.Pattern[str], str, str]
"""A claim form: its pattern, the value of ``v′`` it names, and the mention's label."""

REFUND = re.compile(
    r"\brefund\b[^.;!?]{0,40}?\b(?:has\s+been|have\s+been|was|were|is\s+being|is|will\s+be|"
    r"should\s+be|'s\s+been)\s+(?:fully\s+|successfully\s+)?(?:issued|processed|initiated|sent|"
    r"credited|applied|returned|posted|made|completed?|on\s+(?:its|the)\s+way|back)\b"
    r"|\b(?:has|have|had|was|were|been|be|get|gets|got|getting)\s+(?:fully\s+)?refunded\b"
    r"|\brefunded\s+(?:to|back|in\s+full|the|you|your|\$|\d)"
    r"|\b(?:credited|returned|refunded|sent|go(?:es|ne)?|went|going)\s+back\s+(?:to|on|onto)\b"
    r"|\brefund\s+(?:of|for)\s+(?:the\s+)?\$?\d"
    r"|\b(?:issued|processed|initiated|sent|applied)\s+(?:an?\s+|the\s+|your\s+)?(?:full\s+)?"
    r"refund\b"
    r"|\b(?:your\s+)?money\s+(?:back|will\s+be\s+returned|has\s+been\s+returned)\b"
)
"""A refund said to have happened or to be on its way (folded text)."""

QUESTION = re.compile(r"^\s*(?:was|is|has|had|did|does|were|have|are|do)\b[^?]*\?\s*$")
"""A yes/no question about the record ("Was order #W… cancelled?"): it asks, not states."""

CLAUSE = re.compile(r"[,;.:!?]\s|\s(?:but|although|though|however)\s")
NEGATED = re.compile(r"\b(?:no|not|never|without|nothing|neither|nor)\b|n't\b")


CONFIRM = re.compile(
    r"\b(?:shall\s+i|should\s+i|(?:ok(?:ay)?|alright|all\s+right)\s+to|proceed|go\s+ahead|"
    r"(?:do\s+you|can\s+you|please)\s+confirm)\b[^?]*\?"
)
"""A request for the go-ahead: what the message said before it describes a planned action
and its expected effect ("…; the refund goes back to your card. Shall I proceed?")."""


def claims(
    unit: Unit,
    pattern: re.Pattern[str],
    value: str,
    label: str,
    taken: list[tuple[int, int]],
    *,
    effect: bool = False,
) -> list[ValueMention]:
    """Mentions of ``v′`` (``value``) where ``pattern`` states it in ``unit``, outside the
    ``taken`` spans (mentions already found, tool names). ``effect``: the claim is the
    effect of the agent's own write, which a message asking for the go-ahead only plans."""
    text = fold(unit.text)
    if QUESTION.match(text) or (effect and occurs(CONFIRM, fold(unit.message))):
        return []
    if text.rstrip().endswith("?") and ACTION_REQUEST.search(text):
        return []  # an offer: "Would you like the refund to go to your gift card?"
    out: list[ValueMention] = []
    for m in pattern.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        clause = CLAUSE.split(text[: m.start()])[-1]
        if PLAN.search(clause):
            continue  # "I'll submit a return request": the agent's plan
        if NEGATED.search(clause[-30:] + m.group(0)):
            continue  # "no refund was issued", "it hasn't been refunded"
        mention = Mention(value, m.start(), m.end(), "full")
        out.append(ValueMention(mention, "v_prime", label))
    return out
