"""Score reconstruction against reference labels: adoption, first use, arrival class.

The reference of an item is a hand label (:class:`~sscbench.accuracy.items.HandLabel`) or a
scripted agent's ground truth. Per operator and overall it reports adoption precision,
recall and agreement; ``T_S`` and ``T_U`` exact and within one step; ``Z_S`` agreement (the
reference arrival class is computed from the run's ``T_E`` — the refutation relation's, the
same for both — and the reference ``T_S``); and the share of items where any of ``T_S``,
``T_U`` or ``A`` came out undecidable. An undecidable label never counts as agreeing.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sscbench.accuracy.counterfactual import Counterfactual, materialise
from sscbench.accuracy.items import CorpusItem, Step
from sscbench.reconstruct.label import SecondPass, arrival_class, label_run
from sscbench.reconstruct.labels import EventTime, RunLabels
from sscbench.records.ledger import iter_jsonl, read_ledger


@dataclass(frozen=True)
class Reference:
    """The labels one item is scored against."""

    t_s: Step
    t_u: Step
    adopted: bool | str | None
    """``None`` where adoption is not defined (a target-value control)."""


@dataclass
class Tally:
    """Counts for one group of items (an operator, or all)."""

    items: int = 0
    a_n: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    a_agree: int = 0
    t_s_exact: int = 0
    t_s_near: int = 0
    t_s_n: int = 0
    t_u_exact: int = 0
    t_u_near: int = 0
    t_u_n: int = 0
    z_agree: int = 0
    z_n: int = 0
    undecidable: int = 0
    errors: list[str] = field(default_factory=list)

    def ratios(self) -> dict[str, float | None]:
        """The reported figures (None where the denominator is empty)."""

        def r(a: int, b: int) -> float | None:
            return a / b if b else None

        return {
            "adoption_precision": r(self.tp, self.tp + self.fp),
            "adoption_recall": r(self.tp, self.tp + self.fn),
            "adoption_agreement": r(self.a_agree, self.a_n),
            "t_s_exact": r(self.t_s_exact, self.t_s_n),
            "t_s_within_1": r(self.t_s_near, self.t_s_n),
            "t_u_exact": r(self.t_u_exact, self.t_u_n),
            "t_u_within_1": r(self.t_u_near, self.t_u_n),
            "z_s_agreement": r(self.z_agree, self.z_n),
            "undecidable_rate": r(self.undecidable, self.items),
        }


def _ours(event: EventTime) -> Step:
    if event.status == "found" and event.step is not None:
        return event.step
    if event.status == "undecidable":
        return "undecidable"
    return "none"


def _steps(ours: Step, ref: Step) -> tuple[bool, bool]:
    if isinstance(ours, int) and isinstance(ref, int):
        return ours == ref, abs(ours - ref) <= 1
    return ours == ref, ours == ref


def add(tally: Tally, labels: RunLabels, ref: Reference, name: str) -> None:
    """Add one item's comparison to ``tally``."""
    tally.items += 1
    t_s, t_u = _ours(labels.t_s), _ours(labels.t_u)
    ours_a: Any = labels.adopted if labels.adopted is not None else "undecidable"
    if "undecidable" in (t_s, t_u) or (ours_a == "undecidable" and ref.adopted is not None):
        tally.undecidable += 1
    if ref.adopted is True:
        tally.tp += ours_a is True
        tally.fn += ours_a is not True
    elif ref.adopted is False:
        tally.fp += ours_a is True
        tally.tn += ours_a is False
    problems = []
    if ref.adopted is not None:
        agree = ours_a == ref.adopted
        tally.a_n += 1
        tally.a_agree += agree
        if not agree:
            problems.append(f"A {ours_a} vs {ref.adopted}")
    if ref.t_s != "undecidable":
        exact, near = _steps(t_s, ref.t_s)
        tally.t_s_n += 1
        tally.t_s_exact += exact
        tally.t_s_near += near
        if not exact:
            problems.append(f"T_S {t_s} vs {ref.t_s}")
        ref_z = arrival_class(
            labels.t_e,
            EventTime(status="found", step=ref.t_s, reason="reference")
            if isinstance(ref.t_s, int)
            else EventTime(status="none", reason="reference"),
        )
        tally.z_n += 1
        tally.z_agree += labels.z_s == ref_z
    if ref.t_u != "undecidable":
        exact, near = _steps(t_u, ref.t_u)
        tally.t_u_n += 1
        tally.t_u_exact += exact
        tally.t_u_near += near
        if not exact:
            problems.append(f"T_U {t_u} vs {ref.t_u}")
    if problems:
        tally.errors.append(f"{name}: " + "; ".join(problems))


@dataclass
class Scores:
    """Tallies per operator and over everything."""

    by_operator: dict[str, Tally] = field(default_factory=dict)
    overall: Tally = field(default_factory=Tally)

    def add(self, operator: str, labels: RunLabels, ref: Reference, name: str) -> None:
        """Count one item in its operator's tally and in the overall tally."""
        add(self.by_operator.setdefault(operator, Tally()), labels, ref, name)
        add(self.overall, labels, ref, name)


def _as_counterfactual(item: CorpusItem) -> Counterfactual:
    return Counterfactual(
        item_id=item.item_id,
        run_id=item.run_id,
        operator=item.operator,
        t_f=item.t_f,
        call_id=item.call_id,
        tool=item.tool,
        action=item.action,
        contract=item.contract,
        fact=item.fact,
        user_states_injected=False,
    )


def label_items(
    items: Iterable[CorpusItem], runs: Path, work: Path, second_pass: SecondPass | None = None
) -> list[RunLabels]:
    """Materialise each item under ``work`` and reconstruct it (``second_pass`` as in
    :func:`sscbench.reconstruct.label.label_ledger`)."""
    out = []
    for n, item in enumerate(items):
        ledger = read_ledger(runs / item.run_id / "ledger.jsonl")
        run_dir = materialise(_as_counterfactual(item), ledger, work / f"item{n:04d}")
        out.append(label_run(run_dir, second_pass=second_pass))
    return out


def score_items(items: list[CorpusItem], runs: Path) -> Scores:
    """Reconstruct every labelled item and score it against its reference."""
    scores = Scores()
    with tempfile.TemporaryDirectory() as tmp:
        labelled = label_items(items, runs, Path(tmp))
    for item, labels in zip(items, labelled, strict=True):
        if item.reference is None:
            continue
        ref = Reference(item.reference.t_s, item.reference.t_u, item.reference.adopted)
        scores.add(item.operator, labels, ref, item.item_id)
    return scores


def score_runs(root: Path, labels_file: str = "labels.jsonl") -> Scores:
    """Score reconstruction on labelled run directories: ``root/<run>/`` plus one
    ``{"run", "t_s", "t_u", "adopted"}`` line per run in ``root/labels.jsonl``."""
    scores = Scores()
    for _, obj in iter_jsonl(root / labels_file):
        labels = label_run(root / str(obj["run"]))
        ref = Reference(obj["t_s"], obj["t_u"], obj["adopted"])
        scores.add(labels.operator or "clean", labels, ref, str(obj["run"]))
    return scores
