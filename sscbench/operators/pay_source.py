"""PaySource (airline): flip a payment method's category in the delivered user record.

Only ``payment_methods.<id>.source`` changes; the identifier is kept. τ²'s schema decides
which flips are representable: a gift card and a travel certificate have the same fields,
so ``gift_card ↔ certificate`` is a one-field change that still validates, while turning a
credit card into anything else (or back) needs other fields (``brand``/``last_four`` vs
``amount``) and is rejected.

Sufficiency of the retained identifier rests on agent-visible semantics, quoted in every
contract: the policy lists the three payment types, and the airline write tools'
``payment_id`` documentation shows identifiers formed as ``<type>_<digits>`` for exactly
those types. A method whose identifier does not follow that form has no such semantics and
is rejected — a naming pattern only the data shows is not semantics.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, ClassVar, Literal

from sscbench.envs import load_domain
from sscbench.fault_contracts.contract import (
    Edit,
    FaultContract,
    ObservationRewrite,
    Quote,
    Refutation,
    Target,
)
from sscbench.operators.base import Operator, OperatorParams, ProposalContext, Rejection
from sscbench.operators.registry import register_operator
from sscbench.operators.task_reach import task_reach

FLIPS = {"gift_card": "certificate", "certificate": "gift_card"}
ID_FORM = re.compile(r"^(credit_card|gift_card|certificate)_\d+$")
DOC_EXAMPLE = "'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'"


class PaySourceParams(OperatorParams):
    """Persistence of the flipped category across deliveries of the user record."""

    persistence: Literal["every_delivery", "first_delivery"] = "every_delivery"


def _pays(gold: tuple[tuple[str, dict[str, Any]], ...]) -> bool:
    """True when the gold plan makes a payment choice (a payment id argument)."""
    return any("payment_id" in args or "payment_methods" in args for _, args in gold)


def _owns_payment_choice(gold: tuple[tuple[str, dict[str, Any]], ...], uid: str) -> bool:
    """True when a gold payment is made by or for ``uid`` (so each of their methods' category
    bears on the choice: certificates cannot pay for changes, at most one per booking)."""
    db = load_domain("airline").base_db
    for _, args in gold:
        if "payment_id" not in args and "payment_methods" not in args:
            continue
        reservation = db.reservations.get(args.get("reservation_id", ""))
        owner = args.get("user_id") or getattr(reservation, "user_id", None)
        if owner == uid:
            return True
    return False


def semantics_quotes() -> tuple[Quote, ...]:
    domain = load_domain("airline")
    doc = domain.toolkit_class.update_reservation_baggages.__doc__ or ""

    line = next((ln.strip() for ln in doc.splitlines() if "payment_id:" in ln), "")
    policy = next(
        (ln.strip() for ln in domain.policy.splitlines() if "types of payment methods" in ln), ""
    )
    quotes = []
    if policy:
        quotes.append(
            Quote(
                claim="the payment types are exactly these three",
                text=policy,
                source="airline policy",
            )
        )
    if DOC_EXAMPLE in line:
        quotes.append(
            Quote(
                claim="a payment id is formed as <type>_<digits> for each type",
                text=line,
                source="payment_id parameter of the airline write tools",
            )
        )
    return tuple(quotes)


@register_operator
class PaySource(Operator[PaySourceParams]):
    """Flip the category of a payment method in a returned user record."""

    name: ClassVar[str] = "pay_source"
    display_name: ClassVar[str] = "PaySource"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "flips a payment method's category (gift card <-> certificate) in the delivered user "
        "record, keeping its identifier; refuted by the identifier under the tool docs' form"
    )
    domains: ClassVar[tuple[str, ...]] = ("airline",)
    target_tools: ClassVar[tuple[str, ...]] = ("get_user_details",)
    acquisition: ClassVar[Any] = "co_delivered"
    cluster_key: ClassVar[str] = "user"
    params_model: ClassVar[type[OperatorParams]] = PaySourceParams
    step_limit: ClassVar[int] = 40

    def propose(self, ctx: ProposalContext) -> Iterator[FaultContract | Rejection]:
        """One candidate per (task, payment method of a task user)."""
        domain = load_domain("airline")
        semantics = semantics_quotes()
        for task in domain.tasks:
            reach = task_reach("airline", task.id)
            pays = _pays(reach.gold)
            for uid in reach.users:
                methods = domain.base_db.users[uid].payment_methods
                for pid in sorted(methods):
                    relevant = reach.mentions(pid) or (
                        pays and _owns_payment_choice(reach.gold, uid)
                    )
                    yield self._candidate(
                        task.id, uid, pid, methods[pid].source, relevant, semantics
                    )

    def _candidate(
        self,
        task_id: str,
        uid: str,
        pid: str,
        source: str,
        relevant: bool,
        semantics: tuple[Quote, ...],
    ) -> FaultContract | Rejection:
        cid = f"pay_source/airline/{task_id}/{uid}/{pid}"
        match = ID_FORM.match(pid)
        if match is None or match.group(1) != source or len(semantics) < 2:
            return self.reject(
                cid,
                task_id,
                uid,
                "semantics",
                f"no agent-visible semantics tie identifier {pid} to its category {source}",
            )
        if source not in FLIPS:
            return self.reject(
                cid,
                task_id,
                uid,
                "schema",
                f"{source} cannot change category by its source field alone under τ²'s schema "
                "(credit cards carry brand/last_four, the others an amount)",
            )
        if not relevant:
            return self.reject(
                cid,
                task_id,
                uid,
                "task_relevance",
                f"{pid} is not referenced by the gold plan or the scenario",
            )
        path = f"payment_methods.{pid}.source"
        flipped = FLIPS[source]
        return self.contract(
            contract_id=cid,
            domain="airline",
            task_id=task_id,
            cluster=uid,
            target=Target(
                entity_type="user",
                entity_id=uid,
                paths=(path,),
                scope=f"the category of payment method {pid} in {uid}'s profile",
            ),
            authoritative_value=source,
            injected_value=flipped,
            interventions=(
                ObservationRewrite(
                    tool="get_user_details",
                    match={"user_id": uid},
                    edits=(Edit(path=path, value=flipped),),
                    expect={path: source},
                ),
            ),
            refutation=Refutation(
                relation="payment_id_category",
                acquisition="co_delivered",
                params={"payment_id": pid},
            ),
            semantics=semantics,
        )
