"""The normative quantities of docs/measurement.md §6, each bound to the runs that support it.

``analyze`` turns a run set's labels into an :class:`AnalysisResult`: the funnel, arrival
shares, adoption (``A_T``, ``A_P``, ``a_s`` per stratum), reliance timing (``q_U``, the
``T_S < T_E < T_U`` count, the ``T_U − T_E`` gaps), the reformulation table, ``Y_end``
and the noise floor. Every rate names its denominator explicitly (the functions below say
which runs it is) and runs whose claim is undecidable are left out of that denominator
rather than counted as "no": an undecidable arrival is never filed as absent.

Denominators:

- arrival shares — included, triggered runs with decidable ``Z_S``, controls included
  (they are kept for arrival); ``no_use`` and ``undecidable`` count the rest of the
  triggered runs, so the three strata plus these two add up to the triggered runs;
- ``A_T`` — triggered, adoptable (non-control) runs with decided ``A``;
- ``A_P`` — runs in ``P`` with decided ``A``; ``a_s`` — those with ``Z_S = s``;
- ``q_U`` — adopted runs in ``P`` with ``T_U`` found and ``T_E`` decided (found or ∞);
- reformulation — runs in ``P`` with decided ``A``; for the two refutation claims an
  adopted run also needs a decided ``T_E`` (eventual) or ``Z_S`` (pre-use), since
  ``A=1 ∧ T_E<∞`` is unknown when ``T_E`` is.

Reformulation and timing also get one pooled row per operator (configuration
:data:`POOLED`): the paper states those claims per operator, and only here can their
interval resample clusters shared across configurations.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from sscbench.agents.mitigations import mitigation_names
from sscbench.analysis.correction import ValidationSample, correct
from sscbench.analysis.intervals import DEFAULT_REPLICATES, LEVEL, proportion
from sscbench.analysis.mitigation import mitigation_rows
from sscbench.analysis.mitigation_cost import RunUsage
from sscbench.analysis.paired import paired_rows
from sscbench.analysis.passk import pass_k_rows
from sscbench.analysis.population import (
    CONTROL_SUFFIX,
    SENSITIVITIES,
    STRATA,
    Population,
    Run,
    RunKey,
    Sensitivity,
    build_population,
    funnel_row,
)
from sscbench.analysis.results import (
    ALL_OPERATORS,
    AdoptionRow,
    AnalysisResult,
    ArrivalRow,
    ChannelRow,
    ConfigurationRow,
    DomainAdoptionRow,
    FunnelRow,
    NoiseRow,
    Rate,
    ReformulationRow,
    RelianceTimingRow,
    StanceRow,
    StanceStratumRow,
)
from sscbench.analysis.task_success import CleanOutcomes, task_success_rows
from sscbench.cases.caseset import CaseSet
from sscbench.reconstruct.labels import LabelView, channel_of

POOLED = "all"
"""Configuration name of the per-operator pooled rows (reformulation and timing)."""


class _Rates:
    """Builds rates with the analysis seed, replicate count and level fixed."""

    def __init__(self, seed: int, replicates: int, level: float) -> None:
        self.seed = seed
        self.replicates = replicates
        self.level = level

    def __call__(self, runs: Sequence[Run], success: Callable[[Run], bool]) -> Rate:
        """``success`` over ``runs`` (the denominator), clustered by entity cluster."""
        return proportion(
            [(run.cluster, success(run)) for run in runs],
            seed=self.seed,
            replicates=self.replicates,
            level=self.level,
        )


def _steps(run: Run) -> tuple[int | None, int | None, int | None]:
    """``(T_E, T_S, T_U)`` steps where found, else ``None``."""
    label = run.label
    if label is None:
        return None, None, None
    return (
        label.t_e.step if label.t_e.status == "found" else None,
        label.t_s.step if label.t_s.status == "found" else None,
        label.t_u.step if label.t_u.status == "found" else None,
    )


def arrival_row(operator: str, configuration: str, runs: Sequence[Run], rate: _Rates) -> ArrivalRow:
    """Arrival shares on included, triggered runs with decidable ``Z_S`` (controls too)."""
    decided = [r for r in runs if r.arrival is not None]
    rest = [r for r in runs if r.included and r.triggered and r.arrival is None]
    no_use = sum(1 for r in rest if r.label is not None and r.label.z_s == "none")
    return ArrivalRow(
        operator=operator,
        configuration=configuration,
        before=rate(decided, lambda r: r.arrival == "before"),
        after=rate(decided, lambda r: r.arrival == "after"),
        absent=rate(decided, lambda r: r.arrival == "absent"),
        no_use=no_use,
        undecidable=len(rest) - no_use,
    )


def channel_rows(groups: Sequence[tuple[str, str, list[Run]]]) -> tuple[ChannelRow, ...]:
    """Per operator × configuration and channel, the refuted runs of the arrival table by
    stratum; none at all unless a refutation came through the user (then every group's
    channels are listed, tool ones included, so the two can be read side by side)."""
    rows = []
    for operator, configuration, runs in groups:
        refuted = [(channel_of(r.label), r.arrival) for r in runs if r.label is not None]
        for channel in ("tool", "user"):
            before = sum(1 for c, z in refuted if c == channel and z == "before")
            after = sum(1 for c, z in refuted if c == channel and z == "after")
            if before or after:
                rows.append(ChannelRow(operator=operator, configuration=configuration,
                                       channel=channel, before=before, after=after))  # fmt: skip
    return tuple(rows) if any(r.channel == "user" for r in rows) else ()


def adoption_row(
    operator: str, configuration: str, runs: Sequence[Run], rate: _Rates
) -> AdoptionRow:
    """``A_T`` on triggered runs, ``A_P`` within ``P``, ``a_s`` within each stratum."""
    triggered = [r for r in runs if r.adoptable and r.triggered and r.adoption_decided]
    in_p = [r for r in runs if r.in_population and r.adoption_decided]

    def stratum(s: str) -> Rate:
        return rate([r for r in in_p if r.arrival == s], _adopted)

    return AdoptionRow(
        operator=operator,
        configuration=configuration,
        a_t=rate(triggered, _adopted),
        a_p=rate(in_p, _adopted),
        a_before=stratum("before"),
        a_after=stratum("after"),
        a_absent=stratum("absent"),
    )


def _adopted(run: Run) -> bool:
    return run.adopted


def timing_row(
    operator: str, configuration: str, runs: Sequence[Run], rate: _Rates
) -> RelianceTimingRow:
    """``q_U``, the ``T_S < T_E < T_U`` count and ``T_U − T_E`` per adopted run in ``P``.

    Only adopted runs whose ``T_U`` is found and ``T_E`` decided enter: the gap (and
    whether the refutation preceded the reliance) is unknown otherwise. A gap is ``None``
    for ``T_E = ∞``; positive gaps are refutations visible before the first reliance.
    """
    timed = [
        r
        for r in runs
        if r.in_population
        and r.adopted
        and r.label is not None
        and r.label.t_u.status == "found"
        and r.label.t_e.status in ("found", "never")
    ]
    gaps: list[int | None] = []
    between = same = 0
    for run in timed:
        t_e, t_s, t_u = _steps(run)
        assert t_u is not None  # filtered above
        gaps.append(None if t_e is None else t_u - t_e)
        if t_e is not None and t_s is not None and t_s < t_e < t_u:
            between += 1
        same += t_s == t_u
    adopted = sum(1 for r in runs if r.in_population and r.adopted)
    return RelianceTimingRow(
        operator=operator,
        configuration=configuration,
        q_u=rate(timed, _refuted_before_reliance),
        refuted_between_use_and_reliance=between,
        gaps=tuple(gaps),
        order_undecidable=adopted - len(timed),
        first_use_is_reliance=same,
    )


def _refuted_before_reliance(run: Run) -> bool:
    t_e, _, t_u = _steps(run)
    return t_e is not None and t_u is not None and t_e < t_u


def reformulation_row(
    operator: str, configuration: str, runs: Sequence[Run], rate: _Rates
) -> ReformulationRow:
    """Adoption, adoption with eventual refutation, adoption with pre-use refutation."""
    base = [r for r in runs if r.in_population and r.adoption_decided]
    eventual = [
        r
        for r in base
        if not r.adopted or (r.label is not None and r.label.t_e.status in ("found", "never"))
    ]
    pre_use = [r for r in base if not r.adopted or r.arrival is not None]
    return ReformulationRow(
        operator=operator,
        configuration=configuration,
        adoption=rate(base, _adopted),
        adoption_eventually_refuted=rate(
            eventual,
            lambda r: r.adopted and r.label is not None and r.label.t_e.status == "found",
        ),
        adoption_refuted_before_use=rate(pre_use, lambda r: r.adopted and r.arrival == "before"),
    )


def stance_row(operator: str, configuration: str, runs: Sequence[Run]) -> StanceRow:
    """``Y_end`` among adopted runs in ``P`` (a missing stance counts as undecidable).

    ``Y_end`` is the last explicit stance on ``v′``; it is not evidence of repair.
    """
    adopted = [r for r in runs if r.in_population and r.adopted and r.label is not None]
    endorse = sum(1 for r in adopted if r.label is not None and r.label.y_end == "endorse")
    retract = sum(1 for r in adopted if r.label is not None and r.label.y_end == "retract")
    return StanceRow(
        operator=operator,
        configuration=configuration,
        endorse=endorse,
        retract=retract,
        undecidable=len(adopted) - endorse - retract,
    )


def stance_strata(operator: str, configuration: str, runs: Sequence[Run]) -> list[StanceStratumRow]:
    """``Y_end`` among adopted runs in ``P`` within each arrival stratum (empty strata
    included): "32 adopted after-arrival runs, 20 still endorse at the end"."""
    out = []
    for stratum in STRATA:
        adopted = [r for r in runs if r.in_population and r.adopted and r.arrival == stratum]
        stances = [r.label.y_end if r.label is not None else None for r in adopted]
        endorse, retract = stances.count("endorse"), stances.count("retract")
        out.append(
            StanceStratumRow(
                operator=operator,
                configuration=configuration,
                stratum=stratum,
                endorse=endorse,
                retract=retract,
                undecidable=len(adopted) - endorse - retract,
            )
        )
    return out


def configuration_rows(population: Population) -> tuple[ConfigurationRow, ...]:
    """Per configuration: agent, planned repetitions and execution scale over every
    repetition (``population`` must hold all of them)."""
    rows = []
    configurations = sorted(
        {r.key.configuration for r in population.runs} | {c for _, c, _ in population.gated}
    )
    for configuration in configurations:
        runs = [r for r in population.runs if r.key.configuration == configuration]
        agents = sorted({r.label.agent for r in runs if r.label is not None})
        seeds = {r.key.repetition for r in runs} | set(
            population.gated_seeds.get(configuration, ())
        )
        rows.append(
            ConfigurationRow(
                configuration=configuration,
                agent=", ".join(agents) or "—",
                repetitions=len(seeds),
                scheduled=len(runs),
                gated=sum(n for _, c, n in population.gated if c == configuration),
                observed=sum(r.observed for r in runs),
                triggered=sum(r.triggered for r in runs),
            )
        )
    return tuple(rows)


def noise_row(operator: str, configuration: str, runs: Sequence[Run]) -> NoiseRow:
    """Seed–configuration pairs whose arrival class changes across repetitions.

    A pair is a case under one configuration; it has repetitions when at least two of its
    runs have a decidable ``Z_S``, and it *changed* when those runs do not all share one
    class. ``runs`` must hold every repetition, whatever the variant.
    """
    classes: dict[str, list[str]] = defaultdict(list)
    for run in runs:
        if run.arrival is not None:
            classes[run.key.case_id].append(run.arrival)
    repeated = [c for c in classes.values() if len(c) >= 2]
    return NoiseRow(
        operator=operator,
        configuration=configuration,
        pairs=len(classes),
        pairs_with_repetitions=len(repeated),
        changed=sum(1 for c in repeated if len(set(c)) > 1),
    )


def analyze(
    labels: Iterable[LabelView],
    case_set: CaseSet,
    *,
    sensitivity: Sensitivity = "primary",
    schedule: Iterable[RunKey] | None = None,
    first_seeds: Mapping[str, int] | None = None,
    gated: Iterable[RunKey] = (),
    seed: int = 0,
    replicates: int = DEFAULT_REPLICATES,
    level: float = LEVEL,
    validation: ValidationSample | None = None,
    clean: CleanOutcomes | None = None,
    steps: Mapping[str, int] | None = None,
    usage: Mapping[str, RunUsage] | None = None,
) -> AnalysisResult:
    """Every §7 table for one population variant of a run set.

    ``labels`` are the records of ``labels.jsonl``; ``case_set`` supplies each case's
    entity cluster and control flag; ``schedule`` (optional) lists the runs the design
    asked for, so unrecorded runs count as missing; ``first_seeds`` names r0's seed per
    configuration (the primary repetition); ``gated`` lists the faulted runs gating kept
    out of the schedule (reported beside the funnel). ``seed`` fixes every bootstrap
    interval; ``replicates`` is B. ``validation`` (reference labels of some runs) adds the
    reconstructor's error rates and adoption corrected for them (:mod:`.correction`).
    ``clean`` (the clean runs' graded outcomes,
    :func:`~sscbench.analysis.task_success.read_clean_outcomes`) adds task success under
    fault and pass^k; without it those tables are left out. Configurations named
    ``BASE+MITIGATION`` are compared with their base (:mod:`.mitigation`; ``steps``, each
    run's step count by run id, and ``usage``, its provider tokens and USD
    (:func:`~sscbench.analysis.mitigation_cost.read_run_usage`), add their cost).
    """
    labels = list(labels)
    schedule = None if schedule is None else list(schedule)
    gated = list(gated)
    population = build_population(
        labels,
        case_set,
        sensitivity=sensitivity,
        schedule=schedule,
        first_seeds=first_seeds,
        gated=gated,
    )
    every_repetition = build_population(
        labels, case_set, sensitivity=sensitivity, schedule=schedule, repetitions="all"
    )
    every_repetition_gated = build_population(
        labels,
        case_set,
        sensitivity="all_repetitions",
        schedule=schedule,
        gated=gated,
    )
    rate = _Rates(seed, replicates, level)
    groups = list(population.groups())
    timing: list[RelianceTimingRow] = []
    reformulation: list[ReformulationRow] = []
    for operator in population.operators():
        own = [(c, runs) for op, c, runs in groups if op == operator]
        pooled = [run for _, runs in own for run in runs]
        timing.extend(timing_row(operator, c, runs, rate) for c, runs in own)
        timing.append(timing_row(operator, POOLED, pooled, rate))
        reformulation.extend(reformulation_row(operator, c, runs, rate) for c, runs in own)
        reformulation.append(reformulation_row(operator, POOLED, pooled, rate))
    overall = _overall(population, groups, rate)
    corrected = (
        None
        if validation is None
        else correct(groups, validation, seed=seed, replicates=replicates, level=level)
    )
    return AnalysisResult(
        sensitivity=sensitivity,
        bootstrap_replicates=replicates,
        seed=seed,
        configurations=configuration_rows(every_repetition_gated),
        funnel=population.funnel(),
        arrival=tuple(arrival_row(op, c, runs, rate) for op, c, runs in groups),
        channels=channel_rows(groups),
        adoption=tuple(adoption_row(op, c, runs, rate) for op, c, runs in groups),
        timing=tuple(timing),
        reformulation=tuple(reformulation),
        stance=tuple(stance_row(op, c, runs) for op, c, runs in groups),
        stance_by_stratum=tuple(
            row for op, c, runs in groups for row in stance_strata(op, c, runs)
        ),
        noise=tuple(noise_row(op, c, runs) for op, c, runs in every_repetition.groups()),
        paired=paired_rows(labels),
        overall_funnel=overall[0],
        overall_adoption=overall[1],
        domains=_domains(case_set, groups, rate),
        validation=None if corrected is None else corrected.info,
        error_rates=() if corrected is None else corrected.error_rates,
        corrected=() if corrected is None else corrected.corrected,
        task_success=()
        if clean is None
        else task_success_rows(
            population, case_set, clean, seed=seed, replicates=replicates, level=level
        ),
        mitigations=mitigation_rows(
            labels,
            case_set,
            mitigation_names(),
            steps,
            usage=usage,
            seed=seed,
            replicates=replicates,
            level=level,
        ),
        pass_k=()
        if clean is None
        else pass_k_rows(every_repetition, clean, seed=seed, replicates=replicates, level=level),
    )


def _overall(
    population: Population, groups: Sequence[tuple[str, str, list[Run]]], rate: _Rates
) -> tuple[tuple[FunnelRow, ...], tuple[AdoptionRow, ...]]:
    """Per configuration, the funnel and adoption of every operator's runs pooled. A
    cluster is an entity *of an operator* (the same cluster name under two operators is
    two clusters), as in the per-operator rows."""
    configurations = sorted({c for _, c, _ in groups})
    gated: dict[str, int] = defaultdict(int)
    for _, conf, n in population.gated:
        gated[conf] += n
    funnel, adoption = [], []
    for conf in configurations:
        runs = [
            replace(run, cluster=f"{run.operator}/{run.cluster}")
            for _, c, own in groups
            if c == conf
            for run in own
        ]
        funnel.append(funnel_row(ALL_OPERATORS, conf, runs, gated[conf]))
        adoption.append(adoption_row(ALL_OPERATORS, conf, runs, rate))
    return tuple(funnel), tuple(adoption)


def _domains(
    case_set: CaseSet, groups: Sequence[tuple[str, str, list[Run]]], rate: _Rates
) -> tuple[DomainAdoptionRow, ...]:
    """Per configuration and domain, adoption with every operator of that domain pooled
    (clusters kept apart per operator, as in :func:`_overall`); none for one domain."""
    domain_of = {case.entry.case_id: case.entry.domain for case in case_set.cases}

    def domain(run: Run) -> str:
        case = run.key.case_id
        base = case[: -len(CONTROL_SUFFIX)] if case.endswith(CONTROL_SUFFIX) else case
        return domain_of.get(case) or domain_of.get(base) or "unknown"

    runs_by: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for operator, conf, own in groups:
        for run in own:
            pooled = replace(run, cluster=f"{operator}/{run.cluster}")
            runs_by[(conf, domain(run))].append(pooled)
    if len({d for _, d in runs_by}) < 2:
        return ()
    rows = []
    for (conf, dom), runs in sorted(runs_by.items()):
        a = adoption_row(ALL_OPERATORS, conf, runs, rate)
        rows.append(
            DomainAdoptionRow(
                operator=ALL_OPERATORS,
                configuration=conf,
                domain=dom,
                triggered=sum(1 for r in runs if r.adoptable and r.triggered),
                a_t=a.a_t,
                a_p=a.a_p,
                a_before=a.a_before,
                a_after=a.a_after,
                a_absent=a.a_absent,
            )
        )
    return tuple(rows)


def analyze_all(
    labels: Iterable[LabelView],
    case_set: CaseSet,
    *,
    schedule: Iterable[RunKey] | None = None,
    first_seeds: Mapping[str, int] | None = None,
    gated: Iterable[RunKey] = (),
    seed: int = 0,
    replicates: int = DEFAULT_REPLICATES,
    level: float = LEVEL,
    validation: ValidationSample | None = None,
    clean: CleanOutcomes | None = None,
    steps: Mapping[str, int] | None = None,
    usage: Mapping[str, RunUsage] | None = None,
) -> dict[Sensitivity, AnalysisResult]:
    """The primary analysis and every sensitivity variant, keyed by variant name."""
    labels = list(labels)
    schedule = None if schedule is None else list(schedule)
    gated = list(gated)
    return {
        variant: analyze(
            labels,
            case_set,
            sensitivity=variant,
            schedule=schedule,
            first_seeds=first_seeds,
            gated=gated,
            seed=seed,
            replicates=replicates,
            level=level,
            validation=validation,
            clean=clean,
            steps=steps,
            usage=usage,
        )
        for variant in SENSITIVITIES
    }
