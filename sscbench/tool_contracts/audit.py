"""The whole audit of a set of domains as one record: what ``sscbench contracts audit`` writes.

Order: load and quote-check the contracts, scan the source, check every tool, turn each
VIOLATES clause into a finding (headline only at the agent-visible tier), trace its
score-at-risk, then measure the checker on the shipped mutants. Nothing in the record
depends on the clock or the machine, so the same inputs give byte-identical files.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from sscbench.envs.tau2_runtime import tau2_version
from sscbench.tool_contracts.adapter import make_adapter
from sscbench.tool_contracts.checker import check_tool
from sscbench.tool_contracts.loader import load_contracts
from sscbench.tool_contracts.model import (
    AUDIT_SCHEMA_VERSION,
    ClauseResult,
    DefectClass,
    Tier,
    ToolResult,
    Witness,
)
from sscbench.tool_contracts.reliability import Reliability, measure
from sscbench.tool_contracts.score_at_risk import CONSTRUCTIONS, FindingRisk, patch_for, risk
from sscbench.tool_contracts.static_scan import Candidate, scan


class _Rec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Finding(_Rec):
    """A VIOLATES clause as reported: class, tier and whether it can be a headline."""

    id: str
    domain: str
    tool: str
    clause: str
    defect_class: DefectClass | None
    tier: Tier
    headline: bool
    witness: Witness | None


class ContractSummary(_Rec):
    """What one contract holds (counts of clauses and pinned quotes)."""

    domain: str
    tool: str
    clauses: int
    quotes: int
    probes: int
    exclusions: int


class AuditRecord(_Rec):
    """Everything the audit found, in one file."""

    schema_version: int = AUDIT_SCHEMA_VERSION
    tau2_version: str
    domains: tuple[str, ...]
    contracts: tuple[ContractSummary, ...]
    candidates: tuple[Candidate, ...]
    tools: tuple[ToolResult, ...]
    findings: tuple[Finding, ...]
    risks: tuple[FindingRisk, ...]
    reliability: Reliability | None


def _finding(r: ClauseResult) -> Finding:
    return Finding(
        id=f"{r.domain}/{r.tool}/{r.clause}", domain=r.domain, tool=r.tool, clause=r.clause,
        defect_class=r.defect_class, tier=r.tier, headline=r.tier == "agent_visible",
        witness=r.witness,
    )  # fmt: skip


def run_audit(
    domains: tuple[str, ...],
    with_reliability: bool = True,
    on_progress: Callable[[str], None] = lambda _: None,
) -> AuditRecord:
    """Audit ``domains`` end to end."""
    contracts = {d: load_contracts(d) for d in domains}
    summaries, tools, candidates = [], [], []
    for domain in domains:
        on_progress(f"{domain}: static scan and {len(contracts[domain])} contracts")
        candidates.extend(scan(domain))
        for c in contracts[domain]:
            summaries.append(ContractSummary(
                domain=domain, tool=c.tool, clauses=len(c.clauses()), quotes=len(c.quotes()),
                probes=len(c.probes), exclusions=len(c.exclusions),
            ))  # fmt: skip
            tools.append(check_tool(make_adapter(domain), c))
    findings = [_finding(r) for t in tools for r in t.clauses if r.verdict == "VIOLATES"]
    risks = []
    by_tool = {(c.domain, c.tool): c for cs in contracts.values() for c in cs}
    for t in tools:
        for r in t.clauses:
            if r.verdict == "VIOLATES":
                fid = f"{r.domain}/{r.tool}/{r.clause}"
                on_progress(f"score-at-risk: {fid}")
                risks.append(risk(by_tool[(r.domain, r.tool)], r, patch_for(fid),
                                  CONSTRUCTIONS.get(fid)))  # fmt: skip
    reliability = None
    if with_reliability:
        on_progress("checker reliability: mutants and controls")
        reliability = measure({(t.domain, t.tool): t for t in tools}, domains)
    return AuditRecord(
        tau2_version=tau2_version(), domains=domains, contracts=tuple(summaries),
        candidates=tuple(candidates), tools=tuple(tools), findings=tuple(findings),
        risks=tuple(risks), reliability=reliability,
    )  # fmt: skip
