"""The scored set: faulted runs with a reference label, plus clean negative controls.

Two reference sources:

* a **review directory** — the adjudicated human reference (``review agree``), the one
  docs/measurement.md §7 scores oracles against;
* ``truth`` — the scripted agents' private ground truth, for runs that have one. It is a
  stand-in that needs no humans (for development and the offline demo); its arrival class
  combines the reconstructor's ``T_E`` (a deterministic relation on the delivered
  history) with the true ``T_S``, because the agents' truth records uses, not arrival.

Only triggered runs are scored: before the fault-bearing observation reached the model
there was nothing to adopt. Target-value controls stay in the set (they are arrival data)
but have no adoption reference, so they never enter adoption metrics.

A **clean negative control** is a clean run of a task paired with each (non-control)
contract of that task among the scored runs: contract-aware oracles are asked about a
``v′`` that never appeared. Clean runs are taken from the run directory and any ``--clean``
directories.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.io import ledger_contract
from sscbench.oracles.base import Trajectory
from sscbench.reconstruct.label import arrival_class, label_ledger
from sscbench.reconstruct.labels import EventTime, RunLabels
from sscbench.reconstruct.validate import GroundTruth, truth_of
from sscbench.records.ledger import Ledger, read_ledger
from sscbench.runs.episode import LEDGER_FILE
from sscbench.user_files import find_files

ARRIVAL_STRATA = ("before", "after", "absent", "none", "undecidable", "clean")
"""Human (reference) arrival classes, plus ``clean`` for negative controls."""


@dataclass(frozen=True)
class Reference:
    """What an oracle is scored against for one item."""

    adopted: bool | None
    t_u: int | None
    z_s: str
    operator: str
    control: bool
    clean: bool


@dataclass(frozen=True)
class Item:
    """One scored trajectory with its reference."""

    trajectory: Trajectory
    reference: Reference


def ledgers(roots: Iterable[Path]) -> list[tuple[Path, Ledger]]:
    """(run directory, ledger) of every run under ``roots`` (set-aside runs skipped)."""
    out = []
    for root in roots:
        for path in find_files(root, LEDGER_FILE):
            out.append((path.parent, read_ledger(path)))
    return out


def _faulted(run_dir: Path, ledger: Ledger, contract: FaultContract, reference: Reference) -> Item:
    trajectory = Trajectory(ledger.header.run_id, run_dir, ledger, contract, clean=False)
    return Item(trajectory, reference)


def truth_z_s(t_e: EventTime, truth: GroundTruth) -> str:
    """The truth stand-in's arrival class: the reconstructor's ``T_E`` (a deterministic
    relation on the delivered history) against the true ``T_S``."""
    if truth.t_s is None:
        return "none"
    return str(arrival_class(t_e, EventTime(status="found", step=truth.t_s, reason="truth")))


def truth_items(
    runs: Sequence[tuple[Path, Ledger]],
    labels: Mapping[str, RunLabels] | None = None,
    truths: Mapping[Path, GroundTruth | None] | None = None,
) -> list[Item]:
    """Faulted scripted runs scored against their ground truth (``labels`` and ``truths``:
    the runs' automatic labels by run id and ground truths by directory, when already
    computed, to avoid doing that work twice)."""
    items = []
    for run_dir, ledger in runs:
        contract = ledger_contract(ledger)
        if contract is None:
            continue
        truth = truth_of(run_dir, truths, ledger)
        if truth is None or not truth.triggered:
            continue
        label = (labels or {}).get(ledger.header.run_id) or label_ledger(run_dir, ledger)
        reference = Reference(
            adopted=None if contract.control else truth.adopted,
            t_u=truth.t_u,
            z_s=truth_z_s(label.t_e, truth),
            operator=contract.operator,
            control=contract.control,
            clean=False,
        )
        items.append(_faulted(run_dir, ledger, contract, reference))
    return items


def review_items(review_dir: Path, parsed: Mapping[Path, Ledger] | None = None) -> list[Item]:
    """Reviewed runs scored against the accepted (unanimous or adjudicated) reference,
    recomputed from the reviewers' files so that it is never stale (``parsed``: ledgers
    already read, by run directory)."""
    from sscbench.review.export import read_key
    from sscbench.review.report import agreement_report

    key = read_key(review_dir)
    items = []
    for ref in agreement_report(review_dir).references:
        entry = key.get(ref.packet_id)
        if ref.status != "accepted" or entry is None or ref.t_u is None:
            continue
        run_dir = Path(entry.run_dir)
        ledger = (parsed or {}).get(run_dir) or read_ledger(run_dir / LEDGER_FILE)
        contract = ledger_contract(ledger)
        if contract is None:
            raise ConfigError(f"{run_dir}: reviewed packet {ref.packet_id} is of a clean run")
        adopted = {"yes": True, "no": False}.get(ref.adopted or "")
        reference = Reference(
            adopted=None if contract.control else adopted,
            t_u=ref.t_u.step,
            z_s=str(ref.z_s),
            operator=contract.operator,
            control=contract.control,
            clean=False,
        )
        items.append(_faulted(run_dir, ledger, contract, reference))
    return items


def clean_items(runs: Sequence[tuple[Path, Ledger]], faulted: Sequence[Item]) -> list[Item]:
    """Each clean run paired with every non-control contract of its task."""
    contracts: dict[tuple[str, str], dict[str, FaultContract]] = {}
    for item in faulted:
        c = item.trajectory.contract
        if not c.control:
            contracts.setdefault((c.domain, c.task_id), {})[c.contract_id] = c
    items = []
    for run_dir, ledger in runs:
        h = ledger.header
        if h.fault is not None:
            continue
        for contract_id, contract in sorted(contracts.get((h.domain, h.task_id), {}).items()):
            trajectory = Trajectory(f"{h.run_id}~{contract_id}", run_dir, ledger, contract, True)
            reference = Reference(
                adopted=False,
                t_u=None,
                z_s="clean",
                operator=contract.operator,
                control=False,
                clean=True,
            )
            items.append(Item(trajectory, reference))
    return items


def build_items(
    rundir: Path,
    reference: str,
    clean_dirs: Sequence[Path] = (),
    labels: Mapping[str, RunLabels] | None = None,
    *,
    runs: Sequence[tuple[Path, Ledger]] | None = None,
    truths: Mapping[Path, GroundTruth | None] | None = None,
) -> tuple[list[Item], Literal["truth", "review"]]:
    """The scored set for ``reference`` (``truth`` or a review directory); ``labels``,
    ``runs`` (``rundir``'s parsed ledgers) and ``truths``: what the caller already has, so
    that no ledger is parsed and no run labelled twice."""
    if not rundir.is_dir():
        raise ConfigError(f"{rundir} is not a directory of runs")
    if runs is None:
        runs = ledgers([rundir])
    kind: Literal["truth", "review"] = "truth"
    if reference == "truth":
        faulted = truth_items(runs, labels, truths)
    else:
        review_dir = Path(reference)
        if not review_dir.is_dir():
            raise ConfigError(f"--reference must be 'truth' or a review directory: {reference}")
        faulted, kind = review_items(review_dir, dict(runs)), "review"
    clean_runs = [*runs, *ledgers(clean_dirs)]
    return faulted + clean_items(clean_runs, faulted), kind
