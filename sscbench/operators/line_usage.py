"""LineUsage (telecom): a false data-usage figure in the back-office line record.

The fault rewrites ``data_used_gb`` in every delivered line record (``get_details_by_id``)
of the customer's line so that the record tells the opposite story about the data limit:
a line over its limit (no mobile data, per the policy) reads as within it, and one within
it reads as over it. The agent-visible refutation is the usage record of the same line
(``get_data_usage``): a dedicated tool, documented as the line's current billing cycle
usage, which the fault does not touch (relation ``usage_record``, ``cross_record``).

Designs rejected: a re-read of the line record (every delivery is rewritten, so it is not
independent); the customer's phone (no device tool shows a usage figure — "no data" has
half a dozen other causes on the device, so it is not sufficient); a first-delivery
misread (a re-read would then refute it, but a re-read of the same tool is weaker than the
dedicated record and is what ReturnDate-style operators already measure).

Candidates: one per base telecom task, the line of the phone number the task's customer
gives. Relevant: the task is about mobile data (its reason for calling says so), where
the usage against the limit bears on the diagnosis; other tasks are rejected.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal

from sscbench.envs import EpisodeEnvironment, load_domain
from sscbench.fault_contracts.contract import (
    Edit,
    FaultContract,
    ObservationRewrite,
    Quote,
    Refutation,
    Target,
)
from sscbench.fault_contracts.relations import usage_record  # noqa: F401  (registers it)
from sscbench.operators.base import Operator, OperatorParams, ProposalContext, Rejection
from sscbench.operators.registry import register_operator

LIMIT_RULE = "exceeds the plan's data limit, data connectivity will be lost"


class LineUsageParams(OperatorParams):
    """Every delivery of the line record carries the false figure."""

    persistence: Literal["every_delivery"] = "every_delivery"


def customer_phone(task: Any) -> str | None:
    """The phone number the task's customer gives (τ²'s ``set_user_info`` action)."""
    initial = task.initial_state
    for action in (initial.initialization_actions or []) if initial else []:
        if action.func_name == "set_user_info":
            phone = action.arguments.get("phone_number")
            return phone if isinstance(phone, str) else None
    return None


def about_mobile_data(task: Any) -> bool:
    """The task's reason for calling is about mobile data."""
    instructions = task.user_scenario.instructions
    reason = getattr(instructions, "reason_for_call", None) or str(instructions)
    return "mobile data" in reason.lower()


def semantics_quotes() -> tuple[Quote, ...]:
    """The usage tool's description and the policy's limit rule, read from τ²."""
    domain = load_domain("telecom")
    doc = " ".join((domain.toolkit_class.get_data_usage.__doc__ or "").split())
    first = doc.split(" Args:")[0].strip()
    rule = next((ln.strip() for ln in domain.policy.splitlines() if LIMIT_RULE in ln), "")
    quotes = []
    if first.startswith("Retrieves current billing cycle data usage for a line"):
        quotes.append(
            Quote(
                claim="get_data_usage is the line's record of this cycle's usage",
                text=first,
                source="get_data_usage tool description",
            )
        )
    if rule:
        quotes.append(
            Quote(
                claim="usage against the limit decides whether the line has mobile data",
                text=rule,
                source="telecom policy",
            )
        )
    return tuple(quotes)


@register_operator
class LineUsage(Operator[LineUsageParams]):
    """Misstate a line's data usage in the delivered line record."""

    name: ClassVar[str] = "line_usage"
    display_name: ClassVar[str] = "LineUsage"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "flips a line's data usage across its limit in every delivered line record; "
        "refuted by the line's usage record (get_data_usage)"
    )
    domains: ClassVar[tuple[str, ...]] = ("telecom",)
    target_tools: ClassVar[tuple[str, ...]] = ("get_details_by_id",)
    acquisition: ClassVar[Any] = "cross_record"
    cluster_key: ClassVar[str] = "line"
    params_model: ClassVar[type[OperatorParams]] = LineUsageParams
    step_limit: ClassVar[int] = 60

    def propose(self, ctx: ProposalContext) -> Iterator[FaultContract | Rejection]:
        """One candidate per base telecom task: its customer's line, tasks in τ² order."""
        semantics = semantics_quotes()
        for task in load_domain("telecom").tasks:
            yield self._candidate(ctx, task, semantics)

    def _candidate(
        self, ctx: ProposalContext, task: Any, semantics: tuple[Quote, ...]
    ) -> FaultContract | Rejection:
        phone = customer_phone(task)
        env = EpisodeEnvironment.open("telecom", task)  # the task's own initial state
        line = next((ln for ln in env.state.db.lines if ln.phone_number == phone), None)
        lid = line.line_id if line is not None else str(phone)
        cid = f"line_usage/telecom/{task.id}/{lid}"
        if line is None:
            return self.reject(cid, task.id, lid, "exists", f"no line has number {phone}")
        if len(semantics) < 2:
            return self.reject(
                cid, task.id, lid, "semantics", "τ² no longer documents the usage record or rule"
            )
        if not about_mobile_data(task):
            return self.reject(
                cid,
                task.id,
                lid,
                "task_relevance",
                "the customer does not call about mobile data, so the line's usage does not "
                "bear on the task",
            )
        plan = next(p for p in env.state.db.plans if p.plan_id == line.plan_id)
        limit = plan.data_limit_gb + line.data_refueling_gb
        true = line.data_used_gb
        rng = ctx.rng_for(cid)
        if true >= limit:  # over the limit: the record says there is room left
            injected = round(plan.data_limit_gb * rng.uniform(0.2, 0.6), 1)
        else:  # within it: the record says the limit is used up
            injected = round(limit + rng.uniform(0.5, 3.0), 1)
        return self.contract(
            contract_id=cid,
            domain="telecom",
            task_id=task.id,
            cluster=lid,
            target=Target(
                entity_type="line",
                entity_id=lid,
                paths=("data_used_gb",),
                scope=f"the data used on line {lid} in the current billing cycle",
            ),
            authoritative_value=true,
            injected_value=injected,
            interventions=(
                ObservationRewrite(
                    tool="get_details_by_id",
                    match={"id": lid},
                    edits=(Edit(path="data_used_gb", value=injected),),
                    expect={"line_id": lid, "data_used_gb": true},
                ),
            ),
            refutation=Refutation(
                relation="usage_record",
                acquisition="cross_record",
                params={"line_id": lid, "true_used": true, "injected_used": injected},
            ),
            semantics=semantics,
        )
