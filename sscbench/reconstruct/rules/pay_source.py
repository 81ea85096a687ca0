"""PaySource uses: stating a payment method's category; paying where the category decides.

The category shows as "gift card(s)", "certificate(s)", "travel voucher", a JSON ``type``
field, … — never inside the method's own identifier (``gift_card_7815826`` names the
method, it does not state its category here, so identifiers are masked before the search).
It is tied to the method by its id, its balance ("the $150 certificate"), "ending in 1234",
the list it sits in, or the focus. A plural ("your certificates") speaks of this method only
when it singles it out: the id listed right after it, a count or sum only one reading of the
category explains, or no other method on file carrying that category; a plural in a plan
("use your gift cards first") beside other methods of the class is not a use of any one of
them. Paying a change with the method is a use when exactly one of the two categories forbids
it (certificates cannot pay for changes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sscbench.reconstruct.binding import PAYMENT_ID as BINDING_PAYMENT_ID
from sscbench.reconstruct.binding import Binding, RefIndex
from sscbench.reconstruct.detector import FactModel, Use, ValueMention, Which, call_use
from sscbench.reconstruct.rules.base import USE_RULES, RunView, UseRules, record_phrase
from sscbench.reconstruct.rules.base import value_pairs as _pairs
from sscbench.reconstruct.rules.pay_aggregates import Readings
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.values import Mention, find_category, fold
from sscbench.records.events import AgentToolCall

UPDATE_TOOLS = ("update_reservation_flights", "update_reservation_baggages")
PAYMENT_ID = re.compile(
    r"\b(?P<prefix>credit[\s-]?card|gift[\s-]?card|certificate|paypal|gc|certs?|cc)"
    r"[\s#-]?(?P<digits>\d{4,})",
    re.IGNORECASE,
)
"""A method's identifier, whole or clipped ("gift card 8190333", "GC 4856383")."""
_PREFIX = {"credit": "credit_card", "cc": "credit_card", "gift": "gift_card", "gc": "gift_card"}


DEFINITE = re.compile(
    r"\b(?:the|your|this|that|these|those|both|its|his|her|their|my|our|each\s+of\s+your|"
    r"all\s+(?:of\s+)?(?:your|the)|(?:one|two|three|four|\d)\s+(?:of\s+your\s+)?)\s+"
    r"(?:[\w$.,-]+\s+){0,2}$"
)
"""A determiner that points at methods on file ("your certificate", "the $150 voucher")."""
PREDICATIVE = re.compile(
    r"(?:(?:\b(?:is|are|was|were|be|as|being|remains?|listed|shows?\s+up|counts?)|'s|'re)\s+"
    r"(?:(?:a|an|the)\s+)?(?:\w+\s+)?|:\s*[\"']?\s*|\b(?:type|kind|category|source)\s+"
    r"(?:is\s+)?)$"
)
"""A category said *of* something: "X is a gift card", "listed as certificate", "type: …"."""
APPLIED = re.compile(
    r"\b(?:here|on\s+file|in\s+your\s+(?:profile|account|wallet)|on\s+your\s+(?:profile|"
    r"account)|you\s+have|you\s+hold|available\s+to\s+you|for\s+(?:this|that|your)|"
    r"in\s+this\s+case)\b"
)
"""Words that apply a bare plural to this customer ("certificates aren't applicable here")."""


def _specific(text: str, start: int, end: int, plural: bool) -> bool:
    """Does the category mention refer to specific methods on file (not any method)?"""
    before = text[max(0, start - 40) : start]
    if DEFINITE.search(before) or PREDICATIVE.search(before):
        return True
    return plural and APPLIED.search(text) is not None


def _listed_after(text: str, original: str, end: int, pid: str) -> bool:
    """Is the method's id enumerated right after a plural mention (before any other
    category word)? ``text`` has ids masked, ``original`` (same offsets) has them."""
    rest = text[end : end + 160]
    at = original[end : end + 160].find(pid)
    if at < 0:
        return False
    return not any(
        m.start < at
        for cat in ("gift_card", "certificate", "credit_card")
        for m in find_category(rest, cat)
    )


def _heading(unit: Unit, pid: str, v: str, vp: str) -> list[ValueMention]:
    """A list item naming the method under a heading that names a category ("Gift cards:
    - gift_card_…"): the heading states the category of what it lists."""
    low = fold(unit.text)
    at = low.find(fold(pid))
    if at < 0 or not unit.scope:
        return []
    heading = masked(unit.scope[-1])
    out = []
    for which, category in _pairs(vp, v):
        if which == "v" and category == vp:
            continue
        if find_category(heading, category):
            mention = Mention(category, at, at + len(pid), "derived")
            out.append(
                ValueMention(
                    mention, which, f"category of {pid} (from its heading)", bound="target"
                )
            )
    return out[:1]


ISSUE = re.compile(r"\b(?:issu\w*|compensat\w*|goodwill|gesture)\b")
"""Compensation talk: the certificate in question is one to be issued."""


PAY_CUE = re.compile(
    r"\b(?:choose|select|use|using|pay\w*\s+(?:with|by|using|for)|charg\w*|"
    r"refund\w*\s+(?:to|will|would|goes|go)|to\s+be\s+(?:charged|used)|cover\w*)\b"
)
"""A choice of method for a payment (a list of stored methods is not one)."""
CHANGE_CUE = re.compile(
    r"\b(?:chang\w*|modif\w*|upgrad\w*|downgrad\w*|rebook\w*|fare\s+difference|"
    r"price\s+difference|cabin|baggage|bags?)\b"
)
"""Paying for a *change*: the one payment where the category decides (no certificates)."""
BOOKING_CUE = re.compile(
    r"\b(?:book\w*|new\s+reservation|purchas\w*|new\s+(?:one[\s-]way|round[\s-]trip)|"
    r"new\s+ticket)\b"
)
"""A new booking, where any category may pay."""


def payment_methods(view: RunView, step: int) -> dict[str, dict[str, Any]]:
    """Every payment method of every user record delivered before ``step`` (latest view)."""
    out: dict[str, dict[str, Any]] = {}
    for _, data in view.records(step, "get_user_details"):
        methods = data.get("payment_methods") if isinstance(data, dict) else None
        if isinstance(methods, dict):
            for pid, method in methods.items():
                if isinstance(method, dict):
                    out[pid] = method
    return out


def _prefix_category(prefix: str) -> str:
    word = fold(prefix).split()[0] if " " in fold(prefix) else fold(prefix)
    return _PREFIX.get(word, "certificate" if word.startswith("cert") else word)


def masked(text: str, prefixes: Mapping[str, str] | None = None) -> str:
    """``text`` with payment identifiers blanked out (same length). An id re-typed with a
    category word other than its own ("GC 4856383" for ``certificate_4856383``, given
    ``prefixes``: digits → category) keeps the word: the agent states that category."""
    folded = fold(text)

    def blank(m: re.Match[str]) -> str:
        own = (prefixes or {}).get(m["digits"])
        if own is not None and _prefix_category(m["prefix"]) != own:
            return m.group(0)[: m.start("digits") - m.start()] + " " * len(m["digits"])
        return " " * len(m.group(0))

    return PAYMENT_ID.sub(blank, folded)


class PaySourceRules(UseRules):
    """The category of one payment method."""

    def model(self, view: RunView, step: int) -> FactModel:
        """References: method ids, balances, card endings; values: the two categories."""
        c = view.contract
        pid = c.refutation.params["payment_id"]
        methods = payment_methods(view, step)
        lexicon: dict[str, set[str]] = {pid: {pid}}
        holders: dict[str, set[str]] = {}
        for other, method in methods.items():
            lexicon.setdefault(other, set()).add(other)
            amount = method.get("amount")
            if isinstance(amount, int | float):
                for form in (f"${amount:g}", f"${amount:,.2f}", f"${amount:.2f}"):
                    lexicon.setdefault(form, set()).add(other)
            last = method.get("last_four")
            if isinstance(last, str):
                for form in (f"ending in {last}", f"ending {last}", f"last four {last}"):
                    lexicon.setdefault(form, set()).add(other)
            holders.setdefault(str(method.get("source")), set()).add(other)
        v, vp = str(c.authoritative_value), str(c.injected_value)
        prefixes: dict[str, str] = {}
        for other in methods:
            category, _, digits = other.rpartition("_")
            if digits.isdigit() and len(digits) >= 4:
                prefixes[digits] = category
                lexicon.setdefault(digits, set()).add(other)  # "GC 4856383", "cert 7504069"
        index = RefIndex(lexicon, shapes=(BINDING_PAYMENT_ID,))
        readings = Readings(methods, pid, v, vp)

        def find(unit: Unit) -> list[ValueMention]:
            explicit = record_phrase(unit)
            bound: Binding | None = None
            if explicit is not None:
                if explicit["path"] != c.target.paths[0]:
                    return []
                bound = "target"
            text = masked(unit.text, prefixes)
            named = bound is not None or PAYMENT_ID.search(fold(unit.text)) is not None
            found = []
            for which, category in _pairs(vp, v):
                if which == "v" and category == vp:
                    continue
                for m in find_category(text, category):
                    plural = text[m.start : m.end].rstrip().endswith("s")
                    if not named and not _specific(text, m.start, m.end, plural):
                        continue  # a generic or hypothetical one, not a method on file
                    if not named and ISSUE.search(text):
                        continue  # a certificate to be issued as compensation
                    here = bound
                    if (
                        here is None
                        and plural
                        and _listed_after(text, fold(unit.text), m.end, fold(pid))
                    ):
                        here = "target"  # "three gift cards (…, gift_card_…, …)"
                    if (
                        here is None
                        and plural
                        and not named
                        and holders.get(category, set()) - {pid}
                    ):
                        # "use your gift cards first": a class the customer holds several
                        # of, named in a plan; it does not single this method out.
                        continue
                    found.append(
                        ValueMention(
                            m,
                            which,
                            f"category of {pid}",
                            bound=here,
                            plural=plural,
                            needs_binding=which == "v",
                        )
                    )
            if bound is None:
                found.extend(readings.in_unit(text))
            if not found and bound is None:
                found.extend(_heading(unit, pid, v, vp))
            if not found and bound is None:
                found.extend(self._choice(unit, pid, v, vp))
            return found

        return FactModel(
            target=pid,
            index=index,
            find=find,
            holders=lambda value: frozenset(holders.get(value, set())),
            label=f"category of {pid}",
        )

    def _choice(self, unit: Unit, pid: str, v: str, vp: str) -> list[ValueMention]:
        """Offering or planning the method to pay for a change: a use of its category when
        exactly one of the two categories may pay for changes (certificates may not)."""
        if (v == "certificate") == (vp == "certificate"):
            return []
        low = fold(unit.text)
        at = low.find(fold(pid))
        if at < 0 or not PAY_CUE.search(fold(unit.framed)):
            return []
        framed, message = fold(unit.framed), fold(unit.message or unit.framed)
        if BOOKING_CUE.search(framed):
            return []
        if not CHANGE_CUE.search(framed) and (
            not CHANGE_CUE.search(message) or BOOKING_CUE.search(message)
        ):
            return []
        which: Which = "v_prime" if v == "certificate" else "v"
        mention = Mention(pid, at, at + len(pid), "derived")
        return [
            ValueMention(
                mention,
                which,
                f"category of {pid} (chosen to pay a change)",
                bound="target",
            )
        ]

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """Paying a change with the method is a use when exactly one category forbids it."""
        c = view.contract
        pid = c.refutation.params["payment_id"]
        if call.name == "calculate":
            return self._sum(view, call, pid)
        if call.name not in UPDATE_TOOLS or call.arguments.get("payment_id") != pid:
            return []
        v, v_prime = c.authoritative_value, c.injected_value
        if (v == "certificate") == (v_prime == "certificate"):
            return []
        erroneous = v == "certificate"
        return [
            call_use(
                call.step,
                erroneous,
                f"pays {call.name} with {pid}, which only a "
                f"{v_prime if erroneous else v} would allow",
            )
        ]

    def _sum(self, view: RunView, call: AgentToolCall, pid: str) -> list[Use]:
        """A sum of exactly one category's balances under one reading of the category."""
        c = view.contract
        v, vp = str(c.authoritative_value), str(c.injected_value)
        readings = Readings(payment_methods(view, call.step), pid, v, vp)
        which = readings.of_sum(str(call.arguments.get("expression", "")))
        if which is None:
            return []
        erroneous = which == "v_prime"
        category = vp if which == "v_prime" else v
        return [
            call_use(
                call.step,
                erroneous,
                f"sums the {category} balances counting {pid} as a {category}",
            )
        ]


USE_RULES.add("pay_source", PaySourceRules)
