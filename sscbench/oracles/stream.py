"""``sscbench oracles evaluate`` one run at a time, so its memory does not grow with runs.

The scored set (:mod:`.dataset`) holds every parsed ledger; at 100,000 runs that is
gigabytes. Here each faulted run's ledger is parsed once, its item is judged by every
oracle at once and dropped: what is kept is each oracle's verdict lines (spooled to a
temporary file, in item order) and its stratified counts (:class:`StratifiedCounts`).
Clean negative controls need the contracts of every scored faulted run of their task,
so the clean runs come in a second pass — the first pass reads only their header line,
so each ledger is still parsed once. The output — ``comparison.json``, ``verdicts.jsonl``
(oracle by oracle, items in the same order), ``scores.json`` — is the one the item lists
gave, byte for byte.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.io import ledger_contract
from sscbench.oracles.base import Oracle, OracleSetting, Trajectory
from sscbench.oracles.dataset import Item, Reference, review_items, truth_z_s
from sscbench.oracles.evaluate import OracleResult, verdict_line
from sscbench.oracles.metrics import StratifiedCounts
from sscbench.oracles.reconstructor import ReconstructorOracle
from sscbench.reconstruct.label import label_ledger
from sscbench.reconstruct.labels import LabelIndex, RunLabels
from sscbench.reconstruct.validate import GroundTruth, ground_truth
from sscbench.records.ledger import read_ledger
from sscbench.review.compare import Comparison, add_reference
from sscbench.runs.episode import LEDGER_FILE
from sscbench.user_files import iter_files

KEPT_MISMATCHES = 200
"""``comparison.json`` lists the first 200 mismatches; only those are kept."""


class BoundedComparison(Comparison):
    """A :class:`Comparison` that keeps only the first mismatches of the ``shown``
    quantities (all that ``comparison.json`` writes), however many runs are compared."""

    def __init__(self, shown: Sequence[str] | None) -> None:
        super().__init__()
        self.shown = None if shown is None else frozenset(shown)

    def add(self, packet: str, quantity: str, auto: str, reference: str) -> None:
        """Count one comparison; keep the mismatch only while there is room."""
        self.compared[quantity] += 1
        if auto == reference:
            self.agree[quantity] += 1
        elif (self.shown is None or quantity in self.shown) and len(
            self.mismatches
        ) < KEPT_MISMATCHES:
            self.mismatches.append((packet, quantity, auto, reference))


@dataclass
class Judge:
    """One oracle judging streamed items: its verdict lines go to a temporary file, its
    scores are running counts. A :class:`ConfigError` while judging (a cache miss with no
    key) makes it skipped with that reason, scored on nothing — never half-scored."""

    name: str
    setting: OracleSetting
    oracle: Oracle | None
    skipped: str | None = None
    reuse_labels: bool = True
    """Whether the reconstructor oracle may take the run's automatic labels: only when the
    operators' rules made them (not an LLM classifier's labels from ``labels.jsonl``)."""
    counts: StratifiedCounts = field(init=False)
    _spool: IO[str] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.counts = StratifiedCounts(self.setting.output == "step")
        if self.skipped is None:
            self._spool = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 (closed by close())

    def judge(self, item: Item, label: RunLabels | None = None) -> None:
        """Judge one item in the oracle's scope (``label``: the run's automatic labels,
        which the reconstructor oracle takes instead of labelling the run again)."""
        if self.skipped is not None or self.oracle is None or self._spool is None:
            return
        scope = self.setting.scope
        if scope and item.reference.operator not in scope:
            return
        if isinstance(self.oracle, ReconstructorOracle) and label is not None and self.reuse_labels:
            self.oracle.reuse({label.run_id: label})
        try:
            verdict = self.oracle.judge(item.trajectory)
        except ConfigError as exc:
            self.skipped = str(exc)
            self.close()
            return
        self._spool.write(verdict_line(self.name, item, verdict))
        self.counts.add(item.reference, verdict)

    def result(self) -> OracleResult:
        """As :func:`~sscbench.oracles.evaluate.run_oracle` returns it (without items)."""
        if self.skipped is not None:
            return OracleResult(self.name, self.setting, skipped=self.skipped)
        return OracleResult(self.name, self.setting, scores=self.counts.scores())

    def copy_verdicts(self, out: IO[str]) -> None:
        """Append the spooled verdict lines to ``out``."""
        if self._spool is None:
            return
        self._spool.seek(0)
        while chunk := self._spool.read(1 << 20):
            out.write(chunk)

    def close(self) -> None:
        """Drop the spool."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None


@dataclass
class Streamed:
    """What the pass over the runs found."""

    kind: Literal["truth", "review"]
    faulted: int = 0
    clean: int = 0
    comparison: Comparison | None = None


def _header(path: Path) -> dict[str, Any] | None:
    """A ledger's first line as JSON (``None`` when it is not an object): enough to tell a
    clean run (no fault) from a faulted one without parsing the ledger."""
    with path.open("rb") as fh:
        first = fh.readline()
    try:
        header = json.loads(first)
    except ValueError:
        return None  # damaged: the full parse names the file and line
    return header if isinstance(header, dict) else None


def _clean_header(header: dict[str, Any] | None) -> bool:
    return header is not None and header.get("kind") == "header" and not header.get("fault")


def _truth_reference(truth: GroundTruth, label: RunLabels) -> Any:
    """The accepted reference a triggered scripted run's truth stands for (as
    :func:`~sscbench.oracles.validation.truth_references` builds it)."""
    from sscbench.oracles.validation import truth_reference

    return truth_reference(truth, label)


def evaluate_streaming(
    rundir: Path,
    reference: str,
    clean_dirs: Sequence[Path],
    judges: Sequence[Judge],
    labels: LabelIndex | None,
    shown: Sequence[str] | None,
) -> Streamed:
    """Judge the scored set of ``rundir`` (``reference``: ``truth`` or a review directory)
    plus the clean controls of ``rundir`` and ``clean_dirs``, one run at a time.

    ``labels``: the run set's ``labels.jsonl`` (checked current by the caller), or
    ``None`` to label each faulted run from its parsed ledger. ``shown``: the compared
    quantities ``comparison.json`` lists (their mismatches are the ones kept)."""
    found = Streamed(kind="truth" if reference == "truth" else "review")
    contracts: dict[tuple[str, str], dict[str, FaultContract]] = {}
    clean_paths: list[tuple[Path, str, str]] = []

    def pair(contract: FaultContract) -> None:
        if not contract.control:
            contracts.setdefault((contract.domain, contract.task_id), {})[contract.contract_id] = (
                contract
            )

    def judge(item: Item, label: RunLabels | None) -> None:
        for j in judges:
            j.judge(item, label)

    def note_clean(path: Path, header: dict[str, Any]) -> None:
        clean_paths.append((path, str(header.get("domain")), str(header.get("task_id"))))

    if found.kind == "truth":
        found.comparison = BoundedComparison(shown)
        for path in iter_files(rundir, LEDGER_FILE):
            header = _header(path)
            if header is not None and _clean_header(header):
                note_clean(path, header)
                continue
            run_dir, ledger = path.parent, read_ledger(path)
            known = labels.get(ledger.header.run_id) if labels is not None else None
            label = known if labels is not None else label_ledger(run_dir, ledger)
            contract = ledger_contract(ledger)
            if contract is None:
                continue
            truth = ground_truth(run_dir, ledger)
            if truth is None or not truth.triggered:
                continue
            if label is None:  # not in the labels file: labelled here, not compared
                label = label_ledger(run_dir, ledger)
            else:
                add_reference(found.comparison, _truth_reference(truth, label), label)
            ref = Reference(
                adopted=None if contract.control else truth.adopted,
                t_u=truth.t_u,
                z_s=truth_z_s(label.t_e, truth),
                operator=contract.operator,
                control=contract.control,
                clean=False,
            )
            run_id = ledger.header.run_id
            judge(Item(Trajectory(run_id, run_dir, ledger, contract, clean=False), ref), label)
            found.faulted += 1
            pair(contract)
    else:
        review_dir = Path(reference)
        if not review_dir.is_dir():
            raise ConfigError(f"--reference must be 'truth' or a review directory: {reference}")
        by_id = _labels_by_id(review_dir, rundir, labels)
        for item in review_items(review_dir):  # the reviewed sample: small, held
            judge(item, by_id.get(item.trajectory.ledger.header.run_id))
            found.faulted += 1
            pair(item.trajectory.contract)
        from sscbench.oracles.validation import review_comparison

        found.comparison = review_comparison(review_dir, by_id)
        for path in iter_files(rundir, LEDGER_FILE):
            header = _header(path)
            if header is not None and _clean_header(header):
                note_clean(path, header)
    for clean_dir in clean_dirs:
        for path in iter_files(clean_dir, LEDGER_FILE):
            header = _header(path)
            if header is not None and _clean_header(header):
                note_clean(path, header)
    for path, domain, task_id in clean_paths:
        paired = contracts.get((domain, task_id))
        if not paired:
            continue
        ledger = read_ledger(path)
        h = ledger.header
        if h.fault is not None:
            continue
        for contract_id, contract in sorted(paired.items()):
            trajectory = Trajectory(
                f"{h.run_id}~{contract_id}", path.parent, ledger, contract, True
            )
            ref = Reference(
                adopted=False,
                t_u=None,
                z_s="clean",
                operator=contract.operator,
                control=False,
                clean=True,
            )
            judge(Item(trajectory, ref), None)
            found.clean += 1
    return found


def _labels_by_id(
    review_dir: Path, rundir: Path, labels: LabelIndex | None
) -> dict[str, RunLabels]:
    """The automatic labels of the reviewed runs under ``rundir``, by run id: read from
    the labels file, or computed from their ledgers when there is none."""
    from sscbench.review.export import read_key

    root = rundir.resolve()
    out: dict[str, RunLabels] = {}
    for entry in read_key(review_dir).values():
        if labels is not None:
            label = labels.get(entry.run_id)
            if label is not None:
                out[entry.run_id] = label
            continue
        run_dir = Path(entry.run_dir)
        if run_dir.resolve().is_relative_to(root) and (run_dir / LEDGER_FILE).is_file():
            out[entry.run_id] = label_ledger(run_dir, read_ledger(run_dir / LEDGER_FILE))
    return out
