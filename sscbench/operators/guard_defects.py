"""Shared machinery of the missing-guard operators: a refused gold write accepted.

τ²'s reference plans contain a few writes the tools refuse (the task expects the refusal:
a return to a payment method that is neither the original one nor a gift card, an
exchange of an order that is not delivered, an exchange whose price difference exceeds the
gift card's balance). A *guard site* names the guard (its ``if`` line and the error it
raises) and how the facts it tests show in records. The defective copy of the tool has the
guard disabled, so the gold write succeeds and its own reply is delivered
(:class:`~sscbench.fault_contracts.contract.ToolEdit` with ``reply="edited"``): ``v′`` is
what that reply shows for the affected fields (e.g. status ``exchange requested``), ``v``
what the record holds when the request is refused (the status before it). The refutation is
``precondition_records``: records of the state the request met that show the guard's test
failing, read against the quoted rule.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from sscbench.envs import ToolCall
from sscbench.envs.tool_edit import SourceEdit
from sscbench.fault_contracts.contract import FaultContract, Quote, Refutation
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.fault_contracts.relations.effect_read_back import fields_of
from sscbench.operators.base import OperatorParams, Rejection
from sscbench.operators.tool_defects import (
    RECORDS,
    SiteOperator,
    communicated,
    doc_line,
    edit_contract,
)

Pieces = Callable[[dict[str, Any], dict[str, Any]], list[dict[str, Any]]]
"""(gold arguments, the defective reply) → the facts the guard tests, as record pieces."""


@dataclass(frozen=True)
class GuardSite:
    """One guard of one write tool, the facts it tests and the rule that states it."""

    domain: str
    tool: str
    key: str
    edits: tuple[SourceEdit, ...]
    error: str
    fields: tuple[str, ...]
    entity_type: str
    pieces: Pieces
    rule: str
    rule_needle: str


def disable(line: str) -> tuple[SourceEdit, ...]:
    """Disable the guard whose ``if`` is ``line``."""
    return (SourceEdit(op="disable_guard", line=line),)


def piece(
    entity_key: str, entity_id: str, path: str, op: str, value: Any, window: str = "same_state"
) -> dict[str, Any]:
    """One fact a guard tests, as a record shows it."""
    return {
        "entity_key": entity_key,
        "entity_id": entity_id,
        "path": path,
        "op": op,
        "value": value,
        "window": window,
    }


class GuardDefectParams(OperatorParams):
    """The guard is missing from the tool: every matching request meets the defect."""

    persistence: Literal["all_attempts"] = "all_attempts"


class GuardDefectOperator(SiteOperator[GuardDefectParams, GuardSite]):
    """Base of the missing-guard operators: subclasses list their ``sites``."""

    sites: ClassVar[tuple[GuardSite, ...]]
    acquisition: ClassVar[Any] = "cross_record"
    cluster_key: ClassVar[str] = "record"
    params_model: ClassVar[type[OperatorParams]] = GuardDefectParams

    def _candidate(
        self, domain: Any, task: Any, actions: list[Any], index: int, site: GuardSite
    ) -> FaultContract | Rejection:
        action = actions[index]
        id_key, read_tool, _ = RECORDS[site.entity_type]
        eid = str(action.arguments.get(id_key))
        cid = f"{self.name}/{site.domain}/{task.id}/{index}/{site.key}"
        rule = next((ln.strip() for ln in domain.policy.splitlines() if site.rule_needle in ln), "")
        authority = doc_line(domain, read_tool, "Get ")
        if not rule or not authority:
            return self.reject(
                cid, task.id, eid, "semantics",
                f"the policy no longer states the rule the guard enforces ({site.rule_needle!r})",
            )  # fmt: skip
        clean = self._replay(site, task, actions, index, None)
        pre = clean.execute(ToolCall(id="r", name=read_tool, arguments={id_key: eid}), index)
        real = clean.execute(ToolCall(id="w", name=site.tool, arguments=action.arguments), index)
        if not real.error or site.error not in real.content or pre.error:
            return self.reject(
                cid, task.id, eid, "guard_fires",
                f"the guard does not refuse gold {site.tool} here ({real.content[:80]}): removing "
                "it changes nothing on the reference plan",
            )  # fmt: skip
        match = json.loads(json.dumps(action.arguments))
        draft = edit_contract(
            self,
            site,
            (cid, task.id, eid, index),
            match,
            f"whether {site.tool} (gold action {index}) may act on {site.entity_type} "
            f"{eid}: {', '.join(site.fields)} after the request",
            "edited",
            Refutation(
                relation="precondition_records",
                acquisition="cross_record",
                params={"tool": site.tool, "match": match, "pieces": []},
            ),
            Quote(claim=site.rule, text=rule, source=f"{site.domain} policy"),
            (read_tool, authority),
        )
        faulted = self._replay(site, task, actions, index, ContractIntervention(draft))
        reply = faulted.execute(ToolCall(id="w", name=site.tool, arguments=action.arguments), index)
        if reply.error:
            return self.reject(
                cid, task.id, eid, "guard_fires",
                f"without the guard gold {site.tool} still fails: {reply.content[:80]}",
            )  # fmt: skip
        accepted = json.loads(reply.content)
        stored = fields_of(json.loads(pre.content), site.fields)
        claimed = fields_of(accepted, site.fields)
        if communicated(task, (*stored.values(), *claimed.values())):
            return self.reject(
                cid, task.id, eid, "task_relevance",
                "the task asks the agent to tell the user the affected value",
            )  # fmt: skip
        refutation = draft.refutation.model_copy(
            update={
                "params": {
                    "tool": site.tool,
                    "match": match,
                    "pieces": site.pieces(match, accepted),
                }
            }
        )
        return draft.model_copy(
            update={
                "authoritative_value": stored,
                "injected_value": claimed,
                "refutation": refutation,
            }
        )
