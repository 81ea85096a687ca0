"""WriteEffect uses: telling the user the change is done, acting on the new state.

A statement of the claimed new values is erroneous reliance until an authoritative read of
the reservation shows them (a retry may have made the claim true). Read-backs are
retrievals; a repeat of the same request is a repair, not a use.
"""

from __future__ import annotations

from typing import Any

from sscbench.fault_contracts.history import arguments_match
from sscbench.fault_contracts.relations.post_write_read_back import WRITE_FIELDS
from sscbench.json_paths import flatten
from sscbench.reconstruct.rules.base import (
    USE_RULES,
    Leaf,
    RunView,
    Use,
    UseRules,
    classify_message,
)
from sscbench.reconstruct.text import renderings
from sscbench.runs.events import AgentToolCall

# Words that tie a value in text to a reservation field; the reservation id alone does not
# ("YAX4DR has 2 passengers" says nothing about its 2 bags).
FIELD_WORDS = {
    "total_baggages": ("bag",),
    "nonfree_baggages": ("bag",),
    "cabin": ("cabin", "class"),
    "status": ("cancel", "status"),
    "flights": ("flight",),
    "passengers": ("passenger", "traveler", "name"),
}


def changed_leaves(v: dict[str, Any], v_prime: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Leaf paths whose claimed value differs from the stored one: path → (v, v′)."""
    old, new = dict(flatten(v)), dict(flatten(v_prime))
    return {p: (old.get(p), new[p]) for p in new if old.get(p) != new[p]}


def scope_end(view: RunView) -> int | None:
    """Step of the first later write that changed the affected fields under another request:
    after it, statements about those fields concern a new state, not the request's effect."""
    c = view.contract
    request = c.target.logical_request or {}
    fields = set(c.target.paths)
    for d in view.history.delivered:
        if d.step <= view.t_f or d.observation.error or d.call.name not in WRITE_FIELDS:
            continue
        if d.call.arguments.get("reservation_id") != c.target.entity_id:
            continue
        same = d.call.name == request.get("tool") and arguments_match(
            d.call.arguments, request.get("match", {})
        )
        if not same and fields & set(WRITE_FIELDS[d.call.name]):
            return d.step
    return None


class WriteEffectRules(UseRules):
    """The effect of one logical write request on a reservation."""

    def leaves(self, view: RunView) -> list[Leaf]:
        """One leaf per changed field leaf, tied to the reservation id or the field path."""
        c = view.contract
        out = []
        for path, (v, v_prime) in changed_leaves(c.authoritative_value, c.injected_value).items():
            field = path.split(".")[0]
            words = FIELD_WORDS.get(field, (field,))
            out.append(
                Leaf(
                    frozenset(renderings(v)),
                    frozenset(renderings(v_prime)),
                    frozenset({f"{path} ", *words}),
                    anchor=frozenset({c.target.entity_id.lower()}),
                    label=path,
                    path=path,
                    entity_id=c.target.entity_id,
                )
            )
        return out

    def _confirmed_before(self, view: RunView, step: int) -> bool:
        """Has the claim become true before ``step``: a read shows the claimed values, or a
        repeat of the request succeeded that the contract's persistence lets through."""
        c = view.contract
        changed = changed_leaves(c.authoritative_value, c.injected_value)
        request = c.target.logical_request or {}
        if c.persistence == "first_attempt":
            for d in view.history.successes(request.get("tool")):
                if view.t_f < d.step < step and arguments_match(
                    d.call.arguments, request.get("match", {})
                ):
                    return True

        for d in view.history.successes("get_reservation_details"):
            if d.step <= view.t_f or d.step >= step or not isinstance(d.data, dict):
                continue
            if d.data.get("reservation_id") != c.target.entity_id:
                continue
            shown = dict(flatten({k: d.data.get(k) for k in c.target.paths}))
            if all(shown.get(p) == new for p, (_, new) in changed.items()):
                return True
        return False

    def message(self, view: RunView, text: str, step: int) -> list[Use]:
        """Statements of the claimed values, reliance unless the effect was since confirmed."""
        end = scope_end(view)
        if end is not None and step > end:
            return []
        return classify_message(
            self.leaves(view), text, step, view.contract.control, self._confirmed_before(view, step)
        )

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """A later call carrying values only the claimed new state has (e.g. new flights)."""
        c = view.contract
        request = c.target.logical_request or {}
        end = scope_end(view)
        if end is not None and call.step > end:
            return []
        if call.name == "get_reservation_details" or (
            call.name == request.get("tool")
            and arguments_match(call.arguments, request.get("match", {}))
        ):
            return []
        claimed_only = {  # flight numbers only the claimed new itinerary has
            str(new)
            for path, (_, new) in changed_leaves(c.authoritative_value, c.injected_value).items()
            if path.startswith("flights.") and path.endswith(".flight_number")
        }

        used = claimed_only & {str(v) for _, v in flatten(call.arguments)}
        if used and not self._confirmed_before(view, call.step):
            return [
                Use(
                    call.step,
                    "dependent_use",
                    True,
                    None,
                    "call",
                    f"{call.name} acts on claimed {sorted(used)}",
                )
            ]
        return []


USE_RULES.add("write_effect", WriteEffectRules)
