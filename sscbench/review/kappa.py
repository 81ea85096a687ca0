"""Fleiss' κ for a fixed number of raters per subject (Fleiss 1971).

The measurement (docs/measurement.md §7) asks for *pre-adjudication* agreement per
categorical quantity. Fleiss' κ is the standard chance-corrected statistic for more than two raters
who each rate every subject; with the three reviewers A, B and C it is exactly that. Implemented
here (a dozen lines) rather than pulled from statsmodels so that the definition in use is the one
the tests check against the published worked example.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Kappa:
    """Fleiss' κ with its ingredients; ``kappa`` is None when chance agreement is 1
    (every rating fell in one category, so κ is 0/0 and undefined)."""

    subjects: int
    raters: int
    observed: float
    expected: float
    kappa: float | None


def fleiss_kappa_counts(counts: Sequence[Sequence[int]]) -> Kappa:
    """κ from a subjects × categories matrix of rating counts (each row sums to n).

    ``P̄`` is the mean per-subject agreement ``(Σ_j n_ij² − n) / (n(n−1))`` and ``P̄_e``
    the sum of squared category shares; ``κ = (P̄ − P̄_e) / (1 − P̄_e)``.
    """
    if not counts:
        return Kappa(subjects=0, raters=0, observed=0.0, expected=0.0, kappa=None)
    raters = sum(counts[0])
    if raters < 2:
        raise ValueError("Fleiss' κ needs at least two ratings per subject")
    for row in counts:
        if sum(row) != raters:
            raise ValueError("every subject must have the same number of ratings")
    subjects = len(counts)
    total = subjects * raters
    shares = [sum(row[j] for row in counts) / total for j in range(len(counts[0]))]
    per_subject = [(sum(c * c for c in row) - raters) / (raters * (raters - 1)) for row in counts]
    observed = sum(per_subject) / subjects
    expected = sum(p * p for p in shares)
    kappa = None if expected >= 1.0 else (observed - expected) / (1.0 - expected)
    return Kappa(
        subjects=subjects, raters=raters, observed=observed, expected=expected, kappa=kappa
    )


def fleiss_kappa(
    ratings: Sequence[Sequence[Hashable]], categories: Sequence[Hashable] | None = None
) -> Kappa:
    """κ from raw ratings: one row per subject, one categorical rating per rater.

    ``categories`` fixes the column order (and may list categories nobody used, which
    changes nothing); by default the categories seen, in first-seen order.
    """
    if categories is None:
        seen: dict[Hashable, None] = {}
        for row in ratings:
            for rating in row:
                seen.setdefault(rating, None)
        categories = list(seen)
    index = {c: i for i, c in enumerate(categories)}
    counts: list[list[int]] = []
    for row in ratings:
        tally = [0] * len(categories)
        for rating in row:
            if rating not in index:
                raise ValueError(f"rating {rating!r} is not one of the categories")
            tally[index[rating]] += 1
        counts.append(tally)
    return fleiss_kappa_counts(counts)
