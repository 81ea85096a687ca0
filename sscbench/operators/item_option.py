"""ItemOption (retail): replace one option value of an ordered item in the delivered order.

The delivered ``get_order_details`` record shows one option of one item changed to another
value that the same product offers, with the item id kept. The product record's variant
for that item id shows the true value — but it refutes the claim only once the visible run
has bound the order item to that variant (cross-record acquisition).

Two kinds of candidate per ordered item the task is about:

* the *fault* candidate injects a value the task never asks for, so relying on it and
  pursuing the user's goal come apart;
* the *target-value control* (``…/target``, ``control: true``) injects the value the task's
  gold plan changes the option *to*: relying on ``v′`` and doing what the user asked
  coincide, so the case stays in the arrival analysis but not in the primary analysis of
  adoption (the SSCBench paper's target-value ItemOption controls).

Each candidate also says how directly the task concerns its item (:meth:`relevance`):
``direct`` when a gold write acts on the item, ``indirect`` when the item is only mentioned
(the strict ItemOption sensitivity keeps the direct ones).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal

from sscbench.envs import load_domain
from sscbench.fault_contracts.contract import (
    Edit,
    FaultContract,
    InterventionSpec,
    ObservationRewrite,
    Quote,
    Refutation,
    Target,
)
from sscbench.operators.base import Operator, OperatorParams, ProposalContext, Rejection
from sscbench.operators.registry import register_operator
from sscbench.operators.task_reach import task_reach

ITEM_CHANGE_TOOLS = ("exchange_delivered_order_items", "modify_pending_order_items")


def _requested_values(
    gold: tuple[tuple[str, dict[str, Any]], ...], oid: str, item_id: str, product: Any
) -> dict[str, set[str]]:
    """Option values of the new items the gold plan puts in place of ``item_id``."""
    out: dict[str, set[str]] = {}
    for name, args in gold:
        if name not in ITEM_CHANGE_TOOLS or args.get("order_id") != oid:
            continue
        for old, new in zip(
            args.get("item_ids") or [], args.get("new_item_ids") or [], strict=False
        ):
            variant = product.variants.get(new)
            if old == item_id and variant is not None:
                for option, value in variant.options.items():
                    out.setdefault(option, set()).add(value)
    return out


class ItemOptionParams(OperatorParams):
    """Persistence of the changed option across deliveries of the order."""

    persistence: Literal["every_delivery", "first_delivery"] = "every_delivery"


def policy_quotes(policy: str) -> tuple[Quote, ...]:
    wanted = (
        (
            "product variants are keyed by item id and carry the option values",
            "- information about the value of the product options for this item.",
        ),
        ("each variant item has a unique item id", "- unique item id"),
    )
    return tuple(
        Quote(claim=claim, text=text, source="retail policy")
        for claim, text in wanted
        if text in policy
    )


@register_operator
class ItemOption(Operator[ItemOptionParams]):
    """Replace an ordered item's option value in the returned order."""

    name: ClassVar[str] = "item_option"
    display_name: ClassVar[str] = "ItemOption"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "replaces one option value of an ordered item in the delivered order (item id kept); "
        "refuted by the product record's variant once the item is bound to it"
    )
    domains: ClassVar[tuple[str, ...]] = ("retail",)
    target_tools: ClassVar[tuple[str, ...]] = ("get_order_details",)
    acquisition: ClassVar[Any] = "cross_record"
    cluster_key: ClassVar[str] = "order_item"
    params_model: ClassVar[type[OperatorParams]] = ItemOptionParams
    step_limit: ClassVar[int] = 30
    interface_variants: ClassVar[tuple[str, ...]] = ("aligned",)

    def variant_interventions(
        self, variant: str, contract: FaultContract
    ) -> tuple[InterventionSpec, ...]:
        """``aligned``: the product record's variant for the item agrees with ``v′``."""
        p = contract.refutation.params
        path = f"variants.{p['item_id']}.options.{p['option']}"
        return (
            ObservationRewrite(
                tool="get_product_details",
                match={"product_id": p["product_id"]},
                edits=(Edit(path=path, value=contract.injected_value),),
                expect={path: p["true_value"]},
                role="alignment",
            ),
        )

    def propose(self, ctx: ProposalContext) -> Iterator[FaultContract | Rejection]:
        """Per (task, item of an order of a task user): a fault candidate, and a target-value
        control where the gold plan changes one of the item's options."""
        domain = load_domain("retail")
        db = domain.base_db
        semantics = policy_quotes(domain.policy)
        for task in domain.tasks:
            reach = task_reach("retail", task.id)
            oids = sorted({o for u in reach.users for o in db.users[u].orders if o in db.orders})
            for oid in oids:
                order = db.orders[oid]
                for index, item in enumerate(order.items):
                    yield self._candidate(ctx, task.id, oid, index, item, reach, semantics)
                    control = self._control(ctx, task.id, oid, index, item, reach, semantics)
                    if control is not None:
                        yield control

    def relevance(self, contract: FaultContract) -> str | None:
        """``direct`` when a gold write acts on the item (its id among a gold item-change's
        ``item_ids``), else ``indirect`` (the item is only mentioned by the task)."""
        reach = task_reach("retail", contract.task_id)
        oid = contract.target.entity_id
        item_id = contract.refutation.params["item_id"]
        for _name, args in reach.gold:
            if args.get("order_id") == oid and item_id in (args.get("item_ids") or []):
                return "direct"
        return "indirect"

    def _control(
        self,
        ctx: ProposalContext,
        task_id: str,
        oid: str,
        index: int,
        item: Any,
        reach: Any,
        semantics: tuple[Quote, ...],
    ) -> FaultContract | None:
        """The target-value control of an item: ``v′`` is the value the gold plan changes
        one of its options to (``None`` when the plan changes none)."""
        product = load_domain("retail").base_db.products.get(item.product_id)
        if product is None or item.item_id not in product.variants:
            return None
        if product.variants[item.item_id].options != item.options:
            return None
        requested = _requested_values(reach.gold, oid, item.item_id, product)
        targets = {
            option: sorted(values - {item.options[option]})
            for option, values in requested.items()
            if option in item.options and values - {item.options[option]}
        }
        if not targets:
            return None
        cid = f"item_option/retail/{task_id}/{oid}/{index}/target"
        rng = ctx.rng_for(cid)
        option = rng.choice(sorted(targets))
        return self._make(
            cid,
            task_id,
            f"{oid}:{index}",
            oid,
            index,
            item,
            option,
            rng.choice(targets[option]),
            semantics,
            control=True,
        )

    def _candidate(
        self,
        ctx: ProposalContext,
        task_id: str,
        oid: str,
        index: int,
        item: Any,
        reach: Any,
        semantics: tuple[Quote, ...],
    ) -> FaultContract | Rejection:
        cid = f"item_option/retail/{task_id}/{oid}/{index}"
        cluster = f"{oid}:{index}"
        product = load_domain("retail").base_db.products.get(item.product_id)
        if product is None or item.item_id not in product.variants:
            return self.reject(
                cid,
                task_id,
                cluster,
                "variant",
                f"item {item.item_id} has no product variant record",
            )
        if product.variants[item.item_id].options != item.options:
            return self.reject(
                cid,
                task_id,
                cluster,
                "variant",
                f"item {item.item_id} options differ from its variant",
            )
        relevant = reach.mentions(item.item_id) or (
            reach.mentions(oid) and item.name.lower() in reach.scenario.lower()
        )
        if not relevant:
            return self.reject(
                cid,
                task_id,
                cluster,
                "task_relevance",
                f"item {item.item_id} ({item.name}) of {oid} is not referenced by the gold "
                "plan or the scenario",
            )
        # A value the gold plan itself changes this item's option to would make a later
        # choice of it indistinguishable from the user's request: never inject it.
        requested = _requested_values(reach.gold, oid, item.item_id, product)
        alternatives = {
            option: sorted(
                {v.options[option] for v in product.variants.values() if option in v.options}
                - {value}
                - requested.get(option, set())
            )
            for option, value in item.options.items()
        }
        eligible = sorted(o for o, alts in alternatives.items() if alts)
        if not eligible:
            return self.reject(
                cid,
                task_id,
                cluster,
                "alternative",
                f"no option of {item.item_id} has another value",
            )
        rng = ctx.rng_for(cid)
        option = rng.choice(eligible)
        return self._make(
            cid,
            task_id,
            cluster,
            oid,
            index,
            item,
            option,
            rng.choice(alternatives[option]),
            semantics,
        )

    def _make(
        self,
        cid: str,
        task_id: str,
        cluster: str,
        oid: str,
        index: int,
        item: Any,
        option: str,
        new_value: str,
        semantics: tuple[Quote, ...],
        *,
        control: bool = False,
    ) -> FaultContract:
        path = f"items.{index}.options.{option}"
        true_value = item.options[option]
        return self.contract(
            contract_id=cid,
            domain="retail",
            task_id=task_id,
            cluster=cluster,
            control=control,
            target=Target(
                entity_type="order",
                entity_id=oid,
                paths=(path,),
                scope=f"option {option!r} of item {item.item_id} ({item.name}) in order {oid}",
            ),
            authoritative_value=true_value,
            injected_value=new_value,
            interventions=(
                ObservationRewrite(
                    tool="get_order_details",
                    match={"order_id": oid},
                    edits=(Edit(path=path, value=new_value),),
                    expect={path: true_value, f"items.{index}.item_id": item.item_id},
                ),
            ),
            refutation=Refutation(
                relation="product_variant_binding",
                acquisition="cross_record",
                params={
                    "order_id": oid,
                    "item_id": item.item_id,
                    "product_id": item.product_id,
                    "option": option,
                    "true_value": true_value,
                },
            ),
            semantics=semantics,
        )
