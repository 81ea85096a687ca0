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
from functools import cache, lru_cache
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
from sscbench.reconstruct.rules.effect_claims import CONFIRM, Claim, claims
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.stance import PLAN
from sscbench.reconstruct.values import Mention, fold, occurs
from sscbench.records.events import AgentToolCall

PAID = re.compile(r"\b(?:paid|non[\s-]?free|extra|fees?|charged)\b")
BAG_CUES: dict[str, tuple[re.Pattern[str], re.Pattern[str] | None]] = {
    "total_baggages": (re.compile(r"\b(?:bags?|baggage|luggage|suitcases?|checked)\b"), PAID),
    "nonfree_baggages": (PAID, None),
}
"""A bag count is a small number: the generic rules count it only beside its field's name.
People say "2 checked bags" or "no paid bags"; a count counts beside its own noun, with the
words that qualify that noun (paid, extra: the non-free count; otherwise the total). Said
apart from its noun, it counts in a unit with its own words and (for the total) none of the
other's."""


class ToolDefectRules(GenericRules):
    """Generic value rules; a repeat of the logical request carries no use."""

    effect = True
    """``v′`` is the claimed effect of a write: a message that plans a write and asks for the
    go-ahead ("I'll update your address to …, 77034. Shall I proceed?") names values it
    asks for, not the record's (ResetLeak's ``v′`` is a read's, so it says False)."""

    inputs = GenericRules.inputs
    """The generic model's: what this rule set adds comes from the contract alone."""

    def claim_form(self, view: RunView) -> Claim | None:
        """The words agents use for ``v′`` beyond its value (a handled status, a refund):
        (pattern, the value it names, its label), or ``None`` (the value rules only)."""
        return None

    def model(self, view: RunView, step: int) -> FactModel:
        """The generic model, without mentions inside a tool's name, plus the claim form's
        mentions (:mod:`~sscbench.reconstruct.rules.effect_claims`)."""
        generic = super().model(view, step)
        kinds = tool_kinds(view.contract.domain)
        names, folded_names = _tool_name_patterns(view.contract.domain)
        writes = [n for n, kind in kinds.items() if kind == "write"]
        leaves = self._leaves(view)
        claim = self.claim_form(view)
        effect = self.effect  # the model is shared across runs: it holds no rule set

        def find(unit: Unit) -> list[ValueMention]:
            if unit.kind == "field" and any(w in " ".join(unit.scope) for w in writes):
                return []  # a leaf of a planned write's arguments
            spans = [(m.start(), m.end()) for m in names.finditer(unit.text)]
            spans += [_arguments_after(unit.text, end) for _, end in spans]
            plain = generic.find(unit)
            found = plain + _bag_counts(unit, leaves, plain)
            if occurs(PLAN, fold(unit.text)):  # "I will change the address to …": a request
                found = [vm for vm in found if vm.which != "v_prime"]
            if effect and _plans_a_write(unit, names):
                return []  # values the planned write asks for, true or claimed
            kept = [vm for vm in found if not any(a <= vm.mention.start < b for a, b in spans)]
            if claim is None:
                return kept
            pattern, value, label = claim
            taken = [(vm.mention.start, vm.mention.end) for vm in kept]
            taken += [(m.start(), m.end()) for m in folded_names.finditer(fold(unit.text))]
            return kept + claims(unit, pattern, value, label, taken, effect=effect)

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


_BARE = re.compile(
    r"\b(?:\d+|"
    + "|".join(w for w in NUMBER_WORDS if " " not in w and w not in ("a", "no"))
    + r")\b"
)
"""A count on its own, in digits or words ("a" and "no" only count beside a noun)."""


def _count(raw: str, start: int, end: int, label: str, v: Any, vp: Any) -> list[ValueMention]:
    """The mentions a count read at ``[start, end)`` makes: of ``v′`` or of ``v``, when it
    equals one of them."""
    count = int(raw) if raw.isdigit() else NUMBER_WORDS[raw]
    return [
        ValueMention(
            Mention(str(value), start, end, "full"), which, label, needs_binding=which == "v"
        )
        for which, value in value_pairs(vp, v)
        if value is not None and not (which == "v" and value == vp) and value == count
    ]


def _bag_counts(
    unit: Unit, leaves: list[tuple[str, Any, Any]], found: list[ValueMention]
) -> list[ValueMention]:
    """Bag counts the generic rules missed for want of the field's name in the unit: each
    count read with the words that qualify its own noun, so "three checked bags, no paid
    bags" gives the total 3 and the paid 0 (in digits or in words); failing that, a count
    said apart from its noun ("Checked bags | 2") in a unit about that count alone."""
    out: list[ValueMention] = []
    text = fold(unit.text)
    for path, v, vp in leaves:
        field = path.rsplit(".", 1)[-1]
        label = field.replace("_", " ")
        if field not in BAG_CUES or any(vm.label == label for vm in found):
            continue
        counts = [
            vm
            for m in _COUNT.finditer(text)
            if (PAID.search(m.group("words")) is not None) == (field == "nonfree_baggages")
            for vm in _count(m.group("n"), m.start("n"), m.end("n"), label, v, vp)
        ]
        own, other = BAG_CUES[field]
        if not counts and own.search(text) and not (other is not None and other.search(text)):
            counts = [
                vm
                for m in _BARE.finditer(text)
                for vm in _count(m.group(0), m.start(), m.end(), label, v, vp)
            ]
        out += counts
    return out


@cache
def _tool_name_patterns(domain: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The domain's tool names as one pattern, on the text and on folded text."""
    kinds = tool_kinds(domain)
    names = re.compile("|".join(re.escape(n) for n in sorted(kinds)))
    folded_names = re.compile("|".join(re.escape(fold(n)) for n in sorted(kinds)))
    return names, folded_names


def _plans_a_write(unit: Unit, names: re.Pattern[str]) -> bool:
    """Whether the unit's message plans a write and asks for the go-ahead."""
    return _message_plans_a_write(unit.message, names)


@lru_cache(maxsize=1 << 12)  # asked for every unit of the message
def _message_plans_a_write(text: str, names: re.Pattern[str]) -> bool:
    message = fold(text)
    return CONFIRM.search(message) is not None and (
        PLAN.search(message) is not None or names.search(text) is not None
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
