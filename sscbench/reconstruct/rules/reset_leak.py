"""ResetLeak: an order's status as the stale cache showed it, in the words agents use.

The fact is a status, and a status is said in many ways: "cancelled" is also "canceled",
"has been cancelled", "shows as cancelled", "looks like it was cancelled"; "return requested"
is also "a return has already been requested", "there is a pending return request";
"pending (item modified)" is "its items were already modified". These rules add those forms
to the defect-class rules (which already skip a tool's name and the arguments of a planned
write, where a status word names the request, not the order). Whether a mention is a use —
asserted, or quoted only to be questioned, flagged or denied ("it shows as cancelled, but I
won't rely on that") — is the shared stance machinery's decision, as for every operator.
A planned action ("I will cancel the order") is not a statement about the order's status.
"""

from __future__ import annotations

import dataclasses
import re

from sscbench.reconstruct.detector import FactModel, ValueMention
from sscbench.reconstruct.rules.base import USE_RULES, RunView
from sscbench.reconstruct.rules.effect_claims import QUESTION, STATUS_FORMS, Claim
from sscbench.reconstruct.rules.tool_defects import ToolDefectRules
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.values import fold

STATUSES = (
    "pending",
    "processed",
    "delivered",
    "cancelled",
    "return requested",
    "exchange requested",
    "pending (item modified)",
)
"""The statuses a retail order shows."""


class ResetLeakRules(ToolDefectRules):
    """Defect-class rules, plus the ways a handled status is said."""

    effect = False  # the stale status is a read's, not the effect of the agent's write

    inputs = ToolDefectRules.inputs
    """The generic model's: what this rule set adds comes from the contract alone."""

    def claim_form(self, view: RunView) -> Claim | None:
        """The forms of the handled status ``v′``."""
        status = str(view.contract.injected_value)
        pattern = STATUS_FORMS.get(status)
        return None if pattern is None else (pattern, status, "status")

    def model(self, view: RunView, step: int) -> FactModel:
        """The defect-class model with the status forms; "pending" inside "pending (item
        modified)" is not ``v``, and a yes/no question states no status."""
        base = super().model(view, step)
        if self.claim_form(view) is None:
            return base
        true = str(view.contract.authoritative_value)
        longer = [re.escape(fold(s)) for s in STATUSES if s != true and true in s]
        wider = re.compile("|".join(longer)) if longer else None

        def find(unit: Unit) -> list[ValueMention]:
            text = fold(unit.text)
            found = base.find(unit)
            if wider is not None:
                spans = [(m.start(), m.end()) for m in wider.finditer(text)]
                found = [
                    vm
                    for vm in found
                    if vm.which != "v" or not any(a <= vm.mention.start < b for a, b in spans)
                ]
            if QUESTION.match(text):
                return [vm for vm in found if vm.which != "v_prime"]
            return found

        return dataclasses.replace(base, find=find)


USE_RULES.add("reset_leak", ResetLeakRules)
