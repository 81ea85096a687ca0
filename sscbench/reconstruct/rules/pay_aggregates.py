"""PaySource uses through aggregates: counts and totals of a category's methods.

An agent asked "what do my gift cards add up to?" rarely names each card: it sums balances
with ``calculate`` ("198 + 129 + 250") or says "$577 across 3 gift cards". Which methods it
counted depends on the category it believes the target method has, so a count or total
that only the injected category explains is reliance on it (and one only the true category
explains is a use of the true value). Nothing is attributed when both readings give the
same figure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sscbench.reconstruct.detector import ValueMention, Which
from sscbench.reconstruct.values import Mention, find_category, find_money, fold, money_key

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_COUNT = re.compile(
    r"\b(?P<n>\d|one|two|three|four|five|six)\s+(?:(?:active|valid|separate|different|"
    r"stored|saved|travel)\s+)?(?P<noun>gift[\s-]?cards?|certificates?|vouchers?|cards|certs)\b"
)
_HOLDING = re.compile(
    r"\b(?:(?:you|u)\s+(?:have|hold|own|'ve\s+got|have\s+got|still\s+have)|on\s+(?:file|your\s+"
    r"(?:profile|account))|in\s+your\s+(?:profile|account|wallet)|saved|stored|there\s+are|"
    r"across|(?:all|each|both)\s+(?:of\s+)?your)\b|\(\s*\d\s+\w+\s*\)"
)
"""The count is of the methods the customer holds, not a rule ("one certificate per …")."""
_LIMIT_BEFORE = re.compile(r"\b(?:only|at\s+most|up\s+to|max\w*(?:\s+of)?|no\s+more\s+than)\s+$")
_LIMIT_AFTER = re.compile(
    r"^[^.;!?]{0,30}\b(?:per\s+(?:reservation|booking|trip|order|flight)|(?:can|may|could)"
    r"(?:\s+only)?\s+be\s+(?:used|applied|combined|redeemed)|(?:is|are)\s+(?:allowed|permitted))\b"
)
_TOTAL = re.compile(
    r"\b(?:total\w*|combined|altogether|in\s+all|sum|together|overall|add(?:s|ing)?\s+up|"
    r"comes?\s+to|across)\b|="
)
_TERM = re.compile(r"\d+(?:\.\d+)?")
_READINGS: tuple[Which, Which] = ("v_prime", "v")
_SUM = re.compile(r"^[\s\d.+()]+$")


class Readings:
    """The amounts of each category's methods under both readings of the target's category."""

    def __init__(
        self, methods: Mapping[str, Mapping[str, Any]], pid: str, v: str, v_prime: str
    ) -> None:
        self.categories = (v_prime, v)
        self.amounts: dict[Which, dict[str, list[float]]] = {}
        for which, category in zip(_READINGS, (v_prime, v), strict=True):
            groups: dict[str, list[float]] = {}
            for other, method in methods.items():
                source = category if other == pid else str(method.get("source"))
                amount = method.get("amount")
                if isinstance(amount, int | float) and source in self.categories:
                    groups.setdefault(source, []).append(float(amount))
            self.amounts[which] = {k: sorted(a) for k, a in groups.items()}
        self.usable = pid in methods and isinstance(methods[pid].get("amount"), int | float)

    def _which(self, category: str, value: Any, of: str) -> Which | None:
        """Which reading gives ``value`` for the category's count or total (``of``)."""
        figures: dict[Which, Any] = {}
        for which in _READINGS:
            amounts = self.amounts[which].get(category, [])
            if of == "count":
                figures[which] = len(amounts)
            else:  # a "total" of one method is just its balance: not a figure of the category
                figures[which] = money_key(sum(amounts)) if len(amounts) >= 2 else None
        if figures["v_prime"] == figures["v"]:
            return None
        return next(
            (
                which
                for which in _READINGS
                if figures[which] is not None and figures[which] == value
            ),
            None,
        )

    def of_sum(self, expression: str) -> Which | None:
        """The reading whose category members are exactly the terms of a sum."""
        if not self.usable or not _SUM.match(expression) or "+" not in expression:
            return None
        terms = sorted(float(t) for t in _TERM.findall(expression))
        for category in self.categories:
            matches = [w for w in _READINGS if self.amounts[w].get(category, []) == terms]
            if len(matches) == 1:
                return matches[0]
        return None

    def in_unit(self, text: str) -> list[ValueMention]:
        """Counts ("3 gift cards") and totals ("gift cards total: $577") of one category in
        a unit's text (payment ids already masked: an id's prefix is not a category word)."""
        if not self.usable:
            return []
        low = fold(text)
        categories = [c for c in self.categories if find_category(low, c)]
        if len(categories) != 1:
            return []  # no category, or both: the figures cannot be told apart
        category = categories[0]
        found: list[ValueMention] = []
        counts = _HOLDING.search(low) is not None
        for m in _COUNT.finditer(low) if counts else ():
            if _LIMIT_BEFORE.search(low[: m.start()]) or _LIMIT_AFTER.search(low[m.end() :]):
                continue  # a rule ("one certificate per reservation"), not a count
            n = int(m["n"]) if m["n"].isdigit() else _NUMBER_WORDS[m["n"]]
            which = self._which(category, n, "count")
            if which is not None:
                found.append(_mention(m.start(), m.end(), low, which, f"number of {category}s"))
        if _TOTAL.search(low):
            for money in find_money(low):
                which = self._which(category, money.value, "total")
                if which is not None:
                    found.append(
                        _mention(money.start, money.end, low, which, f"total of {category}s")
                    )
        return found


def _mention(start: int, end: int, low: str, which: Which, what: str) -> ValueMention:
    return ValueMention(
        Mention(low[start:end], start, end, "derived"),
        which,
        f"{what} (from the category)",
        bound="target",
        decisive=False,
    )
