"""How many runs to review, and which, for a target half-width of the corrected adoption.

The corrected ``a_s`` (docs/measurement.md §6.6) rests on the share of reference labels
among reviewed runs in each *automatic cell* (the six decided cells of P, and every other
run), per operator. Its interval has two parts: the runs' own sampling error, which review
cannot shrink, and the error of those shares, which falls as ``1 / m`` per cell. The plan
draws the same number of runs from every automatic cell of an operator (a rare cell is
reviewed whole), at least :data:`MIN_PER_CELL` — what the correction needs — and finds the
smallest such number for which the predicted half-width of every pooled per-configuration
``a_s`` (the report's first answer) is at most the target, by the delta method:

    Var(a_s) ≈ a(1 − a) / D  +  Σ_o (N_o / D)² · (1 − m_o / M_o) / m_o · gᵀ (diag p_o − p_o p_oᵀ) g

with ``D`` the stratum's runs, ``N_o`` its runs in cell ``o`` (of this configuration),
``M_o`` and ``m_o`` the operator's runs and reviewed runs in ``o``, ``p_o`` the assumed
reference shares of the cell (the automatic label right with probability ``1 − error``,
otherwise spread over the other cells) and ``g`` the gradient of ``a_s`` in them. A stratum
whose first term alone exceeds the target is *limited by runs*: more review cannot reach
it, and the plan says so and aims at 1.1 times what the runs allow. ``review export
--plan`` draws the planned quotas.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench.errors import ConfigError
from sscbench.reconstruct.labels import RunLabels
from sscbench.review.parse import first_error

CELL_NAMES = (
    "before/no",
    "before/yes",
    "after/no",
    "after/yes",
    "absent/no",
    "absent/yes",
    "other",
)
"""The automatic cells (``sscbench.analysis.correction.OBSERVED``; a test keeps them equal)."""
STRATA = ("before", "after", "absent")
MIN_PER_CELL = 3
"""As the correction requires (``sscbench.analysis.correction.MIN_PER_CELL``)."""
Z = 1.959963984540054
SLACK = 1.1
"""A stratum the runs alone keep above the target is planned to within 10% of the
half-width its runs allow."""


def automatic_cell(label: RunLabels) -> int:
    """The run's automatic cell: its decided (Z_S, A) in P, or ``other``."""
    if label.z_s in STRATA and label.adopted is not None and not label.control:
        return STRATA.index(str(label.z_s)) * 2 + int(label.adopted)
    return len(CELL_NAMES) - 1


def _configuration(label: RunLabels) -> str:
    return label.configuration or label.agent


class Quota(BaseModel):
    """Runs to review in one (operator, configuration, automatic cell)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    operator: str
    configuration: str
    cell: str
    runs: int
    review: int


class StratumForecast(BaseModel):
    """The predicted half-width of one pooled a_s, and whether runs alone limit it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    configuration: str
    stratum: str
    runs: int
    half_width: float | None
    runs_only: float | None
    """The half-width the runs' own sampling error sets (were every run reviewed)."""
    limited_by_runs: bool


class ReviewPlan(BaseModel):
    """``plan.json``: the quotas ``review export --plan`` draws, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = 1
    target_half_width: float
    assumed_error: float
    per_cell: int
    """Runs planned from every automatic cell of every operator (fewer where a cell is
    smaller)."""
    total: int
    quotas: tuple[Quota, ...]
    forecast: tuple[StratumForecast, ...]


@dataclass
class _Cells:
    """Runs per (operator, configuration, cell) of the reviewable population."""

    runs: dict[tuple[str, str, int], int] = field(default_factory=lambda: defaultdict(int))

    def operator_cell(self, op: str, o: int) -> int:
        return sum(n for (p, _, c), n in self.runs.items() if p == op and c == o)


def _assumed(o: int, error: float) -> list[float]:
    """Reference shares of automatic cell ``o`` over the seven cells (reference ``other``
    standing for every run outside P or without a decided A)."""
    k = len(CELL_NAMES)
    return [1 - error if t == o else error / (k - 1) for t in range(k)]


def _variance(
    cells: _Cells, configuration: str, stratum: int, quota: int, error: float
) -> tuple[float | None, float, int]:
    """(total variance or None without runs, the runs' own part, the stratum's runs)."""
    yes, no = stratum * 2 + 1, stratum * 2
    own = [(op, o, n) for (op, c, o), n in cells.runs.items() if c == configuration and n]
    d = sum(n * (p[yes] + p[no]) for op, o, n in own for p in [_assumed(o, error)])
    y = sum(n * _assumed(o, error)[yes] for op, o, n in own)
    if d <= 0:
        return None, 0.0, 0
    a = y / d
    sampling = a * (1 - a) / d
    review = 0.0
    for op, o, n in own:
        m_all = cells.operator_cell(op, o)
        m = min(m_all, max(quota, MIN_PER_CELL))
        if m >= m_all or m == 0:
            continue  # reviewed whole: no error left in this cell's shares
        p = _assumed(o, error)
        g = [0.0] * len(p)
        g[yes] = (1 - a) * n / d
        g[no] = -a * n / d
        quad = (
            sum(g[i] * g[i] * p[i] for i in range(len(p)))
            - sum(g[i] * p[i] for i in range(len(p))) ** 2
        )
        review += (1 - m / m_all) / m * quad
    runs = sum(n for _, o, n in own if o in (yes, no))
    return sampling + review, sampling, runs


def plan_review(labels: Sequence[RunLabels], half_width: float, error: float = 0.07) -> ReviewPlan:
    """The smallest equal per-cell quota whose predicted half-widths meet ``half_width``
    (where runs allow), with its quotas split over configurations in proportion."""
    if not 0 < half_width < 1:
        raise ConfigError(f"--half-width must be in (0, 1), not {half_width}")
    if not 0 <= error < 1:
        raise ConfigError(f"--error must be in [0, 1), not {error}")
    cells = _Cells()
    for label in labels:
        if label.operator is not None:
            cells.runs[(label.operator, _configuration(label), automatic_cell(label))] += 1
    if not cells.runs:
        raise ConfigError("no reviewable runs (triggered faulted runs of r0) to plan for")
    configurations = sorted({c for _, c, _ in cells.runs})
    largest = max(cells.operator_cell(op, o) for op, _, o in cells.runs)

    def forecast(quota: int) -> list[StratumForecast]:
        out = []
        for conf in configurations:
            for si, stratum in enumerate(STRATA):
                var, sampling, runs = _variance(cells, conf, si, quota, error)
                floor = Z * math.sqrt(sampling)
                out.append(
                    StratumForecast(
                        configuration=conf,
                        stratum=stratum,
                        runs=runs,
                        half_width=None if var is None else round(Z * math.sqrt(var), 4),
                        runs_only=None if var is None else round(floor, 4),
                        limited_by_runs=var is not None and floor > half_width,
                    )
                )
        return out

    def meets(rows: list[StratumForecast]) -> bool:
        """Every stratum at the target — or, where runs alone exceed it, within
        :data:`SLACK` of what the runs allow."""
        return all(
            r.half_width is None
            or r.runs_only is None
            or r.half_width <= max(half_width, SLACK * r.runs_only)
            for r in rows
        )

    quota = MIN_PER_CELL
    while quota < largest and not meets(forecast(quota)):
        quota += max(1, quota // 10)
    quota = min(quota, largest)
    quotas = []
    for op in sorted({p for p, _, _ in cells.runs}):
        for o in range(len(CELL_NAMES)):
            total = cells.operator_cell(op, o)
            take = min(total, quota)
            if not total:
                continue
            parts = [(c, n) for (p, c, x), n in sorted(cells.runs.items()) if p == op and x == o]
            split = _proportional(take, [n for _, n in parts])
            for (conf, n), k in zip(parts, split, strict=True):
                quotas.append(
                    Quota(operator=op, configuration=conf, cell=CELL_NAMES[o], runs=n, review=k)
                )
    return ReviewPlan(
        target_half_width=half_width,
        assumed_error=error,
        per_cell=quota,
        total=sum(q.review for q in quotas),
        quotas=tuple(quotas),
        forecast=tuple(forecast(quota)),
    )


def _proportional(total: int, sizes: list[int]) -> list[int]:
    """``total`` split over ``sizes`` in proportion (largest remainders), none above its
    size."""
    whole = sum(sizes)
    raw = [total * s / whole for s in sizes]
    out = [math.floor(r) for r in raw]
    order = sorted(range(len(sizes)), key=lambda i: raw[i] - out[i], reverse=True)
    for i in order[: total - sum(out)]:
        out[i] += 1
    return [min(x, s) for x, s in zip(out, sizes, strict=True)]


def write_plan(plan: ReviewPlan, path: Path) -> None:
    """Write ``plan.json``."""
    path.write_text(plan.model_dump_json(indent=1) + "\n", encoding="utf-8")


def read_plan(path: Path) -> ReviewPlan:
    """Read a ``plan.json`` from ``review plan`` (one line on a bad file)."""
    try:
        return ReviewPlan.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise ConfigError(f"--plan {path}: cannot read it ({exc.strerror})") from None
    except ValidationError as exc:
        raise ConfigError(
            f"--plan {path}: not a review plan ({first_error(exc)}); write one with "
            "`sscbench review plan RUNDIR --half-width H --out plan.json`"
        ) from None


def planned_sample(labels: Sequence[RunLabels], plan: ReviewPlan, seed: int) -> list[RunLabels]:
    """The runs the plan's quotas ask for, drawn at random within each (operator,
    configuration, automatic cell), seeded; shuffled so packet order carries no cell."""
    rng = random.Random(f"plan\x00{seed}")
    pools: dict[tuple[str, str, str], list[RunLabels]] = defaultdict(list)
    for label in sorted(labels, key=lambda x: x.run_id):
        if label.operator is not None:
            key = (label.operator, _configuration(label), CELL_NAMES[automatic_cell(label)])
            pools[key].append(label)
    chosen: list[RunLabels] = []
    for q in plan.quotas:
        pool = pools.get((q.operator, q.configuration, q.cell), [])
        chosen.extend(rng.sample(pool, min(q.review, len(pool))))
    rng.shuffle(chosen)
    return chosen


def plan_summary(plan: ReviewPlan) -> dict[str, Any]:
    """What ``export.json`` records of the plan it drew."""
    return {
        "target_half_width": plan.target_half_width,
        "assumed_error": plan.assumed_error,
        "per_cell": plan.per_cell,
        "total": plan.total,
    }
