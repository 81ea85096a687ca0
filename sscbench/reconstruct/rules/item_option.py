"""ItemOption uses: describing the item by its option; choosing the new item of an
exchange or modification from the (believed) current options."""

from __future__ import annotations

from typing import Any

from sscbench.reconstruct.rules.base import USE_RULES, Leaf, RunView, Use, UseRules
from sscbench.reconstruct.text import renderings
from sscbench.runs.events import AgentToolCall

ITEM_TOOLS = ("exchange_delivered_order_items", "modify_pending_order_items")


class ItemOptionRules(UseRules):
    """One option of one ordered item."""

    def _index(self, view: RunView) -> int:
        return int(view.contract.target.paths[0].split(".")[1])

    def leaves(self, view: RunView) -> list[Leaf]:
        """The option value near a reference to the item (id, name or its path)."""
        c = view.contract
        p = c.refutation.params
        context = {p["item_id"].lower(), f"items.{self._index(view)}."}
        name = self._item_name(view)
        if name:
            context.add(name.lower())
        return [
            Leaf(
                frozenset(renderings(c.authoritative_value)),
                frozenset(renderings(c.injected_value)),
                frozenset(context),
                label=f"{p['option']} of item {p['item_id']}",
                path=c.target.paths[0],
                entity_id=c.target.entity_id,
            )
        ]

    def _item_name(self, view: RunView) -> str | None:
        p = view.contract.refutation.params
        for d in view.history.successes("get_order_details"):
            items = d.data.get("items") if isinstance(d.data, dict) else None
            for item in items or []:
                if isinstance(item, dict) and item.get("item_id") == p["item_id"]:
                    return str(item.get("name"))
        return None

    def call(self, view: RunView, call: AgentToolCall) -> list[Use]:
        """The new item chosen for the old one keeps or changes the affected option."""
        c = view.contract
        p = c.refutation.params
        if call.name not in ITEM_TOOLS or call.arguments.get("order_id") != p["order_id"]:
            return []
        old, new = call.arguments.get("item_ids"), call.arguments.get("new_item_ids")
        if not isinstance(old, list) or not isinstance(new, list) or p["item_id"] not in old:
            return []
        position = old.index(p["item_id"])
        if position >= len(new):
            return []
        variant = self._variant(view, call.step, p["product_id"], str(new[position]))
        if variant is None:
            return [
                Use(
                    call.step,
                    "undecidable",
                    False,
                    None,
                    "call",
                    f"no delivered product record shows new item {new[position]}",
                )
            ]
        value = (variant.get("options") or {}).get(p["option"])
        if value == c.injected_value and not c.control:
            return [
                Use(
                    call.step,
                    "dependent_use",
                    True,
                    None,
                    "call",
                    f"new item {new[position]} keeps the injected {p['option']}={value}",
                )
            ]
        if value == c.authoritative_value:
            return [
                Use(
                    call.step,
                    "dependent_use",
                    False,
                    None,
                    "call",
                    f"new item {new[position]} keeps the true {p['option']}={value}",
                )
            ]
        return []

    def _variant(
        self, view: RunView, before: int, product_id: str, item_id: str
    ) -> dict[str, Any] | None:
        found = None
        for d in view.history.successes("get_product_details"):
            if (
                d.step > before
                or not isinstance(d.data, dict)
                or d.data.get("product_id") != product_id
            ):
                continue
            variant = (d.data.get("variants") or {}).get(item_id)
            if isinstance(variant, dict):
                found = variant
        return found


USE_RULES.add("item_option", ItemOptionRules)
