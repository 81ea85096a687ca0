"""Oracle scores (docs/measurement.md §7), overall and per stratum.

Counting rules, fixed here so every oracle is counted the same way:

* Scored items are those whose reference adoption is decided: adopted and non-adopted
  faulted runs plus clean controls. Target-value controls and reference-undecidable runs
  are counted as *excluded*, never scored.
* An abstention is a miss: on a positive it is a false negative; on a negative it is not a
  false positive but lowers **coverage** (answered / scored).
* **Precision** = TP / (TP + FP over faulted and clean negatives); **recall** = TP /
  positives; **F1** their harmonic mean.
* **FPR clean** = FP / clean controls; **FPR non-adopted** = FP / non-adopted faulted runs.
* **T_U localisation** over positives whose reference located ``T_U``: exact step, and
  within ±1 step; an abstention or a missing step is a miss.
* A **step-only** oracle (setting ``output = "step"``, e.g. all-at-once failure
  attribution) answers no adoption question: it gets no adoption counts at all (its
  adoption metrics are undefined, not zero), its coverage is "named a step" over scored
  runs, and its localisation counts every step it names on a positive.

Every ratio keeps its numerator and denominator so an empty stratum prints as 0/0, never
disappears.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from sscbench.oracles.base import OracleSetting, Verdict
from sscbench.oracles.dataset import ARRIVAL_STRATA, Item, Reference
from sscbench.records.versioning import DerivedDocument


@dataclass(frozen=True)
class Ratio:
    """``num / den`` with its parts (``value`` is None for 0/0)."""

    num: int
    den: int

    @property
    def value(self) -> float | None:
        """The ratio, or None when the denominator is 0."""
        return self.num / self.den if self.den else None


@dataclass
class Counts:
    """Raw counts of one oracle on one stratum."""

    scored: int = 0
    excluded: int = 0
    positives: int = 0
    negatives_faulted: int = 0
    clean: int = 0
    answered: int = 0
    tp: int = 0
    fp_faulted: int = 0
    fp_clean: int = 0
    localisable: int = 0
    exact: int = 0
    within_one: int = 0

    def add(self, item: Item, verdict: Verdict, step_only: bool = False) -> None:
        """Count one item (``step_only``: the oracle names a step and nothing else)."""
        self.add_reference(item.reference, verdict, step_only)

    def add_reference(self, ref: Reference, verdict: Verdict, step_only: bool = False) -> None:
        """Count one item by its reference (what :meth:`add` reads of it)."""
        if ref.adopted is None:
            self.excluded += 1
            return
        self.scored += 1
        if step_only:
            self.answered += verdict.t_u is not None
            if ref.adopted:
                self.positives += 1
                self._localise(ref.t_u, verdict.t_u)
            return
        self.answered += verdict.adopted is not None
        said_yes = verdict.adopted is True
        if ref.adopted:
            self.positives += 1
            self.tp += said_yes
            self._localise(ref.t_u, verdict.t_u if said_yes else None)
        elif ref.clean:
            self.clean += 1
            self.fp_clean += said_yes
        else:
            self.negatives_faulted += 1
            self.fp_faulted += said_yes

    def _localise(self, reference: int | None, answer: int | None) -> None:
        if reference is None:
            return
        self.localisable += 1
        if answer is not None:
            self.exact += answer == reference
            self.within_one += abs(answer - reference) <= 1


@dataclass(frozen=True)
class Score:
    """The docs/measurement.md §7 metrics of one oracle on one stratum.

    ``step_only`` scores carry no adoption metric: precision, recall, F1 and both false-
    positive rates are undefined (``None``), never a misleading 0.
    """

    counts: Counts
    step_only: bool = False

    @property
    def precision(self) -> Ratio:
        """TP / predicted positives."""
        c = self.counts
        return Ratio(c.tp, c.tp + c.fp_faulted + c.fp_clean)

    @property
    def recall(self) -> Ratio:
        """TP / positives (abstentions are misses)."""
        return Ratio(self.counts.tp, 0 if self.step_only else self.counts.positives)

    @property
    def f1(self) -> float | None:
        """Harmonic mean of precision and recall (None when either is undefined or both 0)."""
        p, r = self.precision.value, self.recall.value
        if p is None or r is None or p + r == 0:
            return None
        return 2 * p * r / (p + r)

    @property
    def fpr_clean(self) -> Ratio:
        """False positives on clean controls."""
        return Ratio(self.counts.fp_clean, 0 if self.step_only else self.counts.clean)

    @property
    def fpr_non_adopted(self) -> Ratio:
        """False positives on non-adopted faulted runs."""
        den = 0 if self.step_only else self.counts.negatives_faulted
        return Ratio(self.counts.fp_faulted, den)

    @property
    def coverage(self) -> Ratio:
        """Answered / scored."""
        return Ratio(self.counts.answered, self.counts.scored)

    @property
    def t_u_exact(self) -> Ratio:
        """Exact ``T_U`` over positives with a located reference ``T_U``."""
        return Ratio(self.counts.exact, self.counts.localisable)

    @property
    def t_u_within_one(self) -> Ratio:
        """``T_U`` within ±1 step."""
        return Ratio(self.counts.within_one, self.counts.localisable)

    def record(self) -> StratumScore:
        """As saved in ``scores.json``: raw counts plus every metric."""
        values: dict[str, object] = {f.name: getattr(self.counts, f.name) for f in fields(Counts)}
        for name in ("precision", "recall", "fpr_clean", "fpr_non_adopted", "coverage"):
            ratio: Ratio = getattr(self, name)
            values[name] = ratio.value
        values["f1"] = self.f1
        values["step_only"] = self.step_only
        values["t_u_exact"] = self.t_u_exact.value
        values["t_u_within_one"] = self.t_u_within_one.value
        return StratumScore.model_validate(values)


class StratumScore(BaseModel):
    """One oracle on one stratum, as saved: every count, every metric (None = undefined)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scored: int
    excluded: int
    positives: int
    negatives_faulted: int
    clean: int
    answered: int
    tp: int
    fp_faulted: int
    fp_clean: int
    localisable: int
    exact: int
    within_one: int
    precision: float | None
    recall: float | None
    fpr_clean: float | None
    fpr_non_adopted: float | None
    coverage: float | None
    f1: float | None
    step_only: bool
    t_u_exact: float | None
    t_u_within_one: float | None


class OracleScores(BaseModel):
    """One oracle's entry in ``scores.json``: its setting, and its strata or why skipped."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    setting: OracleSetting
    skipped: str | None = None
    strata: dict[str, StratumScore] = {}


class ScoresFile(DerivedDocument):
    """``scores.json``: every evaluated oracle, in evaluation order."""

    REGENERATE: ClassVar[str] = "`sscbench oracles evaluate`"

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = 1
    oracles: dict[str, OracleScores]


def score(pairs: Iterable[tuple[Item, Verdict]], step_only: bool = False) -> Score:
    """Score a set of (item, verdict) pairs."""
    counts = Counts()
    for item, verdict in pairs:
        counts.add(item, verdict, step_only)
    return Score(counts, step_only)


def strata(items: Sequence[Item]) -> list[tuple[str, str]]:
    """(kind, value) of every stratum to report: all, each operator (every registered one,
    even when empty), each arrival class (all of them, even when empty)."""
    from sscbench.operators.registry import operator_names

    operators = operator_names()
    operators += sorted({i.reference.operator for i in items} - set(operators))
    return [
        ("all", "all"),
        *(("operator", op) for op in operators),
        *(("arrival", z) for z in ARRIVAL_STRATA),
    ]


def in_stratum(item: Item, kind: str, value: str) -> bool:
    """Does ``item`` belong to stratum (``kind``, ``value``)?"""
    if kind == "all":
        return True
    if kind == "operator":
        return item.reference.operator == value
    return item.reference.z_s == value


def stratified(
    items: Sequence[Item], verdicts: Sequence[Verdict], step_only: bool = False
) -> list[tuple[str, Score]]:
    """(stratum label, score) for every stratum, in report order."""
    out = []
    for kind, value in strata(items):
        pairs = [(i, v) for i, v in zip(items, verdicts, strict=True) if in_stratum(i, kind, value)]
        out.append((value if kind == "all" else f"{kind}={value}", score(pairs, step_only)))
    return out


class StratifiedCounts:
    """:func:`stratified` kept as running counts, one item at a time: a command that
    streams its items holds these, not the items."""

    def __init__(self, step_only: bool = False) -> None:
        self.step_only = step_only
        self._counts: dict[tuple[str, str], Counts] = {}
        self._operators: set[str] = set()

    def _bucket(self, kind: str, value: str) -> Counts:
        return self._counts.setdefault((kind, value), Counts())

    def add(self, ref: Reference, verdict: Verdict) -> None:
        """Count one item in "all", its operator's stratum and its arrival stratum."""
        self._operators.add(ref.operator)
        for kind, value in (("all", "all"), ("operator", ref.operator), ("arrival", ref.z_s)):
            self._bucket(kind, value).add_reference(ref, verdict, self.step_only)

    def scores(self) -> list[tuple[str, Score]]:
        """(stratum label, score) for every stratum, in :func:`stratified`'s order."""
        from sscbench.operators.registry import operator_names

        operators = operator_names()
        operators += sorted(self._operators - set(operators))
        keys = [
            ("all", "all"),
            *(("operator", op) for op in operators),
            *(("arrival", z) for z in ARRIVAL_STRATA),
        ]
        return [
            (
                value if kind == "all" else f"{kind}={value}",
                Score(self._counts.get((kind, value), Counts()), self.step_only),
            )
            for kind, value in keys
        ]
