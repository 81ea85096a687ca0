"""``sscbench run --config exp.toml --out DIR``: the protocol with progress and a summary.

Exit codes: 0 when every scheduled run is observed or missing by a protocol decision
(gated, budget); 1 when some runs failed (provider or harness error: re-run the same
command to retry them); 2 for an invalid experiment file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.table import Table

from sscbench import heartbeat
from sscbench.errors import ConfigError
from sscbench.experiments.executors import with_executor
from sscbench.experiments.load import load_experiment
from sscbench.experiments.progress import ExperimentProgress
from sscbench.experiments.session import SessionResult, check_same_experiment, run_experiment
from sscbench.experiments.status import STATUS_FILE
from sscbench.terminal import compact_table, make_console
from sscbench.user_files import check_output_dir

ARRIVAL_CAUSES = ("source_missing", "no_delivery_point", "replay_divergence")
CAUSES = ("gated", "clean_missing", "budget", "provider_error", "config_error", "harness_error")
HEADERS = (
    "config",
    "clean solved/run",
    "fault run",
    "gated",
    "no clean",
    "budget",
    "provider err",
    "config err",
    "harness err",
)


def _table(result: SessionResult) -> Table:
    table = compact_table(
        "runs per configuration (missing runs by cause on the right)", HEADERS, left=("config",)
    )
    for name, row in result.counts().items():
        missing = [
            str(row.get(f"clean_missing_{c}", 0) + row.get(f"fault_missing_{c}", 0)) for c in CAUSES
        ]
        table.add_row(
            name,
            f"{row.get('clean_solved', 0)}/{row.get('clean_observed', 0)}",
            str(row.get("fault_observed", 0)),
            *missing,
        )
    return table


def dry_run(args: argparse.Namespace) -> int:
    """Validate the experiment file, estimate it (:mod:`.estimate`), print, run nothing."""
    from sscbench.experiments.estimate import estimate_experiment, estimate_lines

    if args.call_seconds <= 0:
        raise ConfigError(f"--call-seconds must be positive, got {args.call_seconds}")
    experiment = load_experiment(args.config)
    console = make_console(highlight=False)
    for warning in experiment.warnings:
        console.print(f"warning: {warning}", markup=False, soft_wrap=False)
    heartbeat.phase("playing each distinct episode once along its gold path")
    for line in estimate_lines(estimate_experiment(experiment, args.call_seconds)):
        console.print(line, markup=False)
    return 0


def handle(args: argparse.Namespace) -> int:
    """Validate the experiment file, run or resume it, print what happened."""
    config: Path = args.config
    out: Path = args.out
    check_output_dir(out, "--out")  # before anything runs: a file or read-only place
    experiment = with_executor(load_experiment(config), args.executor)
    console = make_console(stderr=True)
    check_same_experiment(out, experiment)  # before the progress display starts
    for warning in experiment.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}")
    with ExperimentProgress(console, experiment.name) as progress:
        result = run_experiment(
            experiment,
            out,
            on_start=progress.start,
            on_record=progress.record,
            keep_records=False,
        )
    console.print(_table(result))
    arrival = {c: n for c, n in result.tally.causes.items() if c in ARRIVAL_CAUSES}
    if arrival:  # runs under arrival arms (docs/arrival-interventions.md)
        counts = ", ".join(f"{cause} {n}" for cause, n in sorted(arrival.items()))
        console.print(f"manipulated runs missing (excluded from the arms): {counts}")
    cost = f"${result.spent_usd:.4f}" + (" (some calls unpriced)" if result.unpriced else "")
    console.print(
        f"{result.scheduled} scheduled runs in {out} ({STATUS_FILE}); "
        f"{result.executed} executed this session; cost so far {cost}"
    )
    for record in result.failed[:10]:
        console.print(f"[red]failed[/red] {record.run_id}: {record.detail}")
    if result.failed_count:
        console.print(f"{result.failed_count} failed runs: re-run the same command to retry them")
    return 1 if result.failed_count else 0
