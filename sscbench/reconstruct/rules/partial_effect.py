"""PartialEffect: the defect-class rules, plus the words agents use for the effect the
success reply claimed — a handled request's status ("your exchange has been submitted") or
a refund ("you've been refunded to your gift card") — which the state never got.

A partial effect is seldom restated by its value: the reply's ``status: exchange
requested`` becomes "the exchange is being processed", its appended refund entry "the $567
went back to your card". These forms count as mentions of ``v′`` wherever the agent states
them (see :mod:`~sscbench.reconstruct.rules.effect_claims` for what is not a statement).
"""

from __future__ import annotations

from typing import Any

from sscbench.fault_contracts.contract import FaultContract
from sscbench.reconstruct.rules.base import USE_RULES, RunView
from sscbench.reconstruct.rules.effect_claims import REFUND, STATUS_FORMS, Claim
from sscbench.reconstruct.rules.tool_defects import ToolDefectRules


def _refunds(history: Any) -> int:
    """How many entries of a payment history send money back (a refund transaction, or a
    negative amount as airline records it)."""
    if not isinstance(history, list):
        return 0
    return sum(
        isinstance(e, dict)
        and (e.get("transaction_type") == "refund" or (e.get("amount") or 0) < 0)
        for e in history
    )


def effect_claim(contract: FaultContract) -> Claim | None:
    """The claim form of the effect the contract's success reply showed and the state
    lacks: (pattern, the value it names, its label), or ``None``."""
    claimed, actual = contract.injected_value, contract.authoritative_value
    if not isinstance(claimed, dict) or not isinstance(actual, dict):
        return None
    status = claimed.get("status")
    if isinstance(status, str) and status != actual.get("status") and status in STATUS_FORMS:
        return STATUS_FORMS[status], status, "status"
    history = claimed.get("payment_history")
    if _refunds(history) > _refunds(actual.get("payment_history")):
        return REFUND, "refund", "refund"
    return None


class PartialEffectRules(ToolDefectRules):
    """Defect-class rules, plus the ways the claimed effect is said."""

    def claim_form(self, view: RunView) -> Claim | None:
        """The claimed effect's usual forms."""
        return effect_claim(view.contract)


USE_RULES.add("partial_effect", PartialEffectRules)
