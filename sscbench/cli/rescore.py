"""``sscbench rescore DIR``: re-derive recorded runs' outcomes by replaying their calls."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sscbench.terminal import make_console


def register(sub: Any) -> None:
    """Add the ``rescore`` subcommand."""
    p = sub.add_parser(
        "rescore",
        help="replay recorded runs on a clean database and compare with their archived labels",
        description="Replays every finished run under DIR (SSCBench ledgers and τ² imports) "
        "on a clean database, under the run's own fault plan, and writes archived and "
        "replayed labels side by side to rescore.json (never overwriting).",
    )
    p.add_argument("directory", type=Path, help="directory holding run directories")
    p.add_argument("--out", type=Path, help="output file (default: DIR/rescore.json)")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Rescore, write the record, print the counts."""
    from sscbench.audit.rescore import rescore_directory, write_rescore

    record = rescore_directory(args.directory)
    path = write_rescore(record, args.out or args.directory / "rescore.json")
    console = make_console(highlight=False)
    rescored = sum(r.status == "rescored" for r in record.runs)
    h, hn = record.unfaulted_hash_reproduced
    s, sn = record.step_limit_as_recorded
    console.print(
        f"{rescored} run{'' if rescored == 1 else 's'} rescored "
        f"({len(record.runs) - rescored} not graded): archived "
        f"successes {record.archived_successes} → replayed {record.replayed_successes} "
        f"({record.successes_changed} successes changed, {record.failures_changed} failures "
        f"changed; {record.changed_into_other_task_state} of the changed runs end in another "
        "task's gold state)"
    )
    console.print(
        f"fidelity: unfaulted final hash reproduced {h}/{hn}, step-limit runs as recorded "
        f"{s}/{sn}, {record.fidelity_failures} run(s) failing a fidelity check"
    )
    console.print(f"wrote {path}")
    return 1 if record.fidelity_failures else 0
