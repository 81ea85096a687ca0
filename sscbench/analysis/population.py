"""Who counts: the funnel from scheduled runs to the analysis population ``P``.

The funnel: scheduled → observed → triggered → dependent use decidable → ``P``. ``P`` holds
the included, triggered, non-control runs of the primary repetition that have a dependent
use (``T_S`` found) and a decidable arrival class ``Z_S``. A triggered run whose agent never
used the fact has no arrival class: it is counted in its own funnel column (``no_use``) and
reported apart, never in ``P`` — so ``A_P``'s denominator is the sum of the three strata'.
Every claim is then computed on an explicit subset of these runs, so a rate can always be
traced back to the runs that support it.

- A *scheduled* run is one the design asked for: a key ``(case, configuration,
  repetition)`` from the schedule when one is given, else every label record. A scheduled
  run without a finished, error-free record is *missing* — counted, never imputed.
- Target-value controls (``v′`` is the value the task asks for) stay in the arrival
  analysis but are not in ``P``, so they never enter the primary adoption or diagnosis
  (the ``controls_included`` variant adds them, with their own adoption).
- Each run's *cluster* is its case's entity cluster from the case set (reservation, order
  item, user); intervals resample these clusters, because runs on one entity are not
  independent.

Sensitivity variants (docs/measurement.md §6.4) only change which runs are in the universe or
included:
``primary`` keeps the first repetition (r0); ``all_repetitions`` keeps every repetition;
``common_seeds`` keeps, per operator, only cases scheduled for every configuration (a case
is scheduled under fault for a configuration only if it solved the clean task, so these
are the common clean-solved seeds); ``strict_item_option`` keeps only the ItemOption cases
whose item a gold write acts on (a narrower reading of task relevance at inclusion);
``controls_included`` puts the target-value controls into ``P``.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple, get_args

from sscbench.analysis.results import FunnelRow
from sscbench.cases.caseset import CaseEntry, CaseSet
from sscbench.errors import ConfigError, LedgerError
from sscbench.fault_contracts.variants import split_variants
from sscbench.reconstruct.labels import LabelView
from sscbench.records.ledger import iter_jsonl

Sensitivity = Literal[
    "primary", "common_seeds", "all_repetitions", "strict_item_option", "controls_included"
]
SENSITIVITIES: tuple[Sensitivity, ...] = get_args(Sensitivity)
ArrivalClass = Literal["before", "after", "absent"]
STRATA: tuple[ArrivalClass, ...] = ("before", "after", "absent")
CONTROL_SUFFIX = "+control"


class RunKey(NamedTuple):
    """One scheduled run: a case under one configuration, at one repetition (r0, r1, …).

    The configuration is the agent's display id and ``repetition`` its seed, as recorded
    in the ledger header (which repetition index a seed is comes from the schedule).
    """

    case_id: str
    configuration: str
    repetition: int


@dataclass(frozen=True, slots=True)
class Run:
    """A scheduled run with its label (``None`` when missing) and its funnel stages."""

    key: RunKey
    operator: str
    cluster: str
    control: bool
    label: LabelView | None
    included: bool
    """Passes the variant's inclusion rule (only ``strict_item_option`` excludes runs)."""
    adoptable: bool
    """Enters adoption and diagnosis when triggered: included and non-control (controls
    too in the ``controls_included`` variant)."""

    @property
    def observed(self) -> bool:
        """A finished record without a harness error."""
        return self.label is not None

    @property
    def triggered(self) -> bool:
        """The fault-bearing observation was delivered (and confirmed)."""
        return self.label is not None and self.label.triggered is True

    @property
    def decidable_use(self) -> bool:
        """Triggered, and ``T_S`` is decided: found, or no dependent use at all."""
        return self.triggered and self.label is not None and self.label.t_s.decidable

    @property
    def has_use(self) -> bool:
        """Triggered, with a found dependent use (``T_S``)."""
        return self.triggered and self.label is not None and self.label.t_s.status == "found"

    @property
    def no_use(self) -> bool:
        """Triggered, and decided to have no dependent use (no arrival class)."""
        return self.triggered and self.label is not None and self.label.t_s.status == "none"

    @property
    def in_population(self) -> bool:
        """In ``P``: adoptable (included, non-control), triggered, with a dependent use and a
        decidable arrival class."""
        return (
            self.adoptable
            and self.label is not None
            and self.label.t_s.status == "found"
            and self.arrival is not None
        )

    @property
    def adoption_decided(self) -> bool:
        """``A`` is decided (``True`` or ``False``) for this run."""
        return self.label is not None and self.label.adopted is not None

    @property
    def adopted(self) -> bool:
        """``A = 1``."""
        return self.label is not None and self.label.adopted is True

    @property
    def arrival(self) -> ArrivalClass | None:
        """``Z_S`` when decidable (before / after / absent) for an included triggered run
        — controls too, since they are kept for arrival; ``None`` otherwise."""
        if not (self.included and self.triggered) or self.label is None:
            return None
        z = self.label.z_s
        if z == "before" or z == "after" or z == "absent":
            return z
        return None


@dataclass(frozen=True)
class Population:
    """The runs of one analysis variant, grouped per operator × configuration."""

    sensitivity: Sensitivity
    runs: tuple[Run, ...]
    """Every scheduled run of the variant, sorted by operator, configuration, case,
    repetition."""
    gated: tuple[tuple[str, str, int], ...] = ()
    """``(operator, configuration, runs)``: faulted runs the protocol did not schedule
    because the configuration had not solved the clean task (reported beside the funnel)."""
    gated_seeds: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Per configuration, the seeds of its gated runs (planned repetitions that may have
    no scheduled run at all)."""

    def groups(self) -> Iterator[tuple[str, str, list[Run]]]:
        """``(operator, configuration, runs)`` in sorted order; a group whose runs were all
        gated is there too, with no runs (its rows show zeros, never disappear)."""
        grouped: dict[tuple[str, str], list[Run]] = defaultdict(list)
        for operator, configuration, _ in self.gated:
            grouped[(operator, configuration)] = []
        for run in self.runs:
            grouped[(run.operator, run.key.configuration)].append(run)
        for (operator, configuration), runs in sorted(grouped.items()):
            yield operator, configuration, runs

    def operators(self) -> list[str]:
        """The operators present (scheduled or gated), sorted."""
        return sorted({run.operator for run in self.runs} | {op for op, _, _ in self.gated})

    def funnel(self) -> tuple[FunnelRow, ...]:
        """One funnel row per operator × configuration (with its gated count)."""
        gated = {(op, conf): n for op, conf, n in self.gated}
        return tuple(
            funnel_row(op, conf, runs, gated.get((op, conf), 0)) for op, conf, runs in self.groups()
        )


def funnel_row(operator: str, configuration: str, runs: list[Run], gated: int = 0) -> FunnelRow:
    """scheduled → observed → triggered → decidable use → ``P`` for one group.

    ``not_triggered`` is observed − triggered, so it also holds runs whose trigger could
    not be confirmed; ``no_use`` counts the adoptable runs with a decided absence of any
    dependent use (reported apart, not in ``P``); ``controls`` counts the control runs that
    reached the decidable-use stage (kept for arrival). Runs dropped by
    ``strict_item_option`` reach decidable use but not ``P``. ``gated`` runs were never
    scheduled (clean task not solved) and are outside every other column.
    """
    scheduled = len(runs)
    observed = sum(r.observed for r in runs)
    triggered = sum(r.triggered for r in runs)
    return FunnelRow(
        operator=operator,
        configuration=configuration,
        gated=gated,
        scheduled=scheduled,
        observed=observed,
        missing=scheduled - observed,
        triggered=triggered,
        not_triggered=observed - triggered,
        decidable_use=sum(r.decidable_use for r in runs),
        no_use=sum(r.no_use and r.adoptable for r in runs),
        arrival_decided=sum(r.has_use and r.adoptable and r.arrival is not None for r in runs),
        arrival_undecidable=sum(r.has_use and r.adoptable and r.arrival is None for r in runs),
        population=sum(r.in_population for r in runs),
        controls=sum(r.decidable_use and r.control and r.included for r in runs),
    )


@dataclass(frozen=True)
class Schedule:
    """What an experiment's status file says the protocol planned."""

    runs: tuple[RunKey, ...]
    """The faulted runs scheduled after gating (missing ones included)."""
    gated: tuple[RunKey, ...]
    """Faulted runs gating kept out: the configuration did not solve the clean task."""
    first_seeds: dict[str, int]
    """Each configuration's r0 seed (the primary repetition)."""


def _schedule_key(path: Path, number: int, record: dict[str, object]) -> tuple[str, str, int, int]:
    """``(case, configuration, seed, repetition)`` of a schedule record, or a LedgerError
    naming the line (the file is the engine's, but a user may hand us an edited copy)."""
    key = record.get("key")
    configuration = record.get("configuration")
    if not isinstance(key, dict) or not isinstance(configuration, str):
        raise LedgerError(path, number, "a run record needs a 'key' object and a 'configuration'")
    case, seed, repetition = key.get("case"), key.get("seed"), key.get("repetition")
    if not isinstance(case, str) or type(seed) is not int or type(repetition) is not int:
        raise LedgerError(
            path, number, "a run key needs 'case' (text), 'seed' and 'repetition' (integers)"
        )
    return case, configuration, seed, repetition


def read_schedule(path: Path) -> Schedule | None:
    """Read an experiment's ``schedule.jsonl`` (the latest record per run), or ``None`` when
    there is none. Gating precedes scheduling: a gated faulted run is not a scheduled run
    gone missing, so it is listed apart. A last line cut by a crash is dropped with a
    warning (as in a ledger); any other bad line is a :class:`LedgerError`."""
    if not path.exists():
        return None
    if not path.is_file():
        raise ConfigError(f"{path} is not a file; it should be the experiment's schedule")
    latest: dict[tuple[str, str, int], dict[str, object]] = {}
    first_seeds: dict[str, int] = {}
    for number, record in iter_jsonl(path):
        if record.get("kind") != "run" or record.get("condition") != "fault":
            continue
        case, configuration, seed, repetition = _schedule_key(path, number, record)
        latest[(case, configuration, seed)] = record
        if repetition == 0:
            first_seeds[configuration] = seed
    runs: list[RunKey] = []
    gated: list[RunKey] = []
    for (case, configuration, seed), record in latest.items():
        key = RunKey(case, configuration, seed)
        is_gated = record.get("state") == "missing" and record.get("cause") == "gated"
        (gated if is_gated else runs).append(key)
    return Schedule(tuple(runs), tuple(gated), first_seeds)


class AnalysisWarning(UserWarning):
    """Something the analysis left out and says so (the command line prints it as one
    line)."""


def harness_error(label: LabelView) -> bool:
    """Whether the run ended in a harness error (counted as missing, never as a result).

    Read defensively: ``LabelView`` carries the run's termination only once the labeller
    records it; until then a harness-error run is recognised only by ``finished``.
    """
    return getattr(label, "termination", None) == "harness_error"


def strict_item_option_excludes(entry: CaseEntry) -> bool:
    """Whether the stricter inclusion drops this case.

    The strict reading of task relevance keeps only cases whose target a gold write acts on
    (``relevance == "direct"``, recorded in the case set at build time by operators that
    draw the line — ItemOption among the built-ins, hence the variant's name); a case whose
    target the task only mentions is dropped. It is a case-level rule, decided before any
    run, like inclusion itself. Case sets of schema 1 carry no relevance: there nothing is
    dropped.
    """
    return entry.relevance == "indirect"


def _case_entry(case_set: CaseSet, index: dict[str, CaseEntry], case_id: str) -> CaseEntry:
    entry = index.get(case_id)
    if entry is None and case_id.endswith(CONTROL_SUFFIX):
        # Labels of a schema-1 case set's v′ = v twin: the twin's entry gives the cluster.
        entry = index.get(case_id[: -len(CONTROL_SUFFIX)])
    if entry is None:
        raise ConfigError(
            f"case {case_id!r} is not in case set {case_set.manifest.name} "
            f"{case_set.manifest.version} ({case_set.root}); analyse labels with the case set "
            "their runs were made from"
        )
    return entry


def run_key(label: LabelView) -> RunKey | None:
    """The schedule key of a label (``None`` for a clean run, which has no case)."""
    if label.case_id is None:
        return None
    return RunKey(label.case_id, label.configuration or label.agent, label.seed)


def build_population(
    labels: Iterable[LabelView],
    case_set: CaseSet,
    *,
    sensitivity: Sensitivity = "primary",
    schedule: Iterable[RunKey] | None = None,
    repetitions: Literal["first", "all"] | None = None,
    first_seeds: Mapping[str, int] | None = None,
    gated: Iterable[RunKey] = (),
) -> Population:
    """Place every scheduled run of the variant in the funnel.

    ``schedule`` lists the runs the design asked for; without it every faulted label
    record is a scheduled run. ``repetitions`` overrides the variant's repetition rule
    (the noise floor needs all repetitions whatever the variant). The primary repetition
    is r0, the first one the design planned: ``first_seeds`` gives r0's seed per
    configuration (an experiment's ``seeds = [5, 1]`` makes seed 5 its r0); without it, r0
    is the smallest seed scheduled anywhere in the run set. Never a later repetition
    standing in for a missing r0, which would be imputation. ``gated`` lists the faulted
    runs gating kept out of the schedule; they are counted beside the funnel (same
    repetition rule), never as missing.
    """
    if sensitivity not in SENSITIVITIES:
        raise ConfigError(f"unknown sensitivity {sensitivity!r}; one of {', '.join(SENSITIVITIES)}")
    index = {case.entry.case_id: case.entry for case in case_set.cases}
    observed: dict[RunKey, LabelView] = {}
    recorded: set[RunKey] = set()
    for label in labels:
        key = run_key(label)
        if key is None or split_variants(key.case_id)[1]:
            continue  # clean runs, and paired-check variant runs (see paired.py)
        recorded.add(key)
        if not label.finished or harness_error(label):
            continue
        if key in observed:
            raise ConfigError(
                f"two finished records for run {key.case_id} / {key.configuration} / "
                f"r{key.repetition} ({observed[key].run_id}, {label.run_id})"
            )
        observed[key] = label
    if schedule is None:
        scheduled = recorded
    else:
        scheduled = {RunKey(*key) for key in schedule if not split_variants(key[0])[1]}
        unscheduled = observed.keys() - scheduled
        if unscheduled:
            # Not part of the design: left out of every count, but said out loud.
            example = min(unscheduled)
            warnings.warn(
                AnalysisWarning(
                    f"{len(unscheduled)} observed run(s) are not in the schedule and are left "
                    f"out (e.g. {example.case_id} / {example.configuration} / "
                    f"r{example.repetition})"
                ),
                stacklevel=2,
            )
    if repetitions is None:
        repetitions = "all" if sensitivity == "all_repetitions" else "first"
    if repetitions == "first" and scheduled:
        smallest = min(key.repetition for key in scheduled)
        firsts = first_seeds or {}
        scheduled = {
            key for key in scheduled if key.repetition == firsts.get(key.configuration, smallest)
        }
    entries = {key: _case_entry(case_set, index, key.case_id) for key in scheduled}
    for key, label in observed.items():
        if key in entries and label.operator not in (None, entries[key].operator):
            raise ConfigError(
                f"run {label.run_id}: operator {label.operator!r} but case {key.case_id} is "
                f"{entries[key].operator!r} in the case set"
            )
    gated = [k for k in gated if not split_variants(k[0])[1]]
    if sensitivity == "common_seeds":
        # With a schedule every configuration was planned on every case (gated or not);
        # from labels alone, a configuration's operators are those it has runs of.
        everyone = (
            {k.configuration for k in scheduled} | {RunKey(*k).configuration for k in gated}
            if schedule is not None
            else None
        )
        scheduled = _common_seeds(scheduled, entries, everyone)
    gated_counts: dict[tuple[str, str], int] = defaultdict(int)
    gated_seeds: dict[str, set[int]] = defaultdict(set)
    for key in {RunKey(*k) for k in gated}:
        if repetitions == "first" and key.repetition != (first_seeds or {}).get(
            key.configuration, min((k.repetition for k in scheduled), default=key.repetition)
        ):
            continue
        gated_counts[(_case_entry(case_set, index, key.case_id).operator, key.configuration)] += 1
        gated_seeds[key.configuration].add(key.repetition)
    runs = []
    for key in sorted(scheduled, key=lambda k: (entries[k].operator, k.configuration, k)):
        entry = entries[key]
        found = observed.get(key)
        included = not (sensitivity == "strict_item_option" and strict_item_option_excludes(entry))
        runs.append(
            Run(
                key=key,
                operator=entry.operator,
                cluster=entry.cluster,
                control=entry.control,
                label=found,
                included=included,
                adoptable=included and (not entry.control or sensitivity == "controls_included"),
            )
        )
    return Population(
        sensitivity=sensitivity,
        runs=tuple(runs),
        gated=tuple((op, conf, n) for (op, conf), n in sorted(gated_counts.items())),
        gated_seeds={c: tuple(sorted(s)) for c, s in gated_seeds.items()},
    )


def _common_seeds(
    scheduled: set[RunKey], entries: dict[RunKey, CaseEntry], configurations: set[str] | None
) -> set[RunKey]:
    """Keep the cases scheduled for every configuration: every configuration of the
    experiment when ``configurations`` is given (so one gated on all of an operator's cases
    leaves that operator no common seed), else every configuration with runs of the case's
    operator."""
    per_operator: dict[str, set[str]] = defaultdict(set)
    per_case: dict[tuple[str, str], set[str]] = defaultdict(set)
    for key in scheduled:
        operator = entries[key].operator
        per_operator[operator].add(key.configuration)
        per_case[(operator, key.case_id)].add(key.configuration)
    return {
        key
        for key in scheduled
        if per_case[(entries[key].operator, key.case_id)]
        == (configurations if configurations is not None else per_operator[entries[key].operator])
    }
