"""``sscbench run``: run clean τ² tasks or a fault case with an agent and a user, one
ledger per run — through the same executor as experiment files (one resume rule: a
finished run is kept, a failed or unfinished one is run again)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from sscbench.cli.params import executor_choice, parse_params
from sscbench.cli.rare_gc import collecting_rarely
from sscbench.errors import ConfigError
from sscbench.terminal import make_console

if TYPE_CHECKING:
    from sscbench.experiments.load import Experiment
    from sscbench.experiments.plan import ScheduledRun
    from sscbench.experiments.status import RunRecord
    from sscbench.fault_contracts.contract import FaultContract


BUILTIN_AGENTS = (
    "scripted:careful",
    "scripted:eager",
    "scripted:gold",
    "scripted:hasty",
    "scripted:mixed",
    "scripted:receptive",
    "scripted:prompt",
    "scripted:refetch",
    "scripted:verbatim",
    "scripted:display",
    "openai",
    "anthropic",
    "openai-compatible",
    "external",
)
"""The built-in agents, written out so that ``--help`` imports neither the scripted agents
(τ²) nor any SDK (a test keeps the list equal to the registry)."""
INTERFACE_VARIANTS = ("aligned", "read_back_hint")
"""``fault_contracts.variants.VARIANTS``, written out so that ``--help`` stays light (a test
keeps them equal)."""


def _seeds(text: str) -> tuple[int, ...]:
    try:
        seeds = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"seeds must be integers separated by commas, got {text!r}"
        ) from None
    return seeds


def register(sub: Any) -> None:
    """Add the ``run`` subcommand."""
    p = sub.add_parser(
        "run", help="run tasks (clean, or a fault case) and write one ledger per run"
    )
    p.add_argument("--domain", help="airline or retail (not needed with --contract)")
    p.add_argument("--tasks", default="all", help="all | train | test | 0-9 | 1,3,5 (default: all)")
    p.add_argument(
        "--agent",
        default="scripted:careful",
        metavar="AGENT",
        help=f"agent name (default scripted:careful): {', '.join(BUILTIN_AGENTS)}, or one a "
        "plugin registers",
    )
    p.add_argument(
        "--agent-param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="agent parameter, e.g. p=0.3 for scripted:mixed, phrasing=varied for any "
        "scripted agent (repeatable)",
    )
    p.add_argument(
        "--mitigation",
        metavar="NAME",
        help="run the agent behind this mitigation (verify_before_write, "
        "read_back_after_write, or one a plugin registers); its runs are configuration "
        "AGENT+NAME (docs/writing-a-mitigation.md)",
    )
    p.add_argument("--user", default="scripted", help="user name: scripted | simulator")
    p.add_argument(
        "--user-param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="user parameter, e.g. provider=anthropic model=... for simulator (repeatable)",
    )
    p.add_argument("--out", type=Path, help="output directory (required unless --dry-run)")
    p.add_argument(
        "--config",
        type=Path,
        help="an experiment file (TOML or YAML): run its configurations under the protocol "
        "(docs/measurement.md §4), resuming into --out (see docs/experiments.md)",
    )
    p.add_argument("--seed", type=_seeds, default=(0,), help="seed or comma-separated seeds")
    p.add_argument("--max-steps", type=int, default=100, help="model-visible step limit")
    p.add_argument(
        "--concurrency", type=int, default=1, help="episodes at once (LLM agents: raise it)"
    )
    p.add_argument(
        "--executor",
        type=executor_choice,
        metavar="local|ray[=ADDRESS]",
        help="where episodes run: this process (default), or Ray — a local cluster, or the "
        "one at ADDRESS (needs pip install 'sscbench[ray]'); overrides the experiment file",
    )
    p.add_argument(
        "--contract", type=Path, help="a fault contract file: run its case with the fault injected"
    )
    p.add_argument("--case", help="a case id of the case set: run it with its fault injected")
    p.add_argument("--cases", type=Path, help="case set directory for --case (default: shipped)")
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        choices=INTERFACE_VARIANTS,
        help="interface variant of the case (repeatable)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="with --config: print the scheduled runs and the expected model calls, tokens, "
        "cost and wall time, and run nothing",
    )
    p.add_argument(
        "--call-seconds",
        type=float,
        default=3.0,
        metavar="S",
        help="seconds per model call assumed by --dry-run's wall-time estimate (default 3)",
    )
    p.set_defaults(handler=handle)


def _case_contract(case_id: str, root: Path | None) -> FaultContract:
    from sscbench.cases.caseset import load_case_set

    case_set = load_case_set(root)
    for case in case_set.cases:
        if case.entry.case_id == case_id:
            return case.contract
    examples = ", ".join(c.entry.case_id for c in case_set.cases[:3])
    raise ConfigError(f"no case {case_id!r} in {case_set.root} (e.g. {examples})")


@collecting_rarely
def handle(args: argparse.Namespace) -> int:
    """Validate, hand the runs to the executor with a progress bar, print a summary."""
    from sscbench.envs import load_domain
    from sscbench.envs.task_spec import parse_task_spec
    from sscbench.fault_contracts.io import load_contract
    from sscbench.operators.variants import vary
    from sscbench.runs.layout import check_writable

    if args.config is not None:
        if (
            args.contract is not None
            or args.case is not None
            or args.domain
            or args.variant
            or getattr(args, "mitigation", None)
        ):
            raise ConfigError(
                "--config takes everything from the experiment file (mitigations from its "
                "`mitigations` list); drop --domain, --contract, --case, --variant and "
                "--mitigation"
            )
        if args.dry_run:
            from sscbench.experiments.cli import dry_run

            return dry_run(args)
        if args.out is None:
            raise ConfigError("--out is required (the directory the runs are written to)")
        from sscbench.experiments.cli import handle as run_experiment_file

        return run_experiment_file(args)
    if args.dry_run:
        raise ConfigError("--dry-run estimates an experiment file: give --config FILE")
    if args.out is None:
        raise ConfigError("--out is required (the directory the runs are written to)")
    from sscbench.experiments.inline import clean_runs, command_line_experiment, fault_runs
    from sscbench.experiments.session import check_same_experiment

    contract: FaultContract | None = None
    if args.contract is not None and args.case is not None:
        raise ConfigError("give either --contract or --case, not both")
    if args.case is not None:
        contract = _case_contract(args.case, args.cases)
    elif args.contract is not None:
        contract = load_contract(args.contract)
    if contract is not None:
        for variant in args.variant:
            contract = vary(contract, variant)
    elif args.variant:
        raise ConfigError("--variant needs --contract or --case")
    elif args.domain is None:
        raise ConfigError("give --domain (airline or retail), --contract FILE or --case ID")
    if args.max_steps < 1:
        raise ConfigError(f"--max-steps must be at least 1, got {args.max_steps}")
    if args.concurrency < 1:
        raise ConfigError(f"--concurrency must be at least 1, got {args.concurrency}")
    experiment = command_line_experiment(
        "sscbench run",
        [(args.agent, parse_params(args.agent_param, "--agent-param"))],
        seeds=args.seed,
        user=args.user,
        user_params=parse_params(args.user_param, "--user-param"),
        concurrency=args.concurrency,
        mitigations=() if getattr(args, "mitigation", None) is None else (args.mitigation,),
        unmitigated=False,
    )
    if contract is not None:
        runs = fault_runs(experiment, [contract], args.max_steps)
        label = contract.contract_id
    else:
        load_domain(args.domain)
        tasks = [(args.domain, t) for t in parse_task_spec(args.domain, args.tasks)]
        runs = clean_runs(experiment, tasks, args.max_steps)
        label = args.domain
    from sscbench.experiments.executors import with_executor

    experiment = with_executor(experiment, args.executor)
    check_writable(args.out)
    check_same_experiment(args.out, experiment)  # before the progress display starts
    for warning in experiment.warnings:
        make_console(stderr=True).print(f"[yellow]warning:[/yellow] {warning}")
    return _run(experiment, runs, args.out, f"{label} × {args.agent}")


def _run(experiment: Experiment, runs: list[ScheduledRun], out: Path, label: str) -> int:
    from sscbench import heartbeat
    from sscbench.experiments.session import run_experiment

    console = make_console(stderr=True)
    counts = {"solved": 0, "unsolved": 0, "failed": 0, "skipped": 0}
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as progress:
        bar = progress.add_task(label, total=len(runs), status="")
        heartbeat.phase(f"running {label}", total=len(runs))

        def done(record: RunRecord, ran: bool) -> None:
            counts["skipped"] += not ran
            if record.failed:
                counts["failed"] += 1
            elif record.success:
                counts["solved"] += 1
            else:
                counts["unsolved"] += 1
            status = " ".join(f"{k} {v}" for k, v in counts.items())
            progress.update(bar, advance=1, status=status)
            heartbeat.advance(record.failed)

        result = run_experiment(experiment, out, runs=runs, on_record=done)
    console.print(
        f"{len(result.records)} runs in {out}: {counts['solved']} solved, {counts['unsolved']} "
        f"not solved, {counts['failed']} failed, {counts['skipped']} already done"
    )
    for record in result.failed:
        console.print(f"[red]failed[/red] {record.run_id}: {record.cause}: {record.detail}")
    if result.failed:
        console.print("failed runs are run again by the next invocation of the same command")
    return 1 if result.failed else 0
