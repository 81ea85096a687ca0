"""The analysis result: every table the report, the CLI and the JSON/CSV/LaTeX exports show.

One frozen record per table row; every rate carries its counts (numerator, denominator,
clusters) and its interval with the method that produced it, so a claim is always bound
to the population that supports it. Empty strata are rows with zero counts, never dropped.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from sscbench.analysis.correction_records import CorrectedRow, ErrorRateRow, ValidationInfo
from sscbench.records.versioning import DerivedDocument

ANALYSIS_SCHEMA_VERSION = 4
"""4: the validation sample, the reconstructor's error rates and the corrected adoption
(``validation``, ``error_rates``, ``corrected``)."""


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Interval(_Row):
    """A 95% interval for a proportion."""

    low: float | None
    high: float | None
    method: Literal["wilson", "cluster_bootstrap", "none"]


class Rate(_Row):
    """A proportion with its counts and interval (``value`` is None on 0/0)."""

    numerator: int
    denominator: int
    clusters: int
    value: float | None
    interval: Interval


class ConfigurationRow(_Row):
    """A configuration and the scale of its execution (the paper's Table I)."""

    configuration: str
    agent: str
    repetitions: int
    """Repetitions planned for it (r0..r(k-1)), from the schedule when there is one."""
    scheduled: int
    """Faulted runs scheduled after gating, every repetition."""
    gated: int
    observed: int
    triggered: int


class FunnelRow(_Row):
    """scheduled → observed → triggered → dependent use decidable → analysis population P.

    ``no_use`` (adoptable runs with no dependent use) and ``controls`` are reported beside
    ``P``, not in it; decidable_use − no_use − controls − population are the runs whose
    ``Z_S`` is undecidable or that a sensitivity variant excluded."""

    operator: str
    configuration: str
    gated: int
    """Faulted runs not scheduled: the configuration did not solve the clean task."""
    scheduled: int
    observed: int
    missing: int
    triggered: int
    not_triggered: int
    decidable_use: int
    no_use: int
    arrival_decided: int
    """``n_Z``: non-control runs with a dependent use whose arrival class is decidable."""
    arrival_undecidable: int
    """``u_Z``: non-control runs with a dependent use whose arrival class is undecidable."""
    population: int
    controls: int


class ArrivalRow(_Row):
    """Arrival shares on runs with decidable Z_S (controls included: arrival only)."""

    operator: str
    configuration: str
    before: Rate
    after: Rate
    absent: Rate
    no_use: int
    undecidable: int


class AdoptionRow(_Row):
    """Adoption on triggered runs (A_T), within P (A_P) and per arrival stratum (a_s)."""

    operator: str
    configuration: str
    a_t: Rate
    a_p: Rate
    a_before: Rate
    a_after: Rate
    a_absent: Rate


class RelianceTimingRow(_Row):
    """q_U = P(T_E < T_U | A=1, P), the count with T_S < T_E < T_U, and the T_U − T_E gaps."""

    operator: str
    configuration: str
    q_u: Rate
    refuted_between_use_and_reliance: int
    gaps: tuple[int | None, ...]
    """T_U − T_E per adopted run in P; None where T_E = ∞."""
    order_undecidable: int = 0
    """``u_q``: adopted runs in P whose order of ``T_E`` and ``T_U`` is undecidable."""
    first_use_is_reliance: int = 0
    """Runs of ``q_U``'s denominator whose first use is the first reliance (``T_S = T_U``)."""


class ReformulationRow(_Row):
    """Adoption / adoption with eventual refutation / with pre-use refutation (per operator)."""

    operator: str
    configuration: str
    adoption: Rate
    adoption_eventually_refuted: Rate
    adoption_refuted_before_use: Rate


class StanceRow(_Row):
    """Y_end among adopted runs in P."""

    operator: str
    configuration: str
    endorse: int
    retract: int
    undecidable: int


class StanceStratumRow(_Row):
    """Y_end among adopted runs in P, within one arrival stratum."""

    operator: str
    configuration: str
    stratum: str
    endorse: int
    retract: int
    undecidable: int


class NoiseRow(_Row):
    """Seed–configuration pairs whose arrival class changes across repetitions."""

    operator: str
    configuration: str
    pairs: int
    pairs_with_repetitions: int
    changed: int


class PairedRow(_Row):
    """A paired interface check: main-interface runs against their variant twins (same case,
    configuration and repetition), on pairs where both were observed and triggered."""

    check: str
    """The interface variant: ``read_back_hint`` or ``aligned``."""
    operator: str
    configuration: str
    pairs: int
    read_back_main: int
    """Pairs whose main-interface run received the refutation (``T_E`` found)."""
    read_back_variant: int
    adoption_pairs: int
    """Pairs with a decided ``A`` on both sides."""
    adopted_main: int
    adopted_variant: int
    adopted_main_only: int
    """Discordant pairs: adopted on the main interface only."""
    adopted_variant_only: int


class ChannelRow(_Row):
    """How the refutations of runs with a decided ``Z_S`` reached the agent: ``tool`` (an
    agent tool observation) or ``user`` (the customer relaying a device reading)."""

    operator: str
    configuration: str
    channel: Literal["tool", "user"]
    before: int
    """Runs whose refutation came this way before their first dependent use."""
    after: int
    """Runs whose refutation came this way only after it."""


class DomainAdoptionRow(_Row):
    """Per configuration and τ² domain, every operator's runs of that domain pooled: the
    overall answer (``overall_adoption``) split by domain."""

    operator: str
    """Always :data:`ALL_OPERATORS`."""
    configuration: str
    domain: str
    triggered: int
    a_t: Rate
    a_p: Rate
    a_before: Rate
    a_after: Rate
    a_absent: Rate


class TaskSuccessRow(_Row):
    """τ²'s task reward (1 solved, 0 not) under fault beside the same task's clean run.

    The runs are the triggered, adoptable runs of the population whose success was graded
    (:mod:`sscbench.analysis.task_success`). ``fault`` is their success; ``pairs`` those
    with a clean run of the same configuration and task, on which ``fault_paired``,
    ``clean`` and the paired ``difference`` (faulted − clean) are computed. The splits
    are the faulted success of every such run, by adoption and by arrival stratum."""

    operator: str
    configuration: str
    fault: Rate
    pairs: int
    unpaired: int
    """Runs with no clean run of their configuration and task (left out of the pairing)."""
    fault_paired: Rate
    clean: Rate
    difference: float | None
    difference_interval: Interval
    fault_adopted: Rate
    fault_not_adopted: Rate
    fault_before: Rate
    fault_after: Rate
    fault_absent: Rate


class PassKRow(_Row):
    """τ²'s pass^k: the chance that k trials of one unit all succeed, averaged over units
    with at least k trials (the unbiased estimator C(c, k) / C(n, k) per unit).

    ``clean`` rows: a unit is a task of one configuration, trials its clean runs' seeds;
    ``fault`` rows: a unit is a case, trials its triggered repetitions with a graded
    success. ``adoption_k`` rows (metric ``no_adoption``): the chance that all k
    repetitions of a case avoid adoption, C(n − a, k) / C(n, k) over repetitions with a
    decided ``A``."""

    metric: Literal["success", "no_adoption"]
    condition: Literal["clean", "fault"]
    operator: str
    configuration: str
    k: int
    units: int
    clusters: int
    value: float | None
    interval: Interval


class MitigationRow(_Row):
    """A configuration with and without one mitigation, pair by pair: the same case and
    seed run by the base configuration and by ``configuration+mitigation``.

    Adoption is compared on pairs where both runs were triggered and have a decided ``A``;
    task success on pairs where both were graded; steps on pairs where both finished;
    tokens and USD on pairs whose provider usage was read
    (:mod:`sscbench.analysis.mitigation_cost`). Each difference is with − without, with a
    cluster-bootstrap interval."""

    operator: str
    configuration: str
    mitigation: str
    adoption_pairs: int
    adopted_without: Rate
    adopted_with: Rate
    adoption_difference: float | None
    adoption_interval: Interval
    adopted_without_only: int
    adopted_with_only: int
    success_pairs: int
    success_without: Rate
    success_with: Rate
    success_difference: float | None
    success_interval: Interval
    steps_pairs: int = 0
    steps_without: float | None = None
    steps_with: float | None = None
    steps_difference: float | None = None
    steps_interval: Interval = Interval(low=None, high=None, method="none")
    cost_pairs: int = 0
    """Pairs whose runs' provider usage was read (a run with no provider calls counts)."""
    provider_calls_without: int = 0
    """Attempts that reached a provider, summed over the cost pairs (0: scripted agents)."""
    provider_calls_with: int = 0
    tokens_without: float | None = None
    """Mean input + output tokens per run over the cost pairs with counts on both sides."""
    tokens_with: float | None = None
    tokens_difference: float | None = None
    tokens_interval: Interval = Interval(low=None, high=None, method="none")
    usd_without: float | None = None
    """Mean USD per run over the cost pairs priced on both sides."""
    usd_with: float | None = None
    usd_difference: float | None = None
    usd_interval: Interval = Interval(low=None, high=None, method="none")


ALL_OPERATORS = "all operators"
"""The operator of the per-configuration rows that pool every operator's runs."""


class AnalysisResult(_Row, DerivedDocument):
    """Everything an analysis of one run set produced."""

    SCHEMA: ClassVar[int] = ANALYSIS_SCHEMA_VERSION
    REGENERATE: ClassVar[str] = "`sscbench report RUNDIR`"

    schema_version: int = ANALYSIS_SCHEMA_VERSION
    sensitivity: str
    """Which population variant: ``primary``, ``common_seeds``, ``all_repetitions``,
    ``strict_item_option``, ``controls_included``."""
    bootstrap_replicates: int
    seed: int
    configurations: tuple[ConfigurationRow, ...] = ()
    funnel: tuple[FunnelRow, ...]
    arrival: tuple[ArrivalRow, ...]
    adoption: tuple[AdoptionRow, ...]
    timing: tuple[RelianceTimingRow, ...]
    reformulation: tuple[ReformulationRow, ...]
    stance: tuple[StanceRow, ...]
    stance_by_stratum: tuple[StanceStratumRow, ...] = ()
    noise: tuple[NoiseRow, ...]
    paired: tuple[PairedRow, ...] = ()
    """Paired interface checks (empty when the run set has none)."""
    task_success: tuple[TaskSuccessRow, ...] = Field(default=(), exclude_if=lambda rows: not rows)
    """Task success under fault beside the clean runs (optional: absent from files written
    before it existed, and left out when empty)."""
    channels: tuple[ChannelRow, ...] = Field(default=(), exclude_if=lambda rows: not rows)
    """The refutation channel beside ``Z_S`` — only when some refutation came through the
    user (telecom's device readings); every other analysis has none, and no such field."""
    pass_k: tuple[PassKRow, ...] = Field(default=(), exclude_if=lambda rows: not rows)
    """pass^k of clean and faulted runs and adoption^k (optional, as ``task_success``)."""
    mitigations: tuple[MitigationRow, ...] = Field(default=(), exclude_if=lambda rows: not rows)
    """Each mitigated configuration against its base on the same cases and seeds
    (optional, left out when the run set has no mitigated configuration)."""
    overall_funnel: tuple[FunnelRow, ...] = Field(default=(), exclude_if=lambda rows: not rows)
    overall_adoption: tuple[AdoptionRow, ...] = Field(default=(), exclude_if=lambda rows: not rows)
    """Per configuration, every operator's runs pooled (operator :data:`ALL_OPERATORS`):
    the report's first answer. Intervals resample each operator's entity clusters apart.
    Absent from files written before they existed (left out when empty, so such a file
    reads and writes back unchanged)."""
    domains: tuple[DomainAdoptionRow, ...] = Field(default=(), exclude_if=lambda rows: not rows)
    """``overall_adoption`` per τ² domain, when the runs span more than one (left out
    otherwise, so a one-domain analysis reads and writes back unchanged)."""
    validation: ValidationInfo | None = Field(default=None, exclude_if=lambda v: v is None)
    """The validation sample the correction used (None: none was given, nothing corrected)."""
    error_rates: tuple[ErrorRateRow, ...] = Field(default=(), exclude_if=lambda rows: not rows)
    """The reconstructor's error per operator, measured on the validation sample."""
    corrected: tuple[CorrectedRow, ...] = Field(default=(), exclude_if=lambda rows: not rows)
    """Adoption per arrival stratum corrected for that error, beside the uncorrected figure:
    per operator × configuration and per configuration with every operator pooled. The
    three are left out of the file when no validation sample was given."""
