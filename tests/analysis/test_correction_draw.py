"""The imputation draw in the corrected estimate's bootstrap (``total_replicates``).

Every replicate draws the reference cells of the unvalidated runs of each sampling stratum
from that stratum's PPV row. With identical entity clusters the cluster resampling cannot
move the counts, so what varies between replicates is the draw alone, and its law is known:
Multinomial(unvalidated runs, the PPV row of the stratum's automatic cell), added to the
validated runs' reference cells.
"""

from __future__ import annotations

import numpy as np

from sscbench.analysis.correction import CELLS, Design, cell, observed_cell, total_replicates

B = 4000
BEFORE_NO, BEFORE_YES = cell("before", False), cell("before", True)
AFTER_YES = cell("after", True)


def _design() -> Design:
    """Two identical entity clusters, one configuration, two strata: automatic
    before/yes (per cluster: 3 validated before/yes, 1 validated before/no, 20
    unvalidated) and automatic after/yes (2 validated after/yes, 5 unvalidated)."""
    cluster = np.zeros((2, CELLS + 1), dtype=np.int64)
    cluster[0, BEFORE_YES], cluster[0, BEFORE_NO], cluster[0, CELLS] = 3, 1, 20
    cluster[1, AFTER_YES], cluster[1, CELLS] = 2, 5
    return Design(
        clusters=np.stack([cluster, cluster]),
        groups=np.array([0, 0]),
        cells=np.array([observed_cell("before", True), observed_cell("after", True)]),
        n_groups=1,
    )


def _reps(seed: int) -> np.ndarray:
    return total_replicates(_design(), np.random.default_rng(seed), B)[:, 0, :]


def test_the_draw_is_multinomial_from_the_strata_ppv_rows() -> None:
    reps = _reps(11)
    assert reps.shape == (B, CELLS)
    # Conservation: every run is counted once, validated (12) and drawn (50).
    assert np.all(reps.sum(axis=-1) == 62)
    # The after/yes stratum's PPV is all after/yes: its 10 unvalidated runs land there.
    assert np.all(reps[:, AFTER_YES] == 4 + 10)
    others = [t for t in range(CELLS) if t not in (BEFORE_NO, BEFORE_YES, AFTER_YES)]
    assert np.all(reps[:, others] == 0)
    # The before/yes stratum: validated 6 + 2, 40 drawn with PPV (3/4 yes, 1/4 no).
    drawn_yes = reps[:, BEFORE_YES] - 6
    assert np.all(reps[:, BEFORE_NO] - 2 == 40 - drawn_yes)
    mean, var = drawn_yes.mean(), drawn_yes.var()
    # Binomial(40, 0.75): mean 30, variance 7.5; 4,000 draws put the mean within ±0.15
    # (> 3.5 standard errors) and the variance within ±12 %.
    assert abs(mean - 30) < 0.15, mean
    assert abs(var - 7.5) < 0.9, var


def test_the_draw_is_seeded() -> None:
    assert np.array_equal(_reps(11), _reps(11))
    assert not np.array_equal(_reps(11), _reps(12))
