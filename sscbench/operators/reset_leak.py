"""ResetLeak: a read tool's cache survives the reset and answers with the last episode's record.

The defect: ``get_order_details`` reads through a cache that is not cleared when the
environment is reset. The previous episode was the gold run of another task T′ on the same
order (τ² ships task variants on one order: one cancels it, another changes its address), so
in episode T the cached read answers with the order as T′'s gold left it — computed when the
contract is built by running T′'s gold actions through τ²'s tools on a fresh database —
while every other tool, the writes included, uses the fresh state. A successful write naming
the order invalidates the entry, so reads after it are fresh.

The fact is the order's ``status``: ``v′`` is the status T′ left (``cancelled``, ``exchange
requested``, ...), ``v`` the fresh one, which T's gold write needs (``pending`` for a
cancellation or modification, ``delivered`` for a return or exchange). Believing ``v′``, an
agent tells the user the order was already cancelled, refuses, or hands over to a human, and
the gold write never happens. Other fields T′ changed (items, payment history, address) leak
too; the contract's scope names them, but they are not the fact measured.

The refutation is ``fresh_record``: the reply of T's gold write, which succeeds against the
fresh state and either shows ``v`` (an address or payment change leaves the status alone) or
could only have succeeded on a record with ``v`` (the tool's documented guard: "If the order
is not pending"). Rejected designs: leaking the whole state (every tool agrees with ``v′``,
nothing observable contradicts it, no witness), and refuting by a second read of the order
(it is served by the same cache).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any, ClassVar, Literal

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.fault_contracts.contract import (
    FaultContract,
    Quote,
    Refutation,
    StaleRead,
    Target,
)
from sscbench.fault_contracts.relations import fresh_record  # noqa: F401  (registers it)
from sscbench.operators.base import Operator, OperatorParams, ProposalContext, Rejection
from sscbench.operators.registry import register_operator
from sscbench.operators.tool_defects import RECORDS, communicated, doc_line

ID_KEY, READ_TOOL, WRITES = RECORDS["order"]

NEEDS: dict[str, str] = {
    "cancel_pending_order": "pending",
    "modify_pending_order_address": "pending",
    "modify_pending_order_items": "pending",
    "modify_pending_order_payment": "pending",
    "return_delivered_order_items": "delivered",
    "exchange_delivered_order_items": "delivered",
}
"""The status each order write needs, as the policy and the tools' documentation state it."""

GUARDED = (
    "cancel_pending_order",
    "modify_pending_order_items",
    "return_delivered_order_items",
    "exchange_delivered_order_items",
)
"""Writes whose code refuses any other status than the one they need (``status != ...``):
their success establishes it. Address and payment changes accept any pending status."""


class ResetLeakParams(OperatorParams):
    """The stale entry answers every read until a write invalidates it."""

    persistence: Literal["every_delivery"] = "every_delivery"


def _order_writes(actions: list[Any]) -> list[tuple[int, str, str]]:
    return [
        (i, a.name, str(a.arguments.get(ID_KEY)))
        for i, a in enumerate(actions)
        if a.name in WRITES and a.arguments.get(ID_KEY)
    ]


def _run_gold(domain_name: str, task: Any, upto: int | None = None) -> EpisodeEnvironment:
    env = EpisodeEnvironment.open(domain_name, task)
    actions = list(task.evaluation_criteria.actions or [])
    for i, act in enumerate(actions[:upto]):
        env.execute(ToolCall(id=f"g{i}", name=act.name, arguments=act.arguments), i)
    return env


@cache
def leaked_record(domain_name: str, task_id: str, order_id: str) -> str:
    """``get_order_details(order_id)`` as τ² answers it after task ``task_id``'s whole gold
    run on a fresh database: the record the next episode's stale cache holds."""
    task = load_domain(domain_name).task(task_id)
    env = _run_gold(domain_name, task)
    return env.execute(ToolCall(id="leak", name=READ_TOOL, arguments={ID_KEY: order_id}), 0).content


def _status(content: str) -> Any:
    data = json.loads(content)
    return data.get("status") if isinstance(data, dict) else None


@register_operator
class ResetLeak(Operator[ResetLeakParams]):
    """An order read served from a cache the previous episode (another task's gold run on
    the same order) left behind; refuted by the fresh reply of the task's own write."""

    name: ClassVar[str] = "reset_leak"
    display_name: ClassVar[str] = "ResetLeak"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "get_order_details answers from a cache not cleared on reset: the order as another "
        "task's gold run left it; refuted by the fresh reply of the task's own write"
    )
    defect_class: ClassVar[str] = "Reset Leak"
    domains: ClassVar[tuple[str, ...]] = ("retail",)
    target_tools: ClassVar[tuple[str, ...]] = (READ_TOOL,)
    acquisition: ClassVar[Any] = "cross_record"
    cluster_key: ClassVar[str] = "record"
    params_model: ClassVar[type[OperatorParams]] = ResetLeakParams

    def propose(self, ctx: ProposalContext) -> Iterator[FaultContract | Rejection]:
        """One candidate per (task T, its first write on an order E, other task T′ whose
        gold writes E), tasks in τ² order."""
        if ctx.domain not in self.domains:
            return
        domain = load_domain(ctx.domain)
        writers: dict[str, list[str]] = {}
        for task in domain.tasks:
            for _, _, eid in _order_writes(list(task.evaluation_criteria.actions or [])):
                if task.id not in writers.setdefault(eid, []):
                    writers[eid].append(task.id)
        for task in domain.tasks:
            actions = list(task.evaluation_criteria.actions or [])
            first: dict[str, tuple[int, str]] = {}
            for index, tool, eid in _order_writes(actions):
                first.setdefault(eid, (index, tool))
            for eid, (index, tool) in first.items():
                for other in writers.get(eid, []):
                    if other != task.id:
                        yield self._candidate(domain, task, actions, index, tool, eid, other)

    def _candidate(
        self,
        domain: Any,
        task: Any,
        actions: list[Any],
        index: int,
        tool: str,
        eid: str,
        other: str,
    ) -> FaultContract | Rejection:
        cid = f"{self.name}/{domain.name}/{task.id}/{index}/{other}"
        authority = doc_line(domain, READ_TOOL, "Get the status")
        guard = doc_line(domain, tool, "If the order is ")
        reply_doc = doc_line(domain, tool, "Order: The order details")
        if not authority or not guard or not reply_doc:
            return self.reject(
                cid, task.id, eid, "semantics",
                f"{READ_TOOL} or {tool} no longer documents what the refutation rests on",
            )  # fmt: skip
        clean = _run_gold(domain.name, task, index)
        fresh = clean.execute(ToolCall(id="r", name=READ_TOOL, arguments={ID_KEY: eid}), index)
        if fresh.error:
            return self.reject(cid, task.id, eid, "exists", f"order {eid}: {fresh.content}")
        true = _status(fresh.content)
        leaked = leaked_record(domain.name, other, eid)
        stale = _status(leaked)
        if stale == true:
            return self.reject(
                cid, task.id, eid, "distinct_value",
                f"task {other}'s gold leaves {eid} {true!r} as it was: the leak differs only "
                "in fields the task's write does not depend on",
            )  # fmt: skip
        if NEEDS[tool] != true:
            return self.reject(
                cid, task.id, eid, "depends",
                f"gold {tool} needs a {NEEDS[tool]!r} order but {eid} is {true!r}",
            )  # fmt: skip
        reply = clean.execute(
            ToolCall(id="w", name=tool, arguments=actions[index].arguments), index + 1
        )
        if reply.error:
            return self.reject(
                cid, task.id, eid, "write_succeeds", f"gold {tool} fails in τ²: {reply.content}"
            )
        end = _run_gold(domain.name, task).execute(
            ToolCall(id="e", name=READ_TOOL, arguments={ID_KEY: eid}), 0
        )
        if _status(end.content) == stale:
            return self.reject(
                cid, task.id, eid, "same_effect",
                f"the task's own gold leaves {eid} {stale!r} too: stating it after the write "
                "would be true",
            )  # fmt: skip
        if communicated(task, (true, stale)):
            return self.reject(
                cid, task.id, eid, "task_relevance",
                "the task asks the agent to tell the user the order's status",
            )  # fmt: skip
        before, after = json.loads(fresh.content), json.loads(leaked)
        others = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        requires = {t: NEEDS[t] for t in GUARDED}
        return self.contract(
            contract_id=cid,
            domain=domain.name,
            task_id=task.id,
            cluster=eid,
            target=Target(
                entity_type="order",
                entity_id=eid,
                paths=("status",),
                scope=(
                    f"the status of order {eid} at the start of the episode, before any write "
                    f"(the cached record, left by task {other}'s gold run, also differs in "
                    f"{', '.join(others)})"
                ),
                logical_request={
                    "tool": tool,
                    "match": json.loads(json.dumps(actions[index].arguments)),
                    "gold_index": index,
                    "previous_task": other,
                },
            ),
            authoritative_value=true,
            injected_value=stale,
            interventions=(
                StaleRead(
                    tool=READ_TOOL,
                    match={ID_KEY: eid},
                    content=leaked,
                    entity_key=ID_KEY,
                    writes=WRITES,
                ),
            ),
            refutation=Refutation(
                relation="fresh_record",
                acquisition="cross_record",
                params={
                    "entity_key": ID_KEY,
                    "entity_id": eid,
                    "read_tool": READ_TOOL,
                    "path": "status",
                    "true_value": true,
                    "stale_value": stale,
                    "writes": list(WRITES),
                    "requires": requires,
                },
            ),
            semantics=(
                Quote(
                    claim=f"{READ_TOOL} is the authoritative record of the order",
                    text=authority,
                    source=f"{READ_TOOL} documentation",
                ),
                Quote(
                    claim=f"{tool} refuses an order whose status is not {NEEDS[tool]!r}",
                    text=guard,
                    source=f"{tool} documentation",
                ),
                Quote(
                    claim=f"the reply of {tool} is the order after the write",
                    text=reply_doc,
                    source=f"{tool} documentation",
                ),
            ),
        )
