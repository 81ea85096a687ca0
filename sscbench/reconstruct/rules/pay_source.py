"""PaySource uses: stating a method's category; paying an update with it where the
category rule (no certificates for changes) separates ``v`` from ``v′``."""

from __future__ import annotations

from sscbench.reconstruct.rules.base import USE_RULES, Leaf, RunView, Use, UseRules
from sscbench.reconstruct.text import renderings
from sscbench.runs.events import AgentToolCall

UPDATE_TOOLS = ("update_reservation_flights", "update_reservation_baggages")


class PaySourceRules(UseRules):
    """The category of one payment method."""

    def leaves(self, view: RunView) -> list[Leaf]:
        """One leaf: the category near the method's identifier (the id itself scrubbed, as it
        contains its category)."""
        pid = view.contract.refutation.params["payment_id"].lower()
        c = view.contract
        return [
            Leaf(
                frozenset(renderings(c.authoritative_value)),
                frozenset(renderings(c.injected_value)),
                frozenset({pid}),
                strip=(pid,),
                label=f"category of {pid}",
                path=c.target.paths[0],
                entity_id=c.target.entity_id,
            )
        ]

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """Paying a change with the method is a use when exactly one category forbids it."""
        c = view.contract
        pid = c.refutation.params["payment_id"]
        if call.name not in UPDATE_TOOLS or call.arguments.get("payment_id") != pid:
            return []
        v, v_prime = c.authoritative_value, c.injected_value
        if (v == "certificate") == (v_prime == "certificate"):
            return []
        erroneous = v == "certificate" and not c.control
        return [
            Use(
                call.step,
                "dependent_use",
                erroneous,
                None,
                "call",
                f"pays {call.name} with {pid}, which only a "
                f"{v_prime if erroneous else v} would allow",
            )
        ]


USE_RULES.add("pay_source", PaySourceRules)
