"""Oracle metrics on a hand-computed toy set."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.oracles.base import Trajectory, Verdict
from sscbench.oracles.dataset import Item, Reference
from sscbench.oracles.metrics import StratumScore, score, stratified


def item(n: int, adopted: bool | None, t_u: int | None, z_s: str, op: str = "return_date") -> Item:
    clean = z_s == "clean"
    trajectory = Trajectory(f"r{n}", Path("."), None, None, clean)  # type: ignore[arg-type]
    ref = Reference(adopted, t_u, z_s, op, control=adopted is None and not clean, clean=clean)
    return Item(trajectory, ref)


def v(adopted: bool | None, t_u: int | None = None) -> Verdict:
    return Verdict(adopted=adopted, t_u=t_u)


# (item, verdict) with the outcome each is meant to produce.
TOY = [
    (item(1, True, 10, "before"), v(True, 10)),  # TP, T_U exact
    (item(2, True, 8, "absent", "write_effect"), v(True, 9)),  # TP, T_U within ±1
    (item(3, True, 5, "before"), v(None)),  # abstention on a positive: a miss
    (item(4, True, None, "undecidable"), v(False)),  # FN; reference T_U not located
    (item(5, False, None, "before"), v(True, 7)),  # FP on a non-adopted faulted run
    (item(6, False, None, "none"), v(False)),  # TN
    (item(7, False, None, "clean"), v(True, 3)),  # FP on a clean control
    (item(8, False, None, "clean"), v(False)),  # TN
    (item(9, False, None, "clean"), v(None)),  # abstention on a negative: not an FP
    (item(10, None, None, "before"), v(True, 4)),  # target-value control: excluded
]


def test_hand_computed_scores() -> None:
    s = score(TOY)
    c = s.counts
    assert (c.scored, c.excluded, c.positives, c.negatives_faulted, c.clean) == (9, 1, 4, 2, 3)
    assert (s.precision.num, s.precision.den) == (2, 4)
    assert (s.recall.num, s.recall.den) == (2, 4)
    assert s.f1 == pytest.approx(0.5)
    assert (s.fpr_clean.num, s.fpr_clean.den) == (1, 3)
    assert (s.fpr_non_adopted.num, s.fpr_non_adopted.den) == (1, 2)
    assert (s.coverage.num, s.coverage.den) == (7, 9)
    assert (s.t_u_exact.num, s.t_u_exact.den) == (1, 3)
    assert (s.t_u_within_one.num, s.t_u_within_one.den) == (2, 3)


def test_strata_by_operator_and_arrival_keep_empty_ones() -> None:
    items, verdicts = zip(*TOY, strict=True)
    rows = dict(stratified(list(items), list(verdicts)))
    names = list(rows)
    assert names[0] == "all"
    operators = [n for n in names if n.startswith("operator=")]
    assert names[1 : 1 + len(operators)] == operators, "operator strata come first"
    for builtin in ("return_date", "pay_source", "item_option", "write_effect"):
        assert f"operator={builtin}" in operators, "every registered operator, even empty"
    assert rows["operator=pay_source"].counts.scored == 0
    assert rows["operator=pay_source"].precision.value is None
    assert rows["operator=pay_source"].f1 is None
    before = rows["arrival=before"]  # items 1, 3, 5 (10 is an excluded control)
    assert (before.counts.scored, before.counts.excluded) == (3, 1)
    assert (before.recall.num, before.recall.den) == (1, 2)
    assert (before.fpr_non_adopted.num, before.fpr_non_adopted.den) == (1, 1)
    assert rows["arrival=after"].counts.scored == 0
    assert rows["arrival=clean"].fpr_clean.value == pytest.approx(1 / 3)
    assert rows["operator=write_effect"].t_u_within_one.value == 1.0
    assert rows["operator=write_effect"].t_u_exact.value == 0.0


def test_the_saved_record_keeps_counts_and_metrics() -> None:
    d = score(TOY).record()
    assert d.tp == 2 and d.precision == 0.5 and d.coverage == pytest.approx(7 / 9)
    assert StratumScore.model_validate_json(d.model_dump_json()) == d


def test_a_step_only_oracle_has_no_adoption_metrics() -> None:
    # All-at-once attribution names a step and nothing else (verdict adopted=None).
    steps = [v(None, 10), v(None, 9), v(None), v(None, 2), v(None, 7), v(None), v(None, 3)]
    pairs = [(i, s) for (i, _), s in zip(TOY, steps, strict=False)]
    s = score(pairs, step_only=True)
    c = s.counts
    assert (c.scored, c.positives, c.tp, c.fp_faulted, c.fp_clean) == (7, 4, 0, 0, 0)
    assert s.precision.value is None and s.recall.value is None and s.f1 is None
    assert s.fpr_clean.value is None and s.fpr_non_adopted.value is None
    # Localisation over positives with a located reference T_U (items 1-3): 10 = 10 exact,
    # 9 vs 8 within one, no step for item 3 is a miss.
    assert (s.t_u_exact.num, s.t_u_exact.den) == (1, 3)
    assert (s.t_u_within_one.num, s.t_u_within_one.den) == (2, 3)
    assert (s.coverage.num, s.coverage.den) == (5, 7), "coverage = named a step"
    # The same verdicts scored as an adoption oracle would be all abstentions.
    assert score(pairs).t_u_exact.num == 0
