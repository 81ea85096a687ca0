"""Transport (airline, retail): an identifier delivered damaged in transit, once.

An observation contract's integrity half, after *ContractBench*: the user record
(``get_user_details``) delivers an identifier a gold action needs in a damaged form — cut
at a length limit, with a newline inside, percent-re-encoded (``#W5918442`` →
``%23W5918442``), or a payment method's display text ("Visa ending 7447") in place of its
id. Query-parameter reordering needs an identifier with a query string; no τ² identifier
has one, so its candidates are rejected as not applicable (the native suite covers it).

The damage is in transit and affects only the first delivery (``first_delivery``): the
identifier as issued is the authoritative rendering, and any observation that carries it
byte for byte refutes the damaged form — a re-read of the user record, the entity's own
record, or (display text) the key the display text was shown under, in the same record.
Erroneous reliance is passing or stating the damaged form. Integrity is judged by SHA-256
of the identifier as issued.

The grader compares the final database, which the gold actions produce from these
identifiers: a perturbation touches only an observation, never the state, and every
identifier a perturbation touches is the contract's ``authoritative`` refutation
parameter, so the relation accounts for it.
"""

from __future__ import annotations

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
from sscbench.fault_contracts.perturbations import PerturbationKind, digest, perturb, reencode
from sscbench.json_paths import flatten
from sscbench.operators.base import Operator, OperatorParams, ProposalContext, Rejection
from sscbench.operators.registry import register_operator
from sscbench.operators.task_reach import task_reach

LISTS = {"airline": ("reservations", "reservation"), "retail": ("orders", "order")}
DOCS = {
    ("airline", "reservation"): ("get_reservation_details", "reservation_id:"),
    ("retail", "order"): ("get_order_details", "order_id:"),
    ("airline", "payment_method"): ("update_reservation_flights", "payment_id:"),
    ("retail", "payment_method"): ("modify_pending_order_payment", "payment_method_id:"),
}
"""Per (domain, identifier kind): the tool documentation line that states the id's form."""


def id_doc(domain: str, etype: str) -> tuple[str, str]:
    """(tool, its documentation line that gives the identifier's exact form)."""
    tool, needle = DOCS[(domain, etype)]
    doc = getattr(load_domain(domain).toolkit_class, tool).__doc__ or ""
    return tool, next((ln.strip() for ln in doc.splitlines() if needle in ln), "")


class TransportParams(OperatorParams):
    """Only the first delivery is damaged, so a re-read can refute it."""

    persistence: Literal["first_delivery"] = "first_delivery"


def display_form(method: dict[str, Any]) -> str:
    """How a payment method is named to a person (its display text)."""
    source = str(method.get("source", "payment method"))
    if method.get("brand") and method.get("last_four"):
        return f"{str(method['brand']).title()} ending {method['last_four']}"
    return source.replace("_", " ").title()


def _kinds_for(etype: str, eid: str) -> tuple[PerturbationKind, ...]:
    """The kinds proposed for an identifier. A payment method is damaged only by its
    display text (its id is co-delivered as the record's key, so any other damage would be
    refuted in the same observation); a listed id has no display form but itself, and
    re-encoding needs a reserved character (``#`` in retail order ids). Query reordering
    is proposed for every listed id and rejected, so the funnel shows why it is absent."""
    if etype == "payment_method":
        return ("display_text",)
    kinds: list[PerturbationKind] = ["truncation", "newline"]
    if reencode(eid) is not None:
        kinds.append("url_reencode")
    return (*kinds, "query_reorder")


@register_operator
class Transport(Operator[TransportParams]):
    """Deliver an identifier a gold action needs in a damaged form, once."""

    name: ClassVar[str] = "transport"
    display_name: ClassVar[str] = "Transport"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "delivers an identifier a gold action needs damaged in transit (truncated, newline, "
        "re-encoded, display text); refuted by the identifier delivered intact elsewhere"
    )
    domains: ClassVar[tuple[str, ...]] = ("airline", "retail")
    target_tools: ClassVar[tuple[str, ...]] = ("get_user_details",)
    acquisition: ClassVar[Any] = "cross_record"
    cluster_key: ClassVar[str] = "perturbation kind"
    """Cases cluster by kind: sampling visits the kinds in turn, so every kind that applies
    is represented, and intervals treat a kind's cases as one cluster."""
    params_model: ClassVar[type[OperatorParams]] = TransportParams
    step_limit: ClassVar[int] = 60
    scripted_truth: ClassVar[bool] = False

    def propose(self, ctx: ProposalContext) -> Iterator[FaultContract | Rejection]:
        """Per task user, per identifier a gold action names, one candidate per kind."""
        domain = load_domain(ctx.domain)
        list_key, etype = LISTS[ctx.domain]
        known = set(
            domain.base_db.reservations if ctx.domain == "airline" else domain.base_db.orders
        )
        for task in domain.tasks:
            reach = task_reach(ctx.domain, task.id)
            gold = {str(v) for _, args in reach.gold for _, v in flatten(args)}
            for user_id in sorted(reach.users):
                user = domain.base_db.users[user_id].model_dump(mode="json")
                frames: list[tuple[str, str, str, str | None]] = []
                for i, eid in enumerate(user.get(list_key) or []):
                    if eid in gold:
                        frames.append((eid, f"{list_key}.{i}", etype, None))
                for pid, method in sorted((user.get("payment_methods") or {}).items()):
                    if pid in gold:
                        frames.append(
                            (
                                pid,
                                f"payment_methods.{pid}.id",
                                "payment_method",
                                display_form(method),
                            )
                        )
                for eid, path, kind_of, display in frames:
                    for kind in _kinds_for(kind_of, eid):
                        yield self._candidate(
                            ctx, task.id, user_id, eid, path, kind_of, kind, display, known
                        )

    def _candidate(
        self,
        ctx: ProposalContext,
        task_id: str,
        user_id: str,
        eid: str,
        path: str,
        etype: str,
        kind: PerturbationKind,
        display: str | None,
        known: set[str],
    ) -> FaultContract | Rejection:
        cid = f"transport/{ctx.domain}/{task_id}/{eid}/{kind}"
        damaged = perturb(kind, eid, ctx.rng_for(cid), display=display)
        if damaged is None:
            return self.reject(
                cid,
                task_id,
                kind,
                "applicable",
                f"{kind} does not change {eid!r} (nothing to damage)",
            )
        if damaged in known:
            return self.reject(
                cid, task_id, kind, "collision", f"damaged form {damaged!r} is another real id"
            )
        tool, doc = id_doc(ctx.domain, etype)
        if not doc:
            return self.reject(
                cid,
                task_id,
                kind,
                "semantics",
                f"{tool}'s documentation does not state the id's form",
            )
        return self.contract(
            contract_id=cid,
            domain=ctx.domain,
            task_id=task_id,
            cluster=kind,
            target=Target(
                entity_type=etype,
                entity_id=eid,
                paths=(path,),
                scope=f"the identifier of {etype} {eid} as delivered in user {user_id}'s record",
            ),
            authoritative_value=eid,
            injected_value=damaged,
            interventions=(
                ObservationRewrite(
                    tool="get_user_details",
                    match={"user_id": user_id},
                    edits=(Edit(path=path, value=damaged),),
                    expect={path: eid},
                ),
            ),
            refutation=Refutation(
                relation="authoritative_rendering",
                acquisition="co_delivered" if kind == "display_text" else "cross_record",
                params={
                    "authoritative": eid,
                    "damaged": damaged,
                    "kind": kind,
                    "sha256": digest(eid),
                },
            ),
            semantics=(
                Quote(
                    claim="the identifier has one exact form, which the tools expect",
                    text=doc,
                    source=f"{tool} documentation",
                ),
            ),
        )
