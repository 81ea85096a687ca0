"""What a contract means, checked: a contract the schema accepts can still say nothing.

The schema checks shapes; the meaning is in the docs (docs/measurement.md §2.1, §3.1 and
§3.3; docs/writing-an-operator.md §5): a fault asserts a false ``v′`` where the state holds
``v``, through an intervention on a tool of the domain whose calls it matches, persisting
as its kind allows, and a registered relation decides refutation from what it reads of the
contract. A hand-written contract that contradicts any of this would run, trigger nothing
or be labelled ``never``, and quietly turn into a result. :func:`contradictions` lists what
is contradictory, one line each, so ``run --contract`` refuses it before anything runs.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from sscbench.envs.environment import tool_kinds, tool_parameters, user_tool_kinds
from sscbench.fault_contracts.contract import (
    ArtifactTTL,
    FaultContract,
    InterventionSpec,
    ObservationRewrite,
    ReadingRewrite,
    StaleRead,
    ToolEdit,
    WriteSuppression,
)
from sscbench.fault_contracts.refutation import RELATION_NEEDS, RelationNeeds

WRITE_PERSISTENCE = ("first_attempt", "all_attempts")
"""Persistence counted in attempts of a write; the others count deliveries of a read."""
WRITE_INTERVENTIONS = (WriteSuppression, ToolEdit)


def contradictions(contract: FaultContract) -> list[str]:
    """Every way ``contract`` contradicts what a contract means (empty: none)."""
    kinds = tool_kinds(contract.domain)
    arguments = tool_parameters(contract.domain)
    problems = list(_values(contract))
    for index, spec in enumerate(contract.interventions):
        problems += _intervention(contract, f"interventions[{index}]", spec, kinds, arguments)
    problems += _persistence(contract)
    needs = RELATION_NEEDS.get(contract.refutation.relation)
    if needs is not None:
        problems += _relation(contract, needs)
    return problems


def _values(contract: FaultContract) -> Iterator[str]:
    if contract.injected_value == contract.authoritative_value:
        yield (
            "injected_value equals authoritative_value (v′ = v): the fault asserts nothing "
            "false (a target-value control injects the value the task asks for, not v)"
        )


def _intervention(
    contract: FaultContract,
    where: str,
    spec: InterventionSpec,
    kinds: Mapping[str, str],
    arguments: Mapping[str, frozenset[str]],
) -> Iterator[str]:
    domain = contract.domain
    if isinstance(spec, ReadingRewrite):  # a device tool the customer runs (telecom)
        device = user_tool_kinds(domain)
        if device.get(spec.tool) != "read":
            yield f"{where}.tool {spec.tool!r} is not a device reading of the {domain} domain"
        if spec.shows == spec.reads:
            yield f"{where} replaces {spec.shows!r} with itself: the rewrite changes nothing"
        return
    writes = isinstance(spec, WRITE_INTERVENTIONS)
    tool = spec.tool
    if tool not in kinds:
        yield f"{where}.tool {tool!r} is not a tool of the {domain} domain: it matches no call"
    elif writes and kinds[tool] != "write":
        yield (
            f"{where} ({spec.kind}) acts on {tool!r}, a {kinds[tool]} tool: there is no write "
            "to suppress or edit"
        )
    else:
        unknown = sorted(set(spec.match) - arguments[tool])
        if unknown:
            yield (
                f"{where}.match names {', '.join(map(repr, unknown))}, which {tool} does not "
                f"take (it takes {', '.join(sorted(arguments[tool]))}): it matches no call"
            )
    if isinstance(spec, ArtifactTTL) and kinds.get(spec.gate_tool) != "write":
        yield f"{where}.gate_tool {spec.gate_tool!r} is not a write tool of the {domain} domain"
    if isinstance(spec, StaleRead):
        missing = [w for w in spec.writes if kinds.get(w) != "write"]
        if missing:
            yield f"{where}.writes names {missing[0]!r}, which is not a write tool of {domain}"
    if isinstance(spec, WRITE_INTERVENTIONS):
        outside = sorted(set(spec.affected_fields) - set(contract.target.paths))
        if outside:
            yield (
                f"{where}.affected_fields {outside} are not among target.paths "
                f"{list(contract.target.paths)}: the write's effect is not the fact"
            )
    if isinstance(spec, ObservationRewrite) and spec.role == "fault":
        for edit in spec.edits:
            if edit.path not in spec.expect:
                yield (
                    f"{where} edits {edit.path!r} without an expect value for it: the rewrite "
                    "would assert v′ about a state it was not built for"
                )
            elif spec.expect[edit.path] == edit.value:
                yield (
                    f"{where} edits {edit.path!r} to the value it expects to find there: "
                    "the rewrite changes nothing"
                )


def _persistence(contract: FaultContract) -> Iterator[str]:
    faults = [s for s in contract.interventions if getattr(s, "role", "fault") == "fault"]
    has_write = any(isinstance(s, WRITE_INTERVENTIONS) for s in faults)
    counts_attempts = contract.persistence in WRITE_PERSISTENCE
    if counts_attempts and not has_write:
        yield (
            f"persistence {contract.persistence} counts attempts of a write, but no "
            "intervention suppresses or edits a write"
        )
    if has_write and not counts_attempts:
        yield (
            f"persistence {contract.persistence} counts deliveries of a read, but the fault "
            "acts on a write (use first_attempt or all_attempts)"
        )


def _relation(contract: FaultContract, needs: RelationNeeds) -> Iterator[str]:
    r = contract.refutation
    params: dict[str, Any] = r.params
    missing = [key for key in needs.params if key not in params]
    if missing:
        yield f"refutation.params lacks {', '.join(missing)}, which {r.relation} reads"
    if needs.acquisitions and r.acquisition not in needs.acquisitions:
        yield (
            f"refutation.acquisition {r.acquisition} is not one {r.relation} decides "
            f"({', '.join(needs.acquisitions)})"
        )
    read: set[str] = set()
    for key in needs.fields:
        value = params.get(key)
        if isinstance(value, list):
            read |= {str(f) for f in value}
        elif value is not None:
            read.add(str(value))
    if read and not read & set(contract.target.paths):
        yield (
            f"target.paths {list(contract.target.paths)} name no field {r.relation} reads "
            f"({', '.join(sorted(read))}): the refutation is about another fact"
        )
    for key in needs.entity:
        if key in params and params[key] != contract.target.entity_id:
            yield (
                f"refutation.params.{key} {params[key]!r} is not the target entity "
                f"{contract.target.entity_id!r}"
            )
    if needs.request:
        yield from _same_request(contract, params)
    if needs.intervention is not None and not any(
        s.kind == needs.intervention for s in contract.interventions
    ):
        yield f"{r.relation} reads a {needs.intervention} intervention, and the contract has none"
    if needs.semantics and not contract.semantics:
        yield f"{r.relation} needs quoted agent-visible semantics, and the contract quotes none"


def _same_request(contract: FaultContract, params: Mapping[str, Any]) -> Iterator[str]:
    write = next((s for s in contract.interventions if isinstance(s, WRITE_INTERVENTIONS)), None)
    if write is None:
        yield (
            f"{contract.refutation.relation} watches a write request, and no intervention "
            "acts on one"
        )
    elif (params.get("tool"), params.get("match")) != (write.tool, write.match):
        yield (
            f"refutation.params tool/match name another request than the one the "
            f"{write.kind} acts on ({write.tool} {write.match})"
        )
