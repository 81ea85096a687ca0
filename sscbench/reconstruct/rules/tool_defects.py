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
    find_scalar,
    value_pairs,
)
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.stance import PLAN
from sscbench.reconstruct.values import fold
from sscbench.records.events import AgentToolCall

PAID = re.compile(r"\b(?:paid|non[\s-]?free|extra|fees?|charged)\b")
BAG_CUES: dict[str, tuple[re.Pattern[str], re.Pattern[str] | None]] = {
    "total_baggages": (re.compile(r"\b(?:bags?|baggage|luggage|suitcases?|checked)\b"), PAID),
    "nonfree_baggages": (PAID, None),
}
"""A bag count is a small number: the generic rules count it only beside its field's name.
People say "2 checked bags" or "0 paid bags"; a count counts beside its own words and not
beside the other count's (a unit about paid bags is not about the total)."""


class ToolDefectRules(GenericRules):
    """Generic value rules; a repeat of the logical request carries no use."""

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


def _bag_counts(
    unit: Unit, leaves: list[tuple[str, Any, Any]], found: list[ValueMention]
) -> list[ValueMention]:
    """Bag counts the generic rules missed for want of the field's name in the unit."""
    out: list[ValueMention] = []
    text = fold(unit.text)
    for path, v, vp in leaves:
        field = path.rsplit(".", 1)[-1]
        label = field.replace("_", " ")
        cues = BAG_CUES.get(field)
        if cues is None or any(vm.label == label for vm in found):
            continue
        own, other = cues
        if not own.search(text) or (other is not None and other.search(text)):
            continue
        for which, value in value_pairs(vp, v):
            if value is None or (which == "v" and value == vp):
                continue
            for m in find_scalar(unit.text, value, 2024):
                out.append(ValueMention(m, which, label, needs_binding=which == "v"))
    return out


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
