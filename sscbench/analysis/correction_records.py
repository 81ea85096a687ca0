"""Records of the misclassification-aware estimates (``analysis.json``, schema 4).

The reconstructor's own error, measured on a validation sample, and adoption per arrival
stratum corrected for it (:mod:`sscbench.analysis.correction`). Kept apart from
:mod:`sscbench.analysis.results` so the correction's records change in one place.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Share(_Row):
    """A weighted share with the unweighted counts it rests on (``value`` None on 0/0)."""

    numerator: int
    denominator: int
    value: float | None


class ValidationInfo(_Row):
    """Where the validation sample came from and how the correction used it."""

    source: Literal["review", "truth"]
    """``review``: a review directory's adjudicated reference; ``truth``: the scripted
    agents' private ground truth standing in for it (the demo)."""
    description: str
    validated: int
    """Validated runs inside the analysed universe (triggered, adoptable runs)."""
    outside: int
    """Validated runs the analysis does not cover (other repetitions, controls, pending)."""
    min_per_cell: int
    min_per_operator: int
    replicates: int
    method: str


class ErrorRateRow(_Row):
    """The reconstructor's error for one operator, estimated on the validation sample.

    Shares are weighted by the inverse of each validated run's sampling fraction (its
    sampling stratum: operator, configuration, automatic arrival class); counts are the
    validated runs themselves."""

    operator: str
    validated: int
    sensitivity: Share
    """P(automatic A = 1 | reference A = 1)."""
    specificity: Share
    """P(automatic A = 0 | reference A = 0)."""
    undecidable: Share
    """P(automatic A undecidable | reference A decided)."""
    z_confusion: dict[str, dict[str, int]]
    """reference Z_S → automatic Z_S → validated runs (``out``: no use or undecidable)."""
    z_agreement: Share
    sufficient: bool
    """Large enough to correct with (see ``reason`` otherwise)."""
    reason: str | None = None


class CorrectedRow(_Row):
    """Adoption in one arrival stratum, uncorrected and corrected for the labeller's error."""

    operator: str
    configuration: str
    stratum: Literal["before", "after", "absent"]
    uncorrected: float | None
    uncorrected_counts: str
    """adopted/evaluable of the uncorrected figure."""
    status: Literal["corrected", "too_small", "no_runs"]
    value: float | None
    """The corrected estimate (None unless corrected and the stratum is estimated non-empty)."""
    low: float | None
    high: float | None
    estimated_runs: float | None
    """The stratum's estimated true size (adoption decided by the reference)."""
    validated: int
    """Runs of this group whose reference label is used directly."""
    warning: str | None = None
