"""Text handling for candidate extraction: clauses, value renderings, stance markers."""

from __future__ import annotations

import re
from datetime import date

_CLAUSE = re.compile(r"(?<=[.!?])\s+|;\s+|\n+")

REFUTE_MARKERS = (
    "cannot be right",
    "can't be right",
    "not right",
    "incorrect",
    "inconsistent",
    "does not show",
    "doesn't show",
    "not gone through",
    "did not go through",
    "didn't go through",
    "wrong",
    "mismatch",
    "discrepancy",
    "not what the record says",
    "contradict",
    "does not match",
    "doesn't match",
    "not match",
    "error in the record",
    "seems off",
    "looks off",
    "not possible",
    "impossible",
)
VERIFY_MARKERS = (
    "could you confirm",
    "can you confirm",
    "please confirm",
    "is that correct",
    "verify",
    "double-check",
)
HEDGE_MARKERS = (
    "i think",
    "not sure",
    "i believe",
    "probably",
    "might be",
    "may be",
    "maybe",
    "seems to",
    "it looks like",
    "if i'm not mistaken",
    "i'm not certain",
    "appears to",
)
# A negation up to two words before a value: "not a travel certificate", "rather than May 18".
_NEGATED = re.compile(r"\b(?:not|isn't|never|rather than|instead of|no longer)\s+(?:\S+\s+){0,2}$")


def clauses(text: str) -> list[str]:
    """Split a message into clauses (sentences and ``;``-separated parts)."""
    return [c for c in _CLAUSE.split(text) if c.strip()]


def has_marker(clause: str, markers: tuple[str, ...]) -> bool:
    """Case-insensitive marker search."""
    lower = clause.lower()
    return any(m in lower for m in markers)


def renderings(value: object) -> set[str]:
    """Lower-case strings under which a value may appear in text."""
    if value is None:
        return {"none", "null"}

    text = str(value)
    out = {text.lower()}
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        d = date.fromisoformat(text)
        month = d.strftime("%B")
        out |= {f"{month} {d.day}".lower(), f"{month[:3]} {d.day}".lower(), f"{d.month}/{d.day}"}
        suffix = "th" if 11 <= d.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
        out |= {f"{month} {d.day}{suffix}".lower()}
    if "_" in text:
        out.add(text.replace("_", " ").lower())
    if text == "certificate":
        out.add("travel certificate")
    return out


def mentions(clause: str, forms: set[str], *, affirmed: bool = False) -> bool:
    """True when any rendering occurs in the clause as a whole word or token.

    With ``affirmed``, an occurrence directly negated ("not a travel certificate",
    "rather than May 18") does not count.
    """
    lower = clause.lower()
    for form in forms:
        for match in re.finditer(re.escape(form), lower):
            before = lower[match.start() - 1] if match.start() > 0 else " "
            after = lower[match.end()] if match.end() < len(lower) else " "
            if (before.isalnum() or before == "_") or (after.isalnum() or after == "_"):
                continue
            if affirmed and _NEGATED.search(lower[max(0, match.start() - 40) : match.start()]):
                continue
            return True
    return False
