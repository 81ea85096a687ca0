"""``sscbench import tau2 RESULTS.json --out DIR``: τ² simulation results → ledgers."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sscbench.terminal import make_console


def register(sub: Any) -> None:
    """Add the ``import`` subcommand (one source format today: τ² results)."""
    p = sub.add_parser("import", help="turn runs recorded elsewhere into SSCBench ledgers")
    formats = p.add_subparsers(dest="format", required=True, metavar="FORMAT")
    t = formats.add_parser(
        "tau2",
        help="τ² simulation results (the JSON `tau2 run` writes)",
        description="Import τ² simulation results as clean SSCBench runs. Every recorded "
        "tool call is replayed on a fresh episode and its observation compared byte for "
        "byte; differences are listed in each run's import.json.",
    )
    t.add_argument("results", type=Path, nargs="+", help="τ² results JSON file(s)")
    t.add_argument("--out", type=Path, required=True, help="directory for the run directories")
    t.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Import each file and print what the replay check found."""
    from sscbench.imports import import_tau2_results

    console = make_console(highlight=False)
    for source in args.results:
        s = import_tau2_results(source, args.out)
        runs = len(s.imported) + len(s.skipped)
        console.print(
            f"{source.name}: {runs} run{'s' if runs != 1 else ''} in {args.out} "
            f"({len(s.imported)} imported, {len(s.skipped)} already there)"
        )
        if s.imported:
            console.print(
                f"  replay check: {s.identical}/{s.observations} observations byte-identical"
                + (f", {s.link_only} differ only in a validation-error link" if s.link_only else "")
                + (f", [red]{s.differing} differ[/red] (see import.json)" if s.differing else "")
            )
            if s.reward_disagreements:
                console.print(
                    f"  [yellow]{len(s.reward_disagreements)} run(s) where τ²'s recorded DB "
                    f"check differs from the replayed state[/yellow]: "
                    + ", ".join(s.reward_disagreements[:5])
                    + (" …" if len(s.reward_disagreements) > 5 else "")
                )
            if s.other_task_states:
                console.print(
                    f"  [yellow]{s.other_task_states} of them end in the gold state of a "
                    "different task[/yellow]: the file's task ids may not belong to its "
                    "conversations (state_matches_tasks in import.json); their grades here "
                    "use the recorded task id"
                )
    return 0
