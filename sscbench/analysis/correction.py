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

import math
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
from sscbench.analysis.intervals import LEVEL, _z, rate_rng
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
    "other",
)
"""Automatic cells: the six decided cells of P, and every other run (``A`` undecidable, no
use, ``Z_S`` undecidable) — the runs the uncorrected ``a_s`` leaves out. Coarser than the
reference cells, which the estimator allows (any partition of the automatic labels gives
an unbiased estimate) and which keeps rare cells from going unvalidated."""
O_CELLS = len(OBSERVED)
MIN_PER_CELL = 3
"""Validated runs an automatic cell needs before its unvalidated runs are corrected."""
MIN_PER_OPERATOR = 20
"""Validated runs an operator needs before any of its runs are corrected."""
METHOD = (
    "Rogan–Gladen (matrix form, as the double-sampling estimator); joint cluster bootstrap, "
    "Wilson interval at the effective sample size"
)

NOT_RANDOM = (
    "the review took the least confident runs, not a random sample; a correction would be biased"
)

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
    ai = _ai(a)
    if z not in ZS[:3] or ai == 2:
        return O_CELLS - 1
    return ZS.index(z) * 2 + ai


# --------------------------------------------------------------------------- array core


@dataclass(frozen=True)
class Design:
    """One operator's runs as the estimator sees them, by sampling stratum ``h`` (a
    configuration × an automatic cell): ``clusters[k, h, t]`` counts entity cluster ``k``'s
    validated runs in ``h`` whose reference cell is ``t``, ``clusters[k, h, CELLS]`` its
    unvalidated runs in ``h``; ``groups[h]`` is the stratum's configuration (index) and
    ``cells[h]`` its automatic cell (:data:`OBSERVED`)."""

    clusters: IntArray
    groups: IntArray
    cells: IntArray
    n_groups: int


def ppv(counts: FloatArray, cells: IntArray) -> FloatArray:
    """``PPV(t | o)`` (``… × O × T``) from stratum counts (``… × H × (T+1)``): each
    stratum's validated runs weighted by ``N_h / m_h`` (the inverse of its sampling
    fraction) and pooled over the strata of each automatic cell; a row without validated
    runs is all zero."""
    validated = counts[..., :CELLS]
    m = validated.sum(axis=-1)
    n = counts.sum(axis=-1)
    w = np.divide(n, m, out=np.zeros_like(n), where=m > 0)
    onehot = np.eye(O_CELLS)[cells]
    weighted = np.einsum("...h,...ht,ho->...ot", w, validated, onehot)
    total = weighted.sum(axis=-1, keepdims=True)
    out: FloatArray = np.divide(weighted, total, out=np.zeros_like(weighted), where=total > 0)
    return out


def _by_group(per_stratum: FloatArray, design: Design) -> FloatArray:
    """Sum ``… × H × T`` over the strata of each group: ``… × G × T``."""
    onehot = np.eye(design.n_groups)[design.groups]
    out: FloatArray = np.einsum("...ht,hg->...gt", per_stratum, onehot)
    return out


def totals(design: Design) -> FloatArray:
    """``T_t = V_t + Σ_o U_o · PPV(t | o)`` per group (``G × T``)."""
    counts = design.clusters.sum(axis=0).astype(np.float64)
    table = ppv(counts, design.cells)
    per_stratum = counts[:, :CELLS] + counts[:, CELLS, None] * table[design.cells]
    return _by_group(per_stratum, design)


def total_replicates(
    design: Design, rng: np.random.Generator, replicates: int, chunk: int = 250
) -> FloatArray:
    """``B × G × T`` bootstrap totals. Each replicate resamples the operator's entity
    clusters with replacement — validated and unvalidated runs together, so the reference
    labels that count directly and the PPV they give move together, as they do between
    samples — recomputes the PPV with the replicate's own sampling weights, and draws the
    reference cells of the resampled unvalidated runs from it: an unvalidated run's true
    cell is unknown even when the PPV is known. Leaving that draw out, or resampling the
    PPV apart from the runs, makes the interval too narrow (0.88–0.90 coverage at nominal
    0.95 in benchmarks/correction_coverage.py)."""
    k, h = design.clusters.shape[:2]
    if k == 0:
        return np.zeros((replicates, design.n_groups, CELLS))
    flat = design.clusters.reshape(k, -1).astype(np.float64)
    point = ppv(design.clusters.sum(axis=0).astype(np.float64), design.cells)
    out = []
    for start in range(0, replicates, chunk):
        size = min(chunk, replicates - start)
        draws = rng.integers(0, k, size=(size, k)) + (np.arange(size) * k)[:, None]
        picks = np.bincount(draws.ravel(), minlength=size * k).reshape(size, k).astype(np.float64)
        counts = (picks @ flat).reshape(size, h, CELLS + 1)
        table = ppv(counts, design.cells)
        table = np.where(table.sum(axis=-1, keepdims=True) > 0, table, point)
        rows = table[:, design.cells]  # B × H × T
        empty = rows.sum(axis=-1, keepdims=True) == 0  # only when the sample is too small
        rows = np.where(empty, np.eye(CELLS)[0], rows)
        rows = rows / rows.sum(axis=-1, keepdims=True)
        unvalidated = np.rint(counts[..., CELLS]).astype(np.int64)
        drawn = rng.multinomial(unvalidated, rows)
        out.append(_by_group(counts[..., :CELLS] + drawn, design))
    return np.concatenate(out)


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


def t_quantile(level: float, df: float) -> float:
    """Two-sided Student t quantile, by the Cornish–Fisher expansion around the normal
    one (within 0.01 of the exact value from 3 degrees of freedom on)."""
    z = _z(level)
    if df <= 0 or not math.isfinite(df):
        return z
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


def effective_wilson(
    value: float, replicates: FloatArray, size: float, clusters: int, level: float = LEVEL
) -> tuple[float | None, float | None]:
    """The Wilson interval at the effective sample size ``p(1 − p) / SE²``, with the SE
    from the joint bootstrap's replicates and the quantile of Student's t on ``clusters −
    1`` degrees of freedom (the Korn–Graubard construction for proportions from complex
    samples).

    A percentile interval of a ratio over a few dozen runs near 0 or 1 covers too little
    (0.87–0.91 at nominal 0.95 in the simulation); Wilson's score interval keeps its
    coverage there, the effective size carries every source of variance the bootstrap saw
    (scaled by k/(k − 1), since a bootstrap over k clusters underestimates it), and t
    allows for an SE estimated from few clusters. The effective size is capped at the
    stratum's estimated size; at ``p̂`` of exactly 0 or 1 the SE says nothing, and each
    cluster counts once (the smaller of the estimated size and the clusters)."""
    finite = replicates[np.isfinite(replicates)]
    if finite.size < 2 or size <= 0:
        return None, None
    k = max(clusters, 2)
    se = float(finite.std(ddof=1)) * math.sqrt(k / (k - 1))
    if se <= 0 or value in (0.0, 1.0):
        n = min(size, float(k))  # the SE says nothing: count each cluster once
    else:
        n = min(size, value * (1 - value) / se**2)
    n = max(n, 1e-9)
    z = t_quantile(level, k - 1)
    z2n = z * z / n
    centre = (value + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(max(value * (1 - value), 0.0) / n + z2n / (4 * n)) / (1 + z2n)
    return max(0.0, centre - half), min(1.0, centre + half)


def stratum_clusters(design: Design, group: int, stratum: int) -> int:
    """Clusters with a run of the group in the arrival stratum (by its reference cell when
    validated, by its automatic cell otherwise): the interval's degrees of freedom."""
    strata = design.groups == group
    x = design.clusters[:, strata]
    reference = x[..., stratum * len(AS) : stratum * len(AS) + 2].sum(axis=(1, 2))
    mine = (design.cells[strata] // 2 == stratum) & (design.cells[strata] < O_CELLS - 1)
    automatic = x[:, mine, CELLS].sum(axis=1)
    return int(((reference + automatic) > 0).sum())


# --------------------------------------------------------------------------- run sets


@dataclass(frozen=True)
class ValidationSample:
    """Reference labels by run id, with where they came from."""

    source: str
    description: str
    references: Mapping[str, tuple[str, str]]
    """run id → (reference arrival class, reference adoption ``yes``/``no``/``undecidable``)."""
    random: bool = True
    """False for a sample not drawn at random within its strata (``review export --order
    confidence``): its reference shares would be biased, so nothing is corrected with it."""


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


def _sampling_stratum(run: Run) -> tuple[str, int]:
    """The stratum a validated run's weight is taken in: its configuration and automatic
    cell. ``review export`` samples within automatic arrival classes (and ``review plan``
    within automatic cells); weighting within the finer cells is valid for both (it
    post-stratifies the first)."""
    assert run.label is not None
    return run.key.configuration, _auto_cell(run)


def _share(num: float, den: float, n_num: int, n_den: int) -> Share:
    return Share(numerator=n_num, denominator=n_den, value=num / den if den > 0 else None)


@dataclass(frozen=True)
class _Pair:
    weight: float
    auto: tuple[str, str]
    reference: tuple[str, str]


@dataclass
class _Operator:
    """One operator's runs as a design, its validated pairs and its sufficiency."""

    design: Design
    configurations: list[str]
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


def _operator(runs: Sequence[Run], refs: Mapping[str, tuple[str, str]]) -> _Operator:
    """The operator's design, validated pairs and sufficiency."""
    strata = sorted({_sampling_stratum(r) for r in runs})
    configurations = sorted({conf for conf, _ in strata})
    names = sorted({r.cluster for r in runs})
    h_of = {key: i for i, key in enumerate(strata)}
    k_of = {name: i for i, name in enumerate(names)}
    clusters = np.zeros((len(names), len(strata), CELLS + 1), dtype=np.int64)
    pairs: list[_Pair] = []
    validated_cells: dict[int, int] = defaultdict(int)
    unvalidated_cells: dict[int, int] = defaultdict(int)
    size: dict[int, int] = defaultdict(int)
    seen: dict[int, int] = defaultdict(int)
    for run in runs:
        assert run.label is not None
        h = h_of[_sampling_stratum(run)]
        size[h] += 1
        seen[h] += run.label.run_id in refs
    for run in runs:
        assert run.label is not None
        h, o = h_of[_sampling_stratum(run)], _auto_cell(run)
        ref = refs.get(run.label.run_id)
        if ref is None:
            clusters[k_of[run.cluster], h, CELLS] += 1
            unvalidated_cells[o] += 1
        else:
            clusters[k_of[run.cluster], h, cell(*ref)] += 1
            validated_cells[o] += 1
            pairs.append(_Pair(size[h] / seen[h], _auto(run), ref))
    design = Design(
        clusters,
        np.array([configurations.index(conf) for conf, _ in strata], dtype=np.int64),
        np.array([o for _, o in strata], dtype=np.int64),
        len(configurations),
    )
    problem = sufficiency(len(pairs), validated_cells, unvalidated_cells)
    return _Operator(design, configurations, pairs, problem)


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


def _naive(runs: Sequence[Run], stratum: str) -> tuple[float | None, str]:
    decided = [r for r in runs if r.in_population and r.adoption_decided and r.arrival == stratum]
    adopted = sum(r.adopted for r in decided)
    return (adopted / len(decided) if decided else None), f"{adopted}/{len(decided)}"


def _rows(
    operator: str,
    configuration: str,
    runs: Sequence[Run],
    estimate: tuple[FloatArray, FloatArray, list[int]],
    validated: int,
    problem: str | None,
    level: float,
) -> list[CorrectedRow]:
    """The three strata of one group: corrected from ``estimate`` (point totals, bootstrap
    totals, clusters per stratum), or — when the validation sample is too small — the
    uncorrected figure only."""
    out = []
    for si, stratum in enumerate(STRATA):
        uncorrected, counts = _naive(runs, stratum)
        value = low = high = size = None
        if problem is None:
            point, den = stratum_rate(estimate[0], si)
            if np.isfinite(point):
                value = round(float(point), 12)
                low, high = effective_wilson(
                    float(point),
                    stratum_rate(estimate[1], si)[0],
                    float(den),
                    estimate[2][si],
                    level,
                )
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
    rows: list[CorrectedRow] = []
    pooled: dict[str, list[tuple[FloatArray, FloatArray, list[int]]]] = defaultdict(list)
    pooled_problem: dict[str, str | None] = {}
    pooled_runs: dict[str, list[Run]] = defaultdict(list)
    pooled_validated: dict[str, int] = defaultdict(int)
    errors = []
    for op in operators:
        runs = [r for (o, _), rs in universe.items() if o == op for r in rs]
        v = _operator(runs, refs)
        if not sample.random and v.problem is None and v.pairs:
            v.problem = NOT_RANDOM
        errors.append(_error_row(op, v))
        point = totals(v.design)
        reps = total_replicates(v.design, rate_rng(seed, f"correction:{op}"), replicates)
        for conf in sorted(c for o, c in universe if o == op):
            own = universe[(op, conf)]
            n_validated = sum(1 for r in own if r.label is not None and r.label.run_id in refs)
            if conf in v.configurations:
                g = v.configurations.index(conf)
                k = [stratum_clusters(v.design, g, si) for si in range(len(STRATA))]
                estimate = (point[g], reps[:, g], k)
            else:  # no triggered adoptable run: nothing to estimate
                estimate = (np.zeros(CELLS), np.zeros((replicates, CELLS)), [0, 0, 0])
            problem = None if v.problem is None else f"{op}: {v.problem}"
            rows.extend(_rows(op, conf, own, estimate, n_validated, problem, level))
            pooled[conf].append(estimate)
            if v.problem is not None and pooled_problem.get(conf) is None:
                pooled_problem[conf] = f"{op}: {v.problem}"
            pooled_problem.setdefault(conf, None)
            pooled_runs[conf].extend(own)
            pooled_validated[conf] += n_validated
    for conf in sorted(pooled):
        point_sum = np.sum([p for p, _, _ in pooled[conf]], axis=0)
        reps_sum = np.sum([r for _, r, _ in pooled[conf]], axis=0)
        k_sum = [sum(k[si] for _, _, k in pooled[conf]) for si in range(len(STRATA))]
        rows.extend(
            _rows(
                ALL_OPERATORS,
                conf,
                pooled_runs[conf],
                (point_sum, reps_sum, k_sum),
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
    return Correction(info=info, error_rates=tuple(errors), corrected=tuple(rows))
