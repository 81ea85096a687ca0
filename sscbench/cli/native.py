"""``sscbench native``: run the native observation-contract suite and print its verdicts."""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
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
)
"""``sscbench.native.SOLUTIONS``' keys, written out so that ``--help`` imports nothing."""
LABELS = ("SUCCESS", "EXPIRED_BEFORE_USE", "MUTATED_TOKEN", "OTHER")


def register(sub: Any) -> None:
    """Add the ``native`` subcommand."""
    p = sub.add_parser(
        "native",
        help="run the native observation-contract suite (four quadrants, five perturbations)",
    )
    p.add_argument(
        "--solution",
        choices=SOLUTION_NAMES,
        default="reference",
        help="which scripted solution plays the tasks (default: the reference)",
    )
    p.add_argument("--seeds", type=int, default=10, help="seeds per task (default 10)")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Print one row per task (primary labels over the seeds); exit 1 if the reference
    fails any seeded run (the oracle check), else 0."""
    from sscbench.native import SOLUTIONS, run_suite

    if args.seeds < 1:
        raise ConfigError(f"--seeds must be at least 1, got {args.seeds}")
    verdicts = run_suite(SOLUTIONS[args.solution], seeds=range(args.seeds))
    by_task: dict[str, Counter[str]] = defaultdict(Counter)
    for v in verdicts:
        by_task[v.task_id][v.primary] += 1
    table = Table(title=f"native suite, {args.solution}, {args.seeds} seed(s) per task")
    for column in ("task", *LABELS):
        table.add_column(column, justify="left" if column == "task" else "right")
    for task, counts in by_task.items():
        table.add_row(task, *(str(counts[c]) for c in LABELS))
    console = make_console()
    console.print(table)
    passed = sum(v.success for v in verdicts)
    console.print(f"{passed}/{len(verdicts)} seeded runs succeeded")
    return 1 if args.solution == "reference" and passed < len(verdicts) else 0
