"""Experiments: configurations × cases × repetitions under the execution protocol
(docs/measurement.md §4).

An experiment file (TOML or YAML, see docs/experiments.md) names a case set, the
configurations under test, the user, repetitions, concurrency, step limits and a budget.
:func:`load_experiment` validates it with file-and-line errors; :func:`plan_runs` lays out
clean-task runs and gated faulted runs; :func:`run_experiment` runs or resumes them
concurrently and records every scheduled run as observed or missing with a cause;
``arrival_arms`` adds runs that deliver a refutation at a set moment (:mod:`.arrival`).
"""

from sscbench.experiments.load import Configuration, Experiment, load_experiment
from sscbench.experiments.plan import RunKey, Schedule, ScheduledRun, iter_plan, plan_runs
from sscbench.experiments.session import SessionResult, run_experiment
from sscbench.experiments.status import RunRecord, read_status

__all__ = [
    "Configuration",
    "Experiment",
    "RunKey",
    "RunRecord",
    "Schedule",
    "ScheduledRun",
    "SessionResult",
    "iter_plan",
    "load_experiment",
    "plan_runs",
    "read_status",
    "run_experiment",
]
