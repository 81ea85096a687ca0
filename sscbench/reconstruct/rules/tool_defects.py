"""Defect-class operators (PartialEffect, IgnoredArgument, UnenforcedPrecondition,
InvariantBreak): the generic value rules, plus what they cannot know — a repeat of the
defective request is a repair, not a use.

The claimed fields are values like any other (``v′`` as the success reply showed them,
``v`` as the record holds them), so the generic rules find them in text. But when the agent
sends the same request again after a read-back showed the defect, its arguments restate
the request (bag counts that may equal the claimed value of another field, the same reason
or zip): that is an attempt to make the claim true, as WriteEffect's rules treat a retry.
Two more spans of text state nothing about the fact: a tool's name (a status is also a
word of ``return_delivered_order_items``), and the arguments of a planned write ("I will
call cancel_pending_order with {...}", or in other words "I'll change the address to …") —
new values the agent asks for, possibly of another record, not beliefs about this one.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from sscbench.envs.environment import tool_kinds
from sscbench.fault_contracts.history import arguments_match
from sscbench.reconstruct.detector import FactModel, Use, ValueMention
from sscbench.reconstruct.rules.base import (
    USE_RULES,
    GenericRules,
    RunView,
    value_pairs,
)
from sscbench.reconstruct.rules.effect_claims import CONFIRM
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.stance import PLAN
from sscbench.reconstruct.values import Mention, fold
from sscbench.records.events import AgentToolCall

PAID = re.compile(r"\b(?:paid|non[\s-]?free|extra|fees?|charged)\b")
BAG_CUES = ("total_baggages", "nonfree_baggages")
"""A bag count is a small number: the generic rules count it only beside its field's name.
People say "2 checked bags" or "no paid bags"; a count counts beside its own noun, with the
words that qualify that noun (paid, extra: the non-free count; otherwise the total)."""


class ToolDefectRules(GenericRules):
    """Generic value rules; a repeat of the logical request carries no use."""

    effect = True
    """``v′`` is the claimed effect of a write: a message that plans a write and asks for the
    go-ahead ("I'll update your address to …, 77034. Shall I proceed?") names values it
    asks for, not the record's (ResetLeak's ``v′`` is a read's, so it says False)."""

    def model(self, view: RunView, step: int) -> FactModel:
        """The generic model, without mentions inside a tool's name."""
        generic = super().model(view, step)
        names = re.compile("|".join(re.escape(n) for n in sorted(tool_kinds(view.contract.domain))))

        writes = [n for n, kind in tool_kinds(view.contract.domain).items() if kind == "write"]

        leaves = self._leaves(view)

        def find(unit: Unit) -> list[ValueMention]:
            if unit.kind == "field" and any(w in " ".join(unit.scope) for w in writes):
                return []  # a leaf of a planned write's arguments
            spans = [(m.start(), m.end()) for m in names.finditer(unit.text)]
            spans += [_arguments_after(unit.text, end) for _, end in spans]
            found = generic.find(unit) + _bag_counts(unit, leaves, generic.find(unit))
            if PLAN.search(fold(unit.text)):  # "I will change the address to …": a request
                found = [vm for vm in found if vm.which != "v_prime"]
            if self.effect and _plans_a_write(unit, names):
                return []  # values the planned write asks for, true or claimed
            return [vm for vm in found if not any(a <= vm.mention.start < b for a, b in spans)]

        return dataclasses.replace(generic, find=find)

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """No use in a repeat of the request the defect answered; otherwise generic."""
        request = view.contract.target.logical_request or {}
        if call.name == request.get("tool") and arguments_match(
            call.arguments, request.get("match") or {}
        ):
            return []
        return super().call(view, call)


NUMBER_WORDS = {
    "no": 0, "zero": 0, "one": 1, "a": 1, "a single": 1, "two": 2, "three": 3, "four": 4,
    "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_COUNT = re.compile(
    r"\b(?P<n>\d+|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")\b"
    r"(?P<words>(?:\s+[a-z-]+){0,2}?)\s+(?:bags?|baggage|luggage|suitcases?)\b"
)
"""A count and the bag noun it counts ("3 checked bags", "three bags", "no paid bags")."""


def _bag_counts(
    unit: Unit, leaves: list[tuple[str, Any, Any]], found: list[ValueMention]
) -> list[ValueMention]:
    """Bag counts the generic rules missed for want of the field's name in the unit: each
    count read with the words that qualify its own noun, so "three checked bags, no paid
    bags" gives the total 3 and the paid 0 (in digits or in words)."""
    out: list[ValueMention] = []
    text = fold(unit.text)
    for path, v, vp in leaves:
        field = path.rsplit(".", 1)[-1]
        label = field.replace("_", " ")
        if field not in BAG_CUES or any(vm.label == label for vm in found):
            continue
        before = len(out)
        for m in _COUNT.finditer(text):
            paid = PAID.search(m.group("words")) is not None
            if paid != (field == "nonfree_baggages"):
                continue
            raw = m.group("n")
            count = int(raw) if raw.isdigit() else NUMBER_WORDS[raw]
            for which, value in value_pairs(vp, v):
                if value is None or (which == "v" and value == vp) or value != count:
                    continue
                mention = Mention(str(value), m.start("n"), m.end("n"), "full")
                out.append(ValueMention(mention, which, label, needs_binding=which == "v"))
        if len(out) == before:
            out += _unit_counts(text, field, label, v, vp)
    return out


OWN_CUES: dict[str, tuple[re.Pattern[str], re.Pattern[str] | None]] = {
    "total_baggages": (re.compile(r"\b(?:bags?|baggage|luggage|suitcases?|checked)\b"), PAID),
    "nonfree_baggages": (PAID, None),
}
"""A unit about one count: its own words, and (for the total) none of the other's."""


def _unit_counts(text: str, field: str, label: str, v: Any, vp: Any) -> list[ValueMention]:
    """A count said apart from its noun ("Checked bags | 2", "the number of paid bags
    should be two") in a unit about that count alone."""
    own, other = OWN_CUES[field]
    if not own.search(text) or (other is not None and other.search(text)):
        return []
    out: list[ValueMention] = []
    words = "|".join(w for w in NUMBER_WORDS if " " not in w and w not in ("a", "no"))
    for m in re.finditer(rf"\b(?:\d+|{words})\b", text):
        raw = m.group(0)
        count = int(raw) if raw.isdigit() else NUMBER_WORDS[raw]
        for which, value in value_pairs(vp, v):
            if value is None or (which == "v" and value == vp) or value != count:
                continue
            mention = Mention(str(value), m.start(), m.end(), "full")
            out.append(ValueMention(mention, which, label, needs_binding=which == "v"))
    return out


def _plans_a_write(unit: Unit, names: re.Pattern[str]) -> bool:
    """Whether the unit's message plans a write and asks for the go-ahead."""
    message = fold(unit.message)
    return CONFIRM.search(message) is not None and (
        PLAN.search(message) is not None or names.search(unit.message) is not None
    )


def _arguments_after(text: str, start: int) -> tuple[int, int]:
    """The span of the JSON object that follows a tool's name, when the next non-space text
    is "with {" (an empty span otherwise)."""
    m = re.compile(r"\s+with\s+\{").match(text, start)
    if m is None:
        return (start, start)
    depth = 0
    for i in range(m.end() - 1, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return (m.end() - 1, i + 1)
    return (m.end() - 1, len(text))


for _name in ("ignored_argument", "unenforced_precondition", "invariant_break"):
    USE_RULES.add(_name, ToolDefectRules)
