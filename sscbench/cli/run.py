"""``sscbench run``: run clean τ² tasks with an agent and a user, one ledger per run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from sscbench.cli.params import parse_params
from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.io import load_contract
from sscbench.fault_contracts.variants import VARIANTS
from sscbench.operators.variants import vary
from sscbench.runs.runner import EpisodeOutcome, plan_batch, run_batch
from sscbench.witnesses.caseset import load_case_set


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
    p.add_argument("--agent", default="scripted:careful", help="agent name, e.g. scripted:careful")
    p.add_argument(
        "--agent-param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="agent parameter, e.g. p=0.3 for scripted:mixed, phrasing=varied for any "
        "scripted agent (repeatable)",
    )
    p.add_argument("--user", default="scripted", help="user name: scripted | simulator")
    p.add_argument(
        "--user-param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="user parameter, e.g. provider=anthropic model=... for simulator (repeatable)",
    )
    p.add_argument("--out", required=True, type=Path, help="output directory")
    p.add_argument(
        "--config",
        type=Path,
        help="an experiment file (TOML or YAML): run its configurations under the protocol "
        "(docs/measurement.md §4), resuming into --out (see docs/experiments.md)",
    )
    p.add_argument("--seed", type=_seeds, default=(0,), help="seed or comma-separated seeds")
    p.add_argument("--max-steps", type=int, default=100, help="model-visible step limit")
    p.add_argument(
        "--contract", type=Path, help="a fault contract file: run its case with the fault injected"
    )
    p.add_argument("--case", help="a case id of the case set: run it with its fault injected")
    p.add_argument("--cases", type=Path, help="case set directory for --case (default: shipped)")
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        choices=VARIANTS,
        help="interface variant of the case (repeatable)",
    )
    p.set_defaults(handler=handle)


def _case_contract(case_id: str, root: Path | None) -> FaultContract:
    case_set = load_case_set(root)
    for case in case_set.cases:
        if case.entry.case_id == case_id:
            return case.contract
    examples = ", ".join(c.entry.case_id for c in case_set.cases[:3])
    raise ConfigError(f"no case {case_id!r} in {case_set.root} (e.g. {examples})")


def handle(args: argparse.Namespace) -> int:
    """Validate, run the batch with a progress bar, print a summary."""
    if args.config is not None:
        if args.contract is not None or args.case is not None or args.domain or args.variant:
            raise ConfigError(
                "--config takes everything from the experiment file; drop "
                "--domain, --contract, --case and --variant"
            )
        from sscbench.experiments.cli import handle as run_experiment_file

        return run_experiment_file(args)
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
    plan = plan_batch(
        domain=args.domain or "",
        tasks=args.tasks,
        agent=args.agent,
        user=args.user,
        out=args.out,
        seeds=args.seed,
        max_steps=args.max_steps,
        agent_params=parse_params(args.agent_param, "--agent-param", numbers=True),
        contract=contract,
        user_params=parse_params(args.user_param, "--user-param", numbers=True),
    )

    console = Console(stderr=True, soft_wrap=True)
    total = len(plan.task_ids) * len(plan.seeds)
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
        label = plan.contract.contract_id if plan.contract else plan.domain
        bar = progress.add_task(f"{label} × {plan.agent}", total=total, status="")

        def done(outcome: EpisodeOutcome) -> None:
            if outcome.skipped:
                counts["skipped"] += 1
            if outcome.end.termination == "harness_error":
                counts["failed"] += 1
            elif outcome.end.success:
                counts["solved"] += 1
            else:
                counts["unsolved"] += 1
            status = " ".join(f"{k} {v}" for k, v in counts.items())
            progress.update(bar, advance=1, status=status)

        outcomes = run_batch(plan, on_done=done)
    console.print(
        f"{len(outcomes)} runs in {plan.out}: {counts['solved']} solved, {counts['unsolved']} "
        f"not solved, {counts['failed']} failed (harness error), {counts['skipped']} already done"
    )
    for outcome in outcomes:
        if outcome.end.termination == "harness_error":
            last = (outcome.end.error or "").strip().splitlines()[-1:]
            console.print(f"[red]failed[/red] {outcome.run_id}: {' '.join(last)}")
    return 1 if counts["failed"] else 0
