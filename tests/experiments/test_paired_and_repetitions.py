"""Per-configuration repetitions and paired interface checks, through the protocol, the
reconstruction and the analysis: an experiment with seeds [5, 1] where one configuration
runs r0 only, one configuration is gated on one case, and every case is also run aligned."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sscbench.analysis.population import read_schedule
from sscbench.analysis.quantities import analyze
from sscbench.experiments import load_experiment, run_experiment
from sscbench.experiments.plan import plan_runs
from sscbench.experiments.status import STATUS_FILE
from sscbench.reconstruct.label import label_dir

Write = Callable[..., Path]

HARD = "item_option/retail/20/#W9911714/0"  # scripted:careful runs out of its 30 steps
EASY = "item_option/retail/0/#W2378156/2"

PAIRED = f"""
repetitions = 2
seeds = [5, 1]
concurrency = 2
[cases]
ids = ["{HARD}", "{EASY}"]
[checks]
paired = ["aligned"]
[[configurations]]
id = "careful"
agent = "scripted:careful"
repetitions = 1
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
"""


def _row(rows: tuple[object, ...], **match: str) -> object:
    (row,) = [r for r in rows if all(getattr(r, k) == v for k, v in match.items())]
    return row


def test_paired_checks_and_per_configuration_repetitions(write: Write, tmp_path: Path) -> None:
    exp = load_experiment(write(PAIRED))
    assert [c.repetitions for c in exp.configurations] == [1, None]
    faulted = [r for r in plan_runs(exp) if r.condition == "fault"]
    # 2 cases, each also aligned; careful r0 only (seed 5), hasty r0 and r1 (seeds 5, 1)
    assert len(faulted) == 4 * 1 + 4 * 2
    assert {(r.configuration.id, r.key.seed) for r in faulted} == {
        ("careful", 5),
        ("hasty", 5),
        ("hasty", 1),
    }
    assert sum(r.key.case.endswith("+aligned") for r in faulted) == 6

    out = tmp_path / "out"
    run_experiment(exp, out)
    labels = label_dir(out)
    schedule = read_schedule(out / STATUS_FILE)
    assert schedule is not None and schedule.first_seeds == {"careful": 5, "hasty": 5}
    result = analyze(
        labels,
        exp.case_set,
        schedule=schedule.runs,
        first_seeds=schedule.first_seeds,
        gated=schedule.gated,
    )
    careful = _row(result.funnel, operator="item_option", configuration="careful")
    hasty = _row(result.funnel, operator="item_option", configuration="hasty")
    # The primary analysis is r0 (seed 5) and leaves the aligned runs out; careful's HARD
    # case is gated (main and aligned: one gated run in the main analysis).
    assert (careful.gated, careful.scheduled) == (1, 1)  # type: ignore[attr-defined]
    assert (hasty.gated, hasty.scheduled, hasty.observed) == (0, 2, 2)  # type: ignore[attr-defined]

    paired = _row(result.paired, check="aligned", operator="item_option", configuration="hasty")
    # every repetition pairs up: 2 cases × 2 repetitions, all triggered on both sides
    assert paired.pairs == 4  # type: ignore[attr-defined]
    # under alignment the product record agrees with v′: no refutation can arrive
    assert paired.read_back_variant == 0  # type: ignore[attr-defined]
    assert paired.adopted_variant >= paired.adopted_main  # type: ignore[attr-defined]
    pooled = _row(result.paired, check="aligned", operator="item_option", configuration="all")
    assert pooled.pairs == 4 + 1  # type: ignore[attr-defined]  # careful: EASY at r0
