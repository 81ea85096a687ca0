"""ReturnDate uses: stating or deriving the return date; calls whose date is it."""

from __future__ import annotations

from typing import Any

from sscbench.json_paths import flatten
from sscbench.reconstruct.rules.base import USE_RULES, Leaf, RunView, Use, UseRules
from sscbench.reconstruct.text import renderings
from sscbench.runs.events import AgentToolCall

# Searching or checking status on the return date is a use of it (SPEC §3); any other
# call with that date counts only when it names the reservation (a new booking may share it).
DATE_LOOKUPS = ("search_direct_flight", "search_onestop_flight", "get_flight_status")


class ReturnDateRules(UseRules):
    """The return segment date(s) of the reservation."""

    def _segments(self, view: RunView) -> list[tuple[str, Any, Any]]:
        c = view.contract
        return [(p, c.authoritative_value[p], c.injected_value[p]) for p in c.target.paths]

    def leaves(self, view: RunView) -> list[Leaf]:
        """One leaf per return segment date."""
        rid = view.contract.target.entity_id.lower()
        leaves = []
        for path, v, v_prime in self._segments(view):
            # The reservation or the word "return" tie a clause to the date; a record
            # path or a flight number alone does not (other reservations share both).
            context = {rid, "return"}

            leaves.append(
                Leaf(
                    frozenset(renderings(v)),
                    frozenset(renderings(v_prime)),
                    frozenset(context),
                    label=f"return date {path}",
                    path=path,
                    entity_id=view.contract.target.entity_id,
                )
            )
        return leaves

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """A call whose date argument is a return date (true or injected)."""
        if call.name == "get_reservation_details":
            return []
        leaves = dict(flatten(call.arguments))
        values = {str(v) for v in leaves.values()}
        uses = []
        for path, v, v_prime in self._segments(view):
            for arg_path, value in leaves.items():
                if "date" not in arg_path.rsplit(".", 1)[-1]:
                    continue
                if value == v_prime and not view.contract.control:
                    uses.append(
                        Use(
                            call.step,
                            "dependent_use",
                            True,
                            None,
                            "call",
                            f"{call.name} uses the injected {path} as {arg_path}",
                        )
                    )
                elif value == v and (
                    call.name in DATE_LOOKUPS or view.contract.target.entity_id in values
                ):
                    uses.append(
                        Use(
                            call.step,
                            "dependent_use",
                            False,
                            None,
                            "call",
                            f"{call.name} uses the true {path} as {arg_path}",
                        )
                    )
        return uses


USE_RULES.add("return_date", ReturnDateRules)
