"""``sscbench native``: run the native observation-contract suite and print its verdicts."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from sscbench.errors import ConfigError
from sscbench.terminal import make_console

SOLUTION_NAMES = (
    "reference",
    "fetch_then_prepare",
    "copies_delivered",
    "trusts_display",
    "expired_and_damaged",
    "gives_up",
    "retries_at_once",
    "retries_and_copies",
    "fabricates_link",
    "ignores_maintenance",
    "rewrites_blindly",
    "retries_stale",
)
"""``sscbench.native.SOLUTIONS``' keys, written out so that ``--help`` imports nothing."""
FAMILY_NAMES = ("link", "rate_limit", "maintenance", "version_conflict")
"""``sscbench.native.FAMILIES``, written out for the same reason."""
LABELS = (
    "SUCCESS",
    "EXPIRED_BEFORE_USE",
    "ACTED_DURING_MAINTENANCE",
    "RETRY_BEFORE_ALLOWED",
    "MUTATED_TOKEN",
    "FABRICATED_ARTIFACT",
    "STALE_WRITE",
    "OTHER",
)
"""The verifier's labels, as columns (``sscbench.native.verifier.SEVERITY``, success first)."""


def register(sub: Any) -> None:
    """Add the ``native`` subcommand."""
    p = sub.add_parser(
        "native",
        help="run the native observation-contract suite (four quadrants, five perturbations, "
        "rate limits, maintenance windows, version conflicts)",
    )
    p.add_argument(
        "--solution",
        choices=SOLUTION_NAMES,
        default="reference",
        help="which scripted solution plays the tasks (default: the reference, on every "
        "task; a scripted mistake plays the families it is a mistake in)",
    )
    p.add_argument(
        "--agent",
        metavar="AGENT",
        help="play the tasks with a registered agent instead of a scripted solution (the "
        "agents `run` takes: openai, anthropic, openai-compatible, a plugin's, or external: "
        "an agent in its own loop, served each task over MCP; the scripted agents carry "
        "out τ² gold plans and cannot)",
    )
    p.add_argument(
        "--agent-param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="agent parameter, e.g. model=gpt-4.1 (repeatable)",
    )
    p.add_argument(
        "--family",
        action="append",
        choices=FAMILY_NAMES,
        metavar="FAMILY",
        help=f"play only this family's tasks (repeatable; one of {', '.join(FAMILY_NAMES)}; "
        "default: every family the solution plays)",
    )
    p.add_argument("--seeds", type=int, default=10, help="seeds per task (default 10)")
    p.add_argument(
        "--max-steps",
        type=int,
        default=100,
        help="model-visible events an agent's episode may hold (default 100, as for run)",
    )
    p.add_argument(
        "--out",
        type=Path,
        help="write each run's verdict (run.json) and, for an external agent, its client's "
        "session log and output into OUT/<task>-s<seed> (default for --agent external: "
        "runs/native/<UTC time>; a run directory that exists is refused)",
    )
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Print one row per task (primary labels over the seeds); exit 1 if the reference
    fails any seeded run (the oracle check), else 0."""
    if args.seeds < 1:
        raise ConfigError(f"--seeds must be at least 1, got {args.seeds}")
    if args.max_steps < 3:
        raise ConfigError(f"--max-steps must be at least 3, got {args.max_steps}")
    return play(args, range(args.seeds))


def play(args: argparse.Namespace, seeds: Sequence[int]) -> int:
    """:func:`handle` on explicit seeds (``sscbench serve --native`` gives a seed list)."""
    from sscbench.native import PLAYS, SOLUTIONS, run_suite

    chosen = tuple(args.family or FAMILY_NAMES)
    written: Path | None = None
    if args.agent is not None:
        verdicts, written = _with_agent(args, chosen, seeds)
        player = args.agent
    else:
        families = [f for f in PLAYS[args.solution] if f in chosen]
        if not families:
            raise ConfigError(
                f"--solution {args.solution} plays {', '.join(PLAYS[args.solution])}, not "
                f"{', '.join(chosen)}; choose one of those with --family"
            )
        if args.out is not None:
            raise ConfigError("--out records an agent's runs; a scripted --solution writes none")
        verdicts = run_suite(SOLUTIONS[args.solution], seeds=seeds, families=families)
        player = args.solution
    by_task: dict[str, Counter[str]] = defaultdict(Counter)
    for v in verdicts:
        by_task[v.task_id][v.primary] += 1
    table = Table(title=f"native suite, {player}, {len(seeds)} seed(s) per task")
    seen = {v.primary for v in verdicts}
    columns = [c for c in LABELS if c in seen or c == "SUCCESS"]  # a label no run got: no column
    for column in ("task", *columns):
        table.add_column(column, justify="left" if column == "task" else "right")
    for task, counts in by_task.items():
        table.add_row(task, *(str(counts[c]) for c in columns))
    console = make_console()
    console.print(table)
    passed = sum(v.success for v in verdicts)
    console.print(f"{passed}/{len(verdicts)} seeded runs succeeded")
    if written is not None:
        console.print(f"runs written to {written}")
    reference = args.agent is None and args.solution == "reference"
    return 1 if reference and passed < len(verdicts) else 0


def _with_agent(
    args: argparse.Namespace, families: tuple[Any, ...], seeds: Sequence[int]
) -> tuple[list[Any], Path | None]:
    """The suite played by a registered agent, checked before any episode as ``run``
    checks it (unknown agent, rejected parameters, a missing key: one line, exit 2), and
    where its runs were written. An external agent is served each task over MCP, one
    session per task, like a τ² run."""
    from sscbench.cli.params import parse_params
    from sscbench.experiments.inline import command_line_experiment
    from sscbench.native.agents import run_suite_with

    if args.agent.startswith("scripted:"):
        raise ConfigError(
            f"--agent {args.agent}: the scripted agents carry out a τ² task's gold plan and a "
            "native task has none; use --solution for the scripted native solutions"
        )
    experiment = command_line_experiment(
        "sscbench native",
        [(args.agent, parse_params(args.agent_param, "--agent-param"))],
        seeds=[0],
    )
    (config,) = experiment.configurations
    from sscbench.agents.registry import make_agent

    out = args.out
    if out is None and config.agent == "external":
        out = Path("runs/native") / time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    if config.agent == "external" and config.params.get("transport") == "stdio":
        raise ConfigError(
            "the native suite is served over streamable-http (one session per task); "
            "stdio serves one run per process"
        )
    if config.agent == "external":
        from sscbench.native import catalogue

        count = sum(len(catalogue(seed, families)) for seed in seeds)
        print(
            f"sscbench native: {count} tasks, each one MCP session of the external agent, "
            f"in order; runs in {out}",
            file=sys.stderr,
            flush=True,
        )
    verdicts = run_suite_with(
        lambda: make_agent(config.agent, **config.params),
        seeds,
        families,
        out=out,
        max_steps=args.max_steps,
    )
    return verdicts, out
