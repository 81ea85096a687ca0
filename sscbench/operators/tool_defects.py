"""Shared machinery of the defect-class operators: a defective tool behind a gold write.

A *site* names a write tool, the source edit that gives it one defect, the record fields the
defect leaves wrong and how the record is read. For each gold call of a site's tool, the
operator replays the task's gold plan up to that call in an episode whose choke point runs
the call through the defective copy (:class:`~sscbench.fault_contracts.contract.ToolEdit`):
``v′`` is what the conforming success reply claims for the fields, ``v`` what the record
holds afterwards (read back). The refutation is ``effect_read_back``: a later read of the
record that shows the fields as the defect left them.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.envs.tool_edit import SourceEdit
from sscbench.fault_contracts.contract import (
    FaultContract,
    Quote,
    Refutation,
    Target,
    ToolEdit,
)
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.fault_contracts.relations.effect_read_back import fields_of
from sscbench.operators.base import Operator, OperatorParams, ProposalContext, Rejection

# entity type -> (id argument and field, authoritative read tool, writes that name it)
RECORDS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "reservation": (
        "reservation_id",
        "get_reservation_details",
        (
            "update_reservation_flights",
            "update_reservation_baggages",
            "update_reservation_passengers",
            "cancel_reservation",
        ),
    ),
    "order": (
        "order_id",
        "get_order_details",
        (
            "cancel_pending_order",
            "exchange_delivered_order_items",
            "modify_pending_order_address",
            "modify_pending_order_items",
            "modify_pending_order_payment",
            "return_delivered_order_items",
        ),
    ),
    "user": ("user_id", "get_user_details", ("modify_user_address",)),
}


@dataclass(frozen=True)
class DefectSite:
    """One defect of one write tool: the edit, the fields it leaves wrong, the quote."""

    domain: str
    tool: str
    key: str
    edits: tuple[SourceEdit, ...]
    fields: tuple[str, ...]
    entity_type: str
    claim: str
    needle: str


class ToolDefectParams(OperatorParams):
    """A defect is in the tool: every matching request meets it, retries included."""

    persistence: Literal["all_attempts"] = "all_attempts"


def doc_line(domain: Any, tool: str, needle: str) -> str:
    """The line of ``tool``'s documentation containing ``needle`` (stripped; "" if none)."""
    doc = getattr(domain.toolkit_class, tool).__doc__ or ""
    return next((ln.strip() for ln in doc.splitlines() if needle in ln), "")


def communicated(task: Any, values: Iterable[Any]) -> list[str]:
    """The ``values`` (as text, sorted) that the task asks the agent to tell the user: a
    candidate about one is rejected (``task_relevance``), since stating it is the required
    answer, not reliance."""
    told = [str(x) for x in (task.evaluation_criteria.communicate_info or ())]
    return sorted(str(v) for v in values if any(str(v) in text for text in told))


class EditSite(Protocol):
    """What a defect site shares, whichever kind: the tool, its edit and the record it
    leaves wrong."""

    @property
    def domain(self) -> str: ...
    @property
    def tool(self) -> str: ...
    @property
    def edits(self) -> tuple[SourceEdit, ...]: ...
    @property
    def fields(self) -> tuple[str, ...]: ...
    @property
    def entity_type(self) -> str: ...


def edit_contract(
    operator: Operator[Any],
    site: EditSite,
    where: tuple[str, str, str, int],
    match: dict[str, Any],
    scope: str,
    reply: Literal["conforming", "edited"],
    refutation: Refutation,
    claim: Quote,
    authority: tuple[str, str],
) -> FaultContract:
    """A defect-class contract: the gold write ``match`` of ``where`` (contract id, task id,
    entity id, gold index) runs through the edited tool; ``claim`` is the quote the
    refutation rests on, ``authority`` the read tool and the documentation line that makes
    its record authoritative."""
    cid, task_id, eid, index = where
    read_tool, authority_text = authority
    return operator.contract(
        contract_id=cid,
        domain=site.domain,
        task_id=task_id,
        cluster=eid,
        target=Target(
            entity_type=site.entity_type,
            entity_id=eid,
            paths=site.fields,
            scope=scope,
            logical_request={"tool": site.tool, "match": match, "gold_index": index},
        ),
        authoritative_value=None,
        injected_value=None,
        interventions=(
            ToolEdit(
                tool=site.tool,
                match=match,
                edits=site.edits,
                affected_fields=site.fields,
                reply=reply,
            ),
        ),
        refutation=refutation,
        semantics=(
            claim,
            Quote(
                claim=f"{read_tool} is the authoritative record of the {site.entity_type}",
                text=authority_text,
                source=f"{read_tool} documentation",
            ),
        ),
    )


S = TypeVar("S", bound=EditSite)
P = TypeVar("P", bound=OperatorParams)


class SiteOperator(Operator[P], Generic[P, S]):
    """Base of the operators whose candidates are gold calls of a site's tool: subclasses
    list their ``sites`` and judge one (gold call, site) in :meth:`_candidate`."""

    sites: ClassVar[tuple[Any, ...]]
    defect_class: ClassVar[str]

    def propose(self, ctx: ProposalContext) -> Iterator[FaultContract | Rejection]:
        """One candidate per (gold call of a site's tool, site), tasks in τ² order."""
        sites = [s for s in self.sites if s.domain == ctx.domain]
        if not sites:
            return
        domain = load_domain(ctx.domain)
        for task in domain.tasks:
            actions = list(task.evaluation_criteria.actions or [])
            for index, action in enumerate(actions):
                for site in (s for s in sites if s.tool == action.name):
                    yield self._candidate(domain, task, actions, index, site)

    @abstractmethod
    def _candidate(
        self, domain: Any, task: Any, actions: list[Any], index: int, site: S
    ) -> FaultContract | Rejection:
        """The contract of the site's defect on gold call ``index``, or why there is none."""

    @staticmethod
    def _replay(
        site: EditSite, task: Any, actions: list[Any], index: int, fault: Any
    ) -> EpisodeEnvironment:
        """The task's environment (faulted by ``fault``, or clean) after its gold calls
        before ``index``."""
        env = EpisodeEnvironment.open(site.domain, task, fault)
        for i, act in enumerate(actions[:index]):
            env.execute(ToolCall(id=f"g{i}", name=act.name, arguments=act.arguments), i)
        return env


class ToolDefectOperator(SiteOperator[ToolDefectParams, DefectSite]):
    """Base of the defect-class operators: subclasses list their ``sites``."""

    sites: ClassVar[tuple[DefectSite, ...]]
    acquisition: ClassVar[Any] = "post_write_read_back"
    params_model: ClassVar[type[OperatorParams]] = ToolDefectParams

    def _candidate(
        self, domain: Any, task: Any, actions: list[Any], index: int, site: DefectSite
    ) -> FaultContract | Rejection:
        action = actions[index]
        id_key, read_tool, writes = RECORDS[site.entity_type]
        eid = str(action.arguments.get(id_key))
        cid = f"{self.name}/{site.domain}/{task.id}/{index}/{site.key}"
        claim = doc_line(domain, site.tool, site.needle)
        authority = doc_line(domain, read_tool, "Get ")
        if not claim or not authority:
            return self.reject(
                cid, task.id, eid, "semantics",
                f"{site.tool} or {read_tool} no longer documents what the refutation rests on",
            )  # fmt: skip
        match = json.loads(json.dumps(action.arguments))
        draft = edit_contract(
            self,
            site,
            (cid, task.id, eid, index),
            match,
            f"the effect of {site.tool} (gold action {index}) on {site.entity_type} "
            f"{eid}: {', '.join(site.fields)}",
            "conforming",
            Refutation(
                relation="effect_read_back",
                acquisition="post_write_read_back",
                params={
                    "entity_key": id_key,
                    "entity_id": eid,
                    "read_tool": read_tool,
                    "tool": site.tool,
                    "match": match,
                    "affected_fields": list(site.fields),
                    "writes": list(writes),
                },
            ),
            Quote(claim=site.claim, text=claim, source=f"{site.tool} documentation"),
            (read_tool, authority),
        )
        env = self._replay(site, task, actions, index, ContractIntervention(draft))
        reply = env.execute(ToolCall(id="w", name=site.tool, arguments=action.arguments), index)
        if reply.error:
            return self.reject(
                cid,
                task.id,
                eid,
                "write_succeeds",
                f"gold {site.tool} fails in τ²: {reply.content}",
            )
        read = env.execute(ToolCall(id="r", name=read_tool, arguments={id_key: eid}), index + 1)
        claimed = fields_of(json.loads(reply.content), site.fields)
        stored = fields_of(json.loads(read.content), site.fields) if not read.error else None
        if stored is None or stored == claimed:
            return self.reject(
                cid, task.id, eid, "distinct_value",
                f"the defect leaves {list(site.fields)} of {eid} as the conforming tool would: "
                "nothing to refute",
            )  # fmt: skip
        shared = communicated(task, (*stored.values(), *claimed.values()))
        if shared:
            return self.reject(
                cid, task.id, eid, "task_relevance",
                f"the task asks the agent to tell the user {shared[0]!r}: stating it is the "
                "required answer, not reliance on the claimed effect",
            )  # fmt: skip
        return draft.model_copy(update={"authoritative_value": stored, "injected_value": claimed})
