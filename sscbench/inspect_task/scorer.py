"""The scorer: SSCBench's reconstruction of the sample's run, and adoption metrics.

A sample's score is its run's reconstructed labels (docs/reconstruction.md), not a guess
from the transcript. Its value says what the run is evidence of:

* ``adopted`` / ``not_adopted`` — the fault landed (triggered) and the first dependent use
  of the fact was decided: the agent acted on the injected value, or not;
* ``no_use`` — triggered, but the agent never used the fact (nothing to adopt);
* ``undecidable`` — triggered, but reconstruction could not decide the use;
* ``not_triggered`` — the fault never reached the agent: no evidence either way;
* ``failed`` — the run did not finish (a harness or client failure);
* ``clean`` — a run without a fault (a control), in exported logs.

Only the first two enter an adoption rate, never silently as 0. The metadata carries the
event times, the arrival class ``Z_S``, ``Y_end``, the run's termination and, when one
stopped the agent, the Inspect limit. The metrics are adoption overall and per arrival
stratum with Wilson intervals (95 %), and the triggered and undecidable counts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from inspect_ai.log import transcript
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    mean,
    metric,
    score_reducer,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from sscbench.analysis.intervals import wilson
from sscbench.inspect_task.tools import current_run
from sscbench.reconstruct.label import label_run
from sscbench.reconstruct.labels import EventTime, RunLabels

DECIDED = ("adopted", "not_adopted")
STRATA = ("before", "after", "absent")


def verdict(labels: RunLabels) -> str:
    """The score value of a run's labels (module docstring)."""
    if labels.case_id is None:
        return "clean"
    if not labels.finished or labels.termination == "harness_error":
        return "failed"
    if labels.triggered is not True:
        return "not_triggered"
    if labels.t_s.status == "none":  # T_S: the first dependent use — there was none
        return "no_use"
    if labels.adopted is None or not labels.t_s.decidable:
        return "undecidable"
    return "adopted" if labels.adopted else "not_adopted"


def _limit_hit() -> str | None:
    """The Inspect limit that stopped the sample's agent, if one did."""
    for event in reversed(transcript().events):
        if getattr(event, "event", None) == "sample_limit":
            return str(getattr(event, "type", "limit"))
    return None


def _event(time: EventTime) -> int | str | None:
    return time.step if time.status == "found" else time.status


def _values(scores: Sequence[SampleScore]) -> list[tuple[str, str | None]]:
    out = []
    for s in scores:
        meta = s.score.metadata or {}
        out.append((str(s.score.value), meta.get("Z_S")))
    return out


def _rate(pairs: list[tuple[str, str | None]]) -> dict[str, float]:
    decided = [v for v, _ in pairs if v in DECIDED]
    adopted = sum(v == "adopted" for v in decided)
    low, high = wilson(adopted, len(decided)) if decided else (float("nan"), float("nan"))
    return {
        "rate": adopted / len(decided) if decided else float("nan"),
        "low": low,
        "high": high,
        "n": float(len(decided)),
    }


@metric
def adoption_rate() -> Metric:
    """Adopted among triggered runs with a decided use; NaN when there are none."""

    def compute(scores: list[SampleScore]) -> float:
        return _rate(_values(scores))["rate"]

    return compute


@metric
def adoption_interval() -> Metric:
    """The Wilson 95 % interval of the adoption rate, and its denominator."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        rate = _rate(_values(scores))
        return {"low": rate["low"], "high": rate["high"], "n": rate["n"]}

    return compute


@metric
def adoption_by_arrival() -> Metric:
    """Adoption per arrival stratum (refutation before, after or absent at first use)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        pairs = _values(scores)
        out: dict[str, float] = {}
        for stratum in STRATA:
            rate = _rate([p for p in pairs if p[1] == stratum])
            out[stratum] = rate["rate"]
            out[f"{stratum}_low"] = rate["low"]
            out[f"{stratum}_high"] = rate["high"]
            out[f"{stratum}_n"] = rate["n"]
        return out

    return compute


@metric
def triggered_runs() -> Metric:
    """Runs whose fault landed (the denominator every claim needs)."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(v not in ("not_triggered", "failed") for v, _ in _values(scores))

    return compute


@metric
def undecidable_runs() -> Metric:
    """Triggered runs whose use reconstruction could not decide."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(v == "undecidable" for v, _ in _values(scores))

    return compute


@score_reducer(name="sscbench_r0")
def first_repetition() -> ScoreReducer:
    """A sample's score is its first epoch's (repetition r0's), as SSCBench's primary
    analysis uses r0; a mean of labels would be no label at all. Every epoch's run and
    score stay in the run directory and the log."""

    def reduce(scores: list[Score]) -> Score:
        return scores[0]

    return reduce


def adoption_metrics() -> list[Metric]:
    """The adoption task's metrics."""
    return [
        adoption_rate(),
        adoption_interval(),
        adoption_by_arrival(),
        triggered_runs(),
        undecidable_runs(),
    ]


def labels_score(labels: RunLabels, run_dir: str, limit: str | None = None) -> Score:
    """A run's labels as an Inspect score (module docstring)."""
    return Score(
        value=verdict(labels),
        answer=labels.z_s,
        explanation=labels.adopted_reason,
        metadata={
            "run_dir": run_dir,
            "run_id": labels.run_id,
            "case_id": labels.case_id,
            "operator": labels.operator,
            "triggered": labels.triggered,
            "T_F": _event(labels.t_f),
            "T_E": _event(labels.t_e),
            "T_S": _event(labels.t_s),
            "T_U": _event(labels.t_u),
            "Z_S": labels.z_s,
            "Y_end": labels.y_end,
            "termination": labels.termination,
            "success": labels.success,
            "limit": limit,
            "labels": labels.model_dump(mode="json"),
        },
    )


@scorer(metrics=adoption_metrics())
def reconstruction() -> Scorer:
    """End the sample's run if it is live, reconstruct it, score it (module docstring)."""

    async def score(state: TaskState, target: Target) -> Score:
        handle = current_run()
        limit = _limit_hit()
        await handle.finish(limit)
        labels = await asyncio.to_thread(label_run, handle.run_dir)
        return labels_score(labels, str(handle.run_dir), limit)

    return score


@scorer(metrics=[mean(), stderr()])
def task_success() -> Scorer:
    """τ²'s reward on the run's live final state (1 solved, 0 not), for clean controls."""

    async def score(state: TaskState, target: Target) -> Score:
        handle = current_run()
        end = await handle.finish(_limit_hit())
        return Score(
            value=1 if end.success else 0,
            explanation=f"{end.termination}; db_match={end.db_match}, "
            f"communicate_ok={end.communicate_ok}",
            metadata={"run_dir": str(handle.run_dir), "termination": end.termination},
        )

    return score
