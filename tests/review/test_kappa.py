"""Fleiss' κ against the published worked example and its edge cases."""

from __future__ import annotations

import pytest

from sscbench.review.kappa import fleiss_kappa, fleiss_kappa_counts

# The worked example of the Wikipedia article "Fleiss' kappa" (10 subjects, 14 raters,
# 5 categories): P̄ = 0.378, P̄_e = 0.213, κ = 0.210.
WIKIPEDIA = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_published_worked_example() -> None:
    k = fleiss_kappa_counts(WIKIPEDIA)
    assert (k.subjects, k.raters) == (10, 14)
    assert k.observed == pytest.approx(0.378, abs=5e-4)
    assert k.expected == pytest.approx(0.213, abs=5e-4)
    assert k.kappa == pytest.approx(0.210, abs=5e-4)


def test_raw_ratings_give_the_same_kappa_as_counts() -> None:
    ratings = [[c for c, n in enumerate(row) for _ in range(n)] for row in WIKIPEDIA]
    k = fleiss_kappa(ratings, categories=range(5))
    assert k.kappa == pytest.approx(fleiss_kappa_counts(WIKIPEDIA).kappa)  # type: ignore[arg-type]


def test_three_raters_hand_computed() -> None:
    # 4 subjects, 3 raters: (yes yes yes) (no no no) (yes yes no) (no no yes).
    # P_i = 1, 1, 1/3, 1/3 → P̄ = 2/3; shares 6/12 each → P̄_e = 1/2; κ = (2/3−1/2)/(1/2) = 1/3.
    ratings = [["yes"] * 3, ["no"] * 3, ["yes", "yes", "no"], ["no", "no", "yes"]]
    assert fleiss_kappa(ratings).kappa == pytest.approx(1 / 3)


def test_perfect_agreement_is_one_and_a_single_category_is_undefined() -> None:
    assert fleiss_kappa([["a", "a", "a"], ["b", "b", "b"]]).kappa == pytest.approx(1.0)
    assert fleiss_kappa([["a", "a", "a"], ["a", "a", "a"]]).kappa is None
    assert fleiss_kappa([]).kappa is None


def test_malformed_tables_are_rejected() -> None:
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa_counts([[1, 2], [2, 2]])
    with pytest.raises(ValueError, match="two ratings"):
        fleiss_kappa_counts([[1, 0]])
    with pytest.raises(ValueError, match="not one of the categories"):
        fleiss_kappa([["x", "y"]], categories=["x"])
