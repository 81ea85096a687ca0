"""Validate reconstruction against the scripted agents' private ground truth.

Ground truth per run: ``T_F`` and triggered from the intervention log (hidden); ``T_S``,
``T_U``, ``A`` and ``Y_end`` from ``truth.jsonl`` — which fact each scripted agent used at
which step, and whether it treated the value as operative. A quantity is compared only when
the reconstruction decided it; the undecidable share is reported separately.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, TypeAdapter, ValidationError

from sscbench.agents.scripted.truth import FactConflict, FactUse
from sscbench.errors import LedgerError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.hidden_log import read_fault_deliveries
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.io import ledger_contract
from sscbench.json_paths import flatten
from sscbench.reconstruct.label import label_run
from sscbench.reconstruct.labels import RunLabels
from sscbench.reconstruct.rules.base import RunView
from sscbench.reconstruct.rules.write_effect import changed_leaves, scope_end
from sscbench.records.ledger import Ledger, iter_jsonl, read_ledger
from sscbench.runs.episode import HIDDEN_FILE, LEDGER_FILE, TRUTH_FILE
from sscbench.user_files import find_files, validation_problem

QUANTITIES = ("triggered", "t_f", "t_s", "t_u", "adopted", "y_end")

TRUTH_RECORD: TypeAdapter[FactUse | FactConflict] = TypeAdapter(
    Annotated[FactUse | FactConflict, Field(discriminator="kind")]
)


def read_truth(path: Path) -> list[dict[str, Any]]:
    """The records of a scripted run's ``truth.jsonl``, each checked against its model.

    The file is written whole at the end of a run, so any damage — a cut last line
    included — is a :class:`LedgerError` naming the file and line: ground truth with a
    hole in it would make the validation silently wrong."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        raise LedgerError(path, data.count(b"\n") + 1, "cut off (no newline at the end)")
    records = []
    for number, rec in iter_jsonl(path, data):  # the bytes read above, not read again
        try:
            TRUTH_RECORD.validate_python(rec)
        except ValidationError as exc:
            problem = f"not a truth record ({validation_problem(exc)})"
            raise LedgerError(path, number, problem) from None
        records.append(rec)
    return records


def affected(contract: FaultContract) -> dict[tuple[str, str, str], tuple[Any, Any]]:
    """Affected (entity type, id, path) → (v, v′), as the agents' truth names them."""
    c = contract
    if c.operator == "write_effect":
        return {
            ("reservation", c.target.entity_id, p): pair
            for p, pair in changed_leaves(c.authoritative_value, c.injected_value).items()
        }
    if isinstance(c.injected_value, dict):
        return {
            (c.target.entity_type, c.target.entity_id, p): (c.authoritative_value[p], v)
            for p, v in c.injected_value.items()
        }
    key = (c.target.entity_type, c.target.entity_id, c.target.paths[0])
    return {key: (c.authoritative_value, c.injected_value)}


@dataclass(frozen=True)
class GroundTruth:
    """What really happened in a scripted run."""

    triggered: bool
    t_f: int | None
    t_s: int | None
    t_u: int | None
    adopted: bool | None
    y_end: str | None
    run_id: str = ""


def _has_scripted_truth(operator: str) -> bool:
    """False for operators whose fact the scripted agents' truth cannot name."""
    from sscbench.operators.registry import OPERATORS, operator_names

    return operator not in operator_names() or OPERATORS.get(operator).scripted_truth


def ground_truth(run_dir: Path, ledger: Ledger | None = None) -> GroundTruth | None:
    """The run's ground truth, or ``None`` for runs without a scripted agent or a fault
    (``ledger``: the run's ledger when the caller has already read it)."""
    if ledger is None:
        ledger = read_ledger(run_dir / LEDGER_FILE)
    contract = ledger_contract(ledger)
    if contract is None or not (run_dir / TRUTH_FILE).exists():
        return None
    if not _has_scripted_truth(contract.operator):
        return None
    deliveries = [
        d
        for d in read_fault_deliveries(run_dir / HIDDEN_FILE) or ()
        if d.role == "fault" and (d.effective or d.control)
    ]
    if not deliveries:
        return GroundTruth(False, None, None, None, None, None, ledger.header.run_id)
    t_f = min(d.step for d in deliveries)
    # Payloads of suppressed writes assert an effect that never happened.
    suppressed = {d.step for d in deliveries if d.action == "suppress"}
    targets = affected(contract)
    end = None
    if contract.operator == "write_effect":
        end = scope_end(RunView(history=History(ledger.events), t_f=t_f, contract=contract))
    uses: list[tuple[int, bool, str | None]] = []  # (step, erroneous, stance)
    for rec in read_truth(run_dir / TRUTH_FILE):
        if rec["step"] <= t_f or (end is not None and rec["step"] > end):
            continue
        key = (rec["entity_type"], rec["entity_id"], rec["path"])
        if rec["kind"] == "fact_conflict":
            if key in targets and rec["rejected"] == targets[key][1]:
                uses.append((rec["step"], False, "retract_flag"))
            continue
        if key not in targets or rec["value"] not in targets[key]:
            continue  # another fact, or the same path in a later state (a new itinerary)
        if not rec["operative"]:
            uses.append((rec["step"], False, "verification"))
            continue
        injected = rec["value"] == targets[key][1]

        if contract.operator == "write_effect":
            injected = injected and rec["source_step"] in suppressed
        uses.append((rec["step"], injected, "endorse" if injected else "retract"))
    # Every use counts for T_S: a quote of v′ to flag or verify it is a dependent use too.
    dependent = sorted(s for s, _, _ in uses)
    erroneous = sorted(s for s, e, _ in uses if e)
    t_u = erroneous[0] if erroneous else None
    adopted = t_u is not None
    y_end = None
    if adopted:
        stances = [
            (s, "endorse" if kind == "endorse" else "retract")
            for s, _, kind in sorted(uses)
            if t_u is not None and s >= t_u and kind in {"endorse", "retract", "retract_flag"}
        ]
        final = {stance for s, stance in stances if stances and s == stances[-1][0]}
        y_end = final.pop() if len(final) == 1 else "undecidable"

    t_s = dependent[0] if dependent else None
    return GroundTruth(True, t_f, t_s, t_u, adopted, y_end, ledger.header.run_id)


@dataclass
class Agreement:
    """Per-quantity agreement counts over a set of runs."""

    agree: Counter[str] = field(default_factory=Counter)
    compared: Counter[str] = field(default_factory=Counter)
    undecidable: Counter[str] = field(default_factory=Counter)
    mismatches: list[tuple[str, str, Any, Any]] = field(default_factory=list)

    def add(self, run_id: str, quantity: str, decided: bool, ours: Any, truth: Any) -> None:
        """Record one comparison (skipped, but counted, when ours is undecidable)."""
        if not decided:
            self.undecidable[quantity] += 1
            return
        self.compared[quantity] += 1
        if ours == truth:
            self.agree[quantity] += 1
        else:
            self.mismatches.append((run_id, quantity, ours, truth))


def _step(event: Any) -> tuple[bool, int | None]:
    if event.status == "undecidable":
        return False, None
    return True, event.step if event.status == "found" else None


def compare(labels: RunLabels, truth: GroundTruth, agreement: Agreement) -> None:
    """Add one run's comparisons to ``agreement``."""
    rid = labels.run_id
    agreement.add(rid, "triggered", labels.triggered is not None, labels.triggered, truth.triggered)
    if not truth.triggered or not labels.triggered:
        return
    for name, ours, theirs in (
        ("t_f", labels.t_f, truth.t_f),
        ("t_s", labels.t_s, truth.t_s),
        ("t_u", labels.t_u, truth.t_u),
    ):
        decided, step = _step(ours)
        agreement.add(rid, name, decided, step, theirs)
    agreement.add(rid, "adopted", labels.adopted is not None, labels.adopted, truth.adopted)
    if truth.adopted and labels.adopted:
        agreement.add(
            rid, "y_end", labels.y_end not in (None, "undecidable"), labels.y_end, truth.y_end
        )


def ground_truths(runs: Iterable[tuple[Path, Ledger]]) -> dict[Path, GroundTruth | None]:
    """Each run directory's ground truth, from ledgers already read."""
    return {run_dir: ground_truth(run_dir, ledger) for run_dir, ledger in runs}


def truth_of(
    run_dir: Path,
    truths: Mapping[Path, GroundTruth | None] | None,
    ledger: Ledger | None = None,
) -> GroundTruth | None:
    """The ground truth ``truths`` already holds for ``run_dir``, else derived now."""
    if truths is not None and run_dir in truths:
        return truths[run_dir]
    return ground_truth(run_dir, ledger)


def validate_dir(
    root: Path,
    labels: Iterable[RunLabels] | None = None,
    truths: Mapping[Path, GroundTruth | None] | None = None,
) -> tuple[Agreement, int]:
    """Compare every scripted faulted run under ``root`` with its ground truth.

    Pass the ``labels`` already reconstructed for ``root`` (and the ``truths`` already
    derived, by run directory) to avoid doing that work twice.
    """
    known = {label.run_id: label for label in labels or ()}
    agreement = Agreement()
    runs = 0
    for ledger_path in find_files(root, LEDGER_FILE):  # set-aside runs skipped, as label_dir
        run_dir = ledger_path.parent
        truth = truth_of(run_dir, truths)
        if truth is None:
            continue
        runs += 1
        label = known.get(truth.run_id) or label_run(run_dir)
        compare(label, truth, agreement)
    return agreement, runs


__all__ = [
    "QUANTITIES",
    "Agreement",
    "GroundTruth",
    "compare",
    "flatten",
    "ground_truth",
    "ground_truths",
    "truth_of",
    "validate_dir",
]
