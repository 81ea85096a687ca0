"""``review plan``: the quotas, the forecast, and ``review export --plan`` drawing them."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from sscbench.analysis import correction
from sscbench.analysis.synthetic import synthetic_labels
from sscbench.cases.caseset import load_case_set
from sscbench.cli import review as review_cmd
from sscbench.errors import ConfigError
from sscbench.reconstruct.labels import RunLabels
from sscbench.review import plan as plan_mod
from sscbench.review.export import read_key
from sscbench.review.plan import (
    CELL_NAMES,
    automatic_cell,
    plan_review,
    planned_sample,
    read_plan,
)


@cache
def _labels() -> tuple[RunLabels, ...]:
    labels = synthetic_labels(load_case_set(None), runs=1191, seed=3)
    return tuple(x for x in labels if x.triggered is True and x.seed == 0 and not x.control)


def cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="sscbench")
    review_cmd.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


def test_the_plan_uses_the_corrections_cells_and_minimum() -> None:
    assert CELL_NAMES == correction.OBSERVED
    assert plan_mod.MIN_PER_CELL == correction.MIN_PER_CELL
    label = _labels()[0]
    for z, a, cell in (("before", True, "before/yes"), ("absent", False, "absent/no")):
        assert CELL_NAMES[automatic_cell(label.model_copy(update={"z_s": z, "adopted": a}))] == cell
    undecided = label.model_copy(update={"z_s": "after", "adopted": None})
    assert CELL_NAMES[automatic_cell(undecided)] == "other"


def test_every_cell_gets_the_minimum_and_a_tighter_target_asks_for_more() -> None:
    labels = list(_labels())
    loose = plan_review(labels, 0.3)
    tight = plan_review(labels, 0.08)
    assert tight.total > loose.total
    cells = Counter((x.operator, CELL_NAMES[automatic_cell(x)]) for x in labels)
    per: Counter[tuple[str, str]] = Counter()
    for q in loose.quotas:
        per[(q.operator, q.cell)] += q.review
    for key, runs in cells.items():
        assert per[key] == min(runs, loose.per_cell) >= min(runs, plan_mod.MIN_PER_CELL)
    assert loose.total == sum(q.review for q in loose.quotas)
    # the forecast meets the target (or what the runs allow) and narrows with more review
    for f in tight.forecast:
        if f.half_width is not None and f.runs_only is not None:
            assert f.half_width <= max(0.08, plan_mod.SLACK * f.runs_only) + 1e-9
            assert f.half_width >= f.runs_only
    widths = {(f.configuration, f.stratum): f.half_width for f in loose.forecast}
    for f in tight.forecast:
        before = widths[(f.configuration, f.stratum)]
        if f.half_width is not None and before is not None:
            assert f.half_width <= before + 1e-12


def test_the_planned_sample_is_the_quotas_and_seeded() -> None:
    labels = list(_labels())
    plan = plan_review(labels, 0.1)
    drawn = planned_sample(labels, plan, seed=4)
    assert len(drawn) == plan.total
    got = Counter(
        (x.operator, x.configuration or x.agent, CELL_NAMES[automatic_cell(x)]) for x in drawn
    )
    want = {(q.operator, q.configuration, q.cell): q.review for q in plan.quotas if q.review}
    assert dict(got) == want
    assert [x.run_id for x in planned_sample(labels, plan, seed=4)] == [x.run_id for x in drawn]
    assert {x.run_id for x in planned_sample(labels, plan, seed=5)} != {x.run_id for x in drawn}


def test_bad_targets_and_files_are_one_line() -> None:
    with pytest.raises(ConfigError, match="--half-width must be in"):
        plan_review(list(_labels()), 0)
    with pytest.raises(ConfigError, match="no reviewable runs"):
        plan_review([], 0.05)


def test_cli_plan_then_export_draws_it(review_runs: Path, tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    assert cli("review", "plan", str(review_runs), "--half-width", "0.1", "--out", str(path)) == 0
    plan = read_plan(path)
    out = tmp_path / "r"
    args = ("review", "export", str(review_runs), "--plan", str(path), "--seed", "2")
    assert cli(*args, "--calibration", "0", "--out", str(out)) == 0
    key = read_key(out)
    assert len(key) == plan.total
    manifest = json.loads((out / "export.json").read_text())
    assert manifest["plan"]["total"] == plan.total
    with pytest.raises(ConfigError, match="one of them"):
        cli("review", "export", str(review_runs), "--out", str(tmp_path / "x"))
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ConfigError, match="not a review plan"):
        cli(*args[:3], "--plan", str(tmp_path / "bad.json"), "--out", str(tmp_path / "y"))


def test_export_by_confidence_takes_the_least_confident(review_runs: Path, tmp_path: Path) -> None:
    from sscbench.reconstruct.confidence import label_confidence
    from sscbench.reconstruct.labels import read_labels
    from sscbench.review.sample import eligible

    out = tmp_path / "c"
    args = ("review", "export", str(review_runs), "--sample", "6", "--order", "confidence")
    assert cli(*args, "--calibration", "0", "--out", str(out)) == 0
    chosen = {e.run_id for e in read_key(out).values()}
    labels = [
        x for x in read_labels(review_runs / "labels.jsonl") if eligible(x, include_controls=False)
    ]

    def value(x: RunLabels) -> float:
        conf = label_confidence(x)
        return 0.0 if conf is None else conf.value

    worst_taken = max(value(x) for x in labels if x.run_id in chosen)
    best_left = min(value(x) for x in labels if x.run_id not in chosen)
    assert len(chosen) == 6 and worst_taken <= best_left
    assert json.loads((out / "export.json").read_text())["order"] == "confidence"
    with pytest.raises(ConfigError, match="not a --plan"):
        cli(
            "review",
            "export",
            str(review_runs),
            "--plan",
            "x.json",
            "--order",
            "confidence",
            "--out",
            str(tmp_path / "z"),
        )


def test_report_validation_reads_a_reviewed_directory(review_runs: Path, tmp_path: Path) -> None:
    """A planned review whose three reviewers agree with the reconstructor everywhere but
    on one adopted run: the error rates count that run, the correction uses it."""
    from sscbench.analysis.quantities import analyze
    from sscbench.analysis.validation_sample import from_review
    from sscbench.cases.caseset import load_case_set
    from sscbench.reconstruct.labels import read_labels
    from sscbench.review.labels import Mark, ReviewLabel, append_label

    path = tmp_path / "plan.json"
    assert cli("review", "plan", str(review_runs), "--half-width", "0.2", "--out", str(path)) == 0
    out = tmp_path / "r"
    args = ("review", "export", str(review_runs), "--plan", str(path), "--seed", "3")
    assert cli(*args, "--calibration", "0", "--out", str(out)) == 0
    labels = {x.run_id: x for x in read_labels(review_runs / "labels.jsonl")}

    def mark(event: Any) -> Mark:
        return Mark(status=event.status, step=event.step if event.status == "found" else None)

    flipped = None
    for packet, entry in sorted(read_key(out).items()):
        auto = labels[entry.run_id]
        adopted = "undecidable" if auto.adopted is None else ("yes" if auto.adopted else "no")
        t_u = mark(auto.t_u)
        if flipped is None and adopted == "yes" and auto.t_u.status == "found":
            flipped, adopted, t_u = entry.run_id, "no", Mark(status="never")
        for reviewer in ("A", "B", "C"):
            append_label(
                out,
                ReviewLabel(
                    packet_id=packet,
                    reviewer=reviewer,
                    t_e=mark(auto.t_e),
                    t_s=mark(auto.t_s),
                    t_u=t_u,
                    adopted=adopted,  # type: ignore[arg-type]
                ),
            )
    assert flipped is not None
    sample = from_review(out)
    assert sample.random and sample.references[flipped][1] == "no"
    result = analyze(list(labels.values()), load_case_set(None), validation=sample, replicates=50)
    assert result.validation is not None and result.validation.validated == len(sample.references)
    op = labels[flipped].operator
    row = next(r for r in result.error_rates if r.operator == op)
    assert row.sensitivity.numerator == row.sensitivity.denominator  # no reference-yes missed
    assert row.specificity.numerator == row.specificity.denominator - 1  # the flipped run
