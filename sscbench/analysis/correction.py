"""Adoption per arrival stratum corrected for the reconstructor's own error.

The automatic labels (``Z_S``, ``A``) are a fallible classification; a validation sample
(runs with a reference label: the review's adjudicated reference, or the scripted truth)
measures how fallible, per operator. The corrected estimate is the Rogan–Gladen correction
in its matrix form over the joint cells (arrival class × adoption), with the
misclassification probabilities estimated on the validation sample under its sampling
weights. For a validation sample drawn from the run set itself, stratified by the automatic
label (what ``sscbench review export`` draws), that estimate is exactly Tenenbein's
double-sampling estimator, which is what is computed here — no matrix is inverted, so it
is never singular and never leaves [0, 1]:

    T_t = V_t + Σ_o U_o · PPV(t | o)

per group (operator × configuration): ``V_t`` counts the validated runs whose reference is
cell ``t`` (a reviewed run uses its reference label directly), ``U_o`` the unvalidated runs
the reconstructor put in cell ``o``, and ``PPV(t | o)`` is the weighted share of validated
runs in automatic cell ``o`` whose reference is ``t`` (pooled over the operator's
configurations). The corrected ``a_s`` is ``T_(s,yes) / (T_(s,yes) + T_(s,no))``.

The interval is a joint percentile bootstrap: each replicate resamples the validation
sample within its sampling strata and the runs by entity cluster, and recomputes the
estimate. docs/measurement.md §6.6 gives the reasons and the references;
``benchmarks/correction_coverage.py`` measures the coverage.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sscbench.analysis.correction_records import (
    CorrectedRow,
    ErrorRateRow,
    Share,
    ValidationInfo,
)
from sscbench.analysis.intervals import LEVEL, rate_rng
from sscbench.analysis.population import STRATA, Run
from sscbench.analysis.results import ALL_OPERATORS

ZS = ("before", "after", "absent", "out")
"""Arrival classes of a reference cell; ``out``: no dependent use or ``Z_S`` undecidable."""
AS = ("no", "yes", "undecidable")
CELLS = len(ZS) * len(AS)
"""Reference cells: arrival class × adoption."""
OBSERVED = (
    "before/no",
    "before/yes",
    "after/no",
    "after/yes",
    "absent/no",
    "absent/yes",
    "in P, A undecidable",
    "not in P",
)
"""Automatic cells: the six decided cells of P, P's runs with A undecidable, and the runs
outside P (no use, or Z_S undecidable). Coarser than the reference cells, which the
estimator allows (any partition of the automatic labels gives an unbiased estimate) and
which keeps rare cells from going unvalidated."""
O_CELLS = len(OBSERVED)
MIN_PER_CELL = 3
"""Validated runs an automatic cell needs before its unvalidated runs are corrected."""
MIN_PER_OPERATOR = 20
"""Validated runs an operator needs before any of its runs are corrected."""
METHOD = "Rogan–Gladen (matrix form, double-sampling estimator), joint percentile bootstrap"

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _ai(a: bool | str | None) -> int:
    if a is True or a == "yes":
        return 1
    if a is False or a == "no":
        return 0
    return 2


def cell(z: str | None, a: bool | str | None) -> int:
    """The reference cell of an arrival class and an adoption value (None: undecidable)."""
    zi = ZS.index(z) if z in ZS[:3] else 3
    return zi * len(AS) + _ai(a)


def observed_cell(z: str | None, a: bool | str | None) -> int:
    """The automatic cell: ``z`` is the run's arrival class when it is in P, else None."""
    if z not in ZS[:3]:
        return O_CELLS - 1
    ai = _ai(a)
    return O_CELLS - 2 if ai == 2 else ZS.index(z) * 2 + ai


# --------------------------------------------------------------------------- array core


@dataclass(frozen=True)
class ValidationCounts:
    """The validation sample of one operator: per sampling stratum ``h`` its weight
    ``N_h / m_h`` and ``counts[h, o, t]``: validated runs with automatic cell ``o``
    (:data:`OBSERVED`) and reference cell ``t``."""

    weights: FloatArray
    counts: IntArray

    def weighted(self) -> FloatArray:
        """Σ_h w_h · counts[h] (automatic × reference)."""
        if self.counts.shape[0] == 0:
            return np.zeros((O_CELLS, CELLS))
        out: FloatArray = np.einsum("h,hot->ot", self.weights, self.counts.astype(np.float64))
        return out


def ppv(weighted: FloatArray) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Row-normalised ``PPV(t | o)`` and which automatic cells have any validated run."""
    total = weighted.sum(axis=-1)
    defined = total > 0
    out = np.divide(
        weighted, total[..., None], out=np.zeros_like(weighted), where=defined[..., None]
    )
    return out, defined


def ppv_replicates(
    validation: ValidationCounts, rng: np.random.Generator, replicates: int
) -> FloatArray:
    """``B × O × T`` PPVs, each from the validation sample resampled within its strata
    (a multinomial draw of each stratum's own size over its observed cells). A cell left
    empty by a replicate keeps the point PPV."""
    point, _ = ppv(validation.weighted())
    acc = np.zeros((replicates, O_CELLS, CELLS))
    for w, counts in zip(validation.weights, validation.counts, strict=True):
        m = int(counts.sum())
        if m == 0:
            continue
        draws = rng.multinomial(m, counts.ravel() / m, size=replicates)
        acc += w * draws.reshape(replicates, O_CELLS, CELLS)
    rep, defined = ppv(acc)
    return np.where(defined[..., None], rep, point[None])


def totals(cluster_cells: IntArray, table: FloatArray) -> FloatArray:
    """``T_t = V_t + Σ_o U_o PPV(t | o)`` from per-cluster counts ``[V (12) | U (8)]``."""
    counts = cluster_cells.sum(axis=0).astype(np.float64)
    result: FloatArray = counts[:CELLS] + counts[CELLS:] @ table
    return result


def total_replicates(
    cluster_cells: IntArray, tables: FloatArray, rng: np.random.Generator
) -> FloatArray:
    """``B × T`` totals: for each of the ``B`` PPV replicates in ``tables``, the group's
    clusters resampled with replacement, and the reference cells of the resampled
    unvalidated runs drawn from that replicate's PPV (a multinomial per automatic cell).

    The draw is what makes the interval honest: an unvalidated run's true cell is unknown
    even when ``PPV`` is known, and resampling the runs by their automatic cell alone
    would leave that Bernoulli variance out (the interval then covers about 89% at a
    nominal 95%, benchmarks/correction_coverage.py)."""
    replicates = tables.shape[0]
    k = cluster_cells.shape[0]
    if k == 0:
        return np.zeros((replicates, CELLS))
    picks = rng.multinomial(k, np.full(k, 1.0 / k), size=replicates)
    counts = picks @ cluster_cells
    unvalidated = counts[:, CELLS:]
    pvals = np.where(tables.sum(axis=-1, keepdims=True) > 0, tables, _FIRST)
    pvals = pvals / pvals.sum(axis=-1, keepdims=True)
    drawn = rng.multinomial(unvalidated, pvals)
    result: FloatArray = (counts[:, :CELLS] + drawn.sum(axis=1)).astype(np.float64)
    return result


_FIRST = np.eye(CELLS)[0]
"""Stand-in row for an automatic cell without validated runs (only reached when the
sample is too small, and then not reported)."""


def stratum_rate(t: FloatArray, stratum: int) -> tuple[FloatArray, FloatArray]:
    """(adoption share, decided runs) of arrival class ``stratum`` from totals ``t``."""
    yes = t[..., stratum * len(AS) + 1]
    den = yes + t[..., stratum * len(AS)]
    share = np.divide(yes, den, out=np.full_like(den, np.nan), where=den > 1e-12)
    return share, den


def percentile(values: FloatArray, level: float = LEVEL) -> tuple[float | None, float | None]:
    """Percentile interval of the finite replicates (None when there are none)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return None, None
    alpha = (1 - level) / 2
    low, high = np.quantile(finite, [alpha, 1 - alpha])
    return float(low), float(high)


# --------------------------------------------------------------------------- run sets


@dataclass(frozen=True)
class ValidationSample:
    """Reference labels by run id, with where they came from."""

    source: str
    description: str
    references: Mapping[str, tuple[str, str]]
    """run id → (reference arrival class, reference adoption ``yes``/``no``/``undecidable``)."""


@dataclass(frozen=True)
class Correction:
    """What :func:`correct` adds to an analysis."""

    info: ValidationInfo
    error_rates: tuple[ErrorRateRow, ...]
    corrected: tuple[CorrectedRow, ...]


def _universe(runs: Iterable[Run]) -> list[Run]:
    """The runs the correction speaks of: triggered, adoptable (the universe of A_T)."""
    return [r for r in runs if r.adoptable and r.triggered and r.label is not None]


def _auto(run: Run) -> tuple[str, str]:
    """The automatic (arrival class or ``out``, adoption) of a run."""
    assert run.label is not None
    z = run.arrival if run.in_population and run.arrival is not None else "out"
    return z, AS[_ai(run.label.adopted)]


def _auto_cell(run: Run) -> int:
    z, a = _auto(run)
    return observed_cell(None if z == "out" else z, a)


def _sampling_stratum(run: Run) -> tuple[str, str]:
    """How ``review export`` stratifies (within an operator): configuration and the
    automatic arrival class."""
    assert run.label is not None
    return run.key.configuration, str(run.label.z_s or "undecidable")


def _share(num: float, den: float, n_num: int, n_den: int) -> Share:
    return Share(numerator=n_num, denominator=n_den, value=num / den if den > 0 else None)


@dataclass(frozen=True)
class _Pair:
    weight: float
    auto: tuple[str, str]
    reference: tuple[str, str]


@dataclass
class _Operator:
    """One operator's validation sample and its verdict on sufficiency."""

    counts: ValidationCounts
    pairs: list[_Pair]
    problem: str | None


def sufficiency(
    validated: int, validated_cells: Mapping[int, int], unvalidated_cells: Mapping[int, int]
) -> str | None:
    """Why an operator's validation sample is too small to correct with (None: it is not).

    Only needed where runs are unvalidated: an operator whose runs all have a reference
    uses those and corrects nothing. Otherwise it needs :data:`MIN_PER_OPERATOR` validated
    runs, and every automatic cell with unvalidated runs :data:`MIN_PER_CELL` of them."""
    if not any(unvalidated_cells.values()):
        return None
    if validated < MIN_PER_OPERATOR:
        return f"{validated} validated runs, {MIN_PER_OPERATOR} needed"
    short = [
        o
        for o in sorted(unvalidated_cells)
        if unvalidated_cells[o] and validated_cells.get(o, 0) < MIN_PER_CELL
    ]
    if not short:
        return None
    more = f", and {len(short) - 1} more cells" if len(short) > 1 else ""
    return (
        f"{validated_cells.get(short[0], 0)} validated runs labelled {OBSERVED[short[0]]} "
        f"beside {unvalidated_cells[short[0]]} unvalidated, {MIN_PER_CELL} needed{more}"
    )


def _operator_validation(runs: Sequence[Run], refs: Mapping[str, tuple[str, str]]) -> _Operator:
    strata: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for run in runs:
        strata[_sampling_stratum(run)].append(run)
    weights: list[float] = []
    counts: list[IntArray] = []
    pairs: list[_Pair] = []
    validated_cells: dict[int, int] = defaultdict(int)
    unvalidated_cells: dict[int, int] = defaultdict(int)
    for key in sorted(strata):
        members = strata[key]
        validated = [r for r in members if r.label is not None and r.label.run_id in refs]
        for r in members:
            assert r.label is not None
            if r.label.run_id not in refs:
                unvalidated_cells[_auto_cell(r)] += 1
        if not validated:
            continue
        w = len(members) / len(validated)
        table = np.zeros((O_CELLS, CELLS), dtype=np.int64)
        for r in validated:
            assert r.label is not None
            ref = refs[r.label.run_id]
            o = _auto_cell(r)
            table[o, cell(*ref)] += 1
            validated_cells[o] += 1
            pairs.append(_Pair(w, _auto(r), ref))
        weights.append(w)
        counts.append(table)
    problem = sufficiency(len(pairs), validated_cells, unvalidated_cells)
    shaped = np.stack(counts) if counts else np.zeros((0, O_CELLS, CELLS), dtype=np.int64)
    validation = ValidationCounts(np.asarray(weights, dtype=np.float64), shaped)
    return _Operator(validation, pairs, problem)


def _error_row(operator: str, v: _Operator) -> ErrorRateRow:
    """Sensitivity, specificity and undecidable rate of A, and the Z_S confusion."""
    num: dict[str, float] = defaultdict(float)
    cnt: dict[str, int] = defaultdict(int)

    def add(name: str, w: float, hit: bool = True) -> None:
        num[name] += w * hit
        cnt[name] += hit

    confusion: dict[str, dict[str, int]] = {z: dict.fromkeys(ZS, 0) for z in ZS}
    for pair in v.pairs:
        (oz, oa), (tz, ta) = pair.auto, pair.reference
        confusion[tz][oz] += 1
        add("z", pair.weight, oz == tz)
        add("z_all", pair.weight)
        if ta == "undecidable":
            continue
        key = "pos" if ta == "yes" else "neg"
        add(key, pair.weight)
        add(key + "_hit", pair.weight, oa == ta)
        add("decided", pair.weight)
        add("undec", pair.weight, oa == "undecidable")
    return ErrorRateRow(
        operator=operator,
        validated=len(v.pairs),
        sensitivity=_share(num["pos_hit"], num["pos"], cnt["pos_hit"], cnt["pos"]),
        specificity=_share(num["neg_hit"], num["neg"], cnt["neg_hit"], cnt["neg"]),
        undecidable=_share(num["undec"], num["decided"], cnt["undec"], cnt["decided"]),
        z_confusion=confusion,
        z_agreement=_share(num["z"], num["z_all"], cnt["z"], cnt["z_all"]),
        sufficient=v.problem is None,
        reason=v.problem,
    )


def _cluster_cells(runs: Sequence[Run], refs: Mapping[str, tuple[str, str]]) -> IntArray:
    """Per entity cluster: validated runs by reference cell, unvalidated by automatic cell."""
    by: dict[str, npt.NDArray[np.int64]] = {}
    for run in runs:
        assert run.label is not None
        row = by.setdefault(run.cluster, np.zeros(CELLS + O_CELLS, dtype=np.int64))
        ref = refs.get(run.label.run_id)
        if ref is None:
            row[CELLS + _auto_cell(run)] += 1
        else:
            row[cell(*ref)] += 1
    if not by:
        return np.zeros((0, CELLS + O_CELLS), dtype=np.int64)
    return np.stack([by[c] for c in sorted(by)])


def _naive(runs: Sequence[Run], stratum: str) -> tuple[float | None, str]:
    decided = [r for r in runs if r.in_population and r.adoption_decided and r.arrival == stratum]
    adopted = sum(r.adopted for r in decided)
    return (adopted / len(decided) if decided else None), f"{adopted}/{len(decided)}"


def _rows(
    operator: str,
    configuration: str,
    runs: Sequence[Run],
    estimate: tuple[FloatArray, FloatArray],
    validated: int,
    problem: str | None,
    level: float,
) -> list[CorrectedRow]:
    """The three strata of one group: corrected from ``estimate`` (point totals, bootstrap
    totals), or — when the validation sample is too small — the uncorrected figure only."""
    out = []
    for si, stratum in enumerate(STRATA):
        uncorrected, counts = _naive(runs, stratum)
        value = low = high = size = None
        if problem is None:
            point, den = stratum_rate(estimate[0], si)
            if np.isfinite(point):
                value = round(float(point), 12)
                low, high = percentile(stratum_rate(estimate[1], si)[0], level)
            size = round(float(den), 9)
        out.append(
            CorrectedRow(
                operator=operator,
                configuration=configuration,
                stratum=stratum,
                uncorrected=uncorrected,
                uncorrected_counts=counts,
                status="too_small" if problem else "corrected" if value is not None else "no_runs",
                value=value,
                low=low,
                high=high,
                estimated_runs=size,
                validated=validated,
                warning=(
                    None
                    if problem is None
                    else f"validation sample too small ({problem}): uncorrected figure shown"
                ),
            )
        )
    return out


def correct(
    groups: Sequence[tuple[str, str, list[Run]]],
    sample: ValidationSample,
    *,
    seed: int = 0,
    replicates: int = 2000,
    level: float = LEVEL,
) -> Correction:
    """Error rates per operator and corrected ``a_s`` per group and per configuration
    (every operator pooled), from the validation ``sample``."""
    refs = sample.references
    universe = {(op, c): _universe(runs) for op, c, runs in groups}
    operators = sorted({op for op, _ in universe})
    validations: dict[str, _Operator] = {}
    tables: dict[str, tuple[FloatArray, FloatArray]] = {}
    for op in operators:
        runs = [r for (o, _), rs in universe.items() if o == op for r in rs]
        v = _operator_validation(runs, refs)
        validations[op] = v
        point, _ = ppv(v.counts.weighted())
        reps = ppv_replicates(v.counts, rate_rng(seed, f"correction:{op}"), replicates)
        tables[op] = (point, reps)
    rows: list[CorrectedRow] = []
    pooled: dict[str, list[tuple[FloatArray, FloatArray]]] = defaultdict(list)
    pooled_problem: dict[str, str | None] = {}
    pooled_runs: dict[str, list[Run]] = defaultdict(list)
    pooled_validated: dict[str, int] = defaultdict(int)
    for (op, conf), runs in sorted(universe.items()):
        v = validations[op]
        cells = _cluster_cells(runs, refs)
        point = totals(cells, tables[op][0])
        reps = total_replicates(cells, tables[op][1], rate_rng(seed, f"correction:{op}:{conf}"))
        n_validated = sum(1 for r in runs if r.label is not None and r.label.run_id in refs)
        rows.extend(_rows(op, conf, runs, (point, reps), n_validated, v.problem, level))
        pooled[conf].append((point, reps))
        if v.problem is not None and pooled_problem.get(conf) is None:
            pooled_problem[conf] = f"{op}: {v.problem}"
        pooled_problem.setdefault(conf, None)
        pooled_runs[conf].extend(runs)
        pooled_validated[conf] += n_validated
    for conf in sorted(pooled):
        point = sum((p for p, _ in pooled[conf]), np.zeros(CELLS))
        reps = sum((r for _, r in pooled[conf]), np.zeros((replicates, CELLS)))
        rows.extend(
            _rows(
                ALL_OPERATORS,
                conf,
                pooled_runs[conf],
                (point, reps),
                pooled_validated[conf],
                pooled_problem[conf],
                level,
            )
        )
    inside = {r.label.run_id for rs in universe.values() for r in rs if r.label is not None}
    validated = sum(1 for run_id in refs if run_id in inside)
    info = ValidationInfo(
        source="truth" if sample.source == "truth" else "review",
        description=sample.description,
        validated=validated,
        outside=len(refs) - validated,
        min_per_cell=MIN_PER_CELL,
        min_per_operator=MIN_PER_OPERATOR,
        replicates=replicates,
        method=METHOD,
    )
    return Correction(
        info=info,
        error_rates=tuple(_error_row(op, validations[op]) for op in operators),
        corrected=tuple(rows),
    )
